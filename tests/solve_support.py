"""The SciPy path's result, which every path of the own solver must give exactly."""

from __future__ import annotations

import numpy as np

from twosat_formal.formula import Formula
from twosat_formal.solve import SolveResult
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.scc import contradiction_cycle, model_from_components, strong_components

__all__ = ["scipy_result"]


def scipy_result(formula: Formula) -> SolveResult:
    """The SciPy path: its strong components, then its model or its contradiction cycle."""
    graph = implication_graph(formula)
    components = strong_components(graph)
    labels = components.labels
    if bool(np.any(labels[0::2] == labels[1::2])):
        return SolveResult("UNSAT", cycle=contradiction_cycle(graph, components), backend="scc")
    model = tuple(model_from_components(components).tolist())
    return SolveResult("SAT", model=model, backend="scc")
