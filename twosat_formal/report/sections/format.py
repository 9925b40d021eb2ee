"""What the sections' writers share: number formats, table cells, the caption-and-table
shape and the table of significance tests."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.metrics import Estimate, FlipRate
from twosat_formal.report.stats import TestResult

__all__ = [
    "NO_DATA",
    "TestSection",
    "captioned",
    "format_ci",
    "format_count_rate",
    "format_flips",
    "format_p",
    "format_pct",
    "interval_name",
    "plain_cells",
    "ranked",
    "test_table",
]

NO_DATA = "No data for this section in this run."


#: Each interval method's name in a caption: short, and in full (the summary's).
_METHOD_NAMES = {
    "wilson": ("Wilson", "Wilson score"),
    "t": ("t", "t-based"),
    "bootstrap": ("percentile-bootstrap", "percentile-bootstrap"),
}


def interval_name(estimates: Sequence[Estimate], *, full: bool = False) -> str:
    """The name a caption gives the intervals of ``estimates`` (their method; Wilson
    when there are none), in ``full`` (``Wilson score``, ``t-based``) or short.

    >>> interval_name([]), interval_name([Estimate(0.5, 0.2, 0.8, 4, method="bootstrap")])
    ('Wilson', 'percentile-bootstrap')
    >>> interval_name([], full=True), interval_name([Estimate(0.5, 0.2, 0.8, 4, method="t")])
    ('Wilson score', 't')
    """
    method = estimates[0].method if estimates else "wilson"
    names = _METHOD_NAMES.get(method)
    return method if names is None else names[full]


def plain_cells(*texts: str) -> list[tuple[str, str]]:
    """Table cells without a style.

    >>> plain_cells("a", "b")
    [('a', ''), ('b', '')]
    """
    return [(text, "") for text in texts]


def captioned(
    caption: str, headers: Sequence[str], rows: list[list[tuple[str, str]]]
) -> list[Block]:
    """A section's usual shape: a caption paragraph above one table.

    >>> captioned("Counts.", ["model", "n"], [plain_cells("m", "3")])[0]
    Paragraph(text='Counts.')
    """
    return [Paragraph(caption), Table(list(headers), rows)]


def format_pct(value: float | None, digits: int = 1) -> str:
    """A share as a percentage, ``—`` when undefined.

    >>> format_pct(0.8333), format_pct(None)
    ('83.3', '—')
    """
    if value is None or math.isnan(value):
        return "—"
    return f"{100.0 * value:.{digits}f}"


def format_p(value: float | None) -> str:
    """A p-value in the paper's style (``3.363e-03``), ``—`` when undefined.

    >>> format_p(0.003363), format_p(float("nan"))
    ('3.363e-03', '—')
    """
    if value is None or math.isnan(value):
        return "—"
    return f"{value:.3e}"


def format_ci(estimate: Estimate) -> str:
    """An estimate as a percentage with its interval and its number of units.

    >>> format_ci(Estimate(0.5, 0.25, 0.75, n=4)), format_ci(Estimate(0.5, None, None, n=1))
    ('50.0 [25.0, 75.0] (n=4)', '50.0 (n=1)')
    """
    if estimate.mean is None:
        return "—"
    if estimate.low is None or estimate.high is None:
        return f"{format_pct(estimate.mean)} (n={estimate.n})"
    return (
        f"{format_pct(estimate.mean)} [{format_pct(max(0.0, estimate.low))}, "
        f"{format_pct(min(1.0, estimate.high))}] (n={estimate.n})"
    )


def format_flips(flips: FlipRate) -> str:
    """A flip rate as a percentage with its counts, ``—`` without pairs."""
    if not flips.pairs:
        return "—"
    return f"{format_pct(flips.rate)} ({flips.flips}/{flips.pairs})"


def ranked(values: Sequence[float | None]) -> list[str]:
    """Styles for a row of values: the best in bold, the second best in italics, each
    only when one value alone holds that place (a tie is not a best: a row where two
    models share the top value, or every model has 0 %, has no bold).

    Rows with fewer than two values get no styling.

    >>> ranked([0.5, 1.0, None, 0.75, 0.9])
    ['', 'b', '', '', 'i']
    >>> ranked([0.5, 1.0, None, 0.75, 1.0])
    ['', '', '', '', '']
    >>> ranked([0.0, 0.0, 0.0])
    ['', '', '']
    >>> ranked([0.9, 0.5, 0.5])
    ['b', '', '']
    """
    present = sorted((round(v, 9) for v in values if v is not None), reverse=True)
    if len(present) < 2 or present[0] == present[1]:
        return [""] * len(values)
    places = {present[0]: "b"}
    if len(present) == 2 or present[1] != present[2]:
        places[present[1]] = "i"
    return ["" if v is None else places.get(round(v, 9), "") for v in values]


def _statistic(value: float) -> str:
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}"


def _significant(p: float | None) -> bool:
    """Bold marks a Benjamini–Hochberg adjusted p below .05 (the paper's Table 6)."""
    return p is not None and not math.isnan(p) and p < 0.05


def test_table(results: Sequence[TestResult], *, empty: str = NO_DATA) -> list[Block]:
    """The table of significance tests, or a paragraph saying ``empty`` without any."""
    if not results:
        return [Paragraph(empty)]
    rows = [
        [
            *plain_cells(
                r.label,
                r.test,
                _units(r),
                _statistic(r.statistic),
                "—" if r.df is None or math.isnan(r.df) else f"{r.df:.4g}",
                format_p(r.p_value),
            ),
            (format_p(r.p_adjusted), "b" if _significant(r.p_adjusted) else ""),
            (r.note, ""),
        ]
        for r in results
    ]
    return [Table(["comparison", "test", "n", "statistic", "df", "p", "p (BH)", "note"], rows)]


def _units(result: TestResult) -> str:
    """``n`` with the unit it counts when the test names one (``18 formulas``).

    >>> _units(TestResult("t", 18, 1.0, 0.5, extra=(("unit", "formula"),)))
    '18 formulas'
    """
    unit = dict(result.extra).get("unit")
    if not unit:
        return str(result.n)
    return f"{result.n} {unit}" + ("" if result.n == 1 else "s")


@dataclass(frozen=True)
class TestSection:
    """A section of significance tests: what they compare, then their table.

    ``empty`` stands for the table when a run has no such comparison.
    """

    intro: str
    empty: str

    def blocks(self, results: Sequence[TestResult]) -> list[Block]:
        return [Paragraph(self.intro), *test_table(results, empty=self.empty)]


def format_count_rate(count: int, total: int, rate: float | None) -> str:
    """A rate as a percentage with its counts, ``—`` when ``total`` is 0."""
    return "—" if not total else f"{format_pct(rate)} ({count}/{total})"
