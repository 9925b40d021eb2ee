"""Implication graphs in which every literal implies at most one literal: walked, no SciPy.

When no literal implies two different literals (each literal's negation occurs in at
most one distinct clause: a ring of implications such as ``x1 | ~x2, x2 | ~x3, ...,
xn, ~x1``, a chain, a ring with clauses over other variables), the implication graph
is *functional*: every node has at most one successor. It then has at most one
predecessor too (``u -> v`` is an edge iff ``-v -> -u`` is one), so the graph is a
union of disjoint simple cycles and simple paths, and its strong components are the
cycles and the single nodes of the paths. Such a graph is read off the clauses
directly (:func:`successor_nodes`: no sort of the edges, no sparse matrix), and one
walk along each path and round each cycle finds everything (:func:`functional_walk`,
in Python, about 0.1 - 0.15 µs a node): no SciPy import (0.25 s or more of a process).

SciPy's Tarjan search takes the nodes as roots in node order and, on such a graph,
follows a root's successors until a node already walked, a node without successor,
or the root itself (a cycle); it numbers a component when its search finishes: a
cycle as one component, a walk along a path node by node from its far end back to
its root. :func:`functional_labels` reads those walks off the paths and cycles in
numpy and numbers them so, which gives SciPy's labels, and so its model, byte for
byte.

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
from itertools import islice

import numpy as np
import numpy.typing as npt

from twosat_formal.errors import NotTwoCNFError, TwoSatFormalError, raises
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

#: A cycle longer than this is marked as walked in one numpy pass, a shorter one in Python.
LONG_CYCLE = 64


@raises(NotTwoCNFError)
def successor_nodes(formula: Formula) -> IntArray | None:
    """What each graph node implies, when no node implies two; else None.

    Nodes are numbered as the implication graph's (``2*(v-1)`` for ``v``,
    ``2*(v-1)+1`` for ``-v``). A clause ``(a | b)`` gives the steps ``-a -> b`` and
    ``-b -> a``, a unit clause ``(a)`` the one step ``-a -> a``; a repeated step is one
    step, as in the graph. The result ``step`` has ``2n + 1`` entries: ``step[i]`` is
    the node that node ``i`` implies, or ``2n`` if it implies none (``step[2n]`` too).

    Examples
    --------
    >>> successor_nodes(Formula([[1, -2], [2], [1, -2]])).tolist()  # 2 -> 1, -1 -> -2, -2 -> 2
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
    return step


@dataclass(frozen=True, eq=False)
class FunctionalWalk:
    """The paths and cycles of a functional implication graph, each walked once.

    Attributes
    ----------
    paths:
        The nodes of the paths, each path from its first node (one without
        predecessor) to its last (one without successor), in the order of first nodes.
    path_starts:
        Where each path starts in ``paths``.
    cycles:
        The nodes of the cycles, each cycle from its lowest node, in that node's order.
    cycle_starts:
        Where each cycle starts in ``cycles``.
    """

    paths: IntArray
    path_starts: IntArray
    cycles: IntArray
    cycle_starts: IntArray

    @property
    def size(self) -> int:
        """The number of nodes."""
        return self.paths.size + self.cycles.size


def _ends(starts: IntArray, size: int) -> IntArray:
    return np.append(starts[1:], size).astype(np.int64)


def _pieces(starts: IntArray, size: int) -> IntArray:
    """Which piece each of ``size`` positions is in, pieces starting at ``starts``."""
    return np.repeat(np.arange(starts.size, dtype=np.int64), _ends(starts, size) - starts)


def functional_walk(step: IntArray) -> FunctionalWalk:
    """Walk every path and cycle of a functional graph once (``step``: :func:`successor_nodes`).

    A node without predecessor starts a path, walked to its end. The nodes left are on
    cycles: the lowest node not yet walked starts a cycle, walked back to it.

    Raises
    ------
    TwoSatFormalError
        If some node has two predecessors (not the steps of a 2-CNF).

    Examples
    --------
    >>> w = functional_walk(np.array([1, 0, 3, 4, 4]))  # 0 -> 1 -> 0, 2 -> 3
    >>> w.paths.tolist(), w.path_starts.tolist(), w.cycles.tolist(), w.cycle_starts.tolist()
    ([2, 3], [0], [0, 1], [0])
    """
    size = step.size - 1
    led = np.zeros(size + 1, dtype=np.bool_)  # whether some node steps to the node
    led[step[:size]] = True
    if int(np.count_nonzero(led[:size])) != int(np.count_nonzero(step[:size] != size)):
        raise TwoSatFormalError("a node has two predecessors: not an implication graph's steps")
    succ = step.tolist()
    order: list[int] = []
    visit = order.append
    for head in np.flatnonzero(~led[:size]).tolist():  # one predecessor at most: no cycle
        node = head
        while node != size:
            visit(node)
            node = succ[node]
    paths = np.fromiter(order, np.int64, len(order))
    walked = np.zeros(size + 1, dtype=np.uint8)
    walked[paths] = 1
    walked[size] = 1
    seen = bytearray(walked)
    marks = np.frombuffer(seen, dtype=np.uint8)  # the same bytes, written in bulk
    order = []
    visit = order.append
    left = size - paths.size
    root = seen.find(0)
    while root >= 0:  # the lowest node of a cycle: every node left is on a cycle
        start = len(order)
        node = root
        while True:  # round the cycle: each node left has one successor, one predecessor
            visit(node)
            node = succ[node]
            if node == root:
                break
        if len(order) == left:  # every node walked (a ring): nothing to mark
            break
        if len(order) - start > LONG_CYCLE:
            marks[np.fromiter(islice(order, start, None), np.int64, len(order) - start)] = 1
        else:
            for node in order[start:]:
                seen[node] = 1
        root = seen.find(0, root + 1)
    cycles = np.fromiter(order, np.int64, len(order))
    # A cycle's last node steps back to its root, never to the next cycle's root.
    cycle_starts = np.flatnonzero(np.concatenate(([True], step[cycles[:-1]] != cycles[1:])))
    return FunctionalWalk(
        paths,
        np.flatnonzero(~led[paths]).astype(np.int64),
        cycles,
        cycle_starts.astype(np.int64) if cycles.size else np.zeros(0, dtype=np.int64),
    )


def functional_labels(walk: FunctionalWalk) -> tuple[int, IntArray]:
    """The strong components as SciPy numbers them: their count and each node's label.

    SciPy's Tarjan search takes the nodes as roots in node order; a root not reached
    before its turn is walked along its successors until a node already walked. So a
    cycle is walked from its lowest node, as one component; a node of a path is a root
    iff it is lower than every node before it on the path, and its walk runs up to
    the next such node (walked before it) or to the path's end. The search finishes a
    walk's components from its last node back to its root, one walk after the other
    in the order of their roots; labels count the components in that order, so every
    edge between two components goes from a higher label to a lower one.

    Examples
    --------
    >>> functional_labels(functional_walk(np.array([1, 0, 3, 4, 4])))[1].tolist()  # 2 -> 3
    [0, 0, 2, 1]
    """
    paths, cycles = walk.paths, walk.cycles
    size = walk.size
    path_of = _pieces(walk.path_starts, paths.size)
    # A running minimum along each path (later paths offset below earlier ones).
    key = paths + (walk.path_starts.size - 1 - path_of) * size
    piece_starts = np.flatnonzero(key == np.minimum.accumulate(key))
    piece_ends = _ends(piece_starts, paths.size)
    roots = np.concatenate([paths[piece_starts], cycles[walk.cycle_starts]])
    components = np.concatenate(
        [piece_ends - piece_starts, np.ones(walk.cycle_starts.size, dtype=np.int64)]
    )
    by_root = np.argsort(roots, kind="stable")
    first = np.empty(roots.size, dtype=np.int64)  # the first label of each walk
    first[by_root] = np.cumsum(components[by_root]) - components[by_root]
    labels = np.empty(size, dtype=np.int64)
    piece_of = _pieces(piece_starts, paths.size)
    labels[paths] = first[piece_of] + (piece_ends[piece_of] - 1 - np.arange(paths.size))
    labels[cycles] = first[piece_starts.size + _pieces(walk.cycle_starts, cycles.size)]
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
    >>> walk = functional_walk(successor_nodes(Formula([[1], [-1], [2, 3]])))
    >>> functional_contradiction(walk).tolist()
    [1, -1]
    """
    cycles, starts = walk.cycles, walk.cycle_starts
    if cycles.size == 0:
        return None
    cycle_of = np.full(walk.size, -1, dtype=np.int64)
    cycle_of[cycles] = _pieces(starts, cycles.size)
    holds = cycle_of[cycles[starts] ^ 1] == np.arange(starts.size)  # x and -x: from x
    if not bool(holds.any()):
        return None
    ends = _ends(starts, cycles.size)
    lengths = np.where(holds, ends - starts, cycles.size + 1)
    best = int(np.argmin(lengths))  # the first of the smallest: the lowest variable
    return index_literal(cycles[starts[best] : ends[best]])


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
