"""The shared knob→size resolver: every family's sizing is data the one resolver runs."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError
from twosat_formal.make.generators import FAMILIES, generate
from twosat_formal.make.generators.knobs import ParamSpec, knob_to_int
from twosat_formal.make.generators.resolve import KnobRule, Request, Sizing, resolve_sizes

SIZED = ["implication-cycle", "equivalence-core", "backbone", "mono-bridge"]


def _sizing(name: str) -> Sizing:
    module = importlib.import_module(f"twosat_formal.make.generators.{name.replace('-', '_')}")
    sizing = module.SIZING
    assert isinstance(sizing, Sizing)
    return sizing


@pytest.mark.parametrize("name", SIZED)
def test_each_sizing_names_the_familys_own_knobs_and_sizes(name: str) -> None:
    sizing = _sizing(name)
    specs = {spec.name: spec for spec in FAMILIES.get(name).params}
    assert sizing.family == name and sizing.params == FAMILIES.get(name).params
    for rule in sizing.rules:
        assert specs[rule.knob].kind == "knob"
        assert specs[rule.knob].drives == rule.size
        assert specs[rule.size].kind != "knob"


@pytest.mark.parametrize("name", SIZED)
def test_a_target_below_the_floor_is_refused_naming_clauses(name: str) -> None:
    sizing = _sizing(name)
    with pytest.raises(ConfigError) as info:
        resolve_sizes(sizing, sizing.min_clauses - 1, {})
    assert info.value.parameter == "clauses"


def _budget(request: Request) -> None:
    request.sizes["L"] = request.target


def _check_k(k: int, request: Request) -> None:
    if k > request.size("L"):
        raise ConfigError(f"k={k} exceeds L", parameter="k", valid="1..L")


DEMO = Sizing(
    "demo",
    (
        ParamSpec("split", "knob", 0.5, "k/L", drives="k"),
        ParamSpec("L", "int", None, "length", low=1),
        ParamSpec("k", "int", None, "twist", low=1),
    ),
    min_clauses=1,
    default_clauses=10,
    budget=_budget,
    rules=(KnobRule("k", "split", lambda t, s: knob_to_int(t, 1, s.size("L")), _check_k),),
)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 50), st.floats(0.0, 1.0))
def test_a_knob_drives_its_size_unless_the_size_is_given(clauses: int, split: float) -> None:
    by_knob = resolve_sizes(DEMO, clauses, {"split": split})
    assert by_knob["split"] == split and 1 <= int(by_knob["k"]) <= clauses  # type: ignore[arg-type]
    direct = resolve_sizes(DEMO, clauses, {"split": split, "k": 1})
    assert direct["k"] == 1 and direct["split"] == split  # given knobs are kept
    untouched = resolve_sizes(DEMO, clauses, {"k": 1})
    assert untouched["split"] is None  # neither given nor used


def test_a_given_size_is_checked_by_its_rule() -> None:
    with pytest.raises(ConfigError, match="k=4 exceeds L"):
        resolve_sizes(DEMO, 3, {"k": 4})
    assert list(resolve_sizes(DEMO, None, {})) == ["clauses", "split", "L", "k"]


@pytest.mark.parametrize(
    ("family", "sizes"),
    [
        ("backbone", {"n": 100_000}),
        ("backbone", {"n": 10_000, "mono_density": 1.0}),
        ("implication-cycle", {"L": 9_999_999, "r": 5}),
        ("equivalence-core", {"n": 5_000_005, "f": 1, "r": 2}),
        ("mono-bridge", {"m_pos": 9_999_999, "m_neg": 5}),
    ],
)
def test_sizes_past_the_formula_limit_are_refused_before_drawing(
    family: str, sizes: dict[str, object]
) -> None:
    """Structural sizes given without a target that make more clauses than a formula may
    have are refused before drawing (a backbone with n=100000 asks for 625 million
    monotone clauses, which would be drawn until memory runs out)."""
    with pytest.raises(ConfigError) as caught:
        FAMILIES.get(family).resolve(None, sizes)
    assert caught.value.parameter == "clauses"
    assert caught.value.valid == "<= 10000000"


@settings(max_examples=40, deadline=None)
@given(
    family=st.sampled_from(SIZED),
    clauses=st.one_of(st.none(), st.integers(4, 40)),
    knob=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**20),
)
def test_count_is_the_drawn_clause_count(
    family: str, clauses: int | None, knob: float, seed: int
) -> None:
    """A sizing's ``count`` is checked against the formula drawn, not the construction."""
    spec = FAMILIES.get(family)
    knobs = {p.name: knob for p in spec.params if p.kind == "knob" and p.name != "filler_share"}
    try:
        inst = generate(family, clauses=clauses, seed=seed, **knobs)
    except ConfigError:
        return
    count = _sizing(family).count
    assert count is not None
    assert count(inst.params) == inst.formula.num_clauses
