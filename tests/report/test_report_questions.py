"""The question-types section: accuracy per base formula first, intervals across formulas."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from twosat_formal.report.questions import question_board, question_rows


def _wilson(share: float, n: int) -> tuple[float, float]:
    """The Wilson score interval written out here (independent of the report's code)."""
    z = norm.ppf(0.975)
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _row(iid: str, ok: bool, *, template: str = "logic", twin_of: str | None = None) -> dict:
    return {
        "instance_id": iid,
        "twin_of": twin_of,
        "model": "m",
        "family": "f",
        "template": template,
        "sample": 0,
        "question_type": "forced",
        "decision_correct": ok,
        "lenient_decision_correct": ok,
    }


answers = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 5), st.booleans()), min_size=1, max_size=40
)


@settings(max_examples=60, deadline=None)
@given(answers)
def test_accuracy_is_averaged_per_formula_with_the_interval_across_formulas(data) -> None:
    rows = [_row(f"i{f}", ok, template=f"t{t}") for f, t, ok in data]
    (row,) = question_rows(rows)
    per: dict[str, list[bool]] = {}
    for f, _, ok in data:
        per.setdefault(f"i{f}", []).append(ok)
    shares = [sum(v) / len(v) for v in per.values()]
    mean = sum(shares) / len(shares)
    assert row.answers == len(data)
    for estimate in (row.accuracy, row.lenient_accuracy):
        assert estimate.n == len(per) and estimate.n_obs == len(data)
        assert math.isclose(estimate.mean, mean)
        low, high = _wilson(mean, len(per))
        assert math.isclose(estimate.low, low, abs_tol=1e-12)
        assert math.isclose(estimate.high, high, abs_tol=1e-12)
    board = question_board(rows)["m · forced"]["strict"]
    assert board.n == len(per) and math.isclose(board.mean, mean)


def test_a_twin_is_the_same_formula_as_its_source() -> None:
    rows = [_row("s", True), _row("t", False, twin_of="s"), _row("u", True)]
    (row,) = question_rows(rows)
    assert (row.accuracy.n, row.accuracy.n_obs) == (2, 3)
    assert row.accuracy.mean == 0.75


def test_intervals_keep_their_coverage_when_formulas_differ() -> None:
    """Six formulas of very different difficulty, each asked in six renderings: the
    interval must cover the mean accuracy over formulas about 95% of the time (counting
    the 36 answers as independent trials covered it in about 65%)."""
    rng = random.Random(7)
    sd = 3.0
    population = [1 / (1 + math.exp(-rng.gauss(0, sd))) for _ in range(100_000)]
    truth = sum(population) / len(population)
    covered, studies = 0, 400
    for _ in range(studies):
        rows = []
        for f in range(6):
            p = 1 / (1 + math.exp(-rng.gauss(0, sd)))
            rows += [_row(f"i{f}", rng.random() < p, template=f"t{t}") for t in range(6)]
        (row,) = question_rows(rows)
        covered += row.accuracy.low <= truth <= row.accuracy.high
    assert covered / studies >= 0.9
