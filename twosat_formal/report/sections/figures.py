"""The "Figures" section: each figure, then a line for each one not drawn."""

from __future__ import annotations

from collections.abc import Sequence

from twosat_formal.report.blocks import Block, Image, Paragraph

__all__ = ["write_figures"]


def write_figures(figures: Sequence[Image], absent: Sequence[str] = ()) -> list[Block]:
    """The figures, then one line for each figure the run has no data for."""
    blocks: list[Block] = list(figures)
    if not figures:
        blocks.append(Paragraph("No figures for this run."))
    if absent:
        blocks.append(Paragraph("Not drawn (no data): " + " ".join(absent)))
    return blocks
