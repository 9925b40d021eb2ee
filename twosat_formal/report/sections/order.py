"""The "Clause order: construction vs shuffled (§5.3)" section: its paired tests and
bars (pooled and per model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from twosat_formal.report.metrics import Estimate, Row, group_rows
from twosat_formal.report.sections.armtests import arm_success, paired_arms, rows_by_family
from twosat_formal.report.sections.common import Bars
from twosat_formal.report.sections.format import TestSection
from twosat_formal.report.stats import TestResult

if TYPE_CHECKING:
    from twosat_formal.report.blocks import Block
    from twosat_formal.report.content import ReportContent

__all__ = [
    "ORDER_ARMS",
    "ORDER_SECTION",
    "order_by_model",
    "order_family_bars",
    "order_family_tests",
    "write_order_tests",
]

ORDER_ARMS = ("construction", "shuffled")


def order_by_model(
    rows: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> dict[str, Bars]:
    """Construction vs shuffled per family, then per model (the order figure's panels)."""
    out: dict[str, Bars] = {}
    for family, members in rows_by_family(rows, "order"):
        by_model = group_rows(members, ["model"])
        bars: Bars = {}
        for model in [m for m in models if (m,) in by_model]:
            bars[str(model)] = {
                arm: arm_success(by_model[(model,)], arm, method=method, seed=seed)
                for arm in ORDER_ARMS
            }
        out[family] = bars
    return out


def order_family_tests(
    family: str, members: Sequence[Row], names: Mapping[str, str]
) -> list[TestResult]:
    """Construction order against shuffled clauses on one family (paired)."""
    return paired_arms(
        members,
        "construction",
        "shuffled",
        shuffled_a=None,
        shuffled_b=None,
        label=f"{family}: construction vs shuffled",
        family="order",
    )


def order_family_bars(
    family: str, members: Sequence[Row], names: Mapping[str, str], *, method: str, seed: int
) -> tuple[str, dict[str, Estimate]]:
    """The success rate of both orders of one family."""
    return family, {arm: arm_success(members, arm, method=method, seed=seed) for arm in ORDER_ARMS}


ORDER_SECTION = TestSection(
    "Paired t-tests over formulas: the same formula in its construction order and "
    "shuffled, each formula's success averaged over its templates, samples and models; "
    "Benjamini–Hochberg over the order tests.",
    empty="No clause-order comparison in this run.",
)


def write_order_tests(content: ReportContent) -> list[Block]:
    """The "Clause order: construction vs shuffled (§5.3)" section."""
    return ORDER_SECTION.blocks(content.order_tests)
