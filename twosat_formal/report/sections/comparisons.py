"""The comparison sections (clause order, fillers, duplication) as a table: each kind
of comparison, the experiments it reads and what computes its tests and bars."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from twosat_formal.report.metrics import Estimate, Row
from twosat_formal.report.sections.armtests import arm_names, rows_by_family
from twosat_formal.report.sections.common import Bars
from twosat_formal.report.sections.duplication import (
    DUPLICATION_ARMS,
    duplication_family_bars,
    duplication_family_tests,
)
from twosat_formal.report.sections.fillers import (
    FILLER_ARMS,
    filler_family_bars,
    filler_family_tests,
)
from twosat_formal.report.sections.order import ORDER_ARMS, order_family_bars, order_family_tests
from twosat_formal.report.stats import TestResult, adjust_within_families

__all__ = ["arm_comparison"]

#: The experiments that compare arms, by kind: their arms, the tests of one family and
#: the bars of one family (its group's name and each arm's success).
_ARM_EXPERIMENTS: dict[
    str,
    tuple[
        tuple[str, ...],
        Callable[..., list[TestResult]],
        Callable[..., tuple[str, dict[str, Estimate]]],
    ],
] = {
    "order": (ORDER_ARMS, order_family_tests, order_family_bars),
    "fillers": (FILLER_ARMS, filler_family_tests, filler_family_bars),
    "duplication": (DUPLICATION_ARMS, duplication_family_tests, duplication_family_bars),
}


def arm_comparison(
    rows: Sequence[Row], kind: str, *, method: str, seed: int, bars_too: bool = True
) -> tuple[list[TestResult], Bars]:
    """The tests (adjusted within the experiment) and bars of an experiment of
    :data:`_ARM_EXPERIMENTS`, family by family."""
    arms, tests_of, bars_of = _ARM_EXPERIMENTS[kind]
    tests: list[TestResult] = []
    bars: Bars = {}
    for family, members in rows_by_family(rows, kind):
        names = arm_names(members, arms)
        tests += tests_of(family, members, names)
        if bars_too:
            group, bar = bars_of(family, members, names, method=method, seed=seed)
            bars[group] = bar
    return adjust_within_families(tests), bars
