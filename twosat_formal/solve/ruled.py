"""Walking a functional graph in numpy: list ranking with a sparse ruling set.

A graph in which every node has at most one successor and at most one predecessor
(:func:`~twosat_formal.solve.functional.successor_nodes`) is a union of disjoint simple
paths and cycles. Walking it node by node in Python costs about 0.25 µs a node when its
nodes are numbered in no particular order (each step a cache miss in a Python list): a
ring of 10^6 literals over shuffled variables took half a second. Here the same walk is
done by *rulers* (Reid-Miller's sparse ruling set, used for list ranking on vector
machines):

* every path's first node is a ruler, and so is about one node in
  ``2 ** RULER_BITS`` more, picked by a multiplicative hash of its number
  (:func:`sampled_rulers`: fixed, so the walk is the same in every process);
* all rulers walk at once, one numpy step each a round, each up to the next ruler or
  the end of its path: every node off a rulerless cycle is walked exactly once, in
  rounds that number about ``2 ** RULER_BITS`` times the logarithm of the nodes;
* the *segments* so walked (a ruler and the nodes after it) are joined in Python, one
  step a segment: a path's from its first node, a cycle's from its ruler of lowest
  number, each turned to begin at the cycle's lowest node;
* the cycles without any ruler (short ones, mostly) find their lowest node by
  doubling, and those nodes walk them round the same way.

The result is exactly :func:`~twosat_formal.solve.functional.functional_walk`'s walk
node by node: the paths in the order of their first nodes, each from its first node
to its last; the cycles in the order of their lowest nodes, each from that node. A
property test compares the two on drawn graphs.

References
----------
.. [1] M. Reid-Miller, "List ranking and list scan on the Cray C-90", *Proc. 6th ACM
   Symposium on Parallel Algorithms and Architectures*, 1994, pp. 104-113.
.. [2] D. R. Helman and J. JáJá, "Prefix computations on symmetric multiprocessors",
   *Journal of Parallel and Distributed Computing* 61(2), 2001, pp. 265-278.

Examples
--------
>>> step = np.array([1, 0, 3, 5, 2, 6, 6])  # 0 -> 1 -> 0, 4 -> 2 -> 3 -> 5
>>> led = np.array([True, True, True, True, False, True, True])
>>> paths, cycles = ruled_walk(step, led)
>>> paths.tolist(), cycles.tolist()
([4, 2, 3, 5], [0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["RULER_BITS", "TAIL_ROUNDS", "Rings", "Segments", "ruled_walk", "sampled_rulers"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: About one node in ``2 ** RULER_BITS`` is a ruler besides the paths' first nodes: the
#: walk's rounds grow with it (about ``2 ** RULER_BITS * ln(nodes)``), the segments
#: joined in Python shrink with it.
RULER_BITS = 6

#: Walks still going after this many rounds (a stretch of nodes the hash left without a
#: ruler) are finished node by node, so that no graph takes a numpy round a node.
TAIL_ROUNDS = 4096

#: Fibonacci hashing's multiplier (2^64 over the golden ratio, odd).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def sampled_rulers(size: int, bits: int = RULER_BITS) -> BoolArray:
    """Which of the nodes ``0 .. size - 1`` are rulers by the hash: about one in ``2**bits``.

    A node is one when the top ``bits`` bits of its number times the golden-ratio
    multiplier are zero (Fibonacci hashing spreads consecutive and strided numbers
    evenly).

    >>> int(np.count_nonzero(sampled_rulers(64_000)))
    1000
    >>> sampled_rulers(4).tolist()
    [True, False, False, False]
    """
    nodes = np.arange(size, dtype=np.uint64)
    return np.asarray((nodes * _GOLDEN) >> np.uint64(64 - bits) == 0)


def ruled_walk(
    step: IntArray, led: BoolArray, bits: int = RULER_BITS, tail: int = TAIL_ROUNDS
) -> tuple[IntArray, IntArray]:
    """The paths and the cycles of a functional graph, walked by rulers.

    Parameters
    ----------
    step:
        ``step[v]`` is the node ``v`` steps to, or ``size`` (the last entry's index,
        which steps to itself) if none; no node has two predecessors.
    led:
        Whether some node steps to each node (``size + 1`` entries).
    bits, tail:
        :data:`RULER_BITS` and :data:`TAIL_ROUNDS` (the tests vary them).

    Returns
    -------
    tuple of numpy.ndarray
        ``paths``: every path's nodes, the paths in the order of their first nodes
        (those not led to), each from its first node to its last; ``cycles``: every
        cycle's nodes, the cycles in the order of their lowest nodes, each from that
        node. The walk node by node gives the same arrays.

    Examples
    --------
    >>> step = np.array([2, 4, 0, 1, 4])  # 0 -> 2 -> 0, 3 -> 1
    >>> [a.tolist() for a in ruled_walk(step, np.array([True, True, True, False, True]))]
    [[3, 1], [0, 2]]
    """
    size = step.size - 1
    ruler = np.zeros(size + 1, dtype=np.bool_)
    ruler[:size] = sampled_rulers(size, bits)
    heads = np.flatnonzero(~led[:size])
    ruler[heads] = True
    ruler[size] = True  # the end of every path: a walk that reaches it stops
    rulers = np.flatnonzero(ruler[:size])
    segments = _segments(step, ruler, rulers, tail)
    place = np.full(size + 1, -1, dtype=np.int64)  # a ruler's segment; -1 for the end
    place[rulers] = np.arange(rulers.size, dtype=np.int64)
    after = place[segments.stops]  # the segment each segment leads to, -1 at a path's end
    on_paths = _path_segments(after, place[heads])
    rings = _rings(segments, after, on_paths)
    covered = np.zeros(size + 1, dtype=np.bool_)
    covered[segments.nodes] = True
    covered[size] = True
    loose = _loose_cycles(step, covered, tail)  # cycles without a ruler
    return segments.take(on_paths), _cycles(segments, rings, loose)


@dataclass(frozen=True, eq=False)
class Segments:
    """Walked segments: a ruler and the nodes after it, up to the next ruler.

    Attributes
    ----------
    nodes:
        The segments' nodes, one segment after the other.
    starts, lengths:
        Where each segment starts in ``nodes``, and its number of nodes.
    stops:
        The node each segment's last node steps to (a ruler, or the end).
    """

    nodes: IntArray
    starts: IntArray
    lengths: IntArray
    stops: IntArray

    def take(self, order: IntArray) -> IntArray:
        """The nodes of the segments ``order``, one after the other."""
        return self.nodes[_gather(self.starts[order], self.lengths[order])]


def _path_segments(after: IntArray, firsts: IntArray) -> IntArray:
    """The segments of the paths, path after path, each from its first segment.

    A path of one segment (most of them, when paths are short) is taken as it is; the
    others are followed segment by segment.
    """
    longer = after[firsts] >= 0
    if not longer.any():
        return firsts
    owners = [np.flatnonzero(~longer)]
    taken = [firsts[~longer]]
    succ = after.tolist()
    owner_of: list[int] = []
    segment_of: list[int] = []
    for owner, segment in zip(
        np.flatnonzero(longer).tolist(), firsts[longer].tolist(), strict=True
    ):
        while segment >= 0:
            owner_of.append(owner)
            segment_of.append(segment)
            segment = succ[segment]
    owners.append(np.array(owner_of, dtype=np.int64))
    taken.append(np.array(segment_of, dtype=np.int64))
    order = np.argsort(np.concatenate(owners), kind="stable")  # path by path, in order
    return np.asarray(np.concatenate(taken)[order])


@dataclass(frozen=True, eq=False)
class Rings:
    """The cycles through rulers, as their segments.

    Attributes
    ----------
    segments:
        Each cycle's segments, cycle after cycle, each from the one that holds the
        cycle's lowest node round to the one before it.
    firsts:
        Where each cycle starts in ``segments``.
    lows:
        Each cycle's lowest node.
    """

    segments: IntArray
    firsts: IntArray
    lows: IntArray


def _rings(segments: Segments, after: IntArray, on_paths: IntArray) -> Rings:
    """The cycles through rulers: the segments not on a path, in the order of first rulers."""
    seen = bytearray(after.size)
    np.frombuffer(seen, dtype=np.uint8)[on_paths] = 1
    ring_segments: list[int] = []
    firsts: list[int] = []
    lows: list[int] = []
    root = seen.find(0)
    if root >= 0:
        lowest = np.minimum.reduceat(segments.nodes, segments.starts).tolist()
        succ = after.tolist()
    while root >= 0:
        first = len(ring_segments)
        segment = root
        low = root
        while True:
            ring_segments.append(segment)
            seen[segment] = 1
            if lowest[segment] < lowest[low]:
                low = segment
            segment = succ[segment]
            if segment == root:
                break
        turn = ring_segments.index(low, first)
        ring_segments[first:] = ring_segments[turn:] + ring_segments[first:turn]
        firsts.append(first)
        lows.append(lowest[low])
        root = seen.find(0, root + 1)
    return Rings(*(np.array(values, dtype=np.int64) for values in (ring_segments, firsts, lows)))


def _segments(step: IntArray, ruler: BoolArray, rulers: IntArray, tail: int) -> Segments:
    """Every ruler's segment, all walked at once, one step each a round."""
    count = rulers.size
    lengths = np.ones(count, dtype=np.int64)
    stops = np.empty(count, dtype=np.int64)
    walkers = np.arange(count, dtype=np.int64)
    at = step[rulers]
    taken_walkers: list[IntArray] = []  # the walkers still going in each round ...
    taken_nodes: list[IntArray] = []  # ... and where they are: ``rounds`` after their ruler
    taken_places: list[IntArray] = []  # the places of a stretch finished node by node
    rounds = 1
    while walkers.size:
        done = ruler[at]
        if done.any():
            stops[walkers[done]] = at[done]
            lengths[walkers[done]] = rounds
            going = ~done
            walkers, at = walkers[going], at[going]
            if walkers.size == 0:
                break
        if rounds > tail:  # a long stretch without a ruler: finished node by node
            for walker, node in zip(walkers.tolist(), at.tolist(), strict=True):
                stretch = _stretch(step, ruler, node)
                taken_walkers.append(np.full(stretch.size, walker, dtype=np.int64))
                taken_nodes.append(stretch)
                taken_places.append(np.arange(rounds, rounds + stretch.size, dtype=np.int64))
                stops[walker] = int(step[stretch[-1]])
                lengths[walker] = rounds + stretch.size
            break
        taken_walkers.append(walkers)
        taken_nodes.append(at)
        at = step[at]
        rounds += 1
    starts = np.cumsum(lengths) - lengths
    nodes = np.empty(int(lengths.sum()), dtype=np.int64)
    nodes[starts] = rulers
    if taken_walkers:
        rounds_taken = taken_walkers[: len(taken_walkers) - len(taken_places)]
        sizes = [walkers.size for walkers in rounds_taken]
        places = np.repeat(np.arange(1, len(sizes) + 1, dtype=np.int64), sizes)
        where = np.concatenate([places, *taken_places]) + starts[np.concatenate(taken_walkers)]
        nodes[where] = np.concatenate(taken_nodes)
    return Segments(nodes, starts, lengths, stops)


def _stretch(step: IntArray, ruler: BoolArray, node: int) -> IntArray:
    """The nodes from ``node`` up to the next ruler (not included), node by node."""
    walked = []
    while not ruler[node]:
        walked.append(node)
        node = int(step[node])
    return np.array(walked, dtype=np.int64)


def _loose_cycles(step: IntArray, covered: BoolArray, tail: int) -> Segments:
    """The cycles of the nodes not covered (those without a ruler), each from its lowest.

    Each node first learns its cycle's lowest node by doubling (the lowest of the next
    ``2**r`` nodes, ``r`` rounds; done when every node's equals that of the node
    ``2**r`` ahead: then every window ahead has the same lowest node, the whole cycle's);
    the lowest nodes are then the cycles' rulers, and walk them round.
    """
    left = np.flatnonzero(~covered)
    if left.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Segments(empty, empty, empty, empty)
    place = np.full(covered.size, -1, dtype=np.int64)
    place[left] = np.arange(left.size, dtype=np.int64)
    ahead = place[step[left]]  # every node left is on a cycle of nodes left
    lowest = left.copy()
    while True:
        further = lowest[ahead]
        if np.array_equal(further, lowest):
            break
        np.minimum(lowest, further, out=lowest)
        ahead = ahead[ahead]
    roots = left[lowest == left]
    ruler = np.zeros(covered.size, dtype=np.bool_)
    ruler[roots] = True
    return _segments(step, ruler, roots, tail)


def _cycles(segments: Segments, rings: Rings, loose: Segments) -> IntArray:
    """Every cycle from its lowest node, in the order of those nodes, as one array.

    ``rings``: the cycles through rulers (:func:`_rings`); ``loose``: the others, each
    one segment from its lowest node, in that order (:func:`_loose_cycles`).
    """
    if rings.lows.size == 0:
        return loose.nodes
    nodes, starts, lengths = segments.nodes, segments.starts, segments.lengths
    # A cycle through rulers is its segments, the first from its lowest node on and,
    # after the last, that first segment up to its lowest node: ``cut`` nodes.
    turning = rings.segments[rings.firsts]
    position = np.empty(int(nodes.max()) + 1, dtype=np.int64)
    position[nodes] = np.arange(nodes.size, dtype=np.int64)
    cut = position[rings.lows] - starts[turning]
    piece_start = starts[rings.segments]
    piece_length = lengths[rings.segments]
    piece_start[rings.firsts] += cut
    piece_length[rings.firsts] -= cut
    count = rings.lows.size
    ring_of = np.repeat(np.arange(count), np.diff(np.append(rings.firsts, rings.segments.size)))
    # Pieces of ``nodes`` then ``loose.nodes``, with their cycle and their place in it.
    cycle = np.concatenate([ring_of, np.arange(count), count + np.arange(loose.starts.size)])
    within = np.concatenate(
        [
            np.arange(rings.segments.size),
            np.full(count, rings.segments.size),
            np.zeros(loose.starts.size, dtype=np.int64),
        ]
    )
    start = np.concatenate([piece_start, starts[turning], nodes.size + loose.starts])
    length = np.concatenate([piece_length, cut, loose.lengths])
    lows = np.concatenate([rings.lows, loose.nodes[loose.starts]])
    rank = np.empty(lows.size, dtype=np.int64)
    rank[np.argsort(lows, kind="stable")] = np.arange(lows.size)
    order = np.lexsort((within, rank[cycle]))  # cycle by cycle, each piece by piece
    source = np.concatenate([nodes, loose.nodes])
    return source[_gather(start[order], length[order])]


def _gather(starts: IntArray, lengths: IntArray) -> IntArray:
    """The positions ``starts[i], ..., starts[i] + lengths[i] - 1``, piece after piece."""
    total = int(lengths.sum())
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)
