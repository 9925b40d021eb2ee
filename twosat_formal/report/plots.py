"""Figures in the manner of the paper's Figures 1–9 (matplotlib, headless), PNG and SVG.

Three drawing primitives, :func:`curve_panels` (lines with shaded 95% CI bands, one
panel per key: accuracy against a knob or against |C|), :func:`bar_groups` (bars with
95% CI error bars: construction vs shuffled, fillers, duplication layouts, SAT bias,
truncation) and :func:`stacked_shares` (the failure-kind mix per model), and
:func:`draw_figures`, which draws every figure a :class:`ReportContent` has data for.

Every figure of a report draws a series (a model, a template, a story theme, an arm)
in the one colour, marker and line style :func:`~twosat_formal.report.style.assign_styles`
gave it; a figure has one legend, below its panels, at a size readable at column width;
axes that count (clauses, edits) have whole-number ticks; curves that coincide are
drawn a hair apart (a small horizontal dodge) so that none hides another. Each figure
is written as ``NAME.png`` and ``NAME.svg`` (text kept as text, no date, fixed ids:
the same content gives the same bytes).

Examples
--------
>>> import tempfile, pathlib
>>> from twosat_formal.report.metrics import Estimate
>>> panels = {"backbone": {"ref/oracle": [(20.0, Estimate(1.0, 1.0, 1.0, n=3)),
...                                       (50.0, Estimate(0.5, 0.2, 0.8, n=3))]}}
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = curve_panels(panels, pathlib.Path(tmp) / "f.png", xlabel="|C|")
...     path.read_bytes()[:8] == PNG_SIGNATURE, path.with_suffix(".svg").exists()
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from twosat_formal.report.metrics import Estimate
from twosat_formal.report.sections import ReportContent
from twosat_formal.report.style import Styles, assign_styles

__all__ = [
    "FAILURE_COLORS",
    "PNG_SIGNATURE",
    "Figure",
    "bar_groups",
    "bar_panels",
    "curve_panels",
    "draw_figures",
    "stacked_shares",
]

#: The eight bytes every PNG file starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Colour of each failure kind in the failure-mix figure (others: grey).
FAILURE_COLORS = {
    "correct": "#009E73",
    "wrong-decision": "#D55E00",
    "invalid-witness": "#E69F00",
    "missing-witness": "#F0E442",
    "no-answer": "#CC79A7",
    "ambiguous-answer": "#882255",
    "bad-json": "#56B4E9",
    "truncated": "#0072B2",
    "error": "#000000",
}

_PNG_METADATA = {"Software": None}
_SVG_METADATA = {"Date": None, "Creator": None}
#: Font sizes (points) of titles, axis labels, ticks and legends: readable at column width.
_TITLE, _LABEL, _TICK, _LEGEND = 10, 9, 8, 8
#: The panels against |C|: metric of the report's curves and what its axis says.
_SIZE_PANELS = (("accuracy", "decision accuracy"), ("witness", "witness validity"))
#: A series' horizontal dodge, as a share of the x range, times its index from the middle.
_DODGE = 0.008
#: The caption of the bar groups over (model, base formula) units.
_GROUP_BARS_CAPTION = (
    "Success (decision on UNSAT, valid witness on SAT); error bars: 95% CI across "
    "(model, base formula) units."
)
#: SVG settings: fixed element ids (same content, same bytes) and text kept as text.
_SVG_RC: dict[Any, Any] = {"svg.hashsalt": "twosat-formal", "svg.fonttype": "none"}


@dataclass(frozen=True)
class Figure:
    """A drawn figure: its file (relative to the report folder) and its caption."""

    name: str
    path: Path
    title: str
    caption: str


def _pct(value: float | None) -> float:
    return float("nan") if value is None else 100.0 * value


def _save(fig: Any, path: Path) -> Path:
    """Write ``fig`` as ``path`` (PNG) and beside it as SVG; return ``path``.

    The page is the box of everything drawn (``bbox_inches="tight"``), so a legend
    wider than its panels grows the page instead of being clipped."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tight = {"bbox_inches": "tight", "pad_inches": 0.05}
    fig.savefig(path, format="png", dpi=150, metadata=_PNG_METADATA, **tight)
    with plt.rc_context(_SVG_RC):
        fig.savefig(path.with_suffix(".svg"), format="svg", metadata=_SVG_METADATA, **tight)
    return path


def _style_for(styles: Styles | None, name: str, index: int) -> tuple[str, str, str]:
    """Colour, marker and line style of series ``name`` (``index``-th in its figure)."""
    if styles is not None and name in styles:
        style = styles[name]
        return style.color, style.marker, style.linestyle
    fallback = assign_styles([f"#{i}" for i in range(index + 1)])[f"#{index}"]
    return fallback.color, fallback.marker, fallback.linestyle


def _legend_below(fig: Any, handles: list[Any], labels: list[str]) -> None:
    """One legend for the whole figure, centred under its panels."""
    if handles:
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=min(4, len(labels)),
            fontsize=_LEGEND,
            frameon=False,
        )


def _finish(
    fig: Any, path: Path, handles: list[Any], labels: list[str], title: str | None, ax: Any = None
) -> None:
    """The legend under the panels, the title (over ``ax``, else the figure), and the files."""
    _legend_below(fig, handles, labels)
    if title:
        if ax is not None:
            ax.set_title(title, fontsize=_TITLE)
        else:
            fig.suptitle(title, fontsize=_TITLE)
    _save(fig, path)


def curve_panels(
    panels: Mapping[str, Mapping[str, Sequence[tuple[float, Estimate]]]],
    path: Path,
    *,
    xlabel: str,
    ylabel: str | Mapping[str, str] = "success (%)",
    title: str | None = None,
    ylim: tuple[float, float] | None = (-5.0, 105.0),
    integer_x: bool = False,
    styles: Styles | None = None,
    cols: int = 3,
) -> Path:
    """Draw one panel per key, one line per series, with a shaded CI band.

    Points whose interval is undefined (a single formula) are drawn without a band.
    ``ylabel`` is one label, or one per panel key; ``ylim`` fixes the y axis
    (``None``: fit the data); ``integer_x`` puts ticks on whole numbers only (axes
    that count). A series keeps its style from ``styles`` (others get one by their
    order). The legend, one per figure, is below the panels. Returns ``path``.
    """
    names = list(panels)
    count = max(1, len(names))
    cols = max(1, min(cols, count))
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(
        rows, cols, figsize=(3.6 * cols, 2.8 * rows + 0.6), squeeze=False, layout="constrained"
    )
    legend: dict[str, Any] = {}
    try:
        for index, ax in enumerate(axes.flat):
            if index >= len(names):
                ax.set_visible(False)
                continue
            panel = panels[names[index]]
            xs_all = [x for points in panel.values() for x, _ in points]
            spread = (max(xs_all) - min(xs_all)) if xs_all else 0.0
            for k, (series, points) in enumerate(panel.items()):
                color, marker, linestyle = _style_for(styles, series, k)
                shift = (k - (len(panel) - 1) / 2) * _DODGE * spread
                xs = [x + shift for x, e in points if e.mean is not None]
                means = [_pct(e.mean) for _, e in points if e.mean is not None]
                (line,) = ax.plot(
                    xs,
                    means,
                    color=color,
                    marker=marker,
                    linestyle=linestyle,
                    markersize=4,
                    linewidth=1.4,
                    label=series,
                )
                legend.setdefault(series, line)
                band = [(x, e) for x, e in points if e.low is not None and e.high is not None]
                if band:
                    ax.fill_between(
                        [x + shift for x, _ in band],
                        [max(0.0, _pct(e.low)) for _, e in band],
                        [min(100.0, _pct(e.high)) for _, e in band],
                        color=color,
                        alpha=0.15 if len(panel) <= 3 else 0.07,
                        linewidth=0,
                    )
            if not panel:  # a metric that applies to none of this panel's instances
                ax.text(0.5, 0.5, "does not apply", ha="center", va="center",
                        transform=ax.transAxes, fontsize=_LABEL, color="#555555")  # fmt: skip
                ax.set_xticks([])
            ax.set_title(names[index], fontsize=_LABEL)
            ax.set_xlabel(xlabel, fontsize=_LABEL)
            label = ylabel if isinstance(ylabel, str) else ylabel.get(names[index], "")
            ax.set_ylabel(label, fontsize=_LABEL)
            if ylim is not None:
                ax.set_ylim(*ylim)
            if integer_x:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.tick_params(labelsize=_TICK)
            ax.grid(alpha=0.3)
        if not names:
            axes.flat[0].set_visible(True)
            axes.flat[0].text(0.5, 0.5, "no data", ha="center", va="center")
        _finish(fig, path, list(legend.values()), list(legend), title)
    finally:
        plt.close(fig)
    return path


def _draw_bars(
    ax: Any, groups: Mapping[str, Mapping[str, Estimate]], styles: Styles | None
) -> tuple[list[Any], list[str]]:
    """Grouped bars with CI error bars on ``ax``; the legend handles and labels."""
    bar_names: list[str] = []
    for bars in groups.values():
        for name in bars:
            if name not in bar_names:
                bar_names.append(name)
    if styles is not None:  # the report's order of series (models first), not the data's
        rank = {name: i for i, name in enumerate(styles)}
        bar_names.sort(key=lambda name: rank.get(name, len(rank)))
    width = 0.8 / max(1, len(bar_names))
    handles, labels = [], []
    for j, name in enumerate(bar_names):
        xs, heights, lower, upper = [], [], [], []
        for i, bars in enumerate(groups.values()):
            estimate = bars.get(name)
            if estimate is None or estimate.mean is None:
                continue
            xs.append(i + (j - (len(bar_names) - 1) / 2) * width)
            heights.append(_pct(estimate.mean))
            low = estimate.low if estimate.low is not None else estimate.mean
            high = estimate.high if estimate.high is not None else estimate.mean
            lower.append(max(0.0, _pct(estimate.mean) - max(0.0, _pct(low))))
            upper.append(max(0.0, min(100.0, _pct(high)) - _pct(estimate.mean)))
        color, _, _ = _style_for(styles, name, j)
        container = ax.bar(
            xs, heights, width=width, label=name, color=color,
            yerr=[lower, upper], capsize=3, error_kw={"linewidth": 1.0},
        )  # fmt: skip
        handles.append(container)
        labels.append(name)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(list(groups), fontsize=_TICK)
    ax.tick_params(labelsize=_TICK)
    ax.grid(axis="y", alpha=0.3)
    if not bar_names:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    return handles, labels


def bar_groups(
    groups: Mapping[str, Mapping[str, Estimate]],
    path: Path,
    *,
    ylabel: str = "success (%)",
    title: str | None = None,
    styles: Styles | None = None,
    ylim: tuple[float, float] = (0.0, 105.0),
) -> Path:
    """Draw grouped bars (one group per key) with 95% CI error bars. Returns ``path``.

    A bar (a model, an arm) keeps its colour from ``styles``; the legend is below.

    >>> import tempfile, pathlib
    >>> bars = {"backbone": {"construction": Estimate(0.9, 0.8, 1.0, n=5),
    ...                      "shuffled": Estimate(0.7, None, None, n=1)}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     bar_groups(bars, pathlib.Path(tmp) / "b.png").stat().st_size > 1000
    True
    """
    width = max(1, len({name for bars in groups.values() for name in bars}))
    size = (max(4.5, 0.7 * len(groups) * width + 1.0), 3.6)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    try:
        handles, labels = _draw_bars(ax, groups, styles)
        ax.set_ylabel(ylabel, fontsize=_LABEL)
        ax.set_ylim(*ylim)
        _finish(fig, path, handles, labels, title, ax)
    finally:
        plt.close(fig)
    return path


def bar_panels(
    panels: Mapping[str, Mapping[str, Mapping[str, Estimate]]],
    path: Path,
    *,
    ylabel: str = "success (%)",
    title: str | None = None,
    styles: Styles | None = None,
) -> Path:
    """One panel of grouped bars per key (a family: groups are models). Returns ``path``.

    >>> import tempfile, pathlib
    >>> panels = {"backbone": {"ref/coin": {"construction": Estimate(0.5, 0.2, 0.8, n=4),
    ...                                     "shuffled": Estimate(0.4, 0.1, 0.7, n=4)}}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     bar_panels(panels, pathlib.Path(tmp) / "p.png").stat().st_size > 1000
    True
    """
    names = list(panels)
    count = max(1, len(names))
    cols = min(2, count)
    rows = (count + cols - 1) // cols
    widest = max((len(groups) for groups in panels.values()), default=1)
    fig, axes = plt.subplots(
        rows, cols, figsize=(max(3.6, 0.9 * widest + 1.2) * cols, 3.2 * rows + 0.6),
        squeeze=False, layout="constrained",
    )  # fmt: skip
    legend: dict[str, Any] = {}
    try:
        for index, ax in enumerate(axes.flat):
            if index >= max(1, len(names)):
                ax.set_visible(False)
                continue
            name = names[index] if names else "no data"
            handles, labels = _draw_bars(ax, panels.get(name, {}), styles)
            for handle, label in zip(handles, labels, strict=True):
                legend.setdefault(label, handle)
            ax.set_title(name, fontsize=_LABEL)
            ax.set_ylabel(ylabel, fontsize=_LABEL)
            ax.set_ylim(0.0, 105.0)
            for label in ax.get_xticklabels():
                label.set_rotation(20)
                label.set_horizontalalignment("right")
        _finish(fig, path, list(legend.values()), list(legend), title)
    finally:
        plt.close(fig)
    return path


def stacked_shares(
    counts: Mapping[str, Mapping[str, int]],
    path: Path,
    *,
    xlabel: str = "share of answers (%)",
    title: str | None = None,
    colors: Mapping[str, str] = FAILURE_COLORS,
) -> Path:
    """One horizontal bar per key (a model), split into the shares of its ``counts``.

    >>> import tempfile, pathlib
    >>> mix = {"ref/coin": {"correct": 5, "wrong-decision": 4, "no-answer": 1}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     stacked_shares(mix, pathlib.Path(tmp) / "f.png").stat().st_size > 1000
    True
    """
    kinds: list[str] = [k for k in colors if any(c.get(k) for c in counts.values())]
    kinds += sorted({k for c in counts.values() for k, n in c.items() if n} - set(kinds))
    names = list(counts)
    fig, ax = plt.subplots(figsize=(6.0, 1.0 + 0.45 * max(1, len(names))), layout="constrained")
    handles, labels = [], []
    try:
        left = [0.0] * len(names)
        for kind in kinds:
            shares = []
            for name in names:
                total = sum(counts[name].values())
                shares.append(100.0 * counts[name].get(kind, 0) / total if total else 0.0)
            bars = ax.barh(
                names, shares, left=left, color=colors.get(kind, "#999999"), label=kind,
                edgecolor="white", linewidth=0.5,
            )  # fmt: skip
            handles.append(bars)
            labels.append(kind)
            left = [a + b for a, b in zip(left, shares, strict=True)]
        ax.set_xlim(0, 100)
        ax.invert_yaxis()  # the first model on top, as in the tables
        ax.set_xlabel(xlabel, fontsize=_LABEL)
        ax.tick_params(labelsize=_TICK)
        if not names:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        _finish(fig, path, handles, labels, title, ax)
    finally:
        plt.close(fig)
    return path


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _grid_text(content: ReportContent) -> str:
    """What the plain grid is, read from its rows: knob settings and experiments.

    >>> from twosat_formal.report.sections import compute_content
    >>> _grid_text(compute_content([]))
    'Knob settings not recorded'
    """
    text = content.grid_knobs or "knob settings not recorded"
    if content.grid_experiments:
        kind = "experiment" if len(content.grid_experiments) == 1 else "experiments"
        text += f" ({kind} {', '.join(content.grid_experiments)})"
    return text[:1].upper() + text[1:]


def draw_figures(content: ReportContent, out_dir: Path) -> list[Figure]:
    """Draw every figure ``content`` has data for under ``out_dir/figures``.

    >>> from twosat_formal.report.sections import compute_content
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     draw_figures(compute_content([]), pathlib.Path(tmp))
    []
    """
    figures: list[Figure] = []
    folder = out_dir / "figures"
    themes = list(content.stories.curves) if content.stories is not None else []
    # the arms of each comparison figure are a group of their own: each figure's bars
    # start the palette afresh, so no two bars of one figure share a colour
    arms = [
        list(dict.fromkeys(name for group in bars.values() for name in group))
        for bars in (content.order_bars, content.filler_bars, content.duplication_bars)
    ]
    styles = assign_styles(content.models, content.templates, themes, *arms)

    def add(name: str, title: str, caption: str) -> None:
        figures.append(Figure(name, Path("figures") / name, title, caption))

    grid = _grid_text(content)
    clause_curves = partial(
        curve_panels, xlabel="number of clauses |C|", integer_x=True, styles=styles
    )
    metric_curves = content.size_metric_curves
    if any(metric_curves.get(metric) for metric in ("accuracy", "witness")):
        name = "accuracy-vs-clauses.png"
        panels: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
        ylabels: dict[str, str] = {}
        families = list(dict.fromkeys(f for curves in metric_curves.values() for f in curves))
        for family in families:
            for metric, label in (
                ("accuracy", "decision accuracy"),
                ("witness", "witness validity"),
            ):
                key = f"{family}: {label}"
                panels[key] = dict(metric_curves.get(metric, {}).get(family, {}))
                ylabels[key] = f"{label} (%)"
        clause_curves(panels, folder / name, ylabel=ylabels, cols=2)
        add(
            name,
            "Decision accuracy and witness validity against |C|, per model",
            "Left: decision accuracy (SAT/UNSAT answered right, every instance). Right: "
            f"witness validity (a satisfying assignment given, SAT instances only). {grid}. "
            "Shade: 95% CI across base formulas.",
        )
    if content.template_curves and len(content.templates) > 1:
        name = "accuracy-by-template.png"
        clause_curves(content.template_curves, folder / name)
        add(
            name,
            "Success against |C|, per verbalization template (Figure 8)",
            f"Success (decision on UNSAT, valid witness on SAT). {grid}. Pooled over "
            "models; shade: 95% CI across (model, base formula) units.",
        )
    for panel, knobs in content.knob_curves.items():
        name = f"knobs-{_slug(panel)}.png"
        curve_panels(knobs, folder / name, xlabel="knob level", title=panel, styles=styles)
        add(
            name,
            f"Difficulty knobs: {panel} (Figures 1–4)",
            "Success (decision on UNSAT, valid witness on SAT) against the level of one "
            f"knob swept at a time; the knobs not swept: {content.sweep_knobs}. Shade: "
            "95% CI across base formulas.",
        )
    if content.order_bars:
        name = "order.png"
        bar_panels(
            content.order_model_bars or {"all models": content.order_bars},
            folder / name,
            title="construction order vs shuffled, per model",
            styles=styles,
        )
        add(
            name,
            "Construction order vs shuffled clauses, per model (Figure 6)",
            "Success (decision on UNSAT, valid witness on SAT) of each model in each order, "
            "one panel per family; error bars: 95% CI across base formulas.",
        )
    if content.filler_bars:
        name = "fillers.png"
        bar_groups(content.filler_bars, folder / name, title="filler clauses", styles=styles)
        add(
            name,
            "Filler clauses: fixed core vs matched total (Figure 5)",
            _GROUP_BARS_CAPTION,
        )
    if content.duplication_bars:
        name = "duplication.png"
        bar_groups(
            content.duplication_bars, folder / name, title="clause duplication", styles=styles
        )
        add(
            name,
            "Duplicated clauses: layouts and shuffles (Figure 7)",
            _GROUP_BARS_CAPTION,
        )
    if content.stories is not None and content.stories.curves:
        name = "accuracy-by-story-theme.png"
        clause_curves(content.stories.curves, folder / name)
        add(
            name,
            "Success against |C|, per story theme (Figure 9)",
            "Success (decision on UNSAT, valid witness on SAT) for answers to story "
            "prompts, pooled over models; shade: 95% CI across (model, base formula) units.",
        )
    if content.edit_curves:
        name = "edits-normalized-accuracy.png"
        curve_panels(
            {"normalized accuracy": content.edit_curves},
            folder / name,
            xlabel="cumulative label-preserving edits k",
            ylabel="normalized accuracy (% of baseline)",
            ylim=None,
            integer_x=True,
            styles=styles,
        )
        add(
            name,
            "Symbolic edits: normalized accuracy against k, per model",
            "Accuracy after k cumulative label-preserving edits divided by the baseline "
            "accuracy of the same records (100% at k = 0); records without a k-th edit "
            "fall back to their baseline.",
        )
    if content.sat_bias_by_family:
        name = "sat_bias.png"
        bar_groups(
            content.sat_bias_by_family,
            folder / name,
            ylabel="SAT answers on UNSAT instances (%)",
            title="SAT bias on UNSAT instances",
            styles=styles,
        )
        add(
            name,
            "SAT bias: share of UNSAT instances answered SAT, per family and model",
            "The SAT prediction rate on UNSAT instances (App. J): 0% for a model without a "
            "bias towards SAT. Error bars: 95% CI across formulas.",
        )
    if content.summaries:
        name = "truncation.png"
        bar_groups(
            {"all answers": {s.model: s.truncation for s in content.summaries}},
            folder / name,
            ylabel="answers truncated (%)",
            title="truncation at the token budget",
            styles=styles,
        )
        add(
            name,
            "Truncation rate per model",
            "Share of answers cut by the token budget (finish reason `length`); they count "
            "as incorrect. Error bars: 95% CI across formulas.",
        )
        name = "failures.png"
        stacked_shares(
            {s.model: s.failures for s in content.summaries},
            folder / name,
            title="what the answers were",
        )
        add(
            name,
            "Failure kinds per model",
            "Each answer falls in exactly one kind (the first that applies): a request "
            "error, truncated, an ambiguous or missing answer line, a wrong decision, and on "
            "SAT instances a missing, unparsable or invalid witness; otherwise correct.",
        )
    return figures
