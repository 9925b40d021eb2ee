"""Captions and axis labels say what the data shows, not what a default grid would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twosat_formal.make.generators import FAMILIES
from twosat_formal.report.content import compute_content
from twosat_formal.report.figspecs import FigureInput, render_figures
from twosat_formal.report.sections.captions import knob_settings


def rows_at(level: float, *, knob: str | None = None) -> list[dict[str, Any]]:
    out = []
    knobs = [s.name for s in FAMILIES.get("implication-cycle").knobs()]
    for index, (clauses, label) in enumerate([(10, "UNSAT"), (20, "UNSAT")] * 2):
        params = {name: level for name in knobs if name != "filler_share"}
        row: dict[str, Any] = {
            "instance_id": f"i{index}",
            "model": "ref/oracle",
            "template": "logic",
            "sample": 0,
            "family": "implication-cycle",
            "num_clauses": clauses,
            "params": params,
            "label": label,
            "decision": label,
            "decision_correct": True,
            "witness_valid": None,
            "failure": "correct",
            "truncated": False,
            "experiment": "mine",
        }
        if knob is not None:
            params[knob] = 0.2 * (index % 2)
            row.update(knob=knob, level=params[knob])
        out.append(row)
    return out


def test_a_grid_at_0_8_is_captioned_at_0_8(tmp_path: Path) -> None:
    content = compute_content(rows_at(0.8))
    assert content.grid_knobs == "every difficulty knob at 0.8"
    figures = {f.path.name: f for f in render_figures(FigureInput(content), tmp_path)[0]}
    caption = figures["accuracy-vs-clauses.svg"].caption
    assert "0.8" in caption and "0.5" not in caption and "Table 1" not in caption
    assert "Every difficulty knob at 0.8 (experiment mine)" in caption
    assert figures["accuracy-vs-clauses.svg"].title.startswith("Decision accuracy")


def test_accuracy_means_decision_accuracy_and_witness_validity_is_apart() -> None:
    rows = rows_at(0.5)
    for row in rows[:2]:
        row.update(label="SAT", decision="SAT", witness_valid=False, failure="invalid-witness")
    content = compute_content(rows)
    accuracy = content.size_metric_curves["accuracy"]["implication-cycle"]["ref/oracle"]
    witness = content.size_metric_curves["witness"]["implication-cycle"]["ref/oracle"]
    assert [e.mean for _, e in accuracy] == [1.0, 1.0]  # decisions all right
    assert [e.mean for _, e in witness] == [0.0, 0.0]  # the SAT answers lack a witness


def test_sweep_captions_name_the_knobs_not_swept(tmp_path: Path) -> None:
    content = compute_content(rows_at(0.8, knob="split"))
    assert content.sweep_knobs == "every difficulty knob at 0.8"
    figures = render_figures(FigureInput(content), tmp_path)[0]
    knob_figures = [f for f in figures if f.path.name.startswith("knobs-")]
    assert knob_figures
    for figure in knob_figures:
        assert "not swept: every difficulty knob at 0.8" in figure.caption


def test_mixed_settings_are_listed() -> None:
    rows = rows_at(0.5) + rows_at(0.8)
    text = knob_settings(rows)
    assert text.startswith("difficulty knobs: ") and "0.5–0.8" in text
