"""The tests the comparison sections share: paired and independent t-tests over
formulas between two arms, an arm's success, the arms' display names."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from twosat_formal.errors import ConfigError
from twosat_formal.report.metrics import Estimate, Row, aggregate, per_formula
from twosat_formal.report.sections.common import UNIT_KEY, by_family
from twosat_formal.report.stats import TestResult, independent_t, paired_t

__all__ = [
    "arm_names",
    "arm_success",
    "independent_arms",
    "paired_arms",
    "rows_by_family",
    "untestable",
]


def _unit_values(rows: Sequence[Row], fields: Sequence[str]) -> dict[Hashable, float]:
    """Per-formula success, keyed by the values of ``fields`` (a formula's identity)."""
    return per_formula(rows, "success", key=[*fields, "instance_id"])


def _drop_instance(values: dict[Hashable, float]) -> dict[tuple[Any, ...], float]:
    out: dict[tuple[Any, ...], float] = {}
    for key, value in values.items():
        assert isinstance(key, tuple)
        out[key[:-1]] = value
    return out


#: The fields that name one formula across the arms of a paired design.
_UNIT_FIELDS = ("model", "clauses", "knob", "level", "replicate")


def _over_models(values: Mapping[tuple[Any, ...], float]) -> dict[tuple[Any, ...], float]:
    """``{(model, *formula): value}`` averaged over models: ``{formula: value}``."""
    sums: dict[tuple[Any, ...], list[float]] = {}
    for key, value in values.items():
        sums.setdefault(key[1:], []).append(value)
    return {k: sum(v) / len(v) for k, v in sums.items()}


def _formula_unit_note(result: TestResult, models: int) -> TestResult:
    """The result with its unit (the formula) and the models averaged in ``extra``."""
    return replace(result, extra=(*result.extra, ("unit", "formula"), ("models", models)))


def paired_arms(
    rows: Sequence[Row],
    arm_a: str,
    arm_b: str,
    *,
    shuffled_a: bool | None,
    shuffled_b: bool | None,
    label: str,
    family: str,
) -> list[TestResult]:
    """The paired t-test of two arms over their shared formulas (none when they share
    none). The unit is the formula: each model's success on it is averaged over its
    templates and samples, then over the models that answered it in both arms (models
    answering the same formula are not independent replicates)."""

    def side(arm: str, shuffled: bool | None) -> dict[tuple[Any, ...], float]:
        chosen = [
            r
            for r in rows
            if r.get("arm") == arm and (shuffled is None or bool(r.get("shuffled")) == shuffled)
        ]
        return _drop_instance(_unit_values(chosen, _UNIT_FIELDS))

    a, b = side(arm_a, shuffled_a), side(arm_b, shuffled_b)
    shared = {k: k for k in a if k in b}
    if not shared:
        return []
    ua = _over_models({k: a[k] for k in shared})
    ub = _over_models({k: b[k] for k in shared})
    keys = list(ua)
    models = len({k[0] for k in shared})
    try:
        result = paired_t([ua[k] for k in keys], [ub[k] for k in keys], label=label, family=family)
    except ConfigError as exc:
        result = untestable("paired t-test", len(keys), label, family, exc)
    return [_formula_unit_note(result, models)]


def independent_arms(
    rows: Sequence[Row], arm_a: str, arm_b: str, *, label: str, family: str
) -> list[TestResult]:
    """Student's t-test of two unshuffled arms (none when one is empty), the formula as
    unit (its success averaged over templates, samples and models)."""

    def side(arm: str) -> dict[tuple[Any, ...], float]:
        chosen = [r for r in rows if r.get("arm") == arm and not r.get("shuffled")]
        return _drop_instance(_unit_values(chosen, _UNIT_FIELDS))

    per_a, per_b = side(arm_a), side(arm_b)
    a, b = list(_over_models(per_a).values()), list(_over_models(per_b).values())
    if not a or not b:
        return []
    models = len({k[0] for k in [*per_a, *per_b]})
    try:
        result = independent_t(a, b, label=label, family=family)
    except ConfigError as exc:
        result = untestable("independent t-test (Student)", len(a) + len(b), label, family, exc)
    return [_formula_unit_note(result, models)]


def arm_success(rows: Sequence[Row], arm: str, *, method: str, seed: int) -> Estimate:
    """The success rate of one arm's rows, formulas as units."""
    return aggregate(
        [r for r in rows if r.get("arm") == arm], "success", key=UNIT_KEY, method=method, seed=seed
    )


def untestable(test: str, n: int, label: str, family: str, exc: ConfigError) -> TestResult:
    """A row for a test the data cannot carry: no statistic, the reason as its note."""
    return TestResult(test, n, float("nan"), float("nan"), None, label, family, note=str(exc))


def rows_by_family(rows: Sequence[Row], kind: str) -> list[tuple[str, list[Row]]]:
    """Rows of experiments of ``kind`` (design field ``kind``, else ``experiment``)."""
    return by_family(r for r in rows if (r.get("kind") or r.get("experiment")) == kind)


def arm_names(rows: Sequence[Row], arms: Sequence[str]) -> dict[str, str]:
    """The display name of each arm of ``arms`` in ``rows`` (its ``arm_label``, else the arm)."""
    names: dict[str, str] = {}
    for row in rows:
        arm = row.get("arm")
        if arm in arms:
            names.setdefault(str(arm), str(row.get("arm_label") or arm))
    return {arm: names[arm] for arm in arms if arm in names}
