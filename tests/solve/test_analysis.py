"""Structure analysis and model counting, cross-checked by brute force, PySAT and networkx."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, NotTwoCNFError
from twosat_formal.solve import analysis
from twosat_formal.solve.analysis import BRUTE_FORCE_VARS, analyze, count_models


@st.composite
def two_cnfs(draw: st.DrawFn, max_vars: int = 8) -> Formula:
    n = draw(st.integers(1, max_vars))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    m = draw(st.integers(0, 2 * n))
    clauses = draw(st.lists(st.lists(literal, min_size=1, max_size=2), min_size=m, max_size=m))
    return Formula(clauses, num_vars=n)


def all_models(formula: Formula) -> list[tuple[bool, ...]]:
    clauses = [list(c) for c in formula.clauses]
    return [
        bits
        for bits in itertools.product((False, True), repeat=formula.num_vars)
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses)
    ]


def pysat_backbone(formula: Formula) -> tuple[int, ...]:
    """Literals l with F & ~l UNSAT, F satisfiable (PySAT with assumptions)."""
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        if not solver.solve():
            return ()
        return tuple(
            lit
            for v in range(1, formula.num_vars + 1)
            for lit in (v, -v)
            if not solver.solve(assumptions=[-lit])
        )


def networkx_graph(formula: Formula) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(v * s for v in range(1, formula.num_vars + 1) for s in (1, -1))
    for clause in formula.clauses:
        a, b = (clause[0], clause[-1])
        graph.add_edge(-a, b)
        graph.add_edge(-b, a)
    return graph


@pytest.mark.slow
@settings(max_examples=300)
@given(two_cnfs())
def test_structure_matches_brute_force_pysat_and_networkx(formula: Formula) -> None:
    s = analyze(formula)
    models = all_models(formula)
    n = formula.num_vars
    assert s.satisfiable == bool(models)
    assert s.backbone == pysat_backbone(formula)
    if models:
        forced = tuple(
            v if models[0][v - 1] else -v
            for v in range(1, n + 1)
            if len({m[v - 1] for m in models}) == 1
        )
        assert s.backbone == forced
        model_set = set(models)
        free = tuple(
            v
            for v in range(1, n + 1)
            if all((*m[: v - 1], not m[v - 1], *m[v:]) in model_set for m in models)
        )
        assert s.free_variables == free
    else:
        assert s.backbone == ()
        in_clause = {
            abs(lit) for c in formula.clauses if not (len(c) == 2 and c[0] == -c[1]) for lit in c
        }
        assert s.free_variables == tuple(v for v in range(1, n + 1) if v not in in_clause)

    graph = networkx_graph(formula)
    components = list(nx.strongly_connected_components(graph))
    assert s.scc_count == len(components)
    assert s.largest_scc == max(len(c) for c in components)
    assert s.nontrivial_sccs == sum(len(c) > 1 for c in components)
    comp = {lit: i for i, c in enumerate(components) for lit in c}
    assert s.conflicting_variables == tuple(v for v in range(1, n + 1) if comp[v] == comp[-v])

    occurring = {lit for c in formula.clauses for lit in c}
    pure = tuple(
        lit
        for v in range(1, n + 1)
        for lit in (v, -v)
        if lit in occurring and -lit not in occurring
    )
    assert s.pure_literals == pure
    assert count_models(formula) == len(models)


@pytest.mark.slow
@settings(max_examples=150)
@given(two_cnfs())
def test_bit_mask_path_gives_the_same_backbone(formula: Formula) -> None:
    # with a reach cap of 0 every candidate goes through the bit-mask sweep
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(analysis, "PAIR_REACH_CAP", 0)
        assert analyze(formula).backbone == pysat_backbone(formula)


@pytest.mark.parametrize("cap", [1024, 3, 0])
def test_backbone_on_a_mid_sized_formula_matches_reachability(
    cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis, "PAIR_REACH_CAP", cap)
    rng = np.random.default_rng(4)
    n = 600
    found_some = False
    for ratio in (0.8, 0.95):
        m = int(ratio * n)
        pairs = rng.integers(1, n + 1, size=(m, 2)) * rng.choice([-1, 1], size=(m, 2))
        formula = Formula.from_pairs(pairs, num_vars=n)
        s = analyze(formula)
        graph = networkx_graph(formula)
        if not s.satisfiable:
            continue
        expected = tuple(
            lit
            for v in range(1, n + 1)
            for lit in (v, -v)
            if graph.has_node(-lit) and lit in nx.descendants(graph, -lit)
        )
        assert s.backbone == expected
        found_some |= bool(expected)
    assert found_some


def test_backbone_of_a_long_chain() -> None:
    # x1 forced, and x1 -> x2 -> ... -> x300: every literal is in the backbone
    clauses = [[1]] + [[-i, i + 1] for i in range(1, 300)]
    s = analyze(Formula(clauses))
    assert s.backbone == tuple(range(1, 301))
    assert s.free_variables == ()


def test_free_variables_definition() -> None:
    f = Formula.from_named(
        [["a"], ["a", "b"], ["c", "~c"], ["d", "e"]], variables=["a", "b", "c", "d", "e", "f"]
    )
    s = analyze(f)
    assert s.to_json()["free_variables"] == ["b", "c", "f"]
    assert s.to_json()["backbone"] == ["a"]
    assert count_models(f) == 2 * 2 * 3 * 2


def test_unsat_structure() -> None:
    f = Formula.from_named([["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"], ["c", "d"]])
    info = analyze(f).to_json()
    assert info["satisfiable"] is False
    assert info["conflicting_variables"] == ["a", "b"]
    assert info["backbone"] == []
    assert info["pure_literals"] == ["c", "d"]
    assert info["largest_scc"] == 4


def test_to_json_keys_and_names() -> None:
    info = analyze(Formula([[1, 2]], num_vars=3)).to_json()
    assert list(info) == [
        "num_vars",
        "num_clauses",
        "satisfiable",
        "scc_count",
        "largest_scc",
        "nontrivial_sccs",
        "conflicting_variables",
        "backbone",
        "pure_literals",
        "free_variables",
    ]
    assert info["free_variables"] == ["x3"] and info["pure_literals"] == ["x1", "x2"]


def test_empty_formula() -> None:
    s = analyze(Formula([]))
    assert (s.satisfiable, s.scc_count, s.largest_scc, s.backbone) == (True, 0, 0, ())
    assert count_models(Formula([])) == 1
    assert count_models(Formula([], num_vars=5)) == 32


def test_analysis_needs_a_2cnf() -> None:
    with pytest.raises(NotTwoCNFError, match="structure analysis"):
        analyze(Formula([[1, 2, 3]]))
    with pytest.raises(NotTwoCNFError):
        analyze(Formula([[]]))


# -- model counting ---------------------------------------------------------------------------


def pysat_count(formula: Formula) -> int:
    used = sorted({abs(lit) for c in formula.clauses for lit in c})
    count = 0
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        while solver.solve():
            count += 1
            model = set(solver.get_model())
            solver.add_clause([-v if v in model else v for v in used])
    return count * 2 ** (formula.num_vars - len(used))


def test_count_models_of_general_cnf_matches_brute_force() -> None:
    rng = random.Random(8)
    for _ in range(150):
        n = rng.randint(1, 7)
        clauses = [
            [rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(rng.randint(1, 3))]
            for _ in range(rng.randint(0, 2 * n))
        ]
        formula = Formula(clauses, num_vars=n)
        assert count_models(formula) == len(all_models(formula))


def test_count_models_enumerates_large_parts() -> None:
    k = BRUTE_FORCE_VARS + 4
    # an equivalence chain over k variables (2 models) with a clause that kills one
    chain = [[-i, i + 1] for i in range(1, k)] + [[-k, 1]]
    assert count_models(Formula(chain)) == 2
    assert count_models(Formula([*chain, [1, 2]])) == 1
    # a chain of implications x1 -> x2 -> ... -> xk has k + 1 models
    implications = Formula([[-i, i + 1] for i in range(1, k)])
    assert count_models(implications) == k + 1 == pysat_count(implications)
    # independent parts multiply
    two = Formula([*chain, *[[-(k + i), k + i + 1] for i in range(1, 4)]])
    assert count_models(two) == 2 * 5 == pysat_count(two)


def test_count_models_limit() -> None:
    k = BRUTE_FORCE_VARS + 2
    implications = Formula([[-i, i + 1] for i in range(1, k)])
    with pytest.raises(ConfigError, match="more than 5 models"):
        count_models(implications, limit=5)
    with pytest.raises(ConfigError, match="more than 2 models"):
        count_models(Formula([[1, 2]]), limit=2)
    with pytest.raises(ConfigError):
        count_models(Formula([[1]]), limit=0)
    assert count_models(Formula([[1], []])) == 0
