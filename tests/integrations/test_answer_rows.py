"""Plain answer rows (``score``'s ``jsonl`` form): each field's type is checked, in order.

The expected outcome of a row is worked out here, field by field, from the rules of
:mod:`twosat_formal.integrations.answers` (its module docstring), not from its code:
a row is read into exactly its values, or refused with the error of its first bad
field, at its line.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import RecordError
from twosat_formal.integrations.answers import DEFAULT_MODEL, read_answer_stream

#: Values of each field that it may hold (``MISSING``: the row leaves it out).
MISSING = object()
GOOD: dict[str, list[Any]] = {
    "prompt_id": ["p1"],
    "response": ["The answer is: Yes", None, MISSING],
    "error": ["boom", None, MISSING],
    "finish_reason": ["stop", None, MISSING],
    "prompt_tokens": [0, 3, None, MISSING],
    "completion_tokens": [7, None, MISSING],
    "latency_s": [0, 2.5, None, MISSING],
    "reasoning": ["", "hmm", None, MISSING],
    "model": ["m", "", None, MISSING],
    "sample": [0, 2, None, MISSING],
}
#: Values of every JSON type: right for some fields, wrong for others.
ANY = [None, True, False, 0, 3, -1, 2.5, "", "stop", [1], {"a": 1}]


def _field(name: str) -> st.SearchStrategy[Any]:
    """A value of field ``name``: one it may hold, one time in ten any value at all."""
    return st.integers(0, 9).flatmap(lambda i: st.sampled_from(ANY if i == 0 else GOOD[name]))


ROWS = st.fixed_dictionaries({name: _field(name) for name in GOOD}).map(
    lambda row: {k: v for k, v in row.items() if v is not MISSING}
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expected_error(row: dict[str, Any]) -> str | None:
    """The error of the first bad field of ``row`` (``None`` when it is read)."""
    if not isinstance(row.get("prompt_id"), str):
        return "field 'prompt_id' must be a string"
    response = row.get("response")
    if isinstance(response, str):
        if row.get("finish_reason") is not None and not isinstance(row["finish_reason"], str):
            return "field 'finish_reason' must be a string or null"
        tokens = [row.get("prompt_tokens"), row.get("completion_tokens")]
        if any(value is not None and not _is_int(value) for value in tokens):
            return "fields 'prompt_tokens' and 'completion_tokens' must be integers or null"
        latency = row.get("latency_s")
        if latency is not None and not (_is_int(latency) or isinstance(latency, float)):
            return "field 'latency_s' must be a number or null"
        if row.get("reasoning") is not None and not isinstance(row["reasoning"], str):
            return "field 'reasoning' must be a string or null"
    elif response is not None or not isinstance(row.get("error"), str):
        return "field 'response' must be a string (or null with an 'error' string)"
    if row.get("model") is not None and not isinstance(row["model"], str):
        return "field 'model' must be a string"
    sample = row.get("sample")
    if sample is not None and not (_is_int(sample) and sample >= 0):
        return "field 'sample' must be an integer >= 0"
    return None


@settings(max_examples=400, deadline=None)
@given(row=ROWS)
def test_a_plain_row_is_read_as_it_is_or_refused_at_its_first_bad_field(
    row: dict[str, Any],
) -> None:
    first = {"prompt_id": "p0", "response": "No"}  # a good line: the row's line is 2
    lines = io.StringIO(json.dumps(first) + "\n" + json.dumps(row) + "\n")
    expected = _expected_error(row)
    if expected is not None:
        with pytest.raises(RecordError) as caught:
            list(read_answer_stream(lines, "answers.jsonl"))
        assert str(caught.value) == f"answers.jsonl:2: {expected}"
        return
    _, answer = list(read_answer_stream(lines, "answers.jsonl"))
    assert (answer.prompt_id, answer.line, answer.form) == (row["prompt_id"], 2, "jsonl")
    assert answer.sample == (row.get("sample") or 0)
    assert answer.model == (row.get("model") or DEFAULT_MODEL)
    if isinstance(row.get("response"), str):
        got = answer.response
        assert got is not None and answer.error is None
        assert (got.text, got.finish_reason, got.reasoning) == (
            row.get("response"),
            row.get("finish_reason"),
            row.get("reasoning"),
        )
        assert (got.prompt_tokens, got.completion_tokens, got.latency_s) == (
            row.get("prompt_tokens"),
            row.get("completion_tokens"),
            row.get("latency_s"),
        )
    else:
        assert answer.response is None and answer.error == row.get("error")
