"""Reference reasoners on real prompts: verbalized formulas wrapped in the G.2 prompt.

Every answer is checked here by code that shares nothing with the reasoners: the
answer line and the JSON are read with the standard library, labels come from brute
force (small formulas) or PySAT, and a witness is checked clause by clause.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from tests.support.brute import brute_sat
from tests.support.cli import python_stdout
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, EvaluationError
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.base import Response, SamplingParams
from twosat_formal.evaluate.models.procedures import bounded_search
from twosat_formal.evaluate.models.reference import (
    DEFAULT_BUDGET,
    BoundedModel,
    CoinModel,
    OracleModel,
    ReferenceModel,
    SatBiasedModel,
)
from twosat_formal.verbalize import Prompt, verbalize

TEMPLATE_NAMES = ["logic", "letter", "team", "social", "room", "door"]


# --- independent checks -----------------------------------------------------------


def brute_force_sat(formula: Formula) -> bool:
    return brute_sat(formula.clauses, formula.num_vars)


def pysat_sat(formula: Formula) -> bool:
    clauses = [[int(lit) for lit in clause] for clause in formula.clauses]
    with Solver(name="m22", bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def read_answer(text: str) -> tuple[str, dict[str, str] | None]:
    """The final answer (``Yes``/``No``) and the JSON object before it, if any."""
    lines = text.rstrip("\n").split("\n")
    last = lines[-1]
    assert last in ("The answer is: Yes", "The answer is: No"), last
    body = "\n".join(lines[:-1])
    start = body.rfind("\n{\n")
    witness = None
    if start >= 0 or body.startswith("{\n"):
        obj, _ = json.JSONDecoder().raw_decode(body[start + 1 if start >= 0 else 0 :])
        assert isinstance(obj, dict)
        witness = obj
    return last.removeprefix("The answer is: "), witness


def witness_satisfies(formula: Formula, prompt: Prompt, witness: dict[str, str]) -> bool:
    """Whether every clause has a literal made true by ``witness`` (entity → value)."""
    truth = {prompt.true_value: True, prompt.false_value: False}
    for clause in formula.clauses:
        ok = False
        for lit in clause:
            value = witness.get(prompt.entities[abs(int(lit)) - 1])
            if value in truth and truth[value] == (int(lit) > 0):
                ok = True
        if not ok:
            return False
    return True


def clause_entities(formula: Formula, prompt: Prompt) -> set[str]:
    return {prompt.entities[abs(int(lit)) - 1] for clause in formula.clauses for lit in clause}


def ask(model: ReferenceModel, prompt: Prompt, sample: int = 0) -> Response:
    async def run() -> Response:
        async with model:
            return await model.generate(prompt.text, SamplingParams(max_tokens=64), sample)

    return asyncio.run(run())


def correct(formula: Formula, prompt: Prompt, response: Response, sat: bool) -> bool:
    """The paper's accuracy: right decision and, on SAT, a valid witness."""
    decision, witness = read_answer(response.text)
    if decision != ("Yes" if sat else "No"):
        return False
    return not sat or (witness is not None and witness_satisfies(formula, prompt, witness))


# --- strategies ---------------------------------------------------------------------


@st.composite
def small_formulas(draw: st.DrawFn) -> Formula:
    n = draw(st.integers(1, 6))
    clauses = []
    for _ in range(draw(st.integers(1, 12))):
        width = draw(st.integers(1, min(2, n)))
        variables = draw(st.lists(st.integers(1, n), min_size=width, max_size=width, unique=True))
        clauses.append([v if draw(st.booleans()) else -v for v in variables])
    return Formula(clauses, num_vars=n)


templates = st.sampled_from(TEMPLATE_NAMES)
seeds = st.integers(0, 10_000)


def random_2cnf(n: int, m: int, rng: random.Random) -> Formula:
    clauses = []
    for _ in range(m):
        a, b = rng.sample(range(1, n + 1), 2)
        clauses.append([a * rng.choice((1, -1)), b * rng.choice((1, -1))])
    return Formula(clauses, num_vars=n)


def chain_unsat(k: int, total: int, rng: random.Random) -> Formula:
    """x1 ⇝ ¬x1 and ¬x1 ⇝ x1 through two chains of length k, padded to ``total`` clauses.

    The padding is unit clauses on fresh variables; the clause order is shuffled.
    """
    x = list(range(1, k + 1))
    y = list(range(k + 1, 2 * k + 1))
    clauses = [[-x[i], x[i + 1]] for i in range(k - 1)] + [[-x[-1], -x[0]]]
    clauses += [[x[0], y[0]]] + [[-y[i], y[i + 1]] for i in range(k - 1)] + [[-y[-1], x[0]]]
    num_vars = 2 * k
    while len(clauses) < total:
        num_vars += 1
        clauses.append([num_vars])
    rng.shuffle(clauses)
    return Formula(clauses, num_vars=num_vars)


# --- every reasoner -----------------------------------------------------------------


@pytest.mark.parametrize("spec", ["ref/oracle", "ref/sat-biased", "ref/coin", "ref/bounded"])
@given(formula=small_formulas(), template=templates, seed=seeds)
@settings(max_examples=25)
def test_answers_in_the_requested_format(
    spec: str, formula: Formula, template: str, seed: int
) -> None:
    prompt = verbalize(formula, template, seed=seed)
    model = load_model(spec)
    assert isinstance(model, ReferenceModel) and model.endpoint == "local"
    response = ask(model, prompt)
    assert response.finish_reason == "stop"
    assert response.prompt_tokens == len(prompt.text.split())
    assert response.completion_tokens == len(response.text.split())
    decision, witness = read_answer(response.text)
    if decision == "Yes":
        assert witness is not None
        assert set(witness) == clause_entities(formula, prompt)
        assert set(witness.values()) <= {prompt.true_value, prompt.false_value}
    else:
        assert witness is None


def test_unreadable_prompt_is_an_evaluation_error() -> None:
    with pytest.raises(EvaluationError, match="template verbalizations"):
        ask(OracleModel(), Prompt("logic", "", "Once upon a time.", (), (), "true", "false", 0))


# --- ref/oracle ---------------------------------------------------------------------


@pytest.mark.slow
@given(formula=small_formulas(), template=templates, seed=seeds)
@settings(max_examples=150)
def test_oracle_is_exact(formula: Formula, template: str, seed: int) -> None:
    prompt = verbalize(formula, template, seed=seed)
    response = ask(OracleModel(), prompt)
    assert correct(formula, prompt, response, brute_force_sat(formula))


def test_oracle_explains_a_contradiction_with_a_cycle() -> None:
    formula = Formula.from_named([["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"]])
    prompt = verbalize(formula, "room", entities=["room 1", "room 2"])
    text = ask(OracleModel(), prompt).text
    assert read_answer(text) == ("No", None)
    chain = next(line for line in text.splitlines() if "→" in line)
    assert "room 1 is lit" in chain or "room 2 is lit" in chain


# --- ref/sat-biased -----------------------------------------------------------------


@given(formula=small_formulas(), template=templates, seed=seeds)
@settings(max_examples=25)
def test_sat_biased_says_yes_with_all_true(formula: Formula, template: str, seed: int) -> None:
    prompt = verbalize(formula, template, seed=seed)
    decision, witness = read_answer(ask(SatBiasedModel(), prompt).text)
    assert decision == "Yes" and witness is not None
    assert set(witness.values()) == {prompt.true_value}


# --- ref/coin -----------------------------------------------------------------------


def test_coin_is_seeded_by_prompt_and_sample() -> None:
    formula = random_2cnf(6, 8, random.Random(1))
    prompt = verbalize(formula, "social", seed=3)
    model = CoinModel()
    answers = [ask(model, prompt, sample).text for sample in range(200)]
    assert answers == [ask(model, prompt, sample).text for sample in range(200)]
    yes = sum(read_answer(text)[0] == "Yes" for text in answers)
    assert 70 <= yes <= 130  # a fair coin over 200 fixed draws
    witnesses = {json.dumps(read_answer(t)[1], sort_keys=True) for t in answers if "Yes" in t}
    assert len(witnesses) > 10  # the assignment is drawn too
    other = verbalize(formula, "social", seed=4)
    assert [ask(model, other, s).text for s in range(20)] != answers[:20]


def test_coin_is_identical_in_another_process() -> None:
    prompt = verbalize(random_2cnf(5, 7, random.Random(2)), "team", seed=9)
    code = (
        "import sys; from twosat_formal.evaluate.models.reference import CoinModel; "
        "sys.stdout.write(CoinModel().respond(sys.stdin.read(), 5).text)"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    assert python_stdout(code, env=env, stdin=prompt.text) == ask(CoinModel(), prompt, 5).text


# --- ref/bounded --------------------------------------------------------------------


def test_bounded_spec() -> None:
    assert load_model("ref/bounded").budget == DEFAULT_BUDGET  # type: ignore[attr-defined]
    model = load_model("ref/bounded?budget=77")
    assert isinstance(model, BoundedModel) and model.budget == 77
    assert model.spec == "ref/bounded?budget=77"
    for bad in ("ref/bounded?budget=0", "ref/bounded?budget=x", "ref/bounded?depth=3"):
        with pytest.raises(ConfigError):
            load_model(bad)


def test_bounded_step_count_by_hand() -> None:
    # (a|b) (~a|b) (~b|a): first pass reads 6 literals and assigns nothing; a=true, then
    # pass 2 reads a (1), ~a b (2, b forced), ~b a (2) = 5; pass 3 confirms: 1 + 2 + 2.
    formula = Formula.from_named([["a", "b"], ["~a", "b"], ["~b", "a"]])
    run = bounded_search(formula, 1000)
    assert (run.status, run.assignment, run.steps) == ("SAT", (True, True), 16)
    assert bounded_search(formula, 15).status == "EXHAUSTED"
    assert bounded_search(formula, 15).steps == 15


@given(formula=small_formulas(), template=templates, seed=seeds)
@settings(max_examples=150)
def test_bounded_with_ample_budget_is_exact(formula: Formula, template: str, seed: int) -> None:
    prompt = verbalize(formula, template, seed=seed)
    response = ask(BoundedModel(budget=10**6), prompt)
    assert correct(formula, prompt, response, brute_force_sat(formula))


@given(formula=small_formulas(), budget=st.integers(0, 300))
def test_bounded_no_only_after_a_contradiction(formula: Formula, budget: int) -> None:
    run = bounded_search(formula, budget)
    assert run.steps <= budget
    if run.status == "UNSAT":
        assert not brute_force_sat(formula)
    elif run.status == "SAT":
        assert all(value is not None for value in run.assignment)
        assert formula.evaluate([bool(value) for value in run.assignment])
    else:
        assert run.steps == budget and run.events[-1][0] == "exhausted"


@given(formula=small_formulas())
def test_bounded_budget_threshold(formula: Formula) -> None:
    """The run that needs s steps finishes with any budget >= s and with none below."""
    full = bounded_search(formula, 10**6)
    assert full.status != "EXHAUSTED"
    assert bounded_search(formula, full.steps) == full
    if full.steps > 0:
        assert bounded_search(formula, full.steps - 1).status == "EXHAUSTED"


def _accuracy(formulas: Sequence[Formula], budget: int, template: str) -> float:
    model = BoundedModel(budget=budget)
    hits = 0
    for seed, formula in enumerate(formulas):
        prompt = verbalize(formula, template, seed=seed)
        hits += correct(formula, prompt, ask(model, prompt), pysat_sat(formula))
    return hits / len(formulas)


def test_bounded_accuracy_falls_with_more_clauses() -> None:
    sizes = (8, 32, 128)
    accuracy = []
    for m in sizes:
        rng = random.Random(m)
        accuracy.append(_accuracy([random_2cnf(m, m, rng) for _ in range(20)], 1000, "logic"))
    assert accuracy[0] == 1.0 and accuracy[2] <= 0.2
    assert accuracy[0] > accuracy[1] > accuracy[2], accuracy


def test_bounded_accuracy_falls_with_longer_chains() -> None:
    lengths = (2, 8, 32)
    accuracy = []
    for k in lengths:
        rng = random.Random(k)
        formulas = [chain_unsat(k, 80, rng) for _ in range(20)]
        assert not any(pysat_sat(f) for f in formulas)
        accuracy.append(_accuracy(formulas, 800, "door"))
    assert accuracy[0] == 1.0 and accuracy[2] == 0.0
    assert accuracy[0] > accuracy[1] > accuracy[2], accuracy
