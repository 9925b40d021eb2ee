"""Normalized accuracy, flip rate and retention on hand-computed fixtures (fallback included)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.make.edits import cumulative_edits, individual_edits, root_instance
from twosat_formal.make.edits.metrics import (
    edit_info,
    flip_rate,
    level_pairs,
    max_level,
    normalized_accuracy,
    retention,
)


def step(
    origin: str, level: int, mode: str = "cumulative", before: str = "SAT", after: str = "SAT"
) -> dict[str, Any]:
    return {
        "kind": "edit",
        "operator": "drop",
        "mode": mode,
        "level": level,
        "origin": origin,
        "label_before": before,
        "label_after": after,
    }


def chain(origin: str, level: int, mode: str = "cumulative") -> list[dict[str, Any]]:
    return [step(origin, k, mode) for k in range(1, level + 1)]


def row(
    instance_id: str,
    correct: bool | None,
    *,
    transforms: list[dict[str, Any]] | None = None,
    model: str = "m",
    decision: str | None = "default",
) -> dict[str, Any]:
    if decision == "default":
        decision = "SAT" if correct else "UNSAT"
    return {
        "instance_id": instance_id,
        "model": model,
        "template": "logic",
        "sample": 0,
        "label": "SAT",
        "decision": decision,
        "decision_correct": correct,
        "transforms": transforms or [],
    }


# Baselines A (right), B (wrong, no answer), C (right), D (right): baseline accuracy 3/4.
# Level 1: A1 wrong, B1 wrong, C1 wrong; D has no edit and falls back (right).
# Level 2: A2 right, B2 right; C and D fall back (right, right).
FIXTURE = [
    row("A", True),
    row("B", False, decision=None),
    row("C", True),
    row("D", True),
    row("A1", False, transforms=chain("A", 1)),
    row("B1", False, transforms=chain("B", 1)),
    row("C1", False, transforms=chain("C", 1)),
    row("A2", True, transforms=chain("A", 2)),
    row("B2", True, transforms=chain("B", 2)),
    # not cumulative: never counted at a level
    row("Ai", True, transforms=chain("A", 1, mode="individual")),
    # another model's rows stay apart
    row("A", False, model="other"),
    row("A1", True, model="other", transforms=chain("A", 1)),
    # a level-1 row whose baseline was not evaluated
    row("Z1", True, transforms=chain("Z", 1)),
]


def mine(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["model"] == "m"]


def test_normalized_accuracy_with_fallback() -> None:
    one = normalized_accuracy(mine(FIXTURE), 1)
    assert (one.records, one.edited, one.fallback, one.unpaired) == (4, 3, 1, 1)
    assert one.accuracy == pytest.approx(1 / 4)
    assert one.baseline_accuracy == pytest.approx(3 / 4)
    assert one.value == pytest.approx(1 / 3)
    # decisions: A SAT->UNSAT, B None->UNSAT, C SAT->UNSAT, D SAT->SAT (fallback)
    assert one.agreement == pytest.approx(1 / 4)
    two = normalized_accuracy(mine(FIXTURE), 2)
    assert (two.records, two.edited, two.fallback) == (4, 2, 2)
    assert two.accuracy == pytest.approx(1.0) and two.value == pytest.approx(4 / 3)
    three = normalized_accuracy(mine(FIXTURE), 3)
    assert three.edited == 0 and three.value == pytest.approx(1.0) and three.agreement == 1.0
    zero = normalized_accuracy(mine(FIXTURE), 0)
    assert zero.edited == 0 and zero.value == pytest.approx(1.0)
    assert one.to_json()["normalized_accuracy"] == pytest.approx(1 / 3)


def test_flip_rate_counts_both_directions_and_unchanged() -> None:
    one = flip_rate(mine(FIXTURE), 1)
    # A broken, B unchanged (wrong -> wrong), C broken, D unchanged (fallback)
    assert (one.pairs, one.broken, one.fixed, one.flips) == (4, 2, 0, 2)
    assert one.rate == pytest.approx(0.5)
    two = flip_rate(mine(FIXTURE), 2)
    # A unchanged (right -> right), B fixed, C and D fall back
    assert (two.pairs, two.broken, two.fixed, two.edited) == (4, 0, 1, 2)
    assert two.rate == pytest.approx(0.25)
    other = flip_rate([r for r in FIXTURE if r["model"] == "other"], 1)
    assert (other.pairs, other.fixed, other.rate) == (1, 1, 1.0)
    assert flip_rate(FIXTURE, 1).pairs == 5
    assert flip_rate([], 1).rate is None


def test_level_pairs_make_the_fallback_explicit() -> None:
    pairs, unpaired = level_pairs(mine(FIXTURE), 2)
    assert [(b["instance_id"], v["instance_id"], e) for b, v, e in pairs] == [
        ("A", "A2", True),
        ("B", "B2", True),
        ("C", "C", False),
        ("D", "D", False),
    ]
    assert unpaired == 0
    with pytest.raises(ConfigError):
        level_pairs(FIXTURE, -1)


def test_duplicate_level_rows_are_refused() -> None:
    rows = [
        row("A", True),
        row("A1", True, transforms=chain("A", 1)),
        row("A1b", False, transforms=chain("A", 1)),
    ]
    with pytest.raises(RecordError, match="two level-1 rows"):
        normalized_accuracy(rows, 1)


def test_retention_on_label_changing_edits() -> None:
    changed = [step("A", 1, "individual", "SAT", "UNSAT")]
    rows = [
        row("e1", False, transforms=changed, decision="SAT"),  # keeps the old answer
        row("e2", True, transforms=changed, decision="UNSAT"),  # follows the edit
        row("e3", False, transforms=changed, decision=None),  # no answer
        row("e4", False, transforms=changed, decision="sat"),  # old answer, lower case
        row("p1", True, transforms=[step("A", 1, "individual")]),  # preserving: ignored
        row("A", True),  # baseline: ignored
        row("s1", False, transforms=[step("A", 1, "single", "SAT", "UNSAT")], decision="SAT"),
    ]
    result = retention(rows, mode="individual")
    assert (result.rows, result.retained, result.correct) == (4, 2, 1)
    assert result.rate == pytest.approx(0.5) and result.accuracy == pytest.approx(0.25)
    assert retention(rows).rows == 5 and retention(rows).retained == 3
    assert retention([]).rate is None


def test_edit_info_reads_the_last_chain() -> None:
    earlier = step("root", 1, "individual", "SAT", "UNSAT")
    later = step("root~e1", 1, "cumulative", "UNSAT", "UNSAT")
    info = edit_info({"instance_id": "x", "transforms": [{"operator": "reorder"}, earlier, later]})
    assert info is not None
    assert (info.origin, info.level, info.mode, info.kind) == (
        "root~e1",
        1,
        "cumulative",
        "preserving",
    )
    text = {"instance_id": "y", "transforms": json.dumps([earlier])}
    parsed = edit_info(text)
    assert parsed is not None and parsed.kind == "changing"
    with pytest.raises(RecordError):
        edit_info({"instance_id": "z", "transforms": [{"kind": "edit", "origin": "o"}]})
    with pytest.raises(RecordError):
        edit_info({"instance_id": "z", "transforms": "{not json"})
    assert max_level(FIXTURE) == 2 and max_level([]) == 0


@given(st.lists(st.tuples(st.booleans(), st.one_of(st.none(), st.booleans())), max_size=12))
def test_flip_rate_matches_a_direct_count(outcomes: list[tuple[bool, bool | None]]) -> None:
    rows: list[dict[str, Any]] = []
    for i, (base_ok, edited_ok) in enumerate(outcomes):
        rows.append(row(f"b{i}", base_ok))
        if edited_ok is not None:
            rows.append(row(f"e{i}", edited_ok, transforms=chain(f"b{i}", 1)))
    result = flip_rate(rows, 1)
    effective = [(b, b if e is None else e) for b, e in outcomes]
    assert result.pairs == len(outcomes)
    assert result.broken == sum(1 for b, e in effective if b and not e)
    assert result.fixed == sum(1 for b, e in effective if e and not b)
    assert result.edited == sum(1 for _, e in outcomes if e is not None)
    accuracy = normalized_accuracy(rows, 1)
    assert accuracy.records == len(outcomes)
    if outcomes:
        assert accuracy.accuracy == pytest.approx(sum(e for _, e in effective) / len(outcomes))


def test_metrics_read_the_records_that_edits_write() -> None:
    base = root_instance(Formula([[1, 2], [-1, 2], [-2, 3], [-3, 1]]))
    levels = cumulative_edits(base, max_edits=2, seed=0).levels
    flipped = individual_edits(base, count=1, keep="changing", seed=0).changing
    assert len(levels) == 2 and len(flipped) == 1
    rows = [row(base.id, True)]
    for edited in levels:
        rows.append(
            row(
                edited.instance.id,
                edited.level == 1,
                transforms=edited.instance.to_record()["transforms"],
            )
        )
    changing = flipped[0].instance
    rows.append(
        row(changing.id, False, decision="SAT", transforms=changing.to_record()["transforms"])
    )
    assert max_level(rows) == 2
    assert flip_rate(rows, 1).flips == 0 and flip_rate(rows, 2).broken == 1
    assert normalized_accuracy(rows, 2).value == 0.0
    assert retention(rows).to_json()["retained"] == 1


def test_root_instance_refuses_a_formula_of_too_many_variables() -> None:
    """Its names were materialized for all 2**40 declared variables (MemoryError)."""
    with pytest.raises(ConfigError) as caught:
        root_instance(Formula([[1, 2]], num_vars=2**40))
    assert caught.value.parameter == "num_vars"
