"""Certify a dataset: its index (:mod:`~twosat_formal.certify.index`), each record's
checks on an executor (:mod:`~twosat_formal.certify.checks`), and the tally of the
results into one :class:`~twosat_formal.certify.results.CertifyReport`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal._util.executors import Executor, LocalExecutor, ProcessExecutor
from twosat_formal.certify.checks import certify_task
from twosat_formal.certify.index import Index, Item, count_records, task_of
from twosat_formal.certify.results import (
    CertifyReport,
    CheckFailure,
    RecordLog,
    RecordResult,
    dataset_source,
)
from twosat_formal.core.fieldclass import ATTESTED, CLASSES
from twosat_formal.errors import ConfigError, TwoSatFormalError

if TYPE_CHECKING:
    from twosat_formal.certify.cache import CertifyCache

__all__ = [
    "SMALL_DATASET",
    "certify_file",
    "certify_files",
    "check_item",
    "revalidate_stories",
]

#: Below this many records ``jobs`` alone does not start worker processes: starting
#: them (each imports the solvers) costs more than checking a small dataset.
SMALL_DATASET = 64

#: What the checks import, imported by each worker as it starts (beside the reading).
_PRELOAD = (
    "twosat_formal.io.instance",
    "twosat_formal.solve",
    "twosat_formal.solve.measures_check",
    "twosat_formal.certify.rederive",
    "twosat_formal.verbalize.prompts",
    "twosat_formal.verbalize.roundtrip",
    "twosat_formal.verbalize.story.record",
    "twosat_formal.make.perturb",
    "twosat_formal.make.edits",
    "twosat_formal.make.generators",
    "pysat.solvers",
    "z3",
)


def _preload() -> None:
    """Import what the checks need (a worker's start-up; a module missing is no error here)."""
    import importlib
    from contextlib import suppress

    for name in _PRELOAD:
        with suppress(ImportError):  # the check that needs it reports it
            importlib.import_module(name)


def check_item(item: Item | RecordResult) -> RecordResult:
    """Certify one record as the index read it: the work each worker does (a result
    already known, a record that passed before as it is, ``--cache``, is answered as it is)."""
    if isinstance(item, RecordResult):
        return item
    return certify_task(task_of(item))


def _results(index: Index, runner: Executor, cache: CertifyCache | None) -> Iterator[RecordResult]:
    """Each record's result, in file order, the records checked on ``runner``
    (``cache``: the lines that passed before are marked, and this run's passes kept)."""
    items = index.items()
    if cache is None:
        return runner.map(check_item, items)
    return cache.map(runner, check_item, items)


@dataclass
class _Tally:
    """What the records' results add up to, as they come."""

    failures: list[CheckFailure] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    fields: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLASSES, 0))
    #: The records whose results came (a count: nothing is kept per record).
    records: int = 0
    checks: int = 0
    z3_seconds: float = 0.0
    story_attested: int = 0
    cached: int = 0

    def add(self, result: RecordResult) -> None:
        """Add one record's result."""
        self.cached += result.cached
        self.failures.extend(result.failures)
        self.kinds[result.kind] = self.kinds.get(result.kind, 0) + 1
        for cls, n in result.fields.items():
            self.fields[cls] += n
        if result.kind == "story":
            self.story_attested += result.fields.get(ATTESTED, 0)
        self.records += 1
        self.checks += result.checks
        self.z3_seconds += result.z3_seconds


def _tally(
    index: Index,
    executor: Executor,
    progress: Callable[[int, int], None] | None,
    cache: CertifyCache | None = None,
    records: RecordLog | None = None,
) -> _Tally:
    """Certify the records of ``index`` on ``executor`` and add up their results."""
    tally = _Tally()
    tally.failures.extend(index.duplicates)
    tally.checks += len(index.duplicates)
    for result in _results(index, executor, cache):
        if records is not None:
            records.add(result)
        tally.add(result)
        if progress is not None:
            progress(tally.records, index.records)
    return tally


def _report(sources: Sequence[str], tally: _Tally, start: float) -> CertifyReport:
    """The report of the run that read the files named ``sources`` (:attr:`Index.paths`)."""
    failures = tally.failures
    failures.sort(key=lambda f: (f.source or "", f.line or 0))
    if not tally.records:
        failures.append(
            CheckFailure(
                None,
                None,
                "dataset",
                "the dataset holds no record: an empty dataset certifies nothing",
                dataset_source(sources),
            )
        )
    return CertifyReport(
        sources=tuple(sources),
        records=tally.records,
        checks=tally.checks,
        failures=tuple(failures),
        seconds=time.perf_counter() - start,
        z3_seconds=tally.z3_seconds,
        kinds=tally.kinds,
        fields=tally.fields,
        story_attested=tally.story_attested,
        cached=tally.cached,
    )


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """Keep the objects alive before a run out of the garbage collector's passes while
    it runs (:func:`gc.freeze`), and give them back after (:func:`gc.unfreeze`).

    A run allocates many short-lived objects, so the collector runs often, and each of
    its full passes would walk every module, cache and solver object alive before the
    run, which the run never frees (about 2 % of a long run's time). Nothing is frozen
    when something else froze objects already (their owner unfreezes them).
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def certify_files(
    paths: Sequence[str | Path],
    *,
    jobs: int = 1,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    only: Collection[str] | None = None,
    cache: CertifyCache | None = None,
    records: RecordLog | None = None,
) -> CertifyReport:
    """Certify the records of several JSON Lines files as one dataset.

    Records may refer to each other across the files (a prompt to its instance, a
    derived instance to its root). Each line is read and parsed once, by the index
    (:class:`~twosat_formal.certify.index.Index`), which keeps only where each id is,
    so memory does not grow with the records. The checks run on ``executor`` (default:
    ``jobs`` worker processes, or this process when ``jobs`` is 1 or the dataset has
    fewer than :data:`SMALL_DATASET` records), in file order; ``progress`` is
    called with ``(records done, records in all)`` after each record, and
    each record's result is added to ``records`` (a report writer's log of the records).
    With ``cache`` (:class:`~twosat_formal.certify.cache.CertifyCache`), a record that
    passed before with the same bytes, dependencies and tool is not checked again, and
    the cache is saved with this run's passes at the end.

    ``only`` restricts the checks to the records with these ids and every record they
    name (a prompt's instance, a derived instance's root, a twin's source), and so on:
    the records a judgement about them depends on. An id of ``only`` that no record
    has, or that two records have, is a failure.

    Raises
    ------
    ConfigError
        If ``jobs`` is below 1.
    OSError
        If a file cannot be read.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"jobs must be at least 1, not {jobs!r}", parameter="jobs", valid=">= 1")
    start = time.perf_counter()
    owned = executor is None
    if executor is None:
        parallel = jobs > 1 and count_records([str(p) for p in paths]) >= SMALL_DATASET
        executor = ProcessExecutor(jobs) if parallel else LocalExecutor()
    try:
        with _frozen_heap():
            executor.start(_preload)  # the workers start up while the index is read
            with Index(paths, only=only, runner=executor) as index:
                tally = _tally(index, executor, progress, cache, records)
                names = index.paths  # a copy of standard input is <stdin>
    finally:
        if owned:
            executor.close()
    report = _report(names, tally, start)
    if cache is not None:
        cache.save()
    return report


def certify_file(path: str | Path, *, jobs: int = 1) -> CertifyReport:
    """Certify every record of a JSON Lines dataset (see :mod:`twosat_formal.certify`).

    Parameters
    ----------
    path:
        The dataset file.
    jobs:
        Number of worker processes (1: check in this process).

    Returns
    -------
    CertifyReport
        Records, checks, failures (each naming the record's id, line and check),
        total seconds and the seconds spent in Z3.
    """
    return certify_files([path], jobs=jobs)


def revalidate_stories(paths: Sequence[str | Path], model: Any) -> list[CheckFailure]:
    """Ask ``model`` again about every story record of the dataset (``--revalidate``).

    Each story whose instance is in the dataset is checked by
    :func:`twosat_formal.verbalize.story.revalidate.revalidate_story`; every problem is a
    failure of the check ``revalidate``, naming the record. The model is closed after.
    """
    import asyncio

    from twosat_formal.io.instance import Instance
    from twosat_formal.verbalize.story.record import StoryRecord, is_story_record
    from twosat_formal.verbalize.story.revalidate import revalidate_story

    async def run(index: Index) -> list[CheckFailure]:
        failures: list[CheckFailure] = []
        try:
            for task in map(task_of, index.items()):
                if not is_story_record(task.record) or task.instance is None:
                    continue
                try:
                    story = StoryRecord.from_record(task.record)
                    formula = Instance.from_record(task.instance).formula
                except TwoSatFormalError:
                    continue  # the ordinary checks report it
                for problem in await revalidate_story(story, formula, model):
                    failures.append(
                        CheckFailure(story.id, task.line, "revalidate", problem, task.source)
                    )
        finally:
            await model.aclose()
        return failures

    with Index(paths) as index:
        return asyncio.run(run(index))
