"""implication-cycle: clause counts, UNSAT by PySAT, the contradiction cycle, extremes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from tests.support.generators import assert_rejects, knob_settings
from twosat_formal.core.formula import Formula
from twosat_formal.make.generators.implication_cycle import implication_cycle
from twosat_formal.make.generators.implication_cycle import resolve as resolve_params


def resolve(clauses: int | None, params: dict[str, Any]) -> dict[str, Any]:
    """The resolved parameters, typed loosely for arithmetic in assertions."""
    return dict(resolve_params(clauses, params))


def pysat_sat(clauses: list[list[int]]) -> bool:
    with Minisat22(bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def lit_of(formula: Formula, name: str) -> int:
    return -formula.var(name[1:]) if name.startswith("~") else formula.var(name)


def clause_lists(formula: Formula, indices: list[int] | None = None) -> list[list[int]]:
    chosen = range(formula.num_clauses) if indices is None else indices
    return [list(formula.clause(i)) for i in chosen]


def implies(clause: tuple[int, ...], a: int, b: int) -> bool:
    """Whether clause (x ∨ y) gives the implication-graph edge a → b."""
    x, y = clause[0], clause[-1]
    return (x == -a and y == b) or (y == -a and x == b)


@given(
    seed=st.integers(0, 2**32),
    clauses=st.integers(3, 60),
    knobs=knob_settings("split", "filler_share", "core_ratio"),
    shuffle=st.booleans(),
)
def test_counts_label_and_cycle(
    seed: int, clauses: int, knobs: dict[str, float], shuffle: bool
) -> None:
    f, s = implication_cycle(random.Random(seed), clauses, shuffle=shuffle, **knobs)
    size_l, k = s["L"], s["k"]
    assert f.num_clauses == clauses == size_l + 1 + len(s["filler_clauses"])
    assert len(s["core_clauses"]) == size_l + 1
    assert len(s["forward_clauses"]) == k and len(s["backward_clauses"]) == size_l - k + 1
    assert not pysat_sat(clause_lists(f))
    assert not pysat_sat(clause_lists(f, s["core_clauses"]))
    # The cycle: L+1 literals through l1 and ~l1, every step (and last -> first) an edge
    # given by the core clause at the same position.
    cycle = [lit_of(f, name) for name in s["cycle"]]
    assert len(cycle) == size_l + 1
    pivot = lit_of(f, s["pivot"])
    assert cycle[0] == pivot and -pivot in cycle
    assert cycle.index(-pivot) == k
    for step, index in enumerate(s["core_clauses"]):
        a, b = cycle[step], cycle[(step + 1) % len(cycle)]
        assert implies(f.clause(index), a, b)
    # L distinct core variables, the others only in fillers.
    core_vars = {abs(lit) for i in s["core_clauses"] for lit in f.clause(i)}
    assert len(core_vars) == size_l
    filler_vars = {abs(lit) for i in s["filler_clauses"] for lit in f.clause(i)}
    assert {f.var(n) for n in s["extra_vars"]} <= filler_vars
    assert core_vars | {f.var(n) for n in s["extra_vars"]} == set(range(1, f.num_vars + 1))
    # Fillers: never tautologies, satisfiable on their own.
    for i in s["filler_clauses"]:
        assert len({abs(lit) for lit in f.clause(i)}) == 2
    assert pysat_sat(clause_lists(f, s["filler_clauses"]))
    if not shuffle:
        assert s["core_clauses"] == list(range(size_l + 1))


@pytest.mark.parametrize("size_l", [2, 3, 7, 20])
def test_extreme_k_equals_1(size_l: int) -> None:
    f, s = implication_cycle(random.Random(size_l), L=size_l, k=1, r=0)
    pivot = lit_of(f, s["pivot"])
    assert f.clause(s["forward_clauses"][0]) == (-pivot, -pivot)  # l1 -> ~l1
    assert s["forward_clauses"] == [0] and len(s["backward_clauses"]) == size_l
    assert s["cycle"][1] == f.literal_name(-pivot)
    assert not pysat_sat(clause_lists(f))


@pytest.mark.parametrize("size_l", [2, 3, 7, 20])
def test_extreme_k_equals_l(size_l: int) -> None:
    f, s = implication_cycle(random.Random(size_l), L=size_l, k=size_l, r=0)
    pivot = lit_of(f, s["pivot"])
    assert [f.clause(i) for i in s["backward_clauses"]] == [(pivot, pivot)]  # ~l1 -> l1
    assert s["cycle"][-1] == f.literal_name(-pivot)
    assert not pysat_sat(clause_lists(f))


def test_split_knob_reaches_both_extremes() -> None:
    assert resolve(20, {"split": 0.0})["k"] == 1
    assert resolve(20, {"split": 1.0})["k"] == 19
    ks = [resolve(30, {"split": t / 20})["k"] for t in range(21)]
    assert ks == sorted(ks)


def test_paper_example_1_shape() -> None:
    f, s = implication_cycle(random.Random(0), L=5, k=3, r=0)
    assert f.num_clauses == 6 and s["twist_clause"] == 2 and s["trigger_clause"] == 5


def test_core_ratio_sets_n() -> None:
    assert resolve(20, {"filler_share": 0.5, "core_ratio": 1.0})["n"] == 9
    assert resolve(20, {"filler_share": 0.5, "core_ratio": 0.0})["n"] == 9 + 20
    p = resolve(None, {"L": 4, "r": 3, "n": 10})
    assert (p["L"], p["r"], p["n"], p["split"], p["core_ratio"]) == (4, 3, 10, 0.5, None)


@pytest.mark.parametrize(
    ("clauses", "params", "parameter"),
    [
        (2, {}, "clauses"),
        (20, {"L": 5, "n": 4}, "n"),
        (20, {"L": 25}, "L"),
        (None, {"L": 5, "k": 6}, "k"),
        (20, {"r": 18}, "r"),
        (20, {"L": 5, "r": 3}, "clauses"),
        (20, {"split": 1.5}, "split"),
        (20, {"nonsense": 1}, "nonsense"),
        (20, {"L": 1}, "L"),
    ],
)
def test_impossible_requests(
    clauses: int | None, params: dict[str, object], parameter: str
) -> None:
    assert assert_rejects(implication_cycle, clauses, params, parameter).valid
