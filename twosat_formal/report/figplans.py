"""The plans of the report's figures: each turns a :class:`FigureInput` into the
figures it draws (none when the run lacks their data), listed in the table of
:mod:`~twosat_formal.report.figspecs`.

The figures researchers ask for beside the paper's come first (leaderboard, model ×
family, decision confusion, accuracy against |C| and against structural hardness,
response length, pair consistency, templates per model), then the paper's.

Examples
--------
>>> from twosat_formal.report.content import compute_content
>>> leaderboard(FigureInput(compute_content([])), Path("figures"))
[]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from twosat_formal.report import charts, plots
from twosat_formal.report.figinput import OUTCOMES, Drawing, FigureInput, single, slug
from twosat_formal.report.metrics import (
    METRICS,
    Estimate,
    Row,
    aggregate,
    group_rows,
    rows_by_model,
)
from twosat_formal.report.sections.common import by_family, family_key
from twosat_formal.report.sections.curves import template_curves as per_family_templates

__all__ = [
    "binned_accuracy",
    "clause_curves",
    "confusion",
    "edits",
    "failures",
    "grouped",
    "hardness",
    "knobs",
    "leaderboard",
    "measures_of",
    "model_family",
    "order",
    "pair_consistency",
    "response_length",
    "sat_bias",
    "story_themes",
    "template_curves",
    "truncation",
]

#: The answers of the decision-confusion figure (``none``: no decision read).
_ANSWERS = ("SAT", "UNSAT", "none")
#: Bins of the structural-hardness axis, at most.
_HARDNESS_BINS = 6
#: The caption of the bar groups over (model, base formula) units.
_GROUP_BARS_CAPTION = (
    "Success (decision on UNSAT, valid witness on SAT); error bars: 95% CI across "
    "(model, base formula) units."
)
_SUCCESS = "Success (decision on UNSAT, valid witness on SAT)"


# -- the figures researchers ask for ----------------------------------------------------------


def leaderboard(inp: FigureInput, folder: Path) -> list[Drawing]:
    board = {
        s.model: {"strict": s.success, "lenient": s.lenient_success}
        for s in sorted(inp.content.summaries, key=lambda s: -(s.success.mean or 0.0))
        if s.success.mean is not None
    }
    if not board:
        return []
    return single(
        "leaderboard",
        "Leaderboard: strict and lenient success per model",
        f"{_SUCCESS} under the strict and the lenient reading of the answer, best model "
        "on top; error bars: 95% CI across base formulas.",
        charts.interval_dots,
        board,
        folder,
        styles=inp.styles,
    )


def model_family(inp: FigureInput, folder: Path) -> list[Drawing]:
    families = sorted({str(r["family"]) for r in inp.rows if r.get("family")}, key=family_key)
    if not families:
        return []
    grid: dict[str, dict[str, Estimate]] = {}
    for (model, family), members in group_rows(inp.rows, ["model", "family"]).items():
        estimate = aggregate(members, "success", method=inp.method, seed=inp.seed)
        if estimate.mean is not None and family is not None:
            grid.setdefault(str(model), {})[str(family)] = estimate
    ordered = {m: grid[m] for m in inp.models if m in grid}
    if not ordered:
        return []
    return single(
        "model-family",
        "Success per model and family",
        f"{_SUCCESS} of each model on each family, every answer of the run; each cell "
        "gives the mean in percent and the number of base formulas n.",
        charts.heatmap,
        ordered,
        folder,
        columns=families,
    )


def confusion(inp: FigureInput, folder: Path) -> list[Drawing]:
    panels: dict[str, dict[str, dict[str, int]]] = {}
    for row in inp.rows:
        label = str(row.get("label") or "").upper()
        if label not in ("SAT", "UNSAT"):
            continue
        decision = str(row.get("decision") or "").upper()
        answer = decision if decision in ("SAT", "UNSAT") else "none"
        cells = panels.setdefault(str(row.get("model")), {}).setdefault(label, {})
        cells[answer] = cells.get(answer, 0) + 1
    if not panels:
        return []
    return single(
        "decision-confusion",
        "Decision confusion per model",
        "Answers by the instance's label (rows) and the decision read from the answer "
        "(columns; none: no decision read), with each cell's share of its row.",
        charts.count_grids,
        {m: panels[m] for m in inp.models if m in panels},
        folder,
        rows=("SAT", "UNSAT"),
        columns=_ANSWERS,
        xlabel="answer",
        ylabel="label",
    )


def clause_curves(inp: FigureInput, folder: Path) -> list[Drawing]:
    curves = inp.content.size_metric_curves
    if not any(curves.get(metric) for metric in ("accuracy", "witness")):
        return []
    panels: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
    ylabels: dict[str, str] = {}
    families = list(dict.fromkeys(f for per_family in curves.values() for f in per_family))
    for family in families:
        for metric, label in (("accuracy", "decision accuracy"), ("witness", "witness validity")):
            key = f"{family}: {label}"
            panels[key] = dict(curves.get(metric, {}).get(family, {}))
            ylabels[key] = f"{label} (%)"
    return single(
        "accuracy-vs-clauses",
        "Decision accuracy and witness validity against |C|, per model",
        "Decision accuracy (SAT/UNSAT answered right, every instance) and witness "
        f"validity (a satisfying assignment given, SAT instances only). {inp.grid}. "
        "Error bars: 95% CI across base formulas; a panel without instances it applies "
        "to (witness validity of a family without SAT instances) is left blank.",
        plots.curve_panels,
        panels,
        folder,
        xlabel="number of clauses |C|",
        ylabel=ylabels,
        integer_x=True,
        styles=inp.styles,
        cols=2,
        keep_places=True,
    )


def measures_of(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int | None]]:
    """The structural measures of each readable instance record, by id: the record's
    ``measures`` (certified), or for a record written without them the measures of its
    formula (:func:`~twosat_formal.solve.measures.structural_measures`). Records that do not
    read as 2-CNF instances are left out.

    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.io.instance import Instance
    >>> sat = Instance(id="s", family="demo", params={}, seed=0, label="SAT",
    ...     formula=Formula([[1], [-1, 2]]), certificate={"status": "SAT", "backend": "scc",
    ...     "checked": True, "model": {"x1": True, "x2": True}}, structure={}, provenance={})
    >>> record = sat.to_record()
    >>> "measures" in record  # made here, not by a builder: no claim
    False
    >>> measures_of([record, {"id": "unreadable"}])["s"]["backbone"]
    2
    >>> measures_of([{**record, "measures": {"backbone": 9}}])["s"]["backbone"]
    Traceback (most recent call last):
    ...
    KeyError: 's'
    >>> claimed = {**record, "measures": {**measures_of([record])["s"], "backbone": 7}}
    >>> measures_of([claimed])["s"]["backbone"]
    7
    """
    from twosat_formal.errors import TwoSatFormalError
    from twosat_formal.io.instance import Instance
    from twosat_formal.solve.measures import MEASURES, structural_measures

    out: dict[str, dict[str, int | None]] = {}
    for record in records:
        stored = record.get("measures")
        if isinstance(stored, Mapping) and all(key in stored for key in MEASURES):
            out[str(record.get("id"))] = {key: stored[key] for key in MEASURES}
            continue
        try:
            formula = Instance.from_record(record).formula
        except (TwoSatFormalError, KeyError, ValueError, TypeError):
            continue
        if formula.is_2cnf:
            out[str(record.get("id"))] = structural_measures(formula)
    return out


def _bins(values: Sequence[int]) -> list[tuple[int, int]]:
    """Up to :data:`_HARDNESS_BINS` ranges ``(low, high)`` of ``values`` with about as
    many values each (one per distinct value when there are few).

    >>> _bins([1, 1, 2, 9])
    [(1, 1), (2, 2), (9, 9)]
    >>> _bins(list(range(1, 13)))
    [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]
    """
    distinct = sorted(set(values))
    if len(distinct) <= _HARDNESS_BINS:
        return [(v, v) for v in distinct]
    ordered = sorted(values)
    edges: list[tuple[int, int]] = []
    for i in range(_HARDNESS_BINS):
        chunk = ordered[
            i * len(ordered) // _HARDNESS_BINS : (i + 1) * len(ordered) // _HARDNESS_BINS
        ]
        if not chunk:
            continue
        low = chunk[0] if not edges else max(chunk[0], edges[-1][1] + 1)
        if low <= chunk[-1]:
            edges.append((low, chunk[-1]))
    return edges


def _middle(low: int, high: int) -> float:
    """Where a bin is drawn: its geometric middle (the arithmetic one from 0)."""
    return math.sqrt(low * high) if low > 0 else (low + high) / 2


def _bin_points(
    valued: Sequence[tuple[Row, int]], bins: Sequence[tuple[int, int]], inp: FigureInput
) -> list[tuple[float, Estimate]]:
    """The decision accuracy of the rows in each bin (bins without any left out)."""
    points = []
    for low, high in bins:
        inside = [r for r, value in valued if low <= value <= high]
        estimate = aggregate(inside, "accuracy", method=inp.method, seed=inp.seed)
        if estimate.mean is not None:
            points.append((_middle(low, high), estimate))
    return points


def binned_accuracy(
    valued: Sequence[tuple[Row, int]], inp: FigureInput
) -> dict[str, list[tuple[float, Estimate]]]:
    """Each model's decision accuracy in the bins (:func:`_bins`) of the rows' values,
    drawn at each bin's middle; empty when the values fall in fewer than two bins."""
    bins = _bins([value for _, value in valued])
    if len(bins) < 2:
        return {}
    panel = {}
    for model in inp.models:
        points = _bin_points([(r, v) for r, v in valued if r.get("model") == model], bins, inp)
        if points:
            panel[model] = points
    return panel


def hardness(inp: FigureInput, folder: Path) -> list[Drawing]:
    rated = [r for r in inp.rows if str(r.get("instance_id")) in inp.hardness]
    panels = {
        family: panel
        for family, members in by_family(rated)
        if (
            panel := binned_accuracy(
                [(r, inp.hardness[str(r["instance_id"])]) for r in members], inp
            )
        )
    }
    if not panels:
        return []
    return single(
        "accuracy-vs-hardness",
        "Decision accuracy against structural hardness, per model",
        "Structural hardness: literals in the largest strong component of the "
        "instance's implication graph (how much of the formula one chain of "
        "implications ties together), in up to six bins of about equal counts per "
        "family, each drawn at its geometric middle. Error bars: 95% CI across base "
        "formulas; a family whose instances all fall in one bin is left out.",
        plots.curve_panels,
        panels,
        folder,
        xlabel="largest strong component (literals)",
        ylabel="decision accuracy (%)",
        styles=inp.styles,
    )


def response_length(inp: FigureInput, folder: Path) -> list[Drawing]:
    groups: dict[str, dict[str, list[float]]] = {}
    for row in inp.rows:
        tokens = row.get("completion_tokens")
        success = METRICS["success"](row)
        if not isinstance(tokens, int | float) or isinstance(tokens, bool) or success is None:
            continue
        outcome = OUTCOMES[0] if success == 1.0 else OUTCOMES[1]
        groups.setdefault(str(row.get("model")), {}).setdefault(outcome, []).append(float(tokens))
    if not groups:
        return []
    return single(
        "response-length",
        "Response length against correctness, per model",
        "Completion tokens of each answer, those that succeeded (decision on UNSAT, valid "
        "witness on SAT) and those that failed apart; boxes: quartiles, whiskers: 1.5 "
        "IQR, n: answers. The axis is logarithmic when the lengths span more than a "
        "factor of 20.",
        charts.box_groups,
        {m: groups[m] for m in inp.models if m in groups},
        folder,
        ylabel="completion tokens",
        styles=inp.styles,
    )


def _twins(inp: FigureInput) -> tuple[list[tuple[str, Estimate, Estimate]], str]:
    """Each model's pair accuracy and consistency, from the run's own twins or else the
    diagnostics side run's, and which twins they are (no rows without either)."""
    content = inp.content
    if content.pairs:
        rows = [(s.model, s.accuracy, s.consistency) for s in content.pairs if s.by == "all"]
        return rows, "the run's minimal twins"
    rows = [(d.model, d.pair_accuracy, d.pair_consistency) for d in content.diagnostics or []]
    return rows, "the diagnostics side run's minimal twins"


def pair_consistency(inp: FigureInput, folder: Path) -> list[Drawing]:
    rows, source = _twins(inp)
    bars = {
        "pair accuracy": {model: acc for model, acc, _ in rows},
        "pair consistency": {model: cons for model, _, cons in rows},
    }
    if not any(e.mean is not None for group in bars.values() for e in group.values()):
        return []
    return single(
        "pair-consistency",
        "Minimal twins: pair accuracy and pair consistency, per model",
        f"Over {source} (a formula and its one-clause twin of the opposite label): "
        "pair accuracy, both decisions right; pair consistency, the two decisions "
        "differ as the labels do. Error bars: 95% CI across source formulas.",
        plots.bar_groups,
        bars,
        folder,
        ylabel="pairs (%)",
        styles=inp.styles,
    )


def _template_panels(inp: FigureInput) -> dict[str, dict[str, list[tuple[float, Estimate]]]]:
    """Per model and family of the plain grid, each template's success against |C|
    (those with two templates or more)."""
    panels = {}
    for model, mine in rows_by_model(inp.rows, inp.models):  # inp.models: every model
        for family, curves in per_family_templates(mine, method=inp.method, seed=inp.seed).items():
            if len(curves) > 1:
                panels[f"{model} · {family}"] = curves
    return panels


def template_curves(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    if len(content.templates) < 2:
        return []
    panels = _template_panels(inp)
    if not panels:
        return []
    return single(
        "accuracy-by-template",
        "Success against |C|, per verbalization template and model (Figure 8)",
        f"{_SUCCESS}. {inp.grid}. One panel per model and family; error bars: 95% CI "
        "across base formulas.",
        plots.curve_panels,
        panels,
        folder,
        xlabel="number of clauses |C|",
        integer_x=True,
        styles=inp.styles,
        cols=max(1, min(4, len({key.split(" · ")[1] for key in panels}))),
    )


# -- the paper's figures --------------------------------------------------------------------


def knobs(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    return [
        drawing
        for panel, knobs in content.knob_curves.items()
        if any(points for curves in knobs.values() for points in curves.values())
        for drawing in single(
            f"knobs-{slug(panel)}",
            f"Difficulty knobs: {panel} (Figures 1–4)",
            f"{_SUCCESS} against the level of one knob swept at a time; the knobs not "
            f"swept: {content.sweep_knobs}. Error bars: 95% CI across base formulas.",
            plots.curve_panels,
            knobs,
            folder,
            xlabel="knob level",
            title=panel,
            styles=inp.styles,
        )
    ]


def order(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    if not content.order_bars:
        return []
    return single(
        "order",
        "Construction order vs shuffled clauses, per model (Figure 6)",
        f"{_SUCCESS} of each model in each order, one panel per family; error bars: "
        "95% CI across base formulas.",
        plots.bar_panels,
        content.order_model_bars or {"all models": content.order_bars},
        folder,
        title="construction order vs shuffled, per model",
        styles=inp.styles,
    )


def grouped(attribute: str, stem: str, title: str, heading: str) -> Callable[..., list[Drawing]]:
    def plan(inp: FigureInput, folder: Path) -> list[Drawing]:
        bars = getattr(inp.content, attribute)
        if not bars:
            return []
        return single(
            stem,
            title,
            _GROUP_BARS_CAPTION,
            plots.bar_groups,
            bars,
            folder,
            title=heading,
            styles=inp.styles,
        )

    return plan


def story_themes(inp: FigureInput, folder: Path) -> list[Drawing]:
    stories = inp.content.stories
    if stories is None or not stories.curves:
        return []
    return single(
        "accuracy-by-story-theme",
        "Success against |C|, per story theme (Figure 9)",
        f"{_SUCCESS} for answers to story prompts, pooled over models; error bars: 95% "
        "CI across (model, base formula) units.",
        plots.curve_panels,
        stories.curves,
        folder,
        xlabel="number of clauses |C|",
        integer_x=True,
        styles=inp.styles,
    )


def edits(inp: FigureInput, folder: Path) -> list[Drawing]:
    curves = inp.content.edit_curves
    if not any(curves.values()):
        return []
    return single(
        "edits-normalized-accuracy",
        "Symbolic edits: normalized accuracy against k, per model",
        "Accuracy after k cumulative label-preserving edits divided by the baseline "
        "accuracy of the same records (100% at k = 0); records without a k-th edit "
        "fall back to their baseline.",
        plots.curve_panels,
        {"normalized accuracy": curves},
        folder,
        xlabel="cumulative label-preserving edits k",
        ylabel="normalized accuracy (% of baseline)",
        ylim=None,
        integer_x=True,
        styles=inp.styles,
    )


def sat_bias(inp: FigureInput, folder: Path) -> list[Drawing]:
    bias = inp.content.sat_bias_by_family
    if not bias:
        return []
    return single(
        "sat_bias",
        "SAT bias: share of UNSAT instances answered SAT, per family and model",
        "The SAT prediction rate on UNSAT instances (App. J): 0% for a model without a "
        "bias towards SAT, drawn as a stub labelled 0. Error bars: 95% CI across "
        "formulas.",
        plots.bar_groups,
        bias,
        folder,
        ylabel="SAT answers on UNSAT instances (%)",
        title="SAT bias on UNSAT instances",
        styles=inp.styles,
    )


def truncation(inp: FigureInput, folder: Path) -> list[Drawing]:
    summaries = inp.content.summaries
    if not summaries:
        return []
    return single(
        "truncation",
        "Truncation rate per model",
        "Share of answers cut by the token budget (finish reason `length`); they count "
        "as incorrect; a rate of 0 is drawn as a stub labelled 0. Error bars: 95% CI "
        "across formulas.",
        plots.bar_groups,
        {"all answers": {s.model: s.truncation for s in summaries}},
        folder,
        ylabel="answers truncated (%)",
        title="truncation at the token budget",
        styles=inp.styles,
    )


def failures(inp: FigureInput, folder: Path) -> list[Drawing]:
    summaries = inp.content.summaries
    if not summaries:
        return []
    return single(
        "failures",
        "Failure kinds per model",
        "Each answer falls in exactly one kind (the first that applies): a request "
        "error, truncated, an ambiguous or missing answer line, a wrong decision, and on "
        "SAT instances a missing, unparsable or invalid witness; otherwise correct.",
        plots.stacked_shares,
        {s.model: s.failures for s in summaries},
        folder,
        title="what the answers were",
    )
