"""One look per series across every figure of a report: colour, marker, line style.

A report draws the same models (and templates, story themes) in many figures; a reader
follows a series by its colour and marker, so each name keeps one style everywhere.
:func:`assign_styles` gives the names of each group (models; templates; themes; arms),
in the order the report lists them, the colours of the Okabe–Ito palette
(distinguishable with the common colour-vision deficiencies) and a marker and line style
each. Groups never share a figure, so each group starts the palette afresh: a model and
a template may look alike, two models never do (up to 11 colours, then line styles).

Examples
--------
>>> styles = assign_styles(["ref/oracle", "ref/coin"], ["logic", "door"])
>>> styles["ref/oracle"].color, styles["ref/coin"].color
('#0072B2', '#D55E00')
>>> styles["logic"] == styles["ref/oracle"], styles["door"] == styles["ref/coin"]
(True, True)
>>> styles.get("unknown series").color
'#000000'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["COLORS", "MARKERS", "SeriesStyle", "Styles", "assign_styles"]

#: Okabe–Ito colours, then four of Paul Tol's muted palette, so that a figure of up to
#: 11 series (the duplication figure has 8 bars) gives each its own colour (black last:
#: it stays for what has no series style).
COLORS = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
    "#882255", "#44AA99", "#999933", "#332288", "#000000",
)  # fmt: skip
#: Markers, chosen to stay apart when they overlap.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
#: Line styles: solid first.
LINESTYLES = ("-", "--", "-.", ":")


@dataclass(frozen=True)
class SeriesStyle:
    """How one series is drawn."""

    color: str
    marker: str
    linestyle: str


class Styles(dict[str, SeriesStyle]):
    """Series name → style, with a neutral style for names it does not know."""

    def get(self, name: str, default: SeriesStyle | None = None) -> SeriesStyle:  # type: ignore[override]
        """The style of ``name`` (black, circle, solid when it has none)."""
        return super().get(name) or default or SeriesStyle(COLORS[-1], "o", "-")


def assign_styles(*groups: Iterable[str]) -> Styles:
    """Styles for every name of ``groups`` (models, then templates...), in order.

    A name seen twice keeps its first style. The ``k``-th new name of a group gets
    colour ``k`` modulo 11 (black is kept back), marker ``k`` modulo 8 and line style
    ``k // 11`` modulo 4: the first 11 names of a group have 11 colours, and the first
    44 differ in colour or line style.
    """
    styles = Styles()
    for group in groups:
        k = -1
        for name in group:
            if name in styles:
                continue
            k += 1
            palette = len(COLORS) - 1
            styles[name] = SeriesStyle(
                COLORS[k % palette], MARKERS[k % len(MARKERS)], LINESTYLES[(k // palette) % 4]
            )
    return styles
