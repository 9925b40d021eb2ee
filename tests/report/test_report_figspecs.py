"""The table of figure specs: what each figure is drawn from, and how it is drawn.

The data of the figures researchers ask for (confusion counts, the model × family grid,
response lengths, hardness bins) is recomputed here by hand from Hypothesis-made rows;
the drawing rules (error bars where series share a panel, logarithmic |C| axes over a
wide span, visible zero-height bars, no empty figure) are read back from the SVG files.
"""

from __future__ import annotations

import itertools
import math
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import check_svg
from twosat_formal.report.content import compute_content
from twosat_formal.report.figplans import _bins
from twosat_formal.report.figspecs import FIGURES, FigureInput, render_figures
from twosat_formal.report.metrics import Estimate
from twosat_formal.report.plots import bar_groups, curve_panels

SVG = "{http://www.w3.org/2000/svg}"
MODELS = ("ref/oracle", "ref/coin", "ref/bounded")
FAMILIES = ("backbone", "implication-cycle", "mono-bridge")


@st.composite
def answer_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows of answers: models, families, sizes, labels, decisions, lengths at random."""
    rows = []
    for i in range(draw(st.integers(1, 30))):
        label = draw(st.sampled_from(["SAT", "UNSAT"]))
        decision = draw(st.sampled_from(["SAT", "UNSAT", None]))
        correct = decision == label
        witness = draw(st.booleans()) if label == "SAT" and correct else None
        failure = (
            "correct" if correct and witness in (None, True)
            else "invalid-witness" if correct else "no-answer" if decision is None
            else "wrong-decision"
        )  # fmt: skip
        tokens = draw(st.one_of(st.none(), st.integers(1, 5000)))
        clauses = draw(st.sampled_from([5, 20, 200]))
        rows.append(
            {"instance_id": f"i{draw(st.integers(0, 8))}-{clauses}", "prompt_id": f"p{i}",
             "model": draw(st.sampled_from(MODELS)), "family": draw(st.sampled_from(FAMILIES)),
             "template": draw(st.sampled_from(["logic", "door"])), "sample": 0,
             "label": label, "decision": decision, "decision_correct": correct,
             "witness_valid": witness, "failure": failure, "truncated": False,
             "completion_tokens": tokens, "clauses": clauses, "num_clauses": clauses,
             "params": {}, "transforms": []}
        )  # fmt: skip
    return rows


def planned(key: str, rows: list[dict[str, Any]], **extra: Any) -> Any:
    """The data the spec ``key`` hands to its drawing (``None``: it plans none)."""
    spec = next(s for s in FIGURES if s.key == key)
    inp = FigureInput(compute_content(rows), rows, **extra)
    drawings = spec.plan(inp, Path("unused"))
    return drawings[0].draw.args[0] if drawings else None  # type: ignore[attr-defined]


def texts(svg: Path, *, outside_ticks: bool = False) -> list[str]:
    """Every text of the SVG (with ``outside_ticks``: not a tick label)."""
    root = ET.parse(svg).getroot()
    skip: set[int] = set()
    if outside_ticks:
        for group in root.iter(f"{SVG}g"):
            if group.get("id", "").startswith(("xtick_", "ytick_")):
                skip.update(id(t) for t in group.iter(f"{SVG}text"))
    return [t.text or "" for t in root.iter(f"{SVG}text") if id(t) not in skip]


def group_ids(svg: Path) -> list[str]:
    return [g.get("id", "") for g in ET.parse(svg).getroot().iter(f"{SVG}g")]


@pytest.mark.slow
@given(answer_rows())
@settings(max_examples=40)
def test_the_confusion_counts_every_labelled_answer_once(rows: list[dict[str, Any]]) -> None:
    panels = planned("decision-confusion", rows)
    for model in MODELS:
        mine = [r for r in rows if r["model"] == model]
        if not mine:
            assert panels is None or model not in panels
            continue
        for label in ("SAT", "UNSAT"):
            for answer in ("SAT", "UNSAT", "none"):
                expected = sum(
                    1 for r in mine
                    if r["label"] == label and (r["decision"] or "none") == answer
                )  # fmt: skip
                assert panels[model].get(label, {}).get(answer, 0) == expected


@pytest.mark.slow
@given(answer_rows())
@settings(max_examples=40)
def test_the_model_family_grid_averages_per_formula_then_across(
    rows: list[dict[str, Any]],
) -> None:
    grid = planned("model-family", rows)
    for model in MODELS:
        for family in FAMILIES:
            mine = [r for r in rows if r["model"] == model and r["family"] == family]
            per: dict[str, list[float]] = {}
            for r in mine:
                ok = r["decision_correct"] and (r["label"] == "UNSAT" or r["witness_valid"])
                per.setdefault(r["instance_id"], []).append(1.0 if ok else 0.0)
            if not per:
                assert family not in (grid or {}).get(model, {})
                continue
            expected = math.fsum(sum(v) / len(v) for v in per.values()) / len(per)
            assert grid[model][family].mean == pytest.approx(expected)
            assert grid[model][family].n == len(per)


@given(answer_rows())
@settings(max_examples=40)
def test_response_lengths_split_by_success_and_absent_without_tokens(
    rows: list[dict[str, Any]],
) -> None:
    groups = planned("response-length", rows)
    counted = [r for r in rows if r["completion_tokens"] is not None]
    if not counted:
        assert groups is None
        return
    for model in MODELS:
        for outcome, wanted in (("succeeded", True), ("failed", False)):
            expected = sorted(
                float(r["completion_tokens"]) for r in counted
                if r["model"] == model and (r["failure"] == "correct") == wanted
            )  # fmt: skip
            assert sorted(groups.get(model, {}).get(outcome, [])) == expected


@given(st.lists(st.integers(1, 400), min_size=1, max_size=60))
def test_hardness_bins_cover_every_value_once_in_order(values: list[int]) -> None:
    bins = _bins(values)
    assert len(bins) <= 6
    assert all(low <= high for low, high in bins)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(bins))
    for value in values:
        assert sum(low <= value <= high for low, high in bins) == 1


def test_a_run_without_answers_draws_nothing_and_says_so_per_figure(tmp_path: Path) -> None:
    figures, absent = render_figures(FigureInput(compute_content([])), tmp_path)
    assert figures == [] and not (tmp_path / "figures").exists()
    assert len(absent) == len(FIGURES)
    assert all(line.endswith(".") and ": " in line for line in absent)


@pytest.mark.slow
def test_every_planned_figure_is_drawn_titled_and_the_rest_said_absent(tmp_path: Path) -> None:
    rows = [
        {"instance_id": f"{family}-{size}-{k}", "prompt_id": f"{family}-{size}-{k}-{t}",
         "model": model, "family": family, "template": t, "sample": 0, "label": label,
         "decision": label if (k + len(model)) % 3 else None,
         "decision_correct": bool((k + len(model)) % 3),
         "witness_valid": True if label == "SAT" and (k + len(model)) % 3 else None,
         "failure": "correct" if (k + len(model)) % 3 else "no-answer",
         "truncated": False, "completion_tokens": 10 * (k + 1), "clauses": size,
         "num_clauses": size, "params": {}, "transforms": []}
        for model in MODELS
        for family, label in (("backbone", "SAT"), ("implication-cycle", "UNSAT"))
        for size in (5, 50, 200)
        for k in range(2)
        for t in ("logic", "door")
    ]  # fmt: skip
    content = compute_content(rows)
    figures, absent = render_figures(FigureInput(content, rows), tmp_path)
    names = [f.path.name for f in figures]
    assert len(names) == len(set(names))
    for wanted in ("leaderboard", "model-family", "decision-confusion", "response-length",
                   "accuracy-vs-clauses", "accuracy-by-template"):  # fmt: skip
        assert f"{wanted}.svg" in names
    drawn_keys = {spec.key for spec in FIGURES if any(n.startswith(spec.key) for n in names)}
    assert len(drawn_keys) + len(absent) == len(FIGURES)
    for figure in figures:
        assert check_svg(tmp_path / figure.path) == figure.title
    assert {p.name for p in (tmp_path / "figures").iterdir()} == set(names)
    # the template figure: one panel per model and family, not pooled over models
    titles = texts(tmp_path / "figures" / "accuracy-by-template.svg")
    for model in MODELS:
        assert f"{model} · backbone" in titles and f"{model} · implication-cycle" in titles


def test_clause_axes_spanning_5_to_200_are_logarithmic_with_a_tick_per_size(
    tmp_path: Path,
) -> None:
    point = Estimate(0.5, 0.3, 0.7, n=4)
    panels = {"p": {"m": [(5.0, point), (20.0, point), (200.0, point)]}}
    svg = curve_panels(panels, tmp_path / "wide.svg", xlabel="|C|", integer_x=True)
    xticks = [t for g in ET.parse(svg).getroot().iter(f"{SVG}g")
              if g.get("id", "").startswith("xtick_") for t in g.iter(f"{SVG}text")]  # fmt: skip
    assert [t.text for t in xticks] == ["5", "20", "200"]
    narrow = {"p": {"m": [(0.2, point), (0.5, point), (0.8, point)]}}
    svg = curve_panels(narrow, tmp_path / "narrow.svg", xlabel="level")
    labels = [t.text for g in ET.parse(svg).getroot().iter(f"{SVG}g")
              if g.get("id", "").startswith("xtick_") for t in g.iter(f"{SVG}text")]  # fmt: skip
    assert labels != ["0.2", "0.5", "0.8"] and len(labels) >= 3  # a linear axis's own ticks


def test_several_series_get_error_bars_and_one_series_a_band(tmp_path: Path) -> None:
    point = Estimate(0.5, 0.3, 0.7, n=4)
    curve = [(10.0, point), (20.0, point)]
    two = curve_panels({"p": {"a": curve, "b": curve}}, tmp_path / "two.svg", xlabel="x")
    one = curve_panels({"p": {"a": curve}}, tmp_path / "one.svg", xlabel="x")
    assert not any("PolyCollection" in i for i in group_ids(two))
    assert sum(i.startswith("LineCollection") for i in group_ids(two)) == 2
    assert sum("PolyCollection" in i for i in group_ids(one)) == 1


def test_panels_without_points_are_left_out_and_no_figure_is_drawn_empty(
    tmp_path: Path,
) -> None:
    point = Estimate(1.0, 0.6, 1.0, n=3)
    svg = curve_panels(
        {"full": {"m": [(1.0, point), (2.0, point)]}, "empty": {}, "hollow": {"m": []}},
        tmp_path / "f.svg",
        xlabel="x",
    )
    titles = texts(svg)
    assert "full" in titles and "empty" not in titles and "hollow" not in titles
    with pytest.raises(ValueError, match="no panel"):
        curve_panels({"empty": {}}, tmp_path / "g.svg", xlabel="x")
    kept = curve_panels(
        {"a": {"m": [(1.0, point)]}, "b": {}, "c": {"m": [(1.0, point)]}},
        tmp_path / "k.svg",
        xlabel="x",
        cols=2,
        keep_places=True,
    )
    assert "b" not in texts(kept) and sum(i.startswith("axes_") for i in group_ids(kept)) == 2
    root = ET.parse(kept).getroot()
    corners = []
    for group in root.iter(f"{SVG}g"):
        if group.get("id", "").startswith("axes_"):
            box = next(group.iter(f"{SVG}path")).get("d", "")
            corners.append(tuple(float(v) for v in re.findall(r"-?[\d.]+", box)[:2]))
    (ax, ay), (cx, cy) = corners
    assert cx == pytest.approx(ax) and cy > ay  # "c" sits under "a", in the first column


def test_a_zero_height_bar_is_drawn_as_a_labelled_stub(tmp_path: Path) -> None:
    bars = {"all": {"a": Estimate(0.0, 0.0, 0.2, n=9), "b": Estimate(0.5, 0.3, 0.7, n=9)}}
    svg = bar_groups(bars, tmp_path / "b.svg")
    assert texts(svg, outside_ticks=True).count("0") == 1
    ids = group_ids(svg)
    assert sum(i.startswith("line2d") for i in ids) >= 1  # the stub


@pytest.mark.slow
def test_figures_drawn_in_parallel_are_the_bytes_drawn_one_by_one(tmp_path: Path) -> None:
    rows = [
        {"instance_id": f"i{k}", "prompt_id": f"p{k}", "model": model, "family": "backbone",
         "template": "logic", "sample": 0, "label": "SAT", "decision": "SAT",
         "decision_correct": True, "witness_valid": k % 2 == 0,
         "failure": "correct" if k % 2 == 0 else "invalid-witness", "truncated": False,
         "completion_tokens": 5 + k, "clauses": 10 * (1 + k % 3), "num_clauses": 10,
         "params": {}, "transforms": []}
        for model in MODELS
        for k in range(6)
    ]  # fmt: skip
    inp = FigureInput(compute_content(rows), rows)
    assert threading.active_count() == 1  # else render_figures would not fork
    files = {}
    for workers in (1, 3):
        figures, _ = render_figures(inp, tmp_path / str(workers), workers=workers)
        files[workers] = {
            f.path.name: (tmp_path / str(workers) / f.path).read_bytes() for f in figures
        }
    assert len(files[1]) >= 5 and files[1] == files[3]
