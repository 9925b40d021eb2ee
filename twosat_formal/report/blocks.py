"""The blocks a report is laid out in: headings, paragraphs, tables, images and the item
browser. :func:`~twosat_formal.report.render.layout` lays a report out as a list of
them; :mod:`~twosat_formal.report.render` writes them as Markdown and
:mod:`~twosat_formal.report.page` as the HTML page.

Examples
--------
>>> Heading("Summary")
Heading(text='Summary', level=2)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "Browser", "Heading", "Image", "Paragraph", "Table"]


@dataclass(frozen=True)
class Heading:
    """A heading of ``level`` 1–3."""

    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table; each cell is ``(text, style)`` with style ``""``, ``"b"`` or ``"i"``."""

    headers: list[str]
    rows: list[list[tuple[str, str]]]


@dataclass(frozen=True)
class Image:
    """A figure: its path relative to the report folder, title and caption."""

    path: Path
    title: str
    caption: str


@dataclass(frozen=True)
class Browser:
    """The item browser over the report's answers (``answers`` of them); the HTML page
    draws it (:mod:`~twosat_formal.report.page`), the Markdown file points to it."""

    answers: int


Block = Heading | Paragraph | Table | Image | Browser
