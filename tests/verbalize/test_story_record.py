"""Story records: the fallback sentence, the reply readers, JSON, the proof and its checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.support.story import equivalent, recovered_ints, tell
from twosat_formal.core.formula import Formula
from twosat_formal.core.records import Clue, StoryRecordModel, clue_outcome
from twosat_formal.errors import CertificateError, ProofError, RecordError
from twosat_formal.verbalize.story import (
    THEMES,
    ClueRecord,
    StoryRecord,
    check_story_record,
    fallback_sentence,
    is_story_record,
    parse_fallback,
    prove_story,
    story_statistics,
)
from twosat_formal.verbalize.story.files import read_stories, write_stories
from twosat_formal.verbalize.story.record import attested_digest, story_id
from twosat_formal.verbalize.story.replies import assess, read_entities, read_state

FORMULA = Formula.from_named([["a", "~b"], ["b", "c"], ["~c"], ["~a", "~d"], ["d", "b"]])
# clause 1 validates on attempt 1, clause 2 on attempt 2, clause 4 falls back, 5 on attempt 1
KINDS = {
    (2, 0): "wrong-polarity",
    (4, 0): "wrong-entity",
    (4, 1): "garble-entities",
    (4, 2): "empty",
}


@pytest.fixture(scope="module")
def record() -> StoryRecord:
    run, _, _ = tell(FORMULA, KINDS, theme="heist", seed=4)
    return run.records[0]


# -- the fallback sentence ------------------------------------------------------------------


@st.composite
def statements(draw: Any) -> tuple[dict[str, tuple[str, str]], list[tuple[str, bool]]]:
    theme = THEMES.get(draw(st.sampled_from(THEMES.names())))
    n = draw(st.integers(2, 80))
    names = theme.entities_for(n, seed=draw(st.integers(0, 10**6)))
    descriptions = {e: theme.describe(e) for e in names}
    width = draw(st.integers(1, 2))
    picked = draw(st.lists(st.sampled_from(names), min_size=width, max_size=width))
    values = draw(st.lists(st.booleans(), min_size=width, max_size=width))
    return descriptions, list(zip(picked, values, strict=True))


@given(statements())
def test_a_fallback_sentence_reads_back_as_its_clause(
    case: tuple[dict[str, tuple[str, str]], list[tuple[str, bool]]],
) -> None:
    descriptions, pairs = case
    text = fallback_sentence([(e, descriptions[e][0 if v else 1]) for e, v in pairs])
    assert parse_fallback(text, descriptions) == pairs
    if len(pairs) == 2:
        assert text.startswith("Either ") and text.endswith(" (or both).") and ", or " in text


def test_the_fallback_sentence_is_the_papers() -> None:
    text = fallback_sentence([("the butler", "is innocent"), ("the maid", "saw the killer")])
    assert text == "Either the butler is innocent, or the maid saw the killer (or both)."


def test_parse_fallback_refuses_other_text_and_ambiguity() -> None:
    descriptions = {"the vault": ("is open", "is sealed"), "the dog": ("is asleep", "is awake")}
    for text in (
        "Either the vault is open or the dog is awake (or both).",
        "Either the vault is ajar, or the dog is awake (or both).",
        "Either the cat is open, or the dog is awake (or both).",
        "the vault is open.",
        "",
    ):
        with pytest.raises(CertificateError):
            parse_fallback(text, descriptions)
    tricky = {"a": ("b", "c"), "a b, or a": ("b", "z")}
    with pytest.raises(CertificateError, match="several ways"):
        parse_fallback("Either a b, or a b, or a b (or both).", tricky)
    with pytest.raises(Exception, match="one or two literals"):
        fallback_sentence([])


# -- the reply readers ----------------------------------------------------------------------

AVAILABLE = ["the guard", "the vault", "the guard #2", "the painting"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('["the guard", "the vault"]', ("the guard", "the vault")),
        ('["The Vault", "the guard #2"]', ("the vault", "the guard #2")),
        ('Sure: ["vault", "painting"].', ("the vault", "the painting")),
        ("['the guard', 'the painting']", ("the guard", "the painting")),
        ('```json\n[" the guard ", "the vault."]\n```', ("the guard", "the vault")),
        ('["the guard", "the guard"]', ("the guard", "the guard")),
        ('["the guard"]', None),
        ('["the guard", "the vault", "the painting"]', None),
        ('["the guard", "the moon"]', None),
        ('["the guard", 3]', None),
        ("the guard and the vault", None),
        ("", None),
        ('{"a": ["the guard", "the vault"]', ("the guard", "the vault")),
    ],
)
def test_read_entities(reply: str, expected: tuple[str, str] | None) -> None:
    assert read_entities(reply, AVAILABLE) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("A", "A"),
        ("B", "B"),
        (' "B" ', "B"),
        ("**A**", "A"),
        ("A) the guard was bribed", "A"),
        ("Answer: B.", "B"),
        ("A or B", None),
        ("AB", None),
        ("a", None),
        ("Neither", None),
        ("", None),
    ],
)
def test_read_state(reply: str, expected: str | None) -> None:
    assert read_state(reply) == expected


def test_assess_orders_its_verdicts() -> None:
    source = [("the guard", True), ("the vault", False)]
    ok = '["the vault", "the guard"]'
    assert assess(None, None, [], source, AVAILABLE).outcome == "error"
    assert assess("  ", ok, [], source, AVAILABLE).outcome == "empty-clue"
    assert assess("c", None, [], source, AVAILABLE).outcome == "error"
    assert assess("c", "no", [], source, AVAILABLE).outcome == "malformed-entities"
    wrong = '["the guard", "the painting"]'
    assert assess("c", wrong, [], source, AVAILABLE).outcome == "wrong-entities"
    assert assess("c", ok, ["B", None], source, AVAILABLE).outcome == "error"
    assert assess("c", ok, ["B", "maybe"], source, AVAILABLE).outcome == "malformed-state"
    assert assess("c", ok, ["A", "A"], source, AVAILABLE).outcome == "wrong-polarity"
    valid = assess("c", ok, ["B", "A"], source, AVAILABLE)
    assert valid.outcome == "valid"
    assert valid.recovered == (("the vault", False), ("the guard", True))


# -- the record and its proof ---------------------------------------------------------------


def test_the_record_matches_the_script(record: StoryRecord) -> None:
    assert [c.outcome for c in record.clues] == [
        "validated",
        "validated",
        "direct",
        "fallback",
        "validated",
    ]
    assert [c.accepted for c in record.clues] == [1, 2, None, None, 1]
    assert [len(c.attempts) for c in record.clues] == [1, 2, 0, 3, 1]
    assert [a.outcome for a in record.clues[3].attempts] == [
        "wrong-entities",
        "malformed-entities",
        "empty-clue",
    ]
    got = recovered_ints(record, FORMULA)
    assert got == [list(c) for c in FORMULA.clauses]
    assert equivalent(got, [list(c) for c in FORMULA.clauses], FORMULA.num_vars)
    assert record.roundtrip is not None and record.roundtrip["result"] == "validated"
    assert (record.roundtrip["validated"], record.roundtrip["fallback"]) == (3, 1)
    digest = attested_digest(record)
    assert record.id == story_id("inst-1", "heist", record.model, 4, digest)
    assert record.id != story_id("inst-1", "heist", record.model, 4)
    assert record.text.startswith(record.story + "\n\nThink step by step.\n\n")
    for entity in record.entities:
        true, false = THEMES.get("heist").describe(entity)
        assert f'  - "{entity}": "{true}" or "{false}"\n' in record.text


def test_statistics_count_what_the_script_did(record: StoryRecord) -> None:
    stats = story_statistics([record, record])
    assert (stats.stories, stats.clauses, stats.llm_clauses, stats.direct) == (2, 10, 8, 2)
    assert (stats.first_attempt, stats.validated, stats.fallbacks) == (4, 6, 2)
    assert stats.first_attempt_rate == 0.5 and stats.fallback_rate == 0.25
    assert stats.attempts == 14 and stats.outcomes["valid"] == 6
    table = stats.to_markdown()
    assert "| first-attempt validation rate | 50.0% | 95.4% |" in table
    assert "| fallback rate | 25.0% | 3.3% |" in table
    assert stats.to_json()["paper_fallback_rate"] == 0.033


def test_json_round_trip(record: StoryRecord, tmp_path: Any) -> None:
    obj = json.loads(record.to_json())
    assert is_story_record(obj) and obj["kind"] == "story" and obj["schema_version"] == 1
    assert StoryRecord.from_record(obj) == record
    path = tmp_path / "stories.jsonl"
    assert write_stories([record, record], path) == 2
    assert list(read_stories(path)) == [record, record]
    assert check_story_record(obj, FORMULA)["result"] == "validated"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.update(schema_version=2), "schema_version"),
        (lambda r: r.update(kind="prompt"), "kind"),
        (lambda r: r.update(seed="4"), "seed"),
        (lambda r: r.update(id="0" * 64), "not the hash"),
        (lambda r: r.update(theme="pirate"), "theme"),
        (lambda r: r["clues"][0].update(mode="magic"), "mode"),
        (lambda r: r["clues"][0]["attempts"][0].update(outcome="fine"), "outcome"),
        (lambda r: r["clues"][0].update(fallback="no"), "fallback"),
        (lambda r: r.update(recovered=[[1]]), "recovered"),
        (lambda r: r.update(entities=["x"]), "entities"),
        (lambda r: r.update(seed=True), "field 'seed' must be an integer, not boolean"),
        (lambda r: r.update(intro=None), "field 'intro' must be a string, not null"),
        (lambda r: r.pop("provenance"), "missing field 'provenance'"),
        (
            lambda r: r["clues"][1].update(fallback=1),
            r"field 'clues\[1\]\.fallback' must be true or false, not number",
        ),
        (
            lambda r: r["clues"][0]["attempts"][0].update(states=[True, False]),
            r"field 'clues\[0\]\.attempts\[0\]\.states\[0\]' must be a string, not boolean",
        ),
        (
            lambda r: r["clues"][0]["attempts"][0].pop("error"),
            r"missing field 'clues\[0\]\.attempts\[0\]\.error'",
        ),
        (lambda r: r["clues"][0]["attempts"][0].update(recovered=[["a"]]), "recovered"),
        (lambda r: r["clues"][0].update(outcome="fallback"), r"'clues\[0\]\.outcome' must be"),
        (lambda r: r["clues"][2].update(outcome="validated"), r"'clues\[2\]\.outcome' must be"),
        (lambda r: r["descriptions"].popitem(), "'descriptions' must be the heist theme's"),
        (
            lambda r: r.update(descriptions=dict(reversed(r["descriptions"].items()))),
            "'descriptions' must be the heist theme's",
        ),
        (
            lambda r: r["descriptions"].update({next(iter(r["descriptions"])): ["x", "y"]}),
            "'descriptions' must be the heist theme's",
        ),
        (lambda r: r["descriptions"].update(more=["x"]), r"'descriptions\.more\[1\]'"),
        (
            lambda r: r.update(entities={"the moon": "a", **r["entities"]}),
            "field 'entities':",
        ),
    ],
)
def test_malformed_records_are_refused(record: StoryRecord, change: Any, message: str) -> None:
    obj = json.loads(record.to_json())
    change(obj)
    with pytest.raises(RecordError, match=message) as info:
        StoryRecord.from_record(obj, line=7, source="s.jsonl")
    assert info.value.line == 7 and info.value.source == "s.jsonl"


def test_unknown_fields_are_dropped_when_read(record: StoryRecord) -> None:
    obj = json.loads(record.to_json())
    obj["later"] = 1
    obj["clues"][0]["note"] = "x"
    obj["clues"][0]["attempts"][0]["note"] = "y"
    read = StoryRecord.from_record(obj)
    assert read == record and read.to_json() == record.to_json()


def test_the_record_is_its_model_with_tuples(record: StoryRecord) -> None:
    assert isinstance(record, StoryRecordModel)
    assert type(record.clues[0]) is ClueRecord is Clue and type(record.recovered) is tuple
    assert all(type(c.clause) is tuple and type(c.attempts) is tuple for c in record.clues)
    attempt = record.clues[0].attempts[-1]
    assert attempt.recovered is not None and all(type(p) is tuple for p in attempt.recovered)
    with pytest.raises(ValidationError, match="frozen"):
        record.clues[0].text = "changed"
    assert [c.outcome for c in record.clues] == [
        clue_outcome(c.accepted, c.fallback) for c in record.clues
    ]
    assert record.descriptions == {e: THEMES.get("heist").describe(e) for e in record.entities}


def _changed(record: Any, **changes: Any) -> Any:
    """A copy of a record, clue or attempt with ``changes`` (not validated)."""
    return record.model_copy(update=changes)


def _clue(record: StoryRecord, i: int, **changes: Any) -> StoryRecord:
    clues = list(record.clues)
    clues[i] = _changed(clues[i], **changes)
    return _changed(record, clues=tuple(clues))


def _attempt(record: StoryRecord, i: int, k: int, **changes: Any) -> StoryRecord:
    attempts = list(record.clues[i].attempts)
    attempts[k] = _changed(attempts[k], **changes)
    return _clue(record, i, attempts=tuple(attempts))


def _flip(reply: str | None) -> str:
    return "B" if reply == "A" else "A"


TAMPERING = {
    "recovered": lambda r: _changed(r, recovered=(("~a", "~b"), *r.recovered[1:])),
    "clue recovered": lambda r: _clue(r, 0, recovered=("~a", "~b")),
    "state reply": lambda r: _attempt(
        r, 0, 0, state_replies=tuple(_flip(s) for s in r.clues[0].attempts[0].state_replies)
    ),
    "entities reply": lambda r: _attempt(r, 4, 0, entities_reply="[]"),
    "accepted text": lambda r: _clue(r, 0, text=r.clues[0].text + " Indeed."),
    "marked fallback": lambda r: _clue(r, 0, fallback=True),
    "fallback after two": lambda r: _clue(r, 3, attempts=r.clues[3].attempts[:2]),
    "fallback text": lambda r: _clue(r, 3, text=r.clues[3].text.replace("Either", "Maybe")),
    "accepted early": lambda r: _clue(r, 1, attempts=r.clues[1].attempts[1:] * 2),
    "direct with attempts": lambda r: _clue(r, 2, attempts=r.clues[0].attempts),
    "mode": lambda r: _clue(r, 0, mode="direct"),
    "story": lambda r: _changed(r, story=r.story + "\n\nAnd then nothing happened."),
    "prompt": lambda r: _changed(r, text=r.text.replace("Think step by step.", "Think.")),
    "entity map": lambda r: _changed(
        r, entities=dict(zip(list(r.entities)[::-1], r.entities.values(), strict=True))
    ),
    "foreign entity": lambda r: _changed(
        r, entities={"the moon" if i == 0 else e: v for i, (e, v) in enumerate(r.entities.items())}
    ),
    "id": lambda r: _changed(r, instance_id="other"),
    "clue number": lambda r: _clue(r, 1, index=5),
    "missing clue": lambda r: _changed(r, clues=r.clues[:-1], recovered=r.recovered[:-1]),
    "outcome label": lambda r: _attempt(r, 1, 0, outcome="valid"),
    "clue outcome": lambda r: _clue(r, 0, outcome="fallback"),
    "descriptions": lambda r: _changed(
        r, descriptions=dict(zip(r.descriptions, reversed(r.descriptions.values()), strict=True))
    ),
}


@pytest.mark.parametrize("name", sorted(TAMPERING))
def test_the_proof_catches_tampering(record: StoryRecord, name: str) -> None:
    tampered = TAMPERING[name](record)
    assert tampered != record
    with pytest.raises((CertificateError, ProofError)):
        prove_story(tampered, FORMULA)


@pytest.mark.parametrize("position", range(5))
def test_the_proof_refuses_another_formula(record: StoryRecord, position: int) -> None:
    clauses = [list(c) for c in FORMULA.clauses]
    clauses[position][0] = -clauses[position][0]
    other = FORMULA.with_clauses(clauses)
    with pytest.raises(CertificateError):
        check_story_record(record, other)


def test_a_record_without_a_proof_does_not_certify(record: StoryRecord) -> None:
    with pytest.raises(CertificateError, match="stored round-trip proof"):
        check_story_record(_changed(record, roundtrip=None), FORMULA)
    failed = _changed(record, roundtrip={"result": "failed"})
    with pytest.raises(CertificateError, match="'failed'"):
        check_story_record(failed.to_record(), FORMULA)


def test_clue_records_round_trip(record: StoryRecord) -> None:
    for clue in record.clues:
        obj = json.loads(json.dumps(clue.to_record()))
        assert ClueRecord.model_validate(obj, strict=True) == clue
