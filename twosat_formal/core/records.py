"""Typed models of the records twosat-formal writes (pydantic v2), for validation and schemas.

Every JSON Lines record kind has a model here: :class:`InstanceRecord` (a dataset
line, with its :class:`Certificate` and its transforms, each a
:class:`PerturbationRecord` or an :class:`EditRecord`), :class:`PromptRecordModel`
(a template prompt) and :class:`StoryRecordModel` (an LLM story, with its clues and
their attempts). The export rows of ``twosat-formal results`` are typed from the
column registry (:func:`twosat_formal.evaluate.schemas.result_row_model`). Their JSON Schemas
are published in ``docs/schema/`` (:mod:`twosat_formal.evaluate.schemas`), so that data can be
validated without this package; a test checks that the published files are current
and that what the pipeline writes validates.

The models describe the records, and :func:`read_record` is the one reader that
checks a record against its model: strictly (``true`` is not an integer, ``"5"`` is
not a number), with a :class:`~twosat_formal.errors.RecordError` that names the
file, the line and the field (``data.jsonl:7: field 'transforms[0].position' must be
an integer, not string``). :meth:`twosat_formal.io.instance.Instance.from_record` and
:meth:`twosat_formal.verbalize.prompts.PromptRecord.from_record` (a ``PromptRecord`` is a
:class:`PromptRecordModel` with the id rule added) read through it and keep only
the checks a schema cannot state (the DIMACS text against its counts, an id against
its hash). The writers and the byte-for-byte checks of ``certify`` stay where they
are. A story record is its model too: ``verbalize.story``'s ``StoryRecord`` is a
:class:`StoryRecordModel` (its ``ClueRecord`` and ``Attempt`` are :class:`Clue` and
:class:`Attempt`), read in one strict validation with its own checks after. Fields a
later version adds are allowed (a reader of an older schema keeps working; the story
models drop them when read); every field named here is required unless it has a
default, and typed.

Examples
--------
>>> record = {"schema_version": 1, "id": "p1", "instance_id": "i1", "template": "logic",
...           "text": "T", "entities": {"A": "x1"}, "true_value": "true",
...           "false_value": "false", "seed": 3, "roundtrip": None}
>>> PromptRecordModel.model_validate(record).template
'logic'
>>> PromptRecordModel.model_validate({**record, "seed": "three"})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for PromptRecordModel
...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)

from twosat_formal.core.jsonread import json_type_name, line_of_path
from twosat_formal.errors import RecordError

T = TypeVar("T")

__all__ = [
    "RECORD_MODELS",
    "Attempt",
    "Certificate",
    "ChangeRecord",
    "Clue",
    "EditRecord",
    "EditSplice",
    "InstanceRecord",
    "Measures",
    "PerturbationRecord",
    "PerturbationStep",
    "PromptRecordModel",
    "Proof",
    "StepProof",
    "StoryRecordModel",
    "clue_outcome",
    "read_record",
]

Label = Literal["SAT", "UNSAT"]
#: A clause as named literals (``"x3"``, ``"~x3"``).
NamedClause = list[str]
#: A clause as DIMACS integers.
IntClause = list[int]


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Certificate(_Record):
    """A label's evidence: a ``model`` (SAT) or a contradiction ``cycle`` (UNSAT)."""

    status: Label
    backend: str
    checked: bool
    model: dict[str, bool] | None = None
    cycle: list[str] | None = None


class Measures(_Record):
    """The structural measures of an instance's formula (``twosat_formal.solve.measures``), in
    implication steps or literals; ``null`` where a measure does not apply."""

    shortest_cycle: int | None = Field(ge=1, description="UNSAT: shortest contradiction cycle")
    longest_path: int = Field(ge=0, description="longest path of the condensation")
    scc_count: int = Field(ge=0)
    largest_scc: int = Field(ge=0)
    nontrivial_sccs: int = Field(ge=0)
    backbone: int | None = Field(ge=0, description="SAT: literals true in every model")
    forced_depth: int | None = Field(ge=0, description="SAT: deepest forced literal")
    proof_length: int | None = Field(
        ge=0, description="shortest_cycle (UNSAT) or forced_depth (SAT)"
    )


class Proof(_Record):
    """How a relation was proven (``result``: ``proved``), and how long it took."""

    method: str
    result: str
    seconds: float | str | None = Field(default=None, description="measured; never compared")


class PerturbationRecord(_Record):
    """One semantics-preserving perturbation applied to a formula, with its proof."""

    operator: str
    params: dict[str, Any]
    seed: int | None
    relation: str
    literal_map: list[list[int]]
    clause_permutation: list[int] | None
    added_clauses: list[IntClause]
    fresh_vars: list[int]
    witness: list[Any]
    num_vars: int = Field(ge=0)
    names: list[str] | None
    proof: Proof


class StepProof(_Record):
    """A perturbation step's proof as :class:`PerturbationStep` reads it: seconds a number."""

    method: str
    result: str
    seconds: float


class PerturbationStep(_Record):
    """What replaying a perturbation needs: the reading model of ``Transform.from_json``.

    A perturbation of an instance (:class:`PerturbationRecord`) has these fields; here
    the seed, the clause permutation and the witness are required integers, and the
    proof may be absent (a transform written without it).
    """

    operator: str
    params: dict[str, Any]
    seed: int
    relation: str
    literal_map: list[list[int]]
    clause_permutation: list[int]
    added_clauses: list[list[int]]
    fresh_vars: list[int]
    witness: list[int]
    num_vars: int
    names: list[str] | None
    proof: StepProof | None = None


class EditRecord(_Record):
    """One symbolic edit: the clauses before and after, and the labels it moved between."""

    kind: Literal["edit"]
    operator: str
    category: Literal["operator", "premise"] | None = Field(
        default=None,
        description="operator: an edit of a clause's logic; premise: drop or insert "
        "(written by every symbolic edit; a minimal twin's step has none)",
    )
    params: dict[str, Any]
    position: int | None
    before: list[IntClause]
    after: list[IntClause]
    before_text: list[str]
    after_text: list[str]
    label_before: Label
    label_after: Label
    class_: str = Field(alias="class")
    mode: str
    level: int = Field(ge=0)
    origin: str
    seed: int | None


def _transform_kind(value: Any) -> str:
    # a record's JSON object is a dict: no abstract-class test needed
    is_mapping = type(value) is dict or isinstance(value, Mapping)
    kind = value.get("kind") if is_mapping else getattr(value, "kind", None)
    return "edit" if kind == "edit" else "perturbation"


#: A transform of an instance: an edit step (``"kind": "edit"``) or a perturbation.
TransformRecord = Annotated[
    Annotated[EditRecord, Tag("edit")] | Annotated[PerturbationRecord, Tag("perturbation")],
    Discriminator(_transform_kind),
]
_TAGS = frozenset({"edit", "perturbation"})


def _nonzero(value: int) -> int:
    if value == 0:
        raise ValueError("a literal is a non-zero integer")
    return value


#: A clause whose literals must be non-zero (0 ends a clause in DIMACS).
NonZeroClause = list[Annotated[int, AfterValidator(_nonzero)]]


class EditSplice(_Record):
    """What replaying an edit needs: at ``position``, ``before`` becomes ``after``.

    The reading model of :meth:`twosat_formal.make.edits.operators.Edit.from_json`; an
    edit step of an instance (:class:`EditRecord`) has these fields and more.
    """

    operator: str
    params: dict[str, Any] = Field(default_factory=dict)
    position: int = Field(ge=0)
    before: list[NonZeroClause]
    after: list[NonZeroClause]


class ChangeRecord(_Record):
    """The one-clause change from a minimal twin's source to the twin."""

    kind: Literal["replace", "add", "remove"]
    position: int = Field(ge=0)
    before: NonZeroClause
    after: NonZeroClause
    reason: Literal["break-cycle", "close-cycle"]
    cycle: NonZeroClause
    seed: int
    description: str | None = None
    cycle_text: str | None = None


class InstanceRecord(_Record):
    """One line of a dataset: a labelled, certified formula and how it was made."""

    schema_version: int = Field(ge=1)
    id: str
    family: str
    params: dict[str, Any]
    seed: int
    dimacs: str
    num_vars: int = Field(ge=0)
    num_clauses: int = Field(ge=0)
    label: Label
    certificate: Certificate
    structure: dict[str, Any]
    measures: Measures | None = Field(
        default=None, description="structural measures; re-derived by certify"
    )
    base_id: str | None = None
    transforms: list[TransformRecord] = Field(default_factory=list)
    provenance: dict[str, Any]
    twin_of: str | None = Field(default=None, description="a minimal twin: its source's id")
    change: ChangeRecord | None = None


#: The question types a prompt record may name (``"chain"`` is the decision with
#: ``ask_cycle``).
AskType = Literal["decision", "forced", "entails", "core", "repair", "maxsat"]


class PromptRecordModel(_Record):
    """One template prompt: the text a model reads, its entity map and its round trip."""

    schema_version: int = Field(ge=1)
    id: str
    instance_id: str
    template: str
    text: str
    entities: dict[str, str]
    true_value: str
    false_value: str
    seed: int
    roundtrip: dict[str, Any] | None
    ask_cycle: bool = Field(default=False, description="asks for a contradiction chain")
    ask: AskType = Field(
        default="decision", description="the question type asked (docs/verbalization.md)"
    )
    reference: dict[str, Any] | None = Field(
        default=None, description="the reference answer of a question type other than decision"
    )


def _as_tuple(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


#: A JSON array held as a tuple (compared and hashed as one); a list is read as a tuple,
#: in strict reading too. Its schema is the array schema of ``list[T]``.
Array = Annotated[tuple[T, ...], BeforeValidator(_as_tuple)]
#: An ``[entity, value]`` pair of a validated clue, held as a tuple.
EntityValue = Annotated[tuple[str, bool], BeforeValidator(_as_tuple)]
#: An entity's ``[true, false]`` descriptions, held as a tuple.
TrueFalse = Annotated[tuple[str, str], BeforeValidator(_as_tuple)]

#: The story parts read as they were written: a field this version does not know is
#: dropped (so a record is written back as this version writes it), and allowed by the
#: published schema, as in every other record.
_STORY_CONFIG = ConfigDict(
    extra="ignore", frozen=True, json_schema_extra={"additionalProperties": True}
)


# The docstrings of the story models are their published schemas' descriptions (one
# line each); what the fields mean is said in comments and in docs/verbalization.md.


# ``text`` is None when the generation failed (then ``error`` says why);
# ``entities_reply`` and ``state_replies`` are the validator's verbatim replies (None for
# a call that failed or was not made); ``entities``, ``states``, ``recovered`` and
# ``outcome`` are what verbalize.story.replies.assess makes of them.
class Attempt(BaseModel):
    """One generated clue and what validating it read back."""

    model_config = _STORY_CONFIG

    attempt: int = Field(ge=1)
    outcome: str
    text: str | None
    finish_reason: str | None
    entities_reply: str | None
    state_replies: Array[str | None]
    entities: Array[str] | None
    states: Array[str] | None = Field(description="the Step 3b letter of each entity, A or B")
    recovered: Array[EntityValue] | None
    error: str | None

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this attempt (tuples as lists: ``recovered`` as pairs)."""
        return self.model_dump(mode="json")


def clue_outcome(accepted: int | None, fallback: bool) -> str:
    """A clue's outcome: ``"validated"``, ``"fallback"`` or ``"direct"`` (one entity).

    >>> clue_outcome(2, False), clue_outcome(None, True), clue_outcome(None, False)
    ('validated', 'fallback', 'direct')
    """
    if accepted is not None:
        return "validated"
    return "fallback" if fallback else "direct"


# ``index`` is the 1-based clause number, ``clause`` the source clause as literal names
# ("x3", "~x7"); ``mode`` is "llm" (two distinct variables, through the validation loop)
# or "direct" (a unit clause or one variable twice: the programmatic sentence, no model
# call). ``accepted`` is the number of the attempt that validated, ``fallback`` whether
# the fallback sentence replaced the clue after every attempt failed, ``text`` the clue
# as it stands in the story and ``recovered`` the clause read back, in source literal
# order. ``outcome`` follows from ``accepted`` and ``fallback`` (clue_outcome).
class Clue(BaseModel):
    """The clue of one clause: its attempts, the accepted one or the fallback sentence."""

    model_config = _STORY_CONFIG

    index: int = Field(ge=1)
    clause: Array[str]
    mode: str
    outcome: str
    accepted: int | None
    fallback: bool
    text: str
    recovered: Array[str]
    attempts: Array[Attempt]

    def to_record(self) -> dict[str, Any]:
        """The JSON object of this clue."""
        return self.model_dump(mode="json")


# verbalize.story.record.StoryRecord is this model with how a record is made, written
# and read added (the theme's descriptions, the id, the checks a schema cannot state).
class StoryRecordModel(BaseModel):
    """One LLM story (``"kind": "story"``): clues, the recovered formula, the round trip."""

    model_config = _STORY_CONFIG

    schema_version: int = Field(ge=1)
    kind: Literal["story"]
    id: str
    instance_id: str
    theme: str
    model: str
    seed: int
    entities: dict[str, str]
    descriptions: dict[str, TrueFalse]
    intro: str
    clues: Array[Clue]
    story: str
    text: str
    recovered: Array[Array[str]]
    roundtrip: dict[str, Any] | None
    provenance: dict[str, Any]


#: The record models by the name of their published schema (``docs/schema/NAME.json``).
RECORD_MODELS: dict[str, type[BaseModel]] = {
    "instance": InstanceRecord,
    "prompt": PromptRecordModel,
    "story": StoryRecordModel,
}


M = TypeVar("M", bound=BaseModel)

#: How an error of each pydantic type reads after "field 'x' ".
_MUST = {
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "string_type": "must be a string",
    "bool_type": "must be true or false",
    "float_type": "must be a number",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
}


#: The bound of each pydantic range error, as its context names it.
_BOUND = {"greater_than_equal": "ge", "less_than_equal": "le", "greater_than": "gt"}
_BOUND_TEXT = {"ge": ">=", "le": "<=", "gt": ">"}


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in _TAGS and i and isinstance(loc[i - 1], int):
            continue  # the tag of a transform's kind, not a field
        else:
            text += f".{part}" if text else str(part)
    return text


def _describe(error: Mapping[str, Any]) -> str:
    where = f"field {_path(tuple(error['loc']))!r}"
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if not error["loc"]:  # a check of the whole record, whose message names its fields
        return str(ctx.get("error", error["msg"]))
    got = json_type_name(error.get("input"))
    if kind == "missing":
        return f"missing {where}"
    if kind in _MUST:
        return f"{where} {_MUST[kind]}, not {got}"
    if kind == "literal_error":
        return f"{where} must be {ctx.get('expected')}, not {error.get('input')!r}"
    if kind in _BOUND:
        key = _BOUND[kind]
        return f"{where} must be {_BOUND_TEXT[key]} {ctx.get(key)}, not {error.get('input')!r}"
    if kind == "too_short":
        return f"{where} must not be empty"
    if kind == "value_error":
        return f"{where}: {ctx.get('error', error['msg'])}"
    return f"{where}: {error['msg']}"


def read_record(
    model: type[M],
    record: object,
    *,
    what: str = "a record",
    line: int | None = None,
    source: str | None = None,
    text: str | None = None,
) -> M:
    """``record`` checked against ``model`` (strictly); a :class:`RecordError` names the field.

    The error carries ``line`` and ``source`` (shown as ``source:line:``) and describes
    the first field that does not fit: a missing field, a value of the wrong type, a
    value outside its set. A record read from a whole JSON document ``text`` (a spec
    file) has the line of the offending field there.

    Examples
    --------
    >>> good = {"schema_version": 1, "id": "p1", "instance_id": "i1", "template": "logic",
    ...         "text": "T", "entities": {"A": "x1"}, "true_value": "true",
    ...         "false_value": "false", "seed": 3, "roundtrip": None}
    >>> read_record(PromptRecordModel, good).seed
    3
    >>> read_record(PromptRecordModel, {**good, "seed": True}, line=4, source="p.jsonl")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: p.jsonl:4: field 'seed' must be an integer, not boolean
    >>> read_record(PromptRecordModel, [], what="a prompt record")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: a prompt record must be a JSON object, not array
    """
    if not isinstance(record, Mapping):
        raise RecordError(
            f"{what} must be a JSON object, not {json_type_name(record)}", line=line, source=source
        )
    try:
        return model.model_validate(record, strict=True)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        if line is None and text is not None and first["loc"]:
            line = line_of_path(text, first["loc"])
        raise RecordError(_describe(first), line=line, source=source) from None
