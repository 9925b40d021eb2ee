"""The items an evaluation asks: prompts (template or story) with their formulas and labels.

A prompt file holds template prompt records and/or story records; :func:`load_items`
reads them and joins each to its instance's formula and label (from a dataset, or
read back from the prompt and labelled by the solver).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.evaluate.store import PromptRow
from twosat_formal.io.jsonl import read_json_lines, source_name
from twosat_formal.verbalize.prompts import PromptRecord
from twosat_formal.verbalize.story.record import StoryRecord, is_story_record

__all__ = [
    "STORY_TEMPLATE_PREFIX",
    "EvalItem",
    "EvalPrompt",
    "PromptRecordLike",
    "StoryPrompt",
    "item_from_story",
    "item_from_text",
    "load_items",
    "read_eval_prompts",
]

#: The template of a story prompt is this prefix and the story's theme.
STORY_TEMPLATE_PREFIX = "story:"


@dataclass(frozen=True)
class EvalPrompt:
    """A plain template prompt (tests, notebooks): its identity, template and full text
    (exactly as the model reads it), and what scoring reads, its entity map and value
    words.

    >>> EvalPrompt("p", "i", "logic", "text", {"A": 1}, "true", "false").template
    'logic'
    """

    id: str
    instance_id: str
    template: str
    text: str
    entities: Mapping[str, Any]
    true_value: str
    false_value: str
    seed: int | None = None


#: A template prompt the runner asks: a prompt record (as ``prompts`` and ``verbalize``
#: write them) or a plain :class:`EvalPrompt`.
PromptRecordLike = PromptRecord | EvalPrompt


@dataclass(frozen=True)
class StoryPrompt:
    """A story record as a prompt to ask (App. G.2, story variant).

    ``template`` is ``story:<theme>``; ``entity_values`` maps each entity to its own
    ``(true description, false description)``, which the witness must use. ``story``
    is the whole record (its recovered formula, its validation history).

    >>> from twosat_formal.verbalize.story.record import StoryRecord, story_id
    >>> record = StoryRecord.create(id=story_id("i", "heist", "m", 0), instance_id="i",
    ...     theme="heist", model="m", seed=0, entities={"the vault": "x1"}, intro="Intro.",
    ...     clues=(), story="Intro.", text="TEXT", recovered=())
    >>> prompt = StoryPrompt.from_story(record)
    >>> prompt.template, prompt.entity_values
    ('story:heist', {'the vault': ('is open', 'is sealed')})
    """

    id: str
    instance_id: str
    template: str
    text: str
    entities: Mapping[str, Any]
    entity_values: Mapping[str, tuple[str, str]]
    seed: int | None = None
    story: StoryRecord | None = field(default=None, compare=False, repr=False)

    @property
    def theme(self) -> str:
        """The story's theme (the template without :data:`STORY_TEMPLATE_PREFIX`)."""
        return self.template.removeprefix(STORY_TEMPLATE_PREFIX)

    @classmethod
    def from_story(cls, record: StoryRecord) -> StoryPrompt:
        """The prompt of a story record: its full prompt text and per-entity values."""
        return cls(
            id=record.id,
            instance_id=record.instance_id,
            template=STORY_TEMPLATE_PREFIX + record.theme,
            text=record.text,
            entities=dict(record.entities),
            entity_values=dict(record.descriptions),
            seed=record.seed,
            story=record,
        )


@dataclass(frozen=True)
class EvalItem:
    """One prompt to ask, with what scoring needs: the formula and its label.

    ``prompt`` is a template prompt (:class:`PromptRecordLike`) or a story prompt
    (:class:`StoryPrompt`). ``instance`` is the instance's JSON record, kept in the
    store for reports.
    """

    prompt: PromptRecordLike | StoryPrompt
    formula: Formula
    label: str
    instance: Mapping[str, Any] | None = None

    def prompt_row(self) -> PromptRow:
        """What the run store keeps of this item's prompt."""
        p = self.prompt
        return PromptRow(
            prompt_id=p.id,
            instance_id=p.instance_id,
            template=p.template,
            label=self.label,
            text=p.text,
            entities=dict(p.entities),
            true_value=getattr(p, "true_value", None),
            false_value=getattr(p, "false_value", None),
            seed=getattr(p, "seed", None),
        )


def item_from_story(prompt: StoryPrompt) -> EvalItem:
    """An item whose formula is the story's recovered formula, labelled by the solver.

    The recovered formula is what the validator read back from each clue (or what
    each fallback sentence says), one clause per source clause, over the variables
    of the entity map in order; the story's round-trip proof, re-checked by
    ``certify``, is what makes it the instance's formula. The label comes from
    :func:`twosat_formal.solve.solve` with its certificate checked.

    Raises
    ------
    RecordError
        The prompt carries no story record.

    Examples
    --------
    >>> from twosat_formal.verbalize.story.record import StoryRecord, story_id
    >>> record = StoryRecord.create(id=story_id("i", "heist", "m", 0), instance_id="i",
    ...     theme="heist", model="m", seed=0, entities={"the vault": "v", "the alarm": "w"},
    ...     intro="I.", clues=(), story="I.", text="T", recovered=(("v", "~w"), ("w",)))
    >>> item = item_from_story(StoryPrompt.from_story(record))
    >>> item.label, item.formula.names, item.formula.num_clauses
    ('SAT', ('v', 'w'), 2)
    """
    from twosat_formal.solve import solve

    if prompt.story is None:
        raise RecordError(f"story prompt {prompt.id} carries no story record")
    names = [str(name) for name in prompt.entities.values()]
    formula = Formula.from_named(prompt.story.recovered, variables=names)
    if formula.num_vars != len(names):
        raise RecordError(
            f"story {prompt.id}: the recovered formula names variables outside its entity map"
        )
    return EvalItem(prompt, formula, solve(formula, check=True).status)


def item_from_text(prompt: PromptRecordLike) -> EvalItem:
    """An item whose formula is read back from the prompt text and labelled by the solver.

    The back-parser (:func:`twosat_formal.verbalize.backparse.backparse`) reads the
    template verbalization at the head of the prompt with the record's entities;
    the record's round-trip proof is what makes that formula the instance's. The
    label comes from :func:`twosat_formal.solve.solve` with its certificate checked.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.verbalize import verbalize
    >>> record = verbalize(Formula.from_named([["p"], ["~p", "q"]]), "door").record("i", None)
    >>> item = item_from_text(record)
    >>> item.label, item.formula.names
    ('SAT', ('p', 'q'))
    """
    from twosat_formal.solve import solve
    from twosat_formal.verbalize.backparse import backparse

    entities = list(prompt.entities)
    parsed = backparse(prompt.text, prompt.template, entities=entities, source=prompt.id)
    names = [str(prompt.entities[e]) for e in entities]
    formula = parsed.formula.with_names(names)
    return EvalItem(prompt, formula, solve(formula, check=True).status)


def read_eval_prompts(path: str | Path) -> Iterator[PromptRecord | StoryPrompt]:
    """The prompts of a JSON Lines file (``"-"``: stdin), lazily; blank lines skipped.

    A line is a template prompt record (:class:`~twosat_formal.verbalize.prompts.PromptRecord`,
    as ``prompts`` and ``verbalize`` write them) or a story record
    (``"kind": "story"``, as ``verbalize --story`` writes them), read as a
    :class:`StoryPrompt`; one file may hold both.

    Raises
    ------
    RecordError
        On the first line that is not valid JSON or not a valid record (with its line
        number).

    Examples
    --------
    >>> import tempfile, os
    >>> from twosat_formal.verbalize.prompts import write_prompts
    >>> rec = PromptRecord.create("i1", "door", "T", {"door 1": "a"}, "open", "closed", 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "p.jsonl")
    ...     _ = write_prompts([rec], path)
    ...     [r == rec for r in read_eval_prompts(path)]
    [True]
    """
    for line in read_json_lines(path):
        if is_story_record(line.value):
            story = StoryRecord.from_record(line.value, line=line.number, source=line.source)
            yield StoryPrompt.from_story(story)
        else:
            yield PromptRecord.from_record(line.value, line=line.number, source=line.source)


def load_items(
    prompts: str | Path,
    *,
    dataset: str | Path | None = None,
    limit: int | None = None,
    shard: tuple[int, int] | None = None,
) -> list[EvalItem]:
    """The items of a prompt file, with formulas and labels.

    Parameters
    ----------
    prompts:
        JSON Lines prompt records and/or story records (:func:`read_eval_prompts`).
    dataset:
        The JSON Lines instances the prompts verbalize
        (:func:`twosat_formal.io.instance.read_instances`): formulas, labels and the
        metadata reports need. Without it, each formula is read back from its prompt
        (:func:`item_from_text`), or is a story's recovered formula
        (:func:`item_from_story`), and is labelled by the solver.
    limit:
        Keep the first ``limit`` prompts only.
    shard:
        ``(i, n)``: keep block ``i`` of ``n`` contiguous blocks of those prompts
        (:func:`twosat_formal._util.executors.shard_range`); the shards' stores merged
        (``store merge``) hold what one run stores.

    Raises
    ------
    RecordError
        A prompt that names an instance the dataset lacks.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.io.instance import Instance, write_instances
    >>> from twosat_formal.verbalize.prompts import write_prompts
    >>> from twosat_formal.verbalize import verbalize
    >>> formula = Formula.from_named([["p", "~q"], ["q"]])
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_prompts([verbalize(formula, "room").record("i1", None)], folder / "p.jsonl")
    >>> from twosat_formal.solve import solve
    >>> cert = solve(formula).to_json(formula)
    >>> _ = write_instances([Instance("i1", "demo", {}, 0, formula, "SAT", cert, {}, {})],
    ...                     folder / "d.jsonl")
    >>> [item.label for item in load_items(folder / "p.jsonl", dataset=folder / "d.jsonl")]
    ['SAT']
    """
    if limit is not None and limit < 0:
        raise ConfigError(f"limit must be >= 0, got {limit}", parameter="limit", valid=">= 0")
    records: list[PromptRecord | StoryPrompt] = []
    for record in read_eval_prompts(prompts):  # the line after the limit is read too
        if limit is not None and len(records) >= limit:
            break
        records.append(record)
    if shard is not None:
        from twosat_formal._util.executors import shard_range

        block = shard_range(len(records), shard)
        records = records[block.start : block.stop]
    if dataset is None:
        return [
            item_from_story(record) if isinstance(record, StoryPrompt) else item_from_text(record)
            for record in records
        ]
    return _dataset_items(records, dataset, prompts)


def _dataset_items(
    records: Sequence[PromptRecord | StoryPrompt], dataset: str | Path, prompts: str | Path
) -> list[EvalItem]:
    """The items of ``records`` with the formulas and labels of their instances in
    ``dataset`` (:class:`RecordError` for a prompt whose instance it lacks)."""
    from twosat_formal.io.instance import read_instances

    wanted = {record.instance_id for record in records}
    instances = {inst.id: inst for inst in read_instances(dataset) if inst.id in wanted}
    items = []
    for record in records:
        instance = instances.get(record.instance_id)
        if instance is None:
            raise RecordError(
                f"prompt {record.id} verbalizes instance {record.instance_id!r}, "
                f"which is not in {source_name(dataset)}",
                source=source_name(prompts),
            )
        items.append(EvalItem(record, instance.formula, instance.label, instance.to_record()))
    return items
