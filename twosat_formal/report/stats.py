"""Significance tests of the report: a permutation test over formulas across knob levels,
paired and independent t-tests, Friedman's test and Benjamini–Hochberg.

Every test returns a :class:`TestResult` that carries the test's name, the number of
observations ``n`` it used (formulas for the permutation test, informative blocks for
Friedman, pairs for the paired t-test, both group sizes for the independent one), the
statistic, its degrees of freedom and the p-value.

Data without variation is a test that found nothing, not a missing test: every block
tied, or every difference zero, gives statistic 0 and p = 1 (with a ``note``), and
it counts in the Benjamini–Hochberg family like any other test. A constant non-zero
difference (every pair 100 % against 0 %) is the strongest effect the data can show:
the statistic is infinite, and p is the exact randomization p-value of that extreme
(the share of sign flips of the pairs, or of splits of the units into the two groups,
that are as extreme: ``2 / 2**n`` for ``n`` pairs), which keeps the test's level where
a p of 0 would not (three pairs of discrete successes reject a true null a quarter of
the time at p = 0). Only a test that could not be run at all (too few blocks or pairs)
has ``nan``, and :func:`benjamini_hochberg` leaves it out.

Examples
--------
>>> r = paired_t([1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0])
>>> r.test, r.n, r.df, round(r.statistic, 4)
('paired t-test', 4, 3.0, 3.873)
>>> [round(p, 6) for p in benjamini_hochberg([0.01, 0.04, 0.03, 0.005])]
[0.02, 0.04, 0.04, 0.02]
>>> paired_t([1.0, 1.0, 1.0], [0.0, 0.0, 0.0]).p_value
0.25
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy import stats as _stats

from twosat_formal.errors import ConfigError

__all__ = [
    "PERMUTATION_TEST",
    "LevelUnit",
    "TestResult",
    "adjust_within_families",
    "benjamini_hochberg",
    "friedman",
    "independent_t",
    "paired_t",
    "permutation_levels",
]

#: The name :func:`permutation_levels` gives its results.
PERMUTATION_TEST = "permutation test over formulas"

#: Monte Carlo permutations of :func:`permutation_levels` when exact enumeration
#: would need more arrangements than this.
PERMUTATIONS = 9999

NAN = float("nan")


@dataclass(frozen=True)
class TestResult:
    """One significance test: its name, size, statistic and p-value.

    ``p_adjusted`` is filled by :func:`adjust_within_families` (Benjamini–Hochberg
    within the test's ``family``); ``label`` says what was compared.
    """

    __test__ = False  # not a pytest test class

    test: str
    n: int
    statistic: float
    p_value: float
    df: float | None = None
    label: str = ""
    family: str = ""
    p_adjusted: float | None = None
    note: str = ""
    extra: tuple[tuple[str, Any], ...] = ()

    @property
    def defined(self) -> bool:
        """Whether the p-value is a number (not ``nan``).

        >>> TestResult("x", 3, float("nan"), float("nan")).defined
        False
        """
        return not math.isnan(self.p_value)

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (``nan`` and ``inf`` become ``None``: an
        infinite statistic is the constant non-zero difference its ``note`` names).

        >>> TestResult("paired t-test", 5, 1.5, 0.2, df=4.0).to_json()["n"]
        5
        """

        def num(x: float | None) -> float | None:
            return None if x is None or not math.isfinite(x) else float(x)

        return {
            "test": self.test,
            "label": self.label,
            "family": self.family,
            "n": self.n,
            "statistic": num(self.statistic),
            "df": num(self.df),
            "p_value": num(self.p_value),
            "p_adjusted": num(self.p_adjusted),
            "note": self.note,
            **dict(self.extra),
        }


def _floats(values: Sequence[float], name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ConfigError(f"{name} must be a flat sequence of numbers", parameter=name)
    if not np.all(np.isfinite(arr)):
        raise ConfigError(f"{name} holds a non-finite value", parameter=name, valid="finite")
    return arr


def friedman(table: Sequence[Sequence[float]], *, label: str = "", family: str = "") -> TestResult:
    """Friedman's test for repeated measurements across k >= 3 levels.

    ``table`` has one row per block and one column per level; blocks must be
    independent units matched across the levels. A knob sweep has none: its levels draw
    different formulas, and models (or model × template) answering the same formulas are
    not independent blocks, so the report tests knob levels with
    :func:`permutation_levels` instead.

    The statistic is tie-corrected (:func:`scipy.stats.friedmanchisquare`) with
    ``k - 1`` degrees of freedom. A block whose values are all tied carries no
    information about the levels: it is left out, ``n`` counts the others and the
    ``note`` says how many were dropped. Without any informative block the test found
    nothing: statistic 0, p = 1.

    >>> r = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [1, 2, 3], [5, 5, 5]])
    >>> r.n, r.df, round(r.statistic, 2), round(r.p_value, 4), r.note
    (4, 2.0, 6.5, 0.0388, '1 tied blocks dropped')
    >>> friedman([[1, 1, 1], [0, 0, 0]]).p_value
    1.0
    """
    arr = np.asarray(table, dtype=float)
    if arr.ndim != 2 or arr.shape[1] < 3 or arr.shape[0] < 2:
        shape = "x".join(str(s) for s in arr.shape)
        raise ConfigError(
            f"Friedman's test needs at least 2 blocks and 3 levels, got {shape}",
            parameter="table",
            valid="blocks x levels, blocks >= 2, levels >= 3",
        )
    if not np.all(np.isfinite(arr)):
        raise ConfigError("table holds a non-finite value", parameter="table", valid="finite")
    k = arr.shape[1]
    informative = arr[~np.all(arr == arr[:, :1], axis=1)]
    dropped = arr.shape[0] - informative.shape[0]
    note = f"{dropped} tied blocks dropped" if dropped else ""
    if informative.shape[0] == 0:
        return TestResult(
            "Friedman",
            0,
            0.0,
            1.0,
            float(k - 1),
            label,
            family,
            note="all tied: no variation",
            extra=(("levels", k), ("blocks", arr.shape[0])),
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stat, p = _stats.friedmanchisquare(*informative.T)
    return TestResult(
        "Friedman",
        informative.shape[0],
        float(stat),
        float(p),
        float(k - 1),
        label,
        family,
        note=note,
        extra=(("levels", k), ("blocks", arr.shape[0])),
    )


def _sorted(items: set[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def paired_t(
    a: Sequence[float], b: Sequence[float], *, label: str = "", family: str = ""
) -> TestResult:
    """Paired t-test of ``a`` against ``b`` (same units in the same order).

    Used for construction order against shuffled (§5.3) and for fillers (§5.2).

    >>> before = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    >>> after = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    >>> r = paired_t(before, after)
    >>> round(r.statistic, 4), r.df, round(r.p_value, 6)
    (-4.0621, 9.0, 0.002833)
    """
    x, y = _floats(a, "a"), _floats(b, "b")
    if len(x) != len(y):
        raise ConfigError(
            f"paired samples differ in length ({len(x)} and {len(y)})",
            parameter="b",
            valid=f"{len(x)} values",
        )
    n = len(x)
    if n < 2:
        raise ConfigError(
            f"a paired t-test needs at least 2 pairs, got {n}", parameter="a", valid=">= 2"
        )
    diff = x - y
    extra = (("mean_a", float(x.mean())), ("mean_b", float(y.mean())))
    if np.all(diff == diff[0]):
        stat, p, note = _constant(float(diff[0]), 2.0 / 2.0**n, "sign flips")
        return TestResult(
            "paired t-test", n, stat, p, float(n - 1), label, family, note=note, extra=extra
        )
    res = _stats.ttest_rel(x, y)
    return TestResult(
        "paired t-test",
        n,
        float(res.statistic),
        float(res.pvalue),
        float(n - 1),
        label,
        family,
        extra=extra,
    )


def _constant(difference: float, extreme: float, exact: str) -> tuple[float, float, str]:
    """Statistic, p and note of a t-test whose data has no spread: no difference is
    no effect (p = 1); a constant non-zero difference is the most extreme arrangement,
    and its p is ``extreme``, the share of the ``exact`` randomizations (sign flips of
    the pairs, splits of the units) as extreme as it, which keeps the level.

    >>> _constant(0.0, 0.25, "sign flips")
    (0.0, 1.0, 'no variation')
    >>> _constant(-0.5, 0.25, "sign flips")
    (-inf, 0.25, 'constant non-zero difference; exact p over its sign flips')
    """
    if difference == 0.0:
        return 0.0, 1.0, "no variation"
    note = f"constant non-zero difference; exact p over its {exact}"
    return math.copysign(math.inf, difference), min(1.0, extreme), note


def independent_t(
    a: Sequence[float],
    b: Sequence[float],
    *,
    equal_var: bool = True,
    label: str = "",
    family: str = "",
) -> TestResult:
    """Independent two-sample t-test (Student; Welch with ``equal_var=False``).

    Used for the duplication layouts (§5.4). ``n`` is the total of both groups and
    the group sizes are in ``extra``.

    >>> g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    >>> g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    >>> r = independent_t(g1, g2)
    >>> r.test, r.n, r.df, round(r.statistic, 4), round(r.p_value, 5)
    ('independent t-test (Student)', 20, 18.0, -1.8608, 0.07919)
    """
    x, y = _floats(a, "a"), _floats(b, "b")
    if len(x) < 2 or len(y) < 2:
        raise ConfigError(
            f"an independent t-test needs at least 2 values per group, got {len(x)} and {len(y)}",
            parameter="a",
            valid=">= 2 per group",
        )
    name = "independent t-test (Student)" if equal_var else "independent t-test (Welch)"
    extra = (
        ("n_a", len(x)),
        ("n_b", len(y)),
        ("mean_a", float(x.mean())),
        ("mean_b", float(y.mean())),
    )
    va, vb = float(x.var(ddof=1)), float(y.var(ddof=1))
    if equal_var:
        df = float(len(x) + len(y) - 2)
    else:
        qa, qb = va / len(x), vb / len(y)
        denom = qa**2 / (len(x) - 1) + qb**2 / (len(y) - 1)
        df = (qa + qb) ** 2 / denom if denom > 0 else NAN
    n = len(x) + len(y)
    if va == 0.0 and vb == 0.0:
        # the observed split, and its mirror when the groups are as large, are the
        # only ones of all C(n, len(x)) whose difference of means is as large
        extreme = (1 + (len(x) == len(y))) / math.comb(n, len(x))
        stat, p, note = _constant(float(x.mean() - y.mean()), extreme, "splits")
        df = float(len(x) + len(y) - 2) if math.isnan(df) else df
        return TestResult(name, n, stat, p, df, label, family, note=note, extra=extra)
    res = _stats.ttest_ind(x, y, equal_var=equal_var)
    return TestResult(
        name, n, float(res.statistic), float(res.pvalue), df, label, family, extra=extra
    )


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (:func:`scipy.stats.false_discovery_control`).

    ``nan`` entries (tests that could not be run) stay ``nan`` and do not count
    towards the number of tests; a test without variation has p = 1 and counts.

    >>> [round(p, 6) for p in benjamini_hochberg([0.04, float("nan"), 0.01, 1.0])]
    [0.06, nan, 0.03, 1.0]
    """
    values = np.asarray(p_values, dtype=float)
    if values.ndim != 1:
        raise ConfigError("p_values must be a flat sequence", parameter="p_values")
    defined = ~np.isnan(values)
    if np.any((values[defined] < 0.0) | (values[defined] > 1.0)):
        bad = values[defined][(values[defined] < 0.0) | (values[defined] > 1.0)][0]
        raise ConfigError(f"p-value {bad} out of range", parameter="p_values", valid="[0, 1]")
    adjusted = np.full(values.shape, NAN)
    if np.any(defined):
        adjusted[defined] = _stats.false_discovery_control(values[defined], method="bh")
    return [float(p) for p in adjusted]


def adjust_within_families(
    results: Sequence[TestResult], family_of: Callable[[TestResult], str] | None = None
) -> list[TestResult]:
    """Results with ``p_adjusted`` set by Benjamini–Hochberg inside each family of tests.

    The family of a result is ``family_of(result)``, by default its ``family`` field.

    >>> rs = [TestResult("t", 5, 1.0, p, family=f)
    ...       for p, f in [(0.01, "a"), (0.04, "a"), (0.04, "b")]]
    >>> [round(r.p_adjusted, 6) for r in adjust_within_families(rs)]
    [0.02, 0.04, 0.04]
    """
    key = family_of or (lambda r: r.family)
    members: dict[str, list[int]] = {}
    for i, result in enumerate(results):
        members.setdefault(key(result), []).append(i)
    out = list(results)
    for indices in members.values():
        adjusted = benjamini_hochberg([results[i].p_value for i in indices])
        for i, p in zip(indices, adjusted, strict=True):
            out[i] = replace(results[i], p_adjusted=p)
    return out


#: One unit of :func:`permutation_levels`: its stratum, its level, and its value per
#: series (a formula: its size, its knob level, and its success under each model).
LevelUnit = tuple[Hashable, float, Mapping[Hashable, float]]


def _level_strata(units: Sequence[LevelUnit]) -> dict[Hashable, list[LevelUnit]]:
    """The units by stratum, in order; a level or value that is not finite is refused
    (:class:`ConfigError`)."""
    strata: dict[Hashable, list[LevelUnit]] = {}
    for unit in units:
        stratum, level, values = unit
        if not math.isfinite(float(level)):
            raise ConfigError(f"level {level} is not finite", parameter="units")
        for name, value in values.items():
            if not math.isfinite(value):
                raise ConfigError(
                    f"value {value} of series {name!r} is not finite", parameter="units"
                )
        strata.setdefault(stratum, []).append(unit)
    return strata


def _levels_within(
    units: Sequence[LevelUnit], strata: Mapping[Hashable, Sequence[LevelUnit]]
) -> list[float]:
    """The levels of the units, sorted; refused (:class:`ConfigError`) unless some
    stratum holds two of them."""
    levels = _sorted({float(u[1]) for u in units})
    if not any(len({float(u[1]) for u in members}) > 1 for members in strata.values()):
        raise ConfigError(
            f"a permutation test needs 2 levels within a stratum, got {len(levels)} levels",
            parameter="units",
            valid=">= 2 levels",
        )
    return levels


def _arrangements_note(exact: int | None, permutations: int, seed: int, observed: float) -> str:
    """What a permutation test went over: all ``exact`` arrangements, else ``permutations``
    random ones from ``seed``; led by "no variation" when the statistic is 0.

    >>> _arrangements_note(90, 1000, 0, 4.0), _arrangements_note(None, 1000, 3, 0.0)
    ('exact over 90 arrangements', 'no variation; 1,000 random arrangements (seed 3)')
    """
    how = (
        f"exact over {exact:,} arrangements"
        if exact is not None
        else f"{permutations:,} random arrangements (seed {seed})"
    )
    return f"no variation; {how}" if observed == 0.0 else how


def _reaches(totals: np.ndarray, observed: float) -> int:
    """How many of the arrangements' ``totals`` reach the ``observed`` statistic (up to
    the rounding of a sum)."""
    return int(np.sum(totals >= observed - _TOLERANCE * max(1.0, abs(observed))))


def _exact_p_value(parts: Sequence[_Stratum], count: int, observed: float) -> float:
    """The share of all ``count`` arrangements of the strata's labels whose statistic
    reaches ``observed``."""
    totals = np.zeros(count)
    choices = [p.all_labels() for p in parts]
    sizes = [len(c) for c in choices]
    for p, c, index in zip(parts, choices, _product_indices(sizes), strict=True):
        totals += p.statistic(c)[index]
    return _reaches(totals, observed) / count


def _drawn_p_value(
    parts: Sequence[_Stratum], permutations: int, seed: int, observed: float
) -> float:
    """``(1 + hits) / (permutations + 1)`` over ``permutations`` arrangements drawn from
    ``seed`` (each stratum's labels permuted within it) and the observed one."""
    rng = np.random.default_rng(seed)
    totals = np.zeros(permutations)
    for p in parts:
        drawn = rng.permuted(np.tile(p.labels, (permutations, 1)), axis=1)
        totals += p.statistic(drawn)
    return (1 + _reaches(totals, observed)) / (permutations + 1)


def permutation_levels(
    units: Sequence[LevelUnit],
    *,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
    label: str = "",
    family: str = "",
) -> TestResult:
    """Permutation test of a difference between levels, with each unit exchangeable.

    Each unit (a formula) has a stratum (its size), a level (its knob level) and one
    value per series (its success under each model that answered it). The statistic is
    the between-level sum of squares, computed per stratum and series over the units
    that have the series, summed. Under the null hypothesis that the level does not
    matter, the level labels are exchangeable between the units of a stratum; a
    permutation moves a unit's label, and so all its series, together. The p-value is
    the share of arrangements whose statistic reaches the observed one: every
    arrangement when there are at most ``permutations`` of them (``exact`` in
    ``extra``), else ``permutations`` random ones drawn from ``seed`` plus the observed
    one, ``(1 + hits) / (permutations + 1)``. Both are exact-level tests.

    ``n`` is the number of units. Data without variation gives statistic 0 and p = 1.

    >>> units = [(0, lvl, {"m": float(lvl)}) for lvl in (0.0, 1.0, 2.0) for _ in range(2)]
    >>> r = permutation_levels(units)
    >>> r.n, r.statistic, round(r.p_value, 4), dict(r.extra)["arrangements"]
    (6, 4.0, 0.0667, 90)
    >>> permutation_levels([(0, lvl, {"m": 1.0}) for lvl in (0.0, 1.0, 1.0)]).p_value
    1.0
    """
    if permutations < 1:
        raise ConfigError("permutations must be positive", parameter="permutations", valid=">= 1")
    strata = _level_strata(units)
    levels = _levels_within(units, strata)
    series = _sorted({s for u in units for s in u[2]})
    parts = [_Stratum(members, series) for members in strata.values()]
    count = math.prod(p.arrangements for p in parts)
    observed = sum(float(p.statistic(p.labels[None, :])[0]) for p in parts)
    exact = count <= permutations
    if exact:
        p_value = _exact_p_value(parts, count, observed)
    else:
        p_value = _drawn_p_value(parts, permutations, seed, observed)
    note = _arrangements_note(count if exact else None, permutations, seed, observed)
    return TestResult(
        PERMUTATION_TEST,
        len(units),
        observed,
        min(1.0, p_value),
        None,
        label,
        family,
        note=note,
        extra=(
            ("unit", "formula"),
            ("levels", len(levels)),
            ("series", len(series)),
            ("strata", len(parts)),
            ("arrangements", count if exact else permutations),
            ("exact", exact),
        ),
    )


#: Relative tolerance under which a permuted statistic counts as reaching the observed
#: one (sums of squares of the same numbers in another order differ by rounding).
_TOLERANCE = 1e-9


class _Stratum:
    """The units of one stratum as arrays: level codes and a values x present matrix."""

    def __init__(self, members: Sequence[LevelUnit], series: Sequence[Hashable]) -> None:
        levels = _sorted({float(u[1]) for u in members})
        self.labels = np.array([levels.index(float(u[1])) for u in members])
        self.k = len(levels)
        self.present = np.array([[s in u[2] for s in series] for u in members], dtype=float)
        self.values = np.array([[u[2].get(s, 0.0) for s in series] for u in members])
        counts = np.bincount(self.labels, minlength=self.k)
        self.counts = counts
        self.arrangements = math.factorial(len(members)) // math.prod(
            math.factorial(int(c)) for c in counts
        )

    def statistic(self, labels: np.ndarray) -> np.ndarray:
        """Between-level sum of squares, summed over series, for each row of labels."""
        out = np.zeros(labels.shape[0])
        n = self.present.sum(axis=0)
        total = self.values.sum(axis=0)
        grand = np.divide(total**2, n, out=np.zeros_like(total), where=n > 0)
        for level in range(self.k):
            mask = (labels == level).astype(float)
            counts = mask @ self.present
            sums = mask @ self.values
            out += np.divide(sums**2, counts, out=np.zeros_like(sums), where=counts > 0).sum(axis=1)
        return out - grand.sum()

    def all_labels(self) -> np.ndarray:
        """Every distinct arrangement of the stratum's labels, one per row."""
        n = len(self.labels)
        rows: list[list[int]] = []

        def place(level: int, free: list[int], current: list[int]) -> None:
            if level == self.k:
                rows.append(current.copy())
                return
            for chosen in itertools.combinations(free, int(self.counts[level])):
                for i in chosen:
                    current[i] = level
                rest = [i for i in free if i not in chosen]
                place(level + 1, rest, current)

        place(0, list(range(n)), [0] * n)
        return np.array(rows, dtype=int)


def _product_indices(sizes: Sequence[int]) -> list[np.ndarray]:
    """For each factor, its index in every element of the product, in product order."""
    grids = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")
    return [g.ravel() for g in grids]
