"""A model's answer is input too: any answer, of any shape and size, gets a judgement."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.run import EvalPrompt
from twosat_formal.evaluate.scoring import (
    FAILURE_KINDS,
    MAX_JSON_CHARS,
    MAX_JSON_DEPTH,
    extract_witness,
    score,
)

FORMULA = Formula.from_named([["a", "b"], ["~a", "b"]])
PROMPT = EvalPrompt("p", "i", "logic", "t", {"A": "a", "B": "b"}, "true", "false")
WITNESS = '{"A": "true", "B": "true"}\nThe answer is: Yes'


def judge(text: str) -> object:
    judgement = score(Response(text, "stop"), PROMPT, FORMULA, "SAT")
    data = judgement.to_dict()
    assert data["failure"] in (*FAILURE_KINDS, "correct")
    return judgement


ADVERSARIAL = {
    "nested objects": '{"A": ' * 100_000 + "1" + "}" * 100_000 + "\nThe answer is: Yes",
    "nested arrays": '{"A": ' + "[" * 200_000 + "]" * 200_000 + "}\nThe answer is: Yes",
    "open braces": "{" * 1_000_000,
    "close braces": "}" * 1_000_000 + WITNESS,
    "quoted braces": '{"A": "' + "{" * 100_000 + '"}\nThe answer is: Yes',
    "huge number": '{"A": 1' + "0" * 100_000 + "}\nThe answer is: Yes",
    "nul bytes": '{"A": "\x00true", "B": "tr\x00ue"}\x00\nThe answer is: Yes',
    "lone surrogate escape": '{"A": "\\ud800", "B": "\\udfff"}\nThe answer is: Yes',
    "bad escape": '{"A": "\\x41"}\nThe answer is: Yes',
    "failed spans inside failed spans": ('{"a":{"a":' * 10 + "x" + "}}" * 10 + " ") * 5_000,
    "long line": "x" * 2_000_000 + WITNESS,
    "many answer lines": "The answer is: Yes\n" * 50_000,
    "emphasis": "_" * 500_000 + "\n" + WITNESS,
}


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_an_adversarial_answer_gets_a_judgement(case: str) -> None:
    judge(ADVERSARIAL[case])


def test_a_deep_object_is_refused_with_a_reason() -> None:
    text = '{"A": ' * (MAX_JSON_DEPTH + 5) + '"true"' + "}" * (MAX_JSON_DEPTH + 5)
    found = extract_witness(text)
    assert found.obj is None
    assert found.reason is not None


def test_the_witness_closing_a_long_answer_is_read() -> None:
    text = "x" * (3 * MAX_JSON_CHARS) + WITNESS
    judgement = judge(text)
    assert judgement.to_dict()["failure"] == "correct"


def test_a_witness_before_the_read_window_says_what_was_not_read() -> None:
    text = WITNESS + "\n" + "y" * (2 * MAX_JSON_CHARS) + "\nThe answer is: Yes"
    found = extract_witness(text)
    assert found.status == "missing"
    assert str(MAX_JSON_CHARS) in str(found.reason)


def test_the_reader_still_finds_a_flat_witness_after_a_refused_deep_one() -> None:
    deep = '{"A": ' * 40 + '"x"' + "}" * 40
    found = extract_witness(deep + '\n{"A": "true", "B": "false"}')
    assert found.obj == {"A": "true", "B": "false"}


FRAGMENTS = st.sampled_from(
    ["{", "}", "[", "]", '"', "\\", ":", ",", "\n", "A", "true", "1e999", "\x00", "\\u", "'"]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=5)), max_size=200),
    st.sampled_from(["", "\nThe answer is: Yes", "\nThe answer is: No"]),
)
def test_any_answer_gets_a_judgement(parts: list[str], tail: str) -> None:
    judge("".join(parts) + tail)
    extract_witness("".join(parts), lenient=True)


def _span_ends_reference(text: str) -> tuple[dict[int, int], frozenset[int]]:
    """The brace scan read from the first character, written out plainly: where each
    matched ``{`` closes, strings skipped, and the openings nested too deep."""
    from twosat_formal.evaluate.scoring import MAX_JSON_DEPTH

    ends: dict[int, int] = {}
    deep: set[int] = set()
    opened: list[list[int]] = []  # [position, deepest nesting inside]
    arrays: list[int] = []  # arrays open inside each open brace
    in_string, i = False, 0
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\" and text[i + 1 : i + 2] != "\n":
                i += 1
            elif ch in '"\n':
                in_string = False
        elif ch == '"':
            in_string = bool(opened)
        elif ch == "{":
            if opened:
                opened[-1][1] = max(opened[-1][1], arrays[-1] + 1)
            opened.append([i, 0])
            arrays.append(0)
        elif ch == "[" and opened:
            arrays[-1] += 1
            opened[-1][1] = max(opened[-1][1], arrays[-1])
        elif ch == "]" and opened and arrays[-1]:
            arrays[-1] -= 1
        elif ch == "}" and opened:
            start, inner = opened.pop()
            arrays.pop()
            ends[start] = i + 1
            if inner >= MAX_JSON_DEPTH:
                deep.add(start)
            if opened:
                opened[-1][1] = max(opened[-1][1], inner + arrays[-1] + 1)
        i += 1
    return ends, frozenset(deep)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]"\\\n ab:,', max_size=60))
def test_the_brace_scan_agrees_with_a_plain_one_from_the_first_character(text: str) -> None:
    from twosat_formal.evaluate.scoring.answers import _span_ends

    assert _span_ends(text) == _span_ends_reference(text)
