"""Structural measures of a 2-CNF, from the engine's implication graph.

:func:`structural_measures` gives, for a 2-CNF:

* ``shortest_cycle``: for an UNSAT formula, the length (in implication steps) of its
  shortest contradiction cycle: the least ``d(x, ~x) + d(~x, x)`` over the conflicting
  variables ``x``, ``d`` the shortest-path distance; ``None`` when SAT;
* ``longest_path``: the most implication steps between strong components on one path of
  the condensation (0 when no edge joins two components);
* ``scc_count``, ``largest_scc`` and ``nontrivial_sccs``: as
  :func:`~twosat_formal.solve.analysis.analyze` counts them;
* ``backbone``: for a SAT formula, how many literals are true in every model; ``None``
  when UNSAT;
* ``forced_depth``: for a SAT formula, the depth of the deepest forced literal: the
  largest ``d(~l, l)`` over the backbone literals ``l``, the length of the shortest
  chain that refutes ``~l`` (``(a) & (~a | b) & (~b | c)`` forces ``c`` by
  ``~c -> ~b -> ~a -> a -> b -> c``: 5); 0 without a backbone; ``None`` when UNSAT;
* ``proof_length``: the length (in implication steps) of the shortest proof of the
  label that the hardest part of the formula needs: ``shortest_cycle`` for an UNSAT
  formula (its shortest refutation), ``forced_depth`` for a SAT one (the longest of
  the shortest chains that force a backbone literal; 0 when nothing is forced).

Every instance record carries these measures (``measures``,
:meth:`~twosat_formal.io.instance.Instance.to_record`): each builder that makes an
instance (a family's draw, a formula file's root, a perturbation, an edit, a minimal
twin) fills its ``measures`` field through :func:`instance_measures`. ``certify``
derives them again by another algorithm
(:func:`twosat_formal.solve.measures_check.check_measures`), and re-derives the rest of the
record inside :func:`unmeasured`, where the builders leave the measures out, so that
they are computed once per record, by that other algorithm.

The distances are breadth-first searches of the engine's graph, one per conflicting
variable or backbone literal, by the solver's compiled search, each stopping at its
target: at worst that many searches of the whole graph, so the time grows with the
square of the formula where the distances are long (a ring, a long forcing chain):
fine for benchmark instances (thousands of clauses), over a minute at 20,000 clauses.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> structural_measures(Formula.from_named([["a"], ["~a", "b"], ["~b", "c"]]))["forced_depth"]
5
>>> both = [["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"]]
>>> m = structural_measures(Formula.from_named(both))
>>> m["shortest_cycle"], m["backbone"], m["scc_count"], m["proof_length"]
(4, None, 1, 4)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import numpy as np

from twosat_formal.core.formula import Formula
from twosat_formal.errors import NotTwoCNFError, TwoSatFormalError, raises

if TYPE_CHECKING:
    from twosat_formal.solve.graph import ImplicationGraph

__all__ = ["MEASURES", "instance_measures", "structural_measures", "unmeasured"]

#: The measures :func:`structural_measures` gives, in order.
MEASURES = (
    "shortest_cycle",
    "longest_path",
    "scc_count",
    "largest_scc",
    "nontrivial_sccs",
    "backbone",
    "forced_depth",
    "proof_length",
)
#: Whether the builders measure the instances they make (off inside :func:`unmeasured`).
_MEASURING: ContextVar[bool] = ContextVar("measuring", default=True)


def instance_measures(formula: Formula) -> dict[str, int | None] | None:
    """The ``measures`` a builder gives the instance it makes of ``formula``: its
    :func:`structural_measures`, or ``None`` (no claim) inside :func:`unmeasured`.

    Examples
    --------
    >>> f = Formula([[1], [-1, 2]])
    >>> instance_measures(f)["backbone"]
    2
    >>> with unmeasured():
    ...     print(instance_measures(f))
    None
    """
    return structural_measures(formula) if _MEASURING.get() else None


@contextmanager
def unmeasured() -> Iterator[None]:
    """Within it, the builders make instances without measures (``certify`` re-derives
    a record inside it and checks the record's measures by its own derivation).

    >>> with unmeasured():
    ...     _MEASURING.get()
    False
    >>> _MEASURING.get()
    True
    """
    token = _MEASURING.set(False)
    try:
        yield
    finally:
        _MEASURING.reset(token)


@raises(NotTwoCNFError)
def structural_measures(formula: Formula) -> dict[str, int | None]:
    """The structural measures of a 2-CNF (see the module documentation).

    Examples
    --------
    >>> structural_measures(Formula())["longest_path"]
    0
    """
    from twosat_formal.solve.analysis import backbone_literals, condensation, dag_levels
    from twosat_formal.solve.graph import implication_graph, literal_index
    from twosat_formal.solve.scc import conflicting_variables, strong_components

    formula.require_2cnf("structural measures")
    graph = implication_graph(formula)
    components = strong_components(graph)
    conflicts = conflicting_variables(components)
    levels = dag_levels(condensation(graph, components.labels, components.count))
    measures: dict[str, int | None] = {
        "shortest_cycle": None,
        "longest_path": int(levels.max()) if levels.size else 0,
        **components.size_facts(),
        "backbone": None,
        "forced_depth": None,
        "proof_length": None,
    }
    if conflicts.size:
        there = _distances(graph, literal_index(conflicts), literal_index(-conflicts))
        back = _distances(graph, literal_index(-conflicts), literal_index(conflicts))
        measures["shortest_cycle"] = measures["proof_length"] = int((there + back).min())
        return measures
    backbone = backbone_literals(graph, components)
    measures["backbone"] = int(backbone.size)
    depth = _distances(graph, literal_index(-backbone), literal_index(backbone))
    measures["forced_depth"] = measures["proof_length"] = int(depth.max()) if depth.size else 0
    return measures


def _distances(graph: ImplicationGraph, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The shortest-path distance (in edges) from each source to its target, which it reaches.

    One breadth-first search per pair, the solver's own
    (:func:`~twosat_formal.solve.scc.shortest_paths`), stopping at the target.
    """
    from twosat_formal.solve.scc import shortest_paths

    found = np.zeros(len(sources), dtype=np.int64)
    for k, (source, target) in enumerate(zip(sources.tolist(), targets.tolist(), strict=True)):
        (path,) = shortest_paths(graph, [(source, target)])
        if path is None:
            raise TwoSatFormalError(f"node {target} is not reachable from node {source}")
        found[k] = path.size - 1
    return found
