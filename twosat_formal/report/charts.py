"""The drawing primitives of the figures researchers ask for beside the paper's.

:func:`interval_dots` (a leaderboard: one row per model, a dot per metric with its
95% CI as an error bar), :func:`heatmap` (a model × family grid, each cell labelled
with its value), :func:`count_grids` (a small labelled count table per panel: the
decision confusion of each model) and :func:`box_groups` (box plots of a quantity,
split by a two-way outcome, per model). Each writes ``NAME.svg``
through :func:`twosat_formal.report.plots.save_figure`, so every figure shares the
same files, fonts and legend placement.

Examples
--------
>>> import tempfile, pathlib
>>> from twosat_formal.report.metrics import Estimate
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = heatmap({"m": {"backbone": Estimate(0.5, 0.2, 0.8, n=4)}},
...                    pathlib.Path(tmp) / "h.png", columns=["backbone"])
...     path.name
'h.svg'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, NullFormatter

from twosat_formal.report.metrics import Estimate
from twosat_formal.report.plots import FONT_LABEL, FONT_TICK, finish_figure, percent, style_for
from twosat_formal.report.style import Styles

__all__ = ["box_groups", "count_grids", "heatmap", "interval_dots"]


def interval_dots(
    rows: Mapping[str, Mapping[str, Estimate]],
    path: Path,
    *,
    xlabel: str = "success (%)",
    title: str | None = None,
    styles: Styles | None = None,
) -> Path:
    """One row per key (a model, top first), one dot per metric with its CI as a bar.

    Each dot is labelled with its value in percent, so a value of 0 stays readable.
    The metrics (``strict``, ``lenient``) are drawn a little apart vertically; a
    metric keeps its colour from ``styles``.

    >>> import tempfile, pathlib
    >>> board = {"ref/coin": {"strict": Estimate(0.5, 0.3, 0.7, n=9)}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     interval_dots(board, pathlib.Path(tmp) / "l.svg").stat().st_size > 1000
    True
    """
    names = list(rows)
    metrics = list(dict.fromkeys(m for values in rows.values() for m in values))
    fig, ax = plt.subplots(
        figsize=(6.4, 1.1 + 0.42 * max(1, len(names)) * max(1, len(metrics))), layout="constrained"
    )
    handles: dict[str, Any] = {}
    try:
        step = 0.7 / max(1, len(metrics))
        for j, metric in enumerate(metrics):
            color, marker, _ = style_for(styles, metric, j)
            for i, name in enumerate(names):
                estimate = rows[name].get(metric)
                if estimate is None or estimate.mean is None:
                    continue
                y = i + (j - (len(metrics) - 1) / 2) * step
                mean = percent(estimate.mean)
                low = mean if estimate.low is None else percent(estimate.low)
                high = mean if estimate.high is None else percent(estimate.high)
                # a bound may pass its mean by a rounding error (Wilson at 0 or 100 %)
                below, above = max(0.0, mean - low), max(0.0, high - mean)
                container = ax.errorbar(
                    [mean], [y], xerr=[[below], [above]], fmt=marker, color=color,
                    markersize=5, capsize=3, linewidth=1.2, label=metric,
                )  # fmt: skip
                handles.setdefault(metric, container)
                ax.annotate(
                    f"{mean:.1f}", (high, y), xytext=(4, 0), textcoords="offset points",
                    va="center", fontsize=FONT_TICK, color=color,
                )  # fmt: skip
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names, fontsize=FONT_TICK)
        ax.set_ylim(len(names) - 0.5, -0.5)  # the first row on top
        ax.set_xlim(-2.0, 112.0)
        ax.set_xlabel(xlabel, fontsize=FONT_LABEL)
        ax.tick_params(labelsize=FONT_TICK)
        ax.grid(axis="x", alpha=0.3)
        return finish_figure(fig, path, list(handles.values()), list(handles), title, ax)
    finally:
        plt.close(fig)


def heatmap(
    grid: Mapping[str, Mapping[str, Estimate]],
    path: Path,
    *,
    columns: Sequence[str],
    label: str = "success (%)",
    title: str | None = None,
) -> Path:
    """A row per key of ``grid`` (a model), a column per name of ``columns`` (a family).

    Each cell shows its value in percent and its number of formulas; a cell without
    data is left white and marked ``–``. The colour scale is fixed to 0–100 %.
    """
    names = list(grid)
    values = [
        [
            percent(e.mean) if (e := grid[name].get(column)) is not None else math.nan
            for column in columns
        ]
        for name in names
    ]
    size = (1.6 + 1.15 * max(1, len(columns)), 1.2 + 0.5 * max(1, len(names)))
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    try:
        image = ax.imshow(values, cmap="viridis", vmin=0.0, vmax=100.0, aspect="auto")
        for i, name in enumerate(names):
            for j, column in enumerate(columns):
                estimate = grid[name].get(column)
                if estimate is None or estimate.mean is None:
                    ax.text(j, i, "–", ha="center", va="center", fontsize=FONT_TICK)
                    continue
                value = percent(estimate.mean)
                ax.text(
                    j, i, f"{value:.0f}\nn={estimate.n}", ha="center", va="center",
                    fontsize=FONT_TICK - 1, color="white" if value < 60 else "black",
                )  # fmt: skip
        ax.set_xticks(range(len(columns)))
        ax.set_xticklabels(list(columns), fontsize=FONT_TICK, rotation=20, ha="right")
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names, fontsize=FONT_TICK)
        bar = fig.colorbar(image, ax=ax, fraction=0.05)
        bar.set_label(label, fontsize=FONT_LABEL)
        bar.ax.tick_params(labelsize=FONT_TICK)
        return finish_figure(fig, path, [], [], title, ax)
    finally:
        plt.close(fig)


def count_grids(
    panels: Mapping[str, Mapping[str, Mapping[str, int]]],
    path: Path,
    *,
    rows: Sequence[str],
    columns: Sequence[str],
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    cols: int = 4,
) -> Path:
    """One small count table per panel (a model): ``panels[panel][row][column]`` counts.

    Each cell shows its count and its share of its row; the shade is the row share,
    so panels of different sizes read alike.
    """
    names = list(panels)
    cols = max(1, min(cols, len(names)))
    count = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(
        count,
        cols,
        figsize=(2.7 * cols + 0.4, 2.2 * count + 0.6),
        squeeze=False,
        layout="constrained",
    )
    try:
        for index, ax in enumerate(axes.flat):
            if index >= len(names):
                ax.set_visible(False)
                continue
            table = panels[names[index]]
            shares = []
            for row in rows:
                total = sum(table.get(row, {}).values())
                shares.append(
                    [table.get(row, {}).get(c, 0) / total if total else 0.0 for c in columns]
                )
            ax.imshow(shares, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
            for i, row in enumerate(rows):
                for j, column in enumerate(columns):
                    n = table.get(row, {}).get(column, 0)
                    share = shares[i][j]
                    ax.text(
                        j, i, f"{n}\n{100 * share:.0f}%", ha="center", va="center",
                        fontsize=FONT_TICK - 1, color="white" if share > 0.6 else "black",
                    )  # fmt: skip
            ax.set_xticks(range(len(columns)))
            ax.set_xticklabels(list(columns), fontsize=FONT_TICK)
            ax.set_yticks(range(len(rows)))
            ax.set_yticklabels(list(rows), fontsize=FONT_TICK)
            ax.set_title(names[index], fontsize=FONT_LABEL)
            ax.set_xlabel(xlabel, fontsize=FONT_TICK)
            if index % cols == 0:
                ax.set_ylabel(ylabel, fontsize=FONT_TICK)
        return finish_figure(fig, path, [], [], title)
    finally:
        plt.close(fig)


def _box(ax: Any, values: list[float], x: float, width: float, color: str) -> Any:
    """Draw one box at ``x``, labelled with its number of values; return its patch."""
    drawn = ax.boxplot(
        [values], positions=[x], widths=width * 0.8, patch_artist=True,
        showfliers=True, flierprops={"markersize": 2},
        medianprops={"color": "black"},
    )  # fmt: skip
    for patch in drawn["boxes"]:
        patch.set_facecolor(color)
        patch.set_edgecolor(color)
        patch.set_alpha(0.8)
    ax.annotate(
        f"n={len(values)}", (x, max(values)), xytext=(0, 3),
        textcoords="offset points", ha="center", fontsize=FONT_TICK - 1,
    )  # fmt: skip
    return drawn["boxes"][0]


def _log_when_spread(ax: Any, values: list[float]) -> None:
    """A logarithmic y axis when the values are all positive and span more than 20×."""
    if values and min(values) > 0 and max(values) / min(values) > 20:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())


def box_groups(
    groups: Mapping[str, Mapping[str, Sequence[float]]],
    path: Path,
    *,
    ylabel: str,
    title: str | None = None,
    styles: Styles | None = None,
) -> Path:
    """Box plots: one group per key (a model), one box per outcome (correct, wrong).

    The y axis is logarithmic when the values span more than a factor of 20 and are all
    positive. Each box is labelled with its number of answers; an outcome without
    answers draws no box.
    """
    outcomes = list(dict.fromkeys(o for boxes in groups.values() for o in boxes))
    width = 0.8 / max(1, len(outcomes))
    size = (max(4.8, 1.1 * len(groups) * max(1, len(outcomes)) + 1.2), 3.6)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    handles: dict[str, Any] = {}
    every = [v for boxes in groups.values() for values in boxes.values() for v in values]
    try:
        for j, outcome in enumerate(outcomes):
            color, _, _ = style_for(styles, outcome, j)
            for i, boxes in enumerate(groups.values()):
                values = list(boxes.get(outcome, ()))
                if values:
                    x = i + (j - (len(outcomes) - 1) / 2) * width
                    handles.setdefault(outcome, _box(ax, values, x, width, color))
        _log_when_spread(ax, every)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(list(groups), fontsize=FONT_TICK)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_ylabel(ylabel, fontsize=FONT_LABEL)
        ax.tick_params(labelsize=FONT_TICK)
        ax.grid(axis="y", alpha=0.3)
        return finish_figure(fig, path, list(handles.values()), list(handles), title, ax)
    finally:
        plt.close(fig)
