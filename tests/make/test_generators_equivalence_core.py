"""equivalence-core: 2(n - f) clauses, exactly 2^f models (brute force), presentation."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from tests.support.generators import assert_rejects
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.equivalence_core import equivalence_core
from twosat_formal.make.generators.equivalence_core import resolve as resolve_params


def resolve(clauses: int | None, params: dict[str, Any]) -> dict[str, Any]:
    """The resolved parameters, typed loosely for arithmetic in assertions."""
    return dict(resolve_params(clauses, params))


def brute_force_count(clauses: list[tuple[int, ...]], num_vars: int) -> int:
    """Models of a CNF by enumerating every assignment (num_vars <= 16)."""
    rows = np.arange(2**num_vars, dtype=np.int64)
    values = ((rows[:, None] >> np.arange(num_vars)) & 1).astype(bool)
    ok = np.ones(len(rows), dtype=bool)
    for clause in clauses:
        sat = np.zeros(len(rows), dtype=bool)
        for lit in clause:
            column = values[:, abs(lit) - 1]
            sat |= column if lit > 0 else ~column
        ok &= sat
    return int(ok.sum())


def pysat_sat(clauses: list[list[int]]) -> bool:
    with Minisat22(bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def core_only(formula: Formula, structure: dict[str, object]) -> list[tuple[int, ...]]:
    indices = [i for pair in structure["definition_clauses"] for i in pair]  # type: ignore[attr-defined]
    return [formula.clause(i) for i in indices]


@given(
    seed=st.integers(0, 2**32),
    clauses=st.integers(2, 16),
    ratio=st.floats(0, 1),
    definitions=st.sampled_from(["early", "late"]),
    shuffle=st.booleans(),
)
def test_exactly_two_to_the_f_models(
    seed: int, clauses: int, ratio: float, definitions: str, shuffle: bool
) -> None:
    f, s = equivalence_core(
        random.Random(seed), clauses, free_ratio=ratio, definitions=definitions, shuffle=shuffle
    )
    n, free = s["n"], s["f"]
    assert abs(f.num_clauses - clauses) <= 1
    assert f.num_clauses == 2 * (n - free)
    assert len(s["free"]) == free and len(s["bound"]) == n - free
    assert f.num_vars == n <= 16
    assert brute_force_count(list(f.clauses), n) == 2**free == s["core_model_count"]
    # Each definition is y <-> parent or y <-> ~parent, with the parent free.
    for (i, j), (y, info) in zip(s["definition_clauses"], s["bound"].items(), strict=True):
        assert info["parent"] in s["free"]
        yv, pv = f.var(y), f.var(info["parent"])
        sign = 1 if info["sign"] == "+" else -1
        expected = {(-yv, sign * pv), (-sign * pv, yv)}
        assert {f.clause(i), f.clause(j)} == expected


def test_free_ratio_follows_paper_ratio() -> None:
    # f / (n - f) = free_ratio, with at least one free variable.
    for ratio in (0.2, 0.5, 0.8, 1.0):
        p = resolve(40, {"free_ratio": ratio})
        assert p["n"] - p["f"] == 20
        assert abs(p["f"] / 20 - ratio) <= 0.5 / 20 + 1e-9
    assert resolve(40, {"free_ratio": 0.0})["f"] == 1
    fs = [resolve(50, {"free_ratio": t / 10})["f"] for t in range(11)]
    assert fs == sorted(fs)


@given(seed=st.integers(0, 2**32), share=st.floats(0, 0.9), clauses=st.integers(4, 40))
def test_fillers_never_change_the_label(seed: int, share: float, clauses: int) -> None:
    f, s = equivalence_core(random.Random(seed), clauses, filler_share=share)
    fillers = s["filler_clauses"]
    assert f.num_clauses == clauses if fillers else abs(f.num_clauses - clauses) <= 1
    assert pysat_sat([list(c) for c in f.clauses])
    assert pysat_sat([list(f.clause(i)) for i in fillers])
    core_vars = {abs(lit) for c in core_only(f, s) for lit in c}
    filler_vars = {abs(lit) for i in fillers for lit in f.clause(i)}
    assert not core_vars & filler_vars
    assert filler_vars == {f.var(n) for n in s["filler_vars"]}
    assert all(len({abs(lit) for lit in f.clause(i)}) == 2 for i in fillers)


def test_definitions_early_or_late() -> None:
    _, s = equivalence_core(random.Random(4), 20, filler_share=0.5, definitions="early")
    assert min(s["filler_clauses"]) == 2 * len(s["bound"])
    _, s = equivalence_core(random.Random(4), 20, filler_share=0.5, definitions="late")
    assert max(s["filler_clauses"]) < min(min(pair) for pair in s["definition_clauses"])


def test_paper_example_2_sizes() -> None:
    f, _ = equivalence_core(random.Random(0), n=3, f=1)
    assert f.num_clauses == 4 and brute_force_count(list(f.clauses), 3) == 2


def test_structural_paths() -> None:
    assert resolve(None, {"n": 10})["f"] == 3  # f/(n-f) = 0.5
    p = resolve(None, {"f": 2})
    assert (p["n"], p["f"]) == (6, 2)
    p = resolve(20, {"n": 14})
    assert (p["n"], p["f"]) == (14, 4)
    p = resolve(None, {"n": 5, "f": 5})
    assert p["n"] - p["f"] == 0


@pytest.mark.parametrize(
    ("clauses", "params", "parameter"),
    [
        (None, {"n": 3, "f": 4}, "f"),
        (20, {"n": 5}, "n"),
        (None, {"n": 4, "f": 0}, "f"),
        (1, {}, "clauses"),
        (20, {"n": 6, "f": 1}, "clauses"),
        (20, {"r": 19}, "r"),
        (20, {"definitions": "middle"}, "definitions"),
        (20, {"free_ratio": -0.1}, "free_ratio"),
    ],
)
def test_impossible_requests(
    clauses: int | None, params: dict[str, object], parameter: str
) -> None:
    assert_rejects(equivalence_core, clauses, params, parameter)


# The largest f whose model count 2^f has at most 4300 digits, found by counting.
def _largest_writable_f() -> int:
    f = 0
    while 2 ** (f + 1) < 10**4300:
        f += 1
    return f


LARGEST_WRITABLE_F = _largest_writable_f()


@pytest.mark.parametrize(
    ("clauses", "params"),
    [
        (None, {"f": LARGEST_WRITABLE_F + 1}),
        (None, {"f": 100_000}),
        (None, {"n": LARGEST_WRITABLE_F + 2, "f": LARGEST_WRITABLE_F + 1}),
        (4 * (LARGEST_WRITABLE_F + 1), {"free_ratio": 1.0}),
    ],
)
def test_a_model_count_no_record_can_hold_is_refused_by_name(
    clauses: int | None, params: dict[str, Any]
) -> None:
    """``core_model_count`` is ``2^f``; past 4300 digits no JSON record (and no Python
    ``str``) holds it, so such a request is refused by name before anything is drawn,
    never a traceback while writing."""
    with pytest.raises(ConfigError) as caught:
        resolve_params(clauses, params)
    assert caught.value.parameter == "f"
    assert caught.value.valid == f"0..{LARGEST_WRITABLE_F}"


def test_the_largest_writable_model_count_is_drawn_and_written() -> None:
    p = resolve_params(None, {"f": LARGEST_WRITABLE_F})
    formula, structure = equivalence_core(random.Random(0), f=LARGEST_WRITABLE_F)
    assert p["f"] == structure["f"] == LARGEST_WRITABLE_F
    assert formula.num_clauses == 2 * (structure["n"] - LARGEST_WRITABLE_F)
    assert len(json.dumps(structure["core_model_count"])) == 4300
