"""The "Figures" section: each figure, then a line for each one not drawn."""

from __future__ import annotations

from collections.abc import Sequence

from twosat_formal.report.blocks import Block, Image, Paragraph
from twosat_formal.report.plots import Figure

__all__ = ["write_figures"]


def write_figures(figures: Sequence[Figure], absent: Sequence[str] = ()) -> list[Block]:
    """The figures, then one line for each figure the run has no data for."""
    blocks: list[Block] = [Image(f.path, f.title, f.caption) for f in figures]
    if not figures:
        blocks.append(Paragraph("No figures for this run."))
    if absent:
        blocks.append(Paragraph("Not drawn (no data): " + " ".join(absent)))
    return blocks
