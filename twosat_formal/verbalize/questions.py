"""The fixed wording of each question type's block (printed in docs/verbalization.md).

A question prompt is the verbalization (round-trip proved, as for the decision),
``Think step by step.``, then the type's block in place of the decision's
instructions: the question, the answer's format with an example in the style of the
paper's App. G.2, and the closing line the strict reader expects.

Examples
--------
>>> print(question_block("forced", "true", "false", ["A", "B"], None))
Question: which entities have a value fixed by the rules, that is, the same value
in every assignment that satisfies all the rules?
<BLANKLINE>
Provide every entity whose value is fixed, with that value, as one JSON object
using "true" or "false" as values ({} if no value is fixed).
Example format:
{"A": "true", "B": "false"}
<BLANKLINE>
End your response with exactly one line:
The answer is: {"<entity>": "<value>", ...}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from twosat_formal.errors import ConfigError

__all__ = [
    "CORE_QUESTION",
    "ENTAILS_QUESTION",
    "FORCED_QUESTION",
    "MAXSAT_QUESTION",
    "REPAIR_QUESTION",
    "question_block",
]

#: The question of a ``forced`` prompt.
FORCED_QUESTION = (
    "Question: which entities have a value fixed by the rules, that is, the same value\n"
    "in every assignment that satisfies all the rules?"
)

#: The question of an ``entails`` prompt: ``{a}``, ``{b}`` are the entities (quoted),
#: ``{va}``, ``{vb}`` their values (quoted).
ENTAILS_QUESTION = (
    "Question: suppose {a} has the value {va}. Must {b} then have the value {vb}\n"
    "in every assignment that satisfies all the rules?"
)


#: The question of a ``core`` prompt (its rules are printed with their numbers).
CORE_QUESTION = (
    "Question: the numbered rules above cannot all hold together.\n"
    "Name a smallest set of rules that cannot all hold together."
)


#: The question of a ``repair`` prompt (its rules are printed with their numbers).
REPAIR_QUESTION = (
    "Question: the numbered rules above cannot all hold together.\n"
    "Which fewest rules must be dropped so that all the other rules can hold together?"
)

#: The question of a ``maxsat`` prompt.
MAXSAT_QUESTION = (
    "Question: the rules above cannot all hold together. Give an assignment that\n"
    "satisfies as many of the rules as possible."
)


def _pair(obj: Mapping[str, str]) -> tuple[str, str]:
    ((entity, value),) = obj.items()
    return json.dumps(entity, ensure_ascii=False), json.dumps(value, ensure_ascii=False)


def _example_object(true_value: str, false_value: str, shown: Sequence[str]) -> str:
    """The example JSON object: the first two shown entities, true and false."""
    values = (true_value, false_value)
    return json.dumps(
        {entity: value for entity, value in zip(shown[:2], values, strict=False)},
        ensure_ascii=False,
    )


def _forced_block(
    true_value: str, false_value: str, shown: Sequence[str], reference: Mapping[str, Any] | None
) -> str:
    """The block of a ``forced`` prompt: the fixed entities as one JSON object."""
    return (
        FORCED_QUESTION + "\n\n"
        "Provide every entity whose value is fixed, with that value, as one JSON object\n"
        f'using "{true_value}" or "{false_value}" as values ({{}} if no value is fixed).\n'
        "Example format:\n"
        f"{_example_object(true_value, false_value, shown)}\n\n"
        "End your response with exactly one line:\n"
        'The answer is: {"<entity>": "<value>", ...}'
    )


def _entails_block(
    true_value: str, false_value: str, shown: Sequence[str], reference: Mapping[str, Any] | None
) -> str:
    """The block of an ``entails`` prompt: Yes or No, with the chain of a Yes.

    Raises
    ------
    ConfigError
        If there is no ``reference`` to name the question's entities.
    """
    if reference is None:
        raise ConfigError("an entails prompt needs its question (the reference)")
    a, va = _pair(reference["if"])
    b, vb = _pair(reference["then"])
    start = json.dumps(reference["if"], ensure_ascii=False)
    end = json.dumps(reference["then"], ensure_ascii=False)
    return (
        ENTAILS_QUESTION.format(a=a, va=va, b=b, vb=vb) + "\n\n"
        "If yes, also provide the chain of rules as JSON:\n"
        f'{{"chain": [{start}, ..., {end}]}}\n'
        f"The chain starts at {a}: {va}, ends at {b}: {vb}, and each step\n"
        "must follow from the step before by one rule above.\n\n"
        "End your response with exactly one of:\n"
        f'- "The answer is: Yes" (if {b} must have the value {vb})\n'
        '- "The answer is: No" (if it need not)'
    )


def _core_block(
    true_value: str, false_value: str, shown: Sequence[str], reference: Mapping[str, Any] | None
) -> str:
    """The block of a ``core`` prompt: the numbers of a smallest core as a JSON list."""
    return (
        CORE_QUESTION + "\n\n"
        "Provide the numbers of those rules as one JSON list.\n"
        "Example format:\n"
        "[1, 3]\n\n"
        "End your response with exactly one line:\n"
        "The answer is: [<rule number>, ...]"
    )


def _repair_block(
    true_value: str, false_value: str, shown: Sequence[str], reference: Mapping[str, Any] | None
) -> str:
    """The block of a ``repair`` prompt: the numbers of the rules to drop as a JSON list."""
    return (
        REPAIR_QUESTION + "\n\n"
        "Provide the numbers of the rules to drop as one JSON list.\n"
        "Example format:\n"
        "[2]\n\n"
        "End your response with exactly one line:\n"
        "The answer is: [<rule number>, ...]"
    )


def _maxsat_block(
    true_value: str, false_value: str, shown: Sequence[str], reference: Mapping[str, Any] | None
) -> str:
    """The block of a ``maxsat`` prompt: a value for every entity as one JSON object."""
    return (
        MAXSAT_QUESTION + "\n\n"
        "Provide a value for every entity as one JSON object\n"
        f'using "{true_value}" or "{false_value}" as values.\n'
        "Example format:\n"
        f"{_example_object(true_value, false_value, shown)}\n\n"
        "End your response with exactly one line:\n"
        'The answer is: {"<entity>": "<value>", ...}'
    )


_BLOCKS: dict[str, Callable[[str, str, Sequence[str], Mapping[str, Any] | None], str]] = {
    "forced": _forced_block,
    "entails": _entails_block,
    "core": _core_block,
    "repair": _repair_block,
    "maxsat": _maxsat_block,
}
"""The block of each question type but the decision."""


def question_block(
    kind: str,
    true_value: str,
    false_value: str,
    shown: Sequence[str],
    reference: Mapping[str, Any] | None,
) -> str:
    """The block of a ``kind`` prompt after ``Think step by step.``.

    Parameters
    ----------
    kind:
        ``forced``, ``entails``, ``core``, ``repair`` or ``maxsat``.
    true_value, false_value:
        The scheme's value words.
    shown:
        The entities the example shows (the first two are used).
    reference:
        An ``entails`` prompt's reference, whose ``if`` and ``then`` the question names.

    Examples
    --------
    >>> ref = {"if": {"A": "true"}, "then": {"B": "false"}}
    >>> print(question_block("entails", "true", "false", ["A", "B"], ref))
    Question: suppose "A" has the value "true". Must "B" then have the value "false"
    in every assignment that satisfies all the rules?
    <BLANKLINE>
    If yes, also provide the chain of rules as JSON:
    {"chain": [{"A": "true"}, ..., {"B": "false"}]}
    The chain starts at "A": "true", ends at "B": "false", and each step
    must follow from the step before by one rule above.
    <BLANKLINE>
    End your response with exactly one of:
    - "The answer is: Yes" (if "B" must have the value "false")
    - "The answer is: No" (if it need not)
    """
    builder = _BLOCKS.get(kind)
    if builder is None:
        raise ConfigError(f"question type {kind!r} has no question block", parameter="ask")
    return builder(true_value, false_value, shown, reference)
