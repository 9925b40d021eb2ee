"""The story record: one formula as a story, its attempts, its id and its JSON form.

A story record (one JSON Lines object, ``"kind": "story"``) keeps everything the story
verbalizer did for one formula: the entity map, the introduction, for every clause the
attempts (:class:`Attempt`) with the clue text and the verbatim replies of the two
validation calls (App. G.3, Steps 3a and 3b), whether the programmatic fallback
sentence was used (:class:`ClueRecord`), the final story, the full evaluation prompt
(App. G.2, story variant) and the **recovered formula**: each clause as the validator
read it back from an accepted clue, or as
:func:`~twosat_formal.verbalize.story.sentences.parse_fallback` reads it back from a
fallback sentence.

The record types are the typed models of :mod:`twosat_formal.core.records`, whose JSON
Schema is published as ``docs/schema/story.json``: a :class:`StoryRecord` is a
``StoryRecordModel`` with how it is made, written and read added, a
:class:`ClueRecord` is the model ``Clue`` and an :class:`Attempt` the model
``Attempt``, so the fields are declared once; sequences are tuples. All are frozen.
:meth:`StoryRecord.from_record` validates a record once, strictly, with
:func:`~twosat_formal.core.records.read_record` (as every record of the package is
read), and then checks what types do not say: a registered theme, a known outcome and
mode, each clue's outcome, the theme's descriptions and the id's hash. A problem is one
:class:`~twosat_formal.errors.RecordError` naming the field by its path
(``clues[0].fallback``).

What a model wrote is attested, not re-derived: :func:`attested_digest` hashes it and
the record's id (:func:`story_id`) binds that digest (:func:`bind_id`). The proof of a
record is :mod:`twosat_formal.verbalize.story.proof`; the validation statistics of
many are :mod:`twosat_formal.verbalize.story.statistics`; reading and writing JSON
Lines is :mod:`twosat_formal.verbalize.story.files`.

Examples
--------
>>> rec = bind_id(StoryRecord.create(instance_id="i", theme="spy", model="m", seed=0,
...     entities={}, intro="I.", clues=(), story="I.", text="T", recovered=()))
>>> StoryRecord.from_record(rec.to_record()) == rec, is_story_record(rec.to_record())
(True, True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from twosat_formal.core import records
from twosat_formal.core.records import clue_outcome, read_record
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.io.jsonl import json_line
from twosat_formal.verbalize.story.replies import ATTEMPT_OUTCOMES
from twosat_formal.verbalize.story.themes import THEMES

__all__ = [
    "KIND",
    "MAX_ATTEMPTS",
    "SCHEMA_VERSION",
    "Attempt",
    "ClueRecord",
    "StoryRecord",
    "attested_digest",
    "bind_id",
    "clause_mode",
    "clue_record",
    "is_story_record",
    "story_id",
]

#: Version of the story record layout; :meth:`StoryRecord.from_record` refuses others.
SCHEMA_VERSION = 1
#: The ``kind`` field of every story record.
KIND: Literal["story"] = "story"
#: Clue generations per clause before the fallback sentence is used (paper §4).
MAX_ATTEMPTS = 3

_CLAUSE_MODES = ("llm", "direct")


#: One generated clue and its validation: the typed model
#: :class:`twosat_formal.core.records.Attempt`.
Attempt = records.Attempt
#: What became of one clause: the typed model :class:`twosat_formal.core.records.Clue`
#: (:func:`clue_record` makes one).
ClueRecord = records.Clue


def clause_mode(clause: Sequence[int]) -> str:
    """How a clause is told: ``"llm"`` (two distinct variables, through the validation
    loop) or ``"direct"`` (one entity: its programmatic sentence, no model call).

    >>> clause_mode([1, -2]), clause_mode([3]), clause_mode([2, 2])
    ('llm', 'direct', 'direct')
    """
    return "llm" if len(clause) == 2 and abs(clause[0]) != abs(clause[1]) else "direct"


def clue_record(
    index: int,
    clause: tuple[str, ...],
    sentence: str,
    attempts: Sequence[Attempt] = (),
    recovered: tuple[str, ...] | None = None,
) -> ClueRecord:
    """The clue of clause ``index``, with its outcome
    (:func:`~twosat_formal.core.records.clue_outcome`).

    Without ``attempts`` the clause has one entity (mode ``"direct"``): no model is
    asked and the clue is the programmatic ``sentence``. With them (mode ``"llm"``) the
    clue is the last attempt's text when that attempt is valid, else the fallback
    ``sentence``. ``recovered`` is the clause read back (default: ``clause``).

    >>> clue_record(3, ("~x2",), "The vault is sealed.").outcome
    'direct'
    """
    last = attempts[-1] if attempts else None
    accepted = last.attempt if last is not None and last.outcome == "valid" else None
    fallback = last is not None and accepted is None
    return ClueRecord(
        index=index,
        clause=clause,
        mode="llm" if attempts else "direct",
        outcome=clue_outcome(accepted, fallback),
        accepted=accepted,
        fallback=fallback,
        text=str(last.text) if last is not None and accepted is not None else sentence,
        recovered=clause if recovered is None else recovered,
        attempts=tuple(attempts),
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
    sid = story_id(record.instance_id, record.theme, record.model, record.seed, digest)
    return record.model_copy(update={"id": sid})


class StoryRecord(records.StoryRecordModel):
    """One formula as a story, with its validation history and round-trip proof.

    The record's fields are those of its typed model
    (:class:`~twosat_formal.core.records.StoryRecordModel`, published as
    ``docs/schema/story.json``), declared once there, its clues and their attempts
    those of :class:`~twosat_formal.core.records.Clue` and
    :class:`~twosat_formal.core.records.Attempt`; this class adds how a record is made
    (:meth:`create`, which fills in the theme's descriptions), written
    (:meth:`to_record`) and read with the checks a schema cannot state
    (:meth:`from_record`). Fields a reader does not know are dropped, so a record is
    written back as this version writes it.

    Attributes
    ----------
    schema_version, kind:
        :data:`SCHEMA_VERSION` and :data:`KIND`.
    id:
        :func:`story_id` of ``(instance_id, theme, model, seed)`` and the attested text.
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
    descriptions:
        Entity → ``(true, false)`` descriptions, the theme's.
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

    @classmethod
    def create(cls, *, theme: str, entities: Mapping[str, str], **fields: Any) -> StoryRecord:
        """A record with the theme's descriptions of its entities.

        ``fields`` are the model's other fields (``instance_id``, ``model``, ``seed``,
        ``intro``, ``clues``, ``story``, ``text``, ``recovered``), validated as it types
        them; ``id`` is ``""`` (see :func:`bind_id`), ``roundtrip`` ``None`` and
        ``provenance`` empty unless given.

        >>> rec = StoryRecord.create(instance_id="i", theme="spy", model="m", seed=0,
        ...     entities={"the courier": "x1"}, intro="I.", clues=(), story="I.", text="T",
        ...     recovered=())
        >>> rec.descriptions["the courier"] == THEMES.get("spy").describe("the courier")
        True
        """
        described = THEMES.get(theme)
        defaults: dict[str, Any] = {"id": "", "roundtrip": None, "provenance": {}}
        fields = defaults | fields
        fields["descriptions"] = {entity: described.describe(entity) for entity in entities}
        return cls(
            schema_version=SCHEMA_VERSION, kind=KIND, theme=theme, entities=dict(entities), **fields
        )

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this record (field order fixed)."""
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        """:meth:`to_record` as one line of JSON."""
        return json_line(self.to_record())

    @classmethod
    def from_record(
        cls, record: object, *, line: int | None = None, source: str | None = None
    ) -> StoryRecord:
        """Read a record written by :meth:`to_record`; :class:`RecordError` if malformed.

        The record is validated once, strictly, by its typed model; then the theme must
        be registered, every mode and attempt outcome known, every clue's outcome the
        one its ``accepted`` and ``fallback`` say, the descriptions the theme's and the
        id the hash of the record.

        >>> rec = bind_id(StoryRecord.create(instance_id="i", theme="spy", model="m",
        ...     seed=0, entities={"the pilot": "x1"}, intro="Intro.", clues=(),
        ...     story="Intro.", text="T", recovered=()))
        >>> StoryRecord.from_record(rec.to_record()) == rec
        True
        """
        try:
            return cls._read(record)
        except RecordError as exc:
            raise RecordError(str(exc), line=line, source=source) from None

    @classmethod
    def _read(cls, record: object) -> StoryRecord:
        if isinstance(record, Mapping) and record.get("schema_version") != SCHEMA_VERSION:
            version = record.get("schema_version")
            raise RecordError(f"unsupported schema_version {version!r} (expected {SCHEMA_VERSION})")
        out = read_record(cls, record, what="a story record")
        if out.theme not in THEMES:
            raise RecordError(f"unknown story theme {out.theme!r}")
        _check_clues(out)
        _check_descriptions(out)
        expected = story_id(out.instance_id, out.theme, out.model, out.seed, attested_digest(out))
        if out.id != expected:
            raise RecordError(f"id {out.id!r} is not the hash of the record; expected {expected!r}")
        return out


def _check_clues(record: StoryRecord) -> None:
    """Every clue's mode and attempt outcomes known, its outcome the one its
    ``accepted`` and ``fallback`` say."""
    for i, clue in enumerate(record.clues):
        _choice(clue.mode, f"clues[{i}].mode", _CLAUSE_MODES)
        outcome = clue_outcome(clue.accepted, clue.fallback)
        if clue.outcome != outcome:
            raise RecordError(
                f"field 'clues[{i}].outcome' must be {outcome!r} (accepted "
                f"{clue.accepted!r}, fallback {clue.fallback!r}), got {clue.outcome!r}"
            )
        for k, attempt in enumerate(clue.attempts):
            _choice(attempt.outcome, f"clues[{i}].attempts[{k}].outcome", ATTEMPT_OUTCOMES)


def _check_descriptions(record: StoryRecord) -> None:
    """The descriptions the theme's, of the entities in their order."""
    theme = THEMES.get(record.theme)
    try:
        described = {entity: theme.describe(entity) for entity in record.entities}
    except ConfigError as exc:
        raise RecordError(f"field 'entities': {exc}") from None
    if list(record.descriptions.items()) != list(described.items()):
        raise RecordError(
            f"field 'descriptions' must be the {record.theme} theme's descriptions of the "
            "entities, in their order"
        )


def is_story_record(record: object) -> bool:
    """Whether a decoded JSON object is a story record (``"kind": "story"``).

    >>> is_story_record({"kind": "story"}), is_story_record({"instance_id": "i", "text": "t"})
    (True, False)
    """
    return isinstance(record, Mapping) and record.get("kind") == KIND


def _choice(value: str, where: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise RecordError(f"field {where!r} must be one of {', '.join(choices)}, got {value!r}")
