"""An edited prompt differs from its base prompt only in the edited clauses' sentences.

The example JSON of a prompt takes its entities from the unedited formula, so an edit
that changes which variables come first leaves the example block as it is; ``verbalize``
on a dataset, the experiment runner, ``certify`` and the pre-send check of ``eval``
all derive it that way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.formula_strategies import clause_lists
from twosat_formal.certify import certify_files
from twosat_formal.certify.rederive import rederive_prompt
from twosat_formal.core.formula import Formula
from twosat_formal.errors import UnverifiedPromptError
from twosat_formal.evaluate.run.items import EvalItem
from twosat_formal.evaluate.run.verify import verify_item
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.io.jsonl import RawLine
from twosat_formal.make.edits import (
    apply_edit,
    cumulative_edits,
    edit_steps,
    individual_edits,
    root_instance,
    undo_edits,
)
from twosat_formal.make.edits.operators import default_operators
from twosat_formal.verbalize import FORMATS, TEMPLATES, example_formula, prompt_record
from twosat_formal.verbalize.lines import instance_prompt_lines
from twosat_formal.verbalize.prompts import PromptRecord

clauses_2cnf = clause_lists(max_var=6, min_size=3, max_size=10)


def prompts_of(instance: Instance, templates: Sequence[str], seed: int) -> list[dict[str, Any]]:
    """The prompt records ``verbalize`` writes for one dataset line."""
    line = RawLine("<test>", 1, json.dumps(instance.to_record()))
    return [json.loads(text) for text in instance_prompt_lines(templates, seed, line)]


def expected_lines(
    base_text: str, entity_map: Mapping[str, str], template: str, steps: Sequence[Mapping[str, Any]]
) -> list[str]:
    """The base prompt's lines with each edit's splice made on its sentences (line 0: preamble)."""
    scheme = TEMPLATES.get(template)
    by_name = {name: entity for entity, name in entity_map.items()}
    names = list(entity_map.values())

    def sentence(clause: Sequence[int]) -> str:
        return scheme.sentence([(by_name[names[abs(lit) - 1]], lit > 0) for lit in clause])

    lines = base_text.split("\n")
    for step in steps:
        start = 1 + step["position"]
        lines[start : start + len(step["before"])] = [sentence(c) for c in step["after"]]
    return lines


def edited_of(base: Instance, seed: int) -> list[Instance]:
    ops = default_operators(premise=True)
    chain = cumulative_edits(base, max_edits=3, seed=seed, operators=ops, order="shuffled")
    single = individual_edits(base, count=3, seed=seed, operators=ops)
    return [e.instance for e in (*chain.levels, *single.all())]


@settings(max_examples=30, deadline=None)
@given(clauses_2cnf, st.integers(0, 2**20), st.sampled_from(TEMPLATES.names()))
def test_an_edited_prompt_changes_only_the_edited_sentences(
    clauses: list[list[int]], seed: int, template: str
) -> None:
    base = root_instance(Formula(clauses))
    (base_prompt,) = prompts_of(base, [template], seed)
    for edited in edited_of(base, seed):
        (prompt,) = prompts_of(edited, [template], seed)
        assert prompt["entities"] == base_prompt["entities"]
        if template not in FORMATS:  # a format's lines also carry their place (∧, number)
            steps = edit_steps(edited.transforms)
            want = expected_lines(base_prompt["text"], base_prompt["entities"], template, steps)
            assert prompt["text"].split("\n") == want
        # what certify re-derives is what was written
        again = rederive_prompt(prompt, edited.formula, list(edited.transforms))
        assert again["text"] == prompt["text"] and again["id"] == prompt["id"]


@settings(max_examples=30, deadline=None)
@given(clauses_2cnf, st.integers(0, 2**20))
def test_undo_edits_gives_back_the_origin(clauses: list[list[int]], seed: int) -> None:
    base = root_instance(Formula(clauses))
    for edited in edited_of(base, seed):
        assert undo_edits(edited.formula, edited.transforms) == base.formula
        assert example_formula(edited.formula, edited.transforms) == base.formula
    assert example_formula(base.formula, base.transforms) is base.formula


def example_block(text: str) -> str:
    return text[text.index("Example format:") :]


# the first clause's variables lead the example; substituting one changes the order
BASE = root_instance(Formula.from_named([["a", "b"], ["~b", "c"], ["c", "d"], ["~d", "a"]]))
EDITED = apply_edit(BASE, "substitute", position=0, seed=3).instance


def test_the_fixture_moves_a_variable_out_of_first_place() -> None:
    own = prompt_record(EDITED.formula, "logic", instance_id=EDITED.id, seed=1)
    base = prompt_record(BASE.formula, "logic", instance_id=BASE.id, seed=1)
    assert example_block(own.text) != example_block(base.text)
    (written,) = prompts_of(EDITED, ["logic"], 1)
    assert example_block(written["text"]) == example_block(base.text)


def test_certify_refuses_an_example_taken_from_the_edited_formula(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    write_instances([BASE, EDITED], data)
    good = [*prompts_of(BASE, ["logic", "room"], 1), *prompts_of(EDITED, ["logic", "room"], 1)]
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps(p) + "\n" for p in good), encoding="utf-8")
    report = certify_files([data, prompts])
    assert report.ok, [str(f) for f in report.failures]
    own = prompt_record(EDITED.formula, "logic", instance_id=EDITED.id, seed=1).to_record()
    prompts.write_text(json.dumps(own) + "\n", encoding="utf-8")
    report = certify_files([data, prompts])
    assert not report.ok and own["id"] in report.failing_ids


def test_eval_checks_the_example_of_an_edited_prompt() -> None:
    (written,) = prompts_of(EDITED, ["team"], 4)
    good = PromptRecord.from_record(written)
    item = EvalItem(good, EDITED.formula, EDITED.label, EDITED.to_record())
    verify_item(item)
    own = prompt_record(EDITED.formula, "team", instance_id=EDITED.id, seed=4)
    with pytest.raises(UnverifiedPromptError):
        verify_item(EvalItem(own, EDITED.formula, EDITED.label, EDITED.to_record()))
