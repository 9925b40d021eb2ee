""":func:`twosat_formal.verbalize.verbalize` refuses an option of the wrong type
before rendering: a seed that is no int (1.5 was read as 1, ``True`` as 1, and the
record named a seed that was not the one given), entities that are no sequence of
names, an example formula that is no formula, a question that is no str, and an
``ask_cycle`` that is no bool (``"no"`` asked for a chain)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ArgumentTypeError, ConfigError
from twosat_formal.verbalize import verbalize

# mypy: disable-error-code="arg-type"

FORMULA = Formula.from_named([["a", "b"], ["~a", "c"]])


@given(st.one_of(st.booleans(), st.floats(allow_nan=True), st.text(max_size=3), st.none()))
def test_a_seed_that_is_no_int_is_refused(seed: object) -> None:
    with pytest.raises(ConfigError) as caught:
        verbalize(FORMULA, "logic", seed=seed)
    assert caught.value.parameter == "seed"


@given(st.integers(-(2**70), 2**70))
def test_the_record_names_the_seed_given(seed: int) -> None:
    assert verbalize(FORMULA, "logic", seed=seed).seed == seed


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("entities", 3),
        ("entities", "abc"),
        ("entities", b"abc"),
        ("entities", ["room 1", 2, "room 3"]),
        ("example_from", 5),
        ("example_from", "a | b"),
        ("ask", {}),
        ("ask", ["decision"]),
        ("ask_cycle", "no"),
        ("ask_cycle", 1),
        ("ask_cycle", math.nan),
    ],
)
def test_an_option_of_the_wrong_type_is_refused(option: str, value: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        verbalize(FORMULA, "room", **{option: value})
    assert caught.value.parameter == option


def test_options_of_the_right_types_are_taken() -> None:
    prompt = verbalize(FORMULA, "room", entities=["room 1", "room 2", "room 3"], ask_cycle=True)
    assert prompt.entities == ("room 1", "room 2", "room 3") and prompt.ask_cycle


def test_a_formula_of_too_many_variables_is_refused_before_entities_are_drawn() -> None:
    """2**40 variables made the entity draw a MemoryError."""
    with pytest.raises(ConfigError) as caught:
        verbalize(Formula([[1]], num_vars=2**40), "room")
    assert caught.value.parameter == "num_vars"
