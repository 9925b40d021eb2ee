"""What ``certify`` finds: one failed check, one record's result, the dataset's report.

Examples
--------
>>> failure = CheckFailure("i-1", 3, "solve:z3", "the z3 backend finds SAT", "data.jsonl")
>>> str(failure)
'data.jsonl:3 i-1 [solve:z3] the z3 backend finds SAT'
>>> CertifyReport(("data.jsonl",), 4, 20, (failure,), 1.0, 0.5).failing_ids
['i-1']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from twosat_formal.errors import location

__all__ = ["CertifyReport", "CheckFailure", "RecordLog", "RecordResult", "dataset_source"]


def dataset_source(sources: Sequence[str]) -> str:
    """The ``source`` of a failure of the whole dataset of the files ``sources`` (an
    empty dataset, an id asked for that no record has): their names together, which
    the reports locate at every file, or at none (no file of that name exists).

    >>> dataset_source(["a.jsonl", "b.jsonl"])
    'a.jsonl, b.jsonl'
    """
    return ", ".join(sources)


@dataclass(frozen=True)
class CheckFailure:
    """One failed check: the record (id and line), the check's name and what went wrong."""

    id: str | None
    line: int | None
    check: str
    message: str
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The failure as a JSON object."""
        return {
            "id": self.id,
            "line": self.line,
            "source": self.source,
            "check": self.check,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = location(self.source, self.line)
        who = self.id if self.id is not None else "(no id)"
        return f"{where} {who} [{self.check}] {self.message}".strip()


@dataclass(frozen=True)
class RecordResult:
    """The outcome of certifying one record."""

    id: str | None
    line: int | None
    source: str | None
    kind: str
    checks: int
    failures: tuple[CheckFailure, ...]
    seconds: float
    z3_seconds: float
    fields: Mapping[str, int] = field(default_factory=dict)
    #: Passed on an earlier run with these exact bytes and dependencies (``--cache``):
    #: no check ran (see :mod:`twosat_formal.certify.cache`).
    cached: bool = False


@dataclass(frozen=True)
class CertifyReport:
    """The outcome of certifying a dataset."""

    sources: tuple[str, ...]
    records: int
    checks: int
    failures: tuple[CheckFailure, ...]
    seconds: float
    z3_seconds: float
    kinds: Mapping[str, int] = field(default_factory=dict)
    fields: Mapping[str, int] = field(default_factory=dict)
    #: Fields of story records that are attested (what the story model wrote, bound
    #: into the record's id by a hash), not checked: only ``--revalidate`` asks about them.
    story_attested: int = 0
    #: Records that passed on an earlier run and were not checked again (``--cache``).
    cached: int = 0

    @property
    def attested_line(self) -> str:
        """One plain sentence on the story fields taken on trust ("" without stories).

        >>> CertifyReport((), 1, 1, (), 0.0, 0.0, story_attested=6).attested_line
        '6 story fields are attested, not checked: bound to the record id by a hash; \
--revalidate asks a validator about them again'
        """
        if not self.story_attested:
            return ""
        return (
            f"{self.story_attested} story fields are attested, not checked: bound to the "
            "record id by a hash; --revalidate asks a validator about them again"
        )

    @property
    def ok(self) -> bool:
        """Whether every check of every record passed (and there was a record)."""
        return not self.failures and self.records > 0

    @property
    def failing_ids(self) -> list[str | None]:
        """The id of each failing record, in file order, ``None`` for one with no readable
        id: a record is its place (file and line), counted once however many of its
        checks fail and whatever its id (two records of one id are two); a failure of
        the whole dataset (no line: an empty dataset, an id asked for that no record has)
        is no record.

        >>> bad = [CheckFailure(None, n, "record", "invalid JSON", "d.jsonl") for n in (2, 3)]
        >>> empty = CheckFailure(None, None, "dataset", "no record", "d.jsonl")
        >>> CertifyReport(("d.jsonl",), 3, 0, (*bad, bad[0], empty), 0.0, 0.0).failing_ids
        [None, None]
        """
        seen: dict[tuple[str | None, int], str | None] = {}
        for failure in self.failures:
            if failure.line is not None:
                seen.setdefault((failure.source, failure.line), failure.id)
        return list(seen.values())

    @property
    def failed_records(self) -> int:
        """How many records failed (:attr:`failing_ids`), the count every report gives."""
        return len(self.failing_ids)

    @property
    def verdict(self) -> str:
        """One line on what failed: the failed records, then each failure of the whole
        dataset.

        >>> empty = CheckFailure(None, None, "dataset", "the dataset holds no record", "d")
        >>> CertifyReport(("d",), 0, 0, (empty,), 0.0, 0.0).verdict
        '0 of 0 records failed; the dataset holds no record'
        """
        whole = [
            f.message if f.id is None else f"{f.id}: {f.message}"
            for f in self.failures
            if f.line is None
        ]
        return "; ".join([f"{self.failed_records} of {self.records} records failed", *whole])

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON object (``certify --json``)."""
        return {
            "ok": self.ok,
            "sources": list(self.sources),
            "records": self.records,
            "kinds": dict(self.kinds),
            "fields": dict(self.fields),
            "story_fields_attested": self.story_attested,
            "checks": self.checks,
            "cached": self.cached,
            "failed_records": self.failed_records,
            "failures": [f.to_json() for f in self.failures],
            "seconds": round(self.seconds, 6),
            "z3_seconds": round(self.z3_seconds, 6),
        }


class RecordLog(Protocol):
    """Where :func:`~twosat_formal.certify.certify_files` hands each record's result, in
    file order, as it comes (a report that lists every record, such as JUnit's test
    cases, writes from it)."""

    def add(self, result: RecordResult) -> None:
        """Keep one record's result."""
