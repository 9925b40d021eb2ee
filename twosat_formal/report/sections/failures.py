"""The "Failure kinds" section: samples per failure kind and model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph
from twosat_formal.report.sections.format import NO_DATA, captioned, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["write_failures"]


def write_failures(content: ReportContent) -> list[Block]:
    """The "Failure kinds" section."""
    if not content.summaries:
        return [Paragraph(NO_DATA)]
    kinds = content.failure_kinds
    rows = [
        plain_cells(s.model, *(str(s.failures.get(k, 0)) for k in kinds), str(s.rows))
        for s in content.summaries
    ]
    return captioned(
        "Samples per failure kind; every kind but `correct` counts as incorrect.",
        ["model", *kinds, "total"],
        rows,
    )
