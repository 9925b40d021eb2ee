"""One flat row per prompt: the shape every export shares, and its scorer.

A row holds what a model reads (``prompt``), what a right answer ends with
(``answer``: ``Yes`` or ``No``), the label and everything scoring needs to judge a
witness without this package's files: the formula as DIMACS (with ``c var`` name
lines), the entity map and the value words (one pair per scheme, or one pair per
entity for a story prompt). :func:`judge_row` rebuilds the prompt view and formula
from a row and calls :func:`twosat_formal.evaluate.scoring.score`, the code ``eval`` uses, so
an answer gets the same judgement wherever it is scored.

Columns (:data:`ROW_COLUMNS`), JSON-valued ones as JSON text so that every row has
the same flat types:

``id``, ``kind`` (``template`` or ``story``), ``prompt``, ``answer``, ``label``,
``family``, ``clauses``, ``num_vars``, ``params`` (JSON), ``template``,
``instance_id``, ``seed``, ``entities`` (JSON: entity → variable name, in variable
order),
``true_value``, ``false_value``, ``entity_values`` (JSON: entity → ``[true, false]``,
story prompts only), ``dimacs``, ``base_id``, ``transforms`` (JSON list of the
operator names applied to the base, ``edit:`` before symbolic edits),
``story_theme``, ``story_model``, ``question_type`` (``decision`` or another question
type, :mod:`twosat_formal.solve.questions`) and ``reference`` (JSON: the reference answer of
a question type, null for the decision). A question row's ``answer`` is what its
closing line carries: the forced values' JSON, ``Yes``/``No``, a list of rule numbers,
or for ``maxsat`` the optimum (``satisfies K of M rules``).

Examples
--------
>>> from twosat_formal.evaluate.run import EvalItem
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.models.base import Response
>>> from twosat_formal.verbalize import verbalize
>>> formula = Formula.from_named([["p", "q"], ["~p"]])
>>> item = EvalItem(verbalize(formula, "door").record("i1", None), formula, "SAT")
>>> row = item_row(item)
>>> row["answer"], row["label"], row["kind"], row["template"]
('Yes', 'SAT', 'template', 'door')
>>> judge_row(row, "The answer is: No").failure
'wrong-decision'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonread import loads
from twosat_formal.errors import RecordError
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.scoring import (
    AnyPrompt,
    Judgement,
    PromptView,
    StoryPromptView,
    score,
)
from twosat_formal.io import parse_dimacs, write_dimacs

if TYPE_CHECKING:
    from twosat_formal.evaluate.run import EvalItem, StoryPrompt

__all__ = [
    "ANSWERS",
    "COLUMN_DOCS",
    "ROW_COLUMNS",
    "item_row",
    "judge_row",
    "row_formula",
    "row_prompt",
    "transforms_summary",
]

#: The expected final word of an answer, by label.
ANSWERS: dict[str, str] = {"SAT": "Yes", "UNSAT": "No"}

#: Column → its meaning, in order: the columns of a typed Hugging Face row
#: (:func:`~twosat_formal.integrations.hf.typed_row`, the dataset card's table), which are
#: those of a row (:data:`ROW_COLUMNS`) and :data:`_TYPED`.
COLUMN_DOCS: dict[str, str] = {
    "id": "the prompt's id (SHA-256 of instance id, template and seed; a story's own id)",
    "kind": "`template` (a template verbalizer: six schemes, four formats) or `story` (LLM story)",
    "prompt": "the full text a model receives (App. G.2 evaluation prompt)",
    "messages": "the chat form: the prompt as the user turn, a reference answer as the "
    "assistant turn (the gold solution in the answer format; the scorer judges it correct)",
    "answer": "the expected final word: `Yes` (SAT) or `No` (UNSAT); for another question "
    'type, what its closing line carries (docs/verbalization.md, "Question types")',
    "label": "`SAT` or `UNSAT`, from the solver, checked by three solvers",
    "satisfiable": "the label as a boolean",
    "solution": "the gold certificate: `assignment` (entity, variable, value) for SAT, "
    "`cycle` (the literals of a contradiction cycle x ⇝ ¬x ⇝ x, variables of `dimacs`) "
    "for UNSAT",
    "family": "the generator family of the instance",
    "clauses": "clauses in the formula",
    "num_vars": "variables in the formula",
    "params": "the family's knobs and structural parameters (null where a family has none)",
    "template": "the verbalization template (`story:<theme>` for stories)",
    "instance_id": "the instance's id",
    "seed": "the seed of the entity mapping (template) or of the story",
    "entities": "entity → variable name of `dimacs`, in variable order",
    "true_value": "the word for true in the answer's JSON (template prompts)",
    "false_value": "the word for false (template prompts)",
    "entity_values": "entity → its true and false descriptions (story prompts)",
    "dimacs": "the formula in DIMACS, with `c var` name lines and provenance comments",
    "base_id": "for a derived instance, the instance it was derived from",
    "transforms": "operators applied to the base, in order (`edit:` marks edits)",
    "story_theme": "the story's theme (story prompts)",
    "story_model": "the model that wrote the story (story prompts)",
    "question_type": "the question asked: `decision` (with or without a chain), `forced`, "
    "`entails`, `core`, `repair` or `maxsat`",
    "reference": "the reference answer of a question type (JSON text; null for the decision)",
}

#: The columns a typed row adds to a row.
_TYPED = ("messages", "satisfiable", "solution")
#: The columns of a row, in order.
ROW_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMN_DOCS if c not in _TYPED)


def question_answer_line(ask: str, reference: Mapping[str, Any]) -> str:
    """What the closing line of a right answer to a question prompt carries.

    >>> question_answer_line("core", {"core": [2, 1], "size": 2})
    '[2, 1]'
    >>> question_answer_line("maxsat", {"satisfied": 4, "rules": 5})
    'satisfies 4 of 5 rules'
    """
    if ask == "forced":
        return json.dumps(reference["forced"], ensure_ascii=False)
    if ask == "entails":
        return str(reference["answer"])
    if ask in ("core", "repair"):
        return json.dumps(reference[ask])
    return f"satisfies {reference['satisfied']} of {reference['rules']} rules"


def _json(value: Any, *, sort_keys: bool = True) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=(",", ":"))


def transforms_summary(transforms: Any) -> list[str]:
    """The operator names of a transform chain, ``edit:`` before symbolic edits.

    >>> transforms_summary([{"operator": "reorder"}, {"kind": "edit", "operator": "drop"}])
    ['reorder', 'edit:drop']
    >>> transforms_summary(None)
    []
    """
    names: list[str] = []
    for step in transforms or ():
        if not isinstance(step, Mapping):
            continue
        name = str(step.get("operator", "?"))
        names.append(f"edit:{name}" if step.get("kind") == "edit" else name)
    return names


def item_row(item: EvalItem) -> dict[str, Any]:
    """The row of one prompt with its formula, label and instance record.

    The formula is the instance's DIMACS when the item carries its record, else the
    item's formula written as DIMACS.
    """
    from twosat_formal.evaluate.run import StoryPrompt

    prompt = item.prompt
    record: Mapping[str, Any] = item.instance or {}
    kind, entity_values, theme, story_model = _story_columns(
        prompt if isinstance(prompt, StoryPrompt) else None
    )
    ask = str(getattr(prompt, "ask", "decision"))
    reference = getattr(prompt, "reference", None)
    answer = ANSWERS[item.label]
    if ask != "decision" and reference is not None:
        answer = question_answer_line(ask, reference)
    return {
        "id": prompt.id,
        "kind": kind,
        "prompt": prompt.text,
        "answer": answer,
        "label": item.label,
        "family": record.get("family"),
        "clauses": item.formula.num_clauses,
        "num_vars": item.formula.num_vars,
        "params": _json(record.get("params") or {}),
        "template": prompt.template,
        "instance_id": prompt.instance_id,
        "seed": getattr(prompt, "seed", None),
        "entities": _json({str(k): str(v) for k, v in prompt.entities.items()}, sort_keys=False),
        "true_value": getattr(prompt, "true_value", None),
        "false_value": getattr(prompt, "false_value", None),
        "entity_values": entity_values,
        "dimacs": record.get("dimacs") or write_dimacs(item.formula),
        "base_id": record.get("base_id"),
        "transforms": _json(transforms_summary(record.get("transforms"))),
        "story_theme": theme,
        "story_model": story_model,
        "question_type": ask,
        "reference": None if reference is None else _json(dict(reference), sort_keys=False),
    }


def _story_columns(
    story: StoryPrompt | None,
) -> tuple[str, str | None, str | None, str | None]:
    """A prompt's kind and, for a story, its entity values (JSON), theme and story model."""
    if story is None:
        return "template", None, None, None
    pairs = {e: list(pair) for e, pair in story.entity_values.items()}
    model = story.story.model if story.story else None
    return "story", _json(pairs, sort_keys=False), story.theme, model


def _loaded(value: Any, field: str, row_id: Any) -> Any:
    """A JSON-valued column: JSON text, the value itself, or (typed Hugging Face rows)
    a list of ``{"entity": ..., ...}`` structs, read as a mapping by entity."""
    if isinstance(value, str):
        return loads(value, source=f"row {row_id}: field {field!r}")
    if isinstance(value, list) and all(isinstance(v, Mapping) and "entity" in v for v in value):
        if field == "entities":
            return {str(v["entity"]): v.get("variable") for v in value}
        return {str(v["entity"]): [v.get("true"), v.get("false")] for v in value}
    return value


@lru_cache(maxsize=64)
def _formula(dimacs: str) -> Formula:
    return parse_dimacs(dimacs)


def row_formula(row: Mapping[str, Any]) -> Formula:
    """The formula of a row, read from its ``dimacs`` column (names included).

    >>> row_formula({"dimacs": "c var 1 rain\\np cnf 1 1\\n1 0\\n"}).names
    ('rain',)
    """
    dimacs = row.get("dimacs")
    if not isinstance(dimacs, str):
        raise RecordError(f"row {row.get('id')}: field 'dimacs' must be a string")
    return _formula(dimacs)


def row_prompt(row: Mapping[str, Any]) -> AnyPrompt:
    """The scoring view of a row: its entity map and value words.

    >>> row_prompt({"entities": '{"A":"x1"}', "true_value": "on", "false_value": "off"})
    PromptView(entities={'A': 'x1'}, true_value='on', false_value='off')
    >>> typed = [{"entity": "A", "variable": "x1"}]  # a typed Hugging Face row
    >>> row_prompt({"entities": typed, "true_value": "on", "false_value": "off"}).entities
    {'A': 'x1'}
    """
    row_id = row.get("id")
    entities = _loaded(row.get("entities"), "entities", row_id)
    if not isinstance(entities, Mapping):
        raise RecordError(f"row {row_id}: field 'entities' must map entities to variables")
    values = _loaded(row.get("entity_values"), "entity_values", row_id)
    if values is not None:
        return _story_view(dict(entities), values, row_id)
    true_value, false_value = row.get("true_value"), row.get("false_value")
    if not isinstance(true_value, str) or not isinstance(false_value, str):
        raise RecordError(f"row {row_id}: a template row needs true_value and false_value")
    ask = row.get("question_type") or "decision"
    if ask == "decision":
        return PromptView(dict(entities), true_value, false_value)
    return PromptView(dict(entities), true_value, false_value, ask, _reference(row, ask))


def _story_view(entities: dict[str, Any], values: Any, row_id: Any) -> StoryPromptView:
    """The view of a story row: its value words per entity (pairs of two)."""
    if not isinstance(values, Mapping):
        raise RecordError(f"row {row_id}: field 'entity_values' must be an object")
    pairs: dict[str, tuple[str, str]] = {}
    for entity, pair in values.items():
        if isinstance(pair, list | tuple) and len(pair) == 2:
            pairs[str(entity)] = (str(pair[0]), str(pair[1]))
    return StoryPromptView(entities, pairs)


def _reference(row: Mapping[str, Any], ask: str) -> dict[str, Any]:
    """The reference answer of a row asking question type ``ask`` (not the decision)."""
    from twosat_formal.solve.questions import ASKED

    row_id = row.get("id")
    if ask not in ASKED:
        raise RecordError(f"row {row_id}: unknown question_type {ask!r}")
    reference = _loaded(row.get("reference"), "reference", row_id)
    if not isinstance(reference, Mapping):
        raise RecordError(f"row {row_id}: a {ask} row needs its reference (a JSON object)")
    return dict(reference)


def judge_row(row: Mapping[str, Any], text: str, finish_reason: str | None = None) -> Judgement:
    """Judge an answer to the prompt of ``row`` with :func:`twosat_formal.evaluate.scoring.score`.

    Parameters
    ----------
    row:
        A row as :func:`item_row` writes it (a Hugging Face row, an lm-eval doc, an
        inspect sample's metadata).
    text:
        The model's answer.
    finish_reason:
        ``"length"`` marks the answer truncated.
    """
    label = row.get("label")
    if label not in ANSWERS:
        raise RecordError(f"row {row.get('id')}: field 'label' must be SAT or UNSAT")
    return score(Response(text, finish_reason), row_prompt(row), row_formula(row), str(label))
