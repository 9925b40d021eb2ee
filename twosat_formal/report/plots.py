"""Figures in the manner of the paper's Figures 1–9 (matplotlib, headless), as SVG.

The drawing primitives of the paper's figures: :func:`curve_panels` (lines with their
95% CIs, one panel per key: accuracy against a knob or against |C|), :func:`bar_groups`
and :func:`bar_panels` (bars with 95% CI error bars: construction vs shuffled, fillers,
duplication layouts, SAT bias, truncation) and :func:`stacked_shares` (the failure-kind
mix per model); :mod:`~twosat_formal.report.charts` has the others and
:mod:`~twosat_formal.report.figspecs` the table of figures a report draws.

Every figure of a report draws a series (a model, a template, a story theme, an arm)
in the one colour, marker and line style :func:`~twosat_formal.report.style.assign_styles`
gave it; a figure has one legend, below its panels, at a size readable at column width;
axes that count (clauses, edits) have whole-number ticks; curves that coincide are
drawn a hair apart (a small horizontal dodge) so that none hides another. Each figure
is written as ``NAME.svg`` (vector, text kept as text, no date, fixed ids:
the same content gives the same bytes).

Examples
--------
>>> import tempfile, pathlib
>>> from twosat_formal.report.metrics import Estimate
>>> panels = {"backbone": {"ref/oracle": [(20.0, Estimate(1.0, 1.0, 1.0, n=3)),
...                                       (50.0, Estimate(0.5, 0.2, 0.8, n=3))]}}
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = curve_panels(panels, pathlib.Path(tmp) / "f.png", xlabel="|C|")
...     path.name, path.read_text().count("<svg")
('f.svg', 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from twosat_formal.report.metrics import Estimate
from twosat_formal.report.style import Styles, assign_styles

__all__ = [
    "FAILURE_COLORS",
    "FONT_LABEL",
    "FONT_LEGEND",
    "FONT_TICK",
    "FONT_TITLE",
    "LOG_SPAN",
    "bar_groups",
    "bar_panels",
    "curve_panels",
    "finish_figure",
    "panel_grid",
    "percent",
    "save_figure",
    "stacked_shares",
    "style_for",
    "title_svg",
]

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

_SVG_METADATA = {"Date": None, "Creator": None}
#: Font sizes (points) of titles, axis labels, ticks and legends: readable at column width.
FONT_TITLE, FONT_LABEL, FONT_TICK, FONT_LEGEND = 10, 9, 8, 8
#: An axis over positive values spanning this factor or more is drawn logarithmic.
LOG_SPAN = 8.0
#: A bar lower than this (in points of percent) is drawn as a stub at 0, labelled.
_ZERO_BAR = 0.5
#: The y range of bars in percent: a little below 0, so that a stub at 0 shows.
_BAR_YLIM = (-3.0, 105.0)
#: Entries per row of a figure's legend.
_LEGEND_COLUMNS = 4
#: A series' horizontal dodge, as a share of the x range, times its index from the middle.
_DODGE = 0.008
#: SVG settings: fixed element ids (same content, same bytes) and text kept as text.
_SVG_RC: dict[Any, Any] = {"svg.hashsalt": "twosat-formal", "svg.fonttype": "none"}


def percent(value: float | None) -> float:
    """A share as a percentage for an axis (NaN, drawn as a gap, when undefined).

    >>> percent(0.25), percent(None)
    (25.0, nan)
    """
    return float("nan") if value is None else 100.0 * value


def save_figure(fig: Any, path: Path) -> Path:
    """Write ``fig`` as an SVG file at ``path`` (whatever its suffix says: ``.svg``);
    return the path written. Text stays text, and no date is written.

    The page is the box of everything drawn (``bbox_inches="tight"``), so a legend
    wider than its panels grows the page instead of being clipped."""
    out = path.with_suffix(".svg")
    out.parent.mkdir(parents=True, exist_ok=True)
    with plt.rc_context(_SVG_RC):
        fig.savefig(out, format="svg", metadata=_SVG_METADATA, bbox_inches="tight", pad_inches=0.05)
    return out


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


def style_for(styles: Styles | None, name: str, index: int) -> tuple[str, str, str]:
    """Colour, marker and line style of series ``name`` (``index``-th in its figure)."""
    if styles is not None and name in styles:
        style = styles[name]
        return style.color, style.marker, style.linestyle
    fallback = assign_styles([f"#{i}" for i in range(index + 1)])[f"#{index}"]
    return fallback.color, fallback.marker, fallback.linestyle


def _legend_below(fig: Any, handles: list[Any], labels: list[str]) -> None:
    """One legend for the whole figure, centred under its panels (in the room a figure
    laid out by :func:`panel_grid` keeps for it, else outside the constrained layout)."""
    if handles:
        placed = fig.get_layout_engine() is None
        fig.legend(
            handles,
            labels,
            loc="lower center" if placed else "outside lower center",
            bbox_to_anchor=(0.5, 0.02) if placed else None,
            ncols=min(_LEGEND_COLUMNS, len(labels)),
            fontsize=FONT_LEGEND,
            frameon=False,
        )


def panel_grid(
    rows: int, cols: int, *, legend: int, titled: bool, ylabel_each: bool
) -> tuple[Any, Any]:
    """A figure of ``rows`` × ``cols`` panels laid out by fixed margins (inches).

    Margins leave room for tick labels, axis labels and panel titles at the report's
    font sizes, and under the panels for a legend of ``legend`` entries; ``titled``:
    room for a figure title; ``ylabel_each``: every panel labels its y axis (else only
    the first of a row does). A fixed layout costs nothing to compute, where a
    constrained one measures every text of the figure several times.
    """
    width, height = 3.6 * cols, 2.8 * rows + 0.6
    legend_rows = -(-legend // _LEGEND_COLUMNS) if legend else 0
    left, right = 0.7, 0.15
    top = 0.3 + (0.3 if titled else 0.0)
    bottom = 0.55 + 0.22 * legend_rows + (0.1 if legend_rows else 0.0)
    gap_w, gap_h = (0.75 if ylabel_each else 0.3), 0.85
    height += 0.22 * max(0, legend_rows - 1)
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False)
    axis_w = (width - left - right - (cols - 1) * gap_w) / cols
    axis_h = (height - top - bottom - (rows - 1) * gap_h) / rows
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=gap_w / axis_w,
        hspace=gap_h / axis_h,
    )
    return fig, axes


def finish_figure(
    fig: Any, path: Path, handles: list[Any], labels: list[str], title: str | None, ax: Any = None
) -> Path:
    """The legend under the panels, the title (over ``ax``, else the figure), and the file;
    returns the path written (``path`` as an ``.svg``)."""
    _legend_below(fig, handles, labels)
    if title:
        if ax is not None:
            ax.set_title(title, fontsize=FONT_TITLE)
        else:
            fig.suptitle(title, fontsize=FONT_TITLE)
    return save_figure(fig, path)


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
    keep_places: bool = False,
) -> Path:
    """Draw one panel per key, one line per series, with its 95% CI.

    A panel with one series shades its interval as a band; a panel with several draws
    each interval as an error bar (bands of several series would overlap into grey).
    Points whose interval is undefined (a single formula) are drawn without one. A
    panel without any point is left out (none is drawn empty); with ``keep_places`` its
    place in the grid stays blank, so that the panels after it keep their column. The x axis is
    logarithmic, with a tick at each value, when its values are positive and span a
    factor of :data:`LOG_SPAN` or more (|C| from 5 to 200); else linear.

    ``ylabel`` is one label, or one per panel key; ``ylim`` fixes the y axis
    (``None``: fit the data); ``integer_x`` puts ticks on whole numbers only (axes
    that count). A series keeps its style from ``styles`` (others get one by their
    order). The legend, one per figure, is below the panels. Returns ``path``.
    Raises :class:`ValueError` when no panel has a point.
    """
    drawn = _with_points(panels)
    if not drawn:
        raise ValueError("curve_panels: no panel has a point to draw")
    names = list(panels) if keep_places else list(drawn)
    cols = max(1, min(cols, len(names)))
    rows = (len(names) + cols - 1) // cols
    named = {series for panel in drawn.values() for series in panel}
    shared = ylim is not None and isinstance(ylabel, str)  # one y axis label per row
    dress = _CurveAxes(xlabel, ylabel, ylim, integer_x, shared, cols)
    fig, axes = panel_grid(
        rows, cols, legend=len(named), titled=bool(title), ylabel_each=not shared
    )
    legend: dict[str, Any] = {}
    try:
        for index, ax in enumerate(axes.flat):
            if index >= len(names) or names[index] not in drawn:
                ax.set_visible(False)  # no panel, or one without points: its place is blank
                continue
            xs, log = _draw_curves(ax, drawn[names[index]], styles, legend)
            dress(ax, index, names[index], xs, log)
        return finish_figure(fig, path, list(legend.values()), list(legend), title)
    finally:
        plt.close(fig)


def _with_points(
    panels: Mapping[str, Mapping[str, Sequence[tuple[float, Estimate]]]],
) -> dict[str, dict[str, Sequence[tuple[float, Estimate]]]]:
    """The panels that have a point, in order, each with its series that have one.

    >>> from twosat_formal.report.metrics import Estimate
    >>> one = [(1.0, Estimate(0.5, None, None, n=1))]
    >>> drawn = _with_points({"a": {"m": []}, "b": {"m": [], "n": one}})
    >>> {name: list(panel) for name, panel in drawn.items()}
    {'b': ['n']}
    """
    return {
        name: {series: points for series, points in panel.items() if points}
        for name, panel in panels.items()
        if any(panel.values())
    }


def _draw_curves(
    ax: Any,
    panel: Mapping[str, Sequence[tuple[float, Estimate]]],
    styles: Styles | None,
    legend: dict[str, Any],
) -> tuple[list[float], bool]:
    """Draw each series of one panel as a line with its 95% CI, dodged apart; each new
    series' line goes into ``legend``. The panel's x values, and whether its x axis is
    logarithmic."""
    xs = [x for points in panel.values() for x, _ in points]
    log = _log_axis(xs)
    for k, (series, points) in enumerate(panel.items()):
        color, marker, linestyle = style_for(styles, series, k)
        shown = _dodged(points, _dodge(xs, k - (len(panel) - 1) / 2, log))
        (line,) = ax.plot(
            [x for x, _ in shown],
            [percent(e.mean) for _, e in shown],
            color=color,
            marker=marker,
            linestyle=linestyle,
            markersize=4,
            linewidth=1.4,
            label=series,
        )
        legend.setdefault(series, line)
        band = [(x, e) for x, e in shown if e.low is not None and e.high is not None]
        if band:
            _draw_interval(ax, band, color, alone=len(panel) == 1)
    return xs, log


def _dodged(
    points: Sequence[tuple[float, Estimate]], at: Callable[[float], float]
) -> list[tuple[float, Estimate]]:
    """The points that have a value, each moved to ``at(x)``."""
    return [(at(x), e) for x, e in points if e.mean is not None]


def _draw_interval(
    ax: Any, band: Sequence[tuple[float, Estimate]], color: Any, alone: bool
) -> None:
    """The 95% CIs of a series' points: a shaded band when the series is ``alone`` in its
    panel, else error bars (bands of several series would overlap into grey)."""
    if alone:
        ax.fill_between(
            [x for x, _ in band],
            [max(0.0, percent(e.low)) for _, e in band],
            [min(100.0, percent(e.high)) for _, e in band],
            color=color,
            alpha=0.18,
            linewidth=0,
        )
        return
    ax.errorbar(
        [x for x, _ in band],
        [percent(e.mean) for _, e in band],
        yerr=[
            [max(0.0, percent(e.mean) - percent(e.low)) for _, e in band],
            [max(0.0, percent(e.high) - percent(e.mean)) for _, e in band],
        ],
        fmt="none",
        ecolor=color,
        elinewidth=0.9,
        capsize=0,
    )


@dataclass(frozen=True)
class _CurveAxes:
    """How :func:`curve_panels` labels, limits and ticks each of its panels.

    ``shared``: one y axis label per row (the row's first panel's), the others' tick
    labels hidden; ``cols``: the panels in a row.
    """

    xlabel: str
    ylabel: str | Mapping[str, str]
    ylim: tuple[float, float] | None
    integer_x: bool
    shared: bool
    cols: int

    def __call__(self, ax: Any, index: int, name: str, xs: Sequence[float], log: bool) -> None:
        """Dress panel ``index`` (key ``name``) whose x values are ``xs``."""
        ax.set_title(name, fontsize=FONT_LABEL)
        ax.set_xlabel(self.xlabel, fontsize=FONT_LABEL)
        label = self.ylabel if isinstance(self.ylabel, str) else self.ylabel.get(name, "")
        if self.ylim is not None:
            ax.set_ylim(*self.ylim)
        if self.shared and index % self.cols:
            ax.tick_params(labelleft=False)  # the row's first panel labels the y axis
        else:
            ax.set_ylabel(label, fontsize=FONT_LABEL)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(FixedLocator(_thin(sorted(set(xs)))))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_locator(NullLocator())
        elif self.integer_x:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=FONT_TICK)
        ax.grid(alpha=0.3)


def _log_axis(xs: Sequence[float]) -> bool:
    """Whether an axis over ``xs`` is drawn logarithmic (positive, spanning ``LOG_SPAN``).

    >>> _log_axis([5, 20, 200]), _log_axis([0.2, 0.5, 0.8]), _log_axis([0, 50])
    (True, False, False)
    """
    return bool(xs) and min(xs) > 0 and max(xs) / min(xs) >= LOG_SPAN


def _dodge(xs: Sequence[float], offset: float, log: bool) -> Callable[[float], float]:
    """The horizontal dodge of a series ``offset`` places from the middle, as a map.

    On a log axis the shift is a factor, so it looks the same at every value.

    >>> _dodge([10, 20], 1.0, False)(10) > 10, round(_dodge([5, 200], 0.0, True)(5), 9)
    (True, 5.0)
    """
    if not xs:
        return lambda x: x
    if log:
        factor = math.exp(offset * _DODGE * math.log(max(xs) / min(xs)))
        return lambda x: x * factor
    shift = offset * _DODGE * (max(xs) - min(xs))
    return lambda x: x + shift


def _thin(ticks: Sequence[float], most: int = 8) -> list[float]:
    """At most ``most`` of ``ticks``, evenly picked, first and last kept.

    >>> _thin([1, 2, 3], 8), _thin(list(range(10)), 4)
    ([1, 2, 3], [0, 3, 6, 9])
    """
    if len(ticks) <= most:
        return list(ticks)
    step = (len(ticks) - 1) / (most - 1)
    return [ticks[round(i * step)] for i in range(most)]


def _bar_order(groups: Mapping[str, Mapping[str, Estimate]], styles: Styles | None) -> list[str]:
    """The bars of the groups, each once: in the report's order of series (models first)
    with ``styles``, else in the data's.

    >>> _bar_order({"g": {"b": None, "a": None}, "h": {"c": None, "a": None}}, None)
    ['b', 'a', 'c']
    """
    bar_names: list[str] = []
    for bars in groups.values():
        for name in bars:
            if name not in bar_names:
                bar_names.append(name)
    if styles is not None:  # the report's order of series (models first), not the data's
        rank = {name: i for i, name in enumerate(styles)}
        bar_names.sort(key=lambda name: rank.get(name, len(rank)))
    return bar_names


def _bar_series(
    groups: Mapping[str, Mapping[str, Estimate]], name: str, offset: float
) -> tuple[list[float], list[float], list[float], list[float]]:
    """The bars of series ``name``, ``offset`` from each group's place: their places,
    heights (%) and error bars below and above, clamped to [0, 100] (an undefined
    interval: none); a group without a value for it has no bar."""
    xs, heights, lower, upper = [], [], [], []
    for i, bars in enumerate(groups.values()):
        estimate = bars.get(name)
        if estimate is None or estimate.mean is None:
            continue
        xs.append(i + offset)
        heights.append(percent(estimate.mean))
        low = estimate.low if estimate.low is not None else estimate.mean
        high = estimate.high if estimate.high is not None else estimate.mean
        lower.append(max(0.0, percent(estimate.mean) - max(0.0, percent(low))))
        upper.append(max(0.0, min(100.0, percent(high)) - percent(estimate.mean)))
    return xs, heights, lower, upper


def _draw_bars(
    ax: Any, groups: Mapping[str, Mapping[str, Estimate]], styles: Styles | None
) -> tuple[list[Any], list[str]]:
    """Grouped bars with CI error bars on ``ax``; the legend handles and labels."""
    bar_names = _bar_order(groups, styles)
    width = 0.8 / max(1, len(bar_names))
    handles, labels = [], []
    for j, name in enumerate(bar_names):
        xs, heights, lower, upper = _bar_series(
            groups, name, (j - (len(bar_names) - 1) / 2) * width
        )
        color, _, _ = style_for(styles, name, j)
        container = ax.bar(
            xs, heights, width=width, label=name, color=color,
            yerr=[lower, upper], capsize=3, error_kw={"linewidth": 1.0},
        )  # fmt: skip
        for x, height in zip(xs, heights, strict=True):
            if height < _ZERO_BAR:  # a bar of (nearly) no height: a visible stub and a "0"
                ax.plot([x - width / 2, x + width / 2], [0.0, 0.0], color=color,
                        linewidth=3, solid_capstyle="butt")  # fmt: skip
                ax.annotate(f"{height:.0f}", (x, 0.0), xytext=(0, 3), textcoords="offset points",
                            ha="center", fontsize=FONT_TICK - 1, color=color)  # fmt: skip
        handles.append(container)
        labels.append(name)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(list(groups), fontsize=FONT_TICK)
    ax.tick_params(labelsize=FONT_TICK)
    ax.grid(axis="y", alpha=0.3)
    return handles, labels


def bar_groups(
    groups: Mapping[str, Mapping[str, Estimate]],
    path: Path,
    *,
    ylabel: str = "success (%)",
    title: str | None = None,
    styles: Styles | None = None,
    ylim: tuple[float, float] = _BAR_YLIM,
) -> Path:
    """Draw grouped bars (one group per key) with 95% CI error bars. Returns ``path``.

    A bar (a model, an arm) keeps its colour from ``styles``; the legend is below.

    >>> import tempfile, pathlib
    >>> bars = {"backbone": {"construction": Estimate(0.9, 0.8, 1.0, n=5),
    ...                      "shuffled": Estimate(0.7, None, None, n=1)}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     bar_groups(bars, pathlib.Path(tmp) / "b.svg").stat().st_size > 1000
    True
    """
    width = max(1, len({name for bars in groups.values() for name in bars}))
    size = (max(4.5, 0.7 * len(groups) * width + 1.0), 3.6)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    try:
        handles, labels = _draw_bars(ax, groups, styles)
        ax.set_ylabel(ylabel, fontsize=FONT_LABEL)
        ax.set_ylim(*ylim)
        return finish_figure(fig, path, handles, labels, title, ax)
    finally:
        plt.close(fig)


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
    ...     bar_panels(panels, pathlib.Path(tmp) / "p.svg").stat().st_size > 1000
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
            ax.set_title(name, fontsize=FONT_LABEL)
            ax.set_ylabel(ylabel, fontsize=FONT_LABEL)
            ax.set_ylim(*_BAR_YLIM)
            for label in ax.get_xticklabels():
                label.set_rotation(20)
                label.set_horizontalalignment("right")
        return finish_figure(fig, path, list(legend.values()), list(legend), title)
    finally:
        plt.close(fig)


def _kinds(counts: Mapping[str, Mapping[str, int]], colors: Mapping[str, str]) -> list[str]:
    """The kinds some key counts: those of ``colors`` in its order, then the others sorted.

    >>> _kinds({"m": {"z": 1, "correct": 2, "a": 0}}, {"no-answer": "#000", "correct": "#111"})
    ['correct', 'z']
    """
    kinds: list[str] = [k for k in colors if any(c.get(k) for c in counts.values())]
    return kinds + sorted({k for c in counts.values() for k, n in c.items() if n} - set(kinds))


def _share(counts: Mapping[str, int], kind: str) -> float:
    """The share (%) of ``kind`` in ``counts`` (0 when they count nothing).

    >>> _share({"a": 1, "b": 3}, "b"), _share({}, "b")
    (75.0, 0.0)
    """
    total = sum(counts.values())
    return 100.0 * counts.get(kind, 0) / total if total else 0.0


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
    ...     stacked_shares(mix, pathlib.Path(tmp) / "f.svg").stat().st_size > 1000
    True
    """
    kinds = _kinds(counts, colors)
    names = list(counts)
    fig, ax = plt.subplots(figsize=(6.0, 1.0 + 0.45 * max(1, len(names))), layout="constrained")
    handles, labels = [], []
    try:
        left = [0.0] * len(names)
        for kind in kinds:
            shares = [_share(counts[name], kind) for name in names]
            bars = ax.barh(
                names, shares, left=left, color=colors.get(kind, "#999999"), label=kind,
                edgecolor="white", linewidth=0.5,
            )  # fmt: skip
            handles.append(bars)
            labels.append(kind)
            left = [a + b for a, b in zip(left, shares, strict=True)]
        ax.set_xlim(0, 100)
        ax.invert_yaxis()  # the first model on top, as in the tables
        ax.set_xlabel(xlabel, fontsize=FONT_LABEL)
        ax.tick_params(labelsize=FONT_TICK)
        if not names:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        return finish_figure(fig, path, handles, labels, title, ax)
    finally:
        plt.close(fig)
