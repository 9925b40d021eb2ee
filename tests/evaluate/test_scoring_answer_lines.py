"""The strict answer line: every form the G.2 prompt invites, and the near misses.

The G.2 prompt shows its final line as a quoted list item followed by a parenthetical
(``- "The answer is: Yes" (if a valid assignment exists)``). A model that copies it, or
decorates it with markdown, has followed the instructions; one that hedges, asks, adds a
word or takes the answer back has not.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.scoring import PromptView, extract_decision, score

PARENTHETICAL = {"Yes": "(if a valid assignment exists)", "No": "(if no valid assignment exists)"}
VALUE = {"Yes": "SAT", "No": "UNSAT"}


@st.composite
def copied_lines(draw: st.DrawFn, word: str) -> str:
    """``The answer is: <word>`` with any mix of the decorations the strict reading takes."""
    core_word = draw(st.sampled_from([word, word.upper(), word.lower()]))
    inner = draw(st.sampled_from(["", "**", "*", "__", "_"]))
    core = f"The answer is:{' ' * draw(st.integers(0, 2))}{inner}{core_word}{inner}"
    if draw(st.booleans()):
        core += "."
    around = draw(st.sampled_from(["", "**", "*", "__", "***"]))
    quotes = draw(st.sampled_from([("", ""), ('"', '"'), ("\u201c", "\u201d")]))
    quoted = f"{quotes[0]}{core}{quotes[1]}"
    if quotes[0] and draw(st.booleans()):
        quoted = f"{quotes[0]}{around}{core}{around}{quotes[1]}"  # emphasis inside
    else:
        quoted = f"{around}{quoted}{around}"  # emphasis around
    paren = PARENTHETICAL[word] if draw(st.booleans()) else ""
    line = f"{quoted} {paren}".rstrip()
    if (quotes[0] or paren) and draw(st.booleans()):
        line += "."
    lead = draw(st.sampled_from(["", "- ", "* ", "+ ", "1. ", "2) ", "# ", "### ", "> "]))
    return " " * draw(st.integers(0, 3)) + lead + line + " " * draw(st.integers(0, 2))


@given(st.sampled_from(["Yes", "No"]), st.data())
def test_every_copied_form_is_strict_correct(word: str, data: st.DataObject) -> None:
    line = data.draw(copied_lines(word))
    before = data.draw(st.sampled_from(["", "Let me check.\n", "A and B.\n\n"]))
    after = data.draw(st.sampled_from(["", "\n", "\n\n  \n", "\n```", "\n---"]))
    text = before + line + after
    assert extract_decision(text).value == VALUE[word], text
    assert extract_decision(text, lenient=True).value == VALUE[word], text


# One example of every accepted form (the table in docs/evaluation.md).
ACCEPTED = [
    ("The answer is: Yes", "SAT"),
    ("the answer is:no", "UNSAT"),
    ("The answer is: No.", "UNSAT"),
    ('"The answer is: Yes"', "SAT"),
    ("\u201cThe answer is: No\u201d", "UNSAT"),
    ('- "The answer is: Yes" (if a valid assignment exists)', "SAT"),
    ('- "The answer is: No" (if no valid assignment exists).', "UNSAT"),
    ("* The answer is: Yes", "SAT"),
    ("1. The answer is: No", "UNSAT"),
    ("## The answer is: Yes", "SAT"),
    ("> The answer is: No", "UNSAT"),
    ('**"The answer is: Yes"**', "SAT"),
    ('"**The answer is: Yes**"', "SAT"),
    ('"The answer is: **No**"', "UNSAT"),
    ("**The answer is:** Yes", "SAT"),
    ("The answer is: Yes (if a valid assignment exists)", "SAT"),
    ('"The answer is: Yes."', "SAT"),
    ('"The answer is: No (if no valid assignment exists)"', "UNSAT"),
    ('The answer is: Yes\n```json\n{"A": "true"}\n```', "SAT"),
    ('The answer is: Yes\n{"A": "true"}', "SAT"),
]


@pytest.mark.parametrize(("text", "expected"), ACCEPTED)
def test_accepted_forms(text: str, expected: str) -> None:
    assert extract_decision(text) == (expected, False)


# Near misses: (text, strict verdict). ``None``: no answer; ``"ambiguous"``: conflicting.
NEAR_MISSES = [
    ("The answer is: Yes or No", "ambiguous"),
    ("The answer is: Yes/No", "ambiguous"),
    ("The answer is: Yes and No", "ambiguous"),
    ("The answer is: Yes?", None),
    ("The answer is: Yes!", None),
    ("The answer is: Yes..", None),
    ("The answer is: Yes, because A is true.", None),
    ("The answer is: Yes\nWait, that is wrong: C cannot be true.", None),
    ("The answer is: No\n\nActually, let me reconsider. A = true works.", None),
    ("**The answer is: Yes**\nHmm, no.", None),
    ("The answer is Yes", None),
    ("Answer: Yes", None),
    ("The answer: Yes", None),
    ("My answer is: Yes", None),
    ("I think the answer is: Yes", None),
    ("The answer is: Maybe", None),
    ("The answer is: Yesterday", None),
    ("The answer is: True", None),
    ("The answer is: Y", None),
    ("The answer is: Yes (probably)", None),
    ("The answer is: Yes (or No)", None),
    ("The answer is: Yes (if no valid assignment exists)", "ambiguous"),
    ('"The answer is: No" (if a valid assignment exists)', "ambiguous"),
    ('"The answer is: Yes', None),
    ('The answer is: Yes"', None),
    ("'The answer is: Yes'", None),
    ("`The answer is: Yes`", None),
    ("~~The answer is: Yes~~", None),
    ("- - The answer is: Yes", None),
    ("-The answer is: Yes", None),
    ('"The answer is: Yes" or "The answer is: No"', None),
    ("\\boxed{Yes}", None),
    ("The answer is not: Yes", None),
    ("The answer is: No, Yes", "ambiguous"),
    ("The answer is: Yes\nThe answer is: No", "ambiguous"),
    ('The answer is: Yes\n{"A": "true"}\nOn second thought, no.', None),
]


@pytest.mark.parametrize(("text", "verdict"), NEAR_MISSES)
def test_near_misses_are_rejected(text: str, verdict: str | None) -> None:
    decision = extract_decision(text)
    assert decision.value is None
    assert decision.ambiguous == (verdict == "ambiguous")


def test_lenient_keeps_its_extras() -> None:
    assert extract_decision("Final answer: Yes", lenient=True).value == "SAT"
    assert extract_decision("so \\boxed{No}", lenient=True).value == "UNSAT"
    assert extract_decision("Thus the answer is no, since A.", lenient=True).value == "UNSAT"
    assert extract_decision("`The answer is: Yes`", lenient=True).value == "SAT"
    # an answer line followed by more text is no strict answer, but a lenient one
    assert extract_decision("The answer is: Yes\nHope this helps!", lenient=True).value == "SAT"


def test_the_copied_prompt_line_scores_correct() -> None:
    formula = Formula.from_named([["x1", "x2"]])
    prompt = PromptView({"A": "x1", "B": "x2"}, "true", "false")
    text = (
        'Check.\n{"A": "true", "B": "false"}\n\n'
        '- "The answer is: Yes" (if a valid assignment exists)'
    )
    judgement = score(Response(text), prompt, formula, "SAT")
    assert (judgement.failure, judgement.lenient_failure) == ("correct", "correct")
    retracted = score(Response(text + "\nNo wait, B must be true."), prompt, formula, "SAT")
    assert (retracted.failure, retracted.lenient_failure) == ("no-answer", "correct")
