"""The "Knob tests across levels (Table 6, App. K)" section: permutation tests across
the levels of each swept knob, over formulas."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from twosat_formal.errors import ConfigError
from twosat_formal.report.metrics import Row, formula_unit, group_rows, per_formula
from twosat_formal.report.sections.armtests import untestable
from twosat_formal.report.sections.common import clauses_of, family_key, is_swept
from twosat_formal.report.sections.format import TestSection
from twosat_formal.report.stats import (
    PERMUTATION_TEST,
    PERMUTATIONS,
    LevelUnit,
    TestResult,
    adjust_within_families,
    permutation_levels,
)

if TYPE_CHECKING:
    from twosat_formal.report.blocks import Block
    from twosat_formal.report.content import ReportContent

__all__ = ["KNOB_FAMILY", "KNOB_SECTION", "knob_tests", "write_knob_tests"]

#: The Benjamini–Hochberg family of the knob tests: every test of Table 6 together
#: (every family, knob and size, and the ``overall`` tests), as the paper's table reads.
KNOB_FAMILY = "knob levels (all of Table 6)"


def _formula_units(rows: Sequence[Row]) -> list[LevelUnit]:
    """The formulas of a sweep as permutation units: ``(|C|, level, {model: success})``,
    each formula's success averaged over its templates and samples per model."""
    level_of: dict[Hashable, tuple[int, float]] = {}
    for row in rows:
        level_of.setdefault(formula_unit(row), (clauses_of(row), float(row["level"])))
    values: dict[Hashable, dict[Hashable, float]] = {}
    for key, value in per_formula(rows, "success", key=["model", "formula"]).items():
        assert isinstance(key, tuple)
        model, formula = key
        values.setdefault(formula, {})[model] = value
    return [(level_of[f][0], level_of[f][1], v) for f, v in values.items()]


def knob_tests(
    rows: Sequence[Row], *, seed: int = 0, permutations: int = PERMUTATIONS
) -> list[TestResult]:
    """The knob tests of Table 6: does success differ between the levels of a knob?

    Each level draws its own formulas, so the formula is the unit: its success is
    averaged over its templates and samples under each model, and a permutation test
    (:func:`~twosat_formal.report.stats.permutation_levels`) exchanges knob levels
    between the formulas of one size (a formula keeps its answers under every model).
    One test per family × knob × |C|, and an ``overall`` test across sizes (levels
    exchanged within each size) when there are several; Benjamini–Hochberg over all of
    them together (:data:`KNOB_FAMILY`).

    >>> rows = [{"instance_id": f"{lvl}-{i}", "model": "m", "template": "logic",
    ...          "family": "backbone", "clauses": 10, "knob": "k", "level": lvl,
    ...          "label": "UNSAT", "decision_correct": lvl > 0.5}
    ...         for lvl in (0.0, 0.5, 1.0) for i in range(3)]
    >>> (t,) = knob_tests(rows)
    >>> t.n, round(t.p_value, 4), t.family == KNOB_FAMILY
    (9, 0.0357, True)
    """
    groups = group_rows([r for r in rows if is_swept(r)], ["family", "knob"])
    results = [
        _knob_test(f"{family} · {knob} · |C|={scope}", scoped, seed, permutations)
        for family, knob in sorted(groups, key=lambda k: (family_key(str(k[0])), str(k[1])))
        for scope, scoped in _knob_scopes(groups[(family, knob)])
    ]
    return adjust_within_families(results)


def _knob_scopes(members: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    """The rows of each size of one family and knob, then all of them (``overall``)
    when there are several sizes."""
    sizes = sorted({clauses_of(r) for r in members})
    scopes = [(str(c), [r for r in members if clauses_of(r) == c]) for c in sizes]
    if len(sizes) > 1:
        scopes.append(("overall", list(members)))
    return scopes


def _knob_test(label: str, scoped: Sequence[Row], seed: int, permutations: int) -> TestResult:
    """The permutation test of one scope's knob levels (a note where it cannot run)."""
    units = _formula_units(scoped)
    try:
        return permutation_levels(
            units, permutations=permutations, seed=seed, label=label, family=KNOB_FAMILY
        )
    except ConfigError as exc:
        return untestable(PERMUTATION_TEST, len(units), label, KNOB_FAMILY, exc)


KNOB_SECTION = TestSection(
    "Permutation tests across knob levels (Table 6). Each level draws its own formulas, "
    "so the unit is the formula: its success is averaged over its templates and samples "
    "under each model, and the knob levels are exchanged between the formulas of one "
    "size (a formula keeps its answers under every model together; every arrangement "
    "when there are at most 9,999, else 9,999 random ones). The statistic is the "
    "between-level sum of squares over formulas, summed over models; n counts the "
    f"formulas the p-value rests on. Benjamini–Hochberg over one family, {KNOB_FAMILY}; "
    "adjusted p < .05 in bold.",
    empty="No knob sweep in this run.",
)


def write_knob_tests(content: ReportContent) -> list[Block]:
    """The "Knob tests across levels (Table 6, App. K)" section."""
    return KNOB_SECTION.blocks(content.knob_tests)
