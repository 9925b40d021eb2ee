"""Premise edits (drop, insert): off by default, recorded per step, reported apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import input_file, run
from tests.support.edits import records
from tests.support.formula_strategies import clause_lists
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.io.instance import Instance
from twosat_formal.make.edits import (
    EDITS,
    apply_edit,
    cumulative_edits,
    edit_steps,
    individual_edits,
    root_instance,
)
from twosat_formal.make.edits.metrics import (
    edit_categories,
    edit_info,
    edit_operators,
    flip_rate,
    individual_accuracy,
    normalized_accuracy,
    retention,
)
from twosat_formal.make.edits.operators import (
    CATEGORIES,
    OPERATOR,
    PREMISE,
    category_of,
    default_operators,
)
from twosat_formal.report.sections.edits import edit_summaries
from twosat_formal.study.experiments.design import expand
from twosat_formal.study.experiments.spec import load_spec, parse_spec

clauses_2cnf = clause_lists(max_var=5, min_size=2, max_size=9)


def test_the_categories_split_the_seven_edits() -> None:
    premise = {name for name in EDITS.names() if category_of(name) == PREMISE}
    assert premise == {"drop", "insert"}
    assert set(default_operators()) == set(EDITS.names()) - premise
    assert default_operators(premise=True) == (*default_operators(), "drop", "insert")
    assert CATEGORIES == (OPERATOR, PREMISE)


@settings(max_examples=40, deadline=None)
@given(clauses_2cnf, st.integers(0, 2**16))
def test_default_runs_make_operator_edits_only(clauses: list[list[int]], seed: int) -> None:
    base = root_instance(Formula(clauses))
    chain = cumulative_edits(base, max_edits=4, seed=seed)
    single = individual_edits(base, count=3, seed=seed)
    for edited in (*chain.levels, *single.all()):
        for step in edit_steps(edited.instance.transforms):
            assert step["operator"] not in ("drop", "insert")
            assert step["category"] == OPERATOR == category_of(step["operator"])


@settings(max_examples=40, deadline=None)
@given(clauses_2cnf, st.integers(0, 2**16))
def test_premise_edits_keep_the_label_where_the_issue_says_trivially(
    clauses: list[list[int]], seed: int
) -> None:
    base = root_instance(Formula(clauses))
    ops = default_operators(premise=True)
    for edited in individual_edits(base, count=6, seed=seed, operators=ops).all():
        (step,) = edit_steps(edited.instance.transforms)
        assert step["category"] == category_of(step["operator"])
        # fewer premises keep a model; more premises keep a contradiction
        if step["operator"] == "drop" and base.label == "SAT":
            assert step["class"] == "preserving"
        if step["operator"] == "insert" and base.label == "UNSAT":
            assert step["class"] == "preserving"


def operators_used(found: list[Instance]) -> set[str]:
    return {s["operator"] for r in found for s in edit_steps(r.transforms)}


def test_the_edit_command_turns_premise_edits_on_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    formula_file = input_file(
        tmp_path, "f.cnf", "p cnf 4 5\n1 2 0\n-1 2 0\n-2 3 0\n3 -1 0\n4 -3 0\n"
    )
    argv = ["edit", str(formula_file), "--mode", "individual", "-k", "20", "--seed", "1"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    default = operators_used(records(out))
    assert default and not default & {"drop", "insert"}
    code, out, _ = run([*argv, "--premise-edits"], capsys)
    assert code == 0
    assert {"drop", "insert"} <= operators_used(records(out))
    code, out, _ = run([*argv, "--op", "drop"], capsys)
    assert code == 0
    found = records(out)
    assert operators_used(found) == {"drop"}
    assert {s["category"] for r in found for s in edit_steps(r.transforms)} == {PREMISE}
    # --premise-edits beside --op adds the premise edits, not the other operator edits
    code, out, _ = run([*argv, "--op", "converse", "--premise-edits"], capsys)
    assert code == 0
    assert operators_used(records(out)) <= {"converse", "drop", "insert"}
    assert {"drop", "insert"} <= operators_used(records(out))
    code, out, _ = run(["edit", "--help"], capsys)
    assert "--premise-edits" in out


def test_the_experiment_cell_turns_premise_edits_on() -> None:
    spec = load_spec("edits")
    assert all("premise_edits" not in cell for cell in spec.cells)
    default = dict(expand(spec.with_formulas(1))[0].edits)
    assert default["operators"] is None
    data: dict[str, Any] = {
        "name": "p",
        "title": "p",
        "paper": "p",
        "description": "p",
        "kind": "edits",
        "formulas": 1,
        "seed": 0,
        "templates": ["logic"],
        "cells": [{"family": "backbone", "clauses": [10], "premise_edits": True}],
    }
    stage = dict(expand(parse_spec(data))[0].edits)
    assert stage["operators"] == default_operators(premise=True)
    data["cells"][0]["premise_edits"] = "yes"
    with pytest.raises(ConfigError, match="premise_edits"):
        expand(parse_spec(data))


def edited_row(
    origin: str, steps: list[tuple[str, str]], correct: bool, decision: str, mode: str
) -> dict[str, Any]:
    transforms = [
        {
            "kind": "edit",
            "operator": op,
            "category": category_of(op),
            "mode": mode,
            "level": level,
            "origin": origin,
            "label_before": "SAT",
            "label_after": after,
        }
        for level, (op, after) in enumerate(steps, 1)
    ]
    return {
        "instance_id": f"{origin}-{mode}-{len(steps)}-{steps[-1][0]}",
        "model": "m",
        "transforms": transforms,
        "decision": decision,
        "decision_correct": correct,
    }


ROWS = [
    {"instance_id": "a", "model": "m", "decision": "SAT", "decision_correct": True},
    {"instance_id": "b", "model": "m", "decision": "SAT", "decision_correct": True},
    # a: an operator chain of two levels; b: an insert at level 1
    edited_row("a", [("converse", "SAT")], False, "UNSAT", "cumulative"),
    edited_row("a", [("converse", "SAT"), ("split", "SAT")], True, "SAT", "cumulative"),
    edited_row("b", [("insert", "SAT")], True, "SAT", "cumulative"),
    # individual label-changing edits: one insert, one negate-literal
    edited_row("a", [("insert", "UNSAT")], False, "SAT", "individual"),
    edited_row("b", [("negate-literal", "UNSAT")], True, "UNSAT", "individual"),
]


def test_metrics_filter_by_category_and_operator() -> None:
    assert edit_categories(ROWS) == [OPERATOR, PREMISE]
    info = edit_info(ROWS[3])
    assert info is not None and (info.category, info.operator) == (OPERATOR, "split")
    # operator chains: a is edited at level 1, b falls back to its baseline
    op1 = normalized_accuracy(ROWS, 1, category=OPERATOR)
    assert (op1.records, op1.edited, op1.accuracy) == (2, 1, 0.5)
    # premise chains: b is edited, a falls back
    pr1 = normalized_accuracy(ROWS, 1, category=PREMISE)
    assert (pr1.records, pr1.edited, pr1.accuracy) == (2, 1, 1.0)
    # one operator: only the records whose k-th edit it is, no fallbacks
    conv = normalized_accuracy(ROWS, 1, operator="converse")
    assert (conv.records, conv.edited, conv.accuracy, conv.value) == (1, 1, 0.0, 0.0)
    assert flip_rate(ROWS, 1, operator="converse").broken == 1
    assert normalized_accuracy(ROWS, 2, operator="converse").records == 0
    assert normalized_accuracy(ROWS, 2, operator="split").accuracy == 1.0
    # retention: the insert kept the old answer, the negate-literal did not
    assert retention(ROWS, category=PREMISE).to_json()["retained"] == 1
    assert retention(ROWS, category=OPERATOR).to_json()["retained"] == 0
    assert retention(ROWS, operator="insert").rows == 1
    assert individual_accuracy(ROWS, "changing", category=PREMISE).per_question == 0.0
    assert individual_accuracy(ROWS, "changing", category=OPERATOR).per_question == 1.0
    assert edit_operators(ROWS, mode=None, category=PREMISE) == ["insert"]
    assert edit_operators(ROWS, mode=None) == ["converse", "insert", "negate-literal", "split"]
    with pytest.raises(ConfigError, match="category"):
        retention(ROWS, category="logic")


def test_the_report_summarizes_each_category_apart() -> None:
    summaries, curves = edit_summaries(ROWS, ["m"])
    assert summaries is not None
    assert [(s.model, s.category) for s in summaries] == [("m", OPERATOR), ("m", PREMISE)]
    operator, premise = summaries
    assert [o.operator for o in operator.operators] == ["converse", "negate-literal", "split"]
    assert [o.operator for o in premise.operators] == ["insert"]
    assert premise.retention.retained == 1 and operator.retention.retained == 0
    assert set(curves) == {"m", "m (premise edits)"}
    assert premise.to_json()["category"] == PREMISE


def test_an_edited_step_records_its_category() -> None:
    base = root_instance(Formula([[1, 2], [-1, 2], [2, 3]]))
    for name in EDITS.names():
        try:
            edited = apply_edit(base, name, position=0)
        except ConfigError:
            continue
        step = edited.instance.transforms[-1]
        assert list(step)[:3] == ["kind", "operator", "category"]
        assert step["category"] == category_of(name)
