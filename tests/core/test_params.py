"""Parameter tables (pydantic): what a family's or an operator's table accepts and refuses.

The expectations are written from the documented rules (``docs/generators.md``,
``docs/perturbations.md``), not from the validators: a value and its text read the
same, bounds hold at both ends, ``true`` is never a number, an unknown key is named.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Annotated, Any, Literal
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field

from tests.support.params import value_of
from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.core.params import COUNT, MUST, Rule, check, rules_table, table, validate
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.knobs import ParamSpec, validate_params
from twosat_formal.make.perturb.operator import Param

KNOB = ParamSpec("split", "knob", 0.5, "twist")
SPECS = (KNOB, ParamSpec("k", "int", None, "index", low=1, high=9))


def _refused(spec: ParamSpec, value: object) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        validate_params("demo", (spec,), {spec.name: value})
    return info.value


@given(st.floats(0, 1))
def test_a_knob_reads_its_value_and_its_text_alike(value: float) -> None:
    assert value_of(KNOB, value) == value
    assert value_of(KNOB, repr(value)) == value
    assert value_of(KNOB, f"  {value!r} ") == value


@given(st.integers(0, 50), st.integers(1, 50))
def test_a_knob_reads_fractions(p: int, q: int) -> None:
    text = f"{p}/{q}"
    if p <= q:
        assert value_of(KNOB, text) == float(Fraction(p, q))
    else:
        assert _refused(KNOB, text).parameter == "split"


@given(st.one_of(st.floats().filter(lambda v: not 0 <= v <= 1), st.booleans(), st.just("1/0")))
def test_a_knob_refuses_what_is_not_in_0_1(value: object) -> None:
    error = _refused(KNOB, value)
    assert error.parameter == "split" and error.valid == "a number in [0, 1]"
    assert f"got {value!r}" in str(error)


@given(st.integers(-20, 20), st.integers(-5, 5), st.integers(0, 10))
def test_an_int_holds_its_bounds_given_as_int_text_or_integral_float(
    value: int, low: int, width: int
) -> None:
    spec = ParamSpec("n", "int", None, "count", low=low, high=low + width)
    for given_as in (value, str(value), f" {value} ", float(value)):
        if low <= value <= low + width:
            assert value_of(spec, given_as) == value and type(value_of(spec, given_as)) is int
        else:
            assert _refused(spec, given_as).valid == f"an integer in [{low}, {low + width}]"


@pytest.mark.parametrize("value", [True, 2.5, "two", "", MAX_SIZE + 1, [1]])
def test_an_int_refuses_what_is_no_integer_in_range(value: object) -> None:
    assert _refused(ParamSpec("n", "int", None, "count"), value).parameter == "n"


@given(st.sampled_from(["1", "true", "yes", "on", "0", "false", "no", "off"]), st.booleans())
def test_a_bool_reads_its_words_in_any_case(word: str, upper: bool) -> None:
    spec = ParamSpec("shuffle", "bool", False, "order")
    text = f" {word.upper() if upper else word} "
    assert value_of(spec, text) is (word in ("1", "true", "yes", "on"))
    assert _refused(spec, 1).valid == "true or false"


def test_not_given_keys_take_defaults_and_unknown_keys_are_named() -> None:
    values, given_keys = validate_params("demo", SPECS, {"k": "4", "split": None})
    assert values == {"split": 0.5, "k": 4} and given_keys == {"k"}
    with pytest.raises(ConfigError) as info:
        validate_params("demo", SPECS, {"k": "x", "zz": None})
    assert info.value.parameter == "zz" and info.value.valid == "split, k"


# -- operator parameters ---------------------------------------------------------------------


@given(st.lists(st.integers(-MAX_SIZE, MAX_SIZE), max_size=5), st.sampled_from([", ", ","]))
def test_an_int_list_reads_json_comma_text_tuples_alike(items: list[int], sep: str) -> None:
    param = Param("perm", "ints", None, "order")
    for form in (items, tuple(items), sep.join(map(str, items)), str(items)):
        assert value_of(param, form) == items
    assert value_of(param, "none") is None and value_of(param, None) is None


@given(st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True), min_size=1, max_size=4))
def test_a_name_list_strips_each_name(names: list[str]) -> None:
    param = Param("vars", "strs", None, "names")
    assert value_of(param, " , ".join(names)) == names
    assert value_of(param, [f" {n} " for n in names]) == names


@given(st.integers(-10, 10))
def test_an_operator_int_holds_its_minimum_and_refuses_floats(value: int) -> None:
    param = Param("count", "int", 3, "how many", minimum=0)
    if value >= 0:
        assert value_of(param, str(value)) == value
    else:
        with pytest.raises(ConfigError, match=f"invalid value '{value}' for parameter 'count'"):
            value_of(param, str(value))
    with pytest.raises(ConfigError):
        value_of(param, float(value))


@pytest.mark.parametrize(
    ("kind", "value"),
    [("int", None), ("int", "none"), ("float", "inf"), ("float", "nan"), ("bool", "on")],
)
def test_an_operator_parameter_refuses(kind: str, value: object) -> None:
    with pytest.raises(ConfigError) as info:
        value_of(Param("p", kind, 0, "help"), value)
    assert info.value.parameter == "p"


def test_a_table_refuses_an_unknown_key_before_a_bad_value() -> None:
    adapter = table("t", {"a": int})
    seen: list[tuple[str, bool]] = []

    def problem(key: str, unknown: bool) -> Exception:
        seen.append((key, unknown))
        return ValueError(key)

    params: dict[str, Any] = {"a": "x", "b": 1}
    with pytest.raises(ValueError, match="b"):
        validate(adapter, params, problem)
    with pytest.raises(ValueError, match="a"):
        validate(adapter, {"a": True}, problem)
    assert seen == [("b", True), ("a", False)]


# -- model spec options ----------------------------------------------------------------------


@given(st.integers(-5, 10**6), st.sampled_from(["", " "]))
def test_a_budget_is_an_integer_of_at_least_one(budget: int, pad: str) -> None:
    from twosat_formal.evaluate.models import load_model, parse_spec

    spec = f"ref/bounded?budget={pad}{budget}"
    if budget >= 1:
        assert parse_spec(spec)[2] == {"budget": budget}
        assert load_model(spec).budget == budget  # type: ignore[attr-defined]
    else:
        with pytest.raises(ConfigError, match=re.escape(f"option budget='{pad}{budget}' is not")):
            parse_spec(spec)


@pytest.mark.parametrize(
    ("spec", "parameter"),
    [
        ("ref/bounded?budget=1.5", "budget"),
        ("ref/bounded?budget=", "budget"),
        ("openai/m?mode=chatty", "mode"),
        ("openai/m?n_ctx=4096", "n_ctx"),  # a llama.cpp option
        ("openai/m?temperature=-0.1", "temperature"),
        ("openai/m?reasoning_effort=huge", "reasoning_effort"),
        ("ref/oracle?budget=3", "budget"),
    ],
)
def test_a_model_spec_option_is_checked_by_its_kinds_table(spec: str, parameter: str) -> None:
    from twosat_formal.evaluate.models import parse_spec

    with pytest.raises(ConfigError) as info:
        parse_spec(spec)
    assert info.value.parameter == parameter and info.value.valid


def test_model_spec_options_come_back_typed() -> None:
    from twosat_formal.evaluate.models import parse_spec

    options = parse_spec("openai/m?mode=completion&temperature=0.5&seed=7&max_tokens=9")[2]
    assert options == {"mode": "completion", "temperature": 0.5, "seed": 7, "max_tokens": 9}
    assert [type(options[k]) for k in ("temperature", "seed")] == [float, int]


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-3, 10**6))
def test_a_rate_limit_in_a_spec_is_a_finite_positive_number(rate: float) -> None:
    from twosat_formal.evaluate.run.limits import ModelLimits, split_limits

    spec = f"openai/m?rpm={quote(repr(rate))}&mode=chat"
    if rate > 0 and rate not in (float("inf"),):
        assert split_limits(spec) == ("openai/m?mode=chat", ModelLimits(rpm=float(rate)))
    else:
        with pytest.raises(ConfigError, match=r"option rpm=.* is not a finite number > 0"):
            split_limits(spec)


@given(st.integers(-3, 50), st.booleans())
def test_a_concurrency_is_a_whole_number_of_at_least_one(count: int, as_float: bool) -> None:
    from twosat_formal.evaluate.run.limits import ModelLimits, split_limits

    text = f"{float(count)!r}" if as_float else str(count)
    if count >= 1:
        assert split_limits(f"ref/coin?concurrency={text}")[1] == ModelLimits(concurrency=count)
    else:
        with pytest.raises(ConfigError):
            split_limits(f"ref/coin?concurrency={text}")
    with pytest.raises(ConfigError, match="concurrency"):
        split_limits(f"ref/coin?concurrency={count}.5")


def test_families_and_operators_stay_picklable_once_their_tables_are_used() -> None:
    import pickle

    from twosat_formal.core.formula import Formula
    from twosat_formal.make.generators import FAMILIES, generate
    from twosat_formal.make.perturb import OPERATORS

    generate("backbone", clauses=20, seed=1, beta="0.3")
    OPERATORS.get("filler").apply(Formula([[1, 2]]), seed=1, count="2")
    for declared in (FAMILIES.get("backbone"), OPERATORS.get("filler")):
        assert pickle.loads(pickle.dumps(declared)) == declared


def _rules() -> dict[str, Rule]:
    return {
        "count": Rule(Annotated[int, Field(ge=1)], "an integer >= 1"),
        "mode": Rule(Literal["a", "b"], "a or b", "unknown mode {value!r}"),
    }


@given(
    st.dictionaries(
        st.sampled_from(["count", "mode", "other"]),
        st.one_of(st.integers(-2, 3), st.booleans(), st.sampled_from(["a", "b", "c"])),
    )
)
def test_a_rule_table_names_the_first_bad_parameter_with_its_rules_message(
    given_values: dict[str, object],
) -> None:
    rules = _rules()
    adapter = rules_table("demo", rules)
    count, mode = given_values.get("count", 1), given_values.get("mode", "a")
    count_ok = type(count) is int and count >= 1
    if "other" in given_values:  # an unknown key first
        expected = ("other", "unknown parameter 'other'", "count, mode")
    elif not count_ok:
        expected = ("count", f"count must be an integer >= 1, got {count!r}", "an integer >= 1")
    elif mode not in ("a", "b"):
        expected = ("mode", f"unknown mode {mode!r}", "a or b")
    else:
        assert check(adapter, rules, given_values) == given_values
        return
    with pytest.raises(ConfigError) as info:
        check(adapter, rules, given_values)
    assert (info.value.parameter, str(info.value), info.value.valid) == expected


@given(
    st.sampled_from(["size", "sise"]),
    st.one_of(st.integers(-3, 5), st.booleans(), st.floats(-2, 5), st.text(max_size=2)),
)
def test_check_hands_an_unknown_key_to_its_owner_and_formats_the_rules_message(
    key: str, value: object
) -> None:
    rules = {"size": COUNT._replace(message=MUST)}
    adapter = rules_table("demo", rules)
    is_count = type(value) is int and value >= 1
    if key == "size" and is_count:
        assert check(adapter, rules, {key: value}, LookupError) == {key: value}
        return
    expected: type[Exception] = LookupError if key == "sise" else ConfigError
    with pytest.raises(expected) as info:
        check(adapter, rules, {key: value}, LookupError)
    if isinstance(info.value, ConfigError):
        assert str(info.value) == f"size must be an integer >= 1, not {value!r}"
        assert (info.value.parameter, info.value.valid) == ("size", "an integer >= 1")
    else:
        assert info.value.args == ("sise",)
