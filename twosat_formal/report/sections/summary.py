"""The "Summary" section: each model's headline numbers (:class:`ModelSummary`) and
their table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.metrics import (
    Estimate,
    FlipRate,
    Row,
    aggregate,
    decision_consistency,
    failure_breakdown,
    flip_rate,
    verbalization_flip_rate,
)
from twosat_formal.report.sections.common import is_edited, reference_template
from twosat_formal.report.sections.format import (
    NO_DATA,
    format_ci,
    format_flips,
    interval_name,
    plain_cells,
)

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["ModelSummary", "model_summary", "write_summary"]


@dataclass(frozen=True)
class ModelSummary:
    """A model's headline numbers over every row of the run."""

    model: str
    rows: int
    accuracy: Estimate
    accuracy_sat: Estimate
    accuracy_unsat: Estimate
    witness: Estimate
    sat_prediction: Estimate
    truncation: Estimate
    truncated: int
    failures: dict[str, int]
    flips: FlipRate
    verbal_flips: FlipRate
    consistency: Estimate
    success: Estimate
    lenient_accuracy: Estimate
    lenient_success: Estimate
    #: Rows whose strict and lenient verdicts differ (format failures the lenient
    #: reading forgives).
    forgiven: int = 0


def model_summary(model: str, rows: Sequence[Row], *, method: str, seed: int) -> ModelSummary:
    """A model's headline numbers over its rows."""

    def est(metric: str) -> Estimate:
        return aggregate(rows, metric, method=method, seed=seed)

    return ModelSummary(
        model=model,
        rows=len(rows),
        accuracy=est("accuracy"),
        accuracy_sat=est("accuracy_sat"),
        accuracy_unsat=est("accuracy_unsat"),
        witness=est("witness"),
        sat_prediction=est("sat_prediction"),
        truncation=est("truncation"),
        truncated=sum(1 for r in rows if r.get("truncated") or r.get("finish_reason") == "length"),
        failures=failure_breakdown(rows),
        flips=flip_rate([r for r in rows if not is_edited(r)]),
        verbal_flips=verbalization_flip_rate(rows, reference=reference_template(rows)),
        consistency=decision_consistency(rows, method=method, seed=seed),
        success=est("success"),
        lenient_accuracy=est("lenient_accuracy"),
        lenient_success=est("lenient_success"),
        forgiven=sum(
            1
            for r in rows
            if r.get("lenient_failure") is not None and r.get("lenient_failure") != r.get("failure")
        ),
    )


def write_summary(content: ReportContent) -> list[Block]:
    """The "Summary" section."""
    notes: list[Block] = [Paragraph(f"Note: {note}.") for note in content.notes]
    if not content.summaries:
        return [Paragraph(NO_DATA), *notes]
    headers = [
        "model",
        "rows",
        "Sat. (all)",
        "Sat. (SAT)",
        "Sat. (UNSAT)",
        "Wit. (SAT)",
        "SAT pred. on UNSAT",
        "truncated",
        "consistency",
        "flip rate (perturbed)",
        "flip rate (templates)",
    ]
    rows = [
        plain_cells(
            s.model,
            str(s.rows),
            format_ci(s.accuracy),
            format_ci(s.accuracy_sat),
            format_ci(s.accuracy_unsat),
            format_ci(s.witness),
            format_ci(s.sat_prediction),
            format_ci(s.truncation),
            format_ci(s.consistency),
            format_flips(s.flips),
            format_flips(s.verbal_flips),
        )
        for s in content.summaries
    ]
    method = interval_name([s.accuracy for s in content.summaries], full=True)
    return [
        Paragraph(
            f"{content.rows} scored samples over {len(content.families)} generator families, "
            f"{len(content.models)} models and {len(content.templates)} templates. Percentages "
            "are averaged per base formula first (its perturbed variants, twins and edits "
            f"count as the same formula), then across formulas, with 95% {method} "
            "confidence intervals within [0, 100]; n is the number of formulas. Truncated "
            "and unparsable answers count as incorrect."
        ),
        Table(headers, rows),
        *notes,
    ]
