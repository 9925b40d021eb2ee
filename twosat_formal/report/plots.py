"""PNG figures in the manner of the paper's Figures 1–9 (matplotlib, headless).

Two drawing primitives, :func:`curve_panels` (lines with shaded 95% CI bands, one
panel per key: accuracy against a knob or against |C|) and :func:`bar_groups` (bars
with 95% CI error bars: construction vs shuffled, fillers, duplication layouts), and
:func:`draw_figures`, which draws every figure a :class:`ReportContent` has data for.
The y axis is the paper's per-sample success in percent (decision on UNSAT, witness
on SAT).

Examples
--------
>>> import tempfile, pathlib
>>> from twosat_formal.report.metrics import Estimate
>>> panels = {"backbone": {"ref/oracle": [(20.0, Estimate(1.0, 1.0, 1.0, n=3)),
...                                       (50.0, Estimate(0.5, 0.2, 0.8, n=3))]}}
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = curve_panels(panels, pathlib.Path(tmp) / "f.png", xlabel="|C|")
...     path.read_bytes()[:8] == PNG_SIGNATURE
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from twosat_formal.report.metrics import Estimate
from twosat_formal.report.sections import ReportContent

__all__ = ["PNG_SIGNATURE", "Figure", "bar_groups", "curve_panels", "draw_figures"]

#: The eight bytes every PNG file starts with.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

_PNG_METADATA = {"Software": None}


@dataclass(frozen=True)
class Figure:
    """A drawn figure: its file (relative to the report folder) and its caption."""

    name: str
    path: Path
    title: str
    caption: str


def _pct(value: float | None) -> float:
    return float("nan") if value is None else 100.0 * value


def curve_panels(
    panels: Mapping[str, Mapping[str, Sequence[tuple[float, Estimate]]]],
    path: Path,
    *,
    xlabel: str,
    ylabel: str = "accuracy (%)",
    title: str | None = None,
    ylim: tuple[float, float] | None = (-5.0, 105.0),
    integer_x: bool = False,
) -> Path:
    """Draw one panel per key, one line per series, with a shaded CI band.

    Points whose interval is undefined (a single formula) are drawn without a band.
    ``ylim`` fixes the y axis (``None``: fit the data); ``integer_x`` puts ticks on
    whole numbers only. Returns ``path``.
    """
    names = list(panels)
    count = max(1, len(names))
    cols = min(3, count)
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(
        rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False, layout="constrained"
    )
    try:
        for index, ax in enumerate(axes.flat):
            if index >= len(names):
                ax.set_visible(False)
                continue
            panel = panels[names[index]]
            for series, points in panel.items():
                xs = [x for x, e in points if e.mean is not None]
                means = [_pct(e.mean) for _, e in points if e.mean is not None]
                (line,) = ax.plot(xs, means, marker="o", markersize=3, label=series)
                band = [(x, e) for x, e in points if e.low is not None and e.high is not None]
                if band:
                    ax.fill_between(
                        [x for x, _ in band],
                        [max(0.0, _pct(e.low)) for _, e in band],
                        [min(100.0, _pct(e.high)) for _, e in band],
                        color=line.get_color(),
                        alpha=0.2,
                        linewidth=0,
                    )
            ax.set_title(names[index], fontsize=9)
            ax.set_xlabel(xlabel, fontsize=8)
            ax.set_ylabel(ylabel, fontsize=8)
            if ylim is not None:
                ax.set_ylim(*ylim)
            if integer_x:
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
            if panel:
                ax.legend(fontsize=6, loc="best")
        if not names:
            axes.flat[0].set_visible(True)
            axes.flat[0].text(0.5, 0.5, "no data", ha="center", va="center")
        if title:
            fig.suptitle(title, fontsize=10)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="png", dpi=100, metadata=_PNG_METADATA)
    finally:
        plt.close(fig)
    return path


def bar_groups(
    groups: Mapping[str, Mapping[str, Estimate]],
    path: Path,
    *,
    ylabel: str = "accuracy (%)",
    title: str | None = None,
) -> Path:
    """Draw grouped bars (one group per key) with 95% CI error bars. Returns ``path``.

    >>> import tempfile, pathlib
    >>> bars = {"backbone": {"construction": Estimate(0.9, 0.8, 1.0, n=5),
    ...                      "shuffled": Estimate(0.7, None, None, n=1)}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     bar_groups(bars, pathlib.Path(tmp) / "b.png").stat().st_size > 1000
    True
    """
    bar_names: list[str] = []
    for bars in groups.values():
        for name in bars:
            if name not in bar_names:
                bar_names.append(name)
    width = 0.8 / max(1, len(bar_names))
    size = (max(4.5, 0.8 * len(groups) * max(1, len(bar_names))), 3.4)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    try:
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
            ax.bar(xs, heights, width=width, label=name, yerr=[lower, upper], capsize=3)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(list(groups), fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_ylim(0, 105)
        ax.grid(axis="y", alpha=0.3)
        if bar_names:
            ax.legend(fontsize=7, loc="best")
        else:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        if title:
            ax.set_title(title, fontsize=10)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, format="png", dpi=100, metadata=_PNG_METADATA)
    finally:
        plt.close(fig)
    return path


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


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

    def add(name: str, title: str, caption: str) -> None:
        figures.append(Figure(name, Path("figures") / name, title, caption))

    if content.size_curves:
        name = "accuracy-vs-clauses.png"
        curve_panels(content.size_curves, folder / name, xlabel="number of clauses |C|")
        add(
            name,
            "Accuracy against |C|, per model",
            "Decision accuracy on UNSAT and witness validity on SAT against the number of "
            "clauses, all knobs at 0.5 (Table 1 grid). Shade: 95% CI across formulas.",
        )
    if content.template_curves and len(content.templates) > 1:
        name = "accuracy-by-template.png"
        curve_panels(content.template_curves, folder / name, xlabel="number of clauses |C|")
        add(
            name,
            "Accuracy against |C|, per verbalization template (Figure 8)",
            "Pooled over models; shade: 95% CI across (model, formula) units.",
        )
    for panel, knobs in content.knob_curves.items():
        name = f"knobs-{_slug(panel)}.png"
        curve_panels(knobs, folder / name, xlabel="knob level", title=panel)
        add(
            name,
            f"Difficulty knobs: {panel} (Figures 1–4)",
            "One knob swept at a time, the others at 0.5. Shade: 95% CI across formulas.",
        )
    if content.order_bars:
        name = "order.png"
        bar_groups(content.order_bars, folder / name, title="construction order vs shuffled")
        add(
            name,
            "Construction order vs shuffled clauses (Figure 6)",
            "Error bars: 95% CI across (model, formula) units.",
        )
    if content.filler_bars:
        name = "fillers.png"
        bar_groups(content.filler_bars, folder / name, title="filler clauses")
        add(
            name,
            "Filler clauses: fixed core vs matched total (Figure 5)",
            "Error bars: 95% CI across (model, formula) units.",
        )
    if content.duplication_bars:
        name = "duplication.png"
        bar_groups(content.duplication_bars, folder / name, title="clause duplication")
        add(
            name,
            "Duplicated clauses: layouts and shuffles (Figure 7)",
            "Error bars: 95% CI across (model, formula) units.",
        )
    if content.stories is not None and content.stories.curves:
        name = "accuracy-by-story-theme.png"
        curve_panels(content.stories.curves, folder / name, xlabel="number of clauses |C|")
        add(
            name,
            "Accuracy against |C|, per story theme (Figure 9)",
            "Decision accuracy on UNSAT and witness validity on SAT for answers to story "
            "prompts, pooled over models; shade: 95% CI across (model, formula) units.",
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
        )
        add(
            name,
            "Symbolic edits: normalized accuracy against k, per model",
            "Accuracy after k cumulative label-preserving edits divided by the baseline "
            "accuracy of the same records (100% at k = 0); records without a k-th edit "
            "fall back to their baseline.",
        )
    return figures
