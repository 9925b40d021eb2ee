"""The "Filler clauses (§5.2)" section: core plus fillers against the same core and
against a matched total, tests and bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from twosat_formal.report.metrics import Estimate, Row
from twosat_formal.report.sections.armtests import arm_success, paired_arms
from twosat_formal.report.sections.format import TestSection
from twosat_formal.report.stats import TestResult

if TYPE_CHECKING:
    from twosat_formal.report.blocks import Block
    from twosat_formal.report.content import ReportContent

__all__ = [
    "FILLER_ARMS",
    "FILLER_SECTION",
    "filler_family_bars",
    "filler_family_tests",
    "write_filler_tests",
]

FILLER_ARMS = ("filler", "core", "total")


_FILLER_ROLES = {"filler": "core + fillers", "core": "same core", "total": "matched total"}


def filler_family_tests(
    family: str, members: Sequence[Row], names: Mapping[str, str]
) -> list[TestResult]:
    """Core and fillers against the same core and against the matched total (paired)."""
    tests: list[TestResult] = []
    for other in ("core", "total"):
        if "filler" in names and other in names:
            tests += paired_arms(
                members,
                "filler",
                other,
                shuffled_a=None,
                shuffled_b=None,
                label=f"{family}: {names['filler']} vs {names[other]}",
                family="fillers",
            )
    return tests


def filler_family_bars(
    family: str, members: Sequence[Row], names: Mapping[str, str], *, method: str, seed: int
) -> tuple[str, dict[str, Estimate]]:
    """The success rate of each filler arm of one family, grouped under its arms' names."""
    return f"{family}\n" + " / ".join(names.values()), {
        _FILLER_ROLES[arm]: arm_success(members, arm, method=method, seed=seed) for arm in names
    }


FILLER_SECTION = TestSection(
    "Paired t-tests over formulas (success averaged over templates, samples and "
    "models): core plus filler clauses against the same core alone (fixed core) and "
    "against a larger core (matched total clauses); Benjamini–Hochberg over the filler "
    "tests.",
    empty="No filler comparison in this run.",
)


def write_filler_tests(content: ReportContent) -> list[Block]:
    """The "Filler clauses (§5.2)" section."""
    return FILLER_SECTION.blocks(content.filler_tests)
