"""The report's figures as a table of specs, and :func:`draw_figures`, which draws them.

Each :class:`FigureSpec` of :data:`FIGURES` names a figure (or a family of figures,
such as one per swept knob), says what it shows, and plans its drawings from a
:class:`FigureInput` (the report's content, its result rows and the structure of its
instances). A spec whose data the run does not have plans nothing: no figure is ever
drawn empty, and the report says so in one line instead (:func:`render_figures`
returns those lines beside the figures).

Examples
--------
>>> [spec.key for spec in FIGURES][:4]
['leaderboard', 'model-family', 'decision-confusion', 'accuracy-vs-clauses']
>>> from twosat_formal.report.sections import compute_content
>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     figures, absent = render_figures(FigureInput(compute_content([])), pathlib.Path(tmp))
>>> figures, absent[0]
([], 'Leaderboard: no answers in this run.')
"""

from __future__ import annotations

import math
import multiprocessing
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from twosat_formal.report import charts, plots
from twosat_formal.report.metrics import Estimate, Row, aggregate, group_rows, metric_value
from twosat_formal.report.plots import FAILURE_COLORS, Figure
from twosat_formal.report.sections import ReportContent, _curve, _family_key, _is_plain
from twosat_formal.report.style import SeriesStyle, Styles, assign_styles

__all__ = [
    "FIGURES",
    "Drawing",
    "FigureInput",
    "FigureSpec",
    "draw_figures",
    "hardness_of",
    "render_figures",
    "title_svg",
]

#: The two readings of an answer on the leaderboard.
_READINGS = ("strict", "lenient")
#: The outcomes of the response-length figure.
_OUTCOMES = ("succeeded", "failed")
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


@dataclass(frozen=True)
class FigureInput:
    """What the figures are drawn from.

    ``rows`` are the report's joined result rows (one per answer); ``hardness`` maps
    an instance id to its structural hardness (:func:`hardness_of`); ``method`` and
    ``seed`` pick the intervals, as for the report's tables.
    """

    content: ReportContent
    rows: Sequence[Row] = ()
    hardness: Mapping[str, int] = field(default_factory=dict)
    method: str = "wilson"
    seed: int = 0

    @cached_property
    def styles(self) -> Styles:
        """One style per series name: models, templates, story themes, arms, readings;
        the outcomes correct and wrong in the colours of the failure-kind figure."""
        content = self.content
        themes = list(content.stories.curves) if content.stories is not None else []
        arms = [
            name
            for bars in (content.order_bars, content.filler_bars, content.duplication_bars)
            for group in bars.values()
            for name in group
        ]
        styles = assign_styles(content.models, content.templates, themes, arms, _READINGS)
        for outcome, kind in zip(_OUTCOMES, ("correct", "wrong-decision"), strict=True):
            styles.setdefault(outcome, SeriesStyle(FAILURE_COLORS[kind], "o", "-"))
        return styles

    @cached_property
    def grid(self) -> str:
        """What the plain grid is, read from its rows: knob settings and experiments."""
        content = self.content
        text = content.grid_knobs or "knob settings not recorded"
        if content.grid_experiments:
            kind = "experiment" if len(content.grid_experiments) == 1 else "experiments"
            text += f" ({kind} {', '.join(content.grid_experiments)})"
        return text[:1].upper() + text[1:]

    @cached_property
    def models(self) -> list[str]:
        """The models of the rows, in the report's order."""
        seen = {str(r.get("model")) for r in self.rows}
        return [m for m in self.content.models if m in seen] + sorted(
            seen - set(self.content.models)
        )


@dataclass(frozen=True)
class Drawing:
    """One figure to draw: its file name, title, caption and how to draw it."""

    name: str
    title: str
    caption: str
    draw: Callable[[], object]

    @property
    def weight(self) -> int:
        """Roughly how much the figure draws: the values in the data it is drawn from
        (the first argument of ``draw``), so that the largest figures start first."""
        args = getattr(self.draw, "args", ())
        return _values(args[0]) if args else 1


def _values(data: object) -> int:
    """How many values ``data`` holds, counting through mappings and sequences.

    >>> _values({"a": [(1, 2.0), (2, 3.0)], "b": {"x": 5}})
    5
    """
    if isinstance(data, Mapping):
        return sum(_values(v) for v in data.values())
    if isinstance(data, list | tuple):
        return sum(_values(v) for v in data)
    return 1


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report: ``key``, ``label`` (what it is called), ``plan`` (its
    drawings from a :class:`FigureInput`; none when the run lacks its data) and
    ``missing`` (the one line the report shows then)."""

    key: str
    label: str
    plan: Callable[[FigureInput, Path], list[Drawing]]
    missing: str


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _svg(name: str) -> str:
    return f"{name}.svg"


def _success_metric(row: Row) -> float | None:
    return metric_value("success")(row)


# -- the figures researchers ask for ----------------------------------------------------------


def _leaderboard(inp: FigureInput, folder: Path) -> list[Drawing]:
    board = {
        s.model: {"strict": s.success, "lenient": s.lenient_success}
        for s in sorted(inp.content.summaries, key=lambda s: -(s.success.mean or 0.0))
        if s.success.mean is not None
    }
    if not board:
        return []
    name = _svg("leaderboard")
    return [
        Drawing(
            name,
            "Leaderboard: strict and lenient success per model",
            f"{_SUCCESS} under the strict and the lenient reading of the answer, best model "
            "on top; error bars: 95% CI across base formulas.",
            partial(charts.interval_dots, board, folder / name, styles=inp.styles),
        )
    ]


def _model_family(inp: FigureInput, folder: Path) -> list[Drawing]:
    families = sorted({str(r["family"]) for r in inp.rows if r.get("family")}, key=_family_key)
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
    name = _svg("model-family")
    return [
        Drawing(
            name,
            "Success per model and family",
            f"{_SUCCESS} of each model on each family, every answer of the run; each cell "
            "gives the mean in percent and the number of base formulas n.",
            partial(charts.heatmap, ordered, folder / name, columns=families),
        )
    ]


def _confusion(inp: FigureInput, folder: Path) -> list[Drawing]:
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
    name = _svg("decision-confusion")
    ordered = {m: panels[m] for m in inp.models if m in panels}
    return [
        Drawing(
            name,
            "Decision confusion per model",
            "Answers by the instance's label (rows) and the decision read from the answer "
            "(columns; none: no decision read), with each cell's share of its row.",
            partial(
                charts.count_grids,
                ordered,
                folder / name,
                rows=("SAT", "UNSAT"),
                columns=_ANSWERS,
                xlabel="answer",
                ylabel="label",
            ),
        )
    ]


def _clause_curves(inp: FigureInput, folder: Path) -> list[Drawing]:
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
    name = _svg("accuracy-vs-clauses")
    return [
        Drawing(
            name,
            "Decision accuracy and witness validity against |C|, per model",
            "Decision accuracy (SAT/UNSAT answered right, every instance) and witness "
            f"validity (a satisfying assignment given, SAT instances only). {inp.grid}. "
            "Error bars: 95% CI across base formulas; a panel without instances it applies "
            "to is left out.",
            partial(
                plots.curve_panels,
                panels,
                folder / name,
                xlabel="number of clauses |C|",
                ylabel=ylabels,
                integer_x=True,
                styles=inp.styles,
                cols=2,
            ),
        )
    ]


def hardness_of(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The structural hardness of each readable instance record, by id: the size (in
    literals) of the largest strong component of its implication graph
    (:func:`twosat_formal.analysis.analyze`), how much of the formula one chain of
    implications ties together. Records that do not read as instances are left out.

    >>> from twosat_formal.formula import Formula
    >>> from twosat_formal.instance import Instance
    >>> chain = Instance(id="a", family="demo", params={}, seed=0, label="UNSAT",
    ...     formula=Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3, 4]]),
    ...     certificate={"status": "UNSAT", "backend": "scc", "checked": True,
    ...                  "cycle": ["x1", "~x1"]}, structure={}, provenance={})
    >>> hardness_of([chain.to_record(), {"id": "unreadable"}])
    {'a': 4}
    """
    from twosat_formal.analysis import analyze
    from twosat_formal.errors import TwoSatFormalError
    from twosat_formal.instance import Instance

    out: dict[str, int] = {}
    for record in records:
        try:
            formula = Instance.from_record(record).formula
        except (TwoSatFormalError, KeyError, ValueError, TypeError):
            continue
        out[str(record.get("id"))] = int(analyze(formula).largest_scc)
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


def _hardness(inp: FigureInput, folder: Path) -> list[Drawing]:
    rated = [r for r in inp.rows if str(r.get("instance_id")) in inp.hardness]
    if not rated:
        return []
    panels: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
    for (family,), members in sorted(
        group_rows(rated, ["family"]).items(), key=lambda kv: _family_key(str(kv[0][0]))
    ):
        bins = _bins([inp.hardness[str(r["instance_id"])] for r in members])
        if len(bins) < 2:
            continue
        panel: dict[str, list[tuple[float, Estimate]]] = {}
        for model in inp.models:
            mine = [r for r in members if r.get("model") == model]
            points = []
            for low, high in bins:
                inside = [r for r in mine if low <= inp.hardness[str(r["instance_id"])] <= high]
                estimate = aggregate(inside, "accuracy", method=inp.method, seed=inp.seed)
                if estimate.mean is not None:
                    points.append(
                        (math.sqrt(low * high) if low > 0 else (low + high) / 2, estimate)
                    )
            if points:
                panel[model] = points
        if panel:
            panels[str(family)] = panel
    if not panels:
        return []
    name = _svg("accuracy-vs-hardness")
    return [
        Drawing(
            name,
            "Decision accuracy against structural hardness, per model",
            "Structural hardness: literals in the largest strong component of the "
            "instance's implication graph (how much of the formula one chain of "
            "implications ties together), in up to six bins of about equal counts per "
            "family, each drawn at its geometric middle. Error bars: 95% CI across base "
            "formulas; a family whose instances all fall in one bin is left out.",
            partial(
                plots.curve_panels,
                panels,
                folder / name,
                xlabel="largest strong component (literals)",
                ylabel="decision accuracy (%)",
                styles=inp.styles,
            ),
        )
    ]


def _response_length(inp: FigureInput, folder: Path) -> list[Drawing]:
    groups: dict[str, dict[str, list[float]]] = {}
    for row in inp.rows:
        tokens = row.get("completion_tokens")
        success = _success_metric(row)
        if not isinstance(tokens, int | float) or isinstance(tokens, bool) or success is None:
            continue
        outcome = _OUTCOMES[0] if success == 1.0 else _OUTCOMES[1]
        groups.setdefault(str(row.get("model")), {}).setdefault(outcome, []).append(float(tokens))
    if not groups:
        return []
    ordered = {m: groups[m] for m in inp.models if m in groups}
    name = _svg("response-length")
    return [
        Drawing(
            name,
            "Response length against correctness, per model",
            "Completion tokens of each answer, those that succeeded (decision on UNSAT, valid "
            "witness on SAT) and those that failed apart; boxes: quartiles, whiskers: 1.5 "
            "IQR, n: answers. The axis is logarithmic when the lengths span more than a "
            "factor of 20.",
            partial(
                charts.box_groups,
                ordered,
                folder / name,
                ylabel="completion tokens",
                styles=inp.styles,
            ),
        )
    ]


def _pair_consistency(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    if content.pairs:
        rows = [(s.model, s.accuracy, s.consistency) for s in content.pairs if s.by == "all"]
        source = "the run's minimal twins"
    elif content.diagnostics:
        rows = [(d.model, d.pair_accuracy, d.pair_consistency) for d in content.diagnostics]
        source = "the diagnostics side run's minimal twins"
    else:
        return []
    bars = {
        "pair accuracy": {model: acc for model, acc, _ in rows},
        "pair consistency": {model: cons for model, _, cons in rows},
    }
    if not any(e.mean is not None for group in bars.values() for e in group.values()):
        return []
    name = _svg("pair-consistency")
    return [
        Drawing(
            name,
            "Minimal twins: pair accuracy and pair consistency, per model",
            f"Over {source} (a formula and its one-clause twin of the opposite label): "
            "pair accuracy, both decisions right; pair consistency, the two decisions "
            "differ as the labels do. Error bars: 95% CI across pairs.",
            partial(plots.bar_groups, bars, folder / name, ylabel="pairs (%)", styles=inp.styles),
        )
    ]


def _template_curves(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    if len(content.templates) < 2:
        return []
    plain = [r for r in inp.rows if _is_plain(r)]
    panels: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
    groups = group_rows(plain, ["model", "family"])
    for model in inp.models:
        for family in sorted({str(f) for m, f in groups if m == model}, key=_family_key):
            members = groups[(model, family)]
            curves = {
                str(template): _curve(mine, "clauses", method=inp.method, seed=inp.seed)
                for (template,), mine in group_rows(members, ["template"]).items()
            }
            if len(curves) > 1:
                panels[f"{model} · {family}"] = curves
    if not panels:
        return []
    name = _svg("accuracy-by-template")
    cols = max(1, min(4, len({key.split(" · ")[1] for key in panels})))
    return [
        Drawing(
            name,
            "Success against |C|, per verbalization template and model (Figure 8)",
            f"{_SUCCESS}. {inp.grid}. One panel per model and family; error bars: 95% CI "
            "across base formulas.",
            partial(
                plots.curve_panels,
                panels,
                folder / name,
                xlabel="number of clauses |C|",
                integer_x=True,
                styles=inp.styles,
                cols=cols,
            ),
        )
    ]


# -- the paper's figures --------------------------------------------------------------------


def _knobs(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    out = []
    for panel, knobs in content.knob_curves.items():
        if not any(points for curves in knobs.values() for points in curves.values()):
            continue
        name = _svg(f"knobs-{_slug(panel)}")
        out.append(
            Drawing(
                name,
                f"Difficulty knobs: {panel} (Figures 1–4)",
                f"{_SUCCESS} against the level of one knob swept at a time; the knobs not "
                f"swept: {content.sweep_knobs}. Error bars: 95% CI across base formulas.",
                partial(
                    plots.curve_panels,
                    knobs,
                    folder / name,
                    xlabel="knob level",
                    title=panel,
                    styles=inp.styles,
                ),
            )
        )
    return out


def _order(inp: FigureInput, folder: Path) -> list[Drawing]:
    content = inp.content
    if not content.order_bars:
        return []
    name = _svg("order")
    return [
        Drawing(
            name,
            "Construction order vs shuffled clauses, per model (Figure 6)",
            f"{_SUCCESS} of each model in each order, one panel per family; error bars: "
            "95% CI across base formulas.",
            partial(
                plots.bar_panels,
                content.order_model_bars or {"all models": content.order_bars},
                folder / name,
                title="construction order vs shuffled, per model",
                styles=inp.styles,
            ),
        )
    ]


def _grouped(attribute: str, stem: str, title: str, heading: str) -> Callable[..., list[Drawing]]:
    def plan(inp: FigureInput, folder: Path) -> list[Drawing]:
        bars = getattr(inp.content, attribute)
        if not bars:
            return []
        name = _svg(stem)
        draw = partial(plots.bar_groups, bars, folder / name, title=heading, styles=inp.styles)
        return [Drawing(name, title, _GROUP_BARS_CAPTION, draw)]

    return plan


def _story_themes(inp: FigureInput, folder: Path) -> list[Drawing]:
    stories = inp.content.stories
    if stories is None or not stories.curves:
        return []
    name = _svg("accuracy-by-story-theme")
    return [
        Drawing(
            name,
            "Success against |C|, per story theme (Figure 9)",
            f"{_SUCCESS} for answers to story prompts, pooled over models; error bars: 95% "
            "CI across (model, base formula) units.",
            partial(
                plots.curve_panels,
                stories.curves,
                folder / name,
                xlabel="number of clauses |C|",
                integer_x=True,
                styles=inp.styles,
            ),
        )
    ]


def _edits(inp: FigureInput, folder: Path) -> list[Drawing]:
    curves = inp.content.edit_curves
    if not any(curves.values()):
        return []
    name = _svg("edits-normalized-accuracy")
    return [
        Drawing(
            name,
            "Symbolic edits: normalized accuracy against k, per model",
            "Accuracy after k cumulative label-preserving edits divided by the baseline "
            "accuracy of the same records (100% at k = 0); records without a k-th edit "
            "fall back to their baseline.",
            partial(
                plots.curve_panels,
                {"normalized accuracy": curves},
                folder / name,
                xlabel="cumulative label-preserving edits k",
                ylabel="normalized accuracy (% of baseline)",
                ylim=None,
                integer_x=True,
                styles=inp.styles,
            ),
        )
    ]


def _sat_bias(inp: FigureInput, folder: Path) -> list[Drawing]:
    bias = inp.content.sat_bias_by_family
    if not bias:
        return []
    name = _svg("sat_bias")
    return [
        Drawing(
            name,
            "SAT bias: share of UNSAT instances answered SAT, per family and model",
            "The SAT prediction rate on UNSAT instances (App. J): 0% for a model without a "
            "bias towards SAT, drawn as a stub labelled 0. Error bars: 95% CI across "
            "formulas.",
            partial(
                plots.bar_groups,
                bias,
                folder / name,
                ylabel="SAT answers on UNSAT instances (%)",
                title="SAT bias on UNSAT instances",
                styles=inp.styles,
            ),
        )
    ]


def _truncation(inp: FigureInput, folder: Path) -> list[Drawing]:
    summaries = inp.content.summaries
    if not summaries:
        return []
    name = _svg("truncation")
    bars = {"all answers": {s.model: s.truncation for s in summaries}}
    return [
        Drawing(
            name,
            "Truncation rate per model",
            "Share of answers cut by the token budget (finish reason `length`); they count "
            "as incorrect; a rate of 0 is drawn as a stub labelled 0. Error bars: 95% CI "
            "across formulas.",
            partial(
                plots.bar_groups,
                bars,
                folder / name,
                ylabel="answers truncated (%)",
                title="truncation at the token budget",
                styles=inp.styles,
            ),
        )
    ]


def _failures(inp: FigureInput, folder: Path) -> list[Drawing]:
    summaries = inp.content.summaries
    if not summaries:
        return []
    name = _svg("failures")
    mix = {s.model: s.failures for s in summaries}
    return [
        Drawing(
            name,
            "Failure kinds per model",
            "Each answer falls in exactly one kind (the first that applies): a request "
            "error, truncated, an ambiguous or missing answer line, a wrong decision, and on "
            "SAT instances a missing, unparsable or invalid witness; otherwise correct.",
            partial(plots.stacked_shares, mix, folder / name, title="what the answers were"),
        )
    ]


#: Every figure of a report, in the order the report shows them.
FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("leaderboard", "Leaderboard", _leaderboard, "no answers in this run"),
    FigureSpec("model-family", "Success per model and family", _model_family,
               "no answers with a family in this run"),
    FigureSpec("decision-confusion", "Decision confusion", _confusion,
               "no answers to labelled instances in this run"),
    FigureSpec("accuracy-vs-clauses", "Accuracy against |C|", _clause_curves,
               "no answers on the plain grid in this run"),
    FigureSpec("accuracy-vs-hardness", "Accuracy against structural hardness", _hardness,
               "no family whose instances differ in structure (or no readable instances)"),
    FigureSpec("response-length", "Response length against correctness", _response_length,
               "no answer records its completion tokens"),
    FigureSpec("pair-consistency", "Pair consistency of minimal twins", _pair_consistency,
               "no minimal twins in this run"),
    FigureSpec("accuracy-by-template", "Templates per model (Figure 8)", _template_curves,
               "fewer than two templates in this run"),
    FigureSpec("knobs", "Difficulty knobs (Figures 1–4)", _knobs, "no knob is swept in this run"),
    FigureSpec("order", "Clause order (Figure 6)", _order, "no shuffled arm in this run"),
    FigureSpec("fillers", "Filler clauses (Figure 5)",
               _grouped("filler_bars", "fillers", "Filler clauses: fixed core vs matched "
                        "total (Figure 5)", "filler clauses"),
               "no filler arms in this run"),
    FigureSpec("duplication", "Duplicated clauses (Figure 7)",
               _grouped("duplication_bars", "duplication", "Duplicated clauses: layouts and "
                        "shuffles (Figure 7)", "clause duplication"),
               "no duplication arms in this run"),
    FigureSpec("accuracy-by-story-theme", "Story themes (Figure 9)", _story_themes,
               "no answers to story prompts in this run"),
    FigureSpec("edits-normalized-accuracy", "Symbolic edits", _edits,
               "no symbolically edited instances in this run"),
    FigureSpec("sat_bias", "SAT bias", _sat_bias, "no UNSAT instances in this run"),
    FigureSpec("truncation", "Truncation", _truncation, "no answers in this run"),
    FigureSpec("failures", "Failure kinds", _failures, "no answers in this run"),
)  # fmt: skip


def title_svg(path: Path, title: str, caption: str) -> None:
    """Give the SVG file ``path`` a ``<title>`` and a ``<desc>`` (its first children),
    which browsers show on hover and screen readers read.

    >>> import tempfile, pathlib
    >>> svg = pathlib.Path(tempfile.mkdtemp()) / "f.svg"
    >>> _ = svg.write_text('<?xml version="1.0"?>\\n<svg width="1"><g/></svg>')
    >>> title_svg(svg, "A < B", "why")
    >>> svg.read_text().split("\\n")[1]
    '<svg width="1"><title>A &lt; B</title><desc>why</desc><g/></svg>'
    """
    text = path.read_text(encoding="utf-8")
    start = text.index("<svg")
    end = text.index(">", start) + 1
    head = f"<title>{xml_escape(title)}</title><desc>{xml_escape(caption)}</desc>"
    path.write_text(text[:end] + head + text[end:], encoding="utf-8")


def _draw(drawing: Drawing, path: Path) -> None:
    drawing.draw()
    title_svg(path, drawing.title, drawing.caption)


def render_figures(
    inp: FigureInput, out_dir: Path, *, workers: int | None = None
) -> tuple[list[Figure], list[str]]:
    """Draw every figure of :data:`FIGURES` that ``inp`` has data for under
    ``out_dir/figures``; return the figures and, for each spec without data, the one
    line that says so (``"Leaderboard: no answers in this run."``).

    The figures are drawn by ``workers`` processes at once (default: one per processor,
    at most one per figure; ``1`` draws them here, one after the other), the largest
    (:attr:`Drawing.weight`) first. Each figure is drawn from its own data alone, so
    the files are the same either way.
    """
    folder = out_dir / "figures"
    planned: list[Drawing] = []
    absent: list[str] = []
    for spec in FIGURES:
        drawings = spec.plan(inp, folder)
        if not drawings:
            absent.append(f"{spec.label}: {spec.missing}.")
        planned.extend(drawings)
    count = min(len(planned), workers or os.cpu_count() or 1)
    if count > 1 and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")  # the children need no imports
        with ProcessPoolExecutor(count, mp_context=context) as pool:
            largest_first = sorted(planned, key=lambda d: -d.weight)
            done = [pool.submit(_draw, d, folder / d.name) for d in largest_first]
            for future in done:
                future.result()
    else:
        for drawing in planned:
            _draw(drawing, folder / drawing.name)
    figures = [Figure(d.name, Path("figures") / d.name, d.title, d.caption) for d in planned]
    return figures, absent


def draw_figures(content: ReportContent, out_dir: Path, rows: Sequence[Row] = ()) -> list[Figure]:
    """Draw every figure ``content`` (and its result ``rows``) has data for under
    ``out_dir/figures``; see :func:`render_figures`.

    >>> from twosat_formal.report.sections import compute_content
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     draw_figures(compute_content([]), pathlib.Path(tmp))
    []
    """
    return render_figures(FigureInput(content, rows), out_dir)[0]
