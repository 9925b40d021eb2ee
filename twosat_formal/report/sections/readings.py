"""The "Strict and lenient answer reading" section: each model's accuracy and success
under both readings of its answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph
from twosat_formal.report.sections.format import NO_DATA, captioned, format_ci, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["write_readings"]


def write_readings(content: ReportContent) -> list[Block]:
    """The "Strict and lenient answer reading" section."""
    if not content.summaries:
        return [Paragraph(NO_DATA)]
    headers = [
        "model",
        "Sat. (strict)",
        "Sat. (lenient)",
        "success (strict)",
        "success (lenient)",
        "rows the lenient reading judges differently",
    ]
    rows = [
        plain_cells(
            s.model,
            format_ci(s.accuracy),
            format_ci(s.lenient_accuracy),
            format_ci(s.success),
            format_ci(s.lenient_success),
            f"{s.forgiven} of {s.rows}",
        )
        for s in content.summaries
    ]
    return captioned(
        "Every answer is read twice (docs/evaluation.md): strictly, the final line "
        '"The answer is: Yes|No" as the prompt asks for it (the headline metric), and '
        "leniently (an answer inside a sentence, Answer:, \\boxed{}, a forgiving JSON "
        "reader). Decision accuracy (Sat.) and success (right decision, and a valid "
        "witness on SAT instances) under each reading; the gap is format failure, not "
        "reasoning failure.",
        headers,
        rows,
    )
