"""The "Robustness" section: flip rates under perturbation and across templates, and
decision consistency."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph
from twosat_formal.report.sections.format import (
    NO_DATA,
    captioned,
    format_ci,
    format_flips,
    plain_cells,
)

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["write_robustness"]


def write_robustness(content: ReportContent) -> list[Block]:
    """The "Robustness" section."""
    if not content.summaries:
        return [Paragraph(NO_DATA)]
    rows = [
        plain_cells(
            s.model,
            format_flips(s.flips),
            str(s.flips.broken),
            str(s.flips.fixed),
            format_flips(s.verbal_flips),
            format_ci(s.consistency),
        )
        for s in content.summaries
    ]
    return captioned(
        "Flip rate: share of (base, variant) pairs of the same model, template and "
        "sample whose correctness changed, in either direction (unchanged pairs stay in "
        "the denominator); for templates, each verbalization against the `logic` one. "
        "Consistency: share of a formula's answers that give its most common decision.",
        [
            "model",
            "flip rate (perturbed)",
            "broken",
            "fixed",
            "flip rate (templates)",
            "decision consistency (%)",
        ],
        rows,
    )
