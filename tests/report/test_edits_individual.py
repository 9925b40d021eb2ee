"""Accuracy on individual edits as §5.2 of the symbolic-edits paper defines it."""

from __future__ import annotations

from statistics import mean
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.make.edits.metrics import edit_operators, individual_accuracy, retention
from twosat_formal.report.content import compute_content
from twosat_formal.report.render import EDIT_SECTIONS, layout, render_markdown


def edited(origin: str, index: int, kind: str, right: bool, operator: str, decision: Any) -> dict:
    after = "SAT" if kind == "preserving" else "UNSAT"
    step = {
        "kind": "edit",
        "mode": "individual",
        "level": 1,
        "origin": origin,
        "operator": operator,
        "label_before": "SAT",
        "label_after": after,
    }
    return {
        "instance_id": f"{origin}/{kind}/{index}",
        "model": "m",
        "template": "logic",
        "sample": 0,
        "transforms": [step],
        "label": after,
        "decision": decision,
        "decision_correct": right,
    }


def test_a_toy_set_per_question_and_pooled() -> None:
    # a: 1 of 3 right, b: 2 of 3, c: 2 of 2. Per question (1/3 + 2/3 + 1) / 3 = 0.667;
    # pooling weighs questions by their number of variants: 5/8 = 0.625
    rows = []
    spec = {"a": [True, False, False], "b": [True, True, False], "c": [True, True]}
    for origin, answers in spec.items():
        for index, right in enumerate(answers):
            rows.append(edited(origin, index, "changing", right, "negate-literal", None))
    result = individual_accuracy(rows, "changing")
    assert round(result.per_question, 3) == round((1 / 3 + 2 / 3 + 1) / 3, 3) == 0.667
    assert result.pooled == 5 / 8
    assert (result.questions, result.rows) == (3, 8)
    assert individual_accuracy(rows, "preserving").rows == 0


@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcd"),
            st.sampled_from(["preserving", "changing"]),
            st.booleans(),
            st.sampled_from(["negate-literal", "swap-and-or", "drop"]),
        ),
        max_size=30,
    )
)
def test_per_question_matches_a_plain_reference(items: list[tuple[str, str, bool, str]]) -> None:
    rows = [edited(o, i, k, r, op, None) for i, (o, k, r, op) in enumerate(items)]
    for kind in ("preserving", "changing"):
        for operator in (None, "negate-literal", "drop"):
            chosen = [(o, r) for o, k, r, op in items if k == kind and operator in (None, op)]
            result = individual_accuracy(rows, kind, operator=operator)
            if not chosen:
                assert result.per_question is None and result.rows == 0
                continue
            by_question: dict[str, list[bool]] = {}
            for origin, right in chosen:
                by_question.setdefault(origin, []).append(right)
            expected = mean(mean(v) for v in by_question.values())
            assert abs(result.per_question - expected) < 1e-12  # type: ignore[operator]
            assert result.pooled == sum(r for _, r in chosen) / len(chosen)
    assert edit_operators(rows) == sorted({op for *_, op in items})


def test_retention_is_one_minus_accuracy_minus_unparsable() -> None:
    rows = [
        edited("a", 0, "changing", False, "x", "SAT"),  # kept the origin's label
        edited("a", 1, "changing", True, "x", "UNSAT"),
        edited("a", 2, "changing", False, "x", None),  # unparsable
        edited("b", 3, "changing", False, "x", "SAT"),
    ]
    kept = retention(rows)
    unparsable = sum(r["decision"] is None for r in rows) / len(rows)
    assert kept.rate == 1 - kept.accuracy - unparsable  # type: ignore[operator]


def test_the_report_shows_individual_edits_of_both_classes() -> None:
    rows = [
        edited("a", 0, "preserving", True, "swap-and-or", "SAT"),
        edited("a", 1, "changing", False, "negate-literal", "SAT"),
        {
            "instance_id": "a",
            "model": "m",
            "template": "logic",
            "sample": 0,
            "label": "SAT",
            "decision": "SAT",
            "decision_correct": True,
            "witness_valid": True,
            "failure": "correct",
            "family": "backbone",
            "num_clauses": 3,
        },
    ]
    for row in rows[:2]:
        row.update(
            family="backbone",
            num_clauses=3,
            failure="correct" if row["decision_correct"] else "wrong-decision",
        )
    content = compute_content(rows)
    (summary,) = content.edits or []
    classes = {(i.kind, i.operator): i.per_question for i in summary.individual}
    assert classes[("preserving", None)] == 1.0 and classes[("changing", None)] == 0.0
    assert classes[("preserving", "swap-and-or")] == 1.0
    markdown = render_markdown(layout(content, []))
    assert f"## {EDIT_SECTIONS[-1]}" in markdown
    assert "label-preserving" in markdown and "label-changing" in markdown
