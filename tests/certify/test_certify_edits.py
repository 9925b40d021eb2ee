"""certify replays symbolic edits: clean edited datasets pass, tampered ones fail by id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.jsonl import write_jsonl
from twosat_formal.certify import certify_file
from twosat_formal.make.edits import edit_instances
from twosat_formal.make.edits.operators import default_operators
from twosat_formal.make.generators import generate

Record = dict[str, Any]


@pytest.fixture(scope="module")
def edited() -> list[Record]:
    bases = [
        generate("implication-cycle", clauses=8, seed=3),
        generate("backbone", clauses=12, seed=4),
    ]
    cumulative = edit_instances(bases, mode="cumulative", max_edits=2, seed=1)
    individual = edit_instances(bases, mode="individual", max_edits=2, seed=2, keep_base=False)
    return [r.to_record() for r in [*cumulative.records, *individual.records]]


def edit_steps(record: Record) -> list[Record]:
    return [t for t in record["transforms"] if t.get("kind") == "edit"]


def test_edited_dataset_certifies(tmp_path: Path, edited: list[Record]) -> None:
    assert any(edit_steps(r) for r in edited)
    assert {r["label"] for r in edited if edit_steps(r)} == {"SAT", "UNSAT"}
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", edited))
    assert report.ok, [str(f) for f in report.failures]


def test_premise_edits_certify(tmp_path: Path) -> None:
    bases = [generate("backbone", clauses=10, seed=5)]
    ops = default_operators(premise=True)
    made = edit_instances(bases, mode="individual", max_edits=4, seed=3, operators=ops)
    records = [r.to_record() for r in made.records]
    categories = {s["category"] for r in records for s in edit_steps(r)}
    assert categories == {"operator", "premise"}
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", records))
    assert report.ok, [str(f) for f in report.failures]


@pytest.mark.parametrize("field", ["label_after", "position", "after", "category"])
def test_tampered_edit_step_fails_naming_the_record(
    tmp_path: Path, edited: list[Record], field: str
) -> None:
    records = json.loads(json.dumps(edited))
    victim = next(r for r in records if edit_steps(r) and r["label"] == "UNSAT")
    step = edit_steps(victim)[-1]
    if field == "label_after":
        step["label_after"] = "SAT"
    elif field == "category":
        step["category"] = "premise" if step["category"] == "operator" else "operator"
    elif field == "position":
        step["position"] = (step["position"] + 1) % victim["num_clauses"]
    else:
        step["after"] = [[-lit for lit in clause] for clause in step["after"]] or [[1, 1]]
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", records))
    assert not report.ok
    assert victim["id"] in report.failing_ids


def test_a_cumulative_chain_classifies_each_edit_once(
    tmp_path: Path, edited: list[Record], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records of a cumulative chain replay the chain's first edits from the same
    root: each edit is classified once per formula and label, and a tampered later
    level still fails as before."""
    import twosat_formal.certify.rederive as rederive_module
    import twosat_formal.make.edits.classify as classify_module

    calls: list[tuple[bytes, bytes, str, str]] = []
    real = classify_module.classify_edit

    def spy(formula: Any, label: str, edit: Any) -> Any:
        calls.append((formula.literals.tobytes(), formula.offsets.tobytes(), label, repr(edit)))
        return real(formula, label, edit)

    monkeypatch.setattr(classify_module, "classify_edit", spy)
    rederive_module._CLASSIFIED.cache_clear()
    chain = [r for r in edited if edit_steps(r) and edit_steps(r)[0]["mode"] == "cumulative"]
    levels = [len(edit_steps(r)) for r in chain]
    assert max(levels) >= 2  # some record replays an edit of the record before it
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", chain))
    assert report.ok, [str(f) for f in report.failures]
    assert len(calls) == len(set(calls)) < sum(levels)
    # a tampered second level fails although its first level was remembered
    records = json.loads(json.dumps(chain))
    victim = next(r for r in records if len(edit_steps(r)) >= 2)
    edit_steps(victim)[1]["label_after"] = "SAT" if victim["label"] == "UNSAT" else "UNSAT"
    rederive_module._CLASSIFIED.cache_clear()
    failing = certify_file(write_jsonl(tmp_path / "t.jsonl", records))
    assert [f.id for f in failing.failures] == [victim["id"]]
