"""Reasoning strategies (``--strategy``): prompt texts, round trips, store keys, end to end
with the reference reasoners and a scripted OpenAI-compatible server."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import make_items, oracle_answer, write_inputs
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.run import EvalItem, EvalPrompt, evaluate
from twosat_formal.evaluate.run.votes import vote_rows
from twosat_formal.evaluate.store import RunStore, public_endpoint, request_key
from twosat_formal.evaluate.store_merge import merge_stores
from twosat_formal.verbalize import TEMPLATES, verbalize
from twosat_formal.verbalize.prompts import ANSWER_INSTRUCTIONS
from twosat_formal.verbalize.strategies import (
    COT_INSTRUCTION,
    SYMBOLIC_INSTRUCTION,
    Strategy,
    certify_strategy,
    check_formalization,
    formalization,
    identifier,
    parse_strategy,
    strip_strategy,
    write_formalization,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
ALL = [parse_strategy(name) for name in ("direct", "cot", "symbolic-cot", "sample-k:3")]


def test_each_strategy_text_is_printed_verbatim_in_the_docs() -> None:
    text = (DOCS / "evaluation.md").read_text(encoding="utf-8")
    for instruction in (COT_INSTRUCTION, SYMBOLIC_INSTRUCTION):
        assert instruction in text


@settings(max_examples=40, deadline=None)
@given(formula=small_2cnf(), template=st.sampled_from(sorted(TEMPLATES.names())))
def test_a_strategy_never_changes_the_rules_of_the_prompt(formula: Formula, template: str) -> None:
    prompt = verbalize(formula, template).record("i")
    for strategy in ALL:
        shown = strategy.apply(prompt.text)
        assert strip_strategy(shown) == prompt.text
        assert (strategy.text is None) == (shown == prompt.text)
        # its own text sits between the rules and the answer instructions
        if strategy.text is not None:
            assert shown.index(strategy.text) > shown.index("?")
        certify_strategy(strategy, prompt.text, prompt_formula(prompt), template, prompt.entities)


def prompt_formula(prompt: object) -> Formula:
    """The formula a prompt shows over its own entity order (read independently)."""
    from twosat_formal.verbalize.backparse import backparse

    return backparse(prompt.text, prompt.template, entities=list(prompt.entities)).formula  # type: ignore[attr-defined]


def test_certify_strategy_refuses_a_prompt_whose_rules_read_back_differently() -> None:
    formula = Formula.from_named([["p", "q"], ["~p", "q"]])
    prompt = verbalize(formula, "logic").record("i")
    other = Formula(
        [[1, 2]], num_vars=2, names=list(prompt_formula(prompt).names)
    )  # one rule fewer
    with pytest.raises(ValueError, match="read back differently"):
        certify_strategy(parse_strategy("cot"), prompt.text, other, "logic", prompt.entities)


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ("direct", "direct"),
        ("cot", "cot"),
        ("sample-k", "sample-k:5"),
        ("sample-k:2", "sample-k:2"),
    ],
)
def test_strategy_names(spec: str, key: str) -> None:
    assert parse_strategy(spec).key == key


@pytest.mark.parametrize(
    "spec", ["cott", "sample-k:1", "sample-k:x", "cot:2", "", "sample-k:\u00b2", "sample-k:-3"]
)
def test_a_bad_strategy_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"strateg|sample-k"):
        parse_strategy(spec)


@given(st.text(max_size=4))
def test_sample_k_takes_every_whole_k_of_two_or_more_and_refuses_any_other_text(
    count: str,
) -> None:
    """Any text after ``sample-k:`` is a K >= 2 in decimal digits or a ConfigError that
    quotes it (a superscript digit, which ``str.isdigit`` accepts, among them)."""
    spec = f"sample-k:{count}"
    written = spec.strip().partition(":")[2]  # the spec is read stripped
    if written.isdecimal() and int(written) >= 2:
        assert parse_strategy(spec) == Strategy("sample-k", int(written))
        return
    with pytest.raises(ConfigError) as caught:
        parse_strategy(spec)
    assert str(caught.value) == f"sample-k needs K >= 2 samples per vote, got {written!r}"


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        (("sample-k", 0), "sample-k needs K >= 2 samples per vote, got 0"),
        (("sample-k", -2), "sample-k needs K >= 2 samples per vote, got -2"),
        (("sample-k", True), "sample-k needs K >= 2 samples per vote, got True"),
        (("bogus",), "unknown strategy 'bogus'"),
        (("cot", 3), "unknown strategy 'cot:3'"),
    ],
)
def test_a_strategy_built_directly_follows_the_rules_of_a_parsed_one(
    fields: tuple[Any, ...], words: str, tmp_path: Path
) -> None:
    """``evaluate(strategies=[Strategy(...)])`` takes built strategies: one that no
    ``--strategy`` names (no K, a negative K: requests planned below zero) is refused
    as it is built, before anything is stored or sent."""
    with RunStore(tmp_path / "runs.sqlite") as store, pytest.raises(ConfigError) as caught:
        evaluate(["ref/oracle"], make_items(1), store, strategies=[Strategy(*fields)])
    assert (str(caught.value), caught.value.parameter) == (words, "strategy")


def legacy_key(model: str, endpoint: str, sha: str, params: str, sample: int) -> str:
    """The five-part key every store was written with before strategies (independent)."""
    parts = [model, public_endpoint(endpoint), sha, params, sample]
    text = json.dumps(parts, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@settings(max_examples=50, deadline=None)
@given(
    model=st.text(max_size=8),
    sha=st.text(alphabet="0123456789abcdef", max_size=8),
    sample=st.integers(0, 1000),
    strategy=st.sampled_from(["cot", "symbolic-cot", "sample-k:3", "sample-k:5"]),
)
def test_direct_keys_are_the_old_keys_and_other_strategies_differ(
    model: str, sha: str, sample: int, strategy: str
) -> None:
    old = legacy_key(model, "local", sha, "{}", sample)
    assert request_key(model, "local", sha, "{}", sample) == old
    assert request_key(model, "local", sha, "{}", sample, "direct") == old
    assert request_key(model, "local", sha, "{}", sample, strategy) != old


def test_an_old_store_resumes_and_only_the_new_strategy_is_asked(tmp_path: Path) -> None:
    items = make_items(4)
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        first = evaluate(["ref/oracle"], items, store)
    assert first.done == 4
    # the store as it was before strategies: no strategy nor formalization column
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE results DROP COLUMN strategy")
        db.execute("ALTER TABLE results DROP COLUMN formalization")
    with RunStore(path) as store:
        again = evaluate(["ref/oracle"], items, store, strategies=["direct", "cot"])
        rows = list(store.results(["strategy"]))
    assert (again.skipped, again.done) == (4, 4)
    assert Counter(r["strategy"] for r in rows) == {"direct": 4, "cot": 4}
    with sqlite3.connect(path) as db:
        stored = db.execute(
            "SELECT key, model, endpoint, prompt_hash, params, sample, strategy FROM results"
        ).fetchall()
    for key, model, endpoint, sha, params, sample, strategy in stored:
        old = legacy_key(model, endpoint, sha, params, sample)
        assert (key == old) is (strategy is None), strategy


def symbolic_answer(item: EvalItem, *, faithful: bool) -> str:
    """A ``symbolic-cot`` answer: the rules as DSL formulas (the first left out unless
    ``faithful``), then the oracle's answer."""
    by_var = {item.formula.var(v): identifier(e) for e, v in item.prompt.entities.items()}
    first = set(item.formula.clauses[0])
    lines = [
        " | ".join(("" if lit > 0 else "~") + by_var[abs(lit)] for lit in clause)
        for clause in item.formula.clauses
        if faithful or set(clause) != first  # every copy of the first rule left out
    ]
    return "FORMULAS:\n" + "\n".join(lines) + "\nEND FORMULAS\n" + oracle_answer(item)


def test_eval_strategies_end_to_end_with_a_scripted_server(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(6, seed=3)
    prompts, dataset = write_inputs(tmp_path, items)
    by_text = {item.prompt.text: item for item in items}
    faithful = {item.prompt.id for item in items[::3]}
    unknown = {item.prompt.id for item in items[1::3]}  # names an item the prompt lacks
    unreadable = {item.prompt.id for item in items[2::6]}  # no block at all

    def answer(prompt: str) -> str:
        item = by_text[strip_strategy(prompt)]
        if SYMBOLIC_INSTRUCTION in prompt:
            if item.prompt.id in unknown:
                return "FORMULAS:\nzz_nobody | ~zz_nobody\nEND FORMULAS\n" + oracle_answer(item)
            if item.prompt.id in unreadable:
                return "I will not write formulas.\n" + oracle_answer(item)
            return symbolic_answer(item, faithful=item.prompt.id in faithful)
        if COT_INSTRUCTION in prompt:
            return "Step 1: I read the rules.\nThe answer is: Maybe"  # breaks the format
        return oracle_answer(item)

    store = tmp_path / "runs.sqlite"
    argv = [
        "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
        "--store", str(store), "--no-progress", "--json",
        "--strategy", "cot", "--strategy", "symbolic-cot", "--strategy", "sample-k:3",
        "--strategy", "direct",
    ]  # fmt: skip
    with FaultServer(answer=answer) as server:
        code, out, err = cli(capsys, *argv, "--base-url", server.url)
        seen = server.prompts()
        # run again: everything is stored under its own key, nothing is asked
        again_code, again, again_err = cli(capsys, *argv, "--base-url", server.url)
        assert len(server.prompts()) == len(seen)
    assert code == 0, err
    assert again_code == 0, again_err
    summary = json.loads(out)
    assert json.loads(again)["skipped"] == summary["planned"]
    assert summary["planned"] == summary["done"] == len(items) * (1 + 1 + 3 + 1)
    # every prompt the server saw is a prompt of the run with at most one strategy text
    assert {strip_strategy(p) for p in seen} == set(by_text)
    assert sum(COT_INSTRUCTION in p for p in seen) == len(items)
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.results())
    by = Counter(r["strategy"] for r in rows)
    assert by == {"direct": 6, "cot": 6, "symbolic-cot": 6, "sample-k:3": 18}
    for row in rows:
        if row["strategy"] == "cot":
            assert row["failure"] == "no-answer"
        elif row["strategy"] == "symbolic-cot":
            form, pid = row["formalization"], row["prompt_id"]
            assert row["decision_correct"]  # the answer is scored as under any strategy
            if pid in unknown:
                assert form == {"found": True, "error": "unknown item zz_nobody", "exact": False}
            elif pid in unreadable:
                assert form == {"found": False, "exact": False}
            else:
                assert form["found"] and form["error"] is None
                assert form["exact"] is (pid in faithful)
                assert form["missing"] == (0 if pid in faithful else 1)
        else:
            assert row["decision_correct"] and row["formalization"] is None


def test_a_bad_strategy_on_the_command_line_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(2)
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    code, _, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(dataset), "-m", "ref/oracle",
        "--store", str(store), "--strategy", "sample-k:1",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err and "sample-k" in err
    assert not store.exists()


def test_reference_reasoners_under_every_strategy(tmp_path: Path) -> None:
    items = make_items(6, seed=9)
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = evaluate(
            ["ref/oracle", "ref/coin", "ref/bounded"],
            items,
            store,
            strategies=[s.key for s in ALL],
            samples=2,
        )
        columns = ["model", "strategy", "sample", "decision_correct", "formalization"]
        rows = list(store.results(columns))
    assert summary.done == 3 * len(items) * 2 * (1 + 1 + 1 + 3)
    assert all(r["decision_correct"] for r in rows if r["model"] == "ref/oracle")
    # under symbolic-cot every reasoner writes the rules it read, exactly
    for r in rows:
        exact = r["formalization"] is not None and r["formalization"]["exact"]
        assert exact is (r["strategy"] == "symbolic-cot")
    samples = Counter((r["model"], r["strategy"], r["sample"]) for r in rows)
    for model in ("ref/oracle", "ref/coin", "ref/bounded"):
        assert {s for (m, name, s) in samples if (m, name) == (model, "sample-k:3")} == set(
            range(6)
        )


def test_a_strategy_needs_the_answer_instructions_to_insert_before() -> None:
    with pytest.raises(ConfigError, match="answer instructions"):
        Strategy("cot").apply("no instructions here")


@settings(max_examples=100, deadline=None)
@given(
    k=st.integers(2, 5),
    decisions=st.lists(st.sampled_from(["SAT", "UNSAT", None]), min_size=1, max_size=20),
)
def test_sample_k_votes_against_a_plain_count(k: int, decisions: list[str | None]) -> None:
    strategy = f"sample-k:{k}"
    rows = [
        {"model": "m", "prompt_id": "p", "strategy": strategy, "sample": i, "decision": d,
         "decision_correct": d == "SAT", "failure": "correct", "witness": f"w{i}"}
        for i, d in enumerate(decisions)
    ]  # fmt: skip
    rows.append({"model": "m", "prompt_id": "p", "strategy": "cot", "sample": 0, "decision": "X"})
    voted = vote_rows(rows)
    assert voted[-1] == rows[-1]  # another strategy passes through
    groups = [decisions[start : start + k] for start in range(0, len(decisions), k)]
    assert len(voted) == len(groups) + 1
    for g, (row, group) in enumerate(zip(voted, groups, strict=False)):
        yes, no = group.count("SAT"), group.count("UNSAT")
        assert (row["sample"], row["vote_k"], row["vote_n"]) == (g, k, len(group))
        assert row["votes"] == {d: n for d, n in (("SAT", yes), ("UNSAT", no)) if n}
        if yes and yes == no:
            assert row["vote_tie"] and row["decision"] is None and not row["decision_correct"]
            continue
        assert row["vote_tie"] is False
        if yes == no == 0:
            assert row["decision"] is None and row["witness"] == f"w{g * k}"
            continue
        winner = "SAT" if yes > no else "UNSAT"
        first = g * k + group.index(winner)
        assert row["decision"] == winner and row["witness"] == f"w{first}"
        assert row["decision_correct"] is (winner == "SAT")


def test_a_prompt_whose_rules_a_strategy_would_split_is_refused_before_asking(
    tmp_path: Path,
) -> None:
    item = make_items(1, seed=4)[0]
    lines = item.prompt.text.split("\n")
    # the answer instructions moved in among the rules: the strategy text would land there
    tampered = "\n".join([lines[0], lines[1], ANSWER_INSTRUCTIONS, *lines[2:]])
    p = item.prompt
    true, false = getattr(p, "true_value", "true"), getattr(p, "false_value", "false")
    prompt = EvalPrompt(p.id, p.instance_id, p.template, tampered, dict(p.entities), true, false)
    bad = EvalItem(prompt, item.formula, item.label)
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(ConfigError, match=f"prompt {prompt.id}: strategy cot"):
            evaluate(["ref/oracle"], [bad], store, strategies=["cot"])
        assert store.count() == 0


@settings(max_examples=60, deadline=None)
@given(formula=small_2cnf(), template=st.sampled_from(sorted(TEMPLATES.names())))
def test_a_faithful_formalization_reads_back_exact_in_every_template(
    formula: Formula, template: str
) -> None:
    prompt = verbalize(formula, template).record("i")
    variables = {entity: formula.var(str(v)) for entity, v in prompt.entities.items()}
    ordered = sorted(variables, key=variables.__getitem__)
    block = write_formalization(formula.clauses, ordered)
    found = check_formalization(formalization(block, variables), formula)
    assert found["error"] is None and found["exact"], found
    if formula.clauses:  # one rule left out is not exact
        fewer = [c for c in formula.clauses if set(c) != set(formula.clauses[0])]
        short = check_formalization(
            formalization(write_formalization(fewer, ordered), variables), formula
        )
        assert not short["exact"] and short["missing"] == 1


def test_stores_of_two_strategies_merge_into_what_one_run_stores(tmp_path: Path) -> None:
    items = make_items(3, seed=6)
    with RunStore(tmp_path / "a.sqlite") as store:
        evaluate(["ref/oracle"], items, store, strategies=["symbolic-cot"])
    with RunStore(tmp_path / "b.sqlite") as store:
        evaluate(["ref/oracle"], items, store, strategies=["sample-k:2"])
    merge_stores([tmp_path / "a.sqlite", tmp_path / "b.sqlite"], tmp_path / "c.sqlite")
    with RunStore(tmp_path / "both.sqlite") as store:
        evaluate(["ref/oracle"], items, store, strategies=["symbolic-cot", "sample-k:2"])
    columns = ["key", "strategy", "sample", "formalization", "decision"]
    with RunStore(tmp_path / "c.sqlite", readonly=True) as merged:
        got = sorted(map(json.dumps, merged.results(columns)))
    with RunStore(tmp_path / "both.sqlite", readonly=True) as one:
        assert got == sorted(map(json.dumps, one.results(columns)))
    assert len(got) == 3 * (1 + 2)
