"""Knobs: validation, coercion of CLI text, monotone total mappings, named grids."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.params import value_of
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.grids import grid_cells
from twosat_formal.make.generators.knobs import (
    KNOB_GRIDS,
    ParamSpec,
    knob_to_int,
    parse_settings,
    round_half_up,
    share_count,
    validate_params,
)

SPECS = (
    ParamSpec("split", "knob", 0.5, "twist"),
    ParamSpec("k", "int", None, "twist index", low=1, high=9),
    ParamSpec("shuffle", "bool", False, "order"),
    ParamSpec("layout", "choice", "grouped", "layout", choices=("grouped", "interleaved")),
    ParamSpec("path", "text", None, "file"),
)


def test_grids_are_the_papers() -> None:
    assert KNOB_GRIDS["paper-3"] == (0.2, 0.5, 0.8)
    assert KNOB_GRIDS["paper-7"] == (0.0, 0.2, 1 / 3, 0.5, 2 / 3, 0.8, 1.0)
    assert set(KNOB_GRIDS) == {"paper-3", "paper-7"}
    with pytest.raises(ConfigError) as info:
        grid_cells("paper-5", family="backbone")
    assert info.value.parameter == "grid"


@given(
    knob=st.floats(0, 1), other=st.floats(0, 1), low=st.integers(0, 50), width=st.integers(0, 50)
)
def test_knob_to_int_is_monotone_and_total(knob: float, other: float, low: int, width: int) -> None:
    high = low + width
    value = knob_to_int(knob, low, high)
    assert low <= value <= high
    if knob <= other:
        assert value <= knob_to_int(other, low, high)
    assert knob_to_int(0.0, low, high) == low and knob_to_int(1.0, low, high) == high


@given(x=st.floats(-1e6, 1e6), y=st.floats(-1e6, 1e6))
def test_round_half_up(x: float, y: float) -> None:
    if x <= y:
        assert round_half_up(x) <= round_half_up(y)
    assert abs(round_half_up(x) - x) <= 0.5 + 1e-6
    assert round_half_up(math.floor(x) + 0.5) == math.floor(x) + 1


@given(knob=st.floats(0, 1), total=st.integers(0, 500), most=st.integers(0, 500))
def test_share_count_bounds(knob: float, total: int, most: int) -> None:
    count = share_count(knob, total, most)
    assert 0 <= count <= most
    assert count == min(most, round_half_up(knob * total))


def test_validate_fills_defaults_and_records_given() -> None:
    values, given_keys = validate_params("demo", SPECS, {"k": "3", "shuffle": "yes", "path": None})
    assert values == {
        "split": 0.5,
        "k": 3,
        "shuffle": True,
        "layout": "grouped",
        "path": None,
    }
    assert given_keys == {"k", "shuffle"}


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"splitt": 0.5}, "splitt"),
        ({"split": 1.01}, "split"),
        ({"split": -0.01}, "split"),
        ({"split": float("nan")}, "split"),
        ({"split": "abc"}, "split"),
        ({"split": True}, "split"),
        ({"k": 0}, "k"),
        ({"k": 10}, "k"),
        ({"k": 2.5}, "k"),
        ({"k": "two"}, "k"),
        ({"shuffle": "maybe"}, "shuffle"),
        ({"layout": "stacked"}, "layout"),
        ({"path": 3}, "path"),
    ],
)
def test_bad_values_name_parameter_and_range(params: dict[str, object], parameter: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_params("demo", SPECS, params)
    assert info.value.parameter == parameter
    assert info.value.valid
    assert parameter in str(info.value)


def test_text_knobs_accept_fractions() -> None:
    spec = SPECS[0]
    assert value_of(spec, "1/3") == 1 / 3
    assert value_of(spec, "0.8") == 0.8
    assert value_of(spec, 1) == 1.0
    with pytest.raises(ConfigError):
        value_of(spec, "1/0")


def test_parse_settings() -> None:
    assert parse_settings(["a=1", " b = x=y "]) == {"a": "1", "b": "x=y"}
    for bad in (["a"], ["=1"]):
        with pytest.raises(ConfigError):
            parse_settings(bad)
    with pytest.raises(ConfigError) as info:
        parse_settings(["a=1", "a=2"])
    assert info.value.parameter == "a"


def test_spec_listing_json() -> None:
    data = SPECS[1].to_json()
    assert data["valid"] == "an integer in [1, 9]" and data["default"] is None
