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

:meth:`StoryRecord.from_record` reads a record through the typed record layer: the
record, each clue and each attempt are checked strictly (no coercion) by their models in
:mod:`twosat_formal.records` (``StoryRecordModel``, ``Clue``, ``Attempt``, whose JSON
Schema is published as ``docs/schema/story.json``), and then for what types do not
say: a registered theme, a known outcome and mode, ``[entity, value]`` pairs, and the
id's hash. A problem is one :class:`~twosat_formal.errors.RecordError` naming the
field by its path (``clues.0.fallback``).

What a model wrote is attested, not re-derived: :func:`attested_digest` hashes it and
the record's id (:func:`story_id`) binds that digest (:func:`bind_id`). The proof of a
record is :mod:`twosat_formal.verbalize.story.proof`; the validation statistics of
many are :mod:`twosat_formal.verbalize.story.statistics`; reading and writing JSON
Lines is :mod:`twosat_formal.verbalize.story.files`.

Examples
--------
>>> rec = bind_id(StoryRecord("", "i", "spy", "m", 0, {}, "I.", (), "I.", "T", ()))
>>> StoryRecord.from_record(rec.to_record()) == rec, is_story_record(rec.to_record())
(True, True)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from twosat_formal.errors import RecordError

if TYPE_CHECKING:  # the typed record layer (pydantic) is imported when a record is read
    from pydantic import BaseModel
from twosat_formal.jsonfields import fields_json
from twosat_formal.jsonl import json_line
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
    "is_story_record",
    "story_id",
]

#: Version of the story record layout; :meth:`StoryRecord.from_record` refuses others.
SCHEMA_VERSION = 1
#: The ``kind`` field of every story record.
KIND = "story"
#: Clue generations per clause before the fallback sentence is used (paper §4).
MAX_ATTEMPTS = 3

_CLAUSE_MODES = ("llm", "direct")


@dataclass(frozen=True)
class Attempt:
    """One generated clue and its validation.

    ``text`` is ``None`` when the generation failed (then ``error`` says why);
    ``entities_reply`` and ``state_replies`` are the validator's verbatim replies
    (``None`` for a call that failed or was not made). ``entities``, ``states``,
    ``recovered`` and ``outcome`` are what :func:`assess` makes of them.
    """

    attempt: int
    outcome: str
    text: str | None
    finish_reason: str | None = None
    entities_reply: str | None = None
    state_replies: tuple[str | None, ...] = ()
    entities: tuple[str, ...] | None = None
    states: tuple[str, ...] | None = None
    recovered: tuple[tuple[str, bool], ...] | None = None
    error: str | None = None

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this attempt (tuples as lists: ``recovered`` as pairs)."""
        return fields_json(self)

    @classmethod
    def from_record(cls, obj: Any) -> Attempt:
        """Read :meth:`to_record` output (:class:`RecordError` when malformed)."""
        from twosat_formal import records

        data = _validated(obj, records.Attempt, "attempt")
        recovered = data["recovered"]
        return cls(
            attempt=data["attempt"],
            text=data["text"],
            outcome=_choice(data, "outcome", ATTEMPT_OUTCOMES),
            finish_reason=data["finish_reason"],
            entities_reply=data["entities_reply"],
            state_replies=tuple(data["state_replies"]),
            entities=_strings(data["entities"], "entities"),
            states=_strings(data["states"], "states"),
            recovered=_pairs(recovered, "recovered") if recovered is not None else None,
            error=data["error"],
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
        from twosat_formal import records

        data = _validated(obj, records.Clue, "clue")
        return cls(
            index=data["index"],
            clause=tuple(data["clause"]),
            mode=_choice(data, "mode", _CLAUSE_MODES),
            attempts=tuple(Attempt.from_record(a) for a in data["attempts"]),
            accepted=data["accepted"],
            fallback=data["fallback"],
            text=data["text"],
            recovered=tuple(data["recovered"]),
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
        from twosat_formal.records import StoryRecordModel

        data = _mapping(record, "story record")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise RecordError(f"unsupported schema_version {version!r} (expected {SCHEMA_VERSION})")
        if data.get("kind") != KIND:
            raise RecordError(f"field 'kind' must be {KIND!r}")
        _validated(data, StoryRecordModel, "story record")
        theme = data["theme"]
        if theme not in THEMES:
            raise RecordError(f"unknown story theme {theme!r}")
        roundtrip = data["roundtrip"]
        out = cls(
            id=data["id"],
            instance_id=data["instance_id"],
            theme=theme,
            model=data["model"],
            seed=data["seed"],
            entities=dict(data["entities"]),
            intro=data["intro"],
            clues=tuple(ClueRecord.from_record(c) for c in data["clues"]),
            story=data["story"],
            text=data["text"],
            recovered=tuple(tuple(c) for c in data["recovered"]),
            roundtrip=dict(roundtrip) if roundtrip is not None else None,
            provenance=dict(data["provenance"]),
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


# -- field readers --------------------------------------------------------------------------

#: What a field must be, by the type of a typed-layer error (``string_type``...).
_EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "bool_type": "a boolean",
    "list_type": "a list",
    "dict_type": "an object",
    "none_required": "null",
    "greater_than_equal": "at least 1",
}


def _validated(obj: object, model: type[BaseModel], what: str) -> Mapping[str, Any]:
    """``obj`` checked by its typed record model (:mod:`twosat_formal.records`), strictly.

    The first problem becomes one :class:`RecordError` naming the field by its path
    (``clues.0.fallback``).

    >>> from twosat_formal.records import Clue
    >>> _validated({"index": 1}, Clue, "clue")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: missing field 'clause'
    """
    from pydantic import ValidationError

    data = _mapping(obj, what)
    try:
        model.model_validate(data, strict=True)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in error["loc"])
        if error["type"] == "missing":
            raise RecordError(f"missing field {where!r}") from None
        expected = _EXPECTED.get(error["type"])
        if expected is None:
            raise RecordError(f"field {where!r}: {error['msg']}") from None
        raise RecordError(f"field {where!r} must be {expected}") from None
    return data


def _mapping(obj: object, what: str) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise RecordError(f"a {what} must be a JSON object")
    return obj


def _choice(data: Mapping[str, Any], key: str, choices: Sequence[str]) -> str:
    value = data[key]
    if value not in choices:
        raise RecordError(f"field {key!r} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)


def _strings(value: object, key: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RecordError(f"field {key!r} must be a list of strings")
    return tuple(value)


def _pairs(value: object, key: str) -> tuple[tuple[str, bool], ...]:
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], bool)
        for p in value
    ):
        raise RecordError(f"field {key!r} must be a list of [entity, value] pairs")
    return tuple((p[0], p[1]) for p in value)
