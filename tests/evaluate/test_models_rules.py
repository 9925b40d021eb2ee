"""One rule per parameter: a spec's sampling option and its typed field agree.

A model spec's ``?top_p=...`` is read from text, then checked by the same rule as
:class:`~twosat_formal.core.model.SamplingParams`' field: both accept the same values,
and a refused option names what is valid in the field's words.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.model import HONOURED_ONLY, SamplingParams, extra_body
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import LoadOptions, parse_spec
from twosat_formal.evaluate.models.openai_compat import request_body

#: How the documentation says a spec's text is read, per sampling option.
READ = {
    "max_tokens": int,
    "max_completion_tokens": int,
    "seed": int,
    "temperature": float,
    "top_p": float,
    "reasoning_effort": str,
}
TEXTS = st.one_of(
    st.integers(-3, 2**63).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["low", "high", "max", "", "true", "1.5", " 2 "]),
)


def _typed(key: str, text: str) -> ConfigError | None:
    """The typed field's refusal of ``text`` read as the documentation says, or ``None``."""
    try:
        value = READ[key](text)
    except ValueError:
        return ConfigError("unreadable", parameter=key, valid="")
    try:
        SamplingParams(**{key: value})
    except ConfigError as exc:
        return exc
    return None


@given(st.sampled_from(sorted(READ)), TEXTS)
def test_a_spec_option_and_its_field_accept_the_same_values(key: str, text: str) -> None:
    field, spec = _typed(key, text), f"ref/coin?{key}={quote(text, safe='')}"
    if field is None:
        assert parse_spec(spec)[2] == {key: READ[key](text)}
        return
    with pytest.raises(ConfigError) as info:
        parse_spec(spec)
    assert str(info.value) == f"option {key}={text!r} is not {info.value.valid}"
    assert info.value.parameter == key
    if field.valid:  # the field refused the read value: the same rule's words
        assert info.value.valid == field.valid


@given(st.sampled_from(["chat", "completion", "Chat", "x", ""]))
def test_a_spec_mode_and_a_load_mode_follow_one_rule(mode: str) -> None:
    valid = mode in ("chat", "completion")
    if valid:
        assert parse_spec(f"openai/m?mode={mode}")[2] == {"mode": mode}
        assert LoadOptions(mode=mode).mode == mode
        return
    with pytest.raises(ConfigError) as spec_error:
        parse_spec(f"openai/m?mode={mode}")
    with pytest.raises(ConfigError) as load_error:
        LoadOptions(mode=mode)
    assert str(spec_error.value) == f"option mode={mode!r} is not chat or completion"
    assert str(load_error.value) == f"mode must be chat or completion, not {mode!r}"
    assert spec_error.value.valid == load_error.value.valid == "chat or completion"


@given(
    st.sampled_from(sorted(HONOURED_ONLY)),
    st.one_of(st.integers(-1, 3), st.booleans(), st.none(), st.sampled_from(["x", {}, []])),
)
def test_a_body_field_no_request_honours_is_refused_however_the_params_are_made(
    key: str, value: object
) -> None:
    """``--body`` (:func:`extra_body`) and parameters built in Python, as the batch and
    eval APIs take them, refuse the same fields with the same words: ``n=3`` is never
    sent."""
    text = json.dumps(value)
    try:
        pairs = extra_body([f"{key}={text}"])
    except ConfigError as error:
        with pytest.raises(ConfigError) as direct:
            SamplingParams(extra_body=((key, text),))
        assert str(direct.value) == str(error)
        return
    body = request_body("chat", "m", "Hi", SamplingParams(extra_body=pairs))
    assert body[key] == value
