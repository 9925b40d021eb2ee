"""The SciPy path's contradiction searches, simulated over the few special nodes of a component.

A strong component of an implication graph in which a few literals imply two literals
or more (:func:`~twosat_formal.solve.functional.branching_contradiction`) is made of
*special* nodes (those literals, and their negations: the nodes with two or more
predecessors) joined by chains of nodes with one successor and one predecessor each
(the paths of the rest of the graph, already walked). Every breadth-first search of
:func:`~twosat_formal.solve.scc.contradiction_cycle` is decided at the special nodes
alone: a node of a chain is reached from its one predecessor, one level after it, so
a search is a few *walkers*, one per chain, that move a whole chain in one step.

* A first-in first-out search (:func:`~twosat_formal.solve.scc.near_path`, SciPy's
  ``breadth_first_order`` read back by :func:`~twosat_formal.solve.scc.tree_path`)
  takes each node's parent as the predecessor met first: the one at the smallest
  depth, and at that depth the first in the queue. A node's place in the queue of its
  level is the order of the successor taken at every step from the start, compared
  step by step; only the special nodes have more than one successor, so a walker
  carries the successors taken at the special nodes it passed (its *key*), and the
  arrivals at special nodes are taken in order of depth, then key
  (:func:`fifo_path`: one event a chain, however long).
* The search from both ends (:func:`~twosat_formal.solve.scc.mirror_path`, in a
  component of more than :data:`~twosat_formal.solve.scc.LARGE_COMPONENT` literals)
  sorts each level's nodes by number and goes :data:`~twosat_formal.solve.scc.NEAR_LEVELS`
  levels at most: it is followed level by level (:func:`mirror_walk`), one walker a
  chain.

:func:`searched_cycle` tries the variables the SciPy path tries and keeps the walk it
keeps, so its cycle is that path's, literal for literal; it declines (None) when a
search would take more than :data:`EVENTS` events, and the SciPy path then decides.

Examples
--------
A graph ``x1 -> -x1 -> -x2 -> -x3 -> x3 -> x2 -> x1`` with one edge more,
``x1 -> -x3`` (nodes 0, 1, 5 special; the chains ``3`` and ``4 -> 2`` between them):

>>> import numpy as np
>>> step = np.array([1, 3, 0, 5, 4, 2, 6])
>>> part = Component(step, {0: [1, 5], 1: [3], 5: [4]}, np.array([3, 4, 2]),
...                  np.array([0, 1]), np.array([-1, -1, 1, 0, 1, -1, -1]))
>>> fifo_path(part, 0, 1).tolist(), fifo_path(part, 1, 0).tolist()
([0, 1], [1, 3, 5, 4, 2, 0])
>>> searched_cycle(part, [1]).tolist()  # x1 -> -x1 -> -x2 -> -x3 -> x3 -> x2
[1, -1, -2, -3, 3, 2]
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from twosat_formal.solve.graph import index_literal

__all__ = ["EVENTS", "Component", "fifo_path", "mirror_walk", "searched_cycle"]

IntArray = npt.NDArray[np.int64]

#: A search with more arrivals at special nodes than this is declined (left to SciPy).
EVENTS = 1 << 14


@dataclass(frozen=True, eq=False)
class Component:
    """A strong component: its special nodes' successors and the chains between them.

    Attributes
    ----------
    step:
        The one successor of every node that has one (as
        :func:`~twosat_formal.solve.functional.successor_nodes`; read for the nodes
        that are not special).
    out:
        The successors inside the component of each special node of it, ascending.
    paths, starts, unit:
        The paths of the graph without the special nodes (each chain of the component
        is one), where each starts in ``paths``, and the path each node is on
        (negative for none).
    places:
        The place in ``paths`` of the nodes searched from or to, and of their
        successors (:meth:`located`); every other node reached along a chain
        follows a special node, and so starts its path.
    """

    step: IntArray
    out: dict[int, list[int]]
    paths: IntArray
    starts: IntArray
    unit: IntArray
    places: dict[int, int] = field(default_factory=dict)

    def successors(self, node: int) -> list[int]:
        """The successors of ``node`` inside the component, ascending."""
        special = self.out.get(node)
        return [int(self.step[node])] if special is None else special

    def place(self, node: int) -> int:
        """Where ``node`` is in ``paths`` (a node of :attr:`places`, or one that starts
        its path)."""
        place = self.places.get(node)
        return int(self.starts[self.unit[node]]) if place is None else place

    def located(self, nodes: list[int]) -> Component:
        """This component with the places of ``nodes`` and their successors known
        (one pass over ``paths``).

        >>> part = Component(np.array([1, 2, 3, 3]), {}, np.array([0, 1, 2]),
        ...                  np.array([0]), np.array([0, 0, 0, -1]))
        >>> part.located([1]).places
        {1: 1, 2: 2}
        """
        marked = np.zeros(self.step.size, dtype=np.bool_)
        marked[nodes] = True
        marked[self.step[nodes]] = True
        where = np.flatnonzero(marked[self.paths])
        places = dict(zip(self.paths[where].tolist(), where.tolist(), strict=True))
        return replace(self, places=places)

    def ahead(self, node: int, stops: tuple[int, ...]) -> tuple[int, int] | None:
        """The first special node or node of ``stops`` after ``node`` (on a chain),
        and how many nodes from ``node`` on come before it; None if the chain ends."""
        unit, place = int(self.unit[node]), self.place(node)
        after = [self.place(s) for s in stops if self.unit[s] == unit and self.place(s) > place]
        if after:
            stop = min(after)
            return int(self.paths[stop]), stop - place
        end = int(self.starts[unit + 1]) if unit + 1 < self.starts.size else self.paths.size
        nxt = int(self.step[self.paths[end - 1]])
        return (nxt, end - place) if nxt in self.out else None


def fifo_path(part: Component, start: int, goal: int, events: int | None = None) -> IntArray | None:
    """The path ``start ~> goal`` of a first-in first-out breadth-first search.

    Walkers leave each special node (and ``start``) along its successors, a whole chain
    at a time; their arrivals are taken in order of depth, then of key (the successors
    taken at the special nodes passed: the queue's order). The first arrival at a node
    is its parent's; later ones end there.

    Returns
    -------
    numpy.ndarray or None
        The nodes of the path, both ends included; None when it takes more than
        ``events`` arrivals (:data:`EVENTS` by default), or ``goal`` is not reached.

    Examples
    --------
    >>> part = Component(np.array([1, 0, 2]), {}, np.array([0, 1]), np.array([0]),
    ...                  np.array([0, 0, -1]), {1: 1})  # the cycle 0 -> 1 -> 0
    >>> fifo_path(part, 0, 1).tolist()
    [0, 1]
    """
    stops = (start, goal)
    events = EVENTS if events is None else events
    heap: list[tuple[int, tuple[int, ...], int, int, int]] = []
    depth = {start: 0}
    came: dict[int, tuple[int, int]] = {}  # node -> (node left, first node after it)
    key: tuple[int, ...] = ()
    node, level, pushed = start, 0, 0
    while node != goal:
        for child in part.successors(node):
            if child in part.out or child in stops:
                arrival: tuple[int, int] | None = (child, 0)
            else:
                arrival = part.ahead(child, stops)
            if arrival is None or pushed == events:
                return None
            heapq.heappush(heap, (level + 1 + arrival[1], (*key, child), arrival[0], node, child))
            pushed += 1
        while True:
            if not heap:
                return None
            level, key, node, left, first = heapq.heappop(heap)
            if node not in depth:
                break
        depth[node] = level
        came[node] = (left, first)
    return _joined(part, came, depth, start, goal)


def _joined(
    part: Component,
    came: dict[int, tuple[int, int]],
    depth: dict[int, int],
    start: int,
    goal: int,
) -> IntArray:
    """The path to ``goal``, each chain a slice of ``part.paths``."""
    pieces: list[IntArray] = []
    node = goal
    while node != start:
        left, first = came[node]
        pieces.append(np.array([node], dtype=np.int64))
        inner = depth[node] - depth[left] - 1
        if inner:
            place = part.place(first)
            pieces.append(part.paths[place : place + inner])
        node = left
    pieces.append(np.array([start], dtype=np.int64))
    return np.concatenate(pieces[::-1]).astype(np.int64, copy=False)


def mirror_walk(part: Component, start: int, levels: int) -> IntArray | None:
    """:func:`~twosat_formal.solve.scc.mirror_path` followed level by level.

    Each level's new nodes in ascending order, each with its lowest-numbered
    predecessor of the level before; it stops at the first level where some node and
    its negation have both been reached, and joins the walk to the met node of the
    shortest total (the lowest-numbered on ties) with the mirror image of the walk to
    its negation. None after ``levels`` levels.

    Examples
    --------
    >>> part = Component(np.array([1, 0, 2]), {}, np.array([0, 1]), np.array([0]),
    ...                  np.array([0, 0, -1]))
    >>> mirror_walk(part, 0, 64).tolist(), mirror_walk(part, 0, 0)
    ([0, 1], None)
    """
    depth = {start: 0}
    parent: dict[int, int] = {}
    frontier = [start]
    for level in range(1, levels + 1):
        found: dict[int, int] = {}
        for node in frontier:
            for child in part.successors(node):
                if child not in depth and child not in found:
                    found[child] = node
        if not found:
            return None
        frontier = sorted(found)
        for node in frontier:
            depth[node] = level
            parent[node] = found[node]
        met = [(level + depth[node ^ 1], node) for node in frontier if node ^ 1 in depth]
        if met:
            length = min(total for total, _node in met)
            node = min(n for total, m in met if total == length for n in (m, m ^ 1))
            there = _back(parent, start, node)
            mirror = [n ^ 1 for n in reversed(_back(parent, start, node ^ 1)[:-1])]
            return np.array(there + mirror, dtype=np.int64)
    return None


def _back(parent: dict[int, int], start: int, node: int) -> list[int]:
    walk = [node]
    while walk[-1] != start:
        walk.append(parent[walk[-1]])
    return walk[::-1]


def searched_cycle(part: Component, variables: npt.ArrayLike) -> IntArray | None:
    """The contradiction cycle (DIMACS literals) that the SciPy path gives in ``part``.

    ``variables`` are the component's variables, ascending; the first few are tried
    as :func:`~twosat_formal.solve.scc.contradiction_cycle` tries them (its limits read
    when called), and the first shortest walk ``x ~> -x ~> x`` is kept. None when a
    search is declined.

    Examples
    --------
    >>> from twosat_formal.formula import Formula
    >>> from twosat_formal.solve.functional import branching_contradiction
    >>> chord = Formula([[1, -2], [2, -3], [3], [-1], [1, -3]])  # -1 -> -2 and -3
    >>> branching_contradiction(chord).tolist()  # searched: not a simple cycle
    [1, -1, -3, 3]
    """
    from twosat_formal.solve import scc  # its limits; no SciPy import

    held = np.asarray(variables, dtype=np.int64)
    size = 2 * held.size
    tries = max(1, min(scc.CYCLE_CANDIDATES, scc.CYCLE_SEARCH_BUDGET // (2 * size)))
    best: IntArray | None = None
    tried = held[:tries].tolist()
    part = part.located([node for x in tried for node in (2 * (x - 1), 2 * (x - 1) + 1)])
    for x in tried:
        pos, neg = 2 * (x - 1), 2 * (x - 1) + 1
        there = back = None
        if size > scc.LARGE_COMPONENT:  # met in the middle; the one-ended search if far
            there = mirror_walk(part, pos, scc.NEAR_LEVELS)
            back = mirror_walk(part, neg, scc.NEAR_LEVELS)
        there = fifo_path(part, pos, neg) if there is None else there
        back = fifo_path(part, neg, pos) if back is None else back
        if there is None or back is None:
            return None
        walk = np.concatenate([there, back[1:-1]])
        if best is None or walk.size < best.size:
            best = walk
    return None if best is None else index_literal(best)
