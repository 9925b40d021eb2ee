"""The figures drawn from the structural measures of the instances.

``accuracy-vs-measures``
    Decision accuracy per model against each structural measure
    (:data:`twosat_formal.solve.measures.MEASURES`: shortest contradiction cycle, longest
    implication path, strong components, backbone, deepest forced literal, proof
    length), one panel per measure, every family pooled, the values in up to six bins
    of about equal counts: what makes an instance hard for a model, beside the number
    of clauses of ``accuracy-vs-clauses``.
``proof-length-flips-<model>``
    Per model, the prediction-flip rate of edited answers against the change in proof
    length from their origin (LogicEdit, Appendix F), one line per edits category.

Examples
--------
>>> from twosat_formal.report.sections import compute_content
>>> import pathlib
>>> inp = FigureInput(compute_content([]))
>>> measure_curves(inp, pathlib.Path(".")), proof_length_flips(inp, pathlib.Path("."))
([], [])
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

from twosat_formal.report import plots
from twosat_formal.report.figinput import Drawing, FigureInput, figure_file, slug
from twosat_formal.report.figplans import _bins
from twosat_formal.report.metrics import Estimate, aggregate
from twosat_formal.report.pairs import wilson
from twosat_formal.solve.measures import MEASURES

__all__ = ["MEASURE_LABELS", "measure_curves", "proof_length_flips"]

#: The axis label of each measure's panel.
MEASURE_LABELS = {
    "shortest_cycle": "shortest contradiction cycle (steps; UNSAT)",
    "longest_path": "longest implication path (components)",
    "scc_count": "strong components",
    "largest_scc": "largest strong component (literals)",
    "nontrivial_sccs": "strong components of 2+ literals",
    "backbone": "backbone size (literals; SAT)",
    "forced_depth": "deepest forced literal (steps; SAT)",
    "proof_length": "proof length (steps)",
}


def _middle(low: int, high: int) -> float:
    return math.sqrt(low * high) if low > 0 else (low + high) / 2


def measure_curves(inp: FigureInput, folder: Path) -> list[Drawing]:
    """Accuracy per model against each structural measure that takes two bins or more."""
    rated = [r for r in inp.rows if str(r.get("instance_id")) in inp.measures]
    panels: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
    for key in MEASURES:
        valued = [
            (r, value)
            for r in rated
            if (value := inp.measures[str(r["instance_id"])].get(key)) is not None
        ]
        bins = _bins([value for _, value in valued])
        if len(bins) < 2:
            continue
        panel: dict[str, list[tuple[float, Estimate]]] = {}
        for model in inp.models:
            mine = [(r, value) for r, value in valued if r.get("model") == model]
            points = []
            for low, high in bins:
                inside = [r for r, value in mine if low <= value <= high]
                estimate = aggregate(inside, "accuracy", method=inp.method, seed=inp.seed)
                if estimate.mean is not None:
                    points.append((_middle(low, high), estimate))
            if points:
                panel[model] = points
        if panel:
            panels[MEASURE_LABELS[key]] = panel
    if not panels:
        return []
    name = figure_file("accuracy-vs-measures")
    return [
        Drawing(
            name,
            "Decision accuracy against the structural measures, per model",
            "One panel per structural measure of the instances (written in each record "
            "and certified): shortest contradiction cycle and backbone apply to one label "
            "only; proof length is the shortest cycle (UNSAT) or the deepest forced "
            "literal (SAT). Every family pooled; values in up to six bins of about equal "
            "counts, each drawn at its geometric middle; a measure whose values all fall "
            "in one bin is left out. Error bars: 95% CI across base formulas.",
            partial(
                plots.curve_panels,
                panels,
                folder / name,
                xlabel="measure value",
                ylabel="decision accuracy (%)",
                styles=inp.styles,
                cols=2,
            ),
        )
    ]


def proof_length_flips(inp: FigureInput, folder: Path) -> list[Drawing]:
    """Per model: prediction-flip rate against the change in proof length."""
    by_model: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
    for summary in inp.content.edits or []:
        points = [
            (float(p.change), wilson(p.flips, p.pairs)) for p in summary.proof_lengths if p.pairs
        ]
        if points:
            by_model.setdefault(summary.model, {})[f"{summary.category} edits"] = points
    drawings = []
    for model, series in by_model.items():
        name = figure_file(f"proof-length-flips-{slug(model)}")
        drawings.append(
            Drawing(
                name,
                f"Prediction flips against the change in proof length: {model}",
                "Each edited answer paired with the answer to its origin (same template and "
                "sample); x: the edited record's proof length minus the origin's, y: the "
                "share of pairs whose decisions differ (LogicEdit, Appendix F). Error bars: "
                "95% Wilson interval over the pairs.",
                partial(
                    plots.curve_panels,
                    {model: series},
                    folder / name,
                    xlabel="change in proof length (steps)",
                    ylabel="prediction flips (%)",
                    integer_x=True,
                    styles=inp.styles,
                ),
            )
        )
    return drawings
