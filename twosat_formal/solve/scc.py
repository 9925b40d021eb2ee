"""The own 2-SAT backend: strong components of the implication graph, in compiled code.

Strong components come from ``scipy.sparse.csgraph.connected_components`` with
``connection="strong"``. SciPy does not document the order of its labels, so the
order is checked, not trusted: SciPy's Tarjan-style search emits a component only
after every component it reaches, so labels usually run in *reverse* topological
order (every edge between components goes from a higher label to a lower one). That
property is verified on every edge of the graph (one vectorised pass); if it ever
fails, a topological order of the condensation is computed instead, by a
level-synchronous Kahn sweep in numpy (:func:`dag_levels`).

A formula is UNSAT iff some ``x`` and ``-x`` share a component. Otherwise the model
sets a literal true iff its component comes *after* its negation's in topological
order. For UNSAT, the contradiction cycle joins the breadth-first shortest paths
``x ~> -x`` and ``-x ~> x`` (level by level in numpy when short; else
``scipy.sparse.csgraph.breadth_first_order`` with predecessors, its tree read back by
a second search up the tree) inside the offending component.

The cycle depends only on the *offending* components (those holding some ``x`` and
``-x``), not on how the other nodes are grouped or ordered (:func:`partition_cycle`).
So SciPy is not needed for it: a formula of at least :data:`DENSE_RATIO` clauses per
variable first has its offending components found exactly in numpy
(:mod:`twosat_formal.solve.offending`), and when there is one, :func:`solve_scc`
gives the same cycle without importing SciPy.

Before any of this, :func:`solve_scc` walks a graph in which every literal implies at
most one literal (:mod:`twosat_formal.solve.functional`), and one in which a few
literals imply more when it is UNSAT: the contradiction cycle above is then found
without SciPy and without the sparse graph, the searches simulated over the few
special nodes of the offending component (:mod:`twosat_formal.solve.bfs`), which gives
the same cycle, literal for literal.

Examples
--------
>>> from twosat_formal.formula import Formula
>>> solve_scc(Formula([[1, 2], [-1, 2], [1, -2]])).model
(True, True)
>>> solve_scc(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])).cycle
(1, 2, -1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from twosat_formal.errors import NotTwoCNFError, TwoSatFormalError, raises
from twosat_formal.formula import Formula
from twosat_formal.solve.functional import solve_functional
from twosat_formal.solve.graph import (
    ImplicationGraph,
    implication_arrays,
    implication_graph,
    index_literal,
)
from twosat_formal.solve.offending import offending_partition
from twosat_formal.solve.result import SolveResult, certificate_tuple

if TYPE_CHECKING:  # SciPy is imported by the functions that use it
    import scipy.sparse as sp

__all__ = [
    "ARRAY_LEVELS",
    "DENSE_RATIO",
    "Components",
    "RowArrays",
    "Rows",
    "condensation",
    "conflicting_variables",
    "contradiction_cycle",
    "dag_levels",
    "first_places",
    "mirror_path",
    "model_from_components",
    "near_path",
    "partition_cycle",
    "solve_scc",
    "strong_components",
    "tree_path",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
IndexArray = npt.NDArray[np.signedinteger[Any]]

#: How many conflicting variables of the smallest offending component are tried, at
#: most, when looking for a short contradiction cycle.
CYCLE_CANDIDATES = 8

#: Paths up to this many steps are walked back one step at a time (cheaper than a
#: pass over a large tree); longer ones in one compiled pass up the tree (:func:`tree_path`).
SHORT_WALK = 256

#: A breadth-first search for a contradiction cycle goes level by level in numpy, and
#: stops where it reaches its goal, for paths up to this many steps; a longer one is
#: left to SciPy's search of the whole component (:func:`_bfs_path`).
NEAR_LEVELS = 64

#: A path for a contradiction cycle found without SciPy
#: (:func:`partition_cycle` of :class:`RowArrays`) is searched level by level in numpy
#: up to this many steps (the same path; SciPy's import costs more than these levels).
ARRAY_LEVELS = 1024

#: In a component of more than this many literals, each path of a contradiction cycle
#: is searched from both ends at once (:func:`mirror_path`): a shortest path still,
#: but not always the one a search from one end picks. Smaller components, and so
#: every formula small enough for the plain-Python path, keep the one-ended search.
LARGE_COMPONENT = 1 << 16

#: About how many component nodes the searches for a contradiction cycle visit in all:
#: a component of ``s`` nodes tries ``min(8, budget // (2 s))`` variables, at least one.
CYCLE_SEARCH_BUDGET = 1 << 20

#: A formula with at least this many clauses per variable has its offending components
#: looked for in numpy first (:func:`~twosat_formal.solve.offending.offending_partition`):
#: large random ones are UNSAT past one clause per variable, and then SciPy is not
#: imported; a satisfiable one loses one or two breadth-first searches (the search is
#: hopeful). Random formulas at one clause per variable (and below) are left out.
DENSE_RATIO = 1.1


class Rows(Protocol):
    """Sorted CSR rows of a square graph: what the path searches read of a matrix.

    A :class:`scipy.sparse.csr_array` in canonical form is one; so is :class:`RowArrays`.
    """

    @property
    def indptr(self) -> IndexArray: ...

    @property
    def indices(self) -> IndexArray: ...

    @property
    def shape(self) -> tuple[int, int]: ...


@dataclass(frozen=True, eq=False)
class RowArrays:
    """CSR rows as two numpy arrays, without SciPy (:class:`Rows`).

    Attributes
    ----------
    indptr, indices:
        Row ``i`` is ``indices[indptr[i]:indptr[i + 1]]``, sorted, without repeats.
    shape:
        ``(nodes, nodes)``.

    Examples
    --------
    >>> from twosat_formal.formula import Formula
    >>> RowArrays.of(Formula([[1, 2]])).shape
    (4, 4)
    """

    indptr: IndexArray
    indices: IndexArray
    shape: tuple[int, int]

    @classmethod
    def of(cls, formula: Formula) -> RowArrays:
        """The rows of ``formula``'s implication graph (:func:`implication_arrays`)."""
        indptr, indices = implication_arrays(formula)
        return cls(indptr, indices, (indptr.size - 1, indptr.size - 1))

    def submatrix(self, nodes: IntArray) -> RowArrays:
        """Rows and columns of the sorted ``nodes``, renumbered by position.

        The arrays of SciPy's ``matrix[nodes][:, nodes]``: each row keeps its entries
        in ``nodes``, in their order.

        >>> rows = RowArrays.of(Formula([[1, 2], [-1, 3]]))  # 1 -> 3, -2 -> 1, ...
        >>> sub = rows.submatrix(np.array([0, 3, 4]))  # 1, -2, 3: 1 -> 3, -2 -> 1
        >>> sub.indptr.tolist(), sub.indices.tolist()
        ([0, 1, 2, 2], [2, 0])
        """
        position = np.full(self.shape[0], -1, dtype=np.int64)
        position[nodes] = np.arange(nodes.size)
        first = self.indptr[nodes]
        counts = self.indptr[nodes + 1] - first
        total = int(counts.sum())
        gather = np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(total)
        targets = position[self.indices[gather]]
        inside = targets >= 0
        owner = np.repeat(np.arange(nodes.size), counts)
        indptr = np.zeros(nodes.size + 1, dtype=self.indptr.dtype)
        np.cumsum(np.bincount(owner[inside], minlength=nodes.size), out=indptr[1:])
        indices = targets[inside].astype(self.indices.dtype)
        return RowArrays(indptr, indices, (nodes.size, nodes.size))

    def matrix(self) -> sp.csr_array:
        """The same rows as a SciPy matrix (imports SciPy)."""
        import scipy.sparse as sp

        data = np.ones(self.indices.size, dtype=np.float64)
        matrix = sp.csr_array((data, self.indices, self.indptr), shape=self.shape)
        matrix.has_canonical_format = True
        return matrix


@dataclass(frozen=True, eq=False)
class Components:
    """Strong components of an implication graph, with a topological order.

    Attributes
    ----------
    count:
        Number of strong components.
    labels:
        Component of each graph node (``2 * num_vars`` entries).
    rank:
        Position of each component in a topological order of the condensation:
        every edge between two components goes from a lower rank to a higher one.
    """

    count: int
    labels: IntArray
    rank: IntArray

    def sizes(self) -> IntArray:
        """Number of nodes (literals) in each component."""
        return np.bincount(self.labels, minlength=self.count)


def condensation(graph: ImplicationGraph, labels: IntArray, count: int) -> sp.csr_array:
    """The condensation DAG: one node per component, one edge per linked pair.

    >>> from twosat_formal.formula import Formula
    >>> g = implication_graph(Formula([[1, 2]]))
    >>> comps = strong_components(g)
    >>> condensation(g, comps.labels, comps.count).nnz
    2
    """
    import scipy.sparse as sp

    src, dst = graph.edge_arrays()
    cs, cd = labels[src], labels[dst]
    keep = cs != cd
    coo = sp.coo_array(
        (np.ones(int(keep.sum()), dtype=np.float64), (cs[keep], cd[keep])), shape=(count, count)
    )
    dag = coo.tocsr()
    dag.sum_duplicates()
    return dag


def dag_levels(dag: sp.csr_array) -> IntArray:
    """Longest-path depth of every node of a DAG (sources are at level 0).

    A level-synchronous Kahn sweep in numpy: one vectorised step per level. Every
    edge goes from a lower level to a higher one, so sorting by level gives a
    topological order.

    Raises
    ------
    TwoSatFormalError
        If the graph has a cycle.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> dag = sp.csr_array(([1.0, 1.0, 1.0], ([0, 0, 1], [1, 2, 2])), shape=(3, 3))
    >>> dag_levels(dag).tolist()
    [0, 1, 2]
    """
    count = dag.shape[0]
    indptr = dag.indptr.astype(np.int64)
    indices = dag.indices.astype(np.int64)
    indegree = np.bincount(indices, minlength=count)
    levels = np.full(count, -1, dtype=np.int64)
    frontier = np.flatnonzero(indegree == 0)
    depth = 0
    while frontier.size:
        levels[frontier] = depth
        starts, ends = indptr[frontier], indptr[frontier + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if total == 0:
            break
        offsets = np.cumsum(lengths) - lengths
        gather = np.repeat(starts - offsets, lengths) + np.arange(total, dtype=np.int64)
        targets, hits = np.unique(indices[gather], return_counts=True)
        indegree[targets] -= hits
        frontier = targets[indegree[targets] == 0]
        depth += 1
    if np.any(levels < 0):
        raise TwoSatFormalError("the condensation has a cycle: the strong components are wrong")
    return levels


def strong_components(graph: ImplicationGraph) -> Components:
    """Strong components of ``graph`` and a verified topological order of them.

    >>> from twosat_formal.formula import Formula
    >>> comps = strong_components(implication_graph(Formula([[1, 2], [-1, -2]])))
    >>> comps.count, bool(comps.labels[0] == comps.labels[3])
    (2, True)
    """
    from scipy.sparse.csgraph import connected_components

    if graph.num_nodes == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Components(0, empty, empty)
    count, raw = connected_components(graph.matrix, directed=True, connection="strong")
    labels = raw.astype(np.int64)
    # Reverse topological iff every edge goes to the same label or a lower one: the
    # label of each edge's source (repeated along its row) against its target's.
    matrix = graph.matrix
    if bool(np.all(np.repeat(raw, np.diff(matrix.indptr)) >= raw[matrix.indices])):
        rank = (count - 1) - np.arange(count, dtype=np.int64)
    else:  # SciPy's labels are not reverse-topological: order the condensation ourselves
        levels = dag_levels(condensation(graph, labels, int(count)))
        order = np.argsort(levels, kind="stable")
        rank = np.empty(count, dtype=np.int64)
        rank[order] = np.arange(count, dtype=np.int64)
    return Components(int(count), labels, rank)


def conflicting_variables(components: Components) -> IntArray:
    """Variables ``x`` whose literals ``x`` and ``-x`` share a strong component.

    >>> from twosat_formal.formula import Formula
    >>> g = implication_graph(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3]]))
    >>> conflicting_variables(strong_components(g)).tolist()
    [1, 2]
    """
    labels = components.labels
    return np.flatnonzero(labels[0::2] == labels[1::2]).astype(np.int64) + 1


def model_from_components(components: Components) -> BoolArray:
    """The canonical model of a satisfiable 2-CNF (one bool per variable).

    Variable ``x`` is true iff the component of ``x`` comes after the component of
    ``-x`` in topological order.

    >>> from twosat_formal.formula import Formula
    >>> g = implication_graph(Formula([[-1, 2], [1]]))
    >>> model_from_components(strong_components(g)).tolist()
    [True, True]
    """
    rank_of_node = components.rank[components.labels]
    return np.asarray(rank_of_node[0::2] > rank_of_node[1::2], dtype=np.bool_)


def tree_path(pred: npt.ArrayLike, start: int, goal: int) -> IntArray:
    """The path ``start ~> goal`` (both included) in a tree of predecessors.

    ``pred[v]`` is the parent of ``v`` (negative for the root and for nodes outside
    the tree), as :func:`scipy.sparse.csgraph.breadth_first_order` gives it. Up to
    :data:`SHORT_WALK` steps are walked one by one; a longer path is read in one
    compiled pass: the tree with every edge turned round (each node to its parent)
    leaves ``goal`` by one path only, up through its ancestors to the root, and
    SciPy's breadth-first search from ``goal`` lists exactly that path.

    Raises
    ------
    TwoSatFormalError
        If ``goal`` is not in the tree of ``start``.

    Examples
    --------
    >>> tree_path([-9999, 0, 1, 1, -9999], 0, 3).tolist()
    [0, 1, 3]
    >>> tree_path([-9999, 0], 0, 0).tolist()
    [0]
    """
    parents = np.asarray(pred)
    if goal != start and parents[goal] < 0:
        raise TwoSatFormalError(f"node {goal} is not reachable from node {start}")
    walk = [goal]  # a short path is walked step by step: no pass over the whole tree
    while walk[-1] != start and len(walk) <= SHORT_WALK:
        walk.append(int(parents[walk[-1]]))
    if walk[-1] == start:
        return np.array(walk[::-1], dtype=np.int64)
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order

    size = parents.size
    child = parents >= 0
    up = sp.csr_array(
        (
            np.ones(int(np.count_nonzero(child)), dtype=np.float64),
            parents[child],
            np.concatenate(([0], np.cumsum(child))),
        ),
        shape=(size, size),
    )
    back = breadth_first_order(up, goal, directed=True, return_predecessors=False)
    if int(back[-1]) != start:
        raise TwoSatFormalError(f"node {goal} is not reachable from node {start}")
    return back[::-1].astype(np.int64)


def near_path(graph: Rows, start: int, goal: int, levels: int = NEAR_LEVELS) -> IntArray | None:
    """The breadth-first path ``start ~> goal`` if it has at most ``levels`` steps, else None.

    A level-synchronous search in numpy that stops at the level where it reaches
    ``goal``. It finds the path a first-in first-out search finds (the one
    :func:`scipy.sparse.csgraph.breadth_first_order` gives): each level's nodes are kept
    in the order they are discovered, and a node's predecessor is the first node of
    the level before that has it as a successor, successors taken in the matrix's order.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> g = sp.csr_array(([1.0] * 4, ([0, 0, 1, 2], [1, 2, 3, 3])), shape=(4, 4))
    >>> near_path(g, 0, 3).tolist()
    [0, 1, 3]
    >>> near_path(g, 0, 3, levels=1) is None
    True
    """
    indptr, indices = graph.indptr, graph.indices
    seen = np.zeros(graph.shape[0], dtype=np.bool_)
    seen[start] = True
    parent = np.empty(graph.shape[0], dtype=indices.dtype)  # set for the nodes seen
    frontier = np.array([start], dtype=indices.dtype)
    for _ in range(levels):
        first, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
        total = int(counts.sum())
        gather = np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(total)
        found, owner = indices[gather], np.repeat(frontier, counts)
        fresh = ~seen[found]
        found, owner = found[fresh], owner[fresh]
        if found.size == 0:
            return None
        where = first_places(found, graph.shape[0])  # each node's first discovery
        frontier = found[where]
        seen[frontier] = True
        parent[frontier] = owner[where]
        if seen[goal]:
            walk = [goal]
            while walk[-1] != start:
                walk.append(int(parent[walk[-1]]))
            return np.array(walk[::-1], dtype=np.int64)
    return None


def first_places(values: IndexArray, bound: int) -> IntArray:
    """Where each distinct value of ``values`` (all below ``bound``) first occurs, ascending.

    ``np.unique(values, return_index=True)[1]``, sorted: one stable sort, by radix on
    16-bit keys when ``bound`` allows it (a dense level of a search meets a million
    edges into a few thousand nodes).

    >>> first_places(np.array([5, 3, 5, 1, 3]), 6).tolist()
    [0, 1, 3]
    """
    keys = values.astype(np.uint16) if bound <= 1 << 16 else values
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    first = np.empty(ranked.size, dtype=np.bool_)
    first[:1] = True
    np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    where = order[first]
    where.sort()
    return where


def mirror_path(graph: Rows, start: int, levels: int = NEAR_LEVELS) -> IntArray | None:
    """A shortest path ``start ~> start ^ 1`` in an implication graph, met in the middle.

    In an implication graph ``u -> v`` is an edge iff ``v ^ 1 -> u ^ 1`` is one, so
    the distance from ``u`` to ``start ^ 1`` is the distance from ``start`` to
    ``u ^ 1``: one breadth-first search from ``start`` is a search from both ends. It
    stops after the first level at which some node ``u`` and its negation have both
    been reached, about half-way along the path, and joins ``start ~> u`` with the
    mirror image of ``start ~> u ^ 1``; of the nodes met there it takes the one with
    the shortest total, then the lowest number. None if that takes more than
    ``levels`` levels (or ``start ^ 1`` is not reachable).

    The graph's node numbering must pair each node with its negation as ``i`` and
    ``i ^ 1`` (true of the whole graph, and of a component holding some ``x`` and
    ``-x`` with its nodes numbered in order).

    Examples
    --------
    >>> from twosat_formal.formula import Formula
    >>> g = implication_graph(Formula([[-1, 2], [-2, 3], [-3, -1], [1, 4], [-4, 1]]))
    >>> index_literal(mirror_path(g.matrix, 0)).tolist()
    [1, 2, 3, -1]
    """
    indptr, indices = graph.indptr, graph.indices
    depth = np.full(graph.shape[0], -1, dtype=np.int64)
    depth[start] = 0
    parent = np.empty(graph.shape[0], dtype=indices.dtype)  # set for the nodes reached
    frontier = np.array([start], dtype=indices.dtype)
    for level in range(1, levels + 1):
        first, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
        total = int(counts.sum())
        gather = np.repeat(first - (np.cumsum(counts) - counts), counts) + np.arange(total)
        found, owner = indices[gather], np.repeat(frontier, counts)
        fresh = depth[found] < 0
        found, owner = found[fresh], owner[fresh]
        if found.size == 0:
            return None
        _nodes, where = np.unique(found, return_index=True)
        frontier = found[where]
        depth[frontier] = level
        parent[frontier] = owner[where]
        met = frontier[depth[frontier ^ 1] >= 0]
        if met.size:
            meeting = np.concatenate([met, met ^ 1])
            lengths = np.concatenate([level + depth[met ^ 1]] * 2)
            node = int(meeting[lengths == lengths.min()].min())
            there = _walk_back(parent, start, node)
            mirror = _walk_back(parent, start, node ^ 1)[::-1][1:] ^ 1
            return np.concatenate([there, mirror])
    return None


def _walk_back(parent: npt.NDArray[np.integer], start: int, node: int) -> IntArray:
    walk = [node]
    while walk[-1] != start:
        walk.append(int(parent[walk[-1]]))
    return np.array(walk[::-1], dtype=np.int64)


def _bfs_path(graph: Rows, start: int, goal: int, levels: int = NEAR_LEVELS) -> IntArray:
    """A shortest path ``start ~> goal`` (both included): one search, walked back in numpy.

    Up to ``levels`` levels are searched level by level, stopping at ``goal``
    (:func:`near_path`); a longer path is found by SciPy's search of the whole graph,
    which gives the same path.
    """
    near = near_path(graph, start, goal, levels)
    if near is not None:
        return near
    from scipy.sparse.csgraph import breadth_first_order

    matrix = graph.matrix() if isinstance(graph, RowArrays) else graph
    _order, pred = breadth_first_order(matrix, start, directed=True, return_predecessors=True)
    return tree_path(pred, start, goal)


def contradiction_cycle(
    graph: ImplicationGraph, components: Components, var: int | None = None
) -> tuple[int, ...]:
    """A short closed walk ``x ~> -x ~> x`` of DIMACS literals in the implication graph.

    :func:`partition_cycle` of the graph's matrix and the components' labels.

    Parameters
    ----------
    graph, components:
        The implication graph and its strong components.
    var:
        The variable to go through; by default conflicting variables of the
        smallest component holding one are tried (:func:`partition_cycle`).

    Returns
    -------
    tuple of int
        :func:`partition_cycle`'s walk, from ``components.labels``.

    Raises
    ------
    TwoSatFormalError
        As :func:`partition_cycle` does.

    Examples
    --------
    >>> from twosat_formal.formula import Formula
    >>> f = Formula([[-1, 2], [-2, 3], [-3, -1], [1, 4], [-4, 1]])
    >>> g = implication_graph(f)
    >>> contradiction_cycle(g, strong_components(g))
    (1, 2, 3, -1, 4)
    """
    return partition_cycle(graph.matrix, components.labels, var)


def partition_cycle(graph: Rows, labels: IntArray, var: int | None = None) -> tuple[int, ...]:
    """A short closed walk ``x ~> -x ~> x`` of DIMACS literals, from a partition of the nodes.

    ``labels`` must give the nodes of each strong component holding some ``x`` and
    ``-x`` one label of their own; any other node may have any label that no such
    component has and that it shares with no node of its negation's label (SciPy's
    labels, or :func:`~twosat_formal.solve.offending.offending_partition`'s). The walk
    depends only on those components, so it is the same for either labelling.

    The walk joins two breadth-first shortest paths, ``x ~> -x`` and ``-x ~> x``,
    each found by one search of the component and walked back in numpy
    (:func:`tree_path`); in a component of more than :data:`LARGE_COMPONENT`
    literals each is searched from both ends at once (:func:`mirror_path`). In a
    small component up to :data:`CYCLE_CANDIDATES` variables are tried and the
    shortest walk is kept; in a large one fewer, so that the searches visit about
    :data:`CYCLE_SEARCH_BUDGET` nodes in all, and never fewer than one variable's two
    searches. Only a path of more than :data:`NEAR_LEVELS` steps needs SciPy, or of
    more than :data:`ARRAY_LEVELS` when ``graph`` is a :class:`RowArrays` (SciPy
    perhaps not imported yet).

    Parameters
    ----------
    graph:
        The implication graph's rows (its matrix, or :class:`RowArrays`).
    labels:
        A label per node, as above.
    var:
        The variable to go through; by default conflicting variables of the
        smallest component holding one are tried, as above.

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
    >>> from twosat_formal.formula import Formula
    >>> f = Formula([[-1, 2], [-2, 3], [-3, -1], [1, 4], [-4, 1]])
    >>> rows = RowArrays.of(f)
    >>> partition_cycle(rows, offending_partition(rows.indptr, rows.indices))
    (1, 2, 3, -1, 4)
    """
    conflicts = np.flatnonzero(labels[0::2] == labels[1::2]).astype(np.int64) + 1
    if var is not None:
        if not bool(np.any(conflicts == var)):
            raise TwoSatFormalError(f"variable {var} does not share a component with its negation")
        candidates = [int(var)]
        target = int(labels[2 * (var - 1)])
    else:
        if conflicts.size == 0:
            raise TwoSatFormalError("no variable shares a component with its negation")
        comp_of = labels[2 * (conflicts - 1)]
        sizes = np.bincount(labels)
        target = int(comp_of[np.argmin(sizes[comp_of])])
        size = int(sizes[target])
        tries = max(1, min(CYCLE_CANDIDATES, CYCLE_SEARCH_BUDGET // (2 * size)))
        candidates = conflicts[comp_of == target][:tries].tolist()
    nodes = np.flatnonzero(labels == target)
    # A shortest path between two nodes of one strong component stays inside it, and a
    # breadth-first search reaches the component's nodes only from its own nodes, so
    # searching the whole graph gives the same paths as searching the component alone:
    # a component of most of the graph is searched in place rather than copied out.
    whole = 2 * nodes.size > graph.shape[0]
    sub: Rows = graph if whole else _submatrix(graph, nodes)
    # without SciPy so far, longer paths too are searched level by level (same paths)
    levels = ARRAY_LEVELS if isinstance(graph, RowArrays) else NEAR_LEVELS
    best: IntArray | None = None
    for x in candidates:
        pos, neg = 2 * (x - 1), 2 * (x - 1) + 1
        if not whole:
            pos, neg = np.searchsorted(nodes, [pos, neg]).tolist()
        if nodes.size > LARGE_COMPONENT:  # met in the middle; SciPy's search if far
            there = mirror_path(sub, pos)
            back = mirror_path(sub, neg)
            there = _bfs_path(sub, pos, neg, levels) if there is None else there
            back = _bfs_path(sub, neg, pos, levels) if back is None else back
        else:
            there = _bfs_path(sub, pos, neg, levels)
            back = _bfs_path(sub, neg, pos, levels)
        walk = np.concatenate([there, back[1:-1]])
        if best is None or walk.size < best.size:
            best = walk
    assert best is not None
    return certificate_tuple(index_literal(best if whole else nodes[best]))


def _submatrix(graph: Rows, nodes: IntArray) -> RowArrays:
    """Rows and columns of the sorted ``nodes`` (:meth:`RowArrays.submatrix`), in numpy."""
    rows = graph if isinstance(graph, RowArrays) else RowArrays(*_arrays(graph))
    return rows.submatrix(nodes)


def _arrays(graph: Rows) -> tuple[IndexArray, IndexArray, tuple[int, int]]:
    return graph.indptr, graph.indices, (int(graph.shape[0]), int(graph.shape[1]))


@raises(NotTwoCNFError)
def solve_scc(formula: Formula) -> SolveResult:
    """Decide a 2-CNF with strong components; a model or a contradiction cycle.

    A graph in which every literal implies at most one literal is a union of cycles
    and paths; it is walked instead, without SciPy
    (:mod:`twosat_formal.solve.functional`; the same model or cycle). So is the
    contradiction of one with at most 1,024 literals that imply more (with at most 4,096
    edges beyond one per literal): the paths between those literals and their
    negations are walked, and the offending component's searches below
    (:func:`partition_cycle`) are simulated over those few nodes, each path taken
    whole (:mod:`twosat_formal.solve.bfs`; the same cycle). A formula of at least
    :data:`DENSE_RATIO` clauses per variable has its offending components looked for
    in numpy next (:func:`~twosat_formal.solve.offending.offending_partition`); when
    there is one, the contradiction cycle comes from them (:func:`partition_cycle`:
    the same cycle), without SciPy unless a path of it is longer than
    :data:`ARRAY_LEVELS` steps. A satisfiable formula with literals that imply two or
    more (its model follows SciPy's order of the components), a search that the
    simulation or the numpy search declines (out of budget), and a dense formula whose
    literal with the most edges is not in an offending component (the numpy search is
    hopeful: it stops after one or two breadth-first searches) go to SciPy.

    The result is not yet checked (``checked=False``); :func:`twosat_formal.solve.solve`
    checks it.

    Examples
    --------
    >>> solve_scc(Formula([])).status
    'SAT'
    >>> solve_scc(Formula([[1], [-1]])).cycle
    (1, -1)
    """
    walked = solve_functional(formula)  # cycles and paths (nearly): no SciPy
    if walked is not None:
        return walked
    arrays = implication_arrays(formula)
    if formula.num_clauses >= DENSE_RATIO * formula.num_vars:  # likely UNSAT: no SciPy
        labels = offending_partition(*arrays, hopeful=True)
        if labels is not None and bool(np.any(labels[0::2] == labels[1::2])):
            rows = RowArrays(*arrays, (2 * formula.num_vars, 2 * formula.num_vars))
            return SolveResult("UNSAT", cycle=partition_cycle(rows, labels), backend="scc")
    graph = implication_graph(formula, arrays)
    components = strong_components(graph)
    labels = components.labels
    if bool(np.any(labels[0::2] == labels[1::2])):
        return SolveResult("UNSAT", cycle=contradiction_cycle(graph, components), backend="scc")
    model = model_from_components(components)
    return SolveResult("SAT", model=certificate_tuple(model), backend="scc")
