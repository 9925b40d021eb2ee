"""Metrics over result rows: accuracies, witness validity, bias, truncation, robustness.

A *row* is one scored sample, a mapping with the export columns (``instance_id``,
``prompt_id``, ``template``, ``model``, ``sample``, ``label``, ``decision``,
``decision_correct``, ``witness_valid``, ``failure``, ``finish_reason``, ``truncated``,
...), usually joined with the metadata of its instance (:func:`join_instances` adds
``family``, ``num_clauses``, ``params``, ``base_id``).

Aggregation follows the paper: a formula's verbalizations and samples are repeated
measurements of that formula, so a metric is first averaged per formula
(:func:`per_formula`) and then across formulas (:func:`mean_ci`), with a 95%
confidence interval whose ``n`` is the number of formulas. A formula is a *base*
formula (:func:`formula_unit`): the perturbed variants, twins and edits of one
generated formula are measurements of it, not formulas of their own. Intervals are
Wilson score intervals by default, which stay inside [0, 1] and keep a width at 0 %
and 100 %; t and bootstrap intervals are clipped to [0, 1].

A *metric* is a function from a row to ``1.0`` / ``0.0``, or ``None`` where it does
not apply (witness validity on an UNSAT instance, for instance); :data:`METRICS`
names them:

========================  =================================================  =========
name                      value                                              rows
========================  =================================================  =========
``accuracy``              the SAT/UNSAT decision is right                    all
``accuracy_sat``          the decision is right                              SAT
``accuracy_unsat``        the decision is right                              UNSAT
``witness``               the assignment given satisfies every clause        SAT
``chain_witness``         "No", and a valid contradiction chain              UNSAT, chain
                                                                             asked for
``success``               right decision, and a valid witness on SAT         all
``sat_prediction``        the model said SAT                                 UNSAT
``truncation``            the answer was cut by the token limit              all
``lenient_accuracy``      ``accuracy`` under the lenient reading             all
``lenient_success``       ``success`` under the lenient reading              all
========================  =================================================  =========

The lenient metrics read the ``lenient_*`` columns (the lenient reading of the same
answer, :mod:`twosat_formal.evaluate.scoring`); shown beside the strict ones they separate
format failures from reasoning failures.

Missing answers, unparsable output and truncation count as incorrect, as in the paper.

Examples
--------
>>> rows = [
...     {"instance_id": "a", "model": "m", "template": "logic", "sample": 0,
...      "label": "SAT", "decision": "SAT", "decision_correct": True,
...      "witness_valid": True, "failure": "correct", "truncated": False},
...     {"instance_id": "a", "model": "m", "template": "team", "sample": 0,
...      "label": "SAT", "decision": "SAT", "decision_correct": True,
...      "witness_valid": False, "failure": "invalid-witness", "truncated": False},
...     {"instance_id": "b", "model": "m", "template": "logic", "sample": 0,
...      "label": "UNSAT", "decision": "SAT", "decision_correct": False,
...      "witness_valid": None, "failure": "wrong-decision", "truncated": False},
... ]
>>> per_formula(rows, METRICS["witness"])
{'a': 0.5}
>>> aggregate(rows, "accuracy").mean
0.5
>>> failure_breakdown(rows)
{'correct': 1, 'invalid-witness': 1, 'wrong-decision': 1}
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as _scipy_stats

from twosat_formal._util.registry import check_choice
from twosat_formal.core.jsonfields import fields_json
from twosat_formal.errors import ConfigError, RecordError

__all__ = [
    "CI_METHOD",
    "CONFIDENCE",
    "METRICS",
    "N_BOOT",
    "Estimate",
    "FlipRate",
    "Metric",
    "Row",
    "aggregate",
    "check_row",
    "decision_consistency",
    "failure_breakdown",
    "flip_rate",
    "formula_unit",
    "group_rows",
    "join_instances",
    "mean_ci",
    "metric_value",
    "model_order",
    "per_formula",
    "rows_by_model",
    "summarize",
    "verbalization_flip_rate",
    "wilson_bounds",
]

#: One scored sample: the export columns, optionally joined with instance metadata.
Row = Mapping[str, Any]
#: A metric: ``1.0``/``0.0`` for a row it applies to, ``None`` otherwise.
Metric = Callable[[Row], float | None]

#: The interval method unless a caller asks for another (see :func:`mean_ci`).
CI_METHOD = "wilson"
_CI_METHODS = (CI_METHOD, "t", "bootstrap")
#: The confidence level of every interval unless a caller asks for another.
CONFIDENCE = 0.95
#: The bootstrap resamples unless a caller asks for another number.
N_BOOT = 2000


def formula_unit(row: Row) -> Hashable:
    """The base formula a row measures: its ``base_id`` (a perturbed variant or an
    edit), else the formula it is the twin of, else its own ``instance_id``.

    >>> formula_unit({"instance_id": "a~1", "base_id": "a"}), formula_unit({"instance_id": "b"})
    ('a', 'b')
    """
    return row.get("base_id") or row.get("twin_of") or row.get("instance_id")


def _flag(value: object) -> float:
    return 1.0 if value is True or value == 1 else 0.0


def _is(row: Row, label: str) -> bool:
    return str(row.get("label", "")).upper() == label


def _accuracy(row: Row) -> float | None:
    return _flag(row.get("decision_correct"))


def _accuracy_sat(row: Row) -> float | None:
    return _flag(row.get("decision_correct")) if _is(row, "SAT") else None


def _accuracy_unsat(row: Row) -> float | None:
    return _flag(row.get("decision_correct")) if _is(row, "UNSAT") else None


def _witness(row: Row) -> float | None:
    if not _is(row, "SAT"):
        return None
    return _flag(row.get("decision_correct")) * _flag(row.get("witness_valid"))


def _chain_witness(row: Row) -> float | None:
    """UNSAT rows whose prompt asked for a contradiction chain: "No" with a valid chain."""
    if not _is(row, "UNSAT") or (row.get("cycle_valid") is None and not row.get("cycle_reason")):
        return None
    return _flag(row.get("decision_correct")) * _flag(row.get("cycle_valid"))


def _success(row: Row) -> float | None:
    if _is(row, "SAT"):
        return _witness(row)
    return _flag(row.get("decision_correct"))


def _sat_prediction(row: Row) -> float | None:
    if not _is(row, "UNSAT"):
        return None
    return 1.0 if row.get("decision") == "SAT" else 0.0


def _lenient_accuracy(row: Row) -> float | None:
    return _flag(row.get("lenient_decision_correct"))


def _lenient_success(row: Row) -> float | None:
    decided = _flag(row.get("lenient_decision_correct"))
    if _is(row, "SAT"):
        return decided * _flag(row.get("lenient_witness_valid"))
    return decided


def _truncation(row: Row) -> float | None:
    return (
        _flag(row.get("truncated"))
        if "truncated" in row
        else _flag(row.get("finish_reason") == "length")
    )


#: The named metrics (see the module docstring for what each one measures).
METRICS: dict[str, Metric] = {
    "accuracy": _accuracy,
    "accuracy_sat": _accuracy_sat,
    "accuracy_unsat": _accuracy_unsat,
    "witness": _witness,
    "chain_witness": _chain_witness,
    "success": _success,
    "sat_prediction": _sat_prediction,
    "truncation": _truncation,
    "lenient_accuracy": _lenient_accuracy,
    "lenient_success": _lenient_success,
}


def metric_value(metric: str | Metric) -> Metric:
    """The metric function for a name of :data:`METRICS`, or ``metric`` itself.

    >>> metric_value("witness")({"label": "UNSAT"}) is None
    True
    >>> metric_value("nope")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: unknown metric 'nope'
    """
    if callable(metric):
        return metric
    check_choice(metric, METRICS, what="metric", parameter="metric")
    return METRICS[metric]


@dataclass(frozen=True)
class Estimate:
    """A mean across formulas with its confidence interval.

    ``n`` is the number of formulas (the unit of the interval) and ``n_obs`` the
    number of rows behind them; ``low``/``high`` are ``None`` when fewer than two
    formulas leave the interval undefined, and ``mean`` is ``None`` when no row
    applies.
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int
    n_obs: int = 0
    method: str = CI_METHOD
    confidence: float = CONFIDENCE

    def to_json(self) -> dict[str, Any]:
        """The estimate as a JSON-ready dict.

        >>> Estimate(0.5, 0.25, 0.75, n=4).to_json()["n"]
        4
        """
        return fields_json(self)


def mean_ci(
    values: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    method: str = CI_METHOD,
    n_boot: int = N_BOOT,
    seed: int = 0,
    n_obs: int | None = None,
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> Estimate:
    """Mean of ``values`` with a confidence interval inside ``bounds``.

    ``method="wilson"`` (the default) is the Wilson score interval of the mean as a
    proportion over ``n`` units: it stays in [0, 1] and is not empty at 0 or 1
    (values must lie in [0, 1]). ``method="t"`` is the Student-t interval
    ``mean ± t(1-α/2, n-1) · s/√n``; ``method="bootstrap"`` the percentile bootstrap
    over ``n_boot`` resamples drawn with ``random.Random(seed)`` (same seed, same
    interval; quantiles by :func:`numpy.quantile`). Both are clipped to ``bounds``
    (``None``: unbounded values).

    >>> e = mean_ci([1.0, 1.0, 1.0, 1.0, 1.0])
    >>> round(e.low, 4), e.mean, e.high
    (0.5655, 1.0, 1.0)
    >>> e = mean_ci([1.0, 2.0, 3.0, 4.0, 5.0], method="t", bounds=None)
    >>> round(e.low, 4), e.mean, round(e.high, 4)
    (1.0368, 3.0, 4.9632)
    >>> mean_ci([1.0], method="t").low is None
    True
    """
    data = _ci_data(values, confidence, method, bounds)
    n = len(data)
    observed = n if n_obs is None else n_obs
    if n == 0:
        return Estimate(None, None, None, 0, observed, method, confidence)
    mean = math.fsum(data) / n
    if method == "wilson":
        low, high = _wilson(data, mean, confidence, bounds)
        return Estimate(mean, low, high, n, observed, method, confidence)
    if n < 2:
        return Estimate(mean, None, None, n, observed, method, confidence)
    if method == "t":
        low, high = _t_interval(data, mean, confidence)
    else:
        low, high = _bootstrap(data, confidence, n_boot, seed)
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return Estimate(mean, low, high, n, observed, method, confidence)


def _ci_data(
    values: Sequence[float], confidence: float, method: str, bounds: tuple[float, float] | None
) -> list[float]:
    """The values as floats, once the method, confidence and values are checked."""
    check_choice(method, _CI_METHODS, what="interval method", parameter="method")
    if not 0.0 < confidence < 1.0:
        raise ConfigError(
            f"confidence {confidence} out of range", parameter="confidence", valid="(0, 1)"
        )
    data = [float(v) for v in values]
    if not all(math.isfinite(v) for v in data):
        raise ConfigError("a value is not finite", parameter="values", valid="finite numbers")
    if bounds is not None and not all(bounds[0] <= v <= bounds[1] for v in data):
        raise ConfigError(
            f"a value lies outside {list(bounds)}", parameter="values", valid=str(list(bounds))
        )
    return data


def _wilson(
    data: list[float], mean: float, confidence: float, bounds: tuple[float, float] | None
) -> tuple[float, float]:
    """The Wilson score interval of ``mean`` as a proportion over ``len(data)`` units."""
    if bounds != (0.0, 1.0) and not all(0.0 <= v <= 1.0 for v in data):
        raise ConfigError("Wilson intervals need values in [0, 1]", parameter="method")
    return wilson_bounds(mean, len(data), confidence)


def wilson_bounds(share: float, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``share`` over ``n`` units (``n`` ≥ 1).

    The one computation of the interval in the package: the metrics' ``wilson``
    method uses it, and so :func:`twosat_formal.report.pairs.wilson` through
    :func:`mean_ci`. The interval holds its share, and is exact at the edges (a
    rounding error must not lift the lower bound of ``0`` above it, 5.6e-17 at 0 of 3).

    >>> low, high = wilson_bounds(0.8, 10, 0.95)
    >>> round(low, 4), round(high, 4)
    (0.4902, 0.9433)
    >>> wilson_bounds(0.0, 3, 0.95)[0], wilson_bounds(1.0, 3, 0.95)[1]
    (0.0, 1.0)
    """
    z = float(_scipy_stats.norm.ppf(0.5 + confidence / 2.0))
    shrink = 1.0 + z * z / n
    centre = (share + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(max(share * (1.0 - share), 0.0) / n + z * z / (4 * n * n))
    low = 0.0 if share == 0.0 else min(share, max(0.0, centre - half))
    high = 1.0 if share == 1.0 else max(share, min(1.0, centre + half))
    return low, high


def _t_interval(data: list[float], mean: float, confidence: float) -> tuple[float, float]:
    """The Student-t interval ``mean ± t(1-α/2, n-1) · s/√n`` (at least two values)."""
    n = len(data)
    var = math.fsum((v - mean) ** 2 for v in data) / (n - 1)
    half = float(_scipy_stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * math.sqrt(var / n)
    return mean - half, mean + half


def _bootstrap(data: list[float], confidence: float, n_boot: int, seed: int) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean over ``n_boot`` resamples."""
    if n_boot < 1:
        raise ConfigError(f"n_boot {n_boot} must be positive", parameter="n_boot", valid=">= 1")
    n = len(data)
    rng = random.Random(seed)
    means = [math.fsum(rng.choices(data, k=n)) / n for _ in range(n_boot)]
    alpha = (1.0 - confidence) / 2.0
    low, high = (float(q) for q in np.quantile(means, [alpha, 1.0 - alpha]))
    return low, high


def per_formula(
    rows: Iterable[Row], metric: str | Metric, *, key: str | Sequence[str] = "formula"
) -> dict[Hashable, float]:
    """The metric averaged over each formula's rows (verbalizations and samples).

    ``key`` names the column that identifies a formula, or several columns whose
    values together identify a unit (``("model", "instance_id")`` pools models while
    keeping each model's answers to a formula one unit); the name ``formula`` stands for
    :func:`formula_unit` (the base formula). Formulas on which the metric
    applies to no row are left out; keys keep the order in which formulas first
    appear (a tuple of values when ``key`` names several columns).

    >>> rows = [{"instance_id": "a", "decision_correct": True},
    ...         {"instance_id": "a", "decision_correct": False},
    ...         {"instance_id": "b", "decision_correct": True}]
    >>> per_formula(rows, "accuracy")
    {'a': 0.5, 'b': 1.0}
    """
    fn = metric_value(metric)
    sums: dict[Hashable, list[float]] = {}
    for row in rows:
        value = fn(row)
        if value is None:
            continue
        unit = _field(row, key) if isinstance(key, str) else tuple(_field(row, k) for k in key)
        sums.setdefault(unit, []).append(value)
    return {k: math.fsum(v) / len(v) for k, v in sums.items()}


def _field(row: Row, name: str) -> Hashable:
    return formula_unit(row) if name == "formula" else row.get(name)


def aggregate(
    rows: Iterable[Row],
    metric: str | Metric,
    *,
    key: str | Sequence[str] = "formula",
    method: str = CI_METHOD,
    confidence: float = CONFIDENCE,
    n_boot: int = N_BOOT,
    seed: int = 0,
) -> Estimate:
    """Average per formula, then across formulas, with a confidence interval.

    >>> rows = [{"instance_id": i, "decision_correct": c}
    ...         for i, c in [("a", True), ("a", True), ("b", False), ("b", True)]]
    >>> e = aggregate(rows, "accuracy")
    >>> e.mean, e.n, e.n_obs
    (0.75, 2, 4)
    """
    fn = metric_value(metric)
    materialized = list(rows)
    values = per_formula(materialized, fn, key=key)
    n_obs = sum(1 for row in materialized if fn(row) is not None)
    return mean_ci(
        list(values.values()),
        confidence=confidence,
        method=method,
        n_boot=n_boot,
        seed=seed,
        n_obs=n_obs,
    )


def group_rows(rows: Iterable[Row], keys: Sequence[str]) -> dict[tuple[Hashable, ...], list[Row]]:
    """Rows grouped by the values of ``keys`` (missing keys group as ``None``).

    >>> groups = group_rows([{"m": 1, "x": 0}, {"m": 2}, {"m": 1}], ["m"])
    >>> {k: len(v) for k, v in groups.items()}
    {(1,): 2, (2,): 1}
    """
    groups: dict[tuple[Hashable, ...], list[Row]] = defaultdict(list)
    for row in rows:
        groups[tuple(row.get(k) for k in keys)].append(row)
    return dict(groups)


def model_order(rows: Iterable[Row], models: Sequence[str] = ()) -> list[str]:
    """The models of ``rows``: those of ``models`` first, in that order, then the others
    in order of appearance (a model of ``models`` without rows is left out).

    >>> model_order([{"model": "b"}, {"model": "a"}, {"model": "b"}], ["a", "c"])
    ['a', 'b']
    """
    present = list(dict.fromkeys(str(row.get("model")) for row in rows))
    return [m for m in models if m in present] + [m for m in present if m not in models]


def rows_by_model(rows: Iterable[Row], models: Sequence[str] = ()) -> list[tuple[str, list[Row]]]:
    """Each model of ``rows``, in :func:`model_order`, with its rows.

    >>> rows = [{"model": "b"}, {"model": "a"}, {"model": "b"}]
    >>> [(model, len(mine)) for model, mine in rows_by_model(rows, ["a"])]
    [('a', 1), ('b', 2)]
    """
    data = list(rows)
    groups: dict[str, list[Row]] = {}
    for row in data:
        groups.setdefault(str(row.get("model")), []).append(row)
    return [(m, groups[m]) for m in model_order(data, models)]


def failure_breakdown(rows: Iterable[Row]) -> dict[str, int]:
    """How many rows fall in each failure kind, sorted by kind.

    >>> failure_breakdown([{"failure": "truncated"}, {"failure": "correct"}, {}])
    {'correct': 1, 'truncated': 1, 'unknown': 1}
    """
    counts = Counter(str(row.get("failure") or "unknown") for row in rows)
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class FlipRate:
    """Pairs of (reference, variant) answers whose correctness changed.

    ``broken`` counts pairs that went from correct to incorrect, ``fixed`` the other
    direction; unchanged pairs stay in the denominator ``pairs``.
    """

    pairs: int
    broken: int
    fixed: int

    @property
    def flips(self) -> int:
        """Pairs whose correctness changed, in either direction."""
        return self.broken + self.fixed

    @property
    def rate(self) -> float | None:
        """``flips / pairs``, or ``None`` without pairs.

        >>> FlipRate(pairs=4, broken=1, fixed=1).rate
        0.5
        """
        return self.flips / self.pairs if self.pairs else None

    def to_json(self) -> dict[str, Any]:
        """The flip rate as a JSON-ready dict.

        >>> FlipRate(2, 1, 0).to_json()["flips"]
        1
        """
        return fields_json(self, then=("flips", "rate"))


def _count_flips(pairs: Iterable[tuple[Row, Row]], fn: Metric) -> FlipRate:
    total = broken = fixed = 0
    for reference, variant in pairs:
        before, after = fn(reference), fn(variant)
        if before is None or after is None:
            continue
        total += 1
        if before > after:
            broken += 1
        elif after > before:
            fixed += 1
    return FlipRate(total, broken, fixed)


def flip_rate(rows: Iterable[Row], *, metric: str | Metric = "success") -> FlipRate:
    """Flip rate between base instances and their perturbed variants.

    A variant row (one whose ``base_id`` names another instance) is paired with the
    base instance's row of the same model, template and sample; the rate is the
    share of pairs whose correctness differs.

    >>> base = {"instance_id": "b", "model": "m", "template": "logic", "sample": 0,
    ...         "label": "UNSAT", "decision_correct": True}
    >>> variant = dict(base, instance_id="v", base_id="b", decision_correct=False)
    >>> flip_rate([base, variant]).to_json()
    {'pairs': 1, 'broken': 1, 'fixed': 0, 'flips': 1, 'rate': 1.0}
    """
    fn = metric_value(metric)
    materialized = list(rows)
    index = {
        (row["instance_id"], row.get("model"), row.get("template"), row.get("sample")): row
        for row in materialized
    }
    pairs = []
    for row in materialized:
        base_id = row.get("base_id")
        if not base_id or base_id == row["instance_id"]:
            continue
        reference = index.get((base_id, row.get("model"), row.get("template"), row.get("sample")))
        if reference is not None:
            pairs.append((reference, row))
    return _count_flips(pairs, fn)


def verbalization_flip_rate(
    rows: Iterable[Row], *, reference: str = "logic", metric: str | Metric = "success"
) -> FlipRate:
    """Flip rate between a formula's ``reference`` verbalization and each other one.

    Each row of another template is paired with the row of the same instance, model
    and sample under the ``reference`` template.

    >>> a = {"instance_id": "i", "model": "m", "template": "logic", "sample": 0,
    ...      "label": "UNSAT", "decision_correct": False}
    >>> b = dict(a, template="team", decision_correct=True)
    >>> verbalization_flip_rate([a, b]).fixed
    1
    """
    fn = metric_value(metric)
    materialized = list(rows)
    index = {
        (row["instance_id"], row.get("model"), row.get("sample")): row
        for row in materialized
        if row.get("template") == reference
    }
    pairs = []
    for row in materialized:
        if row.get("template") == reference:
            continue
        base = index.get((row["instance_id"], row.get("model"), row.get("sample")))
        if base is not None:
            pairs.append((base, row))
    return _count_flips(pairs, fn)


def decision_consistency(
    rows: Iterable[Row], *, method: str = CI_METHOD, seed: int = 0
) -> Estimate:
    """How consistently a model decides the same formula across its verbalizations.

    For each (model, instance), the share of its rows that give its most common
    decision; a row without a decision gives none, so it counts against the share and
    never makes a majority (a model that never answers is 0 % consistent, not 100 %).
    The instances of one base formula (:func:`formula_unit`: its perturbed variants,
    edits and twin, each decided on its own) are averaged first, as every metric is:
    the interval is across (model, base formula) units, ``n`` of them.

    >>> rows = [{"instance_id": "a", "model": "m", "decision": d}
    ...         for d in ["SAT", "SAT", "UNSAT", None]]
    >>> decision_consistency(rows).mean
    0.5
    >>> decision_consistency([{"instance_id": "a", "model": "m", "decision": None}] * 3).mean
    0.0
    >>> variant = {"instance_id": "a~1", "base_id": "a", "model": "m", "decision": "SAT"}
    >>> decision_consistency([*rows, variant, variant]).n
    1
    """
    groups = group_rows(rows, ["model", "instance_id"])
    per_formula_shares: dict[tuple[Hashable, Hashable], list[float]] = {}
    for (model, _), members in groups.items():
        counts = Counter(row.get("decision") for row in members if row.get("decision") is not None)
        unit = (model, formula_unit(members[0]))
        per_formula_shares.setdefault(unit, []).append(
            max(counts.values(), default=0) / len(members)
        )
    shares = [math.fsum(v) / len(v) for v in per_formula_shares.values()]
    return mean_ci(shares, method=method, seed=seed, n_obs=sum(len(m) for m in groups.values()))


def summarize(rows: Iterable[Row], *, method: str = CI_METHOD, seed: int = 0) -> dict[str, Any]:
    """Every metric of :data:`METRICS`, the failure breakdown, the row count and the
    number of base formulas (:func:`formula_unit`, the ``n`` of the metrics).

    >>> summary = summarize([{"instance_id": "a", "label": "UNSAT", "decision": "UNSAT",
    ...                       "decision_correct": True, "failure": "correct"}])
    >>> summary["rows"], summary["metrics"]["accuracy_unsat"].mean
    (1, 1.0)
    """
    materialized = list(rows)
    return {
        "rows": len(materialized),
        "formulas": len({formula_unit(row) for row in materialized}),
        "metrics": {
            name: aggregate(materialized, fn, method=method, seed=seed)
            for name, fn in METRICS.items()
        },
        "failures": failure_breakdown(materialized),
    }


_FLAGS = ("decision_correct", "truncated", "lenient_decision_correct")
_OPTIONAL_FLAGS = ("witness_valid", "lenient_witness_valid")
_WITNESS_KINDS = ("missing-witness", "bad-json", "invalid-witness")


def _is_flag(value: object, *, optional: bool) -> bool:
    if value is None:
        return optional
    return value is True or value is False or (type(value) is int and value in (0, 1))


def _fits(row: Row, failure: object, decided: bool, witness: object) -> bool:
    """Whether the failure kind agrees with the decision and witness flags."""
    if row.get("question_type") not in (None, "decision"):
        return decided == (failure == "correct")
    sat = _is(row, "SAT")
    if failure == "correct":
        return decided and (not sat or bool(witness))
    if failure in _WITNESS_KINDS:
        return decided and sat and not witness
    return not decided


def _check_question_type(kind: object, number: int | None) -> None:
    """Refuse a ``question_type`` that is not a question type (``None`` is the decision)."""
    from twosat_formal.solve.questions import QUESTION_TYPES

    if kind is not None and kind not in QUESTION_TYPES:
        raise RecordError(
            f"question_type is {kind!r}, not one of {', '.join(QUESTION_TYPES)}", line=number
        )


def check_row(row: Row, number: int | None = None) -> None:
    """Refuse a result row whose flags are not 0/1 or disagree with its failure kind.

    ``decision_correct``, ``truncated`` and the lenient decision flag are booleans (or
    0/1); the witness flags are booleans or null (a text such as ``'NaN'`` is neither).
    The failure kind decides them: ``correct`` means a right decision and, on SAT, a
    valid witness; a witness failure means a right decision and an invalid witness;
    every other kind means a wrong decision. A row of another question type
    (``question_type`` ``forced`` or ``entails``) has no witness: ``correct`` alone
    means a right answer. ``question_type`` is one of the question types, or absent.

    >>> check_row({"failure": "correct", "label": "UNSAT", "decision_correct": True})
    >>> check_row({"failure": "correct", "label": "SAT", "decision_correct": True,
    ...            "question_type": "forced"})
    >>> check_row({"failure": "correct", "decision_correct": "NaN"}, 3)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: 3: decision_correct is 'NaN', not true/false or 0/1
    """
    for name in (*_FLAGS, *_OPTIONAL_FLAGS):
        if name in row and not _is_flag(row[name], optional=name in _OPTIONAL_FLAGS):
            raise RecordError(f"{name} is {row[name]!r}, not true/false or 0/1", line=number)
    _check_question_type(row.get("question_type"), number)
    failure = row.get("failure")
    if failure is None or "decision_correct" not in row:
        return
    witness = row.get("witness_valid")
    if not _fits(row, failure, bool(row["decision_correct"]), witness):
        raise RecordError(
            f"failure {failure!r} disagrees with decision_correct={row['decision_correct']!r}"
            f" and witness_valid={witness!r}",
            line=number,
        )


def _joined_row(row: Row, record: Mapping[str, Any], instance_id: str) -> dict[str, Any]:
    """The row with its instance record's metadata (the labels must agree)."""
    if row.get("label") is not None and record.get("label") not in (None, row.get("label")):
        raise RecordError(
            f"result row of instance {instance_id!r} has label {row.get('label')!r}, "
            f"but the certified dataset says {record.get('label')!r}"
        )
    out = dict(row)
    out.setdefault("label", record.get("label"))
    out["family"] = record.get("family")
    out["num_clauses"] = record.get("num_clauses")
    out["num_vars"] = record.get("num_vars")
    out["params"] = dict(record.get("params") or {})
    out["base_id"] = record.get("base_id")
    out["transforms"] = list(record.get("transforms") or [])
    out["twin_of"] = record.get("twin_of")
    out["measures"] = record.get("measures")
    return out


def _add_design(out: dict[str, Any], design: Mapping[str, Any], instance_id: str) -> None:
    """Add the instance's design fields the row lacks; its level must be a finite number."""
    for field, value in design.items():
        out.setdefault(field, value)
    level = out.get("level")
    if level is not None and (
        isinstance(level, bool) or not isinstance(level, int | float) or not math.isfinite(level)
    ):
        raise RecordError(
            f"design of instance {instance_id!r} has level {level!r}, not a finite number"
        )


def join_instances(
    rows: Iterable[Row],
    instances: Mapping[str, Mapping[str, Any]] | Iterable[Mapping[str, Any]],
    *,
    design: Mapping[str, Mapping[str, Any]] | None = None,
    strict: bool = True,
    lines: Sequence[int] | None = None,
    source: str | None = None,
) -> list[dict[str, Any]]:
    """Rows joined with their instance's metadata (and experiment design, if given).

    ``instances`` maps instance ids to instance records (or is an iterable of records
    with an ``id``). Each joined row gains ``family``, ``num_clauses``, ``num_vars``,
    ``params``, ``base_id``, ``transforms``, ``twin_of`` and ``measures`` (the
    structural measures, ``None`` for a record without them); a ``design`` record for the instance
    adds its fields (``experiment``, ``clauses``, ``knob``, ``level``, ``arm``,
    ``replicate``...) without overwriting the row's own columns. A row whose instance
    is unknown raises :class:`RecordError` when ``strict``, and is dropped otherwise.

    A refused row is named by ``source`` (the file the rows come from) and its line:
    ``lines[i]`` for the ``i``-th row (the rows' lines in that file), else its number
    among the rows, from 1.

    >>> joined = join_instances(
    ...     [{"instance_id": "a", "decision_correct": True}],
    ...     [{"id": "a", "family": "backbone", "num_clauses": 20, "params": {}}])
    >>> joined[0]["family"], joined[0]["num_clauses"], joined[0]["base_id"]
    ('backbone', 20, None)
    """
    if isinstance(instances, Mapping):
        table: Mapping[str, Mapping[str, Any]] = instances
    else:
        table = {str(record["id"]): record for record in instances}
    joined: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        number = lines[index] if lines is not None else index + 1
        instance_id = str(row.get("instance_id"))
        record = table.get(instance_id)
        try:
            if record is None:
                if strict:
                    raise RecordError(f"result row for unknown instance {instance_id!r}")
                continue
            check_row(row)
            out = _joined_row(row, record, instance_id)
            if design is not None and instance_id in design:
                _add_design(out, design[instance_id], instance_id)
        except RecordError as exc:
            raise RecordError(exc.args[0], line=number, source=source) from None
        joined.append(out)
    return joined
