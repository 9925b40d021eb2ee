"""The evaluation prompt of App. G.2 and the prompt record (JSON Lines).

Two variants wrap a verbalized formula into the text a model receives:

* :func:`template_prompt` for the template verbalizers: the scheme's true/false values
  and an example JSON over the first three entities (values alternating true, false,
  true);
* :func:`story_prompt` for the story verbalizer: the entity list with each entity's
  true/false descriptions.

Both reproduce the paper's text character for character, line breaks included.
A :class:`PromptRecord` is one prompt on disk: its stable id (SHA-256 over the
instance id, the template and the seed), the full text, the entity ↔ variable map,
the value words, the seed and the round-trip proof.

Examples
--------
>>> text = template_prompt("Consider these logical relationships:", "true", "false", ["A", "B"])
>>> print(text)  # doctest: +NORMALIZE_WHITESPACE
Consider these logical relationships:
<BLANKLINE>
Think step by step.
<BLANKLINE>
If a valid assignment exists, provide it as JSON
using "true" or "false" as values.
Example format:
{
  "A": "true",
  "B": "false"
}
<BLANKLINE>
End your response with exactly one of:
- "The answer is: Yes" (if a valid assignment exists)
- "The answer is: No" (if no valid assignment exists)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, cast

from pydantic import ConfigDict

from twosat_formal.core.formula import Formula
from twosat_formal.core.records import AskType, PromptRecordModel, read_record
from twosat_formal.errors import RecordError
from twosat_formal.io.jsonl import json_line, read_json_lines, write_lines

__all__ = [
    "ANSWER_INSTRUCTIONS",
    "CYCLE_INSTRUCTION",
    "SCHEMA_VERSION",
    "PromptRecord",
    "formula_id",
    "prompt_id",
    "read_prompts",
    "story_prompt",
    "template_prompt",
    "write_prompts",
]

#: Version of the prompt record layout; :meth:`PromptRecord.from_record` refuses others.
SCHEMA_VERSION = 1

#: The closing lines shared by both prompt variants (App. G.2).
ANSWER_INSTRUCTIONS = (
    "End your response with exactly one of:\n"
    '- "The answer is: Yes" (if a valid assignment exists)\n'
    '- "The answer is: No" (if no valid assignment exists)'
)


#: The instruction ``verbalize --ask-cycle`` adds to the prompt, right before
#: :data:`ANSWER_INSTRUCTIONS`: a contradiction chain as the witness of "No"
#: (:mod:`twosat_formal.evaluate.diagnostics.chains` scores it).
CYCLE_INSTRUCTION = (
    "If no valid assignment exists, also provide a contradiction chain as JSON:\n"
    '{"chain": [{"<entity>": "<value>"}, ...]}\n'
    "The chain starts at one entity's value, reaches the opposite value of that\n"
    "entity, and returns to the start; each step must follow from one rule above."
)


def template_prompt(
    verbalization: str,
    true_value: str,
    false_value: str,
    entities: Sequence[str],
    *,
    ask_cycle: bool = False,
    question: str | None = None,
) -> str:
    """The App. G.2 evaluation prompt for a template verbalization.

    Parameters
    ----------
    verbalization:
        The verbalized formula (preamble, sentences, blank line, final question).
    true_value, false_value:
        The scheme's value words (Table 2).
    entities:
        Entities in the order the example should show them; the first three are used
        (fewer when there are fewer), with the values true, false, true.
    ask_cycle:
        Add :data:`CYCLE_INSTRUCTION` before the closing lines (``--ask-cycle``).
    question:
        A question type's block (:func:`twosat_formal.verbalize.questions.question_block`)
        in place of the decision's instructions.

    Examples
    --------
    >>> lines = template_prompt("V", "lit", "dark", ["room 2", "room 1", "room 3", "room 4"])
    >>> print("\\n".join(lines.splitlines()[7:12]))
    {
      "room 2": "lit",
      "room 1": "dark",
      "room 3": "lit"
    }
    """
    if question is not None:
        return f"{verbalization}\n\nThink step by step.\n\n{question}"
    values = (true_value, false_value, true_value)
    example = ",\n".join(
        f'  "{entity}": "{value}"' for entity, value in zip(entities[:3], values, strict=False)
    )
    return (
        f"{verbalization}\n\n"
        "Think step by step.\n\n"
        "If a valid assignment exists, provide it as JSON\n"
        f'using "{true_value}" or "{false_value}" as values.\n'
        "Example format:\n"
        "{\n"
        + (example + "\n" if example else "")
        + "}\n\n"
        + (CYCLE_INSTRUCTION + "\n\n" if ask_cycle else "")
        + ANSWER_INSTRUCTIONS
    )


def story_prompt(story: str, entities: Iterable[tuple[str, str, str]]) -> str:
    """The App. G.2 evaluation prompt for a story verbalization.

    Parameters
    ----------
    story:
        The augmented story text.
    entities:
        ``(entity_name, true_description, false_description)`` triples, in the order
        the prompt should list them.

    Examples
    --------
    >>> text = story_prompt("Once upon a time.", [("the butler", "lied", "told the truth")])
    >>> print("\\n".join(text.splitlines()[7:14]))
    Entities and their possible values:
      - "the butler": "lied" or "told the truth"
    <BLANKLINE>
    Example JSON format:
    {
      "entity_name": "value"
    }
    """
    listed = "".join(f'  - "{name}": "{true}" or "{false}"\n' for name, true, false in entities)
    return (
        f"{story}\n\n"
        "Think step by step.\n\n"
        "If a valid assignment exists, provide it as JSON\n"
        "with one of the allowed values for each entity.\n\n"
        "Entities and their possible values:\n"
        f"{listed}\n"
        "Example JSON format:\n"
        "{\n"
        '  "entity_name": "value"\n'
        "}\n\n" + ANSWER_INSTRUCTIONS
    )


def prompt_id(
    instance_id: str, template: str, seed: int, *, ask_cycle: bool = False, ask: str = "decision"
) -> str:
    """The stable id of a prompt: SHA-256 (hex) over ``(instance_id, template, seed)``.

    A prompt that asks for a contradiction chain (``ask_cycle``) hashes
    ``(instance_id, template, seed, "ask-cycle")``, and one that asks another question
    type (``ask``, not ``"decision"``) ``(instance_id, template, seed, "ask:" + ask)``,
    so none shares an id with the plain prompt.

    >>> prompt_id("er-1", "logic", 0, ask="forced") != prompt_id("er-1", "logic", 0)
    True

    >>> a, b = prompt_id("er-1", "logic", 0), prompt_id("er-1", "door", 0)
    >>> a == prompt_id("er-1", "logic", 0) != b
    True
    >>> len(prompt_id("er-1", "logic", 0))
    64
    """
    parts: list[object] = [instance_id, template, int(seed)]
    if ask_cycle:
        parts.append("ask-cycle")
    if ask != "decision":
        parts.append("ask:" + ask)
    key = _PARTS(parts)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


#: ``json.dumps(parts, ensure_ascii=False)``, its encoder made once.
_PARTS = json.JSONEncoder(ensure_ascii=False).encode


def formula_id(formula: Formula) -> str:
    """A content id for a formula that has no instance id (names and clauses hashed).

    >>> a = formula_id(Formula.from_named([["a", "~b"]]))
    >>> a == formula_id(Formula.from_named([["a", "~b"]])), a.startswith("formula-")
    (True, True)
    >>> a == formula_id(Formula.from_named([["~b", "a"]]))
    False
    """
    key = json.dumps(
        {
            "names": list(formula.names),
            "lits": formula.literals.tolist(),
            "offsets": formula.offsets.tolist(),
        },
        separators=(",", ":"),
    )
    return "formula-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


class PromptRecord(PromptRecordModel):
    """One evaluation prompt as stored in a JSON Lines file.

    The record's fields are those of its typed model
    (:class:`~twosat_formal.core.records.PromptRecordModel`, published as
    ``docs/schema/prompt.json``), declared once there; this class adds how a record
    is made (:meth:`create`, which computes the id), written (:meth:`to_record`) and
    read with the checks a schema cannot state (:meth:`from_record`). Fields a
    reader does not know are dropped, so a record is written back as this version
    writes it.

    Attributes
    ----------
    schema_version:
        :data:`SCHEMA_VERSION`.
    id:
        :func:`prompt_id` of ``(instance_id, template, seed)``.
    instance_id:
        The instance the prompt verbalizes.
    template:
        The verbalization scheme.
    text:
        The full prompt a model receives.
    entities:
        Entity → variable name of the instance's formula, in variable order.
    true_value, false_value:
        The value words the answer JSON uses.
    seed:
        The seed of the entity mapping.
    roundtrip:
        The round-trip proof (a JSON object), or ``None`` when none was made.
    ask_cycle:
        Whether the text asks for a contradiction chain (:data:`CYCLE_INSTRUCTION`);
        written as ``"ask_cycle": true`` only when set.
    ask:
        The question type (:mod:`twosat_formal.solve.questions`); written only when not
        ``"decision"``.
    reference:
        The reference answer of a question type other than the decision (written only
        then); ``certify`` re-derives it on a path of its own.

    Examples
    --------
    >>> rec = PromptRecord.create("i1", "logic", "TEXT", {"A": "x1"}, "true", "false", 0)
    >>> PromptRecord.from_record(rec.to_record()) == rec
    True
    """

    model_config = ConfigDict(extra="ignore")

    @classmethod
    def create(
        cls,
        instance_id: str,
        template: str,
        text: str,
        entities: Mapping[str, str],
        true_value: str,
        false_value: str,
        seed: int,
        roundtrip: Mapping[str, Any] | None = None,
        *,
        ask_cycle: bool = False,
        ask: str = "decision",
        reference: Mapping[str, Any] | None = None,
    ) -> PromptRecord:
        """A record with its id computed by :func:`prompt_id`."""
        return cls(
            schema_version=SCHEMA_VERSION,
            id=prompt_id(instance_id, template, seed, ask_cycle=ask_cycle, ask=ask),
            instance_id=instance_id,
            template=template,
            text=text,
            entities=dict(entities),
            true_value=true_value,
            false_value=false_value,
            seed=int(seed),
            roundtrip=dict(roundtrip) if roundtrip is not None else None,
            ask_cycle=ask_cycle,
            ask=cast("AskType", ask),  # pydantic checks it
            reference=dict(reference) if reference is not None else None,
        )

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this record (field order fixed)."""
        left_out = set() if self.ask_cycle else {"ask_cycle"}
        if self.ask == "decision":
            left_out.add("ask")
        if self.reference is None:
            left_out.add("reference")
        return self.model_dump(exclude=left_out or None)

    @classmethod
    def from_record(
        cls, record: object, *, line: int | None = None, source: str | None = None
    ) -> PromptRecord:
        """Read a record written by :meth:`to_record`; :class:`RecordError` if malformed.

        The record is read through its typed model (with
        :func:`~twosat_formal.core.records.read_record`); then no two entities may name the
        same variable, and the id must be the :func:`prompt_id` of the record's
        instance id, template and seed.
        """

        def bad(message: str) -> RecordError:
            return RecordError(message, line=line, source=source)

        if isinstance(record, Mapping) and record.get("schema_version") != SCHEMA_VERSION:
            version = record.get("schema_version")
            raise bad(f"unsupported schema_version {version!r} (expected {SCHEMA_VERSION})")
        read = read_record(cls, record, what="a prompt record", line=line, source=source)
        if len(set(read.entities.values())) != len(read.entities):
            raise bad("field 'entities' maps two entities to the same variable")
        expected = prompt_id(
            read.instance_id, read.template, read.seed, ask_cycle=read.ask_cycle, ask=read.ask
        )
        if read.id != expected:
            raise bad(
                f"id {read.id!r} is not the hash of (instance_id, template, seed"
                + (", ask-cycle" if read.ask_cycle else "")
                + (f", ask:{read.ask}" if read.ask != "decision" else "")
                + f"); expected {expected!r}"
            )
        if (read.ask == "decision") != (read.reference is None):
            raise bad("field 'reference' must be given exactly when field 'ask' is not 'decision'")
        if read.ask != "decision" and read.ask_cycle:
            raise bad("field 'ask_cycle' applies to the decision question only")
        return read


def read_prompts(path: str | Path) -> Iterator[PromptRecord]:
    """The records of a JSON Lines prompt file (``"-"``: stdin), lazily; blank lines skipped.

    Raises
    ------
    RecordError
        On the first line that is not valid JSON or not a valid record.

    Examples
    --------
    >>> import tempfile, os
    >>> rec = PromptRecord.create("i1", "door", "T", {"door 1": "a"}, "open", "closed", 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "p.jsonl")
    ...     write_prompts([rec, rec], path)
    ...     [r == rec for r in read_prompts(path)]
    2
    [True, True]
    """
    for line in read_json_lines(path):
        yield PromptRecord.from_record(line.value, line=line.number, source=line.source)


def write_prompts(records: Iterable[PromptRecord], path_or_stream: str | Path | IO[str]) -> int:
    """Write records as JSON Lines to a path (``"-"``: stdout) or a text stream.

    UTF-8, one object per line, ``\\n`` line ends; returns how many were written.

    Non-ASCII text is written as is, except U+0085, U+2028 and U+2029, which are
    escaped so that every reader sees one record per line.

    >>> import io
    >>> buf = io.StringIO()
    >>> write_prompts([PromptRecord.create("i", "logic", "T", {}, "true", "false", 0)], buf)
    1
    >>> buf.getvalue().startswith('{"schema_version": 1, "id": ')
    True
    """
    return write_lines((json_line(record.to_record()) for record in records), path_or_stream)
