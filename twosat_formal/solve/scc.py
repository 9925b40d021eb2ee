"""The own 2-SAT solver: strong components of the implication graph, in compiled code.

One engine for every formula: Tarjan's linear-time search for strong components
(:func:`strong_components`) and a breadth-first search for the contradiction cycle
(:func:`shortest_paths`), both compiled loops over the implication graph's CSR arrays
(``_kernel.pyx``). The certificate follows one rule, stated in
``docs/certificates.md`` and fixed by the node numbering and the order of each node's
successors (ascending), never by how the engine runs:

* A formula is UNSAT iff some ``x`` and ``-x`` share a strong component.
* The model: the components are numbered in the order a depth-first search completes
  them (roots in ascending node order, successors in ascending order: Tarjan's
  order, a reverse topological order of the condensation); ``x`` is true iff its
  component is completed before the component of ``-x``
  (:func:`model_from_components`).
* The contradiction cycle (:func:`contradiction_cycle`): in the smallest component
  holding some ``x`` and ``-x`` (ties: the one of the smallest such variable), its
  first conflicting variables in ascending order, at most :data:`CYCLE_CANDIDATES`
  and fewer in a large component (:data:`CYCLE_SEARCH_BUDGET`), each give the walk
  ``x ~> -x ~> x`` of two breadth-first shortest paths; the shortest walk wins, ties
  by the smaller variable. A breadth-first path is the one a first-in first-out
  search finds taking successors in ascending order, each node reached from the
  first node that reaches it.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> solve_scc(Formula([[1, 2], [-1, 2], [1, -2]])).model
(True, True)
>>> solve_scc(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])).cycle
(1, 2, -1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import twosat_formal.solve._kernel as _kernel
from twosat_formal.core.formula import Formula
from twosat_formal.errors import NotTwoCNFError, TwoSatFormalError, raises
from twosat_formal.solve.graph import ImplicationGraph, implication_graph, index_literal
from twosat_formal.solve.result import SolveResult, certificate_tuple

__all__ = [
    "CYCLE_CANDIDATES",
    "CYCLE_SEARCH_BUDGET",
    "SEARCH_ENTRIES",
    "Components",
    "conflicting_variables",
    "contradiction_cycle",
    "model_from_components",
    "shortest_paths",
    "solve_scc",
    "strong_components",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: How many conflicting variables of the chosen component are tried, at most, for
#: the shortest contradiction cycle.
CYCLE_CANDIDATES = 8

#: At most this many entries (a parent and a queue place per node of the graph, for
#: each search) are held by the searches for a contradiction cycle that run together.
SEARCH_ENTRIES = 1 << 22

#: About how many component nodes the searches for a contradiction cycle visit in all:
#: a component of ``s`` literals tries ``min(8, budget // (2 s))`` variables, at least one.
CYCLE_SEARCH_BUDGET = 1 << 20


@dataclass(frozen=True, eq=False)
class Components:
    """Strong components of an implication graph, numbered in Tarjan's order.

    Attributes
    ----------
    count:
        Number of strong components.
    labels:
        Component of each graph node (``2 * num_vars`` entries): component ``c`` is
        the ``c``-th that the depth-first search completes, so every edge between two
        components goes from a higher label to a lower one.
    """

    count: int
    labels: IntArray

    def sizes(self) -> IntArray:
        """Number of nodes (literals) in each component."""
        return np.bincount(self.labels, minlength=self.count)

    def size_facts(self) -> dict[str, int]:
        """``scc_count``, ``largest_scc`` and ``nontrivial_sccs`` (components of 2+ nodes).

        >>> Components(2, np.array([0, 1, 1, 1])).size_facts()
        {'scc_count': 2, 'largest_scc': 3, 'nontrivial_sccs': 1}
        """
        sizes = self.sizes()
        return {
            "scc_count": int(self.count),
            "largest_scc": int(sizes.max()) if sizes.size else 0,
            "nontrivial_sccs": int(np.count_nonzero(sizes > 1)),
        }


def strong_components(graph: ImplicationGraph) -> Components:
    """Strong components of ``graph``, numbered in the order Tarjan's search completes them.

    >>> from twosat_formal.core.formula import Formula
    >>> comps = strong_components(implication_graph(Formula([[1, 2], [-1, -2]])))
    >>> comps.count, comps.labels.tolist()
    (2, [0, 1, 1, 0])
    """
    count, labels = _kernel.strong_components(graph.indptr, graph.indices)
    return Components(count, labels)


def conflicting_variables(components: Components) -> IntArray:
    """Variables ``x`` whose literals ``x`` and ``-x`` share a strong component.

    >>> from twosat_formal.core.formula import Formula
    >>> g = implication_graph(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3]]))
    >>> conflicting_variables(strong_components(g)).tolist()
    [1, 2]
    """
    labels = components.labels
    return np.flatnonzero(labels[0::2] == labels[1::2]).astype(np.int64) + 1


def model_from_components(components: Components) -> BoolArray:
    """The canonical model of a satisfiable 2-CNF (one bool per variable).

    Variable ``x`` is true iff the component of ``x`` is completed before the
    component of ``-x`` (comes after it in topological order).

    >>> from twosat_formal.core.formula import Formula
    >>> g = implication_graph(Formula([[-1, 2], [1]]))
    >>> model_from_components(strong_components(g)).tolist()
    [True, True]
    """
    labels = components.labels
    return np.asarray(labels[0::2] < labels[1::2], dtype=np.bool_)


def shortest_paths(
    graph: ImplicationGraph,
    ends: Sequence[tuple[int, int]],
    labels: IntArray | None = None,
) -> list[IntArray | None]:
    """The breadth-first path of nodes ``start ~> goal`` (both included) of each pair, or None.

    The path a first-in first-out search finds when it takes each node's successors
    in ascending order and keeps the first node that reaches each node. The searches
    run side by side in the kernel (each finds the path it would find alone). With
    ``labels``, every search stays inside the strong component of the first start
    (the same paths when all the ends are in it: a shortest path between two nodes of
    one component never leaves it, and only the component's nodes reach them).

    Raises
    ------
    IndexError
        If a node is outside the graph.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> g = implication_graph(Formula([[-1, 2], [-2, 3], [-1, 3]]))  # 1 -> 2 -> 3, 1 -> 3
    >>> [None if p is None else p.tolist() for p in shortest_paths(g, [(0, 4), (4, 0)])]
    [[0, 4], None]
    """
    starts = np.array([start for start, _ in ends], dtype=np.int64)
    goals = np.array([goal for _, goal in ends], dtype=np.int64)
    within = -1 if labels is None or starts.size == 0 else int(labels[starts[0]])
    empty = np.zeros(1, dtype=np.int64)
    return _kernel.bfs_paths(
        graph.indptr, graph.indices, starts, goals, empty if labels is None else labels, within
    )


def contradiction_cycle(
    graph: ImplicationGraph, components: Components, var: int | None = None
) -> tuple[int, ...]:
    """The contradiction cycle ``x ~> -x ~> x`` of the rule above, as DIMACS literals.

    Parameters
    ----------
    graph, components:
        The implication graph and its strong components.
    var:
        The variable to go through; by default the rule's choice (see the module
        documentation).

    Returns
    -------
    tuple of int
        Starts at ``x``, passes ``-x``; every step, last to first included, is an edge.

    Raises
    ------
    TwoSatFormalError
        If no variable (or not ``var``) shares a component with its negation.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula([[-1, 2], [-2, 3], [-3, -1], [1, 4], [-4, 1]])
    >>> g = implication_graph(f)
    >>> contradiction_cycle(g, strong_components(g))
    (1, 2, 3, -1, 4)
    """
    labels, sizes = components.labels, components.sizes()
    candidates = _cycle_candidates(components, sizes, var)
    # The searches stay inside the component (the same paths), unless it is most of the
    # graph: then looking up each node's label costs more than the few nodes it spares.
    component_size = int(sizes[labels[2 * (candidates[0] - 1)]])
    inside = labels if 2 * component_size <= labels.size else None
    # Each candidate's two searches, x ~> -x and -x ~> x, side by side in the kernel,
    # as many candidates at once as SEARCH_ENTRIES allows.
    nodes = 2 * (np.asarray(candidates, dtype=np.int64) - 1)
    ends = np.stack([nodes, nodes + 1, nodes + 1, nodes], axis=1).reshape(-1, 2)
    batch = 2 * max(1, SEARCH_ENTRIES // max(4 * labels.size, 1))
    paths: list[IntArray | None] = []
    for first in range(0, len(ends), batch):
        paths += shortest_paths(graph, ends[first : first + batch].tolist(), inside)
    walks = []
    for x, there, back in zip(candidates, paths[0::2], paths[1::2], strict=True):
        if there is None or back is None:  # pragma: no cover - the components say otherwise
            raise TwoSatFormalError(f"variable {x}: no path between {x} and {-x}")
        walks.append(np.concatenate([there, back[1:-1]]))
    best = min(walks, key=len)  # the first of the shortest
    return certificate_tuple(index_literal(best))


def _cycle_candidates(components: Components, sizes: IntArray, var: int | None) -> list[int]:
    """``[var]``, or the rule's candidates: conflicting variables of the smallest component."""
    conflicts = conflicting_variables(components)
    if var is not None:
        if not bool(np.any(conflicts == var)):
            raise TwoSatFormalError(f"variable {var} does not share a component with its negation")
        return [int(var)]
    if conflicts.size == 0:
        raise TwoSatFormalError("no variable shares a component with its negation")
    comp_of = components.labels[2 * (conflicts - 1)]
    target = int(comp_of[np.argmin(sizes[comp_of])])
    tries = max(1, min(CYCLE_CANDIDATES, CYCLE_SEARCH_BUDGET // (2 * int(sizes[target]))))
    candidates: list[int] = conflicts[comp_of == target][:tries].tolist()
    return candidates


@raises(NotTwoCNFError)
def solve_scc(formula: Formula) -> SolveResult:
    """Decide a 2-CNF with strong components; a model or a contradiction cycle.

    The result is not yet checked (``checked=False``); :func:`twosat_formal.solve.solve`
    checks it.

    Examples
    --------
    >>> solve_scc(Formula([])).status
    'SAT'
    >>> solve_scc(Formula([[1], [-1]])).cycle
    (1, -1)
    """
    graph = implication_graph(formula)
    components = strong_components(graph)
    labels = components.labels
    if bool(np.any(labels[0::2] == labels[1::2])):
        return SolveResult("UNSAT", cycle=contradiction_cycle(graph, components), backend="scc")
    return SolveResult("SAT", model=certificate_tuple(model_from_components(components)))
