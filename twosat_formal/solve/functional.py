"""Implication graphs in which every literal implies at most one literal: walked, no SciPy.

When no literal implies two different literals (each literal's negation occurs in at
most one distinct clause: a ring of implications such as ``x1 | ~x2, x2 | ~x3, ...,
xn, ~x1``, a chain, a ring with clauses over other variables), the implication graph
is *functional*: every node has at most one successor. It then has at most one
predecessor too (``u -> v`` is an edge iff ``-v -> -u`` is one), so the graph is a
union of disjoint simple cycles and simple paths, and its strong components are the
cycles and the single nodes of the paths. Such a graph is read off the clauses
directly (:func:`successor_nodes`: no sort of the edges, no sparse matrix), and one
walk over its nodes finds everything (:func:`functional_walk`, in Python, about
0.1 - 0.2 µs a node): no SciPy import (0.25 s or more of a process).

The walk takes the nodes as roots in node order, as SciPy's Tarjan search does, and
follows each root's successors until it meets a node already walked, a node without
successor, or the root itself (a cycle). Tarjan's search does exactly that on such a
graph, and numbers a component when its search finishes: a cycle as one component, a
path's nodes one by one from its far end back to the root. :func:`functional_labels`
numbers them so, which gives SciPy's labels, and so its model, byte for byte.

A cycle holding ``x`` and ``-x`` is its own mirror image, so it holds both literals of
each of its variables, and its only walk ``x ~> -x ~> x`` is the cycle itself, from
``x``. :func:`functional_contradiction` gives the contradiction cycle that
:func:`~twosat_formal.solve.scc.contradiction_cycle` finds on the same graph (the
smallest such cycle, from its lowest variable). The tests compare both, and the model,
with the SciPy path on drawn graphs.

Examples
--------
>>> from twosat_formal.formula import Formula
>>> ring = Formula([[1, -2], [2, -3], [3], [-1], [4, 5]])
>>> solve_functional(ring).cycle
(1, -1, -2, -3, 3, 2)
>>> solve_functional(Formula([[-1, 2], [-2, 3]])).model
(True, True, True)
>>> solve_functional(Formula([[1, 2], [1, 3]])) is None  # -1 implies 2 and 3
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from twosat_formal.errors import NotTwoCNFError, raises
from twosat_formal.formula import Formula
from twosat_formal.solve.graph import index_literal, literal_index
from twosat_formal.solve.result import SolveResult, certificate_tuple

__all__ = [
    "FunctionalWalk",
    "functional_contradiction",
    "functional_labels",
    "functional_walk",
    "solve_functional",
    "successor_nodes",
]

IntArray = npt.NDArray[np.int64]


@raises(NotTwoCNFError)
def successor_nodes(formula: Formula) -> list[int] | None:
    """What each graph node implies, when no node implies two; else None.

    Nodes are numbered as the implication graph's (``2*(v-1)`` for ``v``,
    ``2*(v-1)+1`` for ``-v``). A clause ``(a | b)`` gives the steps ``-a -> b`` and
    ``-b -> a``, a unit clause ``(a)`` the one step ``-a -> a``; a repeated step is one
    step, as in the graph. The result ``step`` has ``2n + 1`` entries: ``step[i]`` is
    the node that node ``i`` implies, or ``2n`` if it implies none.

    Examples
    --------
    >>> successor_nodes(Formula([[1, -2], [2], [1, -2]]))  # 2 -> 1, -1 -> -2, -2 -> 2
    [4, 3, 0, 2, 4]
    >>> successor_nodes(Formula([[1, -2], [1, 2]])) is None  # -1 implies -2 and 2
    True
    """
    nodes = literal_index(formula.pairs())
    first, second = nodes[:, 0], nodes[:, 1]
    size = 2 * formula.num_vars
    sources = np.concatenate([first ^ 1, second ^ 1])
    targets = np.concatenate([second, first])
    step = np.full(size + 1, size, dtype=np.int64)
    step[sources] = targets
    # Of several steps from one node, one was kept: all agree iff the node implies one.
    if not np.array_equal(step[sources], targets):
        return None
    return step.tolist()


@dataclass(frozen=True, eq=False)
class FunctionalWalk:
    """The walks of a functional implication graph, one per root, in node order.

    Attributes
    ----------
    order:
        The nodes, each once, in the order walked.
    starts:
        Where each walk starts in ``order`` (its root).
    closed:
        Whether each walk came back to its root: a cycle (else a piece of a path).
    """

    order: IntArray
    starts: IntArray
    closed: npt.NDArray[np.bool_]

    @property
    def ends(self) -> IntArray:
        """Where each walk ends in ``order`` (exclusive)."""
        return np.append(self.starts[1:], self.order.size)


def functional_walk(step: list[int]) -> FunctionalWalk:
    """Walk every node of a functional graph once (``step`` from :func:`successor_nodes`).

    The first node not yet walked is a root; the walk follows its successors until a
    node already walked, a node without successor, or the root again.

    Examples
    --------
    >>> w = functional_walk([1, 0, 3, 4, 4])  # 0 -> 1 -> 0, 2 -> 3
    >>> w.order.tolist(), w.starts.tolist(), w.closed.tolist()
    ([0, 1, 2, 3], [0, 2], [True, False])
    """
    size = len(step) - 1
    seen = bytearray(len(step))
    seen[size] = 1  # "no successor" ends a walk
    order: list[int] = []
    starts: list[int] = []
    closed: list[bool] = []
    visit = order.append
    root = seen.find(0)
    while root >= 0:
        starts.append(len(order))
        node = root
        while not seen[node]:
            seen[node] = 1
            visit(node)
            node = step[node]
        closed.append(node == root)
        root = seen.find(0, root + 1)
    return FunctionalWalk(
        np.array(order, dtype=np.int64),
        np.array(starts, dtype=np.int64),
        np.array(closed, dtype=np.bool_),
    )


def functional_labels(walk: FunctionalWalk) -> tuple[int, IntArray]:
    """The strong components as SciPy numbers them: their count and each node's label.

    Tarjan's search finishes the components of a root's walk before the next root:
    a cycle as one component, the nodes of a path's piece one by one from its last
    node back to the root. Labels count the components in that order, so every edge
    between two components goes from a higher label to a lower one.

    Examples
    --------
    >>> functional_labels(functional_walk([1, 0, 3, 4, 4]))[1].tolist()  # 2 -> 3
    [0, 0, 2, 1]
    """
    starts, lengths = walk.starts, walk.ends - walk.starts
    components = np.where(walk.closed, 1, lengths)
    last = np.cumsum(components) - 1  # the label of each walk's root
    which = np.repeat(np.arange(starts.size), lengths)
    behind = np.arange(walk.order.size) - starts[which]  # steps from the root
    at = last[which] - np.where(walk.closed[which], 0, behind)
    labels = np.empty(walk.order.size, dtype=np.int64)
    labels[walk.order] = at
    return int(components.sum()), labels


def functional_contradiction(walk: FunctionalWalk) -> IntArray | None:
    """The contradiction cycle (DIMACS literals) of a functional graph, or None.

    Returns
    -------
    numpy.ndarray or None
        The smallest cycle holding some ``x`` and ``-x`` (the one with the lowest
        variable among the smallest), walked from its lowest variable's ``x``; None if
        no cycle holds a variable's two literals (the formula is satisfiable).

    Examples
    --------
    >>> from twosat_formal.formula import Formula
    >>> walk = functional_walk(successor_nodes(Formula([[1], [-1], [2, 3]])) or [])
    >>> functional_contradiction(walk).tolist()
    [1, -1]
    """
    order, starts, ends = walk.order, walk.starts, walk.ends
    if not bool(walk.closed.any()):
        return None
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    mirror = position[order[starts] ^ 1]  # where each root's negation was walked
    holds = walk.closed & (mirror >= starts) & (mirror < ends)
    if not bool(holds.any()):
        return None
    lengths = np.where(holds, ends - starts, order.size + 1)
    best = int(np.argmin(lengths))  # the first of the smallest: the lowest variable
    return index_literal(order[starts[best] : ends[best]])


@raises(NotTwoCNFError)
def solve_functional(formula: Formula) -> SolveResult | None:
    """The SciPy path's result for a formula whose literals imply at most one literal each.

    None if some literal implies two (:func:`successor_nodes`). The result is not yet
    checked (``checked=False``).

    Examples
    --------
    >>> solve_functional(Formula([[1, 2], [-1, -2]])).model
    (True, False)
    """
    step = successor_nodes(formula)
    if step is None:
        return None
    walk = functional_walk(step)
    cycle = functional_contradiction(walk)
    if cycle is not None:
        return SolveResult("UNSAT", cycle=certificate_tuple(cycle), backend="scc")
    _count, labels = functional_labels(walk)
    model = labels[0::2] < labels[1::2]  # x after -x in topological order
    return SolveResult("SAT", model=certificate_tuple(model), backend="scc")
