"""The round-trip proof of a story record, and the record re-derived from its formula.

:func:`prove_story` needs no model: it reads the stored replies again with the same
readers (:mod:`~twosat_formal.verbalize.story.replies`), re-derives every attempt's
outcome, the accepted attempt or the fallback, each recovered clause, the story text
and the prompt, and checks that the recovered formula equals the source clause for
clause and is Z3-equivalent to it. :func:`check_story_record` is what ``certify`` runs
on a stored record; :func:`seal_story` finishes a new record (its id binds the attested
text, its proof is made) and :func:`rebuild_story` re-derives a record from its
formula and the attested parts of a stored one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import z3

from twosat_formal.core.formula import Formula
from twosat_formal.core.records import clue_outcome
from twosat_formal.errors import CertificateError, ConfigError
from twosat_formal.verbalize.prompts import story_prompt
from twosat_formal.verbalize.roundtrip import z3_equivalent
from twosat_formal.verbalize.story.record import (
    MAX_ATTEMPTS,
    Attempt,
    ClueRecord,
    StoryRecord,
    attested_digest,
    bind_id,
    clause_mode,
    clue_record,
    story_id,
)
from twosat_formal.verbalize.story.replies import Assessment, assess
from twosat_formal.verbalize.story.sentences import (
    assemble_story,
    clause_statements,
    fallback_sentence,
    parse_fallback,
)
from twosat_formal.verbalize.story.themes import THEMES, Theme

__all__ = [
    "METHOD",
    "check_story_record",
    "prove_story",
    "rebuild_story",
    "seal_story",
    "told_record",
]

#: The Z3 version that proofs name (asked once: it cannot change in a process).
_Z3_VERSION = z3.get_version_string()

#: The ``method`` of every story round-trip proof.
METHOD = "story-validation+clause-equality+z3-equivalence"


def seal_story(record: StoryRecord, formula: Formula) -> StoryRecord:
    """A finished story record: its id binds the attested text, its proof is made."""
    sealed = bind_id(record)
    return sealed.model_copy(update={"roundtrip": prove_story(sealed, formula)})


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
    clues = [
        _rebuilt_clue(record, index, clause, formula, names, descriptions)
        for index, clause in enumerate(formula.clauses, 1)
    ]
    fields = record.model_dump(include={"id", "instance_id", "model", "seed", "provenance"})
    story = told_record(formula, theme, descriptions, record.intro, clues, **fields)
    return seal_story(story, formula)


def told_record(
    formula: Formula,
    theme: Theme,
    descriptions: Mapping[str, tuple[str, str]],
    intro: str,
    clues: Sequence[ClueRecord],
    **fields: Any,
) -> StoryRecord:
    """The record of a story told of ``formula`` (the ``v``-th entity of ``descriptions``
    tells variable ``v``; each with the theme's description of its two values), before
    :func:`seal_story`: the story verbalizer's, and :func:`rebuild_story`'s.

    ``fields`` are the record's ``id``, ``instance_id``, ``model``, ``seed`` and
    ``provenance``; the story, its prompt and the recovered formula follow from the
    introduction and the clues.
    """
    body = assemble_story(intro, [c.text for c in clues])
    return StoryRecord.create(
        theme=theme.name,
        entities=dict(zip(descriptions, formula.names, strict=True)),
        intro=intro,
        clues=tuple(clues),
        story=body,
        text=story_prompt(body, [(e, *values) for e, values in descriptions.items()]),
        recovered=tuple(c.recovered for c in clues),
        **fields,
    )


def _rebuilt_clue(
    record: StoryRecord,
    index: int,
    clause: Sequence[int],
    formula: Formula,
    names: Sequence[str],
    descriptions: Mapping[str, tuple[str, str]],
) -> ClueRecord:
    """Clue ``index`` (of ``clause``) re-derived from the attempts ``record`` stores for
    it: the accepted clue or the fallback sentence, and the clause it recovers. A
    clause of one entity is its fixed sentence."""
    source, statements = clause_statements(clause, names, descriptions)
    sentence = fallback_sentence(statements)
    literal_names = tuple(formula.literal_name(lit) for lit in clause)
    if clause_mode(clause) == "direct":
        return clue_record(index, literal_names, sentence)
    stored = record.clues[index - 1].attempts if index <= len(record.clues) else ()
    attempts = _reassessed(stored, source, names)
    pairs = _rebuilt_pairs(index, attempts, source, sentence, descriptions)
    recovered = tuple(formula.literal_name(lit) for lit in _as_ints(pairs, names))
    return clue_record(index, literal_names, sentence, attempts, recovered)


def _rebuilt_pairs(
    index: int,
    attempts: Sequence[Attempt],
    source: Sequence[tuple[str, bool]],
    sentence: str,
    descriptions: Mapping[str, tuple[str, str]],
) -> list[tuple[str, bool]]:
    """The literals clue ``index`` recovers: its valid last attempt's, else (every
    attempt made failed) the fallback ``sentence``'s; refused when neither is due."""
    if not attempts or (attempts[-1].outcome != "valid" and len(attempts) < MAX_ATTEMPTS):
        raise CertificateError(
            f"clue {index}: {len(attempts)} attempts, none valid, and no fallback is due"
        )
    last = attempts[-1]
    if last.outcome == "valid":
        return _in_source_order(list(last.recovered or ()), source)
    return parse_fallback(sentence, descriptions)


def _reassessed(
    stored: Sequence[Attempt], source: Sequence[tuple[str, bool]], names: Sequence[str]
) -> list[Attempt]:
    """The stored attempts (at most :data:`MAX_ATTEMPTS`), each numbered in order and
    read again from its stored replies, up to the first valid one."""
    attempts: list[Attempt] = []
    for number, attempt in enumerate(stored[:MAX_ATTEMPTS], 1):
        again = assess(
            attempt.text, attempt.entities_reply, attempt.state_replies, source, list(names)
        )
        attempts.append(
            attempt.model_copy(
                update={
                    "attempt": number,
                    "outcome": again.outcome,
                    "entities": again.entities,
                    "states": again.states,
                    "recovered": again.recovered,
                }
            )
        )
        if again.outcome == "valid":
            break
    return attempts


def _as_ints(pairs: Sequence[tuple[str, bool]], entity_of: Sequence[str]) -> list[int]:
    """``(entity, value)`` literals as DIMACS ints, the variables numbered in ``entity_of``.

    >>> _as_ints([("b", False), ("a", True)], ["a", "b"])
    [-2, 1]
    """
    variable = {entity: v for v, entity in enumerate(entity_of, 1)}
    return [variable[e] if value else -variable[e] for e, value in pairs]


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
    source, statements = clause_statements(clause, entity_of, descriptions)
    _check_clue_kind(clue, clause, formula, where)
    sentence = fallback_sentence(statements)
    recovered: list[tuple[str, bool]]
    if clue.mode == "direct":
        recovered = _direct_recovered(clue, sentence, descriptions, where)
    else:
        _check_attempts(clue, source, entity_of, where)
        recovered = _asked_recovered(clue, source, sentence, descriptions, where)
    ints = _as_ints(recovered, entity_of)
    if tuple(formula.literal_name(lit) for lit in ints) != clue.recovered:
        raise CertificateError(f"{where}: the stored recovered clause is not what the text gives")
    return ints


def _check_clue_kind(clue: ClueRecord, clause: Sequence[int], formula: Formula, where: str) -> None:
    """Check that the clue names its source clause, has the clause's mode (``llm`` for
    two entities, else ``direct``) and the outcome its accepted attempt or fallback
    gives."""
    names = tuple(formula.literal_name(lit) for lit in clause)
    if clue.clause != names:
        raise CertificateError(f"{where} names clause {list(clue.clause)}, the source is {names}")
    expected_mode = clause_mode(clause)
    if clue.mode != expected_mode:
        raise CertificateError(f"{where} has mode {clue.mode!r}, expected {expected_mode!r}")
    outcome = clue_outcome(clue.accepted, clue.fallback)
    if clue.outcome != outcome:
        raise CertificateError(f"{where} says outcome {clue.outcome!r}, it is {outcome!r}")


def _direct_recovered(
    clue: ClueRecord, sentence: str, descriptions: Mapping[str, tuple[str, str]], where: str
) -> list[tuple[str, bool]]:
    """A direct clue (one entity, never asked): no attempts nor fallback, its text the
    programmatic ``sentence``; the literals it reads back as."""
    if clue.attempts or clue.accepted is not None or clue.fallback:
        raise CertificateError(f"{where} is direct but records attempts or a fallback")
    if clue.text != sentence:
        raise CertificateError(f"{where} is direct but is not the programmatic sentence")
    return parse_fallback(clue.text, descriptions)


def _check_attempts(
    clue: ClueRecord, source: Sequence[tuple[str, bool]], entity_of: Sequence[str], where: str
) -> None:
    """Check an asked clue's attempts: 1 to :data:`MAX_ATTEMPTS` of them, numbered in
    order, each stored reading what :func:`assess` gives again from its stored replies,
    an error with its message, none after a valid one."""
    if not 1 <= len(clue.attempts) <= MAX_ATTEMPTS:
        raise CertificateError(f"{where} has {len(clue.attempts)} attempts")
    available = list(entity_of)
    for number, attempt in enumerate(clue.attempts, 1):
        again = assess(
            attempt.text, attempt.entities_reply, attempt.state_replies, source, available
        )
        stored = Assessment(attempt.entities, attempt.states, attempt.recovered, attempt.outcome)
        if attempt.attempt != number or stored != again:
            raise CertificateError(
                f"{where}, attempt {number}: the stored replies give outcome "
                f"{again.outcome!r}, the record says {attempt.outcome!r}"
            )
        if attempt.outcome == "error" and not attempt.error:
            raise CertificateError(f"{where}, attempt {number}: an error without a message")
        if attempt.outcome == "valid" and number != len(clue.attempts):
            raise CertificateError(f"{where}: attempts continue after a valid one")


def _asked_recovered(
    clue: ClueRecord,
    source: Sequence[tuple[str, bool]],
    sentence: str,
    descriptions: Mapping[str, tuple[str, str]],
    where: str,
) -> list[tuple[str, bool]]:
    """The literals an asked clue recovers: its valid last attempt's, which must be the
    clue used; else (every attempt made failed) the fallback ``sentence``'s, which must
    be the clue's text."""
    last = clue.attempts[-1]
    if last.outcome == "valid":
        if clue.accepted != len(clue.attempts) or clue.fallback or clue.text != last.text:
            raise CertificateError(f"{where}: the valid attempt {len(clue.attempts)} is not used")
        return _in_source_order(list(last.recovered or ()), source)
    if len(clue.attempts) != MAX_ATTEMPTS or clue.accepted is not None:
        raise CertificateError(
            f"{where}: no attempt validated, yet {len(clue.attempts)} of "
            f"{MAX_ATTEMPTS} were made or one is marked accepted"
        )
    if not clue.fallback or clue.text != sentence:
        raise CertificateError(f"{where}: every attempt failed but the fallback is not used")
    return parse_fallback(clue.text, descriptions)


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
    >>> clue = clue_record(1, ("a",), text)
    >>> story = assemble_story("Intro.", [text])
    >>> prompt = story_prompt(story, [("the vault", "is open", "is sealed")])
    >>> rec = bind_id(StoryRecord.create(instance_id="i", theme="heist", model="m", seed=0,
    ...     entities={"the vault": "a"}, intro="Intro.", clues=(clue,), story=story,
    ...     text=prompt, recovered=(("a",),)))
    >>> prove_story(rec, f)["result"]
    'validated'
    """
    entity_of, descriptions = _check_entities(record, formula)
    recovered = _recovered_formula(record, formula, entity_of, descriptions)
    source = [list(clause) for clause in formula.clauses]
    z3_equivalent(source, recovered, formula.num_vars, names=formula.names)
    _check_texts(record, entity_of, descriptions)
    outcomes = [c.outcome for c in record.clues]
    return {
        "method": METHOD,
        "result": "validated",
        "clauses": len(source),
        "validated": outcomes.count("validated"),
        "fallback": outcomes.count("fallback"),
        "direct": outcomes.count("direct"),
        "z3": _Z3_VERSION,
    }


def _check_entities(
    record: StoryRecord, formula: Formula
) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """Check the entity map (every variable in order, distinct entities of the theme),
    the record's id (it binds the attested text) and the entities' descriptions (the
    theme's); the entities in variable order, and their descriptions."""
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
    descriptions = {entity: theme.describe(entity) for entity in entity_of}
    if list(record.descriptions.items()) != list(descriptions.items()):
        raise CertificateError("the descriptions are not the theme's descriptions of the entities")
    return entity_of, descriptions


def _recovered_formula(
    record: StoryRecord,
    formula: Formula,
    entity_of: Sequence[str],
    descriptions: Mapping[str, tuple[str, str]],
) -> list[list[int]]:
    """Check every clue (one per clause, numbered in order) and that the record's
    recovered formula is the clues' and equals the source clause for clause; the
    recovered clauses as DIMACS ints."""
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
    for i, (got, clause) in enumerate(zip(recovered, formula.clauses, strict=True)):
        if got != list(clause):
            raise CertificateError(f"clue {i + 1} recovers {got} instead of {list(clause)}")
    return recovered


def _check_texts(
    record: StoryRecord, entity_of: Sequence[str], descriptions: Mapping[str, tuple[str, str]]
) -> None:
    """Check the story text (the introduction, then the clues) and the prompt text (the
    App. G.2 story prompt of the story)."""
    if record.story != assemble_story(record.intro, [c.text for c in record.clues]):
        raise CertificateError("the story text is not the introduction followed by the clues")
    triples = [(e, *descriptions[e]) for e in entity_of]
    if record.text != story_prompt(record.story, triples):
        raise CertificateError("the prompt text is not the App. G.2 story prompt of the story")


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
