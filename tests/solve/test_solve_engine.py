"""The one solver engine against references that share no code with it, on every shape.

The certificate rule of ``docs/certificates.md`` is written again here in plain Python
over the clauses (a recursive Tarjan for the model, a queue for the breadth-first
paths, the rule's choice of variable); networkx and SciPy give the strong components,
PySAT (MiniSat 2.2) the label. Formulas are drawn in the shapes the benchmarks and the
generators make: random, dense, chains, rings, rings with chords, functional graphs
(every literal implies at most one), equivalence chains, units, many small components,
each with its variables renamed and their signs flipped at random.
"""

from __future__ import annotations

import sys
from collections import deque

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22
from scipy.sparse.csgraph import connected_components

from twosat_formal.core.formula import Formula
from twosat_formal.solve import check_result, solve
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.scc import shortest_paths, strong_components

# -- the rule, written again -------------------------------------------------------------


def node(lit: int) -> int:
    return 2 * (abs(lit) - 1) + (1 if lit < 0 else 0)


def literal(n: int) -> int:
    return -(n // 2 + 1) if n % 2 else n // 2 + 1


def successor_lists(formula: Formula) -> list[list[int]]:
    """Each node's successors, ascending, once each, read from the clauses."""
    out: list[set[int]] = [set() for _ in range(2 * formula.num_vars)]
    for clause in formula.clauses:
        a, b = (clause[0], clause[0]) if len(clause) == 1 else clause
        out[node(-a)].add(node(b))
        out[node(-b)].add(node(a))
    return [sorted(s) for s in out]


def tarjan_order(succ: list[list[int]]) -> list[int]:
    """Each node's component, numbered in the order a recursive Tarjan completes them."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    label = [-1] * len(succ)
    done = [0]

    def visit(v: int) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif label[w] < 0:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            while True:
                u = stack.pop()
                label[u] = done[0]
                if u == v:
                    break
            done[0] += 1

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(succ) + 100))
    try:
        for v in range(len(succ)):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return label


def bfs_path(succ: list[list[int]], start: int, goal: int) -> list[int]:
    parent = {start: start}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in succ[v]:
            if w not in parent:
                parent[w] = v
                queue.append(w)
    walk = [goal]
    while walk[-1] != start:
        walk.append(parent[walk[-1]])
    return walk[::-1]


def rule_certificate(formula: Formula) -> tuple[str, tuple[object, ...]]:
    """The status and the certificate the documented rule gives."""
    succ = successor_lists(formula)
    label = tarjan_order(succ)
    n = formula.num_vars
    conflicts = [v for v in range(1, n + 1) if label[node(v)] == label[node(-v)]]
    if not conflicts:
        return "SAT", tuple(label[node(v)] < label[node(-v)] for v in range(1, n + 1))
    size = {c: label.count(c) for c in set(label)}
    smallest = min(size[label[node(v)]] for v in conflicts)
    first = min(v for v in conflicts if size[label[node(v)]] == smallest)
    comp = label[node(first)]
    tries = max(1, min(8, (1 << 20) // (2 * smallest)))
    best: list[int] | None = None
    for v in [v for v in conflicts if label[node(v)] == comp][:tries]:
        there = bfs_path(succ, node(v), node(-v))
        back = bfs_path(succ, node(-v), node(v))
        walk = there + back[1:-1]
        if best is None or len(walk) < len(best):
            best = walk
    assert best is not None
    return "UNSAT", tuple(literal(x) for x in best)


# -- shapes ------------------------------------------------------------------------------


def chain(n: int) -> list[list[int]]:
    return [[-i, i + 1] for i in range(1, n)]


def ring(n: int) -> list[list[int]]:
    return [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1]]


@st.composite
def shaped(draw: st.DrawFn, max_vars: int = 40) -> Formula:
    kind = draw(
        st.sampled_from(
            [
                "random",
                "dense",
                "chain",
                "ring",
                "ring+chords",
                "functional",
                "equivalences",
                "units",
                "components",
            ]
        )
    )
    n = draw(st.integers(1, max_vars))
    lit = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    pair = st.lists(lit, min_size=2, max_size=2)
    if kind == "random":
        pairs = draw(st.lists(pair, max_size=2 * n))
    elif kind == "dense":
        pairs = draw(st.lists(pair, min_size=3 * n, max_size=6 * n))
    elif kind == "chain":
        pairs = chain(n) + draw(st.lists(pair, max_size=2))
    elif kind == "ring":
        pairs = ring(n)
    elif kind == "ring+chords":
        pairs = ring(n) + draw(st.lists(pair, min_size=1, max_size=max(1, n // 3)))
    elif kind == "functional":  # each literal implies at most one literal (or none)
        targets = draw(st.lists(st.one_of(st.none(), lit), min_size=n, max_size=n))
        pairs = [[-(v + 1), t] for v, t in enumerate(targets) if t is not None]
    elif kind == "equivalences":  # x1 <-> x2 <-> ... with a few units and a twist
        pairs = [c for i in range(1, n) for c in ([-i, i + 1], [i, -(i + 1)])]
        pairs += draw(st.lists(st.lists(lit, min_size=1, max_size=1), max_size=3))
    elif kind == "units":
        pairs = draw(st.lists(st.lists(lit, min_size=1, max_size=1), max_size=n))
        pairs += draw(st.lists(pair, max_size=n))
    else:  # many small components: blocks of three variables, each random
        pairs = []
        for base in range(0, n - 2, 3):
            block = st.integers(base + 1, base + 3).flatmap(lambda v: st.sampled_from([v, -v]))
            pairs += draw(st.lists(st.lists(block, min_size=2, max_size=2), max_size=5))
    perm = draw(st.permutations(range(n)))
    flips = draw(st.lists(st.booleans(), min_size=n, max_size=n))

    def rename(x: int) -> int:
        v = perm[abs(x) - 1] + 1
        return -v if (x < 0) != flips[abs(x) - 1] else v

    return Formula([[rename(x) for x in clause] for clause in pairs], num_vars=n)


def minisat_label(formula: Formula) -> str:
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        return "SAT" if solver.solve() else "UNSAT"


# -- properties --------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(shaped())
def test_the_certificate_is_the_documented_rule(formula: Formula) -> None:
    result = solve(formula)
    assert result.checked and result.status == minisat_label(formula)
    check_result(formula, result)
    status, certificate = rule_certificate(formula)
    assert result.status == status
    assert (result.model if status == "SAT" else result.cycle) == certificate


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(shaped())
def test_the_components_are_networkx_and_scipys_in_reverse_topological_order(
    formula: Formula,
) -> None:
    graph = implication_graph(formula)
    comps = strong_components(graph)
    labels = comps.labels.tolist()
    src, dst = graph.edge_arrays()
    reference = nx.DiGraph()
    reference.add_nodes_from(range(graph.num_nodes))
    reference.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    expected = {frozenset(c) for c in nx.strongly_connected_components(reference)}
    groups: dict[int, set[int]] = {}
    for v, label in enumerate(labels):
        groups.setdefault(label, set()).add(v)
    assert {frozenset(g) for g in groups.values()} == expected
    assert sorted(groups) == list(range(comps.count))
    size = graph.num_nodes
    matrix = sp.csr_array((np.ones(graph.num_edges), graph.indices, graph.indptr), (size, size))
    count, scipy_labels = connected_components(matrix, directed=True, connection="strong")
    assert count == comps.count
    assert len(set(zip(labels, scipy_labels.tolist(), strict=True))) == count
    assert all(labels[u] >= labels[v] for u, v in zip(src.tolist(), dst.tolist(), strict=True))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(shaped(), st.data())
def test_the_path_search_inside_a_component_is_the_whole_graphs(
    formula: Formula, data: st.DataObject
) -> None:
    graph = implication_graph(formula)
    if graph.num_nodes == 0:
        return
    labels = strong_components(graph).labels
    start = data.draw(st.integers(0, graph.num_nodes - 1))
    goal = data.draw(st.sampled_from(np.flatnonzero(labels == labels[start]).tolist()))
    (inside,) = shortest_paths(graph, [(start, goal)], labels)
    (whole,) = shortest_paths(graph, [(start, goal)])
    assert inside is not None and whole is not None
    assert inside.tolist() == whole.tolist() == bfs_path(successor_lists(formula), start, goal)


def test_a_large_ring_with_chords_follows_the_rule() -> None:
    rng = np.random.default_rng(7)
    n = 3000
    chords = rng.integers(1, n + 1, size=(40, 2)) * rng.choice([-1, 1], size=(40, 2))
    formula = Formula(ring(n) + chords.tolist(), num_vars=n)
    result = solve(formula)
    status, certificate = rule_certificate(formula)
    assert result.status == status == minisat_label(formula)
    assert (result.model if status == "SAT" else result.cycle) == certificate


def test_the_path_search_refuses_a_node_outside_the_graph() -> None:
    graph = implication_graph(Formula([[1, 2]]))
    with pytest.raises(IndexError, match="the graph has 4 nodes"):
        shortest_paths(graph, [(-1, 2)])
    with pytest.raises(IndexError, match="the graph has 4 nodes"):
        shortest_paths(graph, [(0, 2), (0, 4)])
    with pytest.raises(ValueError, match="2 labels for 4 nodes"):
        shortest_paths(graph, [(0, 2)], np.zeros(2, dtype=np.int64))


@settings(max_examples=100, deadline=None)
@given(shaped())
def test_the_cycle_does_not_depend_on_how_many_searches_run_together(formula: Formula) -> None:
    from twosat_formal.solve import scc

    graph = implication_graph(formula)
    components = strong_components(graph)
    if not bool(np.any(components.labels[0::2] == components.labels[1::2])):
        return
    together = scc.contradiction_cycle(graph, components)
    entries = scc.SEARCH_ENTRIES
    scc.SEARCH_ENTRIES = 1  # one candidate's two searches at a time
    try:
        assert scc.contradiction_cycle(graph, components) == together
    finally:
        scc.SEARCH_ENTRIES = entries


def test_the_graph_builder_refuses_a_node_outside_the_graph() -> None:
    from twosat_formal.solve import _kernel

    with pytest.raises(IndexError, match="clause 1: a node outside the 4 of the graph"):
        _kernel.implication_csr(np.array([[0, 1], [2, 4]], dtype=np.int64), 4)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(shaped())
def test_the_graph_builder_gives_each_row_sorted_and_without_repeats_in_both_widths(
    formula: Formula,
) -> None:
    """Row ``~a`` holds ``b`` and row ``~b`` holds ``a`` for each clause ``(a | b)``."""
    from twosat_formal.solve import _kernel

    def node(lit: int) -> int:
        return 2 * (abs(lit) - 1) + (lit < 0)

    rows: list[set[int]] = [set() for _ in range(2 * formula.num_vars)]
    for clause in formula.clauses:
        a, b = (clause[0], clause[0]) if len(clause) == 1 else clause
        rows[node(-a)].add(node(b))
        rows[node(-b)].add(node(a))
    nodes = np.array([[node(c[0]), node(c[-1])] for c in formula.clauses], dtype=np.int64)
    for wide, dtype in ((False, np.int32), (True, np.int64)):
        indptr, columns = _kernel.implication_csr(nodes.reshape(-1, 2), 2 * formula.num_vars, wide)
        assert indptr.dtype == columns.dtype == dtype
        got = [columns[indptr[i] : indptr[i + 1]].tolist() for i in range(len(rows))]
        assert got == [sorted(row) for row in rows]
