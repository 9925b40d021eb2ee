"""The certified 2-SAT solver: backends agree, certificates hold, edge cases behave.

References are independent of the code under test: brute force over all assignments,
PySAT (MiniSat22 here, not the backend's CaDiCaL) and networkx strong components.
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from tests.support.brute import brute_sat
from twosat_formal.core.formula import Formula
from twosat_formal.errors import (
    CertificateError,
    ConfigError,
    NotTwoCNFError,
    SolverDisagreementError,
    UnknownNameError,
)
from twosat_formal.solve import (
    BACKENDS,
    SolveResult,
    check_certificate_json,
    check_cycle,
    check_result,
    decide,
    solve,
    solve_agreed,
    verify,
)
from twosat_formal.solve import scc as scc_module
from twosat_formal.solve.backends import DECIDE_PYSAT_SOLVER, PYSAT_SOLVER
from twosat_formal.solve.graph import implication_graph, index_literal, literal_index
from twosat_formal.solve.scc import contradiction_cycle, strong_components


def random_2cnf(rng: random.Random, n: int, m: int, unit_share: float = 0.1) -> Formula:
    clauses = []
    for _ in range(m):
        width = 1 if rng.random() < unit_share else 2
        clauses.append([rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(width)])
    return Formula(clauses, num_vars=n)


def minisat_label(formula: Formula) -> str:
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        return "SAT" if solver.solve() else "UNSAT"


def brute_force_sat(formula: Formula) -> bool:
    return brute_sat(formula.clauses, formula.num_vars)


@st.composite
def two_cnfs(draw: st.DrawFn, max_vars: int = 10) -> Formula:
    """Random 2-CNFs (units, duplicates and tautologies included), ratio 0.5 to 2.0."""
    n = draw(st.integers(1, max_vars))
    ratio = draw(st.sampled_from([0.5, 0.75, 1.0, 1.25, 1.5, 2.0]))
    m = max(1, round(ratio * n))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clause = st.lists(literal, min_size=1, max_size=2)
    clauses = draw(st.lists(clause, min_size=m, max_size=m))
    return Formula(clauses, num_vars=n)


# -- agreement with PySAT and Z3, every certificate checked -------------------------------


@pytest.mark.slow
@settings(max_examples=150)
@given(two_cnfs())
def test_backends_agree_and_certify(formula: Formula) -> None:
    results = {name: solve(formula, name) for name in ("scc", "pysat", "z3")}
    labels = {r.status for r in results.values()}
    assert labels == {minisat_label(formula)}
    for name, result in results.items():
        assert result.backend == name and result.checked and not result.general_cnf
        check_certificate_json(formula, result.to_json(formula))
        if result.is_sat:
            assert result.model is not None and len(result.model) == formula.num_vars
            assert formula.evaluate(list(result.model))
        else:
            assert result.cycle is not None
            check_cycle(formula, result.cycle)


@st.composite
def any_cnfs(draw: st.DrawFn) -> Formula:
    """Random CNFs of clause widths 0 to 3: 2-CNFs, general CNFs, empty clauses."""
    n = draw(st.integers(1, 8))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(literal, max_size=3), max_size=3 * n))
    return Formula(clauses, num_vars=n)


@pytest.mark.slow
@settings(max_examples=200)
@given(any_cnfs())
def test_decide_gives_the_label_of_solve(formula: Formula) -> None:
    """``decide`` (the label alone, Z3 on a reused solver, PySAT's MiniSat 2.2) says
    what ``solve`` says (CaDiCaL for ``pysat``), and what brute force says, for every
    backend."""
    expected = "SAT" if brute_force_sat(formula) else "UNSAT"
    for backend in ("scc", "pysat", "z3"):
        assert decide(formula, backend) == solve(formula, backend).status == expected


def test_decide_asks_minisat_and_solve_cadical(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``pysat`` label of ``decide`` is MiniSat 2.2's; ``solve``'s result CaDiCaL's."""
    import pysat.solvers

    asked: list[str] = []
    real = pysat.solvers.Solver

    def spy(name: str, **kwargs: object) -> object:
        asked.append(name)
        return real(name=name, **kwargs)

    monkeypatch.setattr(pysat.solvers, "Solver", spy)
    formula = Formula([[1, 2], [-1, 2], [-2, 3]])
    assert decide(formula, "pysat") == solve(formula, "pysat").status == "SAT"
    assert asked == [DECIDE_PYSAT_SOLVER, PYSAT_SOLVER] == ["minisat22", "cadical195"]


@pytest.mark.slow
@settings(max_examples=40)
@given(two_cnfs(max_vars=30), st.lists(two_cnfs(max_vars=30), min_size=1, max_size=12))
def test_the_z3_model_does_not_depend_on_what_was_solved_before(
    formula: Formula, others: list[Formula]
) -> None:
    """Same formula, same model, whatever the process solved (or decided) before."""
    first = solve(formula, "z3")
    for other in others:
        solve(other, "z3")
        decide(other, "z3")
    assert solve(formula, "z3") == first


def test_decide_refuses_an_unknown_backend() -> None:
    with pytest.raises(UnknownNameError):
        decide(Formula([[1]]), "minisat")


@pytest.mark.slow
@pytest.mark.parametrize("ratio", [0.5, 0.8, 1.0, 1.2, 1.5, 2.0])
def test_thousands_of_random_formulas_across_both_phases(ratio: float) -> None:
    rng = random.Random(f"sweep-{ratio}")
    labels = {"SAT": 0, "UNSAT": 0}
    for _ in range(350):
        n = rng.randint(2, 24)
        formula = random_2cnf(rng, n, max(1, round(ratio * n)), unit_share=0.05)
        expected = minisat_label(formula)
        for backend in ("scc", "pysat", "z3"):
            result = solve(formula, backend)
            assert result.status == expected, (backend, formula.clauses)
            check_certificate_json(formula, result.to_json(formula))
        labels[expected] += 1
    if ratio <= 0.5:
        assert labels["SAT"] > labels["UNSAT"]
    if ratio >= 2.0:
        assert labels["UNSAT"] > 0


def test_brute_force_agrees_on_tiny_formulas() -> None:
    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(1, 6)
        formula = random_2cnf(rng, n, rng.randint(0, 3 * n), unit_share=0.2)
        assert solve(formula).is_sat == brute_force_sat(formula)


def test_solve_agreed_returns_checked_result() -> None:
    formula = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    result = solve_agreed(formula)
    assert result.status == "UNSAT" and result.backend == "scc" and result.checked


def test_solve_rejects_a_wrong_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    def liar(formula: Formula) -> SolveResult:
        return SolveResult("UNSAT", backend="liar", cycle=(1, -1))

    monkeypatch.setitem(BACKENDS._items, "liar", liar)
    with pytest.raises(CertificateError, match="liar backend's cycle step 1"):
        solve(Formula([[1, 2]]), "liar")


def test_solve_agreed_raises_on_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BACKENDS._items, "liar", lambda f: SolveResult("UNSAT", backend="liar"))
    with pytest.raises(SolverDisagreementError, match="scc SAT, liar UNSAT"):
        solve_agreed(Formula([[1, 2]]), ("scc", "liar"))


def test_solve_rejects_a_wrong_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        BACKENDS._items, "bad", lambda f: SolveResult("SAT", model=(False,) * f.num_vars)
    )
    with pytest.raises(CertificateError, match="falsifies clause 1"):
        solve(Formula([[1, 2]]), "bad")
    assert not solve(Formula([[1, 2]]), "bad", check=False).checked


def test_unknown_backend() -> None:
    with pytest.raises(UnknownNameError, match="scc, pysat, z3"):
        solve(Formula([[1]]), "minisat")


# -- edge cases ----------------------------------------------------------------------------


def test_empty_formula_is_sat() -> None:
    for backend in BACKENDS:
        result = solve(Formula([]), backend)
        assert result.status == "SAT" and result.model == () and result.checked


def test_variables_in_no_clause_get_values() -> None:
    formula = Formula([[2]], num_vars=4)
    for backend in BACKENDS:
        model = solve(formula, backend).model
        assert model is not None and len(model) == 4 and model[1] is True


def test_unit_clauses_are_edges_from_the_negation() -> None:
    graph = implication_graph(Formula([[3], [-1, 2]]))
    assert sorted(graph.edges()) == [(-3, 3), (-2, -1), (1, 2)]
    result = solve(Formula([[1], [-1]]))
    assert result.status == "UNSAT" and result.cycle == (1, -1)


def test_tautologies_and_duplicates() -> None:
    formula = Formula([[1, -1], [1, 2], [1, 2], [2, 1], [-2, -2]])
    result = solve(formula)
    assert result.is_sat and result.model == (True, False)


def test_wide_clause_goes_to_pysat_and_says_so() -> None:
    formula = Formula([[1, 2, 3], [-1], [-2]])
    result = solve(formula)
    assert (result.backend, result.general_cnf, result.model) == (
        "pysat",
        True,
        (False,) * 2 + (True,),
    )
    assert result.to_json(formula)["general_cnf"] is True
    with pytest.raises(NotTwoCNFError):
        BACKENDS.get("scc")(formula)
    assert solve(formula, "z3").general_cnf


def test_general_cnf_unsat_certified_by_its_short_clauses() -> None:
    formula = Formula([[1, 2, 3], [1], [-1]])
    result = solve(formula)
    assert result.status == "UNSAT" and result.general_cnf and result.checked
    assert result.cycle == (1, -1)


def test_general_cnf_unsat_without_a_short_core_has_no_certificate() -> None:
    clauses = [[a * 1, b * 2, c * 3] for a in (1, -1) for b in (1, -1) for c in (1, -1)]
    result = solve(Formula(clauses))
    assert result.status == "UNSAT" and not result.has_certificate and not result.checked
    assert "cycle" not in result.to_json(Formula(clauses))


def test_empty_clause_makes_unsat_with_its_index() -> None:
    formula = Formula([[1, 2], [], [3]])
    for backend in BACKENDS:
        result = solve(formula, backend)
        assert result.status == "UNSAT" and result.empty_clause == 1 and result.cycle is None
        assert result.checked and result.general_cnf
        assert result.to_json(formula)["empty_clause"] == 1
        check_certificate_json(formula, result.to_json(formula))
    with pytest.raises(NotTwoCNFError):
        BACKENDS.get("scc")(formula)


def test_json_form_is_exactly_the_cli_object() -> None:
    formula = Formula.from_named([["a", "~b"], ["b"]])
    assert solve(formula).to_json(formula) == {
        "status": "SAT",
        "model": {"a": True, "b": True},
        "backend": "scc",
        "checked": True,
    }
    unsat = Formula.from_named([["a"], ["~a"]])
    assert solve(unsat).to_json(unsat) == {
        "status": "UNSAT",
        "cycle": ["a", "~a"],
        "backend": "scc",
        "checked": True,
    }


# -- the graph, the components and the order --------------------------------------------


def test_literal_index_round_trip() -> None:
    lits = np.array([1, -1, 2, -2, 7, -7])
    assert literal_index(lits).tolist() == [0, 1, 2, 3, 12, 13]
    assert index_literal(literal_index(lits)).tolist() == lits.tolist()


@settings(max_examples=100)
@given(two_cnfs(max_vars=12))
def test_components_match_networkx(formula: Formula) -> None:
    graph = implication_graph(formula)
    comps = strong_components(graph)
    reference = nx.DiGraph()
    reference.add_nodes_from(range(graph.num_nodes))
    for a, b in formula.pairs().tolist():
        reference.add_edge(int(literal_index(-a)), int(literal_index(b)))
        reference.add_edge(int(literal_index(-b)), int(literal_index(a)))
    expected = {frozenset(c) for c in nx.strongly_connected_components(reference)}
    labels = comps.labels.tolist()
    found: dict[int, set[int]] = {}
    for node, label in enumerate(labels):
        found.setdefault(label, set()).add(node)
    assert {frozenset(c) for c in found.values()} == expected
    for u, v in reference.edges:
        if labels[u] != labels[v]:
            assert labels[u] > labels[v]  # the labels are a reverse topological order


def test_heavily_duplicated_edges_regression() -> None:
    # A formula that repeats every clause: its graph has each edge once.
    rng = random.Random(3)
    for _ in range(50):
        base = random_2cnf(rng, 8, 12, unit_share=0.2)
        formula = base.select(np.repeat(np.arange(base.num_clauses), 3))
        assert solve(formula).status == minisat_label(formula)
        assert verify(formula, scc_module.solve_scc(formula)).status == minisat_label(formula)
        graph = implication_graph(formula)
        assert graph.num_edges == len({tuple(e) for e in graph.edges()})


def _scipy_canonical_graph(formula: Formula) -> tuple[list[int], list[int]]:
    """The implication graph as SciPy builds it: edges scattered into rows, repeats summed."""
    import scipy.sparse as sp

    nodes = literal_index(formula.pairs())
    src = np.concatenate([nodes[:, 0] ^ 1, nodes[:, 1] ^ 1])
    dst = np.concatenate([nodes[:, 1], nodes[:, 0]])
    size = 2 * formula.num_vars
    matrix = sp.coo_array((np.ones(src.size), (src, dst)), shape=(size, size)).tocsr()
    matrix.sum_duplicates()
    return matrix.indptr.tolist(), matrix.indices.tolist()


def _assert_graph_is_canonical(formula: Formula) -> None:
    graph = implication_graph(formula)
    assert (graph.indptr.tolist(), graph.indices.tolist()) == _scipy_canonical_graph(formula)
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(graph.indptr))
    # canonical: row by row, columns strictly increasing within a row
    assert bool(np.all((rows[1:] > rows[:-1]) | (graph.indices[1:] > graph.indices[:-1])))
    assert graph.indices.dtype == graph.indptr.dtype == np.int32


@pytest.mark.slow
@settings(max_examples=200)
@given(two_cnfs(max_vars=12), st.integers(1, 3))
def test_graph_is_scipys_canonical_csr(formula: Formula, copies: int) -> None:
    _assert_graph_is_canonical(formula.select(np.repeat(np.arange(formula.num_clauses), copies)))


def test_graph_of_ordered_and_shuffled_formulas() -> None:
    # Edges in a few sorted runs (a chain, a ring) are merged; many runs are quicksorted.
    rng = random.Random(5)
    chain = Formula([[-i, i + 1] for i in range(1, 300)])
    ring = Formula([[i, -(i + 1)] for i in range(1, 300)] + [[300], [-1]])
    assert np.count_nonzero(np.diff(literal_index(chain.pairs())[:, 0]) < 0) == 0
    for formula in (chain, ring, *(random_2cnf(rng, 200, 500, 0.1) for _ in range(5))):
        _assert_graph_is_canonical(formula)
        _assert_graph_is_canonical(formula.select(np.repeat(np.arange(formula.num_clauses), 2)))


# -- the contradiction cycle -------------------------------------------------------------


def chain_formula(k: int) -> Formula:
    """x1 -> x2 -> ... -> xk -> ~x1 and ~x1 -> x1 through a unit clause (x1)."""
    clauses = [[-i, i + 1] for i in range(1, k)] + [[-k, -1], [1]]
    return Formula(clauses)


@pytest.mark.parametrize("k", [1, 2, 5, 30])
def test_cycle_is_shortest_through_a_chain(k: int) -> None:
    formula = chain_formula(k) if k > 1 else Formula([[1], [-1]])
    result = solve(formula)
    assert result.cycle is not None
    check_cycle(formula, result.cycle)
    assert len(result.cycle) == (k + 1 if k > 1 else 2)


def test_cycle_prefers_the_smallest_offending_component() -> None:
    big = [[-i, i + 1] for i in range(1, 40)] + [[-40, -1], [1, 41], [-41, 1]]
    small = [[50], [-50]]
    formula = Formula(big + small)
    cycle = solve(formula).cycle
    assert cycle is not None and {abs(lit) for lit in cycle} == {50}


def test_contradiction_cycle_through_a_given_variable() -> None:
    formula = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    graph = implication_graph(formula)
    comps = strong_components(graph)
    cycle = contradiction_cycle(graph, comps, var=2)
    assert 2 in cycle and -2 in cycle
    check_cycle(formula, cycle)


def test_model_from_scc_satisfies_on_a_large_random_formula() -> None:
    rng = np.random.default_rng(9)
    n = 20_000
    pairs = rng.integers(1, n + 1, size=(int(0.9 * n), 2)) * rng.choice(
        [-1, 1], size=(int(0.9 * n), 2)
    )
    formula = Formula.from_pairs(pairs, num_vars=n)
    result = solve(formula)
    assert result.status == minisat_label(formula)
    assert (result.model if result.is_sat else result.cycle) is not None
    check_result(formula, result)


@pytest.mark.parametrize("formula", [Formula([[2**40]]), Formula([[1]], num_vars=2**40)])
def test_a_formula_of_too_many_variables_is_refused_before_anything_is_sized(
    formula: Formula,
) -> None:
    """2**40 variables asked the kernel for 16 TiB (MemoryError); a literal of 2**62 was
    an OverflowError."""
    for backend in ("scc", "pysat", "z3"):
        with pytest.raises(ConfigError) as caught:
            solve(formula, backend)
        assert caught.value.parameter == "num_vars"
