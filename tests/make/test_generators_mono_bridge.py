"""mono-bridge: m+ + m- + 1 clauses, exactly one mixed-polarity clause at position s, SAT."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from tests.support.generators import assert_rejects, knob_settings
from twosat_formal.make.generators.mono_bridge import mono_bridge
from twosat_formal.make.generators.mono_bridge import resolve as resolve_params


def resolve(clauses: int | None, params: dict[str, Any]) -> dict[str, Any]:
    """The resolved parameters, typed loosely for arithmetic in assertions."""
    return dict(resolve_params(clauses, params))


def pysat_sat(clauses: list[list[int]]) -> bool:
    with Minisat22(bootstrap_with=clauses) as solver:
        return bool(solver.solve())


@given(
    seed=st.integers(0, 2**32),
    clauses=st.integers(1, 120),
    knobs=knob_settings("var_density", "pos_ratio", "bridge_position"),
    shuffle=st.booleans(),
)
def test_one_bridge_at_s(seed: int, clauses: int, knobs: dict[str, float], shuffle: bool) -> None:
    f, s = mono_bridge(random.Random(seed), clauses, shuffle=shuffle, **knobs)
    assert f.num_clauses == clauses
    m_pos, m_neg = len(s["positive_clauses"]), len(s["negative_clauses"])
    assert f.num_clauses == m_pos + m_neg + 1
    mixed = [i for i, c in enumerate(f.clauses) if min(c) < 0 < max(c)]
    bridge = s["bridge"]
    assert mixed == [bridge["index"]] and bridge["position"] == bridge["index"] + 1
    assert bridge["index"] == round_half_up(knobs["bridge_position"] * (clauses - 1))
    p_star, q_star = f.var(bridge["p_star"]), f.var(bridge["q_star"])
    assert f.clause(bridge["index"]) == (-p_star, q_star)
    pos = {f.var(n) for n in s["positive"]}
    neg = {f.var(n) for n in s["negative"]}
    assert not pos & neg and p_star in pos and q_star in neg
    assert pos | neg == set(range(1, f.num_vars + 1))
    for i in s["positive_clauses"]:
        a, b = f.clause(i)
        assert a > 0 and b > 0 and a != b and {a, b} <= pos
    for i in s["negative_clauses"]:
        a, b = f.clause(i)
        assert a < 0 and b < 0 and a != b and {-a, -b} <= neg
    # Every variable occurs; SAT (and the paper's witness works).
    assert {abs(lit) for c in f.clauses for lit in c} == pos | neg
    witness = dict.fromkeys(pos, True) | dict.fromkeys(neg, False) | {q_star: True}
    assert f.evaluate(witness)
    assert pysat_sat([list(c) for c in f.clauses])


def round_half_up(x: float) -> int:
    import math

    return math.floor(x + 0.5 + 1e-9)


def test_knob_mapping() -> None:
    p = resolve(75, {})
    assert p["m_pos"] == 38 and p["m_neg"] == 36 and p["n_pos"] + p["n_neg"] == 75
    assert resolve(75, {"pos_ratio": 0.0})["m_pos"] == 0
    assert resolve(75, {"pos_ratio": 1.0})["m_neg"] == 0
    assert resolve(75, {"bridge_position": 0.0})["s"] == 1
    assert resolve(75, {"bridge_position": 1.0})["s"] == 75
    totals = [resolve(75, {"var_density": t / 10}) for t in range(11)]
    sizes = [p["n_pos"] + p["n_neg"] for p in totals]
    assert sizes == sorted(sizes) and sizes[-1] == 150 and sizes[0] == 4


def test_fillers_keep_sat_and_one_bridge_among_core() -> None:
    for seed in range(20):
        f, s = mono_bridge(random.Random(seed), 40, filler_share=0.4)
        assert f.num_clauses == 40 and len(s["filler_clauses"]) == 16
        assert pysat_sat([list(c) for c in f.clauses])
        core = set(range(40)) - set(s["filler_clauses"])
        mixed = [i for i in core if min(f.clause(i)) < 0 < max(f.clause(i))]
        assert mixed == [s["bridge"]["index"]]


@pytest.mark.parametrize(
    ("clauses", "params", "parameter"),
    [
        (0, {}, "clauses"),
        (20, {"s": 21}, "s"),
        (20, {"m_pos": 20}, "m_pos"),
        (20, {"m_pos": 3, "m_neg": 3}, "clauses"),
        (20, {"n_pos": 1}, "n_pos"),
        (20, {"n_neg": 40}, "n_neg"),
        (20, {"var_density": "high"}, "var_density"),
    ],
)
def test_impossible_requests(
    clauses: int | None, params: dict[str, object], parameter: str
) -> None:
    assert_rejects(mono_bridge, clauses, params, parameter)
