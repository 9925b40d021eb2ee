"""The "Duplicated clauses (§5.4)" section: the layouts of duplicated clauses against
each other and their shuffled versions, tests and bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from twosat_formal.report.metrics import Estimate, Row, aggregate
from twosat_formal.report.sections.armtests import independent_arms, paired_arms
from twosat_formal.report.sections.common import UNIT_KEY
from twosat_formal.report.sections.format import TestSection
from twosat_formal.report.stats import TestResult

if TYPE_CHECKING:
    from twosat_formal.report.blocks import Block
    from twosat_formal.report.content import ReportContent

__all__ = [
    "DUPLICATION_ARMS",
    "DUPLICATION_SECTION",
    "duplication_family_bars",
    "duplication_family_tests",
    "write_duplication_tests",
]

DUPLICATION_ARMS = ("single", "grouped", "interleaved", "distinct")


def duplication_family_tests(
    family: str, members: Sequence[Row], names: Mapping[str, str]
) -> list[TestResult]:
    """The duplication tests of one family: single against each copy layout and each copy
    layout against distinct clauses (independent), each arm against itself shuffled
    (paired)."""
    tests: list[TestResult] = []
    pairs = [("single", other) for other in ("grouped", "interleaved", "distinct")]
    pairs += [(copy, "distinct") for copy in ("grouped", "interleaved")]
    for a, b in pairs:
        if a in names and b in names:
            tests += independent_arms(
                members,
                a,
                b,
                label=f"{family}: {names[a]} vs {names[b]}",
                family="duplication",
            )
    for arm, label in names.items():
        tests += paired_arms(
            members,
            arm,
            arm,
            shuffled_a=False,
            shuffled_b=True,
            label=f"{family}: {label} vs {label} shuffled",
            family="duplication",
        )
    return tests


def duplication_family_bars(
    family: str, members: Sequence[Row], names: Mapping[str, str], *, method: str, seed: int
) -> tuple[str, dict[str, Estimate]]:
    """The success rate of each arm of one family, plain and shuffled (those with rows)."""
    group: dict[str, Estimate] = {}
    for arm, label in names.items():
        for shuffled in (False, True):
            chosen = [
                r for r in members if r.get("arm") == arm and bool(r.get("shuffled")) == shuffled
            ]
            if chosen:
                name = f"{label} shuffled" if shuffled else label
                group[name] = aggregate(chosen, "success", key=UNIT_KEY, method=method, seed=seed)
    return family, group


DUPLICATION_SECTION = TestSection(
    "Independent t-tests between layouts and paired t-tests between each layout and "
    "its shuffled version, formulas as units (success averaged over templates, samples "
    "and models); Benjamini–Hochberg over the duplication tests.",
    empty="No duplication comparison in this run.",
)


def write_duplication_tests(content: ReportContent) -> list[Block]:
    """The "Duplicated clauses (§5.4)" section."""
    return DUPLICATION_SECTION.blocks(content.duplication_tests)
