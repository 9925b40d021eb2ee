"""The seven edit operators: exact results on hand examples, and their invariants."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError, UnknownNameError
from twosat_formal.make.edits import EDITS, Edit

F = Formula.from_named([["~a", "b"], ["a", "c"], ["~c"], ["b", "b"]])


def afters(name: str, formula: Formula, index: int) -> list[tuple[tuple[int, ...], ...]]:
    return [e.after for e in EDITS.get(name).options(formula, index)]


def test_registry_order_and_unknown_name() -> None:
    assert EDITS.names() == [
        "negate-literal",
        "negate-both",
        "converse",
        "substitute",
        "drop",
        "insert",
        "split",
    ]
    with pytest.raises(UnknownNameError):
        EDITS.get("swap")


def test_negate_literal_examples() -> None:
    assert afters("negate-literal", F, 0) == [((1, 2),), ((-1, -2),)]
    assert afters("negate-literal", F, 2) == [((3,),)]
    # negating one of two equal literals would make a tautology: refused
    assert afters("negate-literal", F, 3) == []


def test_negate_both_and_converse_examples() -> None:
    assert afters("negate-both", F, 0) == [((1, -2),)]
    assert afters("negate-both", F, 1) == [((-1, -3),)]
    assert afters("negate-both", F, 2) == []
    # converse: only implications (one negative and one positive literal)
    assert afters("converse", F, 0) == [((1, -2),)]
    assert afters("converse", F, 1) == []
    assert afters("converse", Formula([[3, -1]]), 0) == [((-3, 1),)]


def test_substitute_examples() -> None:
    edits = EDITS.get("substitute").options(F, 0)
    assert [(e.params["literal"], e.params["old"], e.params["new"], e.after) for e in edits] == [
        (0, 1, 3, ((-3, 2),)),
        (1, 2, 3, ((-1, 3),)),
    ]
    # unit clause (~c): both other variables, polarity kept
    assert afters("substitute", F, 2) == [((-1,),), ((-2,),)]


def test_drop_insert_split_examples() -> None:
    drop = EDITS.get("drop").options(F, 1)
    assert drop[0].apply(F).clauses == ((-1, 2), (-3,), (2, 2))
    assert EDITS.get("drop").options(Formula([[1, 2]]), 0) == []
    inserted = EDITS.get("insert").options(Formula([[1, 2], [-1, -2]]), 0)
    assert [(e.position, e.after) for e in inserted] == [(1, ((1, -2),)), (1, ((-1, 2),))]
    assert inserted[0].apply(Formula([[1, 2], [-1, -2]])).clauses == ((1, 2), (1, -2), (-1, -2))
    split = EDITS.get("split").options(F, 0)[0]
    assert split.apply(F).clauses == ((-1,), (2,), (1, 3), (-3,), (2, 2))
    assert afters("split", F, 3) == []  # (b | b) has one distinct literal
    assert afters("split", F, 2) == []


def test_describe_and_text() -> None:
    edit = EDITS.get("negate-both").options(F, 1)[0]
    assert edit.describe(F) == "negate-both at clause 2: (a | c) -> (~a | ~c)"
    assert F.clause_text((-1, 3)) == "~a | c"
    assert Edit("insert", 4, (), ((1, 2),)).describe(F) == "insert at clause 5: nothing -> (a | b)"


def test_out_of_range_clause_index() -> None:
    for name in EDITS:
        with pytest.raises(ConfigError):
            EDITS.get(name).options(F, 4)
        with pytest.raises(ConfigError):
            EDITS.get(name).draw(F, -1, random.Random(0))


def test_apply_checks_the_clauses_in_place() -> None:
    with pytest.raises(ConfigError, match="expects"):
        Edit("drop", 0, ((1, 2),), ()).apply(F)
    with pytest.raises(ConfigError, match="outside"):
        Edit("drop", 4, ((1, 2),), ()).apply(F)
    with pytest.raises(ConfigError, match="variables"):
        Edit("insert", 0, (), ((1, 9),)).apply(F)


@pytest.mark.parametrize(
    "obj",
    [
        [],
        {"operator": "drop", "position": 0, "before": [[1]]},
        {"operator": 3, "position": 0, "before": [], "after": []},
        {"operator": "drop", "position": -1, "before": [], "after": []},
        {"operator": "drop", "position": True, "before": [], "after": []},
        {"operator": "drop", "position": 0, "before": [[0]], "after": []},
        {"operator": "drop", "position": 0, "before": [1], "after": []},
        {"operator": "drop", "position": 0, "before": [], "after": [], "params": []},
    ],
)
def test_from_json_rejects_malformed(obj: object) -> None:
    with pytest.raises(RecordError):
        Edit.from_json(obj)  # type: ignore[arg-type]


def _is_tautology(clause: tuple[int, ...]) -> bool:
    return any(-lit in clause for lit in clause)


def _check_option(name: str, formula: Formula, index: int, edit: Edit) -> None:
    """The defining property of each operator, checked from the clauses alone."""
    clause = tuple(formula.clauses[index])
    assert edit.operator == name
    result = edit.apply(formula)
    assert result.num_vars == formula.num_vars and result.names == formula.names
    assert result.num_clauses == formula.num_clauses + len(edit.after) - len(edit.before)
    start, stop = edit.position, edit.position + len(edit.before)
    assert tuple(result.clauses[:start]) == tuple(formula.clauses[:start])
    assert tuple(result.clauses[start + len(edit.after) :]) == tuple(formula.clauses[stop:])
    assert tuple(result.clauses[start : start + len(edit.after)]) == edit.after
    for new in edit.after:
        assert not _is_tautology(new)
    if name == "insert":
        assert edit.position == index + 1 and edit.before == ()
        (new,) = edit.after
        assert len(new) == 2 and abs(new[0]) != abs(new[1])
        assert {abs(x) for x in new} <= formula.used_variables
        assert all(sorted(set(c)) != sorted(new) for c in formula.clauses)
        return
    assert edit.position == index and edit.before == (clause,)
    if name == "drop":
        assert edit.after == () and formula.num_clauses >= 2
        return
    if name == "split":
        assert len(clause) == 2 and clause[0] != clause[1]
        assert edit.after == ((clause[0],), (clause[1],))
        return
    (new,) = edit.after
    assert len(new) == len(clause) and sorted(set(new)) != sorted(set(clause))
    if name == "negate-literal":
        differs = [k for k in range(len(clause)) if new[k] != clause[k]]
        assert len(differs) == 1 and new[differs[0]] == -clause[differs[0]]
    elif name in ("negate-both", "converse"):
        assert len(clause) == 2 and new == (-clause[0], -clause[1])
        if name == "converse":
            assert (clause[0] > 0) != (clause[1] > 0)
    elif name == "substitute":
        differs = [k for k in range(len(clause)) if new[k] != clause[k]]
        assert len(differs) == 1
        k = differs[0]
        assert (new[k] > 0) == (clause[k] > 0)
        assert abs(new[k]) in formula.used_variables
        assert abs(new[k]) not in {abs(x) for x in clause}


@settings(max_examples=80)
@given(small_2cnf(prefix="v"))
def test_every_option_has_its_operators_shape(formula: Formula) -> None:
    for name in EDITS:
        for index in range(formula.num_clauses):
            options = EDITS.get(name).options(formula, index)
            assert len(set(options_key(e) for e in options)) == len(options)
            for edit in options:
                _check_option(name, formula, index, edit)


def options_key(edit: Edit) -> tuple[object, ...]:
    return (edit.position, edit.before, edit.after)


@settings(max_examples=60)
@given(small_2cnf(prefix="v"), st.integers(0, 2**32))
def test_draw_is_one_of_the_options_and_seeded(formula: Formula, seed: int) -> None:
    for name in EDITS:
        op = EDITS.get(name)
        for index in range(formula.num_clauses):
            options = {options_key(e) for e in op.options(formula, index)}
            drawn = op.draw(formula, index, random.Random(seed))
            again = op.draw(formula, index, random.Random(seed))
            assert drawn == again
            if drawn is None:
                assert not options
            else:
                assert options_key(drawn) in options


@settings(max_examples=60)
@given(small_2cnf(prefix="v"), st.data())
def test_edit_json_round_trip(formula: Formula, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(EDITS.names()))
    index = data.draw(st.integers(0, formula.num_clauses - 1))
    options = EDITS.get(name).options(formula, index)
    if not options:
        return
    edit = data.draw(st.sampled_from(options))
    obj = edit.to_json(formula)
    assert obj["before_text"] == [formula.clause_text(c) for c in edit.before]
    back = Edit.from_json(obj)
    assert back == edit
    assert back.apply(formula) == edit.apply(formula)


PARAM_VALUES = st.one_of(
    st.integers(-1, 6), st.just(True), st.just(1.0), st.none(), st.text(max_size=2)
)


@settings(max_examples=200)
@given(small_2cnf(), st.sampled_from(sorted(EDITS.names())), st.data())
def test_is_option_is_membership_in_the_options(f: Formula, name: str, data: st.DataObject) -> None:
    """``is_option`` (built for speed) says exactly whether an edit equals one of the
    operator's options: for the options themselves and for edits with changed fields."""
    op = EDITS.get(name)
    if f.num_clauses == 0:
        return
    index = data.draw(st.integers(0, f.num_clauses - 1))
    options = op.options(f, index)  # an insertion's position is the clause it follows + 1
    position = index + 1 if name == "insert" else index
    if options:
        edit = data.draw(st.sampled_from(options))
    else:
        edit = Edit(name, position, (tuple(f.clauses[index]),), (), {})
    params = dict(edit.params)
    for key in data.draw(st.lists(st.sampled_from(["literal", "old", "new", "extra"]), max_size=2)):
        params[key] = data.draw(PARAM_VALUES)
    after = edit.after
    if data.draw(st.booleans()) and after and after[0]:
        after = ((-after[0][0], *after[0][1:]),)
    for candidate in (edit, Edit(name, position, edit.before, after, params)):
        assert op.is_option(f, candidate) == any(candidate == o for o in options)
    assert not op.is_option(f, Edit(name, -1, edit.before, edit.after, edit.params))
