# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The compiled loops of the solver: strong components and breadth-first paths.

Both read a graph as its CSR arrays: the successors of node ``v`` are
``indices[indptr[v]:indptr[v + 1]]``, in that order (int32 or int64, one type for
both arrays). Everything the certificate depends on is fixed here by the order of
those arrays; see ``docs/certificates.md``.
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int32_t, int64_t

cnp.import_array()

ctypedef fused index_t:
    int32_t
    int64_t


def strong_components(indptr, indices):
    """Strong components by Tarjan's depth-first search (Pearce's one-array form).

    Roots are taken in ascending node order and each node's successors in CSR order
    (a recursive depth-first search, run with an explicit path); component ``c`` is
    the ``c``-th to be completed. A component is completed only after every
    component it reaches, so every edge between two components goes from a higher
    label to a lower one (the labels are a reverse topological order).

    One number per node (``rindex``) is both its depth-first index while its
    component is open and the component's number once closed, counted down from
    ``n - 1`` so that a closed node never lowers an open one's link: an edge costs
    one look-up of its target (Pearce, "A space-efficient algorithm for finding
    strongly connected components", 2016).

    Returns
    -------
    (count, labels):
        The number of components and the component of each node (int64).
    """
    if indptr.dtype == np.int32 and indices.dtype == np.int32:
        return _strong_components[int32_t](indptr, indices)
    return _strong_components[int64_t](
        np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int64)
    )


cdef object _strong_components(const index_t[::1] indptr, const index_t[::1] indices):
    """:func:`strong_components` on one index type: a specialisation chosen when the
    kernel is compiled, so that no call pays for a fused function's run-time dispatch."""
    cdef Py_ssize_t n = indptr.shape[0] - 1
    dtype = np.int32 if index_t is int32_t else np.int64
    rindex_arr = np.zeros(n, dtype=dtype)  # 0: not yet reached
    stack_arr = np.empty(n, dtype=dtype)  # the reached nodes of open components
    # The depth-first path (the call stack): each node on it with its next edge, the
    # end of its row and whether no edge of its has reached back yet (kept with the
    # path, not per node: one look-up of rindex is all a reached node costs).
    path_arr = np.empty(n, dtype=dtype)
    edge_arr = np.empty(n, dtype=dtype)
    end_arr = np.empty(n, dtype=dtype)
    root_arr = np.empty(n, dtype=np.uint8)
    cdef index_t[::1] rindex = rindex_arr
    cdef index_t[::1] stack = stack_arr
    cdef index_t[::1] path = path_arr
    cdef index_t[::1] edge = edge_arr
    cdef index_t[::1] end = end_arr
    cdef unsigned char[::1] root = root_arr
    cdef index_t index = 1, closed = n - 1, top = 0, depth = 0
    cdef index_t start, v, w, e, d
    with nogil:
        for start in range(n):
            if rindex[start] != 0:
                continue
            rindex[start] = index
            index += 1
            path[0] = start
            edge[0] = indptr[start]
            end[0] = indptr[start + 1]
            root[0] = 1
            depth = 1
            while depth > 0:
                d = depth - 1
                v = path[d]
                e = edge[d]
                if e < end[d]:
                    edge[d] = e + 1
                    w = indices[e]
                    if rindex[w] == 0:  # descend; the link is taken on the way back
                        rindex[w] = index
                        index += 1
                        path[depth] = w
                        edge[depth] = indptr[w]
                        end[depth] = indptr[w + 1]
                        root[depth] = 1
                        depth += 1
                    elif rindex[w] < rindex[v]:
                        rindex[v] = rindex[w]
                        root[d] = 0
                    continue
                depth = d
                if root[d]:
                    index -= 1
                    while top > 0 and rindex[v] <= rindex[stack[top - 1]]:
                        top -= 1
                        rindex[stack[top]] = closed
                        index -= 1
                    rindex[v] = closed
                    closed -= 1
                else:
                    stack[top] = v
                    top += 1
                if d > 0:
                    w = path[d - 1]
                    if rindex[v] < rindex[w]:
                        rindex[w] = rindex[v]
                        root[d - 1] = 0
    labels = np.subtract(n - 1, rindex_arr, dtype=np.int64)  # one pass, no int64 copy first
    return int(n - 1 - closed), labels


cdef inline bint _reach(
    index_t w,
    index_t v,
    index_t* parent,
    index_t* queue,
    Py_ssize_t* tail,
    int64_t goal,
    const int64_t* labels,
    int64_t within,
) noexcept nogil:
    """Reach ``w`` from ``v`` if it is new (and inside): True when ``w`` is the goal."""
    if parent[w] >= 0 or (within >= 0 and labels[w] != within):
        return False
    parent[w] = v
    if w == goal:
        return True
    queue[tail[0]] = w
    tail[0] += 1
    return False


cdef inline bint _advance(
    const index_t* indptr,
    const index_t* indices,
    const index_t* first,
    index_t* parent,
    index_t* queue,
    Py_ssize_t* head,
    Py_ssize_t* tail,
    int64_t goal,
    const int64_t* labels,
    int64_t within,
) noexcept nogil:
    """Take the next node off one search's queue and reach its successors.

    True when the search has reached ``goal``; a search whose queue is empty is over.
    The node's first successor is read from ``first``, whose address depends on the
    node alone, so that the processor fetches it beside the row's bounds (along a
    path of single successors, one memory look-up a step instead of two in a row).
    """
    cdef index_t v = queue[head[0]], w = first[v]
    cdef Py_ssize_t e
    head[0] += 1
    if w < 0:
        return False
    if _reach(w, v, parent, queue, tail, goal, labels, within):
        return True
    for e in range(indptr[v] + 1, indptr[v + 1]):
        if _reach(indices[e], v, parent, queue, tail, goal, labels, within):
            return True
    return False


def bfs_paths(indptr, indices, starts, goals, labels, int64_t within):
    """The breadth-first path ``starts[k] ~> goals[k]`` of each ``k``, both ends included.

    Each search is first-in first-out from its start, takes each node's successors in
    CSR order, keeps for each node the first node that reached it, and stops when it
    reaches its goal (None if it never does; ``start == goal`` gives the one-node
    path). The searches take turns one node at a time, so that a processor overlaps
    their memory look-ups (a long path is a chain of dependent look-ups); each finds
    the path it would find alone. With ``within >= 0`` only nodes whose label is
    ``within`` are entered (a strong component holding both ends of every search:
    the same paths, searched alone).
    """
    if indptr.dtype == np.int32 and indices.dtype == np.int32:
        return _bfs_paths[int32_t](indptr, indices, starts, goals, labels, within)
    return _bfs_paths[int64_t](
        np.asarray(indptr, dtype=np.int64),
        np.asarray(indices, dtype=np.int64),
        starts,
        goals,
        labels,
        within,
    )


cdef object _bfs_paths(
    const index_t[::1] indptr,
    const index_t[::1] indices,
    const int64_t[::1] starts,
    const int64_t[::1] goals,
    const int64_t[::1] labels,
    int64_t within,
):
    """:func:`bfs_paths` on one index type (see :func:`_strong_components`)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k, count = starts.shape[0], left
    if goals.shape[0] != count:
        raise ValueError(f"{count} starts and {goals.shape[0]} goals")
    if within >= 0 and labels.shape[0] < n:
        raise ValueError(f"{labels.shape[0]} labels for {n} nodes")
    for k in range(count):
        if not (0 <= starts[k] < n and 0 <= goals[k] < n):
            raise IndexError(f"nodes {starts[k]} and {goals[k]}: the graph has {n} nodes")
    dtype = np.int32 if index_t is int32_t else np.int64
    parent_arr = np.full((count, n), -1, dtype=dtype)
    queue_arr = np.empty((count, n), dtype=dtype)
    heads_arr = np.zeros(count, dtype=np.intp)
    tails_arr = np.ones(count, dtype=np.intp)
    state_arr = np.zeros(count, dtype=np.uint8)  # 0 searching, 1 found, 2 not reachable
    cdef index_t[:, ::1] parent = parent_arr
    cdef index_t[:, ::1] queue = queue_arr
    # raw pointers for the inner loop (a node's turn is a call: no memoryview copies)
    cdef const index_t* ip = &indptr[0]
    cdef const index_t* ix = &indices[0] if indices.shape[0] > 0 else NULL
    cdef const int64_t* lab = &labels[0] if labels.shape[0] > 0 else NULL
    first_arr = np.empty(max(n, 1), dtype=dtype)  # each node's first successor, or -1
    cdef index_t[::1] first = first_arr
    cdef Py_ssize_t v
    for v in range(n):
        first[v] = indices[indptr[v]] if indptr[v] < indptr[v + 1] else -1
    cdef Py_ssize_t[::1] heads = heads_arr
    cdef Py_ssize_t[::1] tails = tails_arr
    cdef unsigned char[::1] state = state_arr
    left = count
    for k in range(count):
        parent[k, starts[k]] = starts[k]
        queue[k, 0] = starts[k]
        if starts[k] == goals[k]:
            state[k] = 1
            left -= 1
    with nogil:
        while left > 0:
            for k in range(count):
                if state[k] != 0:
                    continue
                if heads[k] == tails[k]:
                    state[k] = 2
                    left -= 1
                elif _advance(
                    ip, ix, &first[0], &parent[k, 0], &queue[k, 0], &heads[k], &tails[k],
                    goals[k], lab, within,
                ):
                    state[k] = 1
                    left -= 1
    paths = []
    for k in range(count):
        paths.append(_walk_back(parent[k], starts[k], goals[k]) if state[k] == 1 else None)
    return paths


cdef object _walk_back(index_t[::1] parent, int64_t start, int64_t goal):
    """The path ``start ~> goal`` in a tree of parents."""
    cdef Py_ssize_t length = 1, e
    cdef int64_t v = goal
    while v != start:
        v = parent[v]
        length += 1
    path_arr = np.empty(length, dtype=np.int64)
    cdef int64_t[::1] out = path_arr
    v = goal
    for e in range(length - 1, -1, -1):
        out[e] = v
        v = parent[v]
    return path_arr


def implication_csr(const int64_t[:, ::1] nodes, Py_ssize_t num_nodes, bint wide=False):
    """The implication graph's canonical CSR arrays from the node pairs of its clauses.

    Row ``nodes[k, 0] ^ 1`` gets ``nodes[k, 1]`` and row ``nodes[k, 1] ^ 1`` gets
    ``nodes[k, 0]``; each row comes out sorted and without repeats. Two stable counting
    sorts, by target and then by source (a two-digit radix sort), so linear time.

    Returns
    -------
    (indptr, columns):
        int32 arrays when every node and edge number fits one (the type the strong
        components and the searches then run on), else (or if ``wide``) int64.
    """
    cdef Py_ssize_t m = nodes.shape[0], k
    for k in range(m):
        if not (0 <= nodes[k, 0] < num_nodes and 0 <= nodes[k, 1] < num_nodes):
            raise IndexError(f"clause {k}: a node outside the {num_nodes} of the graph")
    if not wide and max(num_nodes, 2 * m) < 2**31 - 1:
        return _implication_csr[int32_t](nodes, num_nodes, np.int32)
    return _implication_csr[int64_t](nodes, num_nodes, np.int64)


cdef object _implication_csr(const int64_t[:, ::1] nodes, index_t num_nodes, dtype):
    """:func:`implication_csr` in one index type, for its temporary and returned arrays."""
    cdef Py_ssize_t m = nodes.shape[0], total = 2 * nodes.shape[0], k, i, row
    cdef index_t a, b, lo, hi, last, kept
    count_arr = np.zeros(num_nodes + 1, dtype=dtype)
    src_arr = np.empty(total, dtype=dtype)  # the edges, ordered by target
    dst_arr = np.empty(total, dtype=dtype)
    columns_arr = np.empty(total, dtype=dtype)
    indptr_arr = np.zeros(num_nodes + 1, dtype=dtype)
    cdef index_t[::1] count = count_arr
    cdef index_t[::1] src = src_arr
    cdef index_t[::1] dst = dst_arr
    cdef index_t[::1] columns = columns_arr
    cdef index_t[::1] indptr = indptr_arr
    with nogil:
        for k in range(m):  # by target
            count[nodes[k, 1] + 1] += 1
            count[nodes[k, 0] + 1] += 1
        for i in range(num_nodes):
            count[i + 1] += count[i]
        for k in range(m):
            a = <index_t>nodes[k, 0]
            b = <index_t>nodes[k, 1]
            src[count[b]] = a ^ 1
            dst[count[b]] = b
            count[b] += 1
            src[count[a]] = b ^ 1
            dst[count[a]] = a
            count[a] += 1
        for i in range(total):  # then by source, stable: each row sorted by target
            indptr[src[i] + 1] += 1
        for i in range(num_nodes):
            indptr[i + 1] += indptr[i]
        for i in range(num_nodes + 1):
            count[i] = indptr[i]
        for i in range(total):
            columns[count[src[i]]] = dst[i]
            count[src[i]] += 1
        kept = 0  # drop repeats within each row, in place
        for row in range(num_nodes):
            lo = indptr[row]
            hi = indptr[row + 1]
            indptr[row] = kept
            last = -1
            for i in range(lo, hi):
                if columns[i] != last:
                    last = columns[i]
                    columns[kept] = last
                    kept += 1
        indptr[num_nodes] = kept
    return indptr_arr, columns_arr[:kept]
