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
#: The largest integer SQLite's INTEGER holds (a signed 64-bit number).
TOP = 9_223_372_036_854_775_807
#: Values of every JSON type: right for some fields, wrong for others (an integer a
#: store holds at the edge, and one just past it).
ANY = [None, True, False, 0, 3, -1, 2.5, "", "stop", [1], {"a": 1}, TOP, TOP + 1, 10**30]


def _field(name: str) -> st.SearchStrategy[Any]:
    """A value of field ``name``: one it may hold, one time in ten any value at all."""
    return st.integers(0, 9).flatmap(lambda i: st.sampled_from(ANY if i == 0 else GOOD[name]))


ROWS = st.fixed_dictionaries({name: _field(name) for name in GOOD}).map(
    lambda row: {k: v for k, v in row.items() if v is not MISSING}
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: The fields of a row in the order they are checked, with their JSON type (each may
#: be null or left out but ``prompt_id``).
CHECKED = (
    ("prompt_id", "a string"),
    ("response", "a string"),
    ("finish_reason", "a string"),
    ("prompt_tokens", "an integer"),
    ("completion_tokens", "an integer"),
    ("latency_s", "a number"),
    ("reasoning", "a string"),
    ("model", "a string"),
    ("sample", "an integer"),
)


#: The fields that are never negative, with their lowest value as a message shows it.
LOWEST = {"prompt_tokens": "0", "completion_tokens": "0", "latency_s": "0.0", "sample": "0"}


def _json_type(value: Any) -> str:
    """The JSON type of a value of :data:`ANY`."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else "boolean"
    if isinstance(value, int | float):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names[type(value)]


def _fits(value: Any, kind: str) -> bool:
    if kind == "a string":
        return isinstance(value, str)
    return _is_int(value) or (kind == "a number" and isinstance(value, float))


def _expected_error(row: dict[str, Any]) -> str | None:
    """The error of the first bad field of ``row`` (``None`` when it is read)."""
    if "prompt_id" not in row:
        return "missing field 'prompt_id'"
    for name, kind in CHECKED:
        value: Any = row.get(name)
        if value is None and name != "prompt_id":
            continue
        if not _fits(value, kind):
            return f"field {name!r} must be {kind}, not {_json_type(value)}"
        if name in LOWEST and value < 0:
            return f"field {name!r} must be >= {LOWEST[name]}, not {value!r}"
        if kind == "an integer" and value > TOP:
            return f"field {name!r} must be <= {TOP}, not {value!r}"
    if not isinstance(row.get("response"), str) and not isinstance(row.get("error"), str):
        return "field 'response' must be a string (or null with an 'error' string)"
    return None


@pytest.mark.slow
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
            None if row.get("latency_s") is None else float(row["latency_s"]),
        )
    else:
        assert answer.response is None and answer.error == row.get("error")


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"response": "Yes"}, "missing field 'prompt_id'"),
        ({"prompt_id": None, "response": "Yes"}, "field 'prompt_id' must be a string, not null"),
        ({"prompt_id": "p", "response": 5}, "field 'response' must be a string, not number"),
        ({"prompt_id": "p"}, "field 'response' must be a string (or null with an 'error' string)"),
        (  # a failed request's fields are checked too
            {"prompt_id": "p", "response": None, "error": "x", "finish_reason": 1},
            "field 'finish_reason' must be a string, not number",
        ),
        ({"prompt_id": "p", "error": "x", "sample": -2}, "field 'sample' must be >= 0, not -2"),
        (
            {"prompt_id": "p", "error": "x", "sample": 1.0},
            "field 'sample' must be an integer, not number",
        ),
        (  # counts and times are never negative
            {"prompt_id": "p", "response": "Yes", "prompt_tokens": -3},
            "field 'prompt_tokens' must be >= 0, not -3",
        ),
        (
            {"prompt_id": "p", "response": "Yes", "completion_tokens": -1},
            "field 'completion_tokens' must be >= 0, not -1",
        ),
        (
            {"prompt_id": "p", "response": "Yes", "latency_s": -0.5},
            "field 'latency_s' must be >= 0.0, not -0.5",
        ),
    ],
)
def test_a_bad_row_is_named_at_its_line(row: dict[str, Any], expected: str) -> None:
    lines = io.StringIO(json.dumps(row) + "\n")
    with pytest.raises(RecordError) as caught:
        list(read_answer_stream(lines, "a.jsonl"))
    assert str(caught.value) == f"a.jsonl:1: {expected}" and caught.value.line == 1


@pytest.mark.parametrize(
    ("suffix", "sample"), [("", 0), ("#7", 7), (f"#{TOP}", TOP), ("#\u00b2", None)]
)
def test_a_batch_custom_id_gives_a_sample_a_store_holds(suffix: str, sample: int | None) -> None:
    body = {"model": "m", "choices": [{"message": {"content": "Yes"}}]}
    line = {"custom_id": "p" + suffix, "response": {"status_code": 200, "body": body}}
    (answer,) = read_answer_stream(io.StringIO(json.dumps(line) + "\n"), "b.jsonl")
    # a suffix that is no ASCII number is part of the prompt id
    assert (answer.prompt_id, answer.sample) == (
        ("p", sample) if sample is not None else (line["custom_id"], 0)
    )


@pytest.mark.parametrize("sample", [TOP + 1, 10**40])
def test_a_custom_id_past_the_largest_stored_integer_is_refused_at_its_line(sample: int) -> None:
    body = {"model": "m", "choices": [{"message": {"content": "Yes"}}]}
    good = {"custom_id": "q", "response": {"status_code": 200, "body": body}}
    line = {**good, "custom_id": f"p#{sample}"}
    lines = io.StringIO(json.dumps(good) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(RecordError, match=rf"^b.jsonl:2: field 'custom_id' names sample {sample}"):
        list(read_answer_stream(lines, "b.jsonl"))


def test_a_batch_line_names_its_custom_id() -> None:
    lines = io.StringIO('{"prompt_id": "p", "response": "No"}\n{"custom_id": 7}\n')
    with pytest.raises(RecordError) as caught:
        list(read_answer_stream(lines, "b.jsonl"))
    assert str(caught.value) == "b.jsonl:2: field 'custom_id' must be a string, not number"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ({"doc": "p", "resps": [["a"]]}, "field 'doc' must be an object, not string"),
        ({"doc": {}, "resps": [["a"]]}, "missing field 'doc.id'"),
        ({"doc": {"id": 3}, "resps": [["a"]]}, "field 'doc.id' must be a string, not number"),
        ({"doc": {"id": "p"}, "resps": []}, "field 'resps' must not be empty"),
        ({"doc": {"id": "p"}, "resps": ["a"]}, "field 'resps[0]' must be a list, not string"),
        (
            {"doc": {"id": "p"}, "resps": [["a", None]]},
            "field 'resps[0][1]' must be a string, not null",
        ),
    ],
)
def test_a_bad_lm_eval_line_names_its_field(line: dict[str, Any], expected: str) -> None:
    lines = io.StringIO(json.dumps(line) + "\n")
    with pytest.raises(RecordError) as caught:
        list(read_answer_stream(lines, "s.jsonl"))
    assert str(caught.value) == f"s.jsonl:1: {expected}"


@given(st.lists(st.text(max_size=5), min_size=1, max_size=4), st.text(min_size=1, max_size=4))
def test_an_lm_eval_line_gives_one_answer_per_repeat(texts: list[str], prompt_id: str) -> None:
    line = {"doc": {"id": prompt_id, "x": 1}, "resps": [texts], "filter": "none"}
    answers = list(read_answer_stream(io.StringIO(json.dumps(line) + "\n"), "s.jsonl"))
    assert [(a.prompt_id, a.sample, a.form) for a in answers] == [
        (prompt_id, k, "lm-eval") for k in range(len(texts))
    ]
    assert [a.response.text for a in answers if a.response is not None] == texts
