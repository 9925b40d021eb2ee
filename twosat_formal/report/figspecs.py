"""The report's figures as a table of specs, and :func:`render_figures`, which draws them.

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
>>> from twosat_formal.report.content import compute_content
>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as tmp:
...     figures, absent = render_figures(FigureInput(compute_content([])), pathlib.Path(tmp))
>>> figures, absent[0]
([], 'Leaderboard: no answers in this run.')
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from twosat_formal.report import figplans as plans
from twosat_formal.report import measureplans
from twosat_formal.report.blocks import Image
from twosat_formal.report.figinput import Drawing, FigureInput
from twosat_formal.report.plots import title_svg

__all__ = [
    "FIGURES",
    "Drawing",
    "FigureInput",
    "FigureSpec",
    "render_figures",
]


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report: ``key``, ``label`` (what it is called), ``plan`` (its
    drawings from a :class:`FigureInput`; none when the run lacks its data) and
    ``missing`` (the one line the report shows then)."""

    key: str
    label: str
    plan: Callable[[FigureInput, Path], list[Drawing]]
    missing: str


#: Every figure of a report, in the order the report shows them.
FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec("leaderboard", "Leaderboard", plans.leaderboard, "no answers in this run"),
    FigureSpec("model-family", "Success per model and family", plans.model_family,
               "no answers with a family in this run"),
    FigureSpec("decision-confusion", "Decision confusion", plans.confusion,
               "no answers to labelled instances in this run"),
    FigureSpec("accuracy-vs-clauses", "Accuracy against |C|", plans.clause_curves,
               "no answers on the plain grid in this run"),
    FigureSpec("accuracy-vs-hardness", "Accuracy against structural hardness", plans.hardness,
               "no family whose instances differ in structure (or no readable instances)"),
    FigureSpec("accuracy-vs-measures", "Accuracy against the structural measures",
               measureplans.measure_curves,
               "no structural measure takes two values or more (or no readable instances)"),
    FigureSpec("response-length", "Response length against correctness", plans.response_length,
               "no answer records its completion tokens"),
    FigureSpec("pair-consistency", "Pair consistency of minimal twins", plans.pair_consistency,
               "no minimal twins in this run"),
    FigureSpec("accuracy-by-template", "Templates per model (Figure 8)", plans.template_curves,
               "fewer than two templates in this run"),
    FigureSpec("knobs", "Difficulty knobs (Figures 1–4)", plans.knobs,
               "no knob is swept in this run"),
    FigureSpec("order", "Clause order (Figure 6)", plans.order, "no shuffled arm in this run"),
    FigureSpec("fillers", "Filler clauses (Figure 5)",
               plans.grouped("filler_bars", "fillers",
                             "Filler clauses: fixed core vs matched total (Figure 5)",
                             "filler clauses"),
               "no filler arms in this run"),
    FigureSpec("duplication", "Duplicated clauses (Figure 7)",
               plans.grouped("duplication_bars", "duplication",
                             "Duplicated clauses: layouts and shuffles (Figure 7)",
                             "clause duplication"),
               "no duplication arms in this run"),
    FigureSpec("accuracy-by-story-theme", "Story themes (Figure 9)", plans.story_themes,
               "no answers to story prompts in this run"),
    FigureSpec("edits-normalized-accuracy", "Symbolic edits", plans.edits,
               "no symbolically edited instances in this run"),
    FigureSpec("proof-length-flips", "Proof length and prediction flips (per model)",
               measureplans.proof_length_flips,
               "no edited answers whose records carry proof lengths"),
    FigureSpec("sat_bias", "SAT bias", plans.sat_bias, "no UNSAT instances in this run"),
    FigureSpec("truncation", "Truncation", plans.truncation, "no answers in this run"),
    FigureSpec("failures", "Failure kinds", plans.failures, "no answers in this run"),
)  # fmt: skip


def _draw(drawing: Drawing, path: Path) -> None:
    drawing.draw()
    title_svg(path, drawing.title, drawing.caption)


def _draw_all(planned: list[Drawing], folder: Path, count: int) -> None:
    """Draw the figures under ``folder``: by ``count`` forked processes, largest first,
    or here, one after the other (one process, or other threads running)."""
    # forked children start from a copy of this process: safe only while no other thread
    # may hold a lock there
    alone = threading.active_count() == 1
    if count > 1 and alone and "fork" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("fork")  # the children need no imports
        with ProcessPoolExecutor(count, mp_context=context) as pool:
            largest_first = sorted(planned, key=lambda d: -d.weight)
            done = [pool.submit(_draw, d, folder / d.name) for d in largest_first]
            for future in done:
                future.result()
        return
    for drawing in planned:
        _draw(drawing, folder / drawing.name)


def render_figures(
    inp: FigureInput, out_dir: Path, *, workers: int | None = None
) -> tuple[list[Image], list[str]]:
    """Draw every figure of :data:`FIGURES` that ``inp`` has data for under
    ``out_dir/figures``; return the figures and, for each spec without data, the one
    line that says so (``"Leaderboard: no answers in this run."``).

    The figures are drawn by ``workers`` processes at once (default: one per processor,
    at most one per figure; ``1`` draws them here, one after the other), the largest
    (:attr:`Drawing.weight`) first; a process running other threads draws them here.
    Each figure is drawn from its own data alone, so the files are the same either way.
    """
    folder = out_dir / "figures"
    planned: list[Drawing] = []
    absent: list[str] = []
    for spec in FIGURES:
        drawings = spec.plan(inp, folder)
        if not drawings:
            absent.append(f"{spec.label}: {spec.missing}.")
        planned.extend(drawings)
    _draw_all(planned, folder, min(len(planned), workers or os.cpu_count() or 1))
    figures = [Image(Path("figures") / d.name, d.title, d.caption) for d in planned]
    return figures, absent
