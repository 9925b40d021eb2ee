"""Cumulative chains (no revisiting, every level, fallback) and individual edits by class."""

from __future__ import annotations

import json
import tracemalloc
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_label
from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.make.edits import (
    CHANGING,
    PRESERVING,
    EditRun,
    apply_edit,
    cumulative_edits,
    edit_instances,
    edit_lines,
    edit_steps,
    individual_edits,
    replay_edits,
    root_instance,
)
from twosat_formal.make.edits.modes import edit_seed
from twosat_formal.make.edits.operators import default_operators


def visited_origins(num_clauses: int, transforms: Sequence[Mapping[str, Any]]) -> list[int]:
    """Follow the splices of a chain and return the origin clause each edit was made at.

    Fails if an edit touches a clause that an earlier edit wrote, or is made at an
    origin clause that was visited before (an insert is made at the clause before it).
    """
    tags: list[int | None] = list(range(num_clauses))
    visited: list[int] = []
    for step in transforms:
        position = step["position"]
        before, after = step["before"], step["after"]
        assert isinstance(position, int) and isinstance(before, list)
        assert isinstance(after, list)
        at = position if before else position - 1
        tag = tags[at]
        assert tag is not None, "an edit touched a clause an earlier edit wrote"
        assert tag not in visited, "an origin clause was visited twice"
        visited.append(tag)
        if before:
            tags[position : position + 1] = [None] * len(after)
        else:
            tags[position:position] = [None]
    return visited


@settings(max_examples=50)
@given(
    small_2cnf(max_clauses=8),
    st.integers(1, 4),
    st.integers(0, 2**31),
    st.sampled_from(["forward", "shuffled"]),
)
def test_cumulative_chain_properties(formula: Formula, k: int, seed: int, order: str) -> None:
    base = root_instance(formula)
    label = brute_label(formula)
    chain = cumulative_edits(base, max_edits=k, seed=seed, order=order)
    assert chain.reached <= min(k, formula.num_clauses)
    previous: tuple[Mapping[str, Any], ...] = ()
    for level, edited in enumerate(chain.levels, 1):
        inst = edited.instance
        assert edited.level == level and edited.mode == "cumulative"
        # every level keeps the origin's label, by brute force
        assert brute_label(inst.formula) == label == inst.label
        assert edited.kind == PRESERVING
        # level k is level k - 1 plus one edit
        steps = list(edit_steps(inst.transforms))
        assert len(steps) == level and tuple(steps[:-1]) == previous
        assert steps[-1]["level"] == level and steps[-1]["class"] == "preserving"
        assert replay_edits(formula, steps) == inst.formula
        previous = tuple(steps)
    if chain.levels:
        steps = list(edit_steps(chain.levels[-1].instance.transforms))
        visited = visited_origins(formula.num_clauses, steps)
        assert visited == list(chain.targets)
        if order == "forward":
            assert visited == sorted(visited)
    for level in range(0, k + 2):
        expected = base if level == 0 or level > chain.reached else chain.levels[level - 1].instance
        assert chain.at_level(level) is expected
        assert chain.is_fallback(level) == (level > chain.reached)


@settings(max_examples=20)
@given(small_2cnf(max_clauses=8), st.integers(0, 2**31))
def test_cumulative_is_deterministic_per_seed(formula: Formula, seed: int) -> None:
    base = root_instance(formula)
    one = cumulative_edits(base, max_edits=3, seed=seed, order="shuffled")
    two = cumulative_edits(base, max_edits=3, seed=seed, order="shuffled")
    assert [e.instance.to_json() for e in one.levels] == [e.instance.to_json() for e in two.levels]


def test_fallback_on_hand_fixtures() -> None:
    # one unit clause: only negate-literal applies, so the chain stops at level 1
    single = root_instance(Formula([[1]]))
    chain = cumulative_edits(single, max_edits=3, seed=5)
    assert chain.reached == 1 and chain.targets == (0,)
    assert chain.at_level(1).formula.clauses == ((-1,),)
    assert chain.at_level(2) is single and chain.at_level(3) is single
    assert chain.is_fallback(2) and not chain.is_fallback(1)
    # x & ~x: every edit makes it SAT, so no level has a valid edit
    contradiction = root_instance(Formula([[1], [-1]]))
    none = cumulative_edits(contradiction, max_edits=2, seed=0)
    assert none.reached == 0 and none.levels == ()
    assert none.at_level(1) is contradiction and none.at_level(2) is contradiction
    with pytest.raises(ConfigError):
        none.at_level(-1)


def test_cumulative_forward_scan_on_a_hand_fixture() -> None:
    base = root_instance(Formula([[1, 2], [1, 3], [2, 3], [1, -2]]))
    chain = cumulative_edits(base, max_edits=2, seed=0, operators=["drop"])
    # dropping the first two clauses keeps the formula SAT; the scan goes forward
    assert chain.targets == (0, 1)
    assert chain.levels[-1].instance.formula.clauses == ((2, 3), (1, -2))
    assert [s["position"] for s in edit_steps(chain.levels[-1].instance.transforms)] == [0, 0]


def test_individual_hand_fixture() -> None:
    # x & ~x: two operator edits (negate a unit), two more premise edits (drop one);
    # all label-changing, none preserving
    base = root_instance(Formula([[1], [-1]]))
    operator_only = individual_edits(base, count=10, keep="both", seed=0)
    formulas = sorted(e.instance.formula.clauses for e in operator_only.changing)
    assert formulas == [((-1,), (-1,)), ((1,), (1,))]
    found = individual_edits(
        base, count=10, keep="both", seed=0, operators=default_operators(premise=True)
    )
    assert found.preserving == ()
    formulas = sorted(e.instance.formula.clauses for e in found.changing)
    assert formulas == [((-1,),), ((-1,), (-1,)), ((1,),), ((1,), (1,))]
    categories = {e.edits[0].operator: e.instance.transforms[0]["category"] for e in found.changing}
    assert categories == {"negate-literal": "operator", "drop": "premise"}
    assert {e.label for e in found.changing} == {"SAT"}
    assert {e.instance.transforms[0]["label_before"] for e in found.changing} == {"UNSAT"}
    only = individual_edits(base, count=1, keep="changing", seed=0)
    assert len(only.changing) == 1 and only.preserving == ()
    assert individual_edits(base, count=3, keep="preserving", seed=0).all() == ()


@settings(max_examples=40)
@given(
    small_2cnf(max_clauses=8),
    st.integers(1, 3),
    st.sampled_from(["preserving", "changing", "both"]),
    st.integers(0, 2**31),
)
def test_individual_properties(formula: Formula, count: int, keep: str, seed: int) -> None:
    base = root_instance(formula)
    label = brute_label(formula)
    found = individual_edits(base, count=count, keep=keep, seed=seed)
    assert len(found.preserving) <= count and len(found.changing) <= count
    if keep == "preserving":
        assert found.changing == ()
    if keep == "changing":
        assert found.preserving == ()
    seen = {formula}
    for edited, kind in [(e, PRESERVING) for e in found.preserving] + [
        (e, CHANGING) for e in found.changing
    ]:
        inst = edited.instance
        new_label = brute_label(inst.formula)
        assert inst.label == new_label
        assert edited.kind == kind == (PRESERVING if new_label == label else CHANGING)
        assert edited.level == 1 and edited.mode == "individual"
        assert inst.formula not in seen
        seen.add(inst.formula)
    again = individual_edits(base, count=count, keep=keep, seed=seed)
    assert [e.instance.id for e in again.all()] == [e.instance.id for e in found.all()]


def test_argument_errors() -> None:
    base = root_instance(Formula([[1, 2]]))
    with pytest.raises(ConfigError):
        cumulative_edits(base, max_edits=0)
    with pytest.raises(ConfigError):
        cumulative_edits(base, order="backwards")
    with pytest.raises(UnknownNameError):
        cumulative_edits(base, operators=["swap"])
    with pytest.raises(ConfigError):
        cumulative_edits(base, operators=[])
    with pytest.raises(ConfigError):
        individual_edits(base, keep="all")
    with pytest.raises(ConfigError):
        individual_edits(base, count=True)
    with pytest.raises(ConfigError):
        edit_instances([base], mode="cumulative", keep="changing")
    with pytest.raises(ConfigError):
        edit_instances([base], mode="sideways")


def test_edit_instances_orders_records_and_counts() -> None:
    a = root_instance(Formula([[1, 2], [-1, 2], [2, 3]]))
    b = root_instance(Formula([[1], [-1]]))
    run = edit_instances([a, b], mode="cumulative", max_edits=2, seed=4)
    assert run.records[0] is a
    assert run.bases == 2 and run.changing == 0
    by_origin = Counter(
        str(edit_steps(r.transforms)[0]["origin"]) for r in run.records if r.base_id is not None
    )
    assert by_origin[b.id] == 0 and run.preserving == by_origin[a.id]
    assert run.reached[0] == 1  # b has no valid edit
    assert "level 1: 1 edited, 1 at baseline" in run.summary()
    ids = [r.id for r in run.records]
    assert len(ids) == len(set(ids))
    first = edit_steps(run.records[1].transforms)[0]
    assert first["seed"] == edit_seed(4, a.id)
    no_base = edit_instances([a, b], mode="individual", max_edits=1, seed=4, keep_base=False)
    assert all(r.base_id is not None for r in no_base.records)
    assert no_base.changing == sum(
        1 for r in no_base.records if r.structure["edit"]["class"] == "changing"
    )


def test_edit_lines_reads_datasets_and_formula_files(tmp_path: Path) -> None:
    dsl = tmp_path / "f.dsl"
    dsl.write_text("a | b\n~a | b\nb | c\n", encoding="utf-8")
    run = EditRun("cumulative", 2)
    lines = list(edit_lines(dsl, run, seed=1))
    records = [Instance.from_record(json.loads(line)) for line in lines]
    root = records[0]
    assert root.family == "file" and root.formula.names == ("a", "b", "c")
    assert root.provenance["source"] == str(dsl)
    data = tmp_path / "d.jsonl"
    write_instances(records, data)
    again = EditRun("individual", 1)
    edited = list(edit_lines(data, again, seed=1, keep="preserving"))
    assert again.bases == len(records)
    for line in edited:
        assert Instance.from_record(json.loads(line)).to_json() == line


@pytest.mark.slow
def test_individual_edits_hold_edits_not_formulas() -> None:
    """Trying every (edit, clause) pair of a large formula keeps memory to a few formulas.

    On disjoint clauses no single edit changes the label, so asking for a label-changing
    edit tries every pair; a run that kept each edited formula it tried would grow with
    clauses times tries (38 formulas' worth at 300 clauses, 75 at 600).
    """
    base = root_instance(Formula([[2 * i + 1, 2 * i + 2] for i in range(300)]))
    tracemalloc.start()
    apply_edit(base, "split", position=150)
    one = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    tracemalloc.start()
    found = individual_edits(base, count=1, keep="changing", seed=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert found.changing == () and found.preserving == ()
    assert peak < 10 * one, (peak, one)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(small_2cnf(max_clauses=6), st.integers(0, 2**31))
def test_individual_edits_are_distinct_formulas(formula: Formula, seed: int) -> None:
    """Every kept edit gives its own formula, and none gives the origin back."""
    ops = ["negate-literal", "negate-both", "converse", "substitute", "drop", "insert", "split"]
    found = individual_edits(root_instance(formula), count=50, seed=seed, operators=ops)
    formulas = [tuple(map(tuple, e.instance.formula.clauses)) for e in found.all()]
    assert len(set(formulas)) == len(formulas)
    assert tuple(map(tuple, formula.clauses)) not in formulas
