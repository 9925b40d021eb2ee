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


def strong_components(const index_t[::1] indptr, const index_t[::1] indices):
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
    cdef Py_ssize_t n = indptr.shape[0] - 1
    dtype = np.int32 if index_t is int32_t else np.int64
    rindex_arr = np.zeros(n, dtype=dtype)  # 0: not yet reached
    next_arr = np.empty(n, dtype=dtype)  # the next edge of each node on the path
    stack_arr = np.empty(n, dtype=dtype)  # the reached nodes of open components
    path_arr = np.empty(n, dtype=dtype)  # the depth-first path (the call stack)
    root_arr = np.zeros(n, dtype=np.uint8)  # no edge of the node's has reached back yet
    cdef index_t[::1] rindex = rindex_arr
    cdef index_t[::1] nxt = next_arr
    cdef index_t[::1] stack = stack_arr
    cdef index_t[::1] path = path_arr
    cdef unsigned char[::1] root = root_arr
    cdef index_t index = 1, closed = n - 1, top = 0, depth = 0
    cdef index_t start, v, w, e
    with nogil:
        for start in range(n):
            if rindex[start] != 0:
                continue
            rindex[start] = index
            index += 1
            root[start] = 1
            nxt[start] = indptr[start]
            path[0] = start
            depth = 1
            while depth > 0:
                v = path[depth - 1]
                e = nxt[v]
                if e < indptr[v + 1]:
                    nxt[v] = e + 1
                    w = indices[e]
                    if rindex[w] == 0:  # descend; the link is taken on the way back
                        rindex[w] = index
                        index += 1
                        root[w] = 1
                        nxt[w] = indptr[w]
                        path[depth] = w
                        depth += 1
                    elif rindex[w] < rindex[v]:
                        rindex[v] = rindex[w]
                        root[v] = 0
                    continue
                depth -= 1
                if root[v]:
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
                if depth > 0:
                    w = path[depth - 1]
                    if rindex[v] < rindex[w]:
                        rindex[w] = rindex[v]
                        root[w] = 0
    labels = (n - 1) - rindex_arr.astype(np.int64)
    return int(n - 1 - closed), labels


def bfs_path(
    const index_t[::1] indptr,
    const index_t[::1] indices,
    Py_ssize_t start,
    Py_ssize_t goal,
    const int64_t[::1] labels,
    int64_t within,
):
    """The breadth-first path ``start ~> goal``, both included, or None.

    A first-in first-out search from ``start`` that takes each node's successors in
    CSR order, keeps for each node the first node that reached it, and stops when it
    reaches ``goal``. With ``within >= 0`` only nodes whose label is ``within`` are
    entered (a strong component holding both ends: the same path, searched alone).
    ``start == goal`` gives the one-node path.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    parent_arr = np.full(n, -1, dtype=np.int64)
    queue_arr = np.empty(max(n, 1), dtype=np.int64)
    cdef int64_t[::1] parent = parent_arr
    cdef int64_t[::1] queue = queue_arr
    cdef Py_ssize_t head = 0, tail = 0, e, length = 1
    cdef int64_t v, w
    cdef bint found = start == goal
    if not (0 <= start < n and 0 <= goal < n):
        raise IndexError(f"nodes {start} and {goal}: the graph has {n} nodes")
    if within >= 0 and labels.shape[0] < n:
        raise ValueError(f"{labels.shape[0]} labels for {n} nodes")
    parent[start] = start
    queue[tail] = start
    tail += 1
    with nogil:
        while head < tail and not found:
            v = queue[head]
            head += 1
            for e in range(indptr[v], indptr[v + 1]):
                w = indices[e]
                if parent[w] >= 0 or (within >= 0 and labels[w] != within):
                    continue
                parent[w] = v
                if w == goal:
                    found = True
                    break
                queue[tail] = w
                tail += 1
    if not found:
        return None
    v = goal
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
