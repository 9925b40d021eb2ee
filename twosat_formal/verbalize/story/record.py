"""The story record: its JSON form, the reading of validator replies, and its proof.

A story record (one JSON Lines object, ``"kind": "story"``) keeps everything the story
verbalizer did for one formula: the entity map, the introduction, for every clause the
attempts with the clue text and the verbatim replies of the two validation calls
(App. G.3, Steps 3a and 3b), whether the programmatic fallback sentence was used, the
final story, the full evaluation prompt (App. G.2, story variant) and the **recovered
formula**: each clause as the validator read it back from an accepted clue, or as
:func:`parse_fallback` reads it back from a fallback sentence.

:func:`prove_story` is the round-trip proof of a record. It needs no model: it reads
the stored replies again with the same readers (:func:`read_entities`,
:func:`read_state`), re-derives every attempt's outcome, the accepted attempt or the
fallback, each recovered clause, the story text and the prompt, and checks that the
recovered formula equals the source clause for clause and is Z3-equivalent to it.
:func:`check_story_record` is what ``certify`` runs on a stored record.

Examples
--------
>>> descriptions = {"the butler": ("is the murderer", "is innocent"),
...                 "the maid": ("saw the killer", "saw nothing")}
>>> text = fallback_sentence([("the butler", "is innocent"), ("the maid", "saw the killer")])
>>> text
'Either the butler is innocent, or the maid saw the killer (or both).'
>>> parse_fallback(text, descriptions)
[('the butler', False), ('the maid', True)]
>>> read_entities('["The Maid", "butler"]', list(descriptions))
('the maid', 'the butler')
>>> read_state("**B**"), read_state("A or B")
('B', None)
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

import z3

from twosat_formal.errors import CertificateError, ConfigError, RecordError
from twosat_formal.formula import Formula
from twosat_formal.jsonl import json_line, read_json_lines, write_lines
from twosat_formal.prompts import story_prompt
from twosat_formal.verbalize.roundtrip import z3_equivalent
from twosat_formal.verbalize.story.themes import THEMES

__all__ = [
    "ATTEMPT_OUTCOMES",
    "KIND",
    "MAX_ATTEMPTS",
    "METHOD",
    "PAPER_FALLBACK_RATE",
    "PAPER_FIRST_ATTEMPT_RATE",
    "SCHEMA_VERSION",
    "Assessment",
    "Attempt",
    "ClueRecord",
    "StoryRecord",
    "StoryStatistics",
    "assemble_story",
    "assess",
    "attested_digest",
    "bind_id",
    "check_story_record",
    "fallback_sentence",
    "is_story_record",
    "needs_states",
    "parse_fallback",
    "prove_story",
    "read_entities",
    "read_state",
    "read_stories",
    "rebuild_story",
    "seal_story",
    "story_id",
    "story_statistics",
    "write_stories",
]

#: Version of the story record layout; :meth:`StoryRecord.from_record` refuses others.
SCHEMA_VERSION = 1
#: The ``kind`` field of every story record.
KIND = "story"
#: Clue generations per clause before the fallback sentence is used (paper §4).
MAX_ATTEMPTS = 3
#: The ``method`` of every story round-trip proof.
METHOD = "story-validation+clause-equality+z3-equivalence"
#: Share of clauses validated on the first attempt in the paper (§4).
PAPER_FIRST_ATTEMPT_RATE = 0.954
#: Share of clauses that use the fallback sentence in the paper (§4).
PAPER_FALLBACK_RATE = 0.033

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
_CLAUSE_MODES = ("llm", "direct")

# -- the fallback sentence ------------------------------------------------------------------

_EITHER, _OR, _BOTH = "Either ", ", or ", " (or both)."
_CERTAIN, _PERIOD = "It is certain that ", "."


def fallback_sentence(statements: Sequence[tuple[str, str]]) -> str:
    """The programmatic sentence of a clause, from ``(entity, description)`` pairs.

    Two literals give the paper's sentence ``Either {entity_1} {state_1}, or
    {entity_2} {state_2} (or both).``; a unit clause (an extension: the paper's
    formulas have none) gives ``It is certain that {entity} {state}.``.

    >>> fallback_sentence([("the vault", "is open")])
    'It is certain that the vault is open.'
    """
    shown = [f"{entity} {state}" for entity, state in statements]
    if len(shown) == 2:
        return f"{_EITHER}{shown[0]}{_OR}{shown[1]}{_BOTH}"
    if len(shown) == 1:
        return f"{_CERTAIN}{shown[0]}{_PERIOD}"
    raise ConfigError(
        f"a fallback sentence needs one or two literals, got {len(shown)}",
        parameter="clause",
        valid="1 or 2 literals",
    )


def parse_fallback(
    text: str, descriptions: Mapping[str, tuple[str, str]]
) -> list[tuple[str, bool]]:
    """Read a fallback sentence back: the ``(entity, value)`` of each literal.

    ``descriptions`` maps each entity to its ``(true, false)`` descriptions. The
    sentence must read exactly one way; :class:`~twosat_formal.errors.CertificateError`
    otherwise.

    >>> vault = {"the vault": ("is open", "is sealed")}
    >>> parse_fallback("It is certain that the vault is open.", vault)
    [('the vault', True)]
    """
    statements: dict[str, tuple[str, bool]] = {}
    for entity, (true, false) in descriptions.items():
        statements[f"{entity} {true}"] = (entity, True)
        statements[f"{entity} {false}"] = (entity, False)
    readings: list[list[tuple[str, bool]]] = []
    if text.startswith(_EITHER) and text.endswith(_BOTH):
        body = text[len(_EITHER) : -len(_BOTH)]
        start = body.find(_OR)
        while start >= 0:
            left, right = body[:start], body[start + len(_OR) :]
            if left in statements and right in statements:
                readings.append([statements[left], statements[right]])
            start = body.find(_OR, start + 1)
    elif text.startswith(_CERTAIN) and text.endswith(_PERIOD):
        body = text[len(_CERTAIN) : -len(_PERIOD)]
        if body in statements:
            readings.append([statements[body]])
    if len(readings) != 1:
        why = "reads in several ways" if readings else "is not a fallback sentence of the entities"
        raise CertificateError(f"the clue {text!r} {why}")
    return readings[0]


# -- reading the validator's replies --------------------------------------------------------

_ARRAY = re.compile(r"\[[^\[\]]*\]")
_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")
_STATE = re.compile(r"\b([AB])\b")
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
    match = _ARRAY.search(reply)
    if match is None:
        return None
    chunk = match.group(0)
    try:
        items = json.loads(chunk)
    except json.JSONDecodeError:
        items = [a if a else b for a, b in _QUOTED.findall(chunk)]
    if not isinstance(items, list) or len(items) != 2:
        return None
    found = []
    for item in items:
        if not isinstance(item, str) or _normal(item) not in index:
            return None
        found.append(index[_normal(item)])
    return found[0], found[1]


def read_state(reply: str) -> str | None:
    """The letter of a Step 3b reply: ``"A"``, ``"B"``, or ``None`` when unclear.

    The reply must name exactly one of the capital letters A and B as a word.

    >>> read_state('"A"'), read_state("Answer: B) is innocent"), read_state("I cannot tell")
    ('A', 'B', None)
    """
    letters = set(_STATE.findall(reply))
    return letters.pop() if len(letters) == 1 else None


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
    if text is None:
        return Assessment(None, None, None, "error")
    if not text.strip():
        return Assessment(None, None, None, "empty-clue")
    if entities_reply is None:
        return Assessment(None, None, None, "error")
    entities = read_entities(entities_reply, available)
    if entities is None:
        return Assessment(None, None, None, "malformed-entities")
    if not needs_states(entities, source):
        return Assessment(entities, None, None, "wrong-entities")
    if len(state_replies) != 2 or any(reply is None for reply in state_replies):
        return Assessment(entities, None, None, "error")
    states = tuple(read_state(reply or "") for reply in state_replies)
    if any(state is None for state in states):
        return Assessment(entities, None, None, "malformed-state")
    known = tuple(str(s) for s in states)
    recovered = tuple((e, s == "A") for e, s in zip(entities, known, strict=True))
    outcome = "valid" if sorted(recovered) == sorted(source) else "wrong-polarity"
    return Assessment(entities, known, recovered, outcome)


def needs_states(entities: Sequence[str], source: Sequence[tuple[str, bool]]) -> bool:
    """Whether Step 3a named exactly the clause's two (distinct) entities.

    >>> source = [("a", True), ("b", False)]
    >>> needs_states(("b", "a"), source), needs_states(("a", "a"), source)
    (True, False)
    """
    wanted = {entity for entity, _ in source}
    return len(set(entities)) == 2 and set(entities) == wanted


@dataclass(frozen=True)
class Attempt:
    """One generated clue and its validation.

    ``text`` is ``None`` when the generation failed (then ``error`` says why);
    ``entities_reply`` and ``state_replies`` are the validator's verbatim replies
    (``None`` for a call that failed or was not made). ``entities``, ``states``,
    ``recovered`` and ``outcome`` are what :func:`assess` makes of them.
    """

    attempt: int
    text: str | None
    outcome: str
    finish_reason: str | None = None
    entities_reply: str | None = None
    state_replies: tuple[str | None, ...] = ()
    entities: tuple[str, ...] | None = None
    states: tuple[str, ...] | None = None
    recovered: tuple[tuple[str, bool], ...] | None = None
    error: str | None = None

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this attempt (``recovered`` as ``[entity, value]`` pairs)."""
        return {
            "attempt": self.attempt,
            "outcome": self.outcome,
            "text": self.text,
            "finish_reason": self.finish_reason,
            "entities_reply": self.entities_reply,
            "state_replies": list(self.state_replies),
            "entities": list(self.entities) if self.entities is not None else None,
            "states": list(self.states) if self.states is not None else None,
            "recovered": [list(p) for p in self.recovered] if self.recovered is not None else None,
            "error": self.error,
        }

    @classmethod
    def from_record(cls, obj: Any) -> Attempt:
        """Read :meth:`to_record` output (:class:`RecordError` when malformed)."""
        data = _mapping(obj, "attempt")
        recovered = data.get("recovered")
        return cls(
            attempt=_int(data, "attempt"),
            text=_opt_str(data, "text"),
            outcome=_choice(data, "outcome", ATTEMPT_OUTCOMES),
            finish_reason=_opt_str(data, "finish_reason"),
            entities_reply=_opt_str(data, "entities_reply"),
            state_replies=tuple(_opt_str_list(data, "state_replies")),
            entities=_str_tuple(data, "entities") if data.get("entities") is not None else None,
            states=_str_tuple(data, "states") if data.get("states") is not None else None,
            recovered=_pairs(recovered, "recovered") if recovered is not None else None,
            error=_opt_str(data, "error"),
        )


@dataclass(frozen=True)
class ClueRecord:
    """What became of one clause.

    Attributes
    ----------
    index:
        1-based clause number.
    clause:
        The source clause as literal names (``"x3"``, ``"~x7"``).
    mode:
        ``"llm"`` (a clause of two distinct variables, through the validation loop)
        or ``"direct"`` (a unit clause or a clause over one variable twice, which the
        paper's prompts do not cover: the programmatic sentence, no model call).
    attempts:
        The attempts, in order (at most :data:`MAX_ATTEMPTS`).
    accepted:
        The number of the attempt that validated, or ``None``.
    fallback:
        Whether the fallback sentence replaced the clue after every attempt failed.
    text:
        The clue as it stands in the story.
    recovered:
        The clause read back (from the accepted attempt or the sentence), in source
        literal order.
    """

    index: int
    clause: tuple[str, ...]
    mode: str
    attempts: tuple[Attempt, ...]
    accepted: int | None
    fallback: bool
    text: str
    recovered: tuple[str, ...]

    @property
    def outcome(self) -> str:
        """``"validated"``, ``"fallback"`` or ``"direct"``."""
        if self.accepted is not None:
            return "validated"
        return "fallback" if self.fallback else "direct"

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this clause."""
        return {
            "index": self.index,
            "clause": list(self.clause),
            "mode": self.mode,
            "outcome": self.outcome,
            "accepted": self.accepted,
            "fallback": self.fallback,
            "text": self.text,
            "recovered": list(self.recovered),
            "attempts": [a.to_record() for a in self.attempts],
        }

    @classmethod
    def from_record(cls, obj: Any) -> ClueRecord:
        """Read :meth:`to_record` output (:class:`RecordError` when malformed)."""
        data = _mapping(obj, "clue")
        attempts = data.get("attempts")
        if not isinstance(attempts, list):
            raise RecordError("field 'attempts' of a clue must be a list")
        accepted = data.get("accepted")
        if accepted is not None and (not isinstance(accepted, int) or isinstance(accepted, bool)):
            raise RecordError("field 'accepted' must be an integer or null")
        fallback = data.get("fallback")
        if not isinstance(fallback, bool):
            raise RecordError("field 'fallback' must be a boolean")
        return cls(
            index=_int(data, "index"),
            clause=_str_tuple(data, "clause"),
            mode=_choice(data, "mode", _CLAUSE_MODES),
            attempts=tuple(Attempt.from_record(a) for a in attempts),
            accepted=accepted,
            fallback=fallback,
            text=_str(data, "text"),
            recovered=_str_tuple(data, "recovered"),
        )


def story_id(
    instance_id: str, theme: str, model: str, seed: int, content: str | None = None
) -> str:
    """The stable id of a story: SHA-256 (hex) over ``(instance_id, theme, model, seed)``
    and, for a finished record, the :func:`attested_digest` of what the model wrote.

    >>> a = story_id("i1", "spy", "ref/x", 0)
    >>> a == story_id("i1", "spy", "ref/x", 0) != story_id("i1", "heist", "ref/x", 0), len(a)
    (True, 64)
    >>> story_id("i1", "spy", "ref/x", 0, "d1") != story_id("i1", "spy", "ref/x", 0, "d2")
    True
    """
    parts: list[object] = [instance_id, KIND, theme, model, int(seed)]
    if content is not None:
        parts.append(content)
    key = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def attested_digest(record: StoryRecord) -> str:
    """SHA-256 (hex) of everything a model wrote into a story record.

    The introduction, each attempt's clue, finish reason, validator replies and error,
    and the run's provenance (its tool version left out): the parts nothing can
    re-derive. A story's id binds them, so a later change to any is caught.
    """
    provenance = {k: v for k, v in record.provenance.items() if k != "tool_version"}
    attempts = [
        [
            [a.text, a.finish_reason, a.entities_reply, list(a.state_replies), a.error]
            for a in clue.attempts
        ]
        for clue in record.clues
    ]
    key = json.dumps(
        {"intro": record.intro, "attempts": attempts, "provenance": provenance},
        sort_keys=True,
        ensure_ascii=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def bind_id(record: StoryRecord) -> StoryRecord:
    """``record`` with the id that binds its attested text (:func:`attested_digest`)."""
    digest = attested_digest(record)
    return replace(
        record, id=story_id(record.instance_id, record.theme, record.model, record.seed, digest)
    )


def seal_story(record: StoryRecord, formula: Formula) -> StoryRecord:
    """A finished story record: its id binds the attested text, its proof is made."""
    sealed = bind_id(record)
    return replace(sealed, roundtrip=prove_story(sealed, formula))


def rebuild_story(record: StoryRecord, formula: Formula) -> StoryRecord:
    """The story record re-derived from ``formula`` and the attested parts of ``record``.

    The entity map comes from the theme and seed; each attempt's reading and outcome
    from its stored replies (attempts stop at the first valid one; every clause that
    goes through the loop has a valid attempt or :data:`MAX_ATTEMPTS` of them); the
    clue text is the accepted clue or the fallback sentence; the recovered formula,
    story, prompt, id and proof follow.

    Raises
    ------
    CertificateError, ProofError
        When the attested parts cannot make a story of ``formula``.
    """
    theme = THEMES.get(record.theme)
    names = theme.entities_for(formula.num_vars, seed=record.seed)
    descriptions = {e: theme.describe(e) for e in names}
    clues: list[ClueRecord] = []
    for index, clause in enumerate(formula.clauses, 1):
        source = [(names[abs(lit) - 1], lit > 0) for lit in clause]
        statements = [(e, descriptions[e][0 if v else 1]) for e, v in source]
        sentence = fallback_sentence(statements)
        literal_names = tuple(formula.literal_name(lit) for lit in clause)
        if len(clause) != 2 or abs(clause[0]) == abs(clause[1]):
            clues.append(
                ClueRecord(index, literal_names, "direct", (), None, False, sentence, literal_names)
            )
            continue
        stored = record.clues[index - 1].attempts if index <= len(record.clues) else ()
        attempts: list[Attempt] = []
        for number, attempt in enumerate(stored[:MAX_ATTEMPTS], 1):
            again = assess(
                attempt.text, attempt.entities_reply, attempt.state_replies, source, list(names)
            )
            attempts.append(
                replace(
                    attempt,
                    attempt=number,
                    outcome=again.outcome,
                    entities=again.entities,
                    states=again.states,
                    recovered=again.recovered,
                )
            )
            if again.outcome == "valid":
                break
        if not attempts or (attempts[-1].outcome != "valid" and len(attempts) < MAX_ATTEMPTS):
            raise CertificateError(
                f"clue {index}: {len(attempts)} attempts, none valid, and no fallback is due"
            )
        last = attempts[-1]
        accepted = last.attempt if last.outcome == "valid" else None
        if accepted is not None:
            pairs = _in_source_order(list(last.recovered or ()), source)
        else:
            pairs = parse_fallback(sentence, descriptions)
        variable = {entity: v for v, entity in enumerate(names, 1)}
        recovered = tuple(
            formula.literal_name(variable[e] if value else -variable[e]) for e, value in pairs
        )
        text = str(last.text) if accepted is not None else sentence
        clues.append(
            ClueRecord(
                index,
                literal_names,
                "llm",
                tuple(attempts),
                accepted,
                accepted is None,
                text,
                recovered,
            )
        )
    body = assemble_story(record.intro, [c.text for c in clues])
    again_record = StoryRecord(
        id=record.id,
        instance_id=record.instance_id,
        theme=theme.name,
        model=record.model,
        seed=record.seed,
        entities=dict(zip(names, formula.names, strict=True)),
        intro=record.intro,
        clues=tuple(clues),
        story=body,
        text=story_prompt(body, [(e, *descriptions[e]) for e in names]),
        recovered=tuple(c.recovered for c in clues),
        provenance=dict(record.provenance),
    )
    return seal_story(again_record, formula)


def assemble_story(intro: str, clues: Iterable[str]) -> str:
    """The story text: the introduction, then one paragraph per clue, blank lines between.

    >>> assemble_story("Night fell.", ["Clue one.", "Clue two."])
    'Night fell.\\n\\nClue one.\\n\\nClue two.'
    """
    return "\n\n".join([intro.strip(), *(clue.strip() for clue in clues)])


@dataclass(frozen=True)
class StoryRecord:
    """One formula as a story, with its validation history and round-trip proof.

    Attributes
    ----------
    id:
        :func:`story_id` of ``(instance_id, theme, model, seed)``.
    instance_id:
        The instance the story verbalizes.
    theme:
        The story theme.
    model:
        The spec of the model that wrote and validated the clues.
    seed:
        Seed of the entity mapping and of the sampling.
    entities:
        Entity → variable name, in variable order (every variable of the formula).
    intro:
        The introduction (Step 1).
    clues:
        One :class:`ClueRecord` per clause, in clause order.
    story:
        :func:`assemble_story` of the introduction and the clues.
    text:
        The full evaluation prompt (App. G.2, story variant).
    recovered:
        The recovered formula, one clause of literal names per source clause.
    roundtrip:
        The proof of :func:`prove_story` (``None`` before it was made).
    provenance:
        Tool version, model endpoint, sampling parameters, settings.
    """

    id: str
    instance_id: str
    theme: str
    model: str
    seed: int
    entities: dict[str, str]
    intro: str
    clues: tuple[ClueRecord, ...]
    story: str
    text: str
    recovered: tuple[tuple[str, ...], ...]
    roundtrip: dict[str, Any] | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

    def descriptions(self) -> dict[str, tuple[str, str]]:
        """Entity → ``(true, false)`` descriptions, from the theme."""
        theme = THEMES.get(self.theme)
        return {entity: theme.describe(entity) for entity in self.entities}

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this record (field order fixed)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": KIND,
            "id": self.id,
            "instance_id": self.instance_id,
            "theme": self.theme,
            "model": self.model,
            "seed": self.seed,
            "entities": dict(self.entities),
            "descriptions": {e: list(d) for e, d in self.descriptions().items()},
            "intro": self.intro,
            "clues": [c.to_record() for c in self.clues],
            "story": self.story,
            "text": self.text,
            "recovered": [list(c) for c in self.recovered],
            "roundtrip": dict(self.roundtrip) if self.roundtrip is not None else None,
            "provenance": dict(self.provenance),
        }

    def to_json(self) -> str:
        """:meth:`to_record` as one line of JSON."""
        return json_line(self.to_record())

    @classmethod
    def from_record(
        cls, record: object, *, line: int | None = None, source: str | None = None
    ) -> StoryRecord:
        """Read a record written by :meth:`to_record`; :class:`RecordError` if malformed.

        >>> from twosat_formal.verbalize.story.themes import THEMES
        >>> rec = bind_id(StoryRecord("", "i", "spy", "m", 0,
        ...                   {"the pilot": "x1"}, "Intro.", (), "Intro.", "T", ()))
        >>> StoryRecord.from_record(rec.to_record()) == rec
        True
        """
        try:
            return cls._read(record)
        except RecordError as exc:
            raise RecordError(str(exc), line=line, source=source) from None

    @classmethod
    def _read(cls, record: object) -> StoryRecord:
        data = _mapping(record, "story record")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise RecordError(f"unsupported schema_version {version!r} (expected {SCHEMA_VERSION})")
        if data.get("kind") != KIND:
            raise RecordError(f"field 'kind' must be {KIND!r}")
        seed = _int(data, "seed")
        entities = data.get("entities")
        if not isinstance(entities, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in entities.items()
        ):
            raise RecordError("field 'entities' must map entity strings to variable names")
        clues = data.get("clues")
        if not isinstance(clues, list):
            raise RecordError("field 'clues' must be a list")
        recovered = data.get("recovered")
        if not isinstance(recovered, list):
            raise RecordError("field 'recovered' must be a list of clauses")
        roundtrip = data.get("roundtrip")
        if roundtrip is not None and not isinstance(roundtrip, Mapping):
            raise RecordError("field 'roundtrip' must be an object or null")
        provenance = data.get("provenance", {})
        if not isinstance(provenance, Mapping):
            raise RecordError("field 'provenance' must be an object")
        theme = _str(data, "theme")
        if theme not in THEMES:
            raise RecordError(f"unknown story theme {theme!r}")
        out = cls(
            id=_str(data, "id"),
            instance_id=_str(data, "instance_id"),
            theme=theme,
            model=_str(data, "model"),
            seed=seed,
            entities=dict(entities),
            intro=_str(data, "intro"),
            clues=tuple(ClueRecord.from_record(c) for c in clues),
            story=_str(data, "story"),
            text=_str(data, "text"),
            recovered=tuple(_clause(c) for c in recovered),
            roundtrip=dict(roundtrip) if roundtrip is not None else None,
            provenance=dict(provenance),
        )
        expected = story_id(out.instance_id, out.theme, out.model, out.seed, attested_digest(out))
        if out.id != expected:
            raise RecordError(f"id {out.id!r} is not the hash of the record; expected {expected!r}")
        return out


def is_story_record(record: object) -> bool:
    """Whether a decoded JSON object is a story record (``"kind": "story"``).

    >>> is_story_record({"kind": "story"}), is_story_record({"instance_id": "i", "text": "t"})
    (True, False)
    """
    return isinstance(record, Mapping) and record.get("kind") == KIND


# -- the proof ------------------------------------------------------------------------------


def _literals(clause: Sequence[int], entity_of: Sequence[str]) -> list[tuple[str, bool]]:
    return [(entity_of[abs(lit) - 1], lit > 0) for lit in clause]


def _is_llm_clause(clause: Sequence[int]) -> bool:
    return len(clause) == 2 and abs(clause[0]) != abs(clause[1])


def _in_source_order(
    pairs: Sequence[tuple[str, bool]], source: Sequence[tuple[str, bool]]
) -> list[tuple[str, bool]]:
    """The recovered literals in the order of the source clause (they match as sets)."""
    return sorted(pairs, key=lambda p: source.index(p) if p in source else len(source))


def _check_clue(
    clue: ClueRecord,
    clause: Sequence[int],
    formula: Formula,
    entity_of: Sequence[str],
    descriptions: Mapping[str, tuple[str, str]],
) -> list[int]:
    """Check one clue against its source clause; its recovered clause as DIMACS ints."""
    where = f"clue {clue.index}"
    source = _literals(clause, entity_of)
    names = tuple(formula.literal_name(lit) for lit in clause)
    if clue.clause != names:
        raise CertificateError(f"{where} names clause {list(clue.clause)}, the source is {names}")
    expected_mode = "llm" if _is_llm_clause(clause) else "direct"
    if clue.mode != expected_mode:
        raise CertificateError(f"{where} has mode {clue.mode!r}, expected {expected_mode!r}")
    sentence = fallback_sentence([(e, descriptions[e][0 if v else 1]) for e, v in source])
    recovered: list[tuple[str, bool]]
    if clue.mode == "direct":
        if clue.attempts or clue.accepted is not None or clue.fallback:
            raise CertificateError(f"{where} is direct but records attempts or a fallback")
        if clue.text != sentence:
            raise CertificateError(f"{where} is direct but is not the programmatic sentence")
        recovered = parse_fallback(clue.text, descriptions)
    else:
        if not 1 <= len(clue.attempts) <= MAX_ATTEMPTS:
            raise CertificateError(f"{where} has {len(clue.attempts)} attempts")
        available = list(entity_of)
        for number, attempt in enumerate(clue.attempts, 1):
            again = assess(
                attempt.text, attempt.entities_reply, attempt.state_replies, source, available
            )
            stored = Assessment(
                attempt.entities, attempt.states, attempt.recovered, attempt.outcome
            )
            if attempt.attempt != number or stored != again:
                raise CertificateError(
                    f"{where}, attempt {number}: the stored replies give outcome "
                    f"{again.outcome!r}, the record says {attempt.outcome!r}"
                )
            if attempt.outcome == "error" and not attempt.error:
                raise CertificateError(f"{where}, attempt {number}: an error without a message")
            if attempt.outcome == "valid" and number != len(clue.attempts):
                raise CertificateError(f"{where}: attempts continue after a valid one")
        last = clue.attempts[-1]
        if last.outcome == "valid":
            if clue.accepted != len(clue.attempts) or clue.fallback or clue.text != last.text:
                raise CertificateError(
                    f"{where}: the valid attempt {len(clue.attempts)} is not used"
                )
            recovered = _in_source_order(list(last.recovered or ()), source)
        else:
            if len(clue.attempts) != MAX_ATTEMPTS or clue.accepted is not None:
                raise CertificateError(
                    f"{where}: no attempt validated, yet {len(clue.attempts)} of "
                    f"{MAX_ATTEMPTS} were made or one is marked accepted"
                )
            if not clue.fallback or clue.text != sentence:
                raise CertificateError(
                    f"{where}: every attempt failed but the fallback is not used"
                )
            recovered = parse_fallback(clue.text, descriptions)
    variable = {entity: v for v, entity in enumerate(entity_of, 1)}
    ints = [variable[e] if value else -variable[e] for e, value in recovered]
    if tuple(formula.literal_name(lit) for lit in ints) != clue.recovered:
        raise CertificateError(f"{where}: the stored recovered clause is not what the text gives")
    return ints


def prove_story(record: StoryRecord, formula: Formula) -> dict[str, Any]:
    """Prove that a story record recovers exactly ``formula``.

    Checks the entity map (every variable, distinct entities of the theme), every clue
    (:func:`assess` re-run on the stored replies, at most :data:`MAX_ATTEMPTS`
    attempts, the fallback exactly when all failed), that each recovered clause comes
    from its accepted attempt or reads back from its sentence, the story and prompt
    texts, and that the recovered formula equals the source clause for clause and is
    Z3-equivalent to it.

    Returns
    -------
    dict
        ``{"method", "result": "validated", "clauses", "validated", "fallback", "direct",
        "z3"}``.

    Raises
    ------
    CertificateError, ProofError
        On the first check that fails.

    Examples
    --------
    >>> from twosat_formal.verbalize.story.themes import THEMES
    >>> f = Formula.from_named([["a"]])
    >>> theme = THEMES.get("heist")
    >>> text = fallback_sentence([("the vault", "is open")])
    >>> clue = ClueRecord(1, ("a",), "direct", (), None, False, text, ("a",))
    >>> story = assemble_story("Intro.", [text])
    >>> prompt = story_prompt(story, [("the vault", "is open", "is sealed")])
    >>> rec = bind_id(StoryRecord("", "i", "heist", "m", 0,
    ...                   {"the vault": "a"}, "Intro.", (clue,), story, prompt, (("a",),)))
    >>> prove_story(rec, f)["result"]
    'validated'
    """
    theme = THEMES.get(record.theme)
    entity_of = list(record.entities)
    if list(record.entities.values()) != list(formula.names):
        raise CertificateError("the entity map does not name the formula's variables in order")
    try:
        theme.validate(entity_of, formula.num_vars)
    except ConfigError as exc:
        raise CertificateError(f"the entity map is not the {theme.name} theme's: {exc}") from None
    digest = attested_digest(record)
    if record.id != story_id(record.instance_id, record.theme, record.model, record.seed, digest):
        raise CertificateError(
            "the record's id is not the hash of its instance, theme, model, seed and the "
            "text the model wrote"
        )
    descriptions = record.descriptions()
    if len(record.clues) != formula.num_clauses:
        raise CertificateError(
            f"the story has {len(record.clues)} clues for {formula.num_clauses} clauses"
        )
    recovered: list[list[int]] = []
    for i, (clue, clause) in enumerate(zip(record.clues, formula.clauses, strict=True)):
        if clue.index != i + 1:
            raise CertificateError(f"clue {i + 1} is numbered {clue.index}")
        recovered.append(_check_clue(clue, clause, formula, entity_of, descriptions))
    if record.recovered != tuple(c.recovered for c in record.clues):
        raise CertificateError("the recovered formula is not the clues' recovered clauses")
    source = [list(clause) for clause in formula.clauses]
    for i, (got, want) in enumerate(zip(recovered, source, strict=True)):
        if got != want:
            raise CertificateError(f"clue {i + 1} recovers {got} instead of {want}")
    z3_equivalent(source, recovered, formula.num_vars, names=formula.names)
    if record.story != assemble_story(record.intro, [c.text for c in record.clues]):
        raise CertificateError("the story text is not the introduction followed by the clues")
    triples = [(e, *descriptions[e]) for e in entity_of]
    if record.text != story_prompt(record.story, triples):
        raise CertificateError("the prompt text is not the App. G.2 story prompt of the story")
    outcomes = [c.outcome for c in record.clues]
    return {
        "method": METHOD,
        "result": "validated",
        "clauses": len(source),
        "validated": outcomes.count("validated"),
        "fallback": outcomes.count("fallback"),
        "direct": outcomes.count("direct"),
        "z3": z3.get_version_string(),
    }


def check_story_record(record: StoryRecord | Mapping[str, Any], formula: Formula) -> dict[str, Any]:
    """Re-check a stored story record against its instance's formula (``certify``).

    The stored proof must claim success, and :func:`prove_story` must prove it again.

    Raises
    ------
    RecordError
        The record is malformed.
    CertificateError, ProofError
        The record does not recover ``formula``.

    Examples
    --------
    >>> check_story_record({"kind": "story"}, Formula([[1]]))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: unsupported schema_version None (expected 1)
    """
    story = record if isinstance(record, StoryRecord) else StoryRecord.from_record(record)
    stored = story.roundtrip
    if stored is None or stored.get("result") != "validated":
        shown = None if stored is None else stored.get("result")
        raise CertificateError(f"story {story.id}: the stored round-trip proof says {shown!r}")
    return prove_story(story, formula)


# -- statistics -----------------------------------------------------------------------------


@dataclass(frozen=True)
class StoryStatistics:
    """Validation statistics of a set of stories, beside the paper's.

    Rates are over the clauses that went through the validation loop (``llm_clauses``);
    ``direct`` clauses (unit clauses, one variable twice) never call a model.
    """

    stories: int
    clauses: int
    llm_clauses: int
    first_attempt: int
    validated: int
    fallbacks: int
    direct: int
    attempts: int
    outcomes: dict[str, int]

    @property
    def first_attempt_rate(self) -> float | None:
        """Share of the validated-loop clauses accepted on their first attempt."""
        return self.first_attempt / self.llm_clauses if self.llm_clauses else None

    @property
    def fallback_rate(self) -> float | None:
        """Share of the validated-loop clauses that use the fallback sentence."""
        return self.fallbacks / self.llm_clauses if self.llm_clauses else None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view, with the paper's rates."""
        return {
            "stories": self.stories,
            "clauses": self.clauses,
            "llm_clauses": self.llm_clauses,
            "first_attempt": self.first_attempt,
            "validated": self.validated,
            "fallbacks": self.fallbacks,
            "direct": self.direct,
            "attempts": self.attempts,
            "outcomes": dict(self.outcomes),
            "first_attempt_rate": self.first_attempt_rate,
            "fallback_rate": self.fallback_rate,
            "paper_first_attempt_rate": PAPER_FIRST_ATTEMPT_RATE,
            "paper_fallback_rate": PAPER_FALLBACK_RATE,
        }

    def to_markdown(self) -> str:
        """A small Markdown table: ours beside the paper's.

        >>> print(story_statistics([]).to_markdown())
        | statistic | ours | paper |
        |---|---|---|
        | first-attempt validation rate | – (0 clauses) | 95.4% |
        | fallback rate | – (0 clauses) | 3.3% |
        """

        def pct(x: float | None) -> str:
            return f"– ({self.llm_clauses} clauses)" if x is None else f"{x:.1%}"

        return "\n".join(
            [
                "| statistic | ours | paper |",
                "|---|---|---|",
                f"| first-attempt validation rate | {pct(self.first_attempt_rate)} | "
                f"{PAPER_FIRST_ATTEMPT_RATE:.1%} |",
                f"| fallback rate | {pct(self.fallback_rate)} | {PAPER_FALLBACK_RATE:.1%} |",
            ]
        )


def story_statistics(records: Iterable[StoryRecord]) -> StoryStatistics:
    """First-attempt validation rate and fallback rate of some story records.

    >>> stats = story_statistics([])
    >>> stats.first_attempt_rate is None, stats.to_json()["paper_fallback_rate"]
    (True, 0.033)
    """
    stories = clauses = llm = first = validated = fallbacks = direct = attempts = 0
    outcomes = dict.fromkeys(ATTEMPT_OUTCOMES, 0)
    for record in records:
        stories += 1
        for clue in record.clues:
            clauses += 1
            attempts += len(clue.attempts)
            for attempt in clue.attempts:
                outcomes[attempt.outcome] += 1
            if clue.mode == "direct":
                direct += 1
                continue
            llm += 1
            first += clue.accepted == 1
            validated += clue.accepted is not None
            fallbacks += clue.fallback
    return StoryStatistics(
        stories, clauses, llm, first, validated, fallbacks, direct, attempts, outcomes
    )


# -- JSON Lines -----------------------------------------------------------------------------


def read_stories(path: str | Path) -> Iterator[StoryRecord]:
    """The story records of a JSON Lines file (``"-"``: stdin), lazily; blank lines skipped.

    Raises :class:`RecordError` with the line number on the first bad line.
    """
    for line in read_json_lines(path):
        yield StoryRecord.from_record(line.value, line=line.number, source=line.source)


def write_stories(records: Iterable[StoryRecord], path_or_stream: str | Path | IO[str]) -> int:
    """Write story records as JSON Lines (``"-"``: stdout); returns how many.

    >>> import io
    >>> buf = io.StringIO()
    >>> rec = bind_id(StoryRecord("", "i", "spy", "m", 0, {}, "I.", (), "I.", "T", ()))
    >>> write_stories([rec], buf)
    1
    >>> from twosat_formal.jsonl import read_stream
    >>> lines = read_stream(io.StringIO(buf.getvalue()), "<mem>")
    >>> [StoryRecord.from_record(line.value) == rec for line in lines]
    [True]
    """
    return write_lines((record.to_json() for record in records), path_or_stream)


# -- field readers --------------------------------------------------------------------------


def _mapping(obj: object, what: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise RecordError(f"a {what} must be a JSON object")
    return obj


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise RecordError(f"field {key!r} must be a string")
    return value


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise RecordError(f"field {key!r} must be a string or null")
    return value


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"field {key!r} must be an integer")
    return value


def _choice(data: Mapping[str, Any], key: str, choices: Sequence[str]) -> str:
    value = _str(data, key)
    if value not in choices:
        raise RecordError(f"field {key!r} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _str_tuple(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"field {key!r} must be a list of strings")
    return tuple(value)


def _opt_str_list(data: Mapping[str, Any], key: str) -> list[str | None]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(v is None or isinstance(v, str) for v in value):
        raise RecordError(f"field {key!r} must be a list of strings or nulls")
    return value


def _clause(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError("field 'recovered' must be a list of clauses of literal names")
    return tuple(value)


def _pairs(value: object, key: str) -> tuple[tuple[str, bool], ...]:
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], bool)
        for p in value
    ):
        raise RecordError(f"field {key!r} must be a list of [entity, value] pairs")
    return tuple((p[0], p[1]) for p in value)
