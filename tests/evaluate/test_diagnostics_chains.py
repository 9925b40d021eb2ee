"""Contradiction chains: hand-written answers for every way a chain can fail, in all six
templates, scored through the real prompt records; the store, export and CLI carry the
verdict; the reference reasoners answer with chains."""

from __future__ import annotations

import json
import sqlite3
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.cli import input_file, run
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics.chains import check_chain, extract_chain
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.models.reference import (
    BoundedModel,
    OracleModel,
    bounded_search,
    read_prompt,
)
from twosat_formal.evaluate.scoring import entity_variables, score, value_words
from twosat_formal.evaluate.store import RunStore
from twosat_formal.solve import solve
from twosat_formal.verbalize import TEMPLATES, prompt_record
from twosat_formal.verbalize.prompts import CYCLE_INSTRUCTION, PromptRecord

# a -> b -> ~a and ~a -> c -> a: UNSAT; d <-> e: a cycle without a contradiction
UNSAT = Formula.from_named(
    [["~a", "b"], ["~b", "~a"], ["a", "c"], ["~c", "a"], ["~d", "e"], ["~e", "d"]]
)
SAT = Formula.from_named([["~a", "b"], ["a", "c"]])


def step(record: PromptRecord, lit: int) -> dict[str, str]:
    names = {v: k for k, v in record.entities.items()}
    entity = names[UNSAT.name(abs(lit))]
    return {entity: record.true_value if lit > 0 else record.false_value}


def answer(chain: object) -> str:
    return "Reasoning.\n\n" + json.dumps({"chain": chain}) + "\n\nThe answer is: No"


A, B, C, D, E = 1, 2, 3, 4, 5
WALKS = {
    "valid": [A, B, -A, C, A],
    "valid without the repeated start": [A, B, -A, C],
    "valid from the negative side": [-A, C, A, B, -A],
    "bad-step": [A, C, -A, C, A],
    "not-closed": [A, B, -A],
    "no-contradiction": [D, E, D],
    "too-short": [A],
}


@pytest.fixture(params=TEMPLATES.names())
def record(request: pytest.FixtureRequest) -> PromptRecord:
    return prompt_record(UNSAT, request.param, instance_id="u", seed=3, ask_cycle=True)


@pytest.mark.parametrize("case", list(WALKS))
def test_walks_in_every_template(record: PromptRecord, case: str) -> None:
    chain = [step(record, lit) for lit in WALKS[case]]
    j = score(Response(answer(chain)), record, UNSAT, "UNSAT")
    assert j.failure == "correct"  # the chain never changes the decision's verdict
    if case.startswith("valid"):
        assert (j.cycle_valid, j.cycle_reason) == (True, None)
    else:
        assert j.cycle_valid is False
        assert j.cycle_reason is not None and j.cycle_reason.startswith(case + ":")


def test_bad_step_names_the_step(record: PromptRecord) -> None:
    chain = [step(record, lit) for lit in WALKS["bad-step"]]
    j = score(Response(answer(chain)), record, UNSAT, "UNSAT")
    first, second = (next(iter(s)) for s in chain[:2])
    assert j.cycle_reason is not None
    assert j.cycle_reason.startswith(f"bad-step: step 1 ({first} ")
    assert f"-> {second} " in j.cycle_reason


def test_unknown_entity_and_value(record: PromptRecord) -> None:
    good = [step(record, lit) for lit in WALKS["valid"]]
    stranger = [*good[:2], {"Zorblax 99": record.true_value}, *good[2:]]
    j = score(Response(answer(stranger)), record, UNSAT, "UNSAT")
    assert j.cycle_valid is False and j.cycle_reason == "unknown-entity: step 3 names 'Zorblax 99'"
    entity = next(iter(good[1]))
    maybe = [good[0], {entity: "maybe"}, *good[2:]]
    j = score(Response(answer(maybe)), record, UNSAT, "UNSAT")
    assert j.cycle_reason == f"unknown-value: step 2 gives 'maybe' to {entity}"


@pytest.mark.parametrize(
    "chain",
    ["a, b, ~a", [], [["A", "true"]], [{"A": "true", "B": "true"}], [{"A": True}]],
)
def test_malformed_chains(record: PromptRecord, chain: object) -> None:
    j = score(Response(answer(chain)), record, UNSAT, "UNSAT")
    assert j.cycle_valid is False
    assert j.cycle_reason is not None and j.cycle_reason.startswith("malformed:")


def test_no_chain_sat_instance_and_prompt_that_did_not_ask(record: PromptRecord) -> None:
    j = score(Response("The answer is: No"), record, UNSAT, "UNSAT")
    assert (j.cycle_valid, j.cycle_reason) == (None, "no-chain")
    sat_record = prompt_record(SAT, record.template, instance_id="s", seed=3, ask_cycle=True)
    j = score(Response(answer([{"x": "y"}])), sat_record, SAT, "SAT")
    assert (j.cycle_valid, j.cycle_reason) == (None, None)
    plain = prompt_record(UNSAT, record.template, instance_id="u", seed=3)
    chain = [step(plain, lit) for lit in WALKS["valid"]]
    j = score(Response(answer(chain)), plain, UNSAT, "UNSAT")
    assert (j.cycle_valid, j.cycle_reason) == (None, None)


def test_the_last_chain_counts_and_broken_json_is_skipped(record: PromptRecord) -> None:
    good = json.dumps({"chain": [step(record, lit) for lit in WALKS["valid"]]})
    bad = json.dumps({"chain": [step(record, lit) for lit in WALKS["not-closed"]]})
    assert extract_chain(bad + good + '{"chain": [') is not None
    j = score(
        Response(bad + "\n" + good + '\n{"chain": [\nThe answer is: No'), record, UNSAT, "UNSAT"
    )
    assert j.cycle_valid is True
    j = score(Response(good + "\n" + bad + "\nThe answer is: No"), record, UNSAT, "UNSAT")
    assert j.cycle_valid is False


# -- an independent definition of a valid chain, checked against random walks -------------


def independent_valid(walk: list[int], formula: Formula) -> bool:
    clauses = {frozenset(c) for c in formula.clauses}

    def edge(a: int, b: int) -> bool:
        return frozenset((-a, b)) in clauses or (a == -b and frozenset((b,)) in clauses)

    if len(walk) < 2 or not all(edge(a, b) for a, b in pairwise(walk)):
        return False
    if walk[-1] != walk[0] and not edge(walk[-1], walk[0]):
        return False
    return any(-lit in walk for lit in walk)


@given(st.lists(st.sampled_from([1, -1, 2, -2, 3, -3, 4, -4, 5, -5]), min_size=1, max_size=7))
def test_random_walks_agree_with_an_independent_definition(walk: list[int]) -> None:
    record = prompt_record(UNSAT, "logic", instance_id="u", seed=0, ask_cycle=True)
    chain = [step(record, lit) for lit in walk]
    verdict = check_chain(
        chain, entity_variables(record.entities, UNSAT), value_words(record), UNSAT
    )
    assert verdict.valid == independent_valid(walk, UNSAT)


# -- prompts, reference reasoners, store and CLI ------------------------------------------


def test_ask_cycle_prompt_record() -> None:
    plain = prompt_record(UNSAT, "room", instance_id="u", seed=1)
    asked = prompt_record(UNSAT, "room", instance_id="u", seed=1, ask_cycle=True)
    assert asked.id != plain.id and CYCLE_INSTRUCTION not in plain.text
    assert asked.text == plain.text.replace(
        "End your response", CYCLE_INSTRUCTION + "\n\nEnd your response"
    )
    assert PromptRecord.from_record(asked.to_record()) == asked
    assert "ask_cycle" not in plain.to_record()
    assert asked.roundtrip is not None and asked.roundtrip["result"] == "proved"


@pytest.mark.parametrize("template", TEMPLATES.names())
def test_oracle_chains_are_valid_and_bounded_has_limits(template: str) -> None:
    record = prompt_record(UNSAT, template, instance_id="u", seed=2, ask_cycle=True)
    oracle = OracleModel().respond(record.text)
    assert score(oracle, record, UNSAT, "UNSAT").cycle_valid is True
    enough = BoundedModel(budget=1000).respond(record.text)
    assert score(enough, record, UNSAT, "UNSAT").cycle_valid is True
    # the smallest budget that refutes the formula leaves no check for the chain
    read = read_prompt(record.text)
    budget = next(b for b in range(1, 1000) if bounded_search(read.formula, b).status == "UNSAT")
    short = BoundedModel(budget=budget).respond(record.text)
    j = score(short, record, UNSAT, "UNSAT")
    assert j.decision == "UNSAT" and j.cycle_valid is False
    plain = prompt_record(UNSAT, template, instance_id="u", seed=2)
    assert '"chain"' not in OracleModel().respond(plain.text).text


def test_oracle_chain_on_generated_unsat_instances() -> None:
    from twosat_formal.make.generators import generate

    for seed in range(4):
        inst = generate("implication-cycle", clauses=20, seed=seed)
        assert solve(inst.formula).status == "UNSAT"
        record = prompt_record(inst.formula, "team", instance_id=inst.id, seed=seed, ask_cycle=True)
        j = score(OracleModel().respond(record.text), record, inst.formula, "UNSAT")
        assert j.cycle_valid is True


def test_eval_store_and_export_carry_the_chain_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    formula_file = input_file(tmp_path, "f.cnf", "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    prompts = tmp_path / "p.jsonl"
    code, _, _ = run(
        ["verbalize", str(formula_file), "-t", "door", "--ask-cycle", "--out", str(prompts)],
        capsys,
    )
    assert code == 0 and json.loads(prompts.read_text())["ask_cycle"] is True
    store = tmp_path / "s.sqlite"
    argv = ["eval", str(prompts), "-m", "ref/oracle", "-m", "ref/coin", "--store", str(store)]
    code, _, _ = run([*argv, "--no-progress"], capsys)
    assert code == 0
    out = tmp_path / "r.jsonl"
    code, _, _ = run(["results", str(store), "--out", str(out)], capsys)
    rows = {r["model"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert (rows["ref/oracle"]["cycle_valid"], rows["ref/oracle"]["cycle_reason"]) == (True, None)
    assert rows["ref/coin"]["cycle_valid"] in (None, False)


def test_an_older_store_gains_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with RunStore(path):
        pass
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE results DROP COLUMN cycle_valid")
    db.execute("ALTER TABLE results DROP COLUMN cycle_reason")
    db.commit()
    db.close()
    with RunStore(path, readonly=True) as store:
        assert list(store.export_rows()) == []
    with RunStore(path) as store:
        columns = {row[1] for row in store._db.execute("PRAGMA table_info(results)")}
    assert {"cycle_valid", "cycle_reason"} <= columns


def test_ask_cycle_refuses_stories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    formula_file = tmp_path / "f.cnf"
    formula_file.write_text("p cnf 1 1\n1 0\n", encoding="utf-8")
    code, _, err = run(
        ["verbalize", str(formula_file), "--story", "spy", "-m", "ref/oracle", "--ask-cycle"],
        capsys,
    )
    assert code == 2 and "--ask-cycle" in err


def test_ask_cycle_prompts_certify_and_pass_the_eval_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from twosat_formal.certify import certify_files
    from twosat_formal.io.instance import write_instances
    from twosat_formal.make.generators import generate

    data, prompts = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
    write_instances([generate("implication-cycle", clauses=10, seed=1)], data)
    code, _, _ = run(
        ["verbalize", str(data), "-t", "all", "--ask-cycle", "--out", str(prompts)], capsys
    )
    assert code == 0
    report = certify_files([data, prompts])
    assert report.ok, [str(f) for f in report.failures]
    store = tmp_path / "s.sqlite"
    argv = ["eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle"]
    code, _, err = run([*argv, "--store", str(store), "--no-progress"], capsys)
    assert code == 0, err
    with RunStore(store, readonly=True) as opened:
        assert {r["cycle_valid"] for r in opened.export_rows()} == {True}


def test_hostile_chain_answers() -> None:
    record = prompt_record(UNSAT, "logic", instance_id="u", seed=0, ask_cycle=True)
    for text in (
        '{"chain": ' + "[" * 100_000,
        '{"chain": [' * 1_000,
        '{"chain": [' + '{"A": "true"},' * 50_000 + "]}",
        "x" * 500_000,
    ):
        j = score(Response(text + "\nThe answer is: No"), record, UNSAT, "UNSAT")
        assert j.cycle_valid in (None, False)


def test_ask_cycle_prompts_validate_against_the_record_model() -> None:
    from twosat_formal.core.records import PromptRecordModel

    asked = prompt_record(UNSAT, "door", instance_id="u", seed=1, ask_cycle=True)
    assert PromptRecordModel.model_validate(asked.to_record()).ask_cycle is True


_CLAUSE = st.lists(
    st.integers(1, 5).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=2
)


@given(
    st.lists(_CLAUSE, min_size=1, max_size=10),
    st.integers(-5, 5).filter(bool),
    st.integers(-5, 5).filter(bool),
    st.integers(0, 12),
)
def test_a_budgeted_walk_is_the_shortest_walk_when_found(
    clauses: list[list[int]], start: int, goal: int, budget: int
) -> None:
    """A walk found within a budget is a shortest walk, each step an implication of a
    clause; a budget of every literal finds what the unbounded search finds."""
    from twosat_formal.evaluate.diagnostics.implications import Implications

    graph = Implications(Formula(clauses))
    free = graph.walk(start, goal)
    bounded = graph.walk(start, goal, budget)
    assert bounded is None or bounded == free
    if free is not None:
        assert free[0] == start and free[-1] == goal and len(free) >= 2
        assert all(dst in graph.successors(src) for src, dst in pairwise(free))
    assert graph.walk(start, goal, 10) == free
    assert graph.walk(start, goal, 0) is None
