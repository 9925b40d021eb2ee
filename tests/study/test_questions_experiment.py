"""The ``questions`` experiment end to end: generate → verbalize every question type →
certify → eval with the reference reasoners → results → report (accuracy per type)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from twosat_formal.evaluate.store import RunStore
from twosat_formal.study.experiments.runner import run_experiment
from twosat_formal.study.experiments.spec import load_spec, parse_spec
from twosat_formal.verbalize.prompts import read_prompts

MODELS = ["ref/oracle", "ref/sat-biased", "ref/bounded"]


def test_the_questions_spec_asks_every_type() -> None:
    spec = load_spec("questions")
    every = ("decision", "forced", "entails", "core", "repair", "maxsat")
    assert spec.questions == every
    assert spec.to_json()["questions"] == list(every)
    chained = parse_spec({**spec.to_json(), "ask_cycle": True})
    assert chained.asks == ("chain", *every[1:])
    with pytest.raises(Exception, match="field 'questions'"):
        parse_spec({**spec.to_json(), "questions": ["decision", "maxsat9"]})
    with pytest.raises(Exception, match="field 'questions'"):
        parse_spec({**spec.to_json(), "questions": []})


@pytest.mark.slow
def test_questions_run_reports_accuracy_per_type_and_family(tmp_path: Path) -> None:
    data = load_spec("questions").to_json()
    data.update(
        formulas=2,
        templates=["logic"],
        cells=[
            {"family": "backbone", "clauses": [20]},
            {"family": "equivalence-core", "clauses": [10]},
            {"family": "implication-cycle", "clauses": [10]},
        ],
    )
    result = run_experiment(parse_spec(data), MODELS, out_dir=tmp_path / "q")
    assert result.certified["ok"] and result.report is not None
    prompts = list(read_prompts(tmp_path / "q" / "prompts.jsonl"))
    asked = {p.ask for p in prompts}
    assert asked == {"decision", "forced", "entails", "core", "repair", "maxsat"}
    assert result.evaluation.done == len(prompts) * len(MODELS)
    with RunStore(tmp_path / "q" / "results.sqlite") as store:
        rows = list(store.results())
    assert {r["question_type"] for r in rows} == asked
    report: dict[str, Any] = json.loads((tmp_path / "q" / "report.json").read_text())
    decisions = sum(1 for p in prompts if p.ask == "decision")
    assert report["rows"] == decisions * len(MODELS)  # the other sections: decisions only
    table = report["questions"]
    kinds = {(r["model"], r["question_type"], r["family"]) for r in table}
    assert ("ref/oracle", "forced", "backbone") in kinds
    unsat = {r["question_type"] for r in table if r["family"] == "implication-cycle"}
    assert unsat == {"core", "repair", "maxsat"}  # an UNSAT family: no forced, no entails
    for row in table:
        expected = sum(
            1
            for r in rows
            if r["model"] == row["model"]
            and r["question_type"] == row["question_type"]
            and r["prompt_id"] in {p.id for p in prompts if p.instance_id.startswith(row["family"])}
        )
        assert row["answers"] == expected
        if row["model"] == "ref/oracle":
            assert row["accuracy"]["mean"] == 1.0 and row["decision_accuracy"]["mean"] == 1.0
    sat_biased = [
        r for r in table if r["model"] == "ref/sat-biased" and r["question_type"] == "forced"
    ]
    assert sat_biased and all(r["accuracy"]["mean"] < 1.0 for r in sat_biased)
    text = (tmp_path / "q" / "report.md").read_text()
    assert "## Question types" in text
    assert "figures/question-types.svg" in text
    assert (tmp_path / "q" / "figures" / "question-types.svg").stat().st_size > 1000
    from twosat_formal.evaluate.diagnostics.trace import trace_rows

    traced = list(trace_rows(tmp_path / "q" / "results.sqlite"))
    assert {r["question_type"] for r in traced} == asked and len(traced) == len(rows)
