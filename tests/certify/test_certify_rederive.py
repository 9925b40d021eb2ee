"""Each way a record was found to pass ``certify`` while lying now fails and names it."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.certify.test_certify_tamper import DATASET, certify_one
from tests.support.jsonl import write_jsonl
from twosat_formal.certify import certify_files
from twosat_formal.cli import main
from twosat_formal.io.instance import Instance
from twosat_formal.make.edits.classify import EDIT_KIND
from twosat_formal.verbalize.story import StoryRecord
from twosat_formal.verbalize.story.record import attested_digest, story_id
from twosat_formal.verbalize.story.sentences import assemble_story

Record = dict[str, Any]


def first(predicate: Callable[[Record], bool]) -> Record:
    return copy.deepcopy(next(r for r in DATASET if predicate(r)))


def prompt() -> Record:
    return first(lambda r: "template" in r)


def root(family: str) -> Record:
    return first(lambda r: r.get("family") == family and r.get("base_id") is None)


def perturbed() -> Record:
    return first(lambda r: r.get("base_id") and all("kind" not in t for t in r["transforms"]))


def edited(mode: str) -> Record:
    def pick(r: Record) -> bool:
        steps = [t for t in r.get("transforms", []) if t.get("kind") == EDIT_KIND]
        wanted = 2 if mode == "cumulative" else 1
        return bool(steps) and steps[0]["mode"] == mode and len(steps) == wanted

    return first(pick)


def edit_steps(record: Record) -> list[Record]:
    return [t for t in record["transforms"] if t.get("kind") == EDIT_KIND]


def fails(record: Record) -> str:
    failures = certify_one(record)
    assert failures, "certify passed a tampered record"
    return " | ".join(f"[{f.check}] {f.message}" for f in failures)


# -- prompts: the whole text is re-rendered ---------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Think step by step.", "Answer at once."),
        ('"The answer is: Yes" (if a valid', '"The answer is: No" (if a valid'),
        ('using "', 'using  "'),
    ],
)
def test_a_prompt_whose_instructions_changed_fails(old: str, new: str) -> None:
    record = prompt()
    assert old in record["text"]
    record["text"] = record["text"].replace(old, new, 1)
    assert "text line" in fails(record)


def test_a_prompt_whose_yes_and_no_are_swapped_fails() -> None:
    record = prompt()
    text = record["text"].replace("(if a valid assignment exists)", "(@)")
    text = text.replace("(if no valid assignment exists)", "(if a valid assignment exists)")
    record["text"] = text.replace("(@)", "(if no valid assignment exists)")
    assert "text line" in fails(record)


def test_a_prompt_whose_example_values_or_value_words_changed_fails() -> None:
    record = prompt()
    words = record["true_value"], record["false_value"]
    record["text"] = record["text"].replace(f'"{words[0]}"', f'"{words[1]}"')
    assert "text line" in fails(record)
    record = prompt()
    record["true_value"], record["false_value"] = words[1], words[0]
    assert "true_value" in fails(record)


def test_a_prompt_whose_entity_map_changed_fails() -> None:
    record = prompt()
    entities = list(record["entities"].items())
    (e1, v1), (e2, v2) = entities[0], entities[1]
    record["entities"][e1], record["entities"][e2] = v2, v1
    assert "entities" in fails(record)


# -- perturbed records: every transform field --------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"), [("result", "failed"), ("method", "z3:equivalence-under-map")]
)
def test_a_perturbed_record_whose_proof_says_otherwise_fails(field: str, value: str) -> None:
    record = perturbed()
    proof = record["transforms"][0]["proof"]
    assert proof[field] != value
    proof[field] = value
    assert f"proof.{field}" in fails(record)


# -- roots: structure, provenance, comments ------------------------------------------------------


def test_a_root_whose_structure_changed_fails() -> None:
    record = root("backbone")
    backbone = record["structure"]["backbone"]
    key = next(iter(backbone)) if isinstance(backbone, dict) else 0
    backbone[key] = not backbone[key] if isinstance(backbone[key], bool) else -backbone[key]
    assert "structure.backbone" in fails(record)
    record = root("mono-bridge")
    record["structure"]["bridge"]["index"] += 1
    assert "structure.bridge" in fails(record)


def test_a_root_whose_provenance_or_seed_comment_changed_fails() -> None:
    record = root("backbone")
    record["provenance"]["seed"] += 1
    assert "provenance.seed" in fails(record)
    record = root("backbone")
    lines = record["dimacs"].split("\n")
    seed_line = next(i for i, line in enumerate(lines) if line.startswith("c seed"))
    lines[seed_line] = "c seed: 999"
    record["dimacs"] = "\n".join(lines)
    assert "dimacs line" in fails(record)


def test_a_record_with_a_clause_of_three_literals_fails() -> None:
    record = root("backbone")
    inst = Instance.from_record(record)
    lines = record["dimacs"].split("\n")
    clause = next(i for i, line in enumerate(lines) if line and line[0] not in "cp")
    lits = lines[clause].split()
    extra = next(v for v in range(1, inst.formula.num_vars + 1) if str(v) not in lits[:-1])
    lines[clause] = " ".join([*lits[:-1], str(extra), "0"])
    record["dimacs"] = "\n".join(lines)
    assert "[2-sat]" in fails(record)


# -- edited records ----------------------------------------------------------------------------


def test_an_edit_whose_class_flipped_fails() -> None:
    record = edited("cumulative")
    step = edit_steps(record)[0]
    step["class"] = "changing"
    assert "class" in fails(record)


def test_an_edit_whose_origin_points_elsewhere_fails() -> None:
    record = edited("individual")
    other = root("backbone")["id"]
    for step in edit_steps(record):
        assert step["origin"] != other
        step["origin"] = other
    record["structure"]["edit"]["origin"] = other
    assert "origin" in fails(record)


def test_an_edit_whose_mode_changed_fails() -> None:
    record = edited("individual")
    edit_steps(record)[0]["mode"] = "cumulative"
    assert fails(record)
    record = edited("cumulative")
    for step in edit_steps(record):
        step["mode"] = "individual"
    assert "one edit" in fails(record)


def test_an_edit_whose_operator_or_text_changed_fails() -> None:
    record = edited("cumulative")
    step = edit_steps(record)[0]
    step["operator"] = "drop" if step["operator"] != "drop" else "split"
    assert fails(record)
    record = edited("cumulative")
    step = edit_steps(record)[0]
    step["after_text"] = ["a | b"]
    assert "after_text" in fails(record)


@pytest.mark.parametrize("field", ["label_before", "label_after", "class", "level", "origin"])
def test_an_edit_without_its_label_fields_fails(field: str) -> None:
    record = edited("cumulative")
    del edit_steps(record)[-1][field]
    assert fails(record)


def test_two_swapped_edit_steps_fail_even_with_their_levels_fixed() -> None:
    record = edited("cumulative")
    steps = edit_steps(record)
    n = len(record["transforms"])
    a, b = record["transforms"][n - 2], record["transforms"][n - 1]
    record["transforms"][n - 2], record["transforms"][n - 1] = b, a
    b["level"], a["level"] = 1, 2
    assert steps and fails(record)


# -- stories: attested text bound into the id ------------------------------------------------


def story() -> Record:
    return first(lambda r: r.get("kind") == "story")


def test_a_story_whose_accepted_clue_was_replaced_fails() -> None:
    record = story()
    clue = next(c for c in record["clues"] if c["accepted"] is not None)
    clue["text"] = "Lorem ipsum dolor sit amet."
    clue["attempts"][-1]["text"] = clue["text"]
    record["story"] = assemble_story(record["intro"], [c["text"] for c in record["clues"]])
    record["text"] = record["text"].replace(record["text"].split("\n\nThink")[0], record["story"])
    assert "is not the hash of the record" in fails(record)


def test_a_story_is_validated_never_proved() -> None:
    record = story()
    assert record["roundtrip"]["result"] == "validated"
    assert "proved" not in json.dumps(record)
    record["roundtrip"]["result"] = "proved"
    assert "roundtrip.result" in fails(record)


def test_a_story_id_binds_what_the_model_wrote() -> None:
    record = StoryRecord.from_record(story())
    digest = attested_digest(record)
    again = story_id(record.instance_id, record.theme, record.model, record.seed, digest)
    assert record.id == again


# -- the dataset and the command line ------------------------------------------------------------


def test_certify_prints_the_three_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "mixed.jsonl", DATASET[:3])
    with pytest.raises(SystemExit) as exit_info:
        main(["certify", str(path)])
    assert exit_info.value.code in (0, None)
    out = capsys.readouterr().out
    assert "re-derived" in out and "measured" in out and "attested" in out
    report = certify_files([path])
    assert report.ok and report.fields["re-derived"] > report.fields["measured"] > 0


def test_an_empty_dataset_fails_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["certify", str(path)])
    assert exit_info.value.code == 1
