"""Classification of edits, checked by brute force; edited instances and their records."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_label
from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, NotTwoCNFError, RecordError
from twosat_formal.io.instance import Instance
from twosat_formal.make.edits import (
    CHANGING,
    EDITS,
    PRESERVING,
    Edit,
    apply_edit,
    build_edited,
    classify_edit,
    edit_steps,
    replay_edits,
    root_instance,
)
from twosat_formal.make.edits.classify import EditOutcome, edited_id
from twosat_formal.solve import check_certificate_json


def satisfies(model: dict[str, bool], formula: Formula) -> bool:
    values = [model[name] for name in formula.names]
    return all(any(values[abs(lit) - 1] == (lit > 0) for lit in c) for c in formula.clauses)


@settings(max_examples=40)
@given(small_2cnf(max_vars=4))
def test_every_edit_is_classified_as_brute_force_says(formula: Formula) -> None:
    label = brute_label(formula)
    for name in EDITS:
        for index in range(formula.num_clauses):
            for edit in EDITS.get(name).options(formula, index):
                outcome = classify_edit(formula, label, edit)
                expected = brute_label(edit.apply(formula))
                assert outcome.label_after == expected
                assert outcome.kind == (PRESERVING if expected == label else CHANGING)
                assert outcome.certificate["status"] == expected
                if expected == "SAT":
                    assert satisfies(outcome.certificate["model"], outcome.formula)
                check_certificate_json(outcome.formula, outcome.certificate)


@settings(max_examples=40)
@given(small_2cnf(max_vars=4), st.sampled_from(["negate-literal", "substitute", "drop", "insert"]))
def test_apply_edit_builds_a_consistent_instance(formula: Formula, name: str) -> None:
    base = root_instance(formula)
    assert base.label == brute_label(formula)
    for index in range(formula.num_clauses):
        if not EDITS.get(name).options(formula, index):
            with pytest.raises(ConfigError, match="cannot change"):
                apply_edit(base, name, position=index)
            continue
        edited = apply_edit(base, name, position=index, seed=index)
        inst = edited.instance
        assert inst.label == brute_label(inst.formula)
        assert edited.kind == (PRESERVING if inst.label == base.label else CHANGING)
        assert inst.base_id == base.id and inst.id != base.id
        assert inst.formula.num_vars == formula.num_vars
        (step,) = inst.transforms
        assert step["kind"] == "edit" and step["operator"] == name
        assert step["position"] == edited.edits[0].position
        assert step["label_before"] == base.label and step["label_after"] == inst.label
        assert step["class"] == edited.kind and step["level"] == 1
        assert step["origin"] == base.id and step["mode"] == "single"
        assert replay_edits(formula, inst.transforms) == inst.formula
        again = Instance.from_record(inst.to_record())
        assert again == inst


def test_hand_classification() -> None:
    # (a | b) & (~a | b) & (a | ~b) is SAT only with a = b = true
    base = root_instance(Formula.from_named([["a", "b"], ["~a", "b"], ["a", "~b"]]))
    assert base.label == "SAT"
    kill = Edit("insert", 3, (), ((-1, -2),))
    assert classify_edit(base.formula, "SAT", kill).kind == CHANGING
    relax = Edit("drop", 0, ((1, 2),), ())
    out = classify_edit(base.formula, "SAT", relax)
    assert out.kind == PRESERVING and out.preserving
    split = apply_edit(base, "split", position=1)
    assert split.instance.formula.clauses == ((1, 2), (-1,), (2,), (1, -2))
    assert split.label == "UNSAT" and split.kind == CHANGING
    assert split.instance.transforms[0]["after_text"] == ["~a", "b"]


def test_apply_edit_errors() -> None:
    with pytest.raises(ConfigError, match="converse cannot change clause 1"):
        apply_edit(Formula([[1, 2], [2]]), "converse", position=0)
    with pytest.raises(ConfigError):
        apply_edit(Formula([[1, 2]]), "negate-literal", position=3)
    with pytest.raises(NotTwoCNFError):
        apply_edit(Formula([[1, 2, 3]]), "negate-literal", position=0)
    with pytest.raises(ConfigError, match="mode"):
        build_edited(root_instance(Formula([[1]])), [], mode="nope", seed=0)
    with pytest.raises(ConfigError, match="at least one"):
        build_edited(root_instance(Formula([[1]])), [], mode="single", seed=0)


def test_root_instance_ids_depend_on_names_and_clauses() -> None:
    a = root_instance(Formula.from_named([["p", "q"]]))
    assert a.id == root_instance(Formula.from_named([["p", "q"]])).id
    assert a.id != root_instance(Formula.from_named([["p", "r"]])).id
    assert a.id != root_instance(Formula.from_named([["q", "p"]], variables=["p"])).id
    assert root_instance(Formula([[1]]), source="f.cnf").provenance["source"] == "f.cnf"


def test_chain_must_follow_itself() -> None:
    base = root_instance(Formula([[1, 2], [-1, 2], [2, 3]]))
    first = classify_edit(base.formula, base.label, Edit("drop", 0, ((1, 2),), ()))
    stray = classify_edit(base.formula, base.label, Edit("drop", 1, ((-1, 2),), ()))
    with pytest.raises(ConfigError, match="does not follow"):
        build_edited(base, [first, stray], mode="cumulative", seed=0)


def test_an_outcome_follows_the_formula_it_was_classified_on_without_a_second_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = root_instance(Formula([[1, 2], [-1, 2], [2, 3]]))
    first = classify_edit(base.formula, base.label, Edit("drop", 0, ((1, 2),), ()))
    second = classify_edit(first.formula, first.label_after, Edit("drop", 0, ((-1, 2),), ()))
    by_hand = EditOutcome(first.edit, first.formula, "SAT", "SAT", dict(first.certificate))
    assert first._source is base.formula and by_hand._source is None
    expected = build_edited(base, [first, second], mode="cumulative", seed=0).instance
    calls: list[Edit] = []
    apply = Edit.apply
    monkeypatch.setattr(Edit, "apply", lambda self, f: calls.append(self) or apply(self, f))
    assert build_edited(base, [first, second], mode="cumulative", seed=0).instance == expected
    assert calls == []
    # an equal formula that is another object, or an outcome made by hand: applied again
    copy = Formula([[1, 2], [-1, 2], [2, 3]])
    again = root_instance(copy)
    assert build_edited(again, [first], mode="single", seed=0).instance.formula == first.formula
    assert build_edited(base, [by_hand], mode="single", seed=0).instance.formula == first.formula
    assert calls == [first.edit, first.edit]


def test_edit_of_a_derived_instance_keeps_the_root_and_its_chain() -> None:
    root = root_instance(Formula([[1, 2], [-1, 2]]))
    earlier = {"operator": "reorder", "params": {}}
    derived = Instance(
        id=root.id + "~x",
        family=root.family,
        params={},
        seed=0,
        formula=Formula([[-1, 2], [1, 2]]),
        label="SAT",
        certificate=root.certificate,
        structure={"base": {"note": 1}},
        provenance={},
        base_id=root.id,
        transforms=(earlier,),
    )
    edited = apply_edit(derived, "drop", position=0)
    inst = edited.instance
    assert inst.base_id == root.id
    assert inst.transforms[0] == earlier and len(edit_steps(inst.transforms)) == 1
    assert inst.transforms[1]["origin"] == derived.id
    assert inst.structure["base"] == {"note": 1}
    assert inst.id == edited_id(root.id, list(inst.transforms))
    with pytest.raises(RecordError, match="not an edit"):
        replay_edits(root.formula, inst.transforms)
    assert replay_edits(derived.formula, inst.transforms[1:]) == inst.formula


def test_replay_refuses_a_misplaced_edit() -> None:
    step = {"kind": "edit", "operator": "drop", "position": 0, "before": [[5, 6]], "after": []}
    with pytest.raises(ConfigError, match="expects"):
        replay_edits(Formula([[1, 2]], num_vars=6), [step])
