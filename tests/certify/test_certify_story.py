"""``certify`` on story records: a clean story file passes; a tampered story fails by name.

Story records come from the story verbalizer talking to the scripted loopback server
of :mod:`story_support`; the instances come from the generators, so the whole
dataset (instances and stories) is certified together.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.jsonl import write_jsonl
from tests.support.story import story_record
from twosat_formal.certify import certify_files, certify_record
from twosat_formal.cli import main
from twosat_formal.io.instance import Instance
from twosat_formal.make.generators import generate
from twosat_formal.verbalize.story import StoryRecord
from twosat_formal.verbalize.story.generator import StoryItem
from twosat_formal.verbalize.story.record import attested_digest, story_id

Record = dict[str, Any]


def tell(instance: Instance, theme: str, kinds: Mapping[tuple[int, int], str]) -> StoryRecord:
    """The story of ``instance`` written against the scripted server."""
    item = StoryItem(instance.id, instance.formula, instance.label)
    return story_record(item, theme, kinds, seed=3)


def build() -> tuple[list[Record], list[Record]]:
    """Two instances and their stories: one clean run, one with retries and a fallback."""
    sat = generate("backbone", clauses=6, seed=3)
    unsat = generate("implication-cycle", clauses=6, seed=1)
    assert {sat.label, unsat.label} == {"SAT", "UNSAT"}
    # clause 2 validates on attempt 2, clause 3 falls back after three failed attempts
    kinds = {
        (2, 0): "wrong-polarity",
        (3, 0): "wrong-entity",
        (3, 1): "garble-state",
        (3, 2): "empty",
    }
    stories = [tell(sat, "heist", {}), tell(unsat, "detective", kinds)]
    fallbacks = [clue.fallback for clue in stories[1].clues]
    assert fallbacks.count(True) == 1 and stories[1].clues[2].fallback
    return [sat.to_record(), unsat.to_record()], [s.to_record() for s in stories]


INSTANCES, STORIES = build()


@pytest.fixture
def stories() -> list[Record]:
    return copy.deepcopy(STORIES)


def certify_pair(tmp_path: Path, stories: list[Any]) -> Any:
    data = write_jsonl(tmp_path / "data.jsonl", INSTANCES)
    return certify_files([data, write_jsonl(tmp_path / "stories.jsonl", stories)])


def test_a_clean_story_file_certifies(tmp_path: Path, stories: list[Record]) -> None:
    report = certify_pair(tmp_path, stories)
    assert report.ok, [str(f) for f in report.failures]
    assert report.kinds == {"instance": 2, "story": 2}
    # instances: record, 2-sat, three solvers, certificate, measures, regenerate;
    # stories: record, roundtrip (the re-derivation around the attested text)
    assert report.checks == 2 * 8 + 2 * 2
    # roots and stories hold no timing: the versions they name are re-derived
    assert report.fields["attested"] > 0 and report.fields["measured"] == 0


def test_the_story_of_an_instance_certifies_one_record_at_a_time(stories: list[Record]) -> None:
    assert certify_record(stories[0], instance=INSTANCES[0]) == []
    failures = certify_record(stories[0])  # its instance is not given
    assert [(f.id, f.check) for f in failures] == [(stories[0]["id"], "roundtrip")]
    assert "is not in the dataset" in failures[0].message


def _flip_recovered(record: Record) -> None:
    clause = record["clues"][0]["recovered"]
    clause[0] = clause[0][1:] if clause[0].startswith("~") else "~" + clause[0]
    record["recovered"][0] = list(clause)


def _rewrite_an_outcome(record: Record) -> None:
    """The last attempt of a fallback clue (else of the first clue) gets another outcome."""
    llm = [c for c in record["clues"] if c["mode"] == "llm"]
    clue = next((c for c in llm if c["fallback"]), llm[0])
    attempt = clue["attempts"][-1]
    attempt["outcome"] = "wrong-polarity" if attempt["outcome"] == "valid" else "valid"


def _change_a_reply(record: Record) -> None:
    """The accepted attempt's Step 3a reply names two entities outside its clause."""
    clue = next(c for c in record["clues"] if c["accepted"] is not None)
    attempt = clue["attempts"][-1]
    others = [e for e in record["entities"] if e not in attempt["entities"]]
    attempt["entities_reply"] = json.dumps(others[:2])


def _failed_proof(record: Record) -> None:
    record["roundtrip"]["result"] = "failed"


def _change_the_prompt(record: Record) -> None:
    record["text"] = record["text"].replace("Think step by step.", "Think.")


def _story_of_the_other_instance(record: Record) -> None:
    other = next(r["id"] for r in INSTANCES if r["id"] != record["instance_id"])
    digest = attested_digest(StoryRecord.from_record(record))
    record["instance_id"] = other
    record["id"] = story_id(other, record["theme"], record["model"], record["seed"], digest)


def _break_the_id(record: Record) -> None:
    record["seed"] += 1


TAMPERING: dict[str, tuple[Callable[[Record], None], str, str]] = {
    "recovered clause flipped": (_flip_recovered, "roundtrip", "recovered"),
    "attempt outcome rewritten": (_rewrite_an_outcome, "roundtrip", "outcome is"),
    "validator reply changed": (_change_a_reply, "record", "is not the hash of the record"),
    "stored proof failed": (_failed_proof, "roundtrip", "roundtrip.result is 'failed'"),
    "prompt text changed": (_change_the_prompt, "roundtrip", "'Think.', re-derived"),
    "story of another instance": (_story_of_the_other_instance, "roundtrip", "clue"),
    "id not the hash": (_break_the_id, "record", "is not the hash of the record"),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
@pytest.mark.parametrize("which", [0, 1])
def test_a_tampered_story_fails_and_names_its_record(
    tmp_path: Path, stories: list[Record], case: str, which: int
) -> None:
    tamper, check, words = TAMPERING[case]
    tamper(stories[which])
    report = certify_pair(tmp_path, stories)
    assert not report.ok
    assert report.failing_ids == [stories[which]["id"]]
    (failure,) = report.failures
    assert failure.check == check and words in failure.message, str(failure)
    assert failure.line == which + 1 and failure.source == str(tmp_path / "stories.jsonl")
    assert report.kinds == {"instance": 2, "story": 2}


def test_a_story_checked_against_a_formula_one_literal_away_fails(stories: list[Record]) -> None:
    instance = copy.deepcopy(INSTANCES[0])
    lines = instance["dimacs"].splitlines()
    first = next(i for i, line in enumerate(lines) if line and line[0] not in "cp")
    literals = lines[first].split()
    literals[0] = str(-int(literals[0]))
    lines[first] = " ".join(literals)
    instance["dimacs"] = "\n".join(lines) + "\n"
    failures = certify_record(stories[0], instance=instance)
    assert [(f.id, f.check) for f in failures] == [(stories[0]["id"], "roundtrip")]
    assert "clue 1" in failures[0].message or "does not re-derive" in failures[0].message


def test_a_story_without_its_instance_fails(tmp_path: Path, stories: list[Record]) -> None:
    report = certify_files([write_jsonl(tmp_path / "stories.jsonl", stories[:1])])
    assert report.failing_ids == [stories[0]["id"]]
    assert [f.check for f in report.failures] == ["roundtrip"]
    assert f"its instance {stories[0]['instance_id']} is not in the dataset" in str(
        report.failures[0]
    )


def test_a_malformed_story_record_is_a_record_failure(
    tmp_path: Path, stories: list[Record]
) -> None:
    del stories[1]["clues"]
    report = certify_pair(tmp_path, stories)
    assert [(f.id, f.line, f.check) for f in report.failures] == [(stories[1]["id"], 2, "record")]
    assert "missing field 'clues'" in report.failures[0].message


def test_the_certify_command_passes_clean_stories_and_lists_tampered_ones(
    tmp_path: Path, stories: list[Record], capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_jsonl(tmp_path / "data.jsonl", INSTANCES)
    clean = write_jsonl(tmp_path / "clean.jsonl", stories)
    _flip_recovered(stories[1])
    bad = write_jsonl(tmp_path / "bad.jsonl", stories)

    def cli(*argv: str) -> tuple[int, str]:
        try:
            main(["certify", *argv])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        return code, capsys.readouterr().out

    code, out = cli(str(data), str(clean))
    assert code == 0 and "PASS" in out and "2 story" in out
    code, out = cli(str(data), str(bad), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["failed_records"] == 1
    assert [f["id"] for f in report["failures"]] == [stories[1]["id"]]


def _attested(record: Record) -> int:
    """The attested leaves of a story record, counted from the field rules alone."""
    from twosat_formal.core.fieldclass import ATTESTED, field_class

    def leaves(value: Any, path: tuple[str | int, ...]) -> int:
        if isinstance(value, dict) and value:
            return sum(leaves(v, (*path, k)) for k, v in value.items())
        if isinstance(value, list) and value:
            return sum(leaves(v, (*path, i)) for i, v in enumerate(value))
        return int(field_class("story", path) == ATTESTED)

    return leaves(record, ())


def test_certify_says_how_many_story_fields_are_attested_not_checked(
    tmp_path: Path, stories: list[Record], capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_jsonl(tmp_path / "data.jsonl", INSTANCES)
    clean = write_jsonl(tmp_path / "clean.jsonl", stories)
    report = certify_files([data, clean])
    assert report.ok and report.story_attested > 0
    assert report.story_attested == sum(_attested(r) for r in stories)
    try:
        main(["certify", str(data), str(clean)])
    except SystemExit as exc:
        assert not exc.code
    out = capsys.readouterr().out
    assert f"{report.story_attested} story fields are attested, not checked" in " ".join(
        out.split()
    )
    alone = certify_files([data])
    assert alone.story_attested == 0 and alone.attested_line == ""
