"""``score`` shares work between its strict and lenient readings; each reading must be
what the public extractors and checker give on their own."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.run import EvalPrompt
from twosat_formal.evaluate.scoring import check_witness, extract_decision, extract_witness, score

FORMULA = Formula.from_named([["x1", "~x2"], ["x2", "x3"]])
PROMPT = EvalPrompt(
    "p", "i", "logic", "text", {"Ann": "x1", "Bob": "x2", "Cy": "x3"}, "true", "false"
)

VALUES = st.sampled_from(['"true"', '"false"', '"TRUE"', "true", "false", '" False "', "1"])
KEYS = st.sampled_from(['"Ann"', '"Bob"', '"Cy"', '"ann"', '"Dee"', "'Bob'"])
OBJECTS = st.lists(st.tuples(KEYS, VALUES), max_size=4).map(
    lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
)
LINES = st.one_of(
    OBJECTS,
    st.sampled_from(
        [
            "The answer is: Yes",
            "The answer is: No",
            "**The answer is: yes**.",
            "answer: no",
            "I'd say SAT here.",
            "```json",
            "```",
            "",
            "Wait, no.",
        ]
    ),
)


def _reading(text: str, label: str, *, lenient: bool) -> tuple[str | None, bool | None]:
    """The decision and witness validity of one reading, from the public functions."""
    decision = extract_decision(text, lenient=lenient).value
    if label != "SAT":
        return decision, None
    found = extract_witness(text, lenient=lenient, entities=PROMPT.entities.keys())
    if found.status != "found" or found.obj is None or found.reason is not None:
        return decision, False
    return decision, check_witness(found.obj, PROMPT, FORMULA, lenient=lenient).valid


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=6), st.sampled_from(["SAT", "UNSAT"]))
def test_both_readings_match_the_public_functions(lines: list[str], label: str) -> None:
    text = "\n".join(lines)
    judgement = score(Response(text, "stop"), PROMPT, FORMULA, label)
    assert (judgement.decision, judgement.witness_valid) == _reading(text, label, lenient=False)
    lenient = _reading(text, label, lenient=True)
    assert (judgement.lenient_decision, judgement.lenient_witness_valid) == lenient
    if label == "SAT" and judgement.witness_valid:
        found = extract_witness(text, entities=PROMPT.entities.keys())
        assert found.obj is not None
        assert judgement.witness == check_witness(found.obj, PROMPT, FORMULA).assignment


def _failure(text: str, label: str, *, lenient: bool, truncated: bool) -> str:
    """The failure kind of one reading, from the public functions and the rules of
    docs/evaluation.md (truncation, then the decision, then the witness)."""
    decision = extract_decision(text, lenient=lenient)
    if truncated:
        return "truncated"
    if decision.ambiguous:
        return "ambiguous-answer"
    if decision.value is None:
        return "no-answer"
    if decision.value != label:
        return "wrong-decision"
    if label != "SAT":
        return "correct"
    found = extract_witness(text, lenient=lenient, entities=PROMPT.entities.keys())
    if found.status == "missing":
        return "missing-witness"
    if found.status != "found":
        return "bad-json"
    if found.obj is None or found.reason is not None:
        return "invalid-witness"
    valid = check_witness(found.obj, PROMPT, FORMULA, lenient=lenient).valid
    return "correct" if valid else "invalid-witness"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=6), st.sampled_from(["SAT", "UNSAT"]), st.booleans())
def test_both_readings_fail_as_the_public_functions_say(
    lines: list[str], label: str, truncated: bool
) -> None:
    text = "\n".join(lines)
    response = Response(text, "length" if truncated else "stop")
    judgement = score(response, PROMPT, FORMULA, label)
    assert judgement.failure == _failure(text, label, lenient=False, truncated=truncated)
    assert judgement.lenient_failure == _failure(text, label, lenient=True, truncated=truncated)
    assert judgement.lenient_decision_correct == (
        extract_decision(text, lenient=True).value == label and not truncated
    )


def test_the_lenient_reading_checks_its_own_witness() -> None:
    # strictly, the first object is the witness (``ann`` is no entity) and it is valid;
    # leniently, the last one is (``ann`` is Ann), and it makes clause 1 false
    text = '{"Ann": "true", "Bob": "true", "Cy": "true"}\n{"ann": "false"}\nThe answer is: Yes'
    judgement = score(Response(text, "stop"), PROMPT, FORMULA, "SAT")
    assert judgement.witness_valid is True
    assert judgement.lenient_witness_valid is False
    assert _reading(text, "SAT", lenient=True) == ("SAT", False)
