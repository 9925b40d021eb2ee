"""Scoring: decision and witness extraction, failure kinds, strict beside lenient.

Every witness verdict is checked against a brute-force evaluation written here, and
real prompts come from the verbalizer, so the entity maps are the ones a model sees.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.brute import first_model
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.scoring import (
    FAILURE_KINDS,
    Judgement,
    PromptView,
    check_witness,
    error_judgement,
    extract_decision,
    extract_witness,
    score,
)
from twosat_formal.verbalize import verbalize
from twosat_formal.verbalize.prompts import PromptRecord

TEMPLATES = ("logic", "letter", "team", "social", "room", "door")

# -- helpers written independently of the code under test ------------------------------------


def brute_force_sat(clauses: list[list[int]], num_vars: int) -> list[bool] | None:
    """The first model in lexicographic order, or None."""
    found = first_model(clauses, num_vars)
    return None if found is None else list(found)


def satisfies(clauses: list[list[int]], values: dict[int, bool]) -> bool:
    return all(any(values.get(abs(x)) == (x > 0) for x in c) for c in clauses)


Problem = tuple[int, list[list[int]]]


def two_cnf(max_vars: int = 5, max_clauses: int = 8) -> st.SearchStrategy[Problem]:
    @st.composite
    def build(draw: st.DrawFn) -> tuple[int, list[list[int]]]:
        n = draw(st.integers(1, max_vars))
        lit = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
        clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=2), min_size=1, max_size=15))
        return n, clauses[:max_clauses]

    return build()


def witness_json(record: PromptRecord, values: dict[int, bool], formula: Formula) -> str:
    """The answer JSON for ``values`` (variable number → bool) in ``record``'s words."""
    by_name = {formula.names[v - 1]: b for v, b in values.items()}
    obj = {
        entity: (record.true_value if by_name[var] else record.false_value)
        for entity, var in record.entities.items()
        if var in by_name
    }
    return json.dumps(obj, ensure_ascii=False, indent=2)


def emphasize(draw: st.DrawFn, text: str) -> str:
    mark = draw(st.sampled_from(["", "**", "__", "*"]))
    return f"{mark}{text}{mark}"


@st.composite
def answer_lines(draw: st.DrawFn, word: str) -> str:
    """``The answer is: <word>`` with random case, spacing and emphasis."""
    parts = ["The", "answer", "is:", word]
    parts = ["".join(c.upper() if draw(st.booleans()) else c.lower() for c in p) for p in parts]
    spaces = [" " * draw(st.integers(1, 3)) for _ in range(2)]
    colon_gap = " " * draw(st.integers(0, 2))
    line = f"{parts[0]}{spaces[0]}{parts[1]}{spaces[1]}{parts[2][:-1]}:{colon_gap}"
    value = emphasize(draw, parts[3])
    line = emphasize(draw, line + value)
    return " " * draw(st.integers(0, 2)) + line + draw(st.sampled_from(["", ".", " "]))


NOISE = st.lists(
    st.sampled_from(
        [
            "Let me think step by step.",
            "If A is true then B must be false.",
            '- "The answer is: Yes" (if A holds)',
            "So the answer depends on C.",
            "",
            "The answer is not obvious.",
            "{A, B} form a cycle.",
        ]
    ),
    max_size=6,
).map("\n".join)

# -- decision ----------------------------------------------------------------------------------


@given(NOISE, st.sampled_from(["Yes", "No"]), st.data())
def test_decision_tolerates_case_spacing_and_emphasis(
    noise: str, word: str, data: st.DataObject
) -> None:
    line = data.draw(answer_lines(word))
    expected = "SAT" if word == "Yes" else "UNSAT"
    assert extract_decision(f"{noise}\n{line}").value == expected
    assert extract_decision(f"{noise}\n{line}", lenient=True).value == expected


@given(NOISE)
def test_no_answer_line_means_no_decision(noise: str) -> None:
    assert extract_decision(noise) == (None, False)


@pytest.mark.slow
@given(st.lists(st.sampled_from(["Yes", "No"]), min_size=1, max_size=5), NOISE, st.data())
def test_the_last_answer_line_wins(words: list[str], noise: str, data: st.DataObject) -> None:
    lines = []
    for word in words:
        lines += [data.draw(answer_lines(word)), "But wait, let me re-check.", noise]
    lines.append(data.draw(answer_lines(words[-1])))
    expected = "SAT" if words[-1] == "Yes" else "UNSAT"
    assert extract_decision("\n".join(lines)).value == expected


def test_conflicting_final_answers_are_ambiguous() -> None:
    assert extract_decision("The answer is: Yes\n\nThe answer is: No") == (None, True)
    assert extract_decision("Thinking.\nThe answer is: Yes/No") == (None, True)
    assert extract_decision("The answer is: Yes or No") == (None, True)
    # agreeing closing lines are fine; an answer followed by reasoning stands alone
    assert extract_decision("The answer is: No\nThe answer is: no") == ("UNSAT", False)
    assert extract_decision("The answer is: No\nHmm, re-check.\nThe answer is: Yes").value == "SAT"


def test_strict_needs_the_whole_line_and_lenient_does_not() -> None:
    text = "After all this, the answer is: no, because A and not A."
    assert extract_decision(text).value is None
    assert extract_decision(text, lenient=True).value == "UNSAT"
    assert extract_decision("Final: \\boxed{Yes}", lenient=True).value == "SAT"
    assert extract_decision("'The answer is: Yes'").value is None
    assert extract_decision("'The answer is: Yes'", lenient=True).value == "SAT"
    assert extract_decision("Answer: unsatisfiable", lenient=True).value == "UNSAT"
    assert extract_decision("Either yes or no is the answer is: maybe", lenient=True).value is None


@given(st.text(max_size=200))
def test_lenient_agrees_with_strict_when_strict_finds_an_answer(text: str) -> None:
    strict = extract_decision(text)
    if strict.value is not None:
        assert extract_decision(text, lenient=True) == strict


# -- witness -----------------------------------------------------------------------------------


def test_witness_extraction_takes_the_last_valid_object_and_allows_fences() -> None:
    text = 'First {"A": "false"}.\n```json\n{"A": "true",\n "B": "false"}\n```\nDone.'
    assert extract_witness(text).obj == {"A": "true", "B": "false"}
    assert extract_witness("No JSON here.").status == "missing"
    assert extract_witness("Sets {A, B} and {C}").status == "missing"
    assert extract_witness('{"A": "true", "B": }').status == "bad-json"
    assert extract_witness('cut: {"A": "true", "B": "fal').status == "bad-json"
    # a later valid object wins over an earlier broken one, and vice versa
    assert extract_witness('{"A": tru} {"A": "true"}').obj == {"A": "true"}
    assert extract_witness('{"A": "true"} {"A": tru}').obj == {"A": "true"}
    # braces inside strings do not confuse the scanner
    assert extract_witness('{"A": "t}r{ue"}').obj == {"A": "t}r{ue"}


@given(
    st.text(alphabet=st.sampled_from("ab {}:\",'\n\\"), max_size=300),
    st.dictionaries(st.sampled_from(["Ann", "Bob", "room 1"]), st.booleans(), min_size=1),
    st.booleans(),
)
def test_the_witness_is_found_after_any_prose(
    prose: str, values: dict[str, bool], fenced: bool
) -> None:
    obj = {k: "has" if v else "doesn\u2019t have" for k, v in values.items()}
    block = json.dumps(obj, ensure_ascii=False, indent=2)
    if fenced:
        block = f"```json\n{block}\n```"
    text = f"{prose}\n{block}\nThe answer is: Yes"
    entities = ["Ann", "Bob", "room 1"]
    assert extract_witness(text, entities=entities).obj == obj
    assert extract_witness(text, lenient=True, entities=entities).obj == obj


def test_a_broken_string_in_prose_ends_at_its_line() -> None:
    text = '{ "a\\\n{"Ann": "has"}\nThe answer is: Yes'
    assert extract_witness(text, entities=["Ann"]).obj == {"Ann": "has"}


def test_duplicate_entities_with_different_values_are_invalid() -> None:
    found = extract_witness('{"A": "true", "A": "false"}')
    assert found.status == "found" and found.obj is None
    assert "given two values" in (found.reason or "")


def test_nested_objects_are_not_assignments_strictly_but_are_unwrapped_leniently() -> None:
    text = '{"assignment": {"A": "true"}}'
    assert extract_witness(text).obj is None
    assert extract_witness(text, lenient=True).obj == {"A": "true"}


def test_model_output_is_never_evaluated(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = f"{{'A': __import__('pathlib').Path({str(marker)!r}).write_text('x')}}"
    f = Formula.from_named([["x1"]])
    prompt = PromptView({"A": "x1"}, "true", "false")
    for text in (payload, f"```python\n{payload}\n```", f"{payload}\nThe answer is: Yes"):
        judgement = score(Response(text), prompt, f, "SAT")
        assert judgement.failure in ("bad-json", "no-answer")
        assert judgement.witness_valid is False
    assert not marker.exists()


@given(two_cnf(), st.sampled_from(TEMPLATES), st.integers(0, 10_000), st.data())
def test_witness_validity_matches_brute_force(
    problem: Problem, template: str, seed: int, data: st.DataObject
) -> None:
    n, clauses = problem
    formula = Formula(clauses, num_vars=n)
    record = verbalize(formula, template, seed=seed).record("i", None)
    values = {v: data.draw(st.booleans()) for v in range(1, n + 1)}
    keep = data.draw(st.sets(st.integers(1, n)))  # a witness may leave variables out
    given_values = {v: b for v, b in values.items() if v in keep}
    text = "Reasoning...\n```json\n" + witness_json(record, given_values, formula) + "\n```"
    check = check_witness(extract_witness(text).obj or {}, record, formula)
    assert check.valid == satisfies(clauses, given_values)
    assert check.assignment == {formula.names[v - 1]: b for v, b in sorted(given_values.items())}
    if not check.valid:
        assert "is false" in (check.reason or "")


@given(two_cnf(), st.sampled_from(TEMPLATES), st.integers(0, 10_000))
def test_a_correct_answer_scores_correct_in_every_scheme(
    problem: Problem, template: str, seed: int
) -> None:
    n, clauses = problem
    formula = Formula(clauses, num_vars=n)
    record = verbalize(formula, template, seed=seed).record("i", None)
    model = brute_force_sat(clauses, n)
    if model is None:
        label, text = "UNSAT", "No assignment works.\nThe answer is: No"
    else:
        values = dict(enumerate(model, 1))
        label = "SAT"
        text = f"{witness_json(record, values, formula)}\n\n**The answer is: Yes**"
    judgement = score(Response(text, "stop"), record, formula, label)
    assert judgement.failure == "correct", judgement
    assert judgement.lenient_failure == "correct"
    assert judgement.decision == label and judgement.decision_correct
    assert judgement.witness_valid is (True if label == "SAT" else None)
    # the same answer cut by the token limit is counted as incorrect
    cut = score(Response(text, "length"), record, formula, label)
    assert cut.failure == "truncated" and cut.truncated and not cut.decision_correct


@given(two_cnf(max_vars=4), st.integers(0, 100), st.data())
def test_wrong_decisions_are_wrong_decisions(
    problem: Problem, seed: int, data: st.DataObject
) -> None:
    n, clauses = problem
    formula = Formula(clauses, num_vars=n)
    record = verbalize(formula, "logic", seed=seed).record("i", None)
    label = "SAT" if brute_force_sat(clauses, n) is not None else "UNSAT"
    word = "No" if label == "SAT" else "Yes"
    judgement = score(Response(f"The answer is: {word}"), record, formula, label)
    assert judgement.failure == "wrong-decision"
    assert judgement.decision != label and not judgement.decision_correct
    assert (judgement.witness_valid is None) == (label == "UNSAT")


# -- failure kinds, one by one -----------------------------------------------------------------

F = Formula.from_named([["x1", "x2"], ["~x1", "x2"]])  # SAT: x2 must be true
P = PromptView({"Ann": "x1", "Bob": "x2"}, "has", "doesn\u2019t have")
U = Formula.from_named([["x1"], ["~x1"]])
PU = PromptView({"A": "x1"}, "true", "false")

CASES = [
    ('{"Ann": "has", "Bob": "has"}\nThe answer is: Yes', F, P, "SAT", "correct"),
    (
        '{"Ann": "has", "Bob": "doesn\u2019t have"}\nThe answer is: Yes',
        F,
        P,
        "SAT",
        "invalid-witness",
    ),
    ('{"Ann": "has", "Cy": "has"}\nThe answer is: Yes', F, P, "SAT", "invalid-witness"),
    ('{"Ann": "maybe", "Bob": "has"}\nThe answer is: Yes', F, P, "SAT", "invalid-witness"),
    ("All fine.\nThe answer is: Yes", F, P, "SAT", "missing-witness"),
    ('{Ann: has, Bob: "has"}\nThe answer is: Yes', F, P, "SAT", "bad-json"),
    ("The answer is: No", F, P, "SAT", "wrong-decision"),
    ("The answer is: Yes", U, PU, "UNSAT", "wrong-decision"),
    ("I am not sure.", U, PU, "UNSAT", "no-answer"),
    ("The answer is: Yes\nThe answer is: No", U, PU, "UNSAT", "ambiguous-answer"),
    ("The answer is: No", U, PU, "UNSAT", "correct"),
]


@pytest.mark.parametrize(("text", "formula", "prompt", "label", "kind"), CASES)
def test_failure_kinds(
    text: str, formula: Formula, prompt: PromptView, label: str, kind: str
) -> None:
    judgement = score(Response(text, "stop"), prompt, formula, label)
    assert judgement.failure == kind
    assert judgement.correct == (kind == "correct")
    if kind in ("invalid-witness", "missing-witness", "bad-json"):
        assert judgement.decision_correct and judgement.witness_valid is False
        assert judgement.witness_reason


def test_every_kind_is_covered_and_error_is_its_own() -> None:
    kinds = {kind for *_, kind in CASES} | {"truncated", "error"}
    assert kinds == set(FAILURE_KINDS)
    j = error_judgement("SAT", "HTTP 503 (gave up after 6 attempts)")
    assert (j.failure, j.decision, j.decision_correct, j.error) == (
        "error",
        None,
        False,
        "HTTP 503 (gave up after 6 attempts)",
    )


def test_invalid_reasons_name_the_problem() -> None:
    def reason(text: str) -> str:
        return score(Response(text + "\nThe answer is: Yes"), P, F, "SAT").witness_reason or ""

    assert reason('{"Ann": "has", "Cy": "has"}') == "unknown entity 'Cy'"
    assert "'maybe'" in reason('{"Ann": "maybe"}')
    assert "clause 2 (~x1 | x2) is false" in reason('{"Ann": "has", "Bob": "doesn\u2019t have"}')


def test_lenient_forgives_case_ascii_apostrophes_and_booleans() -> None:
    text = "{'ann': 'HAS', 'Bob': true,}\nthe answer is yes"
    judgement = score(Response(text), P, F, "SAT")
    assert judgement.failure == "no-answer"
    assert judgement.lenient_failure == "correct" and judgement.lenient_witness_valid
    answer = '{"Ann": "doesn\'t have", "Bob": "has"}\nThe answer is: Yes'
    ascii_value = score(Response(answer), P, F, "SAT")
    assert ascii_value.failure == ascii_value.lenient_failure == "correct"


def test_entity_values_must_name_formula_variables() -> None:
    with pytest.raises(ConfigError):
        score(Response("The answer is: No"), PromptView({"A": "nope"}, "t", "f"), U, "UNSAT")
    with pytest.raises(ConfigError):
        score(Response("The answer is: No"), PU, U, "MAYBE")


def test_judgement_round_trips_through_a_dict() -> None:
    judgement = score(Response('{"Ann": "has", "Bob": "has"}\nThe answer is: Yes'), P, F, "SAT")
    assert Judgement.from_dict(json.loads(json.dumps(judgement.to_dict()))) == judgement


def test_long_answers_are_scanned() -> None:
    rng = random.Random(7)
    filler = "\n".join("".join(rng.choice("abc {}:\"' ") for _ in range(80)) for _ in range(2_000))
    text = filler + '\n```json\n{"Ann": "has", "Bob": "has"}\n```\nThe answer is: Yes'
    assert score(Response(text), P, F, "SAT").failure == "correct"
