"""Reasoning quality coded by the solver (``trace``'s ``quality``), the LLM-judge coding
(``trace --judge-model``) and the agreement between the two."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import make_items, oracle_answer, write_inputs
from tests.support.brute import models
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics.judge import JUDGE_PROMPT, agreement, read_judgement
from twosat_formal.evaluate.diagnostics.quality import code_quality, concluded
from twosat_formal.evaluate.diagnostics.trace import check_trace
from twosat_formal.evaluate.models.reference import BoundedModel
from twosat_formal.verbalize import FORMATS, TEMPLATES, verbalize
from twosat_formal.verbalize.strategies import COT_INSTRUCTION

DOCS = Path(__file__).resolve().parents[2] / "docs"


def entailed(clauses: Sequence[Sequence[int]], num_vars: int, clause: Sequence[int]) -> bool:
    """``clause`` holds in every model of ``clauses`` (brute force)."""
    return all(
        any(bits[abs(lit) - 1] == (lit > 0) for lit in clause) for bits in models(clauses, num_vars)
    )


@settings(max_examples=60, deadline=None)
@given(
    formula=small_2cnf(),
    # the schemes' sentences: a format's line is its clause with its place (∧, a number),
    # which trace reads as the clause alone
    template=st.sampled_from(sorted(n for n in TEMPLATES.names() if n not in FORMATS)),
    seed=st.integers(0, 10_000),
)
def test_premise_fidelity_and_inference_validity_equal_a_brute_force_count(
    formula: Formula, template: str, seed: int
) -> None:
    clauses = [tuple(c) for c in formula.clauses]
    assume(formula.num_vars >= 2 and any(True for _ in models(clauses, formula.num_vars)))
    rng = random.Random(seed)
    rules = [c for c in clauses if len({abs(lit) for lit in c}) == 2]
    cited: list[tuple[int, ...]] = []
    for _ in range(rng.randint(1, 6)):
        if rules and rng.random() < 0.5:
            cited.append(rng.choice(rules))
        else:
            a, b = rng.sample(range(1, formula.num_vars + 1), 2)
            cited.append((rng.choice([a, -a]), rng.choice([b, -b])))
    prompt = verbalize(formula, template).record("i")
    entities = sorted(prompt.entities, key=lambda e: formula.var(prompt.entities[e]))
    sentences = TEMPLATES.get(template).sentences([list(c) for c in cited], entities)
    text = "\n".join(sentences) + "\nThe answer is: Yes"
    trace = check_trace(text, template, prompt.entities, formula)
    assert len(trace.claims) == len(cited)
    code = code_quality(trace, text, {"decision": "SAT", "failure": "correct"})
    rule_sets = {frozenset(c) for c in clauses}
    real = sum(frozenset(c) in rule_sets for c in cited)
    follows = sum(entailed(clauses, formula.num_vars, c) for c in cited)
    assert code["premise_fidelity"] == pytest.approx(real / len(cited))
    assert code["inference_validity"] == pytest.approx(follows / len(cited))


def test_a_rule_written_as_a_formula_is_a_cited_rule() -> None:
    formula = Formula.from_named([["a", "~b"], ["b", "c"]])
    text = "A ∨ ¬B.\nA ∨ B.\nA = 1, B = 0.\nThe answer is: Yes"
    trace = check_trace(text, "logic", {"A": "a", "B": "b", "C": "c"}, formula)
    code = code_quality(trace, text, {"decision": "SAT", "failure": "correct"})
    # two rules cited (one is the instance's), three claims (one entailed: the rule)
    assert code["premise_fidelity"] == 0.5
    assert code["inference_validity"] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("row", "complete"),
    [
        ({"decision": "SAT", "failure": "correct"}, True),
        ({"decision": "SAT", "failure": "invalid-witness"}, True),  # present and readable
        ({"decision": "UNSAT", "failure": "wrong-decision"}, True),
        ({"decision": "SAT", "failure": "missing-witness"}, False),
        ({"decision": "SAT", "failure": "bad-json"}, False),
        ({"decision": None, "failure": "no-answer"}, False),
        ({"decision": None, "failure": "ambiguous-answer"}, False),
        ({"decision": "UNSAT", "failure": "truncated"}, False),
        ({"decision": "UNSAT", "failure": "correct", "cycle_reason": "no-chain"}, False),
        ({"decision": "UNSAT", "failure": "correct", "cycle_reason": "bad-step: x"}, True),
    ],
)
def test_answer_completion(row: dict[str, Any], complete: bool) -> None:
    formula = Formula.from_named([["a", "b"]])
    trace = check_trace("The answer is: Yes", "logic", {"A": "a", "B": "b"}, formula)
    assert code_quality(trace, "The answer is: Yes", row)["answer_completion"] is complete


@pytest.mark.parametrize(
    ("text", "conclusion"),
    [
        ("So a valid assignment exists.\nThe answer is: Yes", "SAT"),
        ("This leads to a contradiction.\nThe answer is: Yes", "UNSAT"),
        (
            "At first it looks impossible. But there is a valid assignment.\nThe answer is: No",
            "SAT",
        ),
        ("There is no contradiction, so the rules are satisfiable.", "SAT"),
        ("That forces 0 more values without a contradiction.\nThe answer is: Yes", "SAT"),
        ("It doesn't lead to any contradiction.\nThe answer is: Yes", "SAT"),
        ("This did not result in a contradiction.", "SAT"),
        ("There is no way to avoid a contradiction.\nThe answer is: No", "UNSAT"),
        ("The formula is unsatisfiable.\nThe answer is: No", "UNSAT"),
        ("No valid assignment exists.", "UNSAT"),
        ("A is true. B is false.\nThe answer is: Yes", None),
        ("The answer is: Yes\nIn fact this is unsatisfiable.", None),  # after the answer
    ],
)
def test_what_the_reasoning_concluded(text: str, conclusion: str | None) -> None:
    assert concluded(text) == conclusion


@settings(max_examples=40, deadline=None)
@given(formula=small_2cnf(), budget=st.integers(1, 12), template=st.sampled_from(["logic"]))
def test_the_bounded_reasoner_concludes_what_it_answers(
    formula: Formula, budget: int, template: str
) -> None:
    # the reference reasoner states each step of its own search: whatever it answers,
    # the reading of its reasoning must not contradict it (its "Yes" after a step
    # "without a contradiction" was read as a concluded UNSAT)
    prompt = verbalize(formula, template).record("i")
    text = BoundedModel(budget=budget).respond(prompt.text).text
    answer = re.findall(r"The answer is: (Yes|No)", text)
    assume(answer)
    decision = "SAT" if answer[-1] == "Yes" else "UNSAT"
    assert concluded(text) in (None, decision), text


def test_answer_alignment_compares_the_conclusion_with_the_answer() -> None:
    formula = Formula.from_named([["a", "b"]])
    for text, decision, aligned in [
        ("Hence a valid assignment exists.", "SAT", True),
        ("Hence a valid assignment exists.", "UNSAT", False),
        ("Hence a valid assignment exists.", None, None),
        ("A is true.", "SAT", None),
    ]:
        trace = check_trace(text, "logic", {"A": "a", "B": "b"}, formula)
        row = {"decision": decision, "failure": "correct"}
        assert code_quality(trace, text, row)["answer_alignment"] is aligned


def test_the_judge_prompt_is_printed_in_the_docs() -> None:
    docs = (DOCS / "diagnostics.md").read_text(encoding="utf-8")
    assert JUDGE_PROMPT in docs


def test_reading_the_judge() -> None:
    reply = "**Premise Fidelity:** No\n2. Inference Validity - yes\nAnswer Alignment: maybe"
    assert read_judgement(reply) == {
        "premise_fidelity": False,
        "inference_validity": True,
        "answer_completion": None,
        "answer_alignment": None,
    }


def reasoning_for(item: Any, index: int) -> str:
    """Reasoning with a known quality: the prompt's first rule, sometimes a made-up rule,
    a conclusion that agrees with the answer or not, then the oracle's answer."""
    rules = [line for line in item.prompt.text.splitlines()[1:] if line.strip()][:1]
    conclusion = "a valid assignment exists" if item.label == "SAT" else "this is a contradiction"
    if index % 3 == 2:  # says the opposite of what it answers
        conclusion = (
            "this is a contradiction" if item.label == "SAT" else "a valid assignment exists"
        )
    return "\n".join([*rules, f"So {conclusion}.", oracle_answer(item)])


JUDGE_REPLY = re.compile(r"<response>\n(.*)\n</response>", re.DOTALL)


def test_trace_with_a_judge_model_end_to_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(9, seed=11)
    prompts, dataset = write_inputs(tmp_path, items)
    by_text = {item.prompt.text: (i, item) for i, item in enumerate(items)}

    def answer(prompt: str) -> str:
        index, item = by_text[prompt.replace(COT_INSTRUCTION + "\n\n", "")]
        return reasoning_for(item, index)

    judged: list[str] = []

    def judge(prompt: str) -> str:
        judged.append(prompt)
        response = JUDGE_REPLY.search(prompt)
        assert response is not None
        # a judge that misses misalignment and calls every answer complete
        return (
            "Premise Fidelity: Yes\nInference Validity: Yes\n"
            "Answer Completion: Yes\nAnswer Alignment: Yes"
        )

    store = tmp_path / "runs.sqlite"
    with FaultServer(answer=answer) as server:
        code, _, err = cli(
            capsys, "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
            "--base-url", server.url, "--store", str(store), "--no-progress",
            "--strategy", "cot",
        )  # fmt: skip
    assert code == 0, err
    out = tmp_path / "traces.jsonl"
    with FaultServer(answer=judge) as judge_server:
        code, _, err = cli(
            capsys, "trace", str(store), "--out", str(out), "--no-progress",
            "--judge-model", "openai/judge", "--base-url", judge_server.url,
        )  # fmt: skip
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(judged) == len(items)
    # the judge read the prompt as the model received it, and the model's answer
    assert all(COT_INSTRUCTION in p for p in judged)
    assert all(row["strategy"] == "cot" for row in rows)
    for row in rows:
        index = next(i for i, it in by_text.values() if it.prompt.id == row["prompt_id"])
        quality = row["quality"]
        assert quality["answer_completion"] is True
        assert quality["answer_alignment"] is (index % 3 != 2)
        assert quality["premise_fidelity"] == 1.0  # the prompt's own first rule
        assert row["judge"]["answer_alignment"] is True
    summary = json.loads(err.strip().splitlines()[-1])
    assert summary["judge_model"] == "openai/judge"
    got = summary["agreement"]
    misaligned = sum(1 for i in range(len(items)) if i % 3 == 2)
    assert got["answer_alignment"]["compared"] == len(items)
    assert got["answer_alignment"]["agree"] == len(items) - misaligned
    assert got["answer_completion"] == {
        "compared": len(items),
        "agree": len(items),
        "rate": 1.0,
        "kappa": None,
    }
    assert got == agreement(rows)


def test_the_judge_is_retried_and_a_failed_judgement_is_left_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(4, seed=2)
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    code, _, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(dataset), "-m", "ref/oracle",
        "--store", str(store), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    broken = items[0].prompt.text  # the judge always fails on this prompt's answer

    def plan(prompt: str, attempt: int) -> str:
        if broken in prompt:
            return "500"
        return "429" if attempt == 0 else "ok"  # every other one once refused, then judged

    reply = "Premise Fidelity: No\nInference Validity: No\nAnswer Completion: No\n"
    out = tmp_path / "traces.jsonl"
    with FaultServer(plan=plan, answer=lambda _: reply) as judge_server:
        code, _, err = cli(
            capsys, "trace", str(store), "--out", str(out), "--no-progress",
            "--judge-model", "openai/judge", "--base-url", judge_server.url,
            "--max-attempts", "2",
        )  # fmt: skip
        faults = judge_server.faults()
    assert code == 0, err
    assert faults == {"500": 2, "429": len(items) - 1, "ok": len(items) - 1}
    rows = {row["prompt_id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert "error" in rows[items[0].prompt.id]["judge"]
    summary = json.loads(err.strip().splitlines()[-1])["agreement"]
    assert summary["answer_completion"]["compared"] == len(items) - 1
    assert summary["answer_completion"]["agree"] == 0  # the oracle's answers are complete
    assert summary["answer_alignment"]["compared"] == 0  # the judge gave no alignment


def test_an_unknown_judge_model_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(2)
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    cli(capsys, "eval", str(prompts), "--dataset", str(dataset), "-m", "ref/oracle",
        "--store", str(store), "--no-progress")  # fmt: skip
    code, _, err = cli(capsys, "trace", str(store), "--judge-model", "nosuch/x", "--no-progress")
    assert code == 2 and "Traceback" not in err and "nosuch" in err
