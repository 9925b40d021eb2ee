"""The reasoning-gym config's checks: each field's rule as ``docs/integrations.md`` states it.

The expectations are written from the documented ranges, not from the config's table:
counts are integers (``true`` is none) at or above their bound, shares and the partial
credit are finite numbers in ``[0, 1]`` and the knob spread in ``[0, 0.5]``, flags are
``true`` or ``false``; every refusal names the field, the value and what is valid, and
is raised when the dataset is built.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.integrations.gym import (
    CURRICULUM_LEVELS,
    Curriculum,
    TwoSatConfig,
    TwoSatDataset,
    create_dataset,
)

#: ``field -> highest`` of the number fields (all from 0), as documented.
UNITS = {
    "knob_spread": 0.5,
    "min_filler_share": 1.0,
    "max_filler_share": 1.0,
    "partial_credit": 1.0,
}
#: ``field -> lowest`` of the count fields.
COUNTS = {"min_clauses": 1, "max_clauses": 1, "size": 0}
FLAGS = ("balance", "require_chain", "lenient")
#: Values of no field's type but a sequence's.
NOT_NUMBERS = st.one_of(st.booleans(), st.text(max_size=3), st.none(), st.lists(st.integers()))


def _refusal(**fields: Any) -> ConfigError:
    """The error of building a dataset of ``fields`` (a config that pairs well otherwise)."""
    fields = {"min_clauses": 1, "max_clauses": 200, "balance": False, **fields}
    with pytest.raises(ConfigError) as info:
        TwoSatDataset(TwoSatConfig(**fields))
    return info.value


def _fine(**fields: Any) -> TwoSatConfig:
    config = TwoSatConfig(**{"min_clauses": 1, "max_clauses": 200, "balance": False, **fields})
    config.validate()
    return config


@given(st.sampled_from(sorted(UNITS)), st.one_of(st.floats(), st.integers(-3, 3)))
def test_a_share_is_a_finite_number_in_its_range(name: str, value: float) -> None:
    high = UNITS[name]
    pair = {"max_filler_share": 1.0} if name == "min_filler_share" else {}
    if math.isfinite(value) and 0 <= value <= high:
        assert getattr(_fine(**{name: value}, **pair), name) == value
        return
    error = _refusal(**{name: value}, **pair)
    assert str(error) == f"{name} must be a number in [0, {high:g}], got {value!r}"
    assert (error.parameter, error.valid) == (name, f"[0, {high:g}]")


@given(st.sampled_from(sorted(UNITS)), NOT_NUMBERS)
def test_a_share_is_never_a_flag_text_or_list(name: str, value: object) -> None:
    error = _refusal(**{name: value})
    assert error.parameter == name and f"got {value!r}" in str(error)


@given(st.sampled_from(sorted(COUNTS)), st.one_of(st.integers(-5, 200), st.floats(0, 9)))
def test_a_count_is_an_integer_at_or_above_its_bound(name: str, value: object) -> None:
    low = COUNTS[name]
    if isinstance(value, int) and value >= low:
        assert getattr(_fine(**{name: value}), name) == value
        return
    if name == "max_clauses" and isinstance(value, int) and value >= 1:
        return  # a valid count below min_clauses: the rule across fields
    error = _refusal(**{name: value})
    assert str(error) == f"{name} must be an integer >= {low}, got {value!r}"
    assert (error.parameter, error.valid) == (name, f"an integer >= {low}")


@given(st.sampled_from(sorted(COUNTS)), NOT_NUMBERS)
def test_a_count_is_never_a_flag_text_or_list(name: str, value: object) -> None:
    assert _refusal(**{name: value}).parameter == name


@given(st.sampled_from(FLAGS), st.one_of(st.integers(0, 1), st.text(max_size=4), st.none()))
def test_a_flag_is_true_or_false_only(name: str, value: object) -> None:
    error = _refusal(**{name: value})
    assert str(error) == f"{name} must be true or false, got {value!r}"
    assert (error.parameter, error.valid) == (name, "true or false")


@given(st.one_of(st.integers(), st.none()))
def test_any_integer_seed_or_none_is_a_seed(seed: int | None) -> None:
    assert _fine(seed=seed).seed == seed


@pytest.mark.parametrize("seed", [True, 1.0, "3"])
def test_a_seed_is_no_flag_float_or_text(seed: object) -> None:
    error = _refusal(seed=seed)
    assert str(error) == f"seed must be an integer, got {seed!r}" and error.parameter == "seed"


def test_question_types_are_the_documented_ones() -> None:
    documented = ("decision", "forced", "entails", "core", "repair", "maxsat")
    assert _fine(types=documented).types == documented
    error = _refusal(types=("forced", "why"))
    assert error.parameter == "types" and error.valid == ", ".join(documented)
    assert str(error) == "unknown question type 'why' in types"
    assert _refusal(types=("chain",)).parameter == "types"  # require_chain asks for chains
    assert _refusal(types=["forced", 3]).parameter == "types"  # names are strings
    assert "types and require_chain do not mix" in str(
        _refusal(types=("core",), require_chain=True)
    )


def test_names_are_sequences_of_registered_names() -> None:
    error = _refusal(families=(1,))
    assert error.parameter == "families" and "got (1,)" in str(error)
    assert _refusal(templates=(None,)).parameter == "templates"
    with pytest.raises(UnknownNameError, match="unknown family 'nothing'"):
        _fine(families=("nothing",))


@pytest.mark.parametrize("name", ["families", "templates", "types"])
@pytest.mark.parametrize("value", ["backbone", "math", "forced", 7])
def test_a_single_name_is_no_sequence_of_names(name: str, value: object) -> None:
    """A string is refused whole, not split into one-letter names."""
    error = _refusal(**{name: value})
    assert str(error) == f"{name} must be a sequence of names, got {value!r}"
    assert error.parameter == name


def test_the_first_faulty_field_is_reported_and_cross_rules_come_last() -> None:
    # fields are reported in their order; each field's rule before the rules across fields
    assert _refusal(min_clauses=0, size=-1).parameter == "min_clauses"
    assert _refusal(size=-1, lenient=2).parameter == "lenient"
    assert _refusal(min_clauses=9, max_clauses=3, knob_spread=2.0).parameter == "knob_spread"
    error = _refusal(min_clauses=9, max_clauses=3)
    assert str(error) == "min_clauses 9 is above max_clauses 3" and error.valid == "<= 3"
    with pytest.raises(UnknownNameError):  # a valid field with an unknown name
        _fine(families=("nothing",), min_filler_share=0.5)
    assert _refusal(min_filler_share=0.5).parameter == "min_filler_share"


def test_create_dataset_raises_at_construction() -> None:
    with pytest.raises(ConfigError, match="partial_credit must be a number in"):
        create_dataset("twosat", partial_credit=1.5)
    with pytest.raises(ConfigError, match="size must be an integer >= 0, got -1"):
        create_dataset("twosat", size=-1)


@given(st.one_of(st.integers(-3, 9), st.booleans(), st.floats(0, 3), st.text(max_size=2)))
def test_a_level_is_an_integer_among_the_levels(level: object) -> None:
    top = len(CURRICULUM_LEVELS) - 1
    curriculum = Curriculum()
    if isinstance(level, int) and not isinstance(level, bool) and 0 <= level <= top:
        curriculum.set_level(level)
        assert curriculum.level == level
        return
    with pytest.raises(ConfigError) as info:
        curriculum.set_level(level)  # type: ignore[arg-type]
    assert str(info.value) == f"level must be an integer in 0..{top}, got {level!r}"
    assert (info.value.parameter, info.value.valid) == ("level", f"0..{top}")
    assert curriculum.level == 0
    with pytest.raises(ConfigError, match="level must be"):
        Curriculum(level=level)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("dataset", "clauses"),
    [("twosat", 1), ("twosat", 4), ("twosat-symmetry", 3), ("twosat-implication-cycle", 2)],
)
def test_a_clause_range_no_family_can_fill_names_the_item_and_the_range(
    dataset: str, clauses: int
) -> None:
    """A range valid on its own but too narrow for a family drawn (a symmetry item of an
    UNSAT base needs more than 4 clauses) fails when that item is drawn, naming the
    item, the fields to change and the family's own reason."""
    data = create_dataset(dataset, seed=0, size=40, min_clauses=clauses, max_clauses=clauses)
    with pytest.raises(ConfigError) as caught:
        for index in range(len(data)):
            data[index]
    message = str(caught.value)
    assert message.startswith(f"item {index}: ")
    assert f"min_clauses={clauses}, max_clauses={clauses}" in message
    # the family's reason: the clauses it needs, or the count it gives for the target
    reason = "needs at least" in message or f"clauses for a target of {clauses}" in message
    assert reason and caught.value.parameter == "min_clauses"


@settings(max_examples=15, deadline=None)
@given(
    low=st.integers(5, 24),
    width=st.integers(2, 8),
    dataset=st.sampled_from(["twosat", "twosat-symmetry", "twosat-equivalence-core"]),
    seed=st.integers(0, 1_000),
)
def test_every_item_has_a_clause_count_in_the_range(
    low: int, width: int, dataset: str, seed: int
) -> None:
    """A family meets its clause target within one clause; the item's formula is still in
    ``[min_clauses, max_clauses]`` (a symmetry item at an odd target of 5 gave 4 or 6)."""
    data = create_dataset(dataset, seed=seed, size=12, min_clauses=low, max_clauses=low + width)
    for index in range(len(data)):
        try:
            item = data[index]
        except ConfigError as refused:  # a range too narrow for the family: refused, named
            assert str(refused).startswith(f"item {index}: ")
            assert refused.parameter == "min_clauses"
            continue
        assert low <= item["metadata"]["clauses"] <= low + width, item["metadata"]
