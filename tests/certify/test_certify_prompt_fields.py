"""A prompt record's field types are checked once, by its model, before it is re-derived.

``certify`` reads a prompt record through ``PromptRecord.from_record`` (the
``record`` check, which stops the record's checks); ``rederive_prompt`` relies on it
and checks no field type again. Here every field it reads, given a value of another
JSON type, fails the ``record`` check with the model's message, and the re-derivation
is never reached.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.certify.test_certify_tamper import DATASET, INDEX
from twosat_formal.certify import certify_record
from twosat_formal.certify import rederive as rederive_module

#: The fields ``rederive_prompt`` reads, the JSON type each must have, and its words.
READ = {
    "instance_id": ("string", "a string"),
    "template": ("string", "a string"),
    "seed": ("integer", "an integer"),
    "ask_cycle": ("boolean", "true or false"),
}
#: A value of each JSON type, with its type's name (an integer is a number).
VALUES: list[tuple[Any, set[str], str]] = [
    (None, set(), "null"),
    (True, {"boolean"}, "boolean"),
    (3, {"integer"}, "number"),
    (2.5, set(), "number"),
    ("x", {"string"}, "string"),
    ([1], set(), "array"),
    ({"a": 1}, set(), "object"),
]
PROMPT = next(r for r in DATASET if "template" in r)


def _never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("rederive_prompt was reached")


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=40)
@given(field=st.sampled_from(sorted(READ)), value=st.sampled_from(VALUES))
def test_a_field_of_another_type_fails_the_record_check_first(
    monkeypatch: pytest.MonkeyPatch, field: str, value: tuple[Any, set[str], str]
) -> None:
    given_value, kinds, json_name = value
    kind, words = READ[field]
    if kind in kinds:
        return  # a value of the field's own type: the re-derivation judges it
    monkeypatch.setattr(rederive_module, "rederive_prompt", _never)
    record = {**PROMPT, field: given_value}
    failures = certify_record(record, instance=INDEX[PROMPT["instance_id"]])
    assert [(f.check, f.message) for f in failures] == [
        ("record", f"field {field!r} must be {words}, not {json_name}")
    ]


@pytest.mark.parametrize("ask", [3, None, "why", ["core"]])
def test_an_ask_outside_the_question_types_fails_the_record_check(
    monkeypatch: pytest.MonkeyPatch, ask: object
) -> None:
    monkeypatch.setattr(rederive_module, "rederive_prompt", _never)
    failures = certify_record({**PROMPT, "ask": ask}, instance=INDEX[PROMPT["instance_id"]])
    assert [f.check for f in failures] == ["record"]
    assert failures[0].message.startswith("field 'ask' must be 'decision', 'forced'")


def test_the_good_record_is_re_derived() -> None:
    assert certify_record(PROMPT, instance=INDEX[PROMPT["instance_id"]]) == []
