"""Edited formulas verbalize under the base's entity map: only the edited sentences change."""

from __future__ import annotations

import pytest

from twosat_formal.core.formula import Formula
from twosat_formal.make.edits import (
    EDITS,
    Edit,
    EditedInstance,
    apply_edit,
    cumulative_edits,
    individual_edits,
    root_instance,
)
from twosat_formal.verbalize import FORMATS, TEMPLATES, prove_roundtrip, verbalize

BASE = root_instance(
    Formula.from_named(
        [["~a", "b"], ["b", "c"], ["~c", "~d"], ["d", "a"], ["~b", "e"], ["e"], ["~e", "c"]]
    )
)


def sentences(formula: Formula, template: str, **kwargs: object) -> list[str]:
    prompt = verbalize(formula, template, **kwargs)  # type: ignore[arg-type]
    lines = prompt.verbalization.split("\n")
    return lines[1 : 1 + formula.num_clauses]


def edited_samples() -> list[EditedInstance]:
    samples = [
        apply_edit(BASE, name, position=i, seed=i)
        for name in EDITS
        for i in range(BASE.formula.num_clauses)
        if EDITS.get(name).options(BASE.formula, i)
    ]
    samples += list(individual_edits(BASE, count=2, seed=3).all())
    return samples


def check_only_the_splice_changed(
    template: str, seed: int, before: Formula, after: Formula, edit: Edit
) -> None:
    old, new = sentences(before, template, seed=seed), sentences(after, template, seed=seed)
    start = edit.position
    assert new[:start] == old[:start]
    assert new[start + len(edit.after) :] == old[start + len(edit.before) :]
    changed_old = old[start : start + len(edit.before)]
    changed_new = new[start : start + len(edit.after)]
    assert changed_old != changed_new


# the sentence schemes: a format's lines also carry their place (the ∧ closing all lines
# but the last, a taster's number, the DIMACS header's clause count)
@pytest.mark.parametrize("template", [n for n in TEMPLATES.names() if n not in FORMATS])
def test_single_edits_change_only_their_sentences(template: str) -> None:
    seed = 11
    base_prompt = verbalize(BASE.formula, template, seed=seed)
    for edited in edited_samples():
        formula = edited.instance.formula
        prompt = verbalize(formula, template, seed=seed)
        # the same entity map, whether drawn from the seed or passed explicitly
        assert prompt.entities == base_prompt.entities
        assert prompt.variables == base_prompt.variables
        explicit = verbalize(formula, template, entities=base_prompt.entities)
        assert explicit.verbalization == prompt.verbalization
        check_only_the_splice_changed(template, seed, BASE.formula, formula, edited.edits[0])


@pytest.mark.parametrize("template", ["logic", "team", "door"])
def test_roundtrip_proof_holds_for_edited_formulas(template: str) -> None:
    base_prompt = verbalize(BASE.formula, template, seed=2)
    for edited in edited_samples()[::3]:
        formula = edited.instance.formula
        prompt = verbalize(formula, template, entities=base_prompt.entities)
        proof = prove_roundtrip(formula, prompt.text, template, prompt.entity_map())
        assert proof["result"] == "proved"
        assert proof["clauses"] == formula.num_clauses


def test_cumulative_levels_change_one_splice_each() -> None:
    chain = cumulative_edits(BASE, max_edits=4, seed=7, order="shuffled")
    assert chain.reached >= 2
    previous = BASE.formula
    for edited in chain.levels:
        formula = edited.instance.formula
        check_only_the_splice_changed("social", 4, previous, formula, edited.edits[-1])
        prompt = verbalize(formula, "social", seed=4)
        assert prove_roundtrip(formula, prompt.text, "social", prompt.entity_map())
        previous = formula
