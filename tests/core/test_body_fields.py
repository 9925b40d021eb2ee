"""``--body KEY=VALUE`` fields (``core.model.extra_body``): read by the one JSON reader,
each key once, and only at values the pipeline honours."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.model import HONOURED_ONLY, extra_body
from twosat_formal.errors import ConfigError


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ('logit_bias={"1": 1, "1": 2}', "body field 'logit_bias': the key '1' appears twice"),
        ('x={"a": {"b": 1, "b": 1}}', "body field 'x': the key 'b' appears twice"),
        ("x=NaN", "body field 'x': NaN is not a JSON number"),
        ("x=[1e999]", "body field 'x': the number 1e999 is beyond the range of a double"),
    ],
)
def test_json_the_project_refuses_is_an_error_naming_the_field(field: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        extra_body([field])


@given(st.sampled_from(["top_k", "user", "x"]), st.integers(), st.integers())
def test_a_key_given_twice_is_refused_whatever_the_values(key: str, a: int, b: int) -> None:
    with pytest.raises(ConfigError, match=f"parameter '{key}' is set twice in --body"):
        extra_body([f"{key}={a}", f" {key} ={b}"])


@given(
    st.sampled_from(sorted(HONOURED_ONLY)),
    st.one_of(st.integers(-3, 5), st.booleans(), st.none(), st.text(max_size=3)),
)
def test_a_field_is_sent_only_at_the_value_the_pipeline_reads(key: str, value: object) -> None:
    read = HONOURED_ONLY[key][0]
    honoured = read is not None and type(value) is type(read) and value == read
    field = f"{key}={json.dumps(value)}"
    if honoured:
        assert extra_body([field]) == ((key, json.dumps(value)),)
    else:
        with pytest.raises(ConfigError, match=f"body field '{key}' = .* cannot be honoured"):
            extra_body([field])
