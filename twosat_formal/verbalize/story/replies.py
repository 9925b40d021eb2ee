"""Reading the validator's replies (App. G.3, Steps 3a and 3b) and judging one attempt.

:func:`read_entities` reads the two entities of a Step 3a reply, :func:`read_state`
the ``A``/``B`` of a Step 3b reply (:func:`read_letter` of ``AB``, as ``certify
--revalidate`` reads a relation's ``A``/``B``/``C``); :func:`assess` turns the replies of
one attempt into its :class:`Assessment`: the entities, the states, the recovered
literals and one outcome of :data:`ATTEMPT_OUTCOMES`. The story verbalizer judges each
attempt with them, and the proof of a stored record re-reads the stored replies with the same
readers.

Examples
--------
>>> read_entities('["The Maid", "butler"]', ["the butler", "the maid"])
('the maid', 'the butler')
>>> read_state("**B**"), read_state("A or B")
('B', None)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "ATTEMPT_OUTCOMES",
    "Assessment",
    "assess",
    "needs_states",
    "read_entities",
    "read_letter",
    "read_state",
]

#: Every outcome of one attempt, ``valid`` first.
ATTEMPT_OUTCOMES: tuple[str, ...] = (
    "valid",
    "wrong-entities",
    "wrong-polarity",
    "malformed-entities",
    "malformed-state",
    "empty-clue",
    "error",
)

_ARRAY = re.compile(r"\[[^\[\]]*\]")
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_TRIM = " \t\r\n\"'`*.,;:!?"


def _normal(name: str) -> str:
    text = " ".join(name.replace("\u2019", "'").split()).strip(_TRIM).casefold()
    return text[4:] if text.startswith("the ") else text


def read_entities(reply: str, available: Sequence[str]) -> tuple[str, str] | None:
    """The two entities of a Step 3a reply, or ``None`` when the reply is malformed.

    The reply should be a JSON array of exactly two entity names. The first bracketed
    list in the reply is read (as JSON, or as a list of quoted strings); each name must
    be one of ``available`` up to case, spacing, surrounding quotes and punctuation,
    and a leading "the". The entities come back as ``available`` spells them.

    >>> read_entities('Sure! ["the knife", "the diary"]', ["the knife", "the diary", "the maid"])
    ('the knife', 'the diary')
    >>> read_entities('["the knife"]', ["the knife", "the diary"]) is None
    True
    """
    index: dict[str, str] = {}
    for name in available:
        index.setdefault(_normal(name), name)
    items = _bracketed(reply)
    if items is None or len(items) != 2:
        return None
    found = [index.get(_normal(item)) if isinstance(item, str) else None for item in items]
    if found[0] is None or found[1] is None:
        return None
    return found[0], found[1]


def _bracketed(reply: str) -> list[object] | None:
    """The items of the first bracketed list of ``reply`` (as JSON, or its quoted
    strings), or ``None``."""
    match = _ARRAY.search(reply)
    if match is None:
        return None
    chunk = match.group(0)
    try:
        items = json.loads(chunk)
    except json.JSONDecodeError:
        items = [a if a else b for a, b in _QUOTED.findall(chunk)]
    return items if isinstance(items, list) else None


def read_state(reply: str) -> str | None:
    """The letter of a Step 3b reply: ``"A"``, ``"B"``, or ``None`` when unclear.

    The reply must name exactly one of the capital letters A and B as a word.

    >>> read_state('"A"'), read_state("Answer: B) is innocent"), read_state("I cannot tell")
    ('A', 'B', None)
    """
    return read_letter(reply, "AB")


def read_letter(reply: str, letters: str) -> str | None:
    """The one capital letter of ``letters`` a reply names as a word, else ``None``.

    >>> read_letter("Answer: C", "ABC"), read_letter("A or B", "ABC")
    ('C', None)
    """
    found = set(re.findall(rf"\b([{letters}])\b", reply))
    return found.pop() if len(found) == 1 else None


# -- one attempt ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Assessment:
    """What the replies of one attempt say: entities, states, recovered literals, outcome."""

    entities: tuple[str, ...] | None
    states: tuple[str, ...] | None
    recovered: tuple[tuple[str, bool], ...] | None
    outcome: str


def assess(
    text: str | None,
    entities_reply: str | None,
    state_replies: Sequence[str | None],
    source: Sequence[tuple[str, bool]],
    available: Sequence[str],
) -> Assessment:
    """Judge one attempt from its clue and the validator's replies.

    Parameters
    ----------
    text:
        The clue (``None``: its generation failed).
    entities_reply:
        The Step 3a reply (``None``: not asked, or the call failed).
    state_replies:
        The Step 3b replies, one per extracted entity in extraction order (``None``
        for a call that failed); empty when Step 3b was not asked.
    source:
        The clause as ``(entity, value)`` pairs.
    available:
        Every entity of the story (the list Step 3a shows).

    Returns
    -------
    Assessment
        ``outcome`` is one of :data:`ATTEMPT_OUTCOMES`. Step 3b is only asked when
        Step 3a named the clause's two entities: otherwise the clause cannot match.

    Examples
    --------
    >>> source = [("the maid", True), ("the cook", False)]
    >>> assess("clue", '["the cook", "the maid"]', ["B", "A"], source, ["the maid", "the cook"])
    Assessment(entities=('the cook', 'the maid'), states=('B', 'A'), \
recovered=(('the cook', False), ('the maid', True)), outcome='valid')
    >>> assess("clue", '["the cook", "the maid"]', ["A", "A"], source,
    ...        ["the maid", "the cook"]).outcome
    'wrong-polarity'
    """
    stopped = _stopped(text, entities_reply)
    if stopped is not None or entities_reply is None:
        return Assessment(None, None, None, stopped or "error")
    entities = read_entities(entities_reply, available)
    if entities is None:
        return Assessment(None, None, None, "malformed-entities")
    if not needs_states(entities, source):
        return Assessment(entities, None, None, "wrong-entities")
    states = _states(state_replies)
    if isinstance(states, str):
        return Assessment(entities, None, None, states)
    recovered = tuple((e, s == "A") for e, s in zip(entities, states, strict=True))
    outcome = "valid" if sorted(recovered) == sorted(source) else "wrong-polarity"
    return Assessment(entities, states, recovered, outcome)


def _stopped(text: str | None, entities_reply: str | None) -> str | None:
    """The outcome of an attempt that stops before Step 3a's reply is read, or ``None``."""
    if text is not None and not text.strip():
        return "empty-clue"
    return "error" if text is None or entities_reply is None else None


def _states(state_replies: Sequence[str | None]) -> tuple[str, ...] | str:
    """The letters of the two Step 3b replies, or the outcome when one failed or is
    unclear."""
    if len(state_replies) != 2 or any(reply is None for reply in state_replies):
        return "error"
    states = [read_state(reply or "") for reply in state_replies]
    return "malformed-state" if None in states else tuple(str(s) for s in states)


def needs_states(entities: Sequence[str], source: Sequence[tuple[str, bool]]) -> bool:
    """Whether Step 3a named exactly the clause's two (distinct) entities.

    >>> source = [("a", True), ("b", False)]
    >>> needs_states(("b", "a"), source), needs_states(("a", "a"), source)
    (True, False)
    """
    wanted = {entity for entity, _ in source}
    return len(set(entities)) == 2 and set(entities) == wanted
