"""Structured shapes (rings, chains) and the contradiction cycle, against references.

The references share no code with the solver: breadth-first distances are computed
here from the clauses in plain Python, strong components by networkx, labels by PySAT
(MiniSat22) and Z3, and certificates by the independent checkers of
:mod:`twosat_formal.solve.check`.
"""

from __future__ import annotations

from collections import deque

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22
from scipy.sparse.csgraph import breadth_first_order

from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError
from twosat_formal.solve import (
    SolveResult,
    _kernel,
    check_cycle,
    check_model,
    check_result,
    solve,
    verify,
)
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.scc import CYCLE_CANDIDATES, contradiction_cycle, strong_components

# -- references ------------------------------------------------------------------------


def successors(formula: Formula) -> dict[int, list[int]]:
    """Implication edges read straight from the clauses: ``(a | b)`` gives -a->b, -b->a."""
    out: dict[int, list[int]] = {}
    for clause in formula.clauses:
        a, b = (clause[0], clause[0]) if len(clause) == 1 else clause
        out.setdefault(-a, []).append(b)
        out.setdefault(-b, []).append(a)
    return out


def distance(edges: dict[int, list[int]], start: int, goal: int) -> int | None:
    """Steps of a shortest walk ``start ~> goal`` of at least one step (plain BFS)."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in edges.get(node, ()):
            if nxt == goal:
                return seen[node] + 1
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return None


def labels_of_peers(formula: Formula) -> set[str]:
    clauses = [list(c) for c in formula.clauses]
    with Minisat22(bootstrap_with=clauses) as solver:
        minisat = "SAT" if solver.solve() else "UNSAT"
    return {minisat, solve(formula, "z3").status, solve(formula, "pysat").status}


# -- shapes ----------------------------------------------------------------------------


def relabel(pairs: list[list[int]], n: int, perm: list[int], flips: list[bool]) -> Formula:
    """Rename variable ``v`` to ``perm[v-1]+1`` and flip the signs where ``flips`` says."""

    def lit(x: int) -> int:
        v = perm[abs(x) - 1] + 1
        return (-v if x > 0 else v) if flips[abs(x) - 1] else (v if x > 0 else -v)

    return Formula([[lit(x) for x in clause] for clause in pairs], num_vars=n)


def ring_pairs(n: int) -> list[list[int]]:
    """``x1 <- x2 <- ... <- xn`` with ``xn`` and ``~x1``: the only cycle has 2n literals."""
    return [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1]]


def chain_pairs(n: int) -> list[list[int]]:
    """The implication chain ``x1 -> x2 -> ... -> xn`` (satisfiable)."""
    return [[-i, i + 1] for i in range(1, n)]


@st.composite
def shapes(draw: st.DrawFn) -> tuple[str, int, Formula]:
    kind = draw(st.sampled_from(["ring", "chain", "ring+chords", "chain+chords"]))
    n = draw(st.integers(2, 60))
    pairs = ring_pairs(n) if kind.startswith("ring") else chain_pairs(n)
    if kind.endswith("chords"):
        literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
        pairs += draw(st.lists(st.lists(literal, min_size=2, max_size=2), max_size=n // 2))
    perm = draw(st.permutations(range(n)))
    flips = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return kind, n, relabel(pairs, n, list(perm), flips)


# -- properties ------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=150)
@given(shapes())
def test_shapes_agree_with_pysat_and_z3_and_certify(shape: tuple[str, int, Formula]) -> None:
    kind, n, formula = shape
    result = solve(formula)
    assert result.checked
    assert labels_of_peers(formula) == {result.status}
    if kind == "ring":
        assert result.status == "UNSAT"
        assert result.cycle is not None and len(result.cycle) == 2 * n  # the whole ring
    if kind == "chain":
        assert result.status == "SAT"
    assert (result.model if result.is_sat else result.cycle) is not None
    check_result(formula, result)


@settings(max_examples=150)
@given(shapes())
def test_the_cycle_is_two_shortest_paths_and_the_best_candidate(
    shape: tuple[str, int, Formula],
) -> None:
    _kind, _n, formula = shape
    graph = implication_graph(formula)
    components = strong_components(graph)
    if not bool(np.any(components.labels[0::2] == components.labels[1::2])):
        return
    cycle = contradiction_cycle(graph, components)
    edges = successors(formula)
    x = cycle[0]
    there, back = distance(edges, x, -x), distance(edges, -x, x)
    assert there is not None and back is not None
    assert cycle[there] == -x
    assert len(cycle) == there + back
    # The smallest component holding a conflict, by networkx; its first candidates.
    nxg = nx.DiGraph([(a, b) for a, targets in edges.items() for b in targets])
    offending = [c for c in nx.strongly_connected_components(nxg) if any(-lit in c for lit in c)]
    smallest = min(len(c) for c in offending)
    assert any(x in c and len(c) == smallest for c in offending)
    # Ties in size: the solver picks the component of the lowest conflicting variable.
    lowest = min(abs(lit) for c in offending if len(c) == smallest for lit in c if -lit in c)
    component = next(c for c in offending if lowest in c)
    tried = sorted({abs(lit) for lit in component if -lit in component})[:CYCLE_CANDIDATES]
    lengths = [distance(edges, v, -v) + distance(edges, -v, v) for v in tried]  # type: ignore[operator]
    assert len(cycle) == min(lengths)


@pytest.mark.parametrize("n", [1_000, 20_000])
def test_a_long_ring_gives_the_whole_ring(n: int) -> None:
    formula = Formula.from_pairs(
        np.array([[i, -(i + 1)] for i in range(1, n)] + [[n, n], [-1, -1]]), num_vars=n
    )
    result = solve(formula)
    assert result.status == "UNSAT" and result.cycle is not None
    assert len(result.cycle) == 2 * n
    check_cycle(formula, result.cycle)


def test_a_long_chain_is_sat_with_a_checked_model() -> None:
    n = 20_000
    formula = Formula.from_pairs(np.array(chain_pairs(n)), num_vars=n)
    result = solve(formula)
    assert result.status == "SAT" and result.model is not None
    check_model(formula, result.model)


def test_a_large_component_tries_one_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from twosat_formal.solve import scc

    # x1, x2, x3 and x4 all conflict; only x3 has the two-step walk x3 -> ~x3 -> x3.
    formula = Formula([[-1, 2], [-2, 3], [-3, -1], [1, 4], [-4, 1], [3, 3], [-3, -3]])
    graph = implication_graph(formula)
    components = strong_components(graph)
    every = contradiction_cycle(graph, components)
    monkeypatch.setattr(scc, "CYCLE_SEARCH_BUDGET", 1)
    one = contradiction_cycle(graph, components)
    check_cycle(formula, every)
    check_cycle(formula, one)
    assert one[0] == 1 and len(one) > len(every)


@st.composite
def digraphs(draw: st.DrawFn) -> tuple[sp.csr_array, int, int]:
    """A random directed graph in canonical CSR form and two distinct nodes."""
    size = draw(st.integers(2, 40))
    node = st.integers(0, size - 1)
    edges = draw(st.lists(st.tuples(node, node), max_size=4 * size))
    src = [a for a, _ in edges]
    dst = [b for _, b in edges]
    graph = sp.coo_array((np.ones(len(edges)), (src, dst)), shape=(size, size)).tocsr()
    graph.sum_duplicates()
    start, goal = draw(st.lists(node, min_size=2, max_size=2, unique=True))
    return graph, start, goal


def scipy_path(graph: sp.csr_array, start: int, goal: int) -> list[int] | None:
    """The path to ``goal`` in SciPy's breadth-first tree from ``start``, or None."""
    if start == goal:
        return [start]
    _order, pred = breadth_first_order(graph, start, directed=True, return_predecessors=True)
    if pred[goal] < 0:
        return None
    walk = [goal]
    while walk[-1] != start:
        walk.append(int(pred[walk[-1]]))
    return walk[::-1]


@settings(max_examples=300)
@given(digraphs(), st.data())
def test_the_kernels_breadth_first_paths_are_scipys(
    case: tuple[sp.csr_array, int, int], data: st.DataObject
) -> None:
    """One search, and several side by side (each the path it finds alone), int32 and int64."""
    graph, start, goal = case
    node = st.integers(0, graph.shape[0] - 1)
    ends = [(start, goal), *data.draw(st.lists(st.tuples(node, node), max_size=5))]
    starts = np.array([a for a, _ in ends], dtype=np.int64)
    goals = np.array([b for _, b in ends], dtype=np.int64)
    expected = [scipy_path(graph, a, b) for a, b in ends]
    nowhere = np.zeros(1, dtype=np.int64)
    for dtype in (np.int32, np.int64):
        indptr, indices = graph.indptr.astype(dtype), graph.indices.astype(dtype)
        found = _kernel.bfs_paths(indptr, indices, starts, goals, nowhere, -1)
        assert [None if p is None else p.tolist() for p in found] == expected
        alone = _kernel.bfs_paths(indptr, indices, starts[:1], goals[:1], nowhere, -1)
        assert [None if p is None else p.tolist() for p in alone] == expected[:1]


@pytest.mark.parametrize("n", [10, 5_000])
def test_a_long_wrong_cycle_is_refused_at_its_first_wrong_step(n: int) -> None:
    ring = [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1]]
    formula = Formula(ring, num_vars=n)
    cycle = solve(formula).cycle
    assert cycle is not None and len(cycle) == 2 * n  # longer than the clause list
    verify(formula, SolveResult("UNSAT", cycle=cycle))
    wrong = list(cycle)
    wrong[n], wrong[n + 1] = wrong[n + 1], wrong[n]
    with pytest.raises(CertificateError, match=f"cycle step {n} "):
        verify(formula, SolveResult("UNSAT", cycle=tuple(wrong)))
    short = (cycle[0], cycle[1], cycle[0])  # a short walk among many clauses
    padded = Formula(ring + [[i, i + 1] for i in range(1, n)], num_vars=n)
    with pytest.raises(CertificateError, match="cycle"):
        verify(padded, SolveResult("UNSAT", cycle=short))


@st.composite
def two_cnfs(draw: st.DrawFn) -> Formula:
    n = draw(st.integers(1, 25))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    m = draw(st.integers(1, 3 * n))
    return Formula(
        draw(st.lists(st.lists(literal, min_size=1, max_size=2), min_size=m, max_size=m))
    )
