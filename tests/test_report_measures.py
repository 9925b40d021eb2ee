"""The report against the structural measures: accuracy per measure, and proof length
along edit chains against prediction flips, recomputed here from the stored files.

The proof lengths are recomputed with networkx and brute force (``test_measures``'s
oracle) from each record's DIMACS text; the pairs and flips from ``results.jsonl`` and
``dataset.jsonl`` in plain Python.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from brute import check_svg
from test_experiment_edits import edit_steps, read, run_dir  # noqa: F401 (a fixture)
from test_measures import oracle

from twosat_formal.edits.proof_lengths import changed_proof_lengths, proof_length_flips
from twosat_formal.instance import Instance
from twosat_formal.measures import MEASURES
from twosat_formal.report.figinput import FigureInput, slug
from twosat_formal.report.measureplans import MEASURE_LABELS, measure_curves
from twosat_formal.report.sections import compute_content


def proof_lengths(dataset: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Each record's proof length from its formula, by the networkx oracle."""
    return {
        key: oracle(Instance.from_record(record).formula)["proof_length"]  # type: ignore[misc]
        for key, record in dataset.items()
    }


def test_flips_against_proof_length_change_equal_a_recount(run_dir: Path) -> None:  # noqa: F811
    dataset = {r["id"]: r for r in read(run_dir, "dataset.jsonl")}
    lengths = proof_lengths(dataset)
    assert all(dataset[k]["measures"]["proof_length"] == v for k, v in lengths.items())
    results = read(run_dir, "results.jsonl")
    answers = {(r["instance_id"], r["model"], r["template"], r["sample"]): r for r in results}
    expected: dict[str, Counter[tuple[int, bool]]] = {}
    edited: dict[str, bool] = {}
    for row in results:
        steps = edit_steps(dataset[row["instance_id"]])
        if not steps:
            continue
        origin = steps[-1]["origin"]
        base = answers[(origin, row["model"], row["template"], row["sample"])]
        change = lengths[row["instance_id"]] - lengths[origin]
        edited[row["instance_id"]] = change != 0
        flip = base["decision"] != row["decision"]
        expected.setdefault(row["model"], Counter())[(change, flip)] += 1
    assert any(edited.values()) and not all(edited.values())

    report = json.loads((run_dir / "report.json").read_text())
    counts = report["edits"]["proof_length_records"]
    assert counts == {"edited": len(edited), "changed": sum(edited.values())}
    md = (run_dir / "report.md").read_text()
    assert f"{sum(edited.values())} of {len(edited)} edited records" in md
    section = md.split("## Symbolic edits: proof length and prediction flips")[1]
    section = section.split("\n## ")[0]
    for model, tally in expected.items():
        shown = [s for s in report["edits"]["models"] if s["model"] == model]
        got: Counter[tuple[int, bool]] = Counter()
        for summary in shown:
            for entry in summary["proof_length_flips"]:
                got[(entry["change"], True)] += entry["flips"]
                got[(entry["change"], False)] += entry["pairs"] - entry["flips"]
                row = rf"\| {re.escape(model)} \| {summary['category']} \| {entry['change']:+d} \| "
                assert re.search(row + rf"{entry['pairs']} \| {entry['flips']} \|", section)
        assert +got == +tally, model
        figure = run_dir / "figures" / f"proof-length-flips-{slug(model)}.svg"
        check_svg(figure)
        assert f"figures/proof-length-flips-{slug(model)}.svg" in report["figures"]


def test_accuracy_against_each_measure_is_drawn(run_dir: Path) -> None:  # noqa: F811
    report = json.loads((run_dir / "report.json").read_text())
    assert "figures/accuracy-vs-measures.svg" in report["figures"]
    svg = (run_dir / "figures" / "accuracy-vs-measures.svg").read_text()
    check_svg(run_dir / "figures" / "accuracy-vs-measures.svg")
    for label in ("proof length (steps)", "largest strong component (literals)"):
        assert label in svg


def test_rows_without_measures_draw_nothing_and_count_nothing() -> None:
    step = {
        "kind": "edit",
        "mode": "cumulative",
        "level": 1,
        "origin": "a",
        "label_before": "SAT",
        "label_after": "SAT",
    }
    rows = [
        {"instance_id": "a", "model": "m", "decision": "SAT", "decision_correct": True},
        {"instance_id": "b", "transforms": [step], "model": "m", "decision": "UNSAT"},
    ]
    assert proof_length_flips(rows) == [] and changed_proof_lengths(rows) == (0, 0)
    content = compute_content([])
    assert measure_curves(FigureInput(content), Path("unused")) == []
    assert list(MEASURE_LABELS) == list(MEASURES)  # a panel label for every measure


@pytest.mark.parametrize("decisions", [("SAT", "SAT"), ("SAT", None), (None, None)])
def test_a_flip_is_a_changed_decision(decisions: tuple[str | None, str | None]) -> None:
    step = {
        "kind": "edit",
        "mode": "individual",
        "level": 1,
        "origin": "a",
        "label_before": "SAT",
        "label_after": "UNSAT",
    }
    rows = [
        {"instance_id": "a", "decision": decisions[0], "measures": {"proof_length": 0}},
        {
            "instance_id": "b",
            "transforms": [step],
            "decision": decisions[1],
            "measures": {"proof_length": 6},
        },
    ]
    (entry,) = proof_length_flips(rows)
    assert (entry.change, entry.pairs) == (6, 1)
    assert entry.flips == (decisions[0] != decisions[1])
