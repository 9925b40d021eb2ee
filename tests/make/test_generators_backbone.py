"""backbone: 2|B| + m_mono clauses, the backbone is exactly b (PySAT), monotone remainder."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.solvers import Glucose4

from tests.support.generators import assert_rejects, knob_settings
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.backbone import backbone
from twosat_formal.make.generators.backbone import resolve as resolve_params


def resolve(clauses: int | None, params: dict[str, Any]) -> dict[str, Any]:
    """The resolved parameters, typed loosely for arithmetic in assertions."""
    return dict(resolve_params(clauses, params))


def backbone_of(formula: Formula, variables: set[int]) -> dict[int, bool]:
    """Variables of ``variables`` with the same value in every model (PySAT assumptions)."""
    with Glucose4(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        assert solver.solve()
        model = {abs(lit): lit > 0 for lit in solver.get_model()}
        forced = {}
        for v in sorted(variables):
            value = model.get(v, False)
            if not solver.solve(assumptions=[-v if value else v]):
                forced[v] = value
        return forced


@given(
    seed=st.integers(0, 2**32),
    clauses=st.integers(2, 80),
    knobs=knob_settings(
        "beta",
        "mono_density",
        "pi",
        filler_share=st.sampled_from([0.0, 0.0, 0.3]),
        shuffle=st.booleans(),
    ),
)
def test_counts_and_exact_backbone(seed: int, clauses: int, knobs: dict[str, Any]) -> None:
    beta, density, pi = knobs["beta"], knobs["mono_density"], knobs["pi"]
    if beta == 0.0 and density == 0.0:
        with pytest.raises(ConfigError):
            backbone(random.Random(seed), clauses, beta=beta, mono_density=density)
        return
    f, s = backbone(random.Random(seed), clauses, **knobs)
    assert abs(f.num_clauses - clauses) <= 1
    size_b = len(s["backbone"])
    mono = s["mono_clauses"]
    assert len(s["backbone_clauses"]) == 2 * size_b
    assert f.num_clauses == 2 * size_b + len(mono) + len(s["filler_clauses"])
    planted = {f.var(name): value for name, value in s["backbone"].items()}
    aux = {f.var(a) for a in s["auxiliaries"].values()}
    free = {f.var(name) for name in s["free"]}
    assert not (set(planted) & free) and not (aux & (set(planted) | free))
    # Exactly b is forced among the variables of the construction (fillers are apart).
    assert backbone_of(f, set(planted) | aux | free) == planted
    # The remainder: monotone clauses of one orientation over two distinct F variables.
    sign = 1 if s["orientation"] == "+" else -1
    for i in mono:
        a, b = f.clause(i)
        assert a * sign > 0 and b * sign > 0 and abs(a) != abs(b)
        assert {abs(a), abs(b)} <= free
    # Each backbone pair: (x or a), (x or ~a) with x's planted literal.
    pairs = sorted(s["backbone_clauses"])
    lits = {f.clause(i)[0] for i in pairs}
    assert lits == {v if val else -v for v, val in planted.items()}
    if pi == 1.0 and mono:
        assert s["orientation"] == "+"
    if pi == 0.0 and mono:
        assert s["orientation"] == "-"


def test_knob_mapping_follows_the_paper() -> None:
    # |B| = beta*n and density 2*m_mono/|F|^2 on the paper's direct mapping from n.
    p = resolve(None, {"n": 20, "beta": 0.25, "mono_density": 0.5})
    assert (p["B"], p["m_mono"]) == (5, round(0.5 * 15**2 / 2))
    # With a clause budget the knobs pick |B| and |F|; the budget is met exactly.
    for beta in (0.2, 0.5, 0.8):
        p = resolve(75, {"beta": beta})
        assert 2 * p["B"] + p["m_mono"] == 75
        assert abs(p["B"] / p["n"] - beta) < 0.1
    bs = [resolve(75, {"beta": t / 10})["B"] for t in range(11)]
    assert bs == sorted(bs) and bs[-1] == 37
    ms = [resolve(75, {"mono_density": t / 10})["m_mono"] for t in range(1, 11)]
    assert ms == sorted(ms)


def test_extremes() -> None:
    f, s = backbone(random.Random(0), 21, beta=1.0)
    assert f.num_clauses == 20 and s["free"] == [] and not s["mono_clauses"]
    f, s = backbone(random.Random(0), 21, beta=0.0)
    assert f.num_clauses == 21 and s["backbone"] == {}


@pytest.mark.parametrize(
    ("clauses", "params", "parameter"),
    [
        (20, {"beta": 0.0, "mono_density": 0.0}, "mono_density"),
        (20, {"B": 11}, "B"),
        (20, {"m_mono": 21}, "m_mono"),
        (20, {"B": 2, "m_mono": 4}, "clauses"),
        (20, {"n": 4, "B": 3}, "n"),
        (20, {"orientation": "x"}, "orientation"),
        (1, {}, "clauses"),
        (20, {"pi": 2}, "pi"),
    ],
)
def test_impossible_requests(
    clauses: int | None, params: dict[str, object], parameter: str
) -> None:
    assert_rejects(backbone, clauses, params, parameter)
