"""Metrics on hand-computed fixtures, and their invariants on random rows."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.report.metrics import (
    METRICS,
    aggregate,
    decision_consistency,
    failure_breakdown,
    flip_rate,
    formula_unit,
    join_instances,
    mean_ci,
    per_formula,
    summarize,
    verbalization_flip_rate,
)

# Two-sided 95% Student-t quantiles from a printed t table (df = 1..5).
T_TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571}


def row(
    instance: str,
    label: str,
    decision: str | None,
    *,
    witness: bool | None = None,
    template: str = "logic",
    model: str = "m",
    sample: int = 0,
    truncated: bool = False,
    failure: str | None = None,
    base_id: str | None = None,
) -> dict[str, Any]:
    correct = decision == label and not truncated
    if label == "SAT" and witness is None:
        witness = False
    if failure is None:
        if truncated:
            failure = "truncated"
        elif decision is None:
            failure = "no-answer"
        elif not correct:
            failure = "wrong-decision"
        elif label == "SAT" and not witness:
            failure = "invalid-witness"
        else:
            failure = "correct"
    return {
        "instance_id": instance,
        "prompt_id": f"{instance}-{template}",
        "template": template,
        "model": model,
        "sample": sample,
        "label": label,
        "decision": decision,
        "decision_correct": correct,
        "witness_valid": witness if label == "SAT" else None,
        "failure": failure,
        "finish_reason": "length" if truncated else "stop",
        "truncated": truncated,
        "base_id": base_id,
    }


# Formula "s1" (SAT): 3 verbalizations; "s2" (SAT): 1; "u1" (UNSAT): 2.
FIXTURE = [
    row("s1", "SAT", "SAT", witness=True, template="logic"),
    row("s1", "SAT", "SAT", witness=False, template="team"),
    row("s1", "SAT", "UNSAT", template="room"),
    row("s2", "SAT", "SAT", witness=True),
    row("u1", "UNSAT", "SAT", template="logic"),
    row("u1", "UNSAT", None, template="team", truncated=True),
]


def test_per_formula_then_across_formulas() -> None:
    assert per_formula(FIXTURE, "accuracy") == {"s1": 2 / 3, "s2": 1.0, "u1": 0.0}
    estimate = aggregate(FIXTURE, "accuracy")
    # Per formula first: (2/3 + 1 + 0) / 3, not the pooled 3/6.
    assert estimate.mean == pytest.approx(5 / 9)
    assert (estimate.n, estimate.n_obs) == (3, 6)


def test_accuracy_split_by_label() -> None:
    assert aggregate(FIXTURE, "accuracy_sat").mean == pytest.approx((2 / 3 + 1) / 2)
    assert aggregate(FIXTURE, "accuracy_unsat").mean == 0.0
    assert aggregate(FIXTURE, "accuracy_unsat").n == 1


def test_witness_only_on_sat_and_needs_valid_assignment() -> None:
    assert per_formula(FIXTURE, "witness") == {"s1": 1 / 3, "s2": 1.0}
    assert METRICS["witness"](FIXTURE[4]) is None


def test_sat_prediction_rate_on_unsat() -> None:
    assert per_formula(FIXTURE, "sat_prediction") == {"u1": 0.5}
    assert METRICS["sat_prediction"](FIXTURE[0]) is None


def test_truncation_rate() -> None:
    assert per_formula(FIXTURE, "truncation") == {"s1": 0.0, "s2": 0.0, "u1": 0.5}
    assert METRICS["truncation"]({"finish_reason": "length"}) == 1.0


def test_success_is_decision_on_unsat_and_witness_on_sat() -> None:
    assert per_formula(FIXTURE, "success") == {"s1": 1 / 3, "s2": 1.0, "u1": 0.0}


def test_failure_breakdown() -> None:
    assert failure_breakdown(FIXTURE) == {
        "correct": 2,
        "invalid-witness": 1,
        "truncated": 1,
        "wrong-decision": 2,
    }


def test_summarize_has_every_metric() -> None:
    summary = summarize(FIXTURE)
    assert set(summary["metrics"]) == set(METRICS)
    assert summary["rows"] == 6 and summary["formulas"] == 3
    assert sum(summary["failures"].values()) == 6


def test_t_interval_by_hand() -> None:
    values = [0.5, 1.0, 0.0, 0.5]
    estimate = mean_ci(values, method="t", bounds=None)
    half = T_TABLE[3] * statistics.stdev(values) / 2.0
    assert estimate.mean == 0.5
    assert estimate.low == pytest.approx(0.5 - half, abs=1e-3)
    assert estimate.high == pytest.approx(0.5 + half, abs=1e-3)
    assert estimate.n == 4 and estimate.method == "t"
    clipped = mean_ci(values, method="t")
    assert clipped.low == 0.0
    assert clipped.high == pytest.approx(min(1.0, 0.5 + half), abs=1e-3)


def test_interval_edge_cases() -> None:
    assert mean_ci([]).mean is None and mean_ci([]).n == 0
    single = mean_ci([0.3], method="t")
    assert single.mean == 0.3 and single.low is None and single.high is None
    flat = mean_ci([1.0, 1.0, 1.0], method="t")
    assert flat.low == flat.high == 1.0
    with pytest.raises(ConfigError):
        mean_ci([0.5, float("nan")])
    with pytest.raises(ConfigError):
        mean_ci([0.5, 1.5])  # a share above 100 %
    with pytest.raises(ConfigError):
        mean_ci([1.0, 2.0], method="jackknife")
    with pytest.raises(ConfigError):
        mean_ci([1.0, 2.0], confidence=1.5)
    with pytest.raises(ConfigError):
        aggregate(FIXTURE, "nonsense")


def test_bootstrap_is_seeded() -> None:
    values = [0.0, 0.13, 0.21, 0.37, 0.52, 0.58, 0.71, 0.83, 0.97, 1.0]
    a = mean_ci(values, method="bootstrap", seed=7, n_boot=100)
    b = mean_ci(values, method="bootstrap", seed=7, n_boot=100)
    c = mean_ci(values, method="bootstrap", seed=8, n_boot=100)
    assert a == b
    assert (a.low, a.high) != (c.low, c.high)
    assert min(values) <= a.low <= a.mean <= a.high <= max(values)  # type: ignore[operator]
    # With 2000 resamples the percentile interval is close to the t interval.
    t = mean_ci(values, method="t")
    boot = mean_ci(values, method="bootstrap", seed=1)
    assert boot.low == pytest.approx(t.low, abs=0.06)
    assert boot.high == pytest.approx(t.high, abs=0.06)


def test_flip_rate_keeps_unchanged_pairs_in_denominator() -> None:
    rows = [
        row("b", "UNSAT", "UNSAT", template="logic"),
        row("b", "UNSAT", "SAT", template="team"),
        row("b", "UNSAT", "UNSAT", template="room"),
        row("v", "UNSAT", "SAT", template="logic", base_id="b"),  # broken
        row("v", "UNSAT", "UNSAT", template="team", base_id="b"),  # fixed
        row("v", "UNSAT", "UNSAT", template="room", base_id="b"),  # unchanged
        row("w", "UNSAT", "UNSAT", template="logic", base_id="missing"),  # no base
    ]
    result = flip_rate(rows)
    assert (result.pairs, result.broken, result.fixed, result.flips) == (3, 1, 1, 2)
    assert result.rate == pytest.approx(2 / 3)
    assert flip_rate(rows[:3]).rate is None


def test_flip_rate_pairs_same_model_and_sample_only() -> None:
    rows = [
        row("b", "UNSAT", "UNSAT", model="m1"),
        row("v", "UNSAT", "SAT", model="m2", base_id="b"),
        row("v", "UNSAT", "SAT", model="m1", sample=1, base_id="b"),
    ]
    assert flip_rate(rows).pairs == 0


def test_verbalization_flip_rate() -> None:
    rows = [
        row("a", "UNSAT", "UNSAT", template="logic"),
        row("a", "UNSAT", "SAT", template="team"),
        row("a", "UNSAT", "UNSAT", template="door"),
        row("c", "UNSAT", "SAT", template="logic"),
        row("c", "UNSAT", "UNSAT", template="team"),
    ]
    result = verbalization_flip_rate(rows)
    assert (result.pairs, result.broken, result.fixed) == (3, 1, 1)


def test_decision_consistency_by_hand() -> None:
    rows = [
        row("a", "SAT", "SAT", template="logic", witness=True),
        row("a", "SAT", "SAT", template="team", witness=True),
        row("a", "SAT", "UNSAT", template="room"),
        row("b", "UNSAT", "UNSAT", template="logic"),
        row("b", "UNSAT", "UNSAT", template="team"),
    ]
    estimate = decision_consistency(rows)
    assert estimate.mean == pytest.approx((2 / 3 + 1.0) / 2)
    assert estimate.n == 2 and estimate.n_obs == 5


def test_join_instances_adds_metadata_and_design() -> None:
    instances = [
        {"id": "s1", "family": "backbone", "num_clauses": 21, "num_vars": 9, "params": {"a": 1}},
        {"id": "s2", "family": "backbone", "num_clauses": 20, "base_id": "s1", "transforms": [{}]},
        {"id": "u1", "family": "implication-cycle", "num_clauses": 5},
    ]
    design = {"s1": {"instance_id": "s1", "clauses": 20, "arm": "base", "label": "IGNORED"}}
    joined = join_instances(FIXTURE, instances, design=design)
    assert len(joined) == len(FIXTURE)
    first = joined[0]
    assert first["family"] == "backbone" and first["num_clauses"] == 21
    assert first["clauses"] == 20 and first["arm"] == "base"
    assert first["label"] == "SAT"  # a row's own columns win over the design
    assert joined[3]["base_id"] == "s1" and joined[3]["transforms"] == [{}]
    with pytest.raises(RecordError):
        join_instances(FIXTURE, instances[:1])
    assert len(join_instances(FIXTURE, instances[:1], strict=False)) == 3


# -- properties --------------------------------------------------------------------------

random_rows = st.lists(
    st.builds(
        row,
        st.sampled_from(["f1", "f2", "f3", "f4"]),
        st.sampled_from(["SAT", "UNSAT"]),
        st.sampled_from(["SAT", "UNSAT", None]),
        witness=st.booleans(),
        template=st.sampled_from(["logic", "team", "room"]),
        model=st.sampled_from(["m1", "m2"]),
        truncated=st.booleans(),
    ),
    max_size=40,
)


@given(random_rows, st.sampled_from(sorted(METRICS)))
def test_aggregate_is_mean_of_formula_means(rows: list[dict[str, Any]], name: str) -> None:
    fn = METRICS[name]
    by_formula: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        value = fn(r)
        if value is not None:
            by_formula[r["instance_id"]].append(value)
    means = [sum(v) / len(v) for v in by_formula.values()]
    estimate = aggregate(rows, name)
    assert estimate.n == len(means)
    if means:
        assert estimate.mean == pytest.approx(sum(means) / len(means))
        assert 0.0 <= estimate.mean <= 1.0  # type: ignore[operator]
    else:
        assert estimate.mean is None


@given(st.lists(st.floats(0, 1), min_size=2, max_size=6), st.floats(0.1, 10))
def test_t_interval_matches_the_table_and_scales(values: list[float], scale: float) -> None:
    estimate = mean_ci(values, method="t", bounds=None)
    assert estimate.low is not None and estimate.high is not None
    assert estimate.low <= estimate.mean <= estimate.high  # type: ignore[operator]
    sd = statistics.stdev(values)
    if sd > 1e-9:
        t = (estimate.high - estimate.low) / 2 / (sd / math.sqrt(len(values)))
        assert t == pytest.approx(T_TABLE[len(values) - 1], abs=1e-3)
        scaled = mean_ci([v * scale for v in values], method="t", bounds=None)
        assert scaled.high - scaled.low == pytest.approx(  # type: ignore[operator]
            scale * (estimate.high - estimate.low), rel=1e-6
        )


@given(random_rows)
def test_flip_counts_match_brute_force(rows: list[dict[str, Any]]) -> None:
    # Turn f2..f4 into variants of f1 (same label so pairs are meaningful).
    variants = [dict(r, base_id="f1") if r["instance_id"] != "f1" else r for r in rows]
    result = flip_rate(variants)
    success = METRICS["success"]
    pairs = broken = fixed = 0
    for v in variants:
        if v["instance_id"] == "f1":
            continue
        # The base row the implementation pairs with: last f1 row with the same keys.
        matches = [
            b
            for b in variants
            if b["instance_id"] == "f1"
            and (b["model"], b["template"], b["sample"]) == (v["model"], v["template"], v["sample"])
        ]
        if not matches:
            continue
        before, after = success(matches[-1]), success(v)
        assert before is not None and after is not None
        pairs += 1
        broken += before > after
        fixed += after > before
    assert (result.pairs, result.broken, result.fixed) == (pairs, broken, fixed)
    assert result.rate is None or 0.0 <= result.rate <= 1.0


@given(random_rows)
def test_failure_breakdown_counts_every_row(rows: list[dict[str, Any]]) -> None:
    assert sum(failure_breakdown(rows).values()) == len(rows)
    assert 0.0 <= (decision_consistency(rows).mean or 1.0) <= 1.0


def wilson_by_hand(p: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z √(p(1−p)/n + z²/4n²)) / (1 + z²/n)."""
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


def test_wilson_interval_by_hand_and_at_the_edges() -> None:
    # 10 formulas all right: [72.25 %, 100 %], not a point; all wrong: [0 %, 27.75 %]
    top = mean_ci([1.0] * 10)
    assert top.method == "wilson" and top.high == 1.0
    assert top.low == pytest.approx(0.7225, abs=1e-4)
    bottom = mean_ci([0.0] * 10)
    assert bottom.low == 0.0 and bottom.high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_by_hand(0.3, 10)
    middle = mean_ci([1.0, 1.0, 1.0] + [0.0] * 7)
    assert (middle.low, middle.high) == (pytest.approx(low), pytest.approx(high))
    assert mean_ci([1.0]).low is not None  # defined for one formula too


@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=12),
    st.sampled_from(["wilson", "t", "bootstrap"]),
)
def test_every_interval_stays_within_0_and_100_percent(values: list[float], method: str) -> None:
    estimate = mean_ci(values, method=method, n_boot=50)
    if estimate.low is not None and estimate.high is not None:
        assert 0.0 <= estimate.low <= estimate.high <= 1.0
        assert estimate.low - 1e-12 <= estimate.mean <= estimate.high + 1e-12  # type: ignore[operator]
        as_json = estimate.to_json()
        assert 0.0 <= as_json["low"] <= as_json["high"] <= 1.0


def test_variants_of_one_formula_are_one_formula() -> None:
    # two base formulas, each with two perturbed variants and a twin: n = 2, not 8
    rows = []
    for base, right in (("a", True), ("b", False)):
        rows.append({"instance_id": base, "base_id": None, "decision_correct": right})
        for k in range(2):
            rows.append({"instance_id": f"{base}~{k}", "base_id": base, "decision_correct": right})
        rows.append({"instance_id": f"{base}^t", "twin_of": base, "decision_correct": right})
    estimate = aggregate(rows, "accuracy")
    assert (estimate.n, estimate.n_obs, estimate.mean) == (2, 8, 0.5)
    assert formula_unit(rows[1]) == "a" and formula_unit(rows[3]) == "a"
    assert aggregate(rows, "accuracy", key="instance_id").n == 8


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["m1", "m2"]),
            st.integers(0, 2),  # base formula
            st.sampled_from(["", "~shuffled", "~twin"]),  # the base, a variant, a twin
            st.sampled_from(["SAT", "UNSAT", None]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_decision_consistency_counts_base_formulas(answers) -> None:
    """The variants and the twin of a formula are decided on their own (their share is
    theirs) but are the same formula as their base: n counts (model, base formula)."""
    rows = []
    for model, base, kind, decision in answers:
        iid = f"f{base}{kind}"
        extra = {"base_id": f"f{base}"} if kind == "~shuffled" else {}
        extra |= {"twin_of": f"f{base}"} if kind == "~twin" else {}
        rows.append({"instance_id": iid, "model": model, "decision": decision, **extra})
    by_instance: dict[tuple[str, str], list[str | None]] = {}
    for model, base, kind, decision in answers:
        by_instance.setdefault((model, f"f{base}{kind}"), []).append(decision)
    by_base: dict[tuple[str, str], list[float]] = {}
    for (model, iid), decisions in by_instance.items():
        known = [d for d in decisions if d is not None]
        top = max((known.count(d) for d in set(known)), default=0)
        by_base.setdefault((model, iid.split("~")[0]), []).append(top / len(decisions))
    shares = [sum(v) / len(v) for v in by_base.values()]
    estimate = decision_consistency(rows)
    assert estimate.n == len(by_base) and estimate.n_obs == len(rows)
    assert estimate.mean == pytest.approx(sum(shares) / len(shares))


def test_summarize_counts_base_formulas_as_its_metrics_do() -> None:
    rows = [*FIXTURE, row("s1~shuffled", "SAT", "SAT", witness=True, base_id="s1")]
    summary = summarize(rows)
    assert summary["formulas"] == 3 == summary["metrics"]["accuracy"].n
