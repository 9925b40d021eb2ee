"""The plain-Python path for small formulas: the SciPy path's very results, certified.

Both paths are run on the same formulas: the results must be equal (same model, same
cycle), every certificate must pass the independent checkers, and the labels must
agree with PySAT (MiniSat22) and Z3.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_support import python_stdout
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22
from scipy.sparse.csgraph import connected_components

from twosat_formal.formula import Formula
from twosat_formal.solve import BACKENDS, check_cycle, check_model, small, solve, verify
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.scc import solve_scc, strong_components
from twosat_formal.solve.small import (
    COLD_CLAUSES,
    SMALL_CLAUSES,
    is_small,
    prefers_python,
    small_components,
    solve_small,
    successor_lists,
)

ROOT = Path(__file__).resolve().parents[1]

#: SciPy up to 1.17 numbers strong components with Pearce's algorithm, whose order
#: the plain-Python search reproduces; a later SciPy may number them otherwise.
PEARCE = "Pearce" in (connected_components.__doc__ or "")


@st.composite
def two_cnfs(draw: st.DrawFn, max_vars: int = 40) -> Formula:
    """Random 2-CNFs around the threshold (units, repeats and tautologies included)."""
    n = draw(st.integers(1, max_vars))
    ratio = draw(st.sampled_from([0.3, 0.5, 0.8, 1.0, 1.3, 1.6, 2.0, 3.0]))
    m = max(1, round(ratio * n))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(literal, min_size=1, max_size=2), min_size=m, max_size=m))
    return Formula(clauses, num_vars=n)


def minisat(formula: Formula) -> str:
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        return "SAT" if solver.solve() else "UNSAT"


@settings(max_examples=300)
@given(two_cnfs())
def test_both_paths_are_certified_and_agree_with_pysat_and_z3(formula: Formula) -> None:
    expected = {minisat(formula), solve(formula, "z3").status, solve(formula, "pysat").status}
    assert len(expected) == 1
    for run in (solve_small, solve_scc):
        result = verify(formula, run(formula))
        assert result.checked and {result.status} == expected
        if result.model is not None:
            check_model(formula, result.model)
        else:
            assert result.cycle is not None
            check_cycle(formula, result.cycle)


@pytest.mark.skipif(not PEARCE, reason="this SciPy numbers components in another order")
@settings(max_examples=300)
@given(two_cnfs())
def test_the_small_path_gives_the_scipy_path_result(formula: Formula) -> None:
    assert solve_small(formula) == solve_scc(formula)
    count, labels = small_components(successor_lists(formula))
    components = strong_components(implication_graph(formula))
    assert count == components.count and labels == components.labels.tolist()


def test_the_partition_is_scipys_whatever_the_numbering() -> None:
    rng = np.random.default_rng(4)
    for _ in range(100):
        n = int(rng.integers(1, 60))
        m = int(rng.integers(1, 3 * n + 1))
        pairs = rng.integers(1, n + 1, size=(m, 2)) * rng.choice([-1, 1], size=(m, 2))
        formula = Formula.from_pairs(pairs, num_vars=n)
        _count, ours = small_components(successor_lists(formula))
        theirs = strong_components(implication_graph(formula)).labels.tolist()
        matched = {(a, b) for a, b in zip(ours, theirs, strict=True)}
        # a bijection between the two numberings
        assert len(matched) == len({a for a, _ in matched}) == len({b for _, b in matched})


def test_the_backend_chooses_by_size() -> None:
    small = Formula([[1, 2]] * SMALL_CLAUSES)
    large = Formula([[1, 2]] * (SMALL_CLAUSES + 1))
    assert is_small(small) and not is_small(large)
    for formula in (small, large):
        assert BACKENDS.get("scc")(formula) == solve_scc(formula)


def test_a_small_solve_imports_no_scipy() -> None:
    probe = (
        "import sys\n"
        "from twosat_formal.formula import Formula\n"
        "from twosat_formal.solve import solve\n"
        "assert solve(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])).checked\n"
        "assert solve(Formula([[1, 2], [-1, 2]])).checked\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))\n"
    )
    out = python_stdout(probe, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.strip() == "[]"


def mid_size_formulas() -> list[Formula]:
    """Formulas above the small size: random at three ratios, a chain, a ring contradiction."""
    rng = np.random.default_rng(12)
    out = []
    for n, ratio in ((3000, 0.5), (3000, 1.0), (2500, 2.0), (1200, 1.7)):
        m = round(ratio * n)
        pairs = rng.integers(1, n + 1, size=(m, 2)) * rng.choice([-1, 1], size=(m, 2))
        out.append(Formula.from_pairs(pairs, num_vars=n))
    i = np.arange(1, 2000)
    out.append(Formula.from_pairs(np.stack([-i, i + 1], axis=1), num_vars=2000))
    ring = [[v, -(v + 1)] for v in range(1, 2000)] + [[2000], [-1]]
    out.append(Formula(ring, num_vars=2000))
    return out


@pytest.mark.skipif(not PEARCE, reason="this SciPy numbers components in another order")
def test_mid_size_formulas_get_the_same_certified_result_on_both_paths() -> None:
    statuses = set()
    for formula in mid_size_formulas():
        assert not is_small(formula)
        python_path = verify(formula, solve_small(formula))
        assert python_path == verify(formula, solve_scc(formula))
        assert python_path.checked and python_path.status == minisat(formula)
        if python_path.model is not None:
            check_model(formula, python_path.model)
        else:
            assert python_path.cycle is not None
            check_cycle(formula, python_path.cycle)
        statuses.add(python_path.status)
    assert statuses == {"SAT", "UNSAT"}


def test_plain_python_is_preferred_only_while_scipy_is_not_imported(monkeypatch: Any) -> None:
    monkeypatch.setattr(small, "_cold_clauses", [0])
    mid = Formula([[1, 2]] * (SMALL_CLAUSES + 1))
    assert "scipy.sparse.csgraph" in sys.modules  # this module imports it
    assert prefers_python(Formula([[1, 2]] * SMALL_CLAUSES)) and not prefers_python(mid)
    assert small._cold_clauses == [0]
    monkeypatch.delitem(sys.modules, "scipy.sparse.csgraph")
    assert prefers_python(mid) and small._cold_clauses == [SMALL_CLAUSES + 1]
    small._cold_clauses[0] = COLD_CLAUSES - SMALL_CLAUSES  # the budget is nearly spent
    assert not prefers_python(mid)


def test_a_mid_size_solve_in_a_fresh_process_imports_scipy_only_past_the_budget() -> None:
    probe = (
        "import sys\n"
        "from twosat_formal.formula import Formula\n"
        "from twosat_formal.solve import solve\n"
        "from twosat_formal.solve.small import COLD_CLAUSES\n"
        # A ring with clauses that make 1,198 literals imply two: a ring alone, or one with
        # at most 1,024 such literals, is solved without SciPy on any path.
        "mid = Formula([[v, -(v + 1)] for v in range(1, 5000)] + [[5000], [-1]]\n"
        "              + [[1, v] for v in range(2, 1200)])\n"
        "assert solve(mid).checked and solve(mid).status == 'UNSAT'\n"
        "print('scipy.sparse.csgraph' in sys.modules)\n"
        "for _ in range(COLD_CLAUSES // mid.num_clauses):\n"
        "    assert solve(mid).checked\n"
        "print('scipy.sparse.csgraph' in sys.modules)\n"
    )
    out = python_stdout(probe, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.split() == ["False", "True"]


def _unbounded_cycle(succ: list[list[int]], label: list[int]) -> tuple[int, ...]:
    """``small_cycle`` without bounds: every candidate's two paths searched in full."""
    from twosat_formal.solve import scc
    from twosat_formal.solve.small import _literal, _shortest_path

    conflicts = [v for v in range(1, len(label) // 2 + 1) if label[2 * v - 2] == label[2 * v - 1]]
    sizes = {comp: label.count(comp) for comp in set(label)}
    target = min((label[2 * v - 2] for v in conflicts), key=sizes.__getitem__)  # the first
    tries = max(1, min(scc.CYCLE_CANDIDATES, scc.CYCLE_SEARCH_BUDGET // (2 * sizes[target])))
    walks = []
    for x in [v for v in conflicts if label[2 * v - 2] == target][:tries]:
        there, back = (
            _shortest_path(succ, 2 * x - 2, 2 * x - 1),
            _shortest_path(succ, 2 * x - 1, 2 * x - 2),
        )
        assert there is not None and back is not None
        walks.append(there + back[1:-1])
    best = min(walks, key=len)  # the first of the shortest
    return tuple(_literal(node) for node in best)


@settings(max_examples=300)
@given(two_cnfs(max_vars=30))
def test_the_bounded_path_searches_keep_the_cycle_of_unbounded_ones(formula: Formula) -> None:
    from twosat_formal.solve.small import small_cycle

    succ = successor_lists(formula)
    _, label = small_components(succ)
    if all(label[i] != label[i + 1] for i in range(0, len(label), 2)):
        return
    assert small_cycle(succ, label) == _unbounded_cycle(succ, label)


def test_the_bounded_searches_keep_the_cycle_on_many_random_unsat_formulas() -> None:
    # units and short clauses over up to 12 variables: many conflicting variables, walks
    # of many lengths (a bound one edge too tight changes hundreds of these cycles)
    from twosat_formal.solve.small import small_cycle

    rng = random.Random(1)
    compared = 0
    for _ in range(3000):
        n = rng.randint(2, 12)
        clauses = [
            [rng.choice([v, -v]) for v in rng.sample(range(1, n + 1), rng.choice([1, 2, 2, 2]))]
            for _ in range(rng.randint(n, 3 * n))
        ]
        succ = successor_lists(Formula(clauses, num_vars=n))
        _, label = small_components(succ)
        if any(label[i] == label[i + 1] for i in range(0, len(label), 2)):
            assert small_cycle(succ, label) == _unbounded_cycle(succ, label), clauses
            compared += 1
    assert compared > 1000
