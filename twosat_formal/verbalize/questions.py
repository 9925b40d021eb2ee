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
from collections.abc import Mapping, Sequence
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


#: The closing line of an answer that is one JSON object of entities to values.
_OBJECT_ANSWER = 'The answer is: {{"<entity>": "<value>", ...}}'
#: The closing line of an answer that is one JSON list of rule numbers.
_LIST_ANSWER = "The answer is: [<rule number>, ...]"


def _block(question: str, provide: str, example: str, closing: str) -> str:
    """A block: the question, what to provide, an example and the one closing line."""
    return (
        f"{question}\n\n{provide}\nExample format:\n{example}\n\n"
        f"End your response with exactly one line:\n{closing}"
    )


#: The template of each question type's block but the decision's, keyed by
#: :data:`~twosat_formal.solve.questions.ASKED`: filled by :func:`str.format` with the
#: value words (``true``, ``false``), the ``example`` object and, for ``entails``, the
#: question's entities and values (:func:`_entails_fields`).
_TEMPLATES: dict[str, str] = {
    "forced": _block(
        FORCED_QUESTION,
        "Provide every entity whose value is fixed, with that value, as one JSON object\n"
        'using "{true}" or "{false}" as values ({{}} if no value is fixed).',
        "{example}",
        _OBJECT_ANSWER,
    ),
    "entails": ENTAILS_QUESTION + "\n\n"
    "If yes, also provide the chain of rules as JSON:\n"
    '{{"chain": [{start}, ..., {end}]}}\n'
    "The chain starts at {a}: {va}, ends at {b}: {vb}, and each step\n"
    "must follow from the step before by one rule above.\n\n"
    "End your response with exactly one of:\n"
    '- "The answer is: Yes" (if {b} must have the value {vb})\n'
    '- "The answer is: No" (if it need not)',
    "core": _block(
        CORE_QUESTION,
        "Provide the numbers of those rules as one JSON list.",
        "[1, 3]",
        _LIST_ANSWER,
    ),
    "repair": _block(
        REPAIR_QUESTION,
        "Provide the numbers of the rules to drop as one JSON list.",
        "[2]",
        _LIST_ANSWER,
    ),
    "maxsat": _block(
        MAXSAT_QUESTION,
        "Provide a value for every entity as one JSON object\n"
        'using "{true}" or "{false}" as values.',
        "{example}",
        _OBJECT_ANSWER,
    ),
}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _entails_fields(reference: Mapping[str, Any]) -> dict[str, str]:
    """The entities (``a``, ``b``) and values (``va``, ``vb``) of an ``entails``
    question, quoted, and its first and last steps (``start``, ``end``) as JSON."""
    ((a, va),) = reference["if"].items()
    ((b, vb),) = reference["then"].items()
    quoted = {"a": a, "va": va, "b": b, "vb": vb}
    ends = {"start": reference["if"], "end": reference["then"]}
    return {key: _json(value) for key, value in {**quoted, **ends}.items()}


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
    template = _TEMPLATES.get(kind)
    if template is None:
        raise ConfigError(f"question type {kind!r} has no question block", parameter="ask")
    example = _json(dict(zip(shown[:2], (true_value, false_value), strict=False)))
    fields = {"true": true_value, "false": false_value, "example": example}
    if "{a}" in template:  # the question names the reference's entities
        if reference is None:
            raise ConfigError("an entails prompt needs its question (the reference)")
        fields.update(_entails_fields(reference))
    return template.format(**fields)
