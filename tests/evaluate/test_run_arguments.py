"""An evaluation option of the wrong type is refused before any model is loaded or
anything stored: :mod:`twosat_formal.evaluate.run.arguments`, through
:class:`ModelAccess` and :func:`evaluate` as a caller reaches them."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ArgumentTypeError, ConfigError
from twosat_formal.evaluate.run import EvalItem, evaluate
from twosat_formal.evaluate.run.arguments import check_seconds
from twosat_formal.evaluate.run.runner import ModelAccess
from twosat_formal.evaluate.store import RunStore
from twosat_formal.verbalize import verbalize

# mypy: disable-error-code="arg-type"

NOT_NUMBERS = st.one_of(
    st.booleans(), st.text(max_size=3), st.binary(max_size=2), st.lists(st.integers(), max_size=1)
)


@given(st.one_of(st.integers(1, 10**6), st.floats(0.001, 1e9)))
def test_a_positive_finite_time_out_is_taken(seconds: float) -> None:
    check_seconds(seconds, "timeout_s")
    check_seconds(None, "timeout_s")


@given(NOT_NUMBERS)
def test_a_time_out_that_is_no_number_is_a_type_error(value: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        check_seconds(value, "timeout_s")
    assert caught.value.parameter == "timeout_s"


@pytest.mark.parametrize("value", [0, -1, -0.5, math.inf, math.nan])
def test_a_time_out_that_is_not_positive_and_finite_is_refused(value: float) -> None:
    with pytest.raises(ConfigError) as caught:
        check_seconds(value, "request_timeout_s")
    assert caught.value.parameter == "request_timeout_s"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("base_url", 5),
        ("base_url", b"http://h"),
        ("base_url", ["http://h", 3]),
        ("api_key_env", 1),
        ("mode", None),
        ("timeout_s", "30"),
        ("executor", 0),
        ("jobs", True),
        ("jobs", 2.0),
        ("ray_address", 1),
    ],
)
def test_model_access_refuses_a_field_of_the_wrong_type(field: str, value: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        ModelAccess(**{field: value})
    assert caught.value.parameter == field


def test_model_access_of_the_right_types_is_built() -> None:
    access = ModelAccess(base_url=["http://a/v1", "http://b/v1"], timeout_s=5, jobs=2)
    assert access.urls() == ("http://a/v1", "http://b/v1")


@pytest.mark.parametrize(
    ("option", "value", "error"),
    [
        ("seed", 1.5, ConfigError),
        ("seed", True, ConfigError),
        ("seed", "1", ConfigError),
        ("strategies", "cot", ArgumentTypeError),
        ("strategies", 3, ArgumentTypeError),
        ("strategies", [3], ArgumentTypeError),
        ("params", {"temperature": 0}, ArgumentTypeError),
        ("params", "t=0", ArgumentTypeError),
        ("retry", 3, ArgumentTypeError),
        ("retry_errors", "no", ArgumentTypeError),
        ("request_timeout_s", "30", ArgumentTypeError),
        ("request_timeout_s", -1, ConfigError),
        ("base_url", 5, ArgumentTypeError),
        ("timeout_s", math.nan, ConfigError),
    ],
)
def test_evaluate_refuses_an_option_of_the_wrong_type(
    tmp_path: Path, option: str, value: Any, error: type[Exception]
) -> None:
    """A str of strategies was read one letter at a time; ``retry_errors="no"`` was true;
    a seed of text, a float or a bool reached the jitter's random generator."""
    formula = Formula.from_named([["p"], ["~p"]])
    item = EvalItem(verbalize(formula, "logic").record("i1"), formula, "UNSAT")
    with RunStore(tmp_path / "runs.sqlite") as store, pytest.raises(error) as caught:
        evaluate(["ref/oracle"], [item], store, **{option: value})
    assert getattr(caught.value, "parameter", None) == option
