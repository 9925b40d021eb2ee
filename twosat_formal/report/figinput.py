"""What the report's figures are drawn from (:class:`FigureInput`) and one figure to
draw (:class:`Drawing`), shared by the plans of :mod:`~twosat_formal.report.figplans`
and the table of :mod:`~twosat_formal.report.figspecs`.

Examples
--------
>>> from twosat_formal.report.content import compute_content
>>> FigureInput(compute_content([])).grid
'Knob settings not recorded'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any

from twosat_formal.report.content import ReportContent
from twosat_formal.report.metrics import CI_METHOD, Row
from twosat_formal.report.page import slug
from twosat_formal.report.plots import FAILURE_COLORS
from twosat_formal.report.style import SeriesStyle, Styles, assign_styles

__all__ = ["OUTCOMES", "Drawing", "FigureInput", "figure_file", "single", "slug"]

#: The two readings of an answer on the leaderboard.
_READINGS = ("strict", "lenient")
#: The outcomes of the response-length figure.
OUTCOMES = ("succeeded", "failed")


@dataclass(frozen=True)
class FigureInput:
    """What the figures are drawn from.

    ``rows`` are the report's joined result rows (one per answer); ``measures`` maps
    an instance id to its structural measures
    (:func:`~twosat_formal.report.figplans.measures_of`); ``method`` and ``seed`` pick
    the intervals, as for the report's tables.
    """

    content: ReportContent
    rows: Sequence[Row] = ()
    method: str = CI_METHOD
    seed: int = 0
    measures: Mapping[str, Mapping[str, int | None]] = field(default_factory=dict)

    @cached_property
    def styles(self) -> Styles:
        """One style per series name: models, templates, story themes, arms, readings;
        the outcomes correct and wrong in the colours of the failure-kind figure."""
        content = self.content
        themes = list(content.stories.curves) if content.stories is not None else []
        # the arms of each comparison figure are a group of their own: each figure's bars
        # start the palette afresh, so no two bars of one figure share a colour
        arms = [
            list(dict.fromkeys(name for group in bars.values() for name in group))
            for bars in (content.order_bars, content.filler_bars, content.duplication_bars)
        ]
        styles = assign_styles(content.models, content.templates, themes, _READINGS, *arms)
        for outcome, kind in zip(OUTCOMES, ("correct", "wrong-decision"), strict=True):
            styles.setdefault(outcome, SeriesStyle(FAILURE_COLORS[kind], "o", "-"))
        return styles

    @cached_property
    def hardness(self) -> dict[str, int]:
        """The structural hardness of each instance with measures, by id: the size (in
        literals) of the largest strong component of its implication graph (its measure
        ``largest_scc``), how much of the formula one chain of implications ties together.

        >>> from twosat_formal.report.content import compute_content
        >>> FigureInput(compute_content([]), measures={"a": {"largest_scc": 4}}).hardness
        {'a': 4}
        """
        return {key: int(m["largest_scc"] or 0) for key, m in self.measures.items()}

    @cached_property
    def grid(self) -> str:
        """What the plain grid is, read from its rows: knob settings and experiments."""
        content = self.content
        text = content.grid_knobs or "knob settings not recorded"
        if content.grid_experiments:
            kind = "experiment" if len(content.grid_experiments) == 1 else "experiments"
            text += f" ({kind} {', '.join(content.grid_experiments)})"
        return text[:1].upper() + text[1:]

    @cached_property
    def models(self) -> list[str]:
        """The models of the rows, in the report's order."""
        seen = {str(r.get("model")) for r in self.rows}
        return [m for m in self.content.models if m in seen] + sorted(
            seen - set(self.content.models)
        )


@dataclass(frozen=True)
class Drawing:
    """One figure to draw: its file name, title, caption and how to draw it."""

    name: str
    title: str
    caption: str
    draw: Callable[[], object]

    @property
    def weight(self) -> int:
        """Roughly how much the figure draws: the values in the data it is drawn from
        (the first argument of ``draw``), so that the largest figures start first."""
        args = getattr(self.draw, "args", ())
        return _values(args[0]) if args else 1


def _values(data: object) -> int:
    """How many values ``data`` holds, counting through mappings and sequences.

    >>> _values({"a": [(1, 2.0), (2, 3.0)], "b": {"x": 5}})
    5
    """
    if isinstance(data, Mapping):
        return sum(_values(v) for v in data.values())
    if isinstance(data, list | tuple):
        return sum(_values(v) for v in data)
    return 1


def figure_file(name: str) -> str:
    """The file name of the figure ``name`` (``name.svg``)."""
    return f"{name}.svg"


def single(
    stem: str,
    title: str,
    caption: str,
    chart: Callable[..., object],
    data: object,
    folder: Path,
    /,
    **options: Any,
) -> list[Drawing]:
    """The one drawing of a figure plan: ``chart(data, folder / "<stem>.svg", **options)``.

    >>> (d,) = single("demo", "Title", "Caption.", print, {"a": 1}, Path("figures"))
    >>> d.name, d.weight
    ('demo.svg', 1)
    """
    name = figure_file(stem)
    return [Drawing(name, title, caption, partial(chart, data, folder / name, **options))]
