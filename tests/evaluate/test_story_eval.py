"""Scoring and evaluating answers to story prompts (App. G.2, story variant).

A story prompt lists each entity with its own true and false description, so a
witness maps every entity to one of *its* descriptions. The reference reasoners read
template prompts only, so the answers here are written by hand: a brute-force oracle
written in this file gives each entity the description of its value. Story records
come from the story verbalizer talking to the scripted loopback server of
:mod:`story_support`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.certify.test_certify_story import _attested
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from tests.support.story import story_record
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.evaluate.models.base import Response, SamplingParams
from twosat_formal.evaluate.run import (
    EvalItem,
    StoryPrompt,
    load_items,
    read_eval_prompts,
    run_eval,
    story_counts,
)
from twosat_formal.evaluate.scoring import check_witness, score
from twosat_formal.evaluate.store import RunStore
from twosat_formal.io.instance import write_instances
from twosat_formal.make.edits.classify import root_instance
from twosat_formal.solve import solve
from twosat_formal.verbalize import verbalize
from twosat_formal.verbalize.prompts import write_prompts
from twosat_formal.verbalize.story import THEMES, StoryRecord, write_stories
from twosat_formal.verbalize.story.generator import StoryItem

FORMULAS = {
    "sat-1": Formula.from_named([["a", "~b"], ["b", "c"], ["~c", "d"], ["a", "d"]]),
    "sat-2": Formula.from_named([["p", "q"], ["~p", "r"], ["~q", "~r"]]),
    "unsat-1": Formula.from_named([["x", "y"], ["~x", "y"], ["x", "~y"], ["~x", "~y"]]),
}
THEME_OF = {"sat-1": "heist", "sat-2": "spy", "unsat-1": "detective"}
#: Each formula as a certifiable root instance (family ``file``), by key.
ROOTS = {key: root_instance(formula) for key, formula in FORMULAS.items()}
#: The key of each instance id.
KEY_OF = {root.id: key for key, root in ROOTS.items()}


def cert(formula: Formula) -> dict[str, object]:
    """The solver's certificate of ``formula``, as an instance record holds it."""
    return dict(solve(formula).to_json(formula))


# -- written independently of the code under test ----------------------------------------------


def satisfies(formula: Formula, values: Mapping[str, bool]) -> bool:
    """Whether ``values`` (variable name → value) makes every clause true."""
    names = formula.names
    return all(
        any(values.get(names[abs(lit) - 1]) == (lit > 0) for lit in clause)
        for clause in formula.clauses
    )


def brute_model(formula: Formula) -> dict[str, bool] | None:
    for bits in itertools.product([False, True], repeat=formula.num_vars):
        values = dict(zip(formula.names, bits, strict=True))
        if satisfies(formula, values):
            return values
    return None


def described(record: StoryRecord, values: Mapping[str, bool]) -> dict[str, str]:
    """The witness object of an assignment: each entity with the description of its value."""
    theme = THEMES.get(record.theme)
    out = {}
    for entity, variable in record.entities.items():
        true, false = theme.describe(entity)
        out[entity] = true if values[variable] else false
    return out


def oracle_answer(record: StoryRecord, formula: Formula) -> str:
    """What a perfect model answers to a story prompt, by hand."""
    model = brute_model(formula)
    if model is None:
        return "Every way of reading the clues ends in a contradiction.\n\nThe answer is: No"
    witness = json.dumps(described(record, model), indent=2, ensure_ascii=False)
    return f"Working through the clues one by one.\n\n```json\n{witness}\n```\n\nThe answer is: Yes"


def label_of(formula: Formula) -> str:
    return "SAT" if brute_model(formula) is not None else "UNSAT"


# -- story records from the scripted server ----------------------------------------------------


def tell(instance_id: str, formula: Formula, theme: str) -> StoryRecord:
    item = StoryItem(instance_id, formula, label_of(formula))
    return story_record(item, theme, {(1, 0): "wrong-polarity"}, seed=1)


STORIES = {key: tell(ROOTS[key].id, formula, THEME_OF[key]) for key, formula in FORMULAS.items()}


def prompt_of(key: str) -> StoryPrompt:
    return StoryPrompt.from_story(STORIES[key])


def answer(key: str, text: str) -> Any:
    formula = FORMULAS[key]
    return score(Response(text), prompt_of(key), formula, label_of(formula))


# -- scoring -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(FORMULAS))
def test_the_oracle_is_scored_correct_on_story_prompts(key: str) -> None:
    judgement = answer(key, oracle_answer(STORIES[key], FORMULAS[key]))
    assert judgement.failure == "correct" and judgement.lenient_failure == "correct"
    assert judgement.decision == label_of(FORMULAS[key])
    if judgement.label == "SAT":
        assert judgement.witness_valid is True
        assert judgement.witness == brute_model(FORMULAS[key])
    else:
        assert judgement.witness_valid is None


def test_the_story_prompt_lists_the_values_scoring_accepts() -> None:
    record = STORIES["sat-1"]
    for entity, (true, false) in prompt_of("sat-1").entity_values.items():
        assert f'  - "{entity}": "{true}" or "{false}"\n' in record.text
    assert prompt_of("sat-1").template == "story:heist"


def with_value(key: str, entity_index: int, value: str) -> str:
    record, formula = STORIES[key], FORMULAS[key]
    model = brute_model(formula)
    assert model is not None
    witness = described(record, model)
    witness[list(witness)[entity_index]] = value
    return json.dumps(witness) + "\nThe answer is: Yes"


def test_scheme_wide_words_are_not_story_values() -> None:
    record, formula = STORIES["sat-1"], FORMULAS["sat-1"]
    entity, variable = next(iter(record.entities.items()))
    model = brute_model(formula)
    assert model is not None
    word = "true" if model[variable] else "false"
    judgement = answer("sat-1", with_value("sat-1", 0, word))
    assert judgement.failure == "invalid-witness" and judgement.witness_valid is False
    true, false = THEMES.get("heist").describe(entity)
    assert judgement.witness_reason == (
        f"entity {entity!r} has the value {word!r}, not {true!r} or {false!r}"
    )
    # the lenient reading takes the words true and false, as it does for templates
    assert judgement.lenient_failure == "correct" and judgement.lenient_witness_valid is True


def test_another_entitys_description_is_an_invalid_witness() -> None:
    record = STORIES["sat-1"]
    first, second = list(record.entities)[:2]
    theme = THEMES.get("heist")
    foreign = next(d for d in theme.describe(second) if d not in theme.describe(first))
    judgement = answer("sat-1", with_value("sat-1", 0, foreign))
    assert judgement.failure == "invalid-witness"
    assert judgement.witness_reason is not None
    assert judgement.witness_reason.startswith(f"entity {first!r} has the value {foreign!r}")
    assert judgement.lenient_failure == "invalid-witness"


def test_an_unknown_entity_is_an_invalid_witness() -> None:
    record, formula = STORIES["sat-2"], FORMULAS["sat-2"]
    model = brute_model(formula)
    assert model is not None
    witness = described(record, model)
    witness["the pirate"] = "buried the treasure"
    judgement = answer("sat-2", json.dumps(witness) + "\nThe answer is: Yes")
    assert judgement.failure == "invalid-witness"
    assert judgement.witness_reason == "unknown entity 'the pirate'"


def test_a_witness_that_breaks_a_clause_names_it() -> None:
    record, formula = STORIES["sat-2"], FORMULAS["sat-2"]
    values = dict.fromkeys(formula.names, True)  # ~q | ~r is false
    judgement = answer("sat-2", json.dumps(described(record, values)) + "\nThe answer is: Yes")
    assert judgement.failure == "invalid-witness"
    assert judgement.witness_reason == "clause 3 (~q | ~r) is false"


def test_case_and_spacing_are_forgiven_only_leniently() -> None:
    record, formula = STORIES["sat-1"], FORMULAS["sat-1"]
    model = brute_model(formula)
    assert model is not None
    shouted = {e.upper(): "  " + d.upper() for e, d in described(record, model).items()}
    judgement = answer("sat-1", json.dumps(shouted) + "\nThe answer is: Yes")
    assert judgement.failure == "invalid-witness" and judgement.lenient_failure == "correct"


@settings(max_examples=60, deadline=None)
@given(key=st.sampled_from(sorted(FORMULAS)), bits=st.lists(st.booleans(), min_size=4))
def test_a_described_assignment_is_valid_exactly_when_it_satisfies_the_formula(
    key: str, bits: list[bool]
) -> None:
    record, formula = STORIES[key], FORMULAS[key]
    values = {name: bits[i % len(bits)] for i, name in enumerate(formula.names)}
    check = check_witness(described(record, values), prompt_of(key), formula)
    assert check.valid == satisfies(formula, values)
    assert check.assignment == values


def test_a_story_prompt_without_descriptions_stops_the_run(tmp_path: Path) -> None:
    prompt = prompt_of("sat-2")
    values = dict(prompt.entity_values)
    values.pop(next(iter(values)))
    broken = StoryPrompt(
        prompt.id, prompt.instance_id, prompt.template, prompt.text, prompt.entities, values
    )
    item = EvalItem(broken, FORMULAS["sat-2"], "SAT")

    class Never:
        spec, endpoint = "test/never", "local"

        async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
            raise AssertionError("no request may be sent")

        async def aclose(self) -> None:
            pass

    with RunStore(tmp_path / "s.sqlite") as store, pytest.raises(ConfigError) as caught:
        asyncio.run(run_eval([Never()], [item], store))
    assert "has no true and false descriptions" in str(caught.value)
    assert prompt.id in str(caught.value)


# -- loading and evaluating story files ---------------------------------------------------------


def write_inputs(folder: Path) -> tuple[Path, Path]:
    stories = folder / "stories.jsonl"
    write_stories(STORIES.values(), stories)
    dataset = folder / "data.jsonl"
    write_instances(list(ROOTS.values()), dataset)
    return stories, dataset


def test_a_file_may_mix_template_and_story_prompts(tmp_path: Path) -> None:
    stories, dataset = write_inputs(tmp_path)
    template = verbalize(FORMULAS["sat-2"], "team", seed=0).record(ROOTS["sat-2"].id, None)
    mixed = tmp_path / "mixed.jsonl"
    write_prompts([template], mixed)
    with mixed.open("a", encoding="utf-8") as out:
        out.write(stories.read_text(encoding="utf-8"))
    read = list(read_eval_prompts(mixed))
    assert [type(p).__name__ for p in read] == ["PromptRecord"] + ["StoryPrompt"] * 3
    for with_dataset in (None, dataset):
        items = load_items(mixed, dataset=with_dataset)
        assert [i.prompt.template for i in items] == [
            "team",
            "story:heist",
            "story:spy",
            "story:detective",
        ]
        for item in items:
            key = KEY_OF[item.prompt.instance_id]
            assert item.label == label_of(FORMULAS[key])
            assert item.formula == FORMULAS[key]
    assert len(load_items(mixed, limit=2)) == 2


def test_a_malformed_story_line_is_an_error_with_its_line(tmp_path: Path) -> None:
    record = STORIES["sat-1"].to_record()
    del record["intro"]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(RecordError) as caught:
        load_items(path)
    assert caught.value.line == 2 and "missing field 'intro'" in str(caught.value)


def eval_summary(
    capsys: pytest.CaptureFixture[str],
    stories: Path,
    store: Path,
    spec: str,
    server: FaultServer,
    *options: str,
) -> dict[str, Any]:
    """``eval`` of ``stories`` by ``spec`` against ``server`` into ``store`` (and
    ``options``): its JSON summary; the command must succeed."""
    code, out, err = cli(
        capsys, "eval", str(stories), "--store", str(store), "-m", spec,
        "--base-url", server.url, "--no-progress", "--json", *options,
    )  # fmt: skip
    assert code == 0, err
    summary: dict[str, Any] = json.loads(out)
    return summary


@pytest.fixture
def oracle_answers(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The oracle's answer to each story prompt; no API key in the environment."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return {r.text: oracle_answer(r, FORMULAS[k]) for k, r in STORIES.items()}


def test_eval_scores_story_prompts_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oracle_answers: dict[str, str]
) -> None:
    stories, dataset = write_inputs(tmp_path)
    sloppy = dict(oracle_answers)
    sat_key = "sat-2"
    sloppy[STORIES[sat_key].text] = with_value(sat_key, 0, "yes")
    store = tmp_path / "runs.sqlite"
    with FaultServer(answer=oracle_answers) as good, FaultServer(answer=sloppy) as bad:
        for spec, server in (("openai/by-hand", good), ("openai/sloppy", bad)):
            summary = eval_summary(capsys, stories, store, spec, server, "--dataset", str(dataset))
            assert summary["done"] == 3
            attested = sum(_attested(r.to_record()) for r in STORIES.values())
            assert summary["verification"]["story_fields_attested"] == attested > 0
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.export_rows())
        results = {(r["model"], r["prompt_id"]): r for r in run_store.results()}
        prompts = {p.prompt_id: p for p in run_store.prompts()}
        infos = [run["info"] for run in run_store.runs()]
    assert {(r["model"], r["template"], r["failure"]) for r in rows} == {
        ("openai/by-hand", "story:heist", "correct"),
        ("openai/by-hand", "story:spy", "correct"),
        ("openai/by-hand", "story:detective", "correct"),
        ("openai/sloppy", "story:heist", "correct"),
        ("openai/sloppy", "story:spy", "invalid-witness"),
        ("openai/sloppy", "story:detective", "correct"),
    }
    wrong = results[("openai/sloppy", STORIES[sat_key].id)]
    entity = next(iter(STORIES[sat_key].entities))
    assert wrong["witness_reason"].startswith(f"entity {entity!r} has the value 'yes', not ")
    stored = prompts[STORIES[sat_key].id]
    assert stored.template == "story:spy" and stored.true_value is None
    assert dict(stored.entities) == STORIES[sat_key].entities
    # each run keeps the validation counts of the stories it asked
    for info in infos:
        assert info["stories"] == story_counts(STORIES.values())
        assert set(info["stories"]) == {r.id for r in STORIES.values()}
        spy = info["stories"][STORIES["sat-2"].id]
        assert spy["theme"] == "spy" and spy["llm_clauses"] == 3
        assert spy["first_attempt"] == 2 and spy["fallbacks"] == 0


def test_eval_without_a_dataset_scores_stories_against_their_recovered_formulas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], oracle_answers: dict[str, str]
) -> None:
    stories, _ = write_inputs(tmp_path)
    store = tmp_path / "runs.sqlite"
    with FaultServer(answer=oracle_answers) as server:
        summary = eval_summary(capsys, stories, store, "openai/by-hand", server)
    assert summary["failures"] == {"correct": 3}
    attested = sum(_attested(r.to_record()) for r in STORIES.values())
    assert summary["verification"]["story_fields_attested"] == attested > 0
