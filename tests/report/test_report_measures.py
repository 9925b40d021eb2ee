"""The report against the structural measures: accuracy per measure, and proof length
along edit chains against prediction flips, recomputed here from the stored files.

The proof lengths are recomputed with networkx and brute force (``test_measures``'s
oracle) from each record's DIMACS text; the pairs and flips from the golden ``edits``
run's ``results.jsonl`` and ``dataset.jsonl`` in plain Python, and compared with its
``report.json`` (which ``test_golden`` holds equal to what the code writes) and with a
report built from those files.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.solve.test_measures import oracle
from tests.support.brute import check_svg
from twosat_formal.io.instance import Instance
from twosat_formal.make.edits.proof_lengths import changed_proof_lengths, proof_length_flips
from twosat_formal.report import build_report
from twosat_formal.report.content import compute_content
from twosat_formal.report.figinput import FigureInput, slug
from twosat_formal.report.measureplans import MEASURE_LABELS, measure_curves
from twosat_formal.solve.measures import MEASURES

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "edits"


def read(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / name).read_text().splitlines() if line]


def edit_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in record.get("transforms") or [] if t.get("kind") == "edit"]


def recount() -> tuple[dict[str, Counter[tuple[int, bool]]], dict[str, bool]]:
    """Per model, (change, flip) counts; per edited record, whether its length changed;
    the proof lengths by the networkx oracle from each record's DIMACS text."""
    expected, edited, _ = recount_by_origin()
    return expected, edited


def recount_by_origin() -> tuple[
    dict[str, Counter[tuple[int, bool]]],
    dict[str, bool],
    dict[tuple[str, int], dict[str, list[int]]],
]:
    """:func:`recount`, and per model and change each origin formula's pairs and flips."""
    dataset = {r["id"]: r for r in read("dataset.jsonl")}
    lengths = {
        key: oracle(Instance.from_record(record).formula)["proof_length"]
        for key, record in dataset.items()
    }
    assert all(dataset[k]["measures"]["proof_length"] == v for k, v in lengths.items())
    results = read("results.jsonl")
    answers = {(r["instance_id"], r["model"], r["template"], r["sample"]): r for r in results}
    expected: dict[str, Counter[tuple[int, bool]]] = {}
    edited: dict[str, bool] = {}
    origins: dict[tuple[str, int], dict[str, list[int]]] = {}
    for row in results:
        steps = edit_steps(dataset[row["instance_id"]])
        if not steps:
            continue
        origin = steps[-1]["origin"]
        base = answers[(origin, row["model"], row["template"], row["sample"])]
        change = int(lengths[row["instance_id"]] or 0) - int(lengths[origin] or 0)
        edited[row["instance_id"]] = change != 0
        flip = base["decision"] != row["decision"]
        expected.setdefault(row["model"], Counter())[(change, flip)] += 1
        tally = origins.setdefault((row["model"], change), {}).setdefault(origin, [0, 0])
        tally[0] += 1
        tally[1] += flip
    return expected, edited, origins


def test_the_edits_report_counts_flips_per_proof_length_change_as_a_recount() -> None:
    expected, edited = recount()
    assert any(edited.values()) and not all(edited.values())
    report = json.loads((GOLDEN / "report.json").read_text())
    counts = report["edits"]["proof_length_records"]
    assert counts == {"edited": len(edited), "changed": sum(edited.values())}
    for model, tally in expected.items():
        got: Counter[tuple[int, bool]] = Counter()
        for summary in report["edits"]["models"]:
            if summary["model"] != model:
                continue
            for entry in summary["proof_length_flips"]:
                got[(entry["change"], True)] += entry["flips"]
                got[(entry["change"], False)] += entry["pairs"] - entry["flips"]
        assert +got == +tally, model
        assert f"figures/proof-length-flips-{slug(model)}.svg" in report["figures"]
    assert "figures/accuracy-vs-measures.svg" in report["figures"]


@pytest.mark.slow
def test_the_flip_rate_of_a_change_averages_the_origin_formulas(tmp_path: Path) -> None:
    """The rate shown is each origin's share of flips averaged over the origins (the pairs
    of one origin, over templates and samples, are one unit), n counting the origins."""
    expected, _, origins = recount_by_origin()
    md = build_report(GOLDEN / "results.jsonl", tmp_path).read_text()
    section = md.split("## Symbolic edits: proof length and prediction flips")[1]
    section = section.split("\n## ")[0]
    assert "averaged over the origins, with its 95% Wilson interval across them" in section
    for (model, change), by_origin in origins.items():
        shares = [flips / pairs for pairs, flips in by_origin.values()]
        mean = 100 * sum(shares) / len(shares)
        flips = sum(f for _, f in by_origin.values())
        pairs = sum(p for p, _ in by_origin.values())
        cell = rf"\| {re.escape(f'{change:+d}')} \| {pairs} \| {flips} \| {mean:.1f} \["
        assert re.search(rf"\| {re.escape(model)} \| operator {cell}", section), (model, change)
        assert f"(n={len(shares)})" in section
    assert expected  # the golden run has edited answers


def test_an_origin_with_many_pairs_weighs_as_one_formula() -> None:
    """Two origins, one with three flipped pairs (three templates), one with one pair
    kept: the rate is (1 + 0) / 2, not 3 / 4, and n counts two formulas."""
    from twosat_formal.report.sections.edits import origin_estimate

    def edit(origin: str) -> dict[str, Any]:
        step = {"kind": "edit", "mode": "cumulative", "level": 1, "origin": origin}
        return {"transforms": [{**step, "label_before": "SAT", "label_after": "SAT"}]}

    rows: list[dict[str, Any]] = []
    for origin, templates, flipped in (("a", ("t1", "t2", "t3"), True), ("b", ("t1",), False)):
        for template in templates:
            key = {"model": "m", "template": template, "sample": 0}
            rows.append({**key, "instance_id": origin, "decision": "SAT", **lengths(2)})
            after = {"decision": "UNSAT" if flipped else "SAT", **edit(origin), **lengths(3)}
            rows.append({**key, "instance_id": f"{origin}1", **after})
    (flips,) = proof_length_flips(rows)
    assert (flips.change, flips.pairs, flips.flips, flips.rate) == (1, 4, 3, 0.75)
    assert sorted(flips.shares) == [0.0, 1.0]
    estimate = origin_estimate(flips)
    assert (estimate.mean, estimate.n, estimate.n_obs) == (0.5, 2, 4)
    assert "shares" not in flips.to_json()


def lengths(proof_length: int) -> dict[str, Any]:
    return {"measures": {"proof_length": proof_length}}


@pytest.mark.slow
def test_the_report_shows_the_section_and_draws_the_figures(tmp_path: Path) -> None:
    expected, edited = recount()
    md = build_report(GOLDEN / "results.jsonl", tmp_path).read_text()
    assert f"{sum(edited.values())} of {len(edited)} edited records" in md
    section = md.split("## Symbolic edits: proof length and prediction flips")[1]
    section = section.split("\n## ")[0]
    for model, tally in expected.items():
        for change in sorted({c for c, _ in tally}):
            pairs = tally[(change, True)] + tally[(change, False)]
            row = (
                rf"\| {re.escape(model)} \| operator \| {re.escape(f'{change:+d}')} \| {pairs} \| "
            )
            assert re.search(row + rf"{tally[(change, True)]} \|", section), (model, change)
        check_svg(tmp_path / "figures" / f"proof-length-flips-{slug(model)}.svg")
    svg = tmp_path / "figures" / "accuracy-vs-measures.svg"
    check_svg(svg)
    text = svg.read_text()
    for label in ("proof length (steps)", "largest strong component (literals)"):
        assert label in text


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


def test_the_flip_rates_follow_the_interval_method_asked(tmp_path: Path) -> None:
    """``method="bootstrap"`` reaches the flip rates per change in proof length, in the
    table and in the figure, and their captions name it; the rates are the recount's
    origin averages whatever the method."""
    from twosat_formal.report.load import load_report_data
    from twosat_formal.report.measureplans import proof_length_flips as flip_figures
    from twosat_formal.report.render import render_markdown
    from twosat_formal.report.sections.edits import write_edit_proof_lengths

    _, _, origins = recount_by_origin()
    rows = load_report_data(GOLDEN / "results.jsonl").rows
    content = compute_content(rows, method="bootstrap", seed=4)
    rates = {
        (s.model, p.change): rate
        for s in content.edits or []
        for p, rate in zip(s.proof_lengths, s.proof_length_rates, strict=True)
    }
    assert rates.keys() == origins.keys()
    for key, by_origin in origins.items():
        shares = [flips / pairs for pairs, flips in by_origin.values()]
        rate = rates[key]
        assert rate.method == "bootstrap" and rate.n == len(shares)
        assert rate.mean == pytest.approx(sum(shares) / len(shares))
        if rate.low is not None and rate.high is not None:  # a bootstrap of one unit has none
            assert 0.0 <= rate.low <= rate.mean <= rate.high <= 1.0
        assert (rate.low is None) == (len(shares) < 2)
    text = render_markdown(write_edit_proof_lengths(content))
    assert "95% percentile-bootstrap interval across them" in text and "Wilson" not in text
    drawings = flip_figures(FigureInput(content, rows, "bootstrap", 4), tmp_path)
    assert drawings
    for drawing in drawings:
        assert "95% percentile-bootstrap interval" in drawing.caption
        assert "Wilson" not in drawing.caption
