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
>>> from twosat_formal.report.content import compute_content
>>> import pathlib
>>> inp = FigureInput(compute_content([]))
>>> measure_curves(inp, pathlib.Path(".")), proof_length_flips(inp, pathlib.Path("."))
([], [])
"""

from __future__ import annotations

from pathlib import Path

from twosat_formal.report import plots
from twosat_formal.report.figinput import Drawing, FigureInput, single, slug
from twosat_formal.report.figplans import binned_accuracy
from twosat_formal.report.metrics import Estimate
from twosat_formal.report.sections.format import interval_name
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


def measure_curves(inp: FigureInput, folder: Path) -> list[Drawing]:
    """Accuracy per model against each structural measure that takes two bins or more."""
    rated = [r for r in inp.rows if str(r.get("instance_id")) in inp.measures]
    panels = {}
    for key in MEASURES:
        valued = [
            (r, value)
            for r in rated
            if (value := inp.measures[str(r["instance_id"])].get(key)) is not None
        ]
        panel = binned_accuracy(valued, inp)
        if panel:
            panels[MEASURE_LABELS[key]] = panel
    if not panels:
        return []
    return single(
        "accuracy-vs-measures",
        "Decision accuracy against the structural measures, per model",
        "One panel per structural measure of the instances (written in each record "
        "and certified): shortest contradiction cycle and backbone apply to one label "
        "only; proof length is the shortest cycle (UNSAT) or the deepest forced "
        "literal (SAT). Every family pooled; values in up to six bins of about equal "
        "counts, each drawn at its geometric middle; a measure whose values all fall "
        "in one bin is left out. Error bars: 95% CI across base formulas.",
        plots.curve_panels,
        panels,
        folder,
        xlabel="measure value",
        ylabel="decision accuracy (%)",
        styles=inp.styles,
        cols=2,
    )


def proof_length_flips(inp: FigureInput, folder: Path) -> list[Drawing]:
    """Per model: prediction-flip rate against the change in proof length."""
    by_model: dict[str, dict[str, list[tuple[float, Estimate]]]] = {}
    summaries = inp.content.edits or []
    for summary in summaries:
        points = [
            (float(p.change), rate)
            for p, rate in zip(summary.proof_lengths, summary.proof_length_rates, strict=True)
        ]
        if points:
            by_model.setdefault(summary.model, {})[f"{summary.category} edits"] = points
    return [
        drawing
        for model, series in by_model.items()
        for drawing in single(
            f"proof-length-flips-{slug(model)}",
            f"Prediction flips against the change in proof length: {model}",
            "Each edited answer paired with the answer to its origin (same template and "
            "sample); x: the edited record's proof length minus the origin's, y: the "
            "share of pairs whose decisions differ, per origin formula averaged over the "
            "origins (LogicEdit, Appendix F). Error bars: 95% "
            f"{interval_name([r for s in summaries for r in s.proof_length_rates])} interval "
            "across the origin formulas.",
            plots.curve_panels,
            {model: series},
            folder,
            xlabel="change in proof length (steps)",
            ylabel="prediction flips (%)",
            integer_x=True,
            styles=inp.styles,
        )
    ]
