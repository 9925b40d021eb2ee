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

A few literals that imply two literals or more (a ring with a clause touching it) are
taken out (:func:`branching_contradiction`): the rest is walked as above, and when the
smallest component holding some ``x`` and ``-x`` is still a simple cycle, its walk is
the SciPy path's contradiction cycle. When it is not (a chord inside the ring), the
SciPy path's breadth-first searches of it are simulated over its few special nodes,
a whole walked path at a time (:mod:`twosat_formal.solve.bfs`), which gives that
path's cycle literal for literal. A satisfiable formula with such literals (its model
follows SciPy's order of the components), or a search with more events than
:data:`~twosat_formal.solve.bfs.EVENTS`, is left to the SciPy path.

Examples
--------
>>> from twosat_formal.formula import Formula
>>> ring = Formula([[1, -2], [2, -3], [3], [-1], [4, 5]])
>>> solve_functional(ring).cycle
(1, -1, -2, -3, 3, 2)
>>> solve_functional(Formula([[-1, 2], [-2, 3]])).model
(True, True, True)
>>> solve_functional(Formula([[1, 2], [1, 3]])) is None  # -1 implies 2 and 3: SAT
True
>>> solve_functional(Formula([[1, -2], [2, -3], [3], [-1], [1, 4]])).cycle
(1, -1, -2, -3, 3, 2)
>>> solve_functional(Formula([[1, -2], [2, -3], [3], [-1], [1, -3]])).cycle  # a chord
(1, -1, -3, 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

import numpy as np
import numpy.typing as npt

from twosat_formal.errors import NotTwoCNFError, TwoSatFormalError, raises
from twosat_formal.formula import Formula
from twosat_formal.solve.bfs import Component, searched_cycle
from twosat_formal.solve.graph import index_literal, literal_index, sorted_unique
from twosat_formal.solve.result import SolveResult, certificate_tuple
from twosat_formal.solve.ruled import ruled_walk
from twosat_formal.solve.runs import RUN_SHARE, RunWalker, stride_runs

__all__ = [
    "BRANCHING",
    "FunctionalWalk",
    "branching_contradiction",
    "functional_contradiction",
    "functional_labels",
    "functional_walk",
    "solve_functional",
    "successor_nodes",
]

IntArray = npt.NDArray[np.int64]

#: A graph with at most this many literals that imply two or more literals each still
#: has its contradiction cycle walked (a simple cycle) or searched over those literals
#: and their negations (:func:`branching_contradiction`).
BRANCHING = 1024

#: A graph of at least this many nodes without runs is walked by rulers in numpy
#: (:mod:`twosat_formal.solve.ruled`), a smaller one node by node in Python.
RULED_NODES = 1 << 15

#: A cycle longer than this is marked as walked in one numpy pass, a shorter one in Python.
LONG_CYCLE = 64

#: A formula of more clauses has its first this many looked at first: when they alone
#: make more than :data:`BRANCHING` literals imply two literals, so does the formula,
#: and neither walk applies (a random formula is told so in a few milliseconds).
PREFIX_CLAUSES = 1 << 15


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
    step, sources, targets = _steps(formula)
    # Of several steps from one node, one was kept: all agree iff the node implies one.
    return step if np.array_equal(step[sources], targets) else None


def _steps(formula: Formula) -> tuple[IntArray, IntArray, IntArray]:
    """One step kept per node (as :func:`successor_nodes`), and every edge's two ends."""
    nodes = literal_index(formula.pairs())
    first, second = nodes[:, 0], nodes[:, 1]
    size = 2 * formula.num_vars
    sources = np.concatenate([first ^ 1, second ^ 1])
    targets = np.concatenate([second, first])
    step = np.full(size + 1, size, dtype=np.int64)
    step[sources] = targets
    return step, sources, targets


def _branches_early(formula: Formula) -> bool:
    """Whether the first :data:`PREFIX_CLAUSES` clauses alone rule out both walks.

    They do when more than :data:`BRANCHING` literals imply two different literals
    there, or when their edges beyond one per source number more than four times that
    (every such edge differs from the one step kept for its source); the whole formula
    then has at least as many, and :func:`_branching_cycle` declines it.

    >>> _branches_early(Formula([[1, 2], [1, 3]]))
    False
    """
    nodes = literal_index(formula.pairs()[:PREFIX_CLAUSES])
    first, second = nodes[:, 0], nodes[:, 1]
    width = 2 * formula.num_vars + 1
    edges = sorted_unique(
        np.concatenate([(first ^ 1) * width + second, (second ^ 1) * width + first])
    )
    sources = edges // width
    again = sources[1:] == sources[:-1]  # a source's second, third, ... target
    extra = int(np.count_nonzero(again))
    return extra > 4 * BRANCHING or sorted_unique(sources[1:][again]).size > BRANCHING


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


def functional_walk(
    step: IntArray, share: float = RUN_SHARE, ruled: int = RULED_NODES
) -> FunctionalWalk:
    """Walk every path and cycle of a functional graph once (``step``: :func:`successor_nodes`).

    A node without predecessor starts a path, walked to its end. The nodes left are on
    cycles: the lowest node not yet walked starts a cycle, walked back to it. When at
    least ``share`` of the nodes step two nodes up or down (a chain or ring written in
    the order of its variables), each run of such steps is taken at once
    (:mod:`twosat_formal.solve.runs`); else a graph of at least ``ruled`` nodes is
    walked by rulers in numpy (:mod:`twosat_formal.solve.ruled`). The walk is the same.

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
    runs = stride_runs(step, share)
    if runs is not None:  # mostly steps two nodes up or down: walked run by run
        paths, cycles = _walk_runs(step, led, runs)
        return _walked(step, led, paths, cycles)
    if size >= ruled:  # walked by rulers, in numpy
        paths, cycles = ruled_walk(step, led)
        return _walked(step, led, paths, cycles)
    succ = step.tolist()
    order: list[int] = []
    visit = order.append
    for head in np.flatnonzero(~led[:size]).tolist():  # one predecessor at most: no cycle
        node = head
        while True:  # the test at the end: about 40 % faster a node than ``while node != size``
            visit(node)
            node = succ[node]
            if node == size:
                break
    paths = np.fromiter(order, np.int64, len(order))
    cycles = _walk_cycles(succ, paths) if paths.size < size else np.zeros(0, dtype=np.int64)
    return _walked(step, led, paths, cycles)


def _walked(
    step: IntArray, led: npt.NDArray[np.bool_], paths: IntArray, cycles: IntArray
) -> FunctionalWalk:
    """The walk of the paths and cycles walked, with where each starts."""
    # A cycle's last node steps back to its root, never to the next cycle's root.
    cycle_starts = np.flatnonzero(np.concatenate(([True], step[cycles[:-1]] != cycles[1:])))
    return FunctionalWalk(
        paths,
        np.flatnonzero(~led[paths]).astype(np.int64),
        cycles,
        cycle_starts.astype(np.int64) if cycles.size else np.zeros(0, dtype=np.int64),
    )


def _walk_runs(
    step: IntArray, led: npt.NDArray[np.bool_], runs: IntArray
) -> tuple[IntArray, IntArray]:
    """:func:`functional_walk`'s paths and cycles, each run of the steps taken at once
    (:class:`~twosat_formal.solve.runs.RunWalker`): the same nodes in the same order.

    >>> step = np.array([1, 0, 3, 4, 4])  # 0 -> 1 -> 0, 2 -> 3
    >>> [a.tolist() for a in _walk_runs(step, np.array([True, True, False, True, True]),
    ...                                 np.zeros(4, dtype=np.int64))]
    [[2, 3], [0, 1]]
    """
    size = step.size - 1
    walker = RunWalker(step, runs)
    for head in np.flatnonzero(~led[:size]).tolist():  # one predecessor at most: no cycle
        walker.walk(head, size)
    paths = walker.nodes()
    seen = bytearray(size + 1)
    marks = np.frombuffer(seen, dtype=np.uint8)  # the same bytes, written in bulk
    marks[paths] = 1
    marks[size] = 1
    left = size - paths.size
    parts: list[IntArray] = []
    root = seen.find(0)
    while root >= 0:  # the lowest node of a cycle: every node left is on a cycle
        left -= walker.walk(root, root)
        parts.append(walker.nodes())
        if left == 0:
            break
        marks[parts[-1]] = 1
        root = seen.find(0, root + 1)
    cycles = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return paths, cycles


def _walk_cycles(succ: list[int], paths: IntArray) -> IntArray:
    """The cycles of the steps ``succ`` (a list) left after ``paths``, each from its
    lowest node, in that node's order.

    >>> _walk_cycles([1, 0, 3, 4, 4], np.array([2, 3])).tolist()  # 0 -> 1 -> 0, 2 -> 3
    [0, 1]
    """
    size = len(succ) - 1
    walked = np.zeros(size + 1, dtype=np.uint8)
    walked[paths] = 1
    walked[size] = 1
    seen = bytearray(walked)
    marks = np.frombuffer(seen, dtype=np.uint8)  # the same bytes, written in bulk
    order: list[int] = []
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
    return np.fromiter(order, np.int64, len(order))


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


def branching_contradiction(formula: Formula) -> IntArray | None:
    """The SciPy path's contradiction cycle of a graph with a few branching literals.

    When at most :data:`BRANCHING` literals imply two or more literals each, the graph
    is functional but for a few *special* nodes: those literals, and their negations
    (the nodes with two or more predecessors). Taken out, the rest is a functional
    graph again (its paths and cycles: :func:`functional_walk`); a cycle of the rest is
    a strong component of the whole graph, and the other components are found by a
    Tarjan search over the few pieces (paths of the rest and special nodes) that the
    special nodes' edges join. If the smallest component holding some ``x`` and ``-x``
    (the lowest such variable's, on ties) is a simple cycle, each of its nodes having
    one successor inside it, its only walk ``x ~> -x ~> x`` is the SciPy path's
    contradiction cycle, walked from that variable's ``x``. Otherwise that path's
    searches of the component are simulated over its special nodes, the walked paths
    between them taken whole (:func:`~twosat_formal.solve.bfs.searched_cycle`).

    Returns
    -------
    numpy.ndarray or None
        The cycle's DIMACS literals; None if the graph is functional, has more
        branching literals, is satisfiable, or a search of that component is declined
        (then the SciPy path decides).

    Examples
    --------
    >>> ring = Formula([[1, -2], [2, -3], [3], [-1], [1, 4]])  # -1 implies -2 and 4
    >>> branching_contradiction(ring).tolist()
    [1, -1, -2, -3, 3, 2]
    >>> branching_contradiction(Formula([[1, 2], [1, 3]])) is None  # satisfiable
    True
    >>> chord = Formula([[1, -2], [2, -3], [3], [-1], [1, -3]])  # -1 -> -2 and -3 inside
    >>> branching_contradiction(chord).tolist()
    [1, -1, -3, 3]
    """
    step, sources, targets = _steps(formula)
    return _branching_cycle(step, sources, targets, step[sources] != targets)


def _branching_cycle(
    step: IntArray, sources: IntArray, targets: IntArray, odd: npt.NDArray[np.bool_]
) -> IntArray | None:
    """:func:`branching_contradiction` of the steps ``_steps`` gives; ``odd``: the edges
    that differ from the step kept for their source."""
    size = step.size - 1
    if not bool(odd.any()) or int(np.count_nonzero(odd)) > 4 * BRANCHING:
        return None
    branching = sorted_unique(sources[odd])
    if branching.size > BRANCHING:
        return None
    branches = np.zeros(size + 1, dtype=np.bool_)
    branches[branching] = True
    special = branches.copy()
    special[branching ^ 1] = True  # two predecessors: the negation implies two
    # Every edge with a special end: the branching nodes' edges, each once ...
    keep = branches[sources]
    pairs = sorted_unique(sources[keep] * (size + 1) + targets[keep])
    # ... and the one step of every other node with a special end.
    lone = np.flatnonzero(
        (special[:size] | special[step[:size]]) & (step[:size] != size) & ~branches[:size]
    )
    src = np.concatenate([pairs // (size + 1), lone])
    dst = np.concatenate([pairs % (size + 1), step[lone]])
    rest = step.copy()
    rest[np.flatnonzero(special)] = size
    rest[special[rest]] = size
    walk = functional_walk(rest)  # special nodes are paths of one node
    unit = np.full(size + 1, -1, dtype=np.int64)  # the path of the rest each node is on
    unit[walk.paths] = _pieces(walk.path_starts, walk.paths.size)
    joined = sorted_unique(np.concatenate([unit[src], unit[dst]]))
    local = np.searchsorted(joined, unit[src]), np.searchsorted(joined, unit[dst])
    succ: list[list[int]] = [[] for _ in range(joined.size)]
    for a, b in zip(*(side.tolist() for side in local), strict=True):
        succ[a].append(b)
    from twosat_formal.solve.small import small_components  # the same search, no SciPy

    _count, label = small_components([sorted(set(targets_of)) for targets_of in succ])
    labels = np.asarray(label, dtype=np.int64)
    sizes = np.bincount(labels, minlength=max(_count, 1))
    looped = np.zeros(max(_count, 1), dtype=np.bool_)
    looped[labels[local[0][local[0] == local[1]]]] = True
    whole = (sizes > 1) | looped  # components of more than one piece, or a piece's loop
    # The component of each node: cycles of the rest first, then the joined pieces.
    cycles = walk.cycle_starts.size
    piece = np.full(walk.path_starts.size + 1, -1, dtype=np.int64)  # the last: on no path
    piece[joined] = np.where(whole[labels], cycles + labels, -1)
    component = piece[unit[:size]]
    component[walk.cycles] = _pieces(walk.cycle_starts, walk.cycles.size)
    conflicts = np.flatnonzero((component[0::2] == component[1::2]) & (component[0::2] >= 0))
    if conflicts.size == 0:
        return None
    counts = np.bincount(component + 1)[1:]  # -1: on no component
    held = component[2 * conflicts]
    target = int(held[np.argmin(counts[held])])  # the smallest; the lowest variable's
    inside = component == target
    # The successors inside the component of each of its special nodes, ascending.
    held_special = inside & special[:size]
    outs: dict[int, list[int]] = {node: [] for node in np.flatnonzero(held_special).tolist()}
    keep = held_special[src] & inside[dst]
    inner = sorted_unique(src[keep] * (size + 1) + dst[keep])
    for node, out in zip(
        (inner // (size + 1)).tolist(), (inner % (size + 1)).tolist(), strict=True
    ):
        outs[node].append(out)
    if any(len(out) != 1 for out in outs.values()):  # not a simple cycle: its searches
        part = Component(step, outs, walk.paths, walk.path_starts, unit)
        return searched_cycle(part, conflicts[held == target] + 1)
    ahead = step.copy()
    for node, out in outs.items():
        ahead[node] = out[0]
    start = 2 * int(conflicts[np.argmax(held == target)])
    if target < cycles:  # a cycle of the rest, walked from its lowest node: ``start``
        nodes = walk.cycles[_pieces(walk.cycle_starts, walk.cycles.size) == target]
    else:  # the pieces of the rest in the cycle's order, joined through ``ahead``
        firsts, ends = walk.path_starts, _ends(walk.path_starts, walk.paths.size)
        parts = []
        at = first = int(unit[start])
        for _ in range(walk.path_starts.size):
            parts.append(walk.paths[firsts[at] : ends[at]])
            at = int(unit[ahead[parts[-1][-1]]])
            if at == first:
                break
        nodes = np.concatenate(parts)
        nodes = np.roll(nodes, -int(np.flatnonzero(nodes == start)[0]))
    # The walk is checked: every node of the component once, each step a step ahead.
    if nodes.size != int(counts[target]) or not np.array_equal(ahead[nodes], np.roll(nodes, -1)):
        raise TwoSatFormalError("a component's walk does not close: the components are wrong")
    return index_literal(nodes)


@raises(NotTwoCNFError)
def solve_functional(formula: Formula) -> SolveResult | None:
    """The SciPy path's result for a formula whose literals imply at most one literal each.

    When some literal implies two, the contradiction cycle of
    :func:`branching_contradiction`, or None (then the SciPy path decides: a
    satisfiable formula's model follows SciPy's order of the components). The result
    is not yet checked (``checked=False``).

    Examples
    --------
    >>> solve_functional(Formula([[1, 2], [-1, -2]])).model
    (True, False)
    """
    if formula.num_clauses > PREFIX_CLAUSES and _branches_early(formula):
        return None
    step, sources, targets = _steps(formula)
    odd = step[sources] != targets
    if bool(odd.any()):  # some literal implies two: a contradiction walked, or SciPy
        ring = _branching_cycle(step, sources, targets, odd)
        if ring is None:
            return None
        return SolveResult("UNSAT", cycle=certificate_tuple(ring), backend="scc")
    walk = functional_walk(step)
    cycle = functional_contradiction(walk)
    if cycle is not None:
        return SolveResult("UNSAT", cycle=certificate_tuple(cycle), backend="scc")
    _count, labels = functional_labels(walk)
    model = labels[0::2] < labels[1::2]  # x after -x in topological order
    return SolveResult("SAT", model=certificate_tuple(model), backend="scc")
