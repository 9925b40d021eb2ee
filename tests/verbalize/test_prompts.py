"""The App. G.2 evaluation prompts and the prompt record (JSON Lines)."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import RecordError
from twosat_formal.verbalize import prompt_record, verbalize
from twosat_formal.verbalize.prompts import (
    SCHEMA_VERSION,
    PromptRecord,
    formula_id,
    prompt_id,
    read_prompts,
    story_prompt,
    template_prompt,
    write_prompts,
)

# App. G.1's example in the logic scheme inside App. G.2's template prompt, by hand.
LOGIC_PROMPT = """Consider these logical relationships:
Either A is false or B is true (or both).
Either A is true or C is false (or both).

Can you assign truth values to all statements without creating a contradiction?

Think step by step.

If a valid assignment exists, provide it as JSON
using "true" or "false" as values.
Example format:
{
  "A": "true",
  "B": "false",
  "C": "true"
}

End your response with exactly one of:
- "The answer is: Yes" (if a valid assignment exists)
- "The answer is: No" (if no valid assignment exists)"""

STORY_PROMPT = """In the old manor, two clues remain.

Think step by step.

If a valid assignment exists, provide it as JSON
with one of the allowed values for each entity.

Entities and their possible values:
  - "the butler": "is guilty" or "is innocent"
  - "the maid": "lied" or "told the truth"

Example JSON format:
{
  "entity_name": "value"
}

End your response with exactly one of:
- "The answer is: Yes" (if a valid assignment exists)
- "The answer is: No" (if no valid assignment exists)"""


def test_template_prompt_is_the_papers_text() -> None:
    f = Formula.from_named([["~a", "b"], ["a", "~c"]])
    assert verbalize(f, "logic", entities=["A", "B", "C"]).text == LOGIC_PROMPT


def test_story_prompt_is_the_papers_text() -> None:
    entities = [("the butler", "is guilty", "is innocent"), ("the maid", "lied", "told the truth")]
    assert story_prompt("In the old manor, two clues remain.", entities) == STORY_PROMPT


def test_example_json_shows_first_three_entities_in_text_order() -> None:
    f = Formula([[3, -1], [2, 4], [1]], num_vars=5)
    prompt = verbalize(f, "door", entities=["door 9", "door 8", "door 7", "door 6", "door 5"])
    tail = prompt.text.split("Example format:\n", 1)[1].split("\n\n", 1)[0]
    assert tail == '{\n  "door 7": "open",\n  "door 9": "closed",\n  "door 8": "open"\n}'
    assert json.loads(tail) == {"door 7": "open", "door 9": "closed", "door 8": "open"}


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5])
def test_example_json_is_valid_json_for_any_entity_count(count: int) -> None:
    entities = [f"room {i}" for i in range(1, count + 1)]
    text = template_prompt("V", "lit", "dark", entities)
    block = text.split("Example format:\n", 1)[1].split("\n\n", 1)[0]
    expected = dict(zip(entities[:3], ["lit", "dark", "lit"], strict=False))
    assert json.loads(block) == expected


def test_letter_prompt_values_keep_the_paper_apostrophe() -> None:
    prompt = verbalize(Formula([[1, 2]]), "letter", entities=["Alice", "Bob"])
    assert 'using "has" or "doesn’t have" as values.' in prompt.text
    assert '"Bob": "doesn’t have"' in prompt.text


def test_prompt_id_is_sha256_of_instance_template_seed() -> None:
    expected = hashlib.sha256(b'["er-42", "logic", 7]').hexdigest()
    assert prompt_id("er-42", "logic", 7) == expected
    assert len({prompt_id(i, t, s) for i in "ab" for t in ("logic", "door") for s in (0, 1)}) == 8


def test_formula_id_depends_on_clauses_and_names() -> None:
    f = Formula([[1, -2]])
    assert formula_id(f) == formula_id(Formula([[1, -2]]))
    assert formula_id(f) != formula_id(f.with_names(["p", "q"]))
    assert formula_id(f) != formula_id(Formula([[1, -2]], num_vars=3))


text_st = st.text(st.characters(blacklist_categories=["Cs"]), max_size=30)
records = st.builds(
    PromptRecord.create,
    instance_id=text_st,
    template=st.sampled_from(["logic", "letter", "team", "social", "room", "door"]),
    text=text_st,
    entities=st.dictionaries(text_st, text_st, max_size=4).map(
        lambda d: {k: f"{v}#{i}" for i, (k, v) in enumerate(d.items())}
    ),
    true_value=text_st,
    false_value=text_st,
    seed=st.integers(-(2**63), 2**63),
    roundtrip=st.none() | st.just({"method": "m", "result": "proved", "time_s": 0.5}),
)


@given(st.lists(records, max_size=4))
def test_records_survive_write_and_read(recs: list[PromptRecord]) -> None:
    buffer = io.StringIO()
    assert write_prompts(recs, buffer) == len(recs)
    lines = buffer.getvalue().splitlines()
    assert len(lines) == len(recs)
    back = [PromptRecord.from_record(json.loads(line)) for line in lines]
    assert back == recs
    for line in lines:
        assert list(json.loads(line)) == [
            "schema_version",
            "id",
            "instance_id",
            "template",
            "text",
            "entities",
            "true_value",
            "false_value",
            "seed",
            "roundtrip",
        ]


def test_read_and_write_files(tmp_path: Path) -> None:
    f = Formula.from_named([["a", "~b"], ["b"]])
    recs = [prompt_record(f, name, instance_id="inst", seed=1) for name in ("team", "letter")]
    path = tmp_path / "prompts.jsonl"
    assert write_prompts(recs, path) == 2
    raw = path.read_text(encoding="utf-8")
    assert "doesn’t have" in raw  # UTF-8, not escaped
    path.write_text("\n" + raw + "\n\n", encoding="utf-8")  # blank lines are skipped
    assert list(read_prompts(path)) == recs
    first = next(iter(read_prompts(str(path))))
    assert first.text.startswith("We have team assignment rules:")


def test_unicode_line_separators_stay_inside_one_line() -> None:
    rec = PromptRecord.create("i", "logic", "a\u2028b\x85c\u2029d\ne", {}, "true", "false", 0)
    buffer = io.StringIO()
    write_prompts([rec, rec], buffer)
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 2
    assert PromptRecord.from_record(json.loads(lines[1])) == rec


def _good() -> dict[str, object]:
    return PromptRecord.create("i", "logic", "T", {"A": "x1"}, "true", "false", 0).to_record()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"schema_version": 2}, "unsupported schema_version 2"),
        ({"schema_version": None}, "unsupported schema_version"),
        ({"text": None}, "'text' must be a string"),
        ({"seed": True}, "'seed' must be an integer"),
        ({"seed": "0"}, "'seed' must be an integer"),
        ({"entities": ["A"]}, "'entities' must be an object, not array"),
        ({"entities": {"A": 1}}, "'entities.A' must be a string, not number"),
        ({"entities": {"A": "x1", "B": "x1"}}, "same variable"),
        ({"roundtrip": "yes"}, "'roundtrip' must be an object"),
        ({"ask_cycle": "yes"}, "'ask_cycle' must be true or false, not string"),
        ({"id": "0" * 64}, "is not the hash"),
        ({"seed": 1}, "is not the hash"),
    ],
)
def test_malformed_records(change: dict[str, object], message: str) -> None:
    record = {**_good(), **change}
    with pytest.raises(RecordError, match=message) as info:
        PromptRecord.from_record(record, line=4, source="p.jsonl")
    assert (info.value.line, info.value.source) == (4, "p.jsonl")
    assert str(info.value).startswith("p.jsonl:4: ")


def test_missing_field_and_non_object() -> None:
    record = _good()
    del record["template"]
    with pytest.raises(RecordError, match="'template'"):
        PromptRecord.from_record(record)
    with pytest.raises(RecordError, match="JSON object"):
        PromptRecord.from_record([1, 2])


def test_bad_json_line_is_located(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(_good()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(RecordError, match="invalid JSON") as info:
        list(read_prompts(path))
    assert info.value.line == 2
    assert info.value.source == str(path)


def test_schema_version_is_one() -> None:
    assert SCHEMA_VERSION == 1
    assert _good()["schema_version"] == 1
