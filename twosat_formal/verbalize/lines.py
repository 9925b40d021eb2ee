"""A dataset verbalized as prompt records (JSON lines), streamed through an executor.

Each instance's prompts depend only on the instance, the template and the seed, so any
executor writes the same bytes (but for the measured ``roundtrip.time_s``); a shard
is a contiguous block of the instances, and shards ``0..n-1`` concatenated are the
whole output.

Examples
--------
>>> import json, os, tempfile
>>> from twosat_formal.make.generators import Dataset, DatasetConfig
>>> from twosat_formal.io.instance import write_instances
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "d.jsonl")
...     _ = write_instances(Dataset(DatasetConfig("backbone", clauses=6), size=3), path)
...     whole = list(prompt_lines(path, ["logic", "door"], seed=1))
...     parts = [list(prompt_lines(path, ["logic", "door"], seed=1, shard=(i, 2))) for i in (0, 1)]
>>> def texts(lines):
...     return [(json.loads(line)["id"], json.loads(line)["text"]) for line in lines]
>>> len(whole), texts(parts[0] + parts[1]) == texts(whole)
(6, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from itertools import islice
from pathlib import Path

from twosat_formal._util.executors import Executor, LocalExecutor, shard_range
from twosat_formal.errors import RecordError
from twosat_formal.io.inputs import bounded_lines
from twosat_formal.io.instance import Instance
from twosat_formal.io.jsonl import RawLine, json_line, parse_raw, raw_lines, refuse_empty
from twosat_formal.verbalize import example_formula, prompt_record
from twosat_formal.verbalize.prompts import PromptRecord

__all__ = ["count_records", "instance_prompt_lines", "instance_prompts", "prompt_lines"]


def instance_prompt_lines(
    templates: Sequence[str],
    seed: int,
    line: RawLine,
    *,
    ask_cycle: bool = False,
    asks: Sequence[str] | None = None,
) -> list[str]:
    """The prompt record lines of one dataset line, one per template and question type.

    ``ask_cycle`` adds the contradiction-chain instruction (``verbalize --ask-cycle``);
    ``asks`` names the question types instead (:func:`instance_prompts`).
    An edited instance's example JSON shows its base's entities
    (:func:`~twosat_formal.verbalize.example_formula`).
    """
    instance = Instance.from_record(parse_raw(line).value, line=line.number, source=line.source)
    records = instance_prompts(instance, templates, seed, ask_cycle=ask_cycle, asks=asks)
    return [json_line(record.to_record()) for record in records]


def instance_prompts(
    instance: Instance,
    templates: Sequence[str],
    seed: int,
    *,
    ask_cycle: bool = False,
    asks: Sequence[str] | None = None,
) -> list[PromptRecord]:
    """The prompt records of one instance, all with ``seed``: per template, per question type.

    ``asks`` lists question types (:data:`~twosat_formal.solve.questions.QUESTION_TYPES`;
    default ``("chain",)`` with ``ask_cycle``, else ``("decision",)``); a type that does
    not apply to the instance (:func:`~twosat_formal.solve.questions.reference.applies`) is
    left out. An edited instance's example JSON shows its base's entities
    (:func:`~twosat_formal.verbalize.example_formula`), worked out once for every template.

    >>> from twosat_formal.make.generators import generate
    >>> records = instance_prompts(generate("backbone", seed=1), ["logic", "door"], seed=5)
    >>> [(r.template, r.seed) for r in records]
    [('logic', 5), ('door', 5)]
    """
    from twosat_formal.solve.questions.reference import applies

    if asks is None:
        asks = ("chain",) if ask_cycle else ("decision",)
    kinds = [kind for kind in asks if applies(kind, instance.formula, instance.label)]
    example = example_formula(instance.formula, instance.transforms)
    return [
        prompt_record(
            instance.formula,
            name,
            instance_id=instance.id,
            seed=seed,
            ask_cycle=kind == "chain",
            example_from=example,
            ask="decision" if kind == "chain" else kind,
        )
        for name in templates
        for kind in kinds
    ]


def count_records(path: str | Path) -> int:
    """The number of non-blank lines of a JSON Lines file (one cheap pass).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "d.jsonl")
    ...     _ = open(path, "w").write('{"a": 1}\\n\\n{"b": 2}\\n')
    ...     count_records(path)
    2
    """
    name = str(path)
    refuse_empty(path, name)
    with open(path, "rb") as stream:
        return sum(1 for text in bounded_lines(stream, name, RecordError) if text.strip())


def prompt_lines(
    path: str | Path,
    templates: Sequence[str],
    *,
    seed: int = 0,
    executor: Executor | None = None,
    shard: tuple[int, int] | None = None,
    source: str | None = None,
    ask_cycle: bool = False,
    asks: Sequence[str] | None = None,
) -> Iterator[str]:
    """The prompt records of every instance of a dataset file (or of one shard), in order.

    The file is read a line at a time, so memory does not grow with its size.
    """
    lines: Iterator[RawLine] = raw_lines(path, source=source)
    if shard is not None:
        block = shard_range(count_records(path), shard)
        lines = islice(lines, block.start, block.stop)
    work = partial(
        instance_prompt_lines,
        tuple(templates),
        seed,
        ask_cycle=ask_cycle,
        asks=None if asks is None else tuple(asks),
    )
    for records in (executor or LocalExecutor()).map(work, lines):
        yield from records
