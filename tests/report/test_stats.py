"""Significance tests against textbook values and hand computation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import false_discovery_control

from twosat_formal.errors import ConfigError
from twosat_formal.report.stats import (
    TestResult,
    adjust_within_families,
    benjamini_hochberg,
    friedman,
    independent_t,
    paired_t,
)

# Student's sleep data (Cushny & Peebles 1905), as shipped with R: extra hours of sleep.
SLEEP_1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
SLEEP_2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]


def _ranks(row: list[float]) -> list[float]:
    order = sorted(range(len(row)), key=lambda i: row[i])
    ranks = [0.0] * len(row)
    for position, i in enumerate(order, start=1):
        ranks[i] = float(position)
    return ranks


def _friedman_by_hand(table: list[list[float]]) -> float:
    """Friedman's Q without ties: 12/(n k (k+1)) Σ R_j² − 3 n (k+1)."""
    n, k = len(table), len(table[0])
    sums = [sum(col) for col in zip(*(_ranks(r) for r in table), strict=True)]
    return 12.0 / (n * k * (k + 1)) * sum(s * s for s in sums) - 3.0 * n * (k + 1)


def test_friedman_textbook_example() -> None:
    # scipy's documented example (blood pressure before/after): Q = 10.571, p = 0.00506.
    before = [72, 96, 88, 92, 74, 76, 82]
    five = [120, 120, 132, 120, 101, 96, 112]
    fifteen = [76, 95, 104, 96, 84, 72, 76]
    table = [list(t) for t in zip(before, five, fifteen, strict=True)]
    result = friedman(table, label="bp", family="demo")
    assert result.test == "Friedman" and result.n == 7 and result.df == 2.0
    assert result.statistic == pytest.approx(10.571428571428571)
    assert result.p_value == pytest.approx(0.005063414171757498)
    assert (result.label, result.family) == ("bp", "demo")


@given(
    st.integers(2, 8).flatmap(
        lambda n: st.lists(st.permutations([0.0, 1.0, 2.0]), min_size=n, max_size=n)
    )
)
def test_friedman_matches_hand_formula_without_ties(table: list[list[float]]) -> None:
    q = _friedman_by_hand(table)
    result = friedman(table)
    assert result.statistic == pytest.approx(q)
    # With k = 3 levels the χ² survival function with 2 df is exp(-Q/2).
    assert result.p_value == pytest.approx(math.exp(-q / 2))
    assert result.n == len(table)


def test_friedman_tie_correction_by_hand() -> None:
    # Blocks [0, 0, 1]: ranks [1.5, 1.5, 3]; Q = 4.5, tie factor 1 − 3·6/(3·24) = 0.75.
    result = friedman([[0, 0, 1]] * 3)
    assert result.statistic == pytest.approx(6.0)
    assert result.p_value == pytest.approx(math.exp(-3.0))


def test_friedman_all_tied_found_nothing() -> None:
    result = friedman([[1, 1, 1], [0, 0, 0]])
    assert (result.statistic, result.p_value, result.n) == (0.0, 1.0, 0)
    assert result.defined and "no variation" in result.note


@given(
    st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=2, max_size=8),
    st.integers(1, 4),
)
def test_friedman_counts_only_informative_blocks(table: list[list[int]], tied: int) -> None:
    informative = [row for row in table if len(set(row)) > 1]
    padded = [*table, *([[2, 2, 2, 2]] * tied)]
    result = friedman(padded)
    assert result.n == len(informative)
    if not informative:
        assert result.p_value == 1.0
        return
    if len(informative) >= 2:
        expected = friedman(informative)
        assert result.p_value == pytest.approx(expected.p_value)
    assert f"{len(padded) - len(informative)} tied blocks dropped" in result.note


def test_friedman_refuses_bad_shapes() -> None:
    with pytest.raises(ConfigError):
        friedman([[1, 2], [2, 1]])  # two levels
    with pytest.raises(ConfigError):
        friedman([[1, 2, 3]])  # one block
    with pytest.raises(ConfigError):
        friedman([[1, 2, float("nan")], [1, 2, 3]])


def test_paired_t_sleep_data() -> None:
    # R: t.test(extra ~ group, data = sleep, paired = TRUE): t = -4.0621, df = 9,
    # p-value = 0.002833.
    result = paired_t(SLEEP_1, SLEEP_2)
    assert result.test == "paired t-test" and result.n == 10 and result.df == 9.0
    assert result.statistic == pytest.approx(-4.0621, abs=1e-4)
    assert result.p_value == pytest.approx(0.002833, abs=1e-6)


def test_paired_t_by_hand() -> None:
    # differences 1, 2, 3, 4: mean 2.5, sd sqrt(5/3); t = 2.5 / (sd / 2) = 3.873.
    result = paired_t([1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0])
    assert result.statistic == pytest.approx(2.5 / (math.sqrt(5 / 3) / 2))


def test_independent_t_sleep_data() -> None:
    # R: t.test(extra ~ group, data = sleep, var.equal = TRUE): t = -1.8608, df = 18,
    # p-value = 0.07919; Welch: df = 17.776, p-value = 0.07939.
    student = independent_t(SLEEP_1, SLEEP_2)
    assert student.test == "independent t-test (Student)"
    assert (student.n, student.df) == (20, 18.0)
    assert student.statistic == pytest.approx(-1.8608, abs=1e-4)
    assert student.p_value == pytest.approx(0.07919, abs=1e-5)
    welch = independent_t(SLEEP_1, SLEEP_2, equal_var=False)
    assert welch.test == "independent t-test (Welch)"
    assert welch.df == pytest.approx(17.776, abs=1e-3)
    assert welch.p_value == pytest.approx(0.07939, abs=1e-5)
    assert dict(welch.extra)["n_a"] == 10


def test_t_tests_on_constant_data() -> None:
    # 100 % against 0 % on every unit: the strongest effect, not a missing one; its p
    # is exact: 2 of the 2**3 sign flips are as extreme
    strongest = paired_t([1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
    assert (strongest.statistic, strongest.p_value) == (math.inf, 0.25)
    assert "constant non-zero difference" in strongest.note
    assert strongest.to_json()["statistic"] is None and strongest.to_json()["p_value"] == 0.25
    assert paired_t([0.0, 1.0], [1.0, 2.0]).statistic == -math.inf
    none = paired_t([1.0, 0.0], [1.0, 0.0])
    assert (none.statistic, none.p_value, none.note) == (0.0, 1.0, "no variation")
    apart = independent_t([1.0, 1.0], [0.0, 0.0])  # 2 of the C(4, 2) splits
    assert (apart.p_value, apart.df) == (pytest.approx(2 / 6), 2.0)
    assert independent_t([1.0] * 3, [0.0] * 2).p_value == pytest.approx(1 / 10)
    assert independent_t([1.0, 1.0], [1.0, 1.0], equal_var=False).p_value == 1.0
    with pytest.raises(ConfigError):
        paired_t([1.0, 2.0], [1.0])
    with pytest.raises(ConfigError):
        paired_t([1.0], [2.0])
    with pytest.raises(ConfigError):
        independent_t([1.0], [2.0, 3.0])


def test_benjamini_hochberg_known_values() -> None:
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # R: p.adjust(c(0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205), "BH")
    raw = [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205]
    expected = [0.008, 0.032, 0.0672, 0.0672, 0.0672, 0.08, 0.08457143, 0.205]
    assert benjamini_hochberg(raw) == pytest.approx(expected, abs=1e-7)
    assert benjamini_hochberg([]) == []
    with pytest.raises(ConfigError):
        benjamini_hochberg([1.5])


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_benjamini_hochberg_matches_scipy(ps: list[float]) -> None:
    ours = benjamini_hochberg(ps)
    assert ours == pytest.approx(list(false_discovery_control(np.array(ps))), abs=1e-12)
    for raw, adjusted in zip(ps, ours, strict=True):
        assert raw <= adjusted + 1e-15 and adjusted <= 1.0
    # Monotone: a smaller raw p-value never gets a larger adjusted one.
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(ours[a] <= ours[b] + 1e-15 for a, b in itertools.pairwise(order))


def test_adjust_within_families_keeps_families_apart() -> None:
    results = [
        TestResult("Friedman", 10, 1.0, 0.01, family="backbone"),
        TestResult("Friedman", 10, 1.0, 0.04, family="backbone"),
        TestResult("Friedman", 10, float("nan"), float("nan"), family="backbone"),
        TestResult("Friedman", 10, 1.0, 0.04, family="mono-bridge"),
    ]
    adjusted = adjust_within_families(results)
    assert [r.p_adjusted for r in adjusted[:2]] == pytest.approx([0.02, 0.04])
    # a test without variation has p = 1 and counts in its family
    lone = adjust_within_families(
        [
            TestResult("Friedman", 10, 1.0, 0.01, family="f"),
            friedman([[1, 1, 1], [0, 0, 0]], family="f"),
            friedman([[0, 0, 0], [1, 1, 1]], family="f"),
        ]
    )
    assert [r.p_adjusted for r in lone] == pytest.approx([0.03, 1.0, 1.0])
    assert adjusted[2].p_adjusted is not None and math.isnan(adjusted[2].p_adjusted)
    assert adjusted[3].p_adjusted == pytest.approx(0.04)
    assert adjusted[0].to_json()["p_adjusted"] == pytest.approx(0.02)
    assert adjusted[2].to_json()["p_value"] is None


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("q", [0.1, 0.25, 0.4, 0.5])
def test_the_paired_t_test_on_constant_differences_keeps_its_level(n: int, q: float) -> None:
    """Under a true null, differences of discrete successes are symmetric: +d and -d
    each with probability q, 0 otherwise. Every outcome is enumerated; the outcomes with
    a constant non-zero difference must reject at .05 with probability at most .05 (a p
    of 0 made three pairs reject a quarter of the time at q = 1/2)."""
    rejected = 0.0
    for signs in itertools.product((-1.0, 1.0), repeat=n):
        result = paired_t(list(signs), [0.0] * n) if len(set(signs)) == 1 else None
        if result is not None and result.p_value <= 0.05:
            rejected += q**n
    assert rejected <= 0.05


@pytest.mark.parametrize(("n_a", "n_b"), [(2, 2), (2, 3), (3, 3), (2, 5), (4, 4), (5, 5)])
@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
def test_the_independent_t_test_on_constant_groups_keeps_its_level(
    n_a: int, n_b: int, p: float
) -> None:
    """Both groups draw 0/1 successes with one rate under the null; the outcomes where
    each group is constant and the two differ must reject with probability at most .05."""
    rejected = 0.0
    for a_value, b_value in ((1.0, 0.0), (0.0, 1.0)):
        result = independent_t([a_value] * n_a, [b_value] * n_b)
        if result.p_value <= 0.05:
            chance = (p if a_value else 1 - p) ** n_a * (p if b_value else 1 - p) ** n_b
            rejected += chance
    assert rejected <= 0.05
    assert result.statistic in (math.inf, -math.inf) and "constant non-zero" in result.note
