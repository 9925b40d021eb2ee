"""Ask a validator model again about a story's attested text (``certify --revalidate``).

What a model wrote can only be *validated by a model*, never proved. ``certify`` binds
a story's attested text into its id; ``--revalidate --model SPEC`` asks a validator
model again, with the checks App. G.3 leaves open:

* **the introduction** is asked whether it states any rule, constraint or relationship
  about the entities: it must not (a rule there would be a clause the formula lacks);
* **each accepted clue** is asked its two entities (Step 3a) and each entity's state
  (Step 3b) again, and also its **relation**: that at least one of the two statements
  holds (a clause), not that both do, nor "if the first, then the second".

Fallback and direct clues are programmatic sentences, read back by parsing; they are
not asked. A failed call, or a reply that is unclear, fails the record too.

Examples
--------
>>> print(intro_prompt("Night fell.", ["the maid", "the cook"]).splitlines()[0])
Does this introduction state any rule, constraint or relationship about what
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Model, SamplingParams
from twosat_formal.errors import EvaluationError
from twosat_formal.verbalize.story.generator import entities_prompt, state_prompt
from twosat_formal.verbalize.story.record import StoryRecord
from twosat_formal.verbalize.story.replies import assess, read_entities, read_letter
from twosat_formal.verbalize.story.sentences import clause_statements

__all__ = [
    "RELATION_ANSWER",
    "intro_prompt",
    "read_yes_no",
    "relation_prompt",
    "revalidate_story",
]

#: The relation every clue must state: "at least one of the two holds" (a clause).
RELATION_ANSWER = "A"
#: Greedy sampling for the validator, as in App. G.3's validation calls.
_PARAMS = SamplingParams(max_tokens=256, temperature=0.0)
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)


def intro_prompt(intro: str, entities: Sequence[str]) -> str:
    """The question about the introduction: does it state a rule?"""
    return (
        "Does this introduction state any rule, constraint or relationship about what\n"
        "is true of the entities (for example that one is guilty, or that two go\n"
        "together)? Merely naming or describing them is not a rule.\n\n"
        f'INTRODUCTION: "{intro}"\n\n'
        f"ENTITIES: {json.dumps(list(entities), ensure_ascii=False)}\n\n"
        'Answer with ONLY "Yes" or "No".'
    )


def relation_prompt(clue: str, first: str, second: str) -> str:
    """The question about a clue's relation between its two statements."""
    return (
        "What does this clue state about the two statements below?\n\n"
        f'CLUE: "{clue}"\n\n'
        f"- Statement 1: {first}\n"
        f"- Statement 2: {second}\n\n"
        "A) at least one of the two statements is true\n"
        "B) both statements are true\n"
        "C) if statement 1 is true, then statement 2 is true\n\n"
        'Answer with ONLY "A", "B" or "C".'
    )


def read_yes_no(reply: str) -> str | None:
    """``"yes"`` or ``"no"`` when the reply says exactly one of them, else ``None``.

    >>> read_yes_no("No."), read_yes_no("Yes and no")
    ('no', None)
    """
    found = {m.lower() for m in _YES_NO.findall(reply)}
    return found.pop() if len(found) == 1 else None


async def _ask(model: Model, prompt: str) -> str | None:
    try:
        return (await model.generate(prompt, _PARAMS)).text
    except EvaluationError:
        return None


async def revalidate_story(record: StoryRecord, formula: Formula, model: Model) -> list[str]:
    """Ask ``model`` about the attested parts of ``record``; the problems found (none: ok).

    ``formula`` is the instance's formula (clause ``i`` is clue ``i``).
    """
    entities = list(record.entities)
    intro = await _intro_problem(record.intro, entities, model)
    problems = [] if intro is None else [intro]
    for clue, clause in zip(record.clues, formula.clauses, strict=False):
        if clue.accepted is None:
            continue  # a programmatic sentence, read back by parsing
        source, statements = clause_statements(clause, entities, record.descriptions)
        problem = await _clue_problem(clue.text, source, statements, record, model)
        if problem is not None:
            problems.append(f"clue {clue.index}: {problem}")
    return problems


async def _intro_problem(intro: str, entities: list[str], model: Model) -> str | None:
    """The problem of an introduction the validator says states a rule, or ``None``."""
    reply = await _ask(model, intro_prompt(intro, entities))
    if reply is not None and read_yes_no(reply) == "no":
        return None
    return (
        "the introduction states a rule about the entities (validator: "
        f"{(reply or 'no reply').strip()[:60]!r})"
    )


async def _clue_problem(
    text: str,
    source: list[tuple[str, bool]],
    statements: list[tuple[str, str]],
    record: StoryRecord,
    model: Model,
) -> str | None:
    """The problem of an accepted clue the validator now reads otherwise, or ``None``:
    Steps 3a and 3b asked again (:func:`assess`), then the relation."""
    entities = list(record.entities)
    descriptions = record.descriptions
    found = await _ask(model, entities_prompt(text, entities))
    named = read_entities(found, entities) if found is not None else None
    states: list[str | None] = []
    for entity in named or ():
        true, false = descriptions[entity]
        states.append(await _ask(model, state_prompt(text, entity, true, false)))
    outcome = assess(text, found, states, source, entities).outcome
    if outcome != "valid":
        return f"the validator now reads it as {outcome!r}"
    first, second = (" ".join(statement) for statement in statements[:2])
    relation = await _ask(model, relation_prompt(text, first, second))
    letter = read_letter(relation, "ABC") if relation is not None else None
    if letter == RELATION_ANSWER:
        return None
    meaning = {"B": "both hold", "C": "if-then", None: "no clear answer"}[letter]
    return f"the validator reads its relation as {meaning}"
