"""The strong components that hold some ``x`` and ``-x``, exactly, in numpy alone.

A contradiction cycle needs only the *offending* strong components of the implication
graph (those holding a literal and its negation) and their sizes; which other nodes
share a component, and in what order components come, does not matter. Those
components are found here without SciPy (whose import is 0.2 s or more of a one-off
solve), by a forward-backward search on the canonical CSR arrays of
:func:`~twosat_formal.solve.graph.implication_arrays`:

* nodes are split into *regions*, each a union of whole strong components (at first
  one region of every node);
* in each region a pivot is taken (the positive literal of the lowest variable with
  both literals in the region); the nodes it reaches inside the region (``F``) and
  those that reach it (``B``) are found by level-synchronous breadth-first searches in
  numpy, all regions at once. Predecessors need no transposed matrix: ``u -> v`` is an
  edge iff ``v ^ 1 -> u ^ 1`` is one, so the predecessors of ``v`` are the successors
  of ``v ^ 1``, each ``^ 1``;
* ``F & B`` is the pivot's strong component; its mirror image (every node ``^ 1``) is
  a strong component too, and both leave their region. Every other component of the
  region lies inside ``F``, inside ``B`` or outside both: these are the new regions;
* a region without both literals of some variable cannot hold an offending component
  and is dropped, and when few nodes are left, their components are found by the
  plain-Python Tarjan search of :func:`~twosat_formal.solve.small.small_components`.

When the pivot's component is offending it is its own mirror image, and then ``F``
and ``B`` are each other's mirror images: neither holds both literals of a variable,
so both are dropped at once. A dense random formula (a giant offending component)
takes one or two rounds.

The search gives up (None) past :data:`FB_ROUNDS` rounds or :data:`FB_LEVELS`
breadth-first levels in all (long paths make many levels), or when a round leaves more
than :data:`PROGRESS` of the nodes still in regions (many separate components, one a
round, such as many small disjoint contradictions); the SciPy path then decides,
as it does for a formula without an offending component (its model follows SciPy's
order of the components).

Examples
--------
>>> from twosat_formal.formula import Formula
>>> from twosat_formal.solve.graph import implication_arrays
>>> f = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3, 4]])
>>> labels = offending_partition(*implication_arrays(f))
>>> labels.tolist()
[0, 0, 0, 0, 4, 5, 6, 7]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from twosat_formal.solve.graph import IndexArray, IntArray

__all__ = [
    "FB_LEVELS",
    "FB_ROUNDS",
    "PROGRESS",
    "TARJAN_EDGES",
    "TARJAN_NODES",
    "TRIM_PASSES",
    "offending_partition",
]

BoolArray = npt.NDArray[np.bool_]

#: At most this many forward-backward rounds (each splits every region once).
FB_ROUNDS = 24

#: At most this many breadth-first levels in all the rounds' searches together.
FB_LEVELS = 2048

#: Passes of taking out nodes without a successor or predecessor in their region, a round.
TRIM_PASSES = 8

#: The search gives up when a round leaves more than this share of the nodes that were
#: in regions before it (in regions still, after dropping and trimming): a graph of many
#: components holding some ``x`` and ``-x`` would take a round each.
PROGRESS = 0.9

#: When at most this many nodes are left in regions, with at most :data:`TARJAN_EDGES`
#: edges out of them, their strong components are found by the plain-Python Tarjan
#: search.
TARJAN_NODES = 4096

#: The most edges out of the nodes left for the Tarjan search: a few thousand nodes of
#: a dense formula (1,000 variables in 500,000 clauses: a million edges) stay with the
#: numpy search, which takes them in a level or two.
TARJAN_EDGES = 1 << 15


def _reach(
    indptr: IndexArray,
    indices: IndexArray,
    region: IndexArray,
    pivots: IndexArray,
    backward: bool,
    stamp: IndexArray,
    levels: int,
) -> tuple[BoolArray, int]:
    """Nodes reached from (or reaching) each pivot inside its region; and the levels taken.

    All pivots are searched at once, level by level; a step is followed only between
    two nodes of one region. ``stamp`` is scratch space of one int per node. Stops
    after ``levels`` levels (the count returned is then larger than ``levels``).
    """
    free = region.copy()  # the region of a node not reached yet; -1 once reached
    free[pivots] = -1
    one_region = pivots.size == 1
    frontier = pivots
    depth = 0
    while frontier.size:
        depth += 1
        if depth > levels:
            break
        rows = frontier ^ 1 if backward else frontier
        first = indptr[rows]
        counts = indptr[rows + 1] - first
        total = int(counts.sum())
        if total == 0:
            break
        gather = np.repeat(first - (np.cumsum(counts) - counts), counts)
        gather += np.arange(total)
        found = indices[gather]
        if backward:
            found ^= 1
        if one_region:  # every free node is in the pivot's region
            found = found[free[found] >= 0]
        else:
            found = found[free[found] == np.repeat(region[frontier], counts)]
        if found.size == 0:
            break
        order = np.arange(found.size, dtype=stamp.dtype)
        stamp[found] = order
        found = found[stamp[found] == order]  # each node once
        free[found] = -1
        frontier = found
    return (free < 0) & (region >= 0), depth


def _trim(indptr: IndexArray, indices: IndexArray, region: IndexArray, times: int) -> None:
    """Take out of their regions nodes with no successor or no predecessor in their region.

    Such a node is a strong component of its own, holding no ``x`` and ``-x``. Up to
    ``times`` passes, each over the edges still inside a region (fewer each time); it
    stops after a pass that takes out at most 1/64 of the nodes.
    """
    live = np.flatnonzero(region >= 0)
    first = indptr[live]
    counts = indptr[live + 1] - first
    total = int(counts.sum())
    gather = np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(total)
    source = np.repeat(live, counts)
    target = indices[gather]
    keep = region[target] == region[source]
    source, target = source[keep], target[keep]
    size = region.size
    for _ in range(times):
        has_out = np.zeros(size, dtype=np.bool_)
        has_out[source] = True
        has_in = np.zeros(size, dtype=np.bool_)
        has_in[target] = True
        drop = live[~(has_out[live] & has_in[live])]
        region[drop] = -1
        if drop.size <= live.size // 64:
            return  # little left to gain
        live = live[region[live] >= 0]
        keep = (region[source] >= 0) & (region[target] >= 0)
        source, target = source[keep], target[keep]


def _drop_unpaired(
    region: IndexArray,
) -> tuple[IndexArray, BoolArray, IntArray, IndexArray, int]:
    """Take out the regions that hold no variable's two literals (no offending component).

    Returns the region of each positive literal (before), whether each variable has
    both literals in one region, those variables, their regions and the number of
    region numbers.
    """
    pos_region = region[0::2].copy()
    paired = (pos_region >= 0) & (pos_region == region[1::2])
    paired_vars = np.flatnonzero(paired).astype(np.int64)
    count = int(region.max()) + 1 if region.size else 0
    held = pos_region[paired_vars]
    alive = np.zeros(count + 1, dtype=np.bool_)
    alive[held] = True
    region[~alive[region]] = -1  # region -1 reads alive[-1], which is False
    return pos_region, paired, paired_vars, held, count


def _tarjan_rest(
    indptr: IndexArray, indices: IndexArray, region: IndexArray
) -> tuple[IndexArray, IntArray]:
    """Strong components of the nodes still in regions: the nodes, and a label for each."""
    from twosat_formal.solve.small import small_components  # small imports scc: not at top

    live = np.flatnonzero(region >= 0)
    position = np.full(region.size, -1, dtype=np.int64)
    position[live] = np.arange(live.size)
    first = indptr[live]
    counts = indptr[live + 1] - first
    total = int(counts.sum())
    gather = np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(total)
    owner = np.repeat(np.arange(live.size), counts)
    found = indices[gather]
    keep = region[found] == region[live][owner]
    owner, targets = owner[keep], position[found[keep]]
    bounds = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=live.size))))
    flat = targets.tolist()
    cuts = bounds.tolist()
    succ = [flat[cuts[i] : cuts[i + 1]] for i in range(live.size)]
    _count, labels = small_components(succ)
    return live, np.asarray(labels, dtype=np.int64)


def _few(degree: IntArray, region: IndexArray, left: int, tarjan: int) -> bool:
    """Whether the ``left`` nodes still in regions go to the Tarjan search: at most
    ``tarjan`` nodes, with at most :data:`TARJAN_EDGES` edges out of them."""
    if left > tarjan:
        return False
    return int(degree[region >= 0].sum()) <= TARJAN_EDGES


def offending_partition(
    indptr: IndexArray,
    indices: IndexArray,
    *,
    rounds: int = FB_ROUNDS,
    levels: int = FB_LEVELS,
    tarjan: int = TARJAN_NODES,
    hopeful: bool = False,
) -> IntArray | None:
    """A labelling of the graph's nodes, exact on its offending strong components.

    Two nodes of one strong component holding some ``x`` and ``-x`` share a label,
    the lowest node of that component; every other node is labelled with its own
    number. So ``labels[2 * (x - 1)] == labels[2 * (x - 1) + 1]`` iff ``x`` and ``-x``
    share a strong component, and the offending components and their sizes are SciPy's.

    Parameters
    ----------
    indptr, indices:
        The canonical CSR arrays of an implication graph
        (:func:`~twosat_formal.solve.graph.implication_arrays`).
    rounds, levels:
        Budgets: the search gives up past this many forward-backward rounds, or this
        many breadth-first levels in all.
    tarjan:
        When at most this many nodes are left in regions (with at most
        :data:`TARJAN_EDGES` edges out of them), their components are found by the
        plain-Python Tarjan search.
    hopeful:
        Give up (None) when the first pivot (a literal with the most edges) does not
        share its component with its negation, as soon as that is known (after the
        search forward when it does not imply its negation, else after the search
        backward): the formula is likely satisfiable, and SciPy's path then decides
        anyway (a dense random contradiction has one giant offending component, which
        holds that literal).

    Returns
    -------
    numpy.ndarray or None
        The labels (int64, one per node), or None if a budget ran out.

    Examples
    --------
    The cycle ``1 -> 2 -> -1 -> -2 -> 1`` (and its mirror image, the same nodes), and
    ``3``, ``-3`` apart:

    >>> from twosat_formal.formula import Formula
    >>> from twosat_formal.solve.graph import implication_arrays
    >>> arrays = implication_arrays(Formula([[-1, 2], [-2, -1], [1, -2], [2, 1], [3]]))
    >>> offending_partition(*arrays).tolist()
    [0, 0, 0, 0, 4, 5]
    >>> offending_partition(*arrays, tarjan=0).tolist()  # forward-backward alone
    [0, 0, 0, 0, 4, 5]
    >>> offending_partition(*arrays, tarjan=0, levels=1) is None
    True

    Satisfiable: ``1`` implies ``2`` but not ``-1``, so a hopeful search gives up
    after one search:

    >>> sat = implication_arrays(Formula([[-1, 2], [1, 2]]))
    >>> offending_partition(*sat, tarjan=0).tolist()
    [0, 1, 2, 3]
    >>> offending_partition(*sat, tarjan=0, hopeful=True) is None
    True
    """
    num_nodes = indptr.size - 1
    labels = np.arange(num_nodes, dtype=np.int64)
    small = 3 * num_nodes + 3 < 2**31  # region numbers (three per region) fit in int32
    index_type: type[np.signedinteger[Any]] = np.int32 if small else np.int64
    region: IndexArray = np.zeros(num_nodes, dtype=index_type)  # -1: no offending one there
    stamp: IndexArray = np.empty(num_nodes, dtype=index_type)
    found_parts: list[IntArray] = []  # nodes of offending components, one array a round
    found_keys: list[IntArray] = []  # a key per node, shared by the nodes of one component
    key_base = 0
    before = num_nodes / PROGRESS  # nodes left in regions before the last round
    degree = np.diff(indptr).astype(np.int64)
    score = degree[0::2] * degree[1::2]  # out-degree times in-degree, either literal
    for _round in range(rounds + 1):
        pos_region, paired, paired_vars, held, count = _drop_unpaired(region)
        left = int(np.count_nonzero(region >= 0))
        if _round and held.size and not _few(degree, region, left, tarjan):
            if left > PROGRESS * before:
                return None  # the last round left most nodes (many components)
            _trim(indptr, indices, region, TRIM_PASSES)
            pos_region, paired, paired_vars, held, count = _drop_unpaired(region)
            left = int(np.count_nonzero(region >= 0))
        if held.size == 0:
            break
        if _few(degree, region, left, tarjan):
            live, comp = _tarjan_rest(indptr, indices, region)
            # components holding both literals of a variable: their nodes
            at = np.full(num_nodes, -1, dtype=np.int64)
            at[live] = comp
            both = (at[0::2] >= 0) & (at[0::2] == at[1::2])
            bad = np.zeros(int(comp.max()) + 1, dtype=np.bool_)
            bad[at[0::2][both]] = True
            hit = bad[comp]
            found_parts.append(live[hit])
            found_keys.append(comp[hit] + key_base)
            break
        if _round == rounds:
            return None
        before = left
        # pivot: the variable whose literals have the most edges (likely in a large
        # component), the lowest on ties
        held_score = score[paired_vars]
        best = np.full(count, -1, dtype=np.int64)
        np.maximum.at(best, held, held_score)
        top = held_score == best[held]
        _regions, first = np.unique(held[top], return_index=True)
        pivots = 2 * paired_vars[top][first]
        forward, depth = _reach(indptr, indices, region, pivots, False, stamp, levels)
        levels -= depth
        if levels < 0 or (hopeful and _round == 0 and not forward[pivots[0] ^ 1]):
            return None
        backward, depth = _reach(indptr, indices, region, pivots, True, stamp, levels)
        levels -= depth
        if levels < 0:
            return None
        core = forward & backward  # the pivots' components
        if hopeful and _round == 0 and not core[pivots[0] ^ 1]:
            return None
        core_nodes = np.flatnonzero(core)
        core_region = region[core_nodes]
        # offending: both literals of some variable in one pivot's component
        both = core[0::2] & core[1::2] & paired
        offending = np.zeros(count, dtype=np.bool_)
        offending[pos_region[both]] = True
        hit = offending[core_region]
        found_parts.append(core_nodes[hit])
        found_keys.append(core_region[hit].astype(np.int64) + key_base)
        key_base += count
        # the components and their mirror images leave; the rest splits by F and B
        region[core_nodes] = -1
        region[core_nodes ^ 1] = -1
        remaining = region >= 0
        split = 3 * region + forward + 2 * backward
        used = np.zeros(3 * count, dtype=np.bool_)
        used[split[remaining]] = True
        renumber = np.cumsum(used) - 1
        region[remaining] = renumber[split[remaining]].astype(index_type)
    if found_parts:
        nodes = np.concatenate(found_parts)
        keys = np.concatenate(found_keys)
        order = np.argsort(nodes, kind="stable")
        nodes, keys = nodes[order], keys[order]
        _keys, lowest, inverse = np.unique(keys, return_index=True, return_inverse=True)
        labels[nodes] = nodes[lowest][inverse]
    return labels
