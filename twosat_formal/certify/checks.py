"""The checks of one record, by its kind: a table from kind to check (:data:`CHECKS`).

``instance`` (:func:`~twosat_formal.certify.instance.check_instance`), ``prompt`` and
``story`` (``record`` and ``roundtrip``: the text parses back to its instance's
formula), ``document`` (a one-line ``perturb`` document: its transforms replayed). A
new check of a kind is one more function called by its entry; a new kind is one more
entry of :data:`CHECKS` and of :func:`kind_of`.

Examples
--------
>>> from twosat_formal.make.generators import generate
>>> record = generate("backbone", clauses=8, seed=2).to_record()
>>> result = certify_task(Task(None, 1, record))
>>> result.kind, result.checks, result.failures
('instance', 8, ())
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from twosat_formal.certify.checker import (
    Checker,
    Derived,
    Task,
    _Stop,
    fail_with,
    rederive,
)
from twosat_formal.certify.formulas import instance_formula
from twosat_formal.certify.instance import check_instance
from twosat_formal.certify.results import CheckFailure, RecordResult
from twosat_formal.errors import RecordError

__all__ = ["CHECKS", "Task", "certify_record", "certify_task", "kind_of"]


def kind_of(record: Any) -> str:
    """The kind of a parsed record: ``story``, ``prompt``, ``document`` or ``instance``.

    >>> kind_of({"id": "p", "instance_id": "i", "text": "..."}), kind_of([1])
    ('prompt', 'instance')
    """
    from twosat_formal.verbalize.story.record import is_story_record

    if isinstance(record, Mapping):
        if is_story_record(record):
            return "story"
        if "instance_id" in record and "text" in record:
            return "prompt"
        if "base_dimacs" in record and "id" not in record:
            return "document"
    return "instance"


def _check_verbalization(c: Checker, task: Task, kind: str) -> None:
    """A prompt or story record: read it, then re-derive it from its instance's formula."""
    from twosat_formal.certify.rederive import rederive_prompt, rederive_story
    from twosat_formal.verbalize.prompts import PromptRecord
    from twosat_formal.verbalize.story.record import StoryRecord

    reader = PromptRecord.from_record if kind == "prompt" else StoryRecord.from_record
    record = c.run(
        "record",
        lambda: reader(task.record, line=task.line, source=task.source),
        stop=True,
    )
    c.id = record.id

    def again() -> dict[str, Any]:
        formula = instance_formula(task, record.instance_id)
        if kind == "story":
            return rederive_story(task.record, formula)
        # an edited instance's example JSON shows the entities of its unedited formula
        instance = task.instance if isinstance(task.instance, Mapping) else {}
        return rederive_prompt(task.record, formula, instance.get("transforms"))

    rederive(c, "roundtrip", kind, task.record, Derived.of(again))


def _check_prompt(c: Checker, task: Task) -> None:
    _check_verbalization(c, task, "prompt")


def _check_story(c: Checker, task: Task) -> None:
    _check_verbalization(c, task, "story")


def _check_document(c: Checker, task: Task) -> None:
    from twosat_formal.certify.rederive import rederive_document

    record = task.record
    rederive(c, "transforms", "document", record, Derived.of(lambda: rederive_document(record)))


#: The checks of each kind of record (:func:`kind_of`).
CHECKS: dict[str, Callable[[Checker, Task], None]] = {
    "prompt": _check_prompt,
    "story": _check_story,
    "document": _check_document,
    "instance": check_instance,
}


def _dataset_folder(source: str | None) -> Path:
    """The folder of the dataset file ``source`` (the working folder for stdin or none)."""
    if source is None or source.startswith("<"):
        return Path.cwd()
    return _parent(source)


@lru_cache(maxsize=64)
def _parent(path: str) -> Path:
    """``Path(path).parent``, made once per file of a dataset, not once per record.

    >>> _parent("data/d.jsonl") == Path("data")
    True
    """
    return Path(path).parent


def certify_task(task: Task) -> RecordResult:
    """Run every check of one record; its result (a base file is read from the dataset's
    own folder only)."""
    from twosat_formal.make.generators.symmetry import BASE_FOLDER

    token = BASE_FOLDER.set(_dataset_folder(task.source))
    try:
        return _certify_in_folder(task)
    finally:
        BASE_FOLDER.reset(token)


def _certify_in_folder(task: Task) -> RecordResult:
    start = time.perf_counter()
    record = task.record
    record_id = record.get("id") if isinstance(record, Mapping) else None
    c = Checker(record_id if isinstance(record_id, str) else None, task.line, task.source)
    kind = kind_of(record)
    try:
        if isinstance(record, RecordError):

            def malformed() -> None:
                raise record

            c.run("record", malformed, stop=True)
        if not isinstance(record, Mapping):
            c.run("record", fail_with("a record must be a JSON object"), stop=True)
        CHECKS[kind](c, task)
    except _Stop:
        pass
    return RecordResult(
        id=c.id,
        line=task.line,
        source=task.source,
        kind=kind if not isinstance(record, RecordError) else "malformed",
        checks=c.checks,
        failures=tuple(c.failures),
        seconds=time.perf_counter() - start,
        z3_seconds=c.z3_seconds,
        fields=dict(c.fields),
    )


def certify_record(
    record: Mapping[str, Any],
    *,
    line: int | None = None,
    source: str | None = None,
    base: Mapping[str, Any] | None = None,
    instance: Mapping[str, Any] | None = None,
    twin_source: Mapping[str, Any] | None = None,
) -> list[CheckFailure]:
    """Certify one record; the failed checks (empty when it passes).

    Parameters
    ----------
    record:
        An instance record, a prompt record, a story record or a ``perturb`` document.
    line, source:
        Where the record was read (shown in failures).
    base:
        For a derived instance, its root's record (else the root is regenerated).
    instance:
        For a prompt or story record, its instance's record.
    twin_source:
        For a minimal twin, its source's record.

    Examples
    --------
    >>> from twosat_formal.make.generators import generate
    >>> record = generate("backbone", clauses=8, seed=2).to_record()
    >>> certify_record(record)
    []
    >>> record["label"] = "UNSAT"
    >>> sorted({f.check for f in certify_record(record)})
    ['certificate', 'regenerate', 'solve:pysat', 'solve:scc', 'solve:z3']
    """
    return list(certify_task(Task(source, line, record, base, instance, twin_source)).failures)
