"""``certify --format``: the report in the forms CI systems read.

``json``
    :meth:`~twosat_formal.certify.CertifyReport.to_json`, indented (``--json``).
``junit``
    JUnit XML: one ``<testsuite>`` per dataset file, one ``<testcase>`` per record
    (named by its id, with its file and line), and for a failing record one
    ``<failure>`` whose ``type`` is its first failing check and whose text lists each
    failing check with its message. A failure that belongs to no record (an empty
    dataset) is a test case of its own, named by its check.
``sarif``
    SARIF 2.1.0: one run of the tool ``twosat-formal certify``, one rule per check
    (``transform[2]:flip`` is the rule ``transform:flip``), and each failure a result
    of level ``error`` at its file and line; a relative path is relative to
    ``%SRCROOT%`` (the repository, for code scanning).
``github``
    GitHub workflow commands: one ``::error file=…,line=…,title=…::message`` per
    failure, escaped as the runner reads them, then a ``::notice::`` with the totals.

The text report (a table and ``FAIL`` lines) is the command line's own.

Every report is UTF-8 text: the bytes of a file name that is not UTF-8 (held as lone
surrogates, as Python reads such names) are written as U+FFFD in names and messages
(:func:`printable`), and as their percent-encoded bytes in a SARIF log's URIs.

Examples
--------
>>> from twosat_formal.certify import CertifyReport, CheckFailure
>>> failure = CheckFailure("i-1", 3, "solve:z3", "the z3 backend finds SAT", "data.jsonl")
>>> report = CertifyReport(("data.jsonl",), 4, 20, (failure,), 1.0, 0.5)
>>> print(github_annotations(report))
::error file=data.jsonl,line=3,title=certify solve%3Az3 (i-1)::the z3 backend finds SAT
::notice title=certify::4 records, 1 failed (0 from the cache)
>>> sarif_log(report)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
{'startLine': 3}
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from twosat_formal._util.closing import Closing
from twosat_formal.certify.results import CertifyReport, CheckFailure, RecordResult, dataset_source

__all__ = [
    "FORMATS",
    "JunitLog",
    "github_annotations",
    "printable",
    "sarif_log",
    "write_report",
]

#: The report formats of ``certify --format`` (``text`` is the command line's own).
FORMATS = ("text", "json", "junit", "sarif", "github")

#: The schema SARIF logs name.
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
#: What each family of checks checks (the rules of a SARIF log).
_RULES = {
    "record": "The line is a record: JSON, its fields present and typed, its id unique.",
    "2-sat": "The formula is a 2-CNF.",
    "solve": "A solver backend agrees with the stored label.",
    "certificate": "The stored model or contradiction cycle certifies the label.",
    "regenerate": "A root record is drawn again from its family, params and seed.",
    "transform": "A transform step is re-run from its parameters and its proof re-checked.",
    "transforms": "The replayed transform chain gives exactly the record's formula.",
    "twin": "A minimal twin is one clause from its source, with the opposite label.",
    "roundtrip": "A prompt or story parses back to its instance's formula.",
    "revalidate": "A validator model confirms a story's attested text.",
    "dataset": "The dataset holds at least one record.",
}


def printable(text: str) -> str:
    r"""``text`` as UTF-8 can hold it: each lone surrogate (a byte of a file name that is
    not UTF-8) becomes U+FFFD.

    >>> import os
    >>> printable(os.fsdecode(b"data\xff.jsonl")) == "data\ufffd.jsonl"
    True
    """
    return re.sub(r"[\ud800-\udfff]", "\ufffd", text)


def _printable_json(value: Any) -> Any:
    """``value`` (JSON data) with :func:`printable` strings, keys too."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(key): _printable_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_printable_json(item) for item in value]
    return value


def _rule(check: str) -> str:
    """The rule of a check: its name without a step number (``transform[2]:flip``)."""
    return re.sub(r"\[\d+\]", "", check)


def _family(check: str) -> str:
    return _rule(check).split(":", 1)[0]


# -- GitHub workflow commands ----------------------------------------------------------------


def _data(text: str) -> str:
    return printable(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _files(failure: CheckFailure, report: CertifyReport) -> list[str]:
    """The files a failure is located in: its own, or every file of the dataset for a
    failure of the whole dataset (an empty one, an id asked for that no record has),
    whose source names the files together (:func:`dataset_source`), no file of its own."""
    if failure.source is None:
        return []
    if len(report.sources) > 1 and failure.source == dataset_source(report.sources):
        return list(report.sources)
    return [failure.source]


def github_annotations(report: CertifyReport) -> str:
    """The report as GitHub workflow commands: an ``::error`` per failure, then totals.

    A failure of the whole dataset of several files is an annotation of the run (no
    ``file``)."""
    lines = []
    for failure in report.failures:
        where = []
        files = _files(failure, report)
        if len(files) == 1:
            where.append(f"file={_property(_posix(files[0]))}")
        if failure.line is not None:
            where.append(f"line={failure.line}")
        who = failure.id if failure.id is not None else "no id"
        where.append(f"title={_property(f'certify {failure.check} ({who})')}")
        lines.append(f"::error {','.join(where)}::{_data(failure.message)}")
    failed = report.failed_records
    summary = f"{report.records} records, {failed} failed ({report.cached} from the cache)"
    lines.append(f"::notice title=certify::{_data(summary)}")
    return "\n".join(lines)


# -- SARIF 2.1.0 -----------------------------------------------------------------------------


def _posix(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path


def _artifact(source: str) -> dict[str, Any]:
    path = Path(source)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    # the name's own bytes, percent-encoded (a name that is not UTF-8 included)
    uri = quote(os.fsencode(_posix(os.path.normpath(source))))
    return {"uri": uri, "uriBaseId": "%SRCROOT%"}


def _sarif_result(failure: CheckFailure, rules: dict[str, int], files: list[str]) -> dict[str, Any]:
    """The result of a failure, located in ``files`` (:func:`_files`)."""
    rule = _rule(failure.check)
    text = failure.message if rule == failure.check else f"[{failure.check}] {failure.message}"
    if failure.id is not None:
        text = f"{failure.id}: {text}"
    result: dict[str, Any] = {
        "ruleId": rule,
        "ruleIndex": rules[rule],
        "level": "error",
        "message": {"text": text},
    }
    locations = []
    for file in files:
        location: dict[str, Any] = {"artifactLocation": _artifact(file)}
        if failure.line is not None:
            location["region"] = {"startLine": failure.line}
        locations.append({"physicalLocation": location})
    if locations:
        result["locations"] = locations
    if failure.id is not None:
        result["partialFingerprints"] = {"recordId/v1": failure.id}
    return result


def sarif_log(report: CertifyReport) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log: one rule per check, one result per failure."""
    from twosat_formal.core.provenance import tool_version

    rules: dict[str, int] = {}
    for failure in report.failures:
        rules.setdefault(_rule(failure.check), len(rules))
    driver = {
        "name": "twosat-formal certify",
        "semanticVersion": tool_version(),
        "rules": [
            {
                "id": rule,
                "name": _family(rule),
                "shortDescription": {"text": _RULES.get(_family(rule), f"The check {rule}.")},
                "defaultConfiguration": {"level": "error"},
            }
            for rule in rules
        ],
    }
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "invocations": [
            {
                "executionSuccessful": True,
                "exitCode": 0 if report.ok else 1,
                "properties": {
                    "records": report.records,
                    "checks": report.checks,
                    "cached": report.cached,
                    "failedRecords": report.failed_records,
                },
            }
        ],
        "artifacts": [{"location": _artifact(source)} for source in report.sources],
        "results": [
            _sarif_result(failure, rules, _files(failure, report)) for failure in report.failures
        ],
    }
    if any(not Path(source).is_absolute() for source in report.sources):
        root = Path.cwd().as_uri().rstrip("/") + "/"
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


# -- JUnit XML -------------------------------------------------------------------------------


class JunitLog(Closing):
    """The records of a run, kept on disk as they come, for a JUnit report.

    A :class:`~twosat_formal.certify.RecordLog`: each result is one short line of a
    temporary file (its file, line, id, kind, seconds, whether from the cache), so
    memory does not grow with the records; :meth:`write` reads them back. Where the
    records of one dataset file start in the log is kept too (one entry each time the
    file changes: once per file when they come file by file), so that each suite reads
    its own lines only and the report takes one reading of the log, however many files.
    A with-block (or :meth:`close`) removes the file.
    """

    def __init__(self) -> None:
        self._file: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._sources: dict[str, int] = {}
        #: per file (its number), its runs of lines: [where the run starts, lines]
        self._runs: dict[int, list[list[int]]] = {}
        self._last: int | None = None

    def add(self, result: RecordResult) -> None:
        """Keep one record's result."""
        source = self._sources.setdefault(result.source or "", len(self._sources))
        if source != self._last:
            self._runs.setdefault(source, []).append([self._file.tell(), 0])
            self._last = source
        self._runs[source][-1][1] += 1
        row = [source, result.line, result.id, result.kind, result.seconds, result.cached]
        self._file.write(json.dumps(row) + "\n")

    def close(self) -> None:
        """Remove the temporary file."""
        self._file.close()

    def rows(self) -> Iterator[tuple[str, int | None, str | None, str, float, bool]]:
        """The results kept, in order: ``(file, line, id, kind, seconds, cached)``."""
        names = {number: name for name, number in self._sources.items()}
        self._file.seek(0)
        for text in self._file:
            source, line, key, kind, seconds, cached = json.loads(text)
            yield names[source], line, key, kind, seconds, cached
        self._file.seek(0, os.SEEK_END)

    def write(self, report: CertifyReport, stream: IO[str]) -> None:
        """Write the JUnit XML of ``report`` (whose records this log kept) to ``stream``.

        A suite's header holds its counts, so a first pass over the log adds them up and
        each suite's test cases are then written as they are read back, never all held.
        """
        by_place: dict[tuple[str, int | None], list[CheckFailure]] = {}
        for failure in report.failures:
            by_place.setdefault((failure.source or "", failure.line), []).append(failure)
        counts, matched = self._tally(by_place)
        orphans = _orphans(by_place, matched, counts, report)
        total = [sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())]
        stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        stream.write(
            f'<testsuites name="twosat-formal certify" tests="{total[0]}" '
            f'failures="{total[1]}" errors="0" time="{report.seconds:.3f}">\n'
        )
        for suite, (tests, failed, time) in counts.items():
            stream.write(
                f'  <testsuite name={quoteattr(_clean(suite))} tests="{tests}" '
                f'failures="{failed}" errors="0" skipped="0" time="{time:.3f}">\n'
            )
            self._write_cases(stream, suite, {place: by_place[place] for place in matched})
            for case in orphans.get(suite, ()):
                stream.write(case)
            stream.write("  </testsuite>\n")
        stream.write("</testsuites>\n")

    def _tally(
        self, by_place: Mapping[tuple[str, int | None], list[CheckFailure]]
    ) -> tuple[dict[str, list[float]], set[tuple[str, int | None]]]:
        """The tests, failures and seconds of each suite (in suite order) over the
        records kept, and the places of the failures that belong to a record."""
        counts: dict[str, list[float]] = {}
        matched: set[tuple[str, int | None]] = set()
        for source, line, _, _, seconds, _ in self.rows():
            tally = counts.setdefault(source, [0, 0, 0.0])
            tally[0] += 1
            tally[2] += seconds
            if (source, line) in by_place:
                matched.add((source, line))
                tally[1] += 1
        return counts, matched

    def _write_cases(
        self,
        stream: IO[str],
        suite: str,
        failing: Mapping[tuple[str, int | None], list[CheckFailure]],
    ) -> None:
        """Write the test case of each record of ``suite``, with the failures of its place
        (its runs of lines only, read in order)."""
        for start, count in self._runs.get(self._sources.get(suite, -1), []):
            self._file.seek(start)
            for _ in range(count):
                _, line, key, kind, seconds, cached = json.loads(self._file.readline())
                name = f"{key} (line {line})" if key is not None else f"line {line}"
                failures = failing.get((suite, line), [])
                stream.write(_testcase(suite, name, kind, seconds, line, failures, cached))
        self._file.seek(0, os.SEEK_END)


def _orphans(
    by_place: Mapping[tuple[str, int | None], list[CheckFailure]],
    matched: set[tuple[str, int | None]],
    counts: dict[str, list[float]],
    report: CertifyReport,
) -> dict[str, list[str]]:
    """The test cases of the failures of no record, by suite, each counted in ``counts``
    (one of the whole dataset of several files names no ``file``: :func:`_files`)."""
    orphans: dict[str, list[str]] = {}
    for (source, line), failures in by_place.items():
        if (source, line) in matched:
            continue
        name = failures[0].check if line is None else f"line {line}"
        located = len(_files(failures[0], report)) == 1
        orphans.setdefault(source, []).append(
            _testcase(source, name, "dataset", 0.0, line, failures, False, located=located)
        )
        tally = counts.setdefault(source, [0, 0, 0.0])
        tally[0] += 1
        tally[1] += 1
    return orphans


def _clean(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold: :func:`printable` (lone
    surrogates: a file name that is not UTF-8), and control characters as U+FFFD too."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "\ufffd", printable(text))


def _testcase(
    source: str,
    name: str,
    kind: str,
    seconds: float,
    line: int | None,
    failures: Sequence[CheckFailure],
    cached: bool,
    *,
    located: bool = True,
) -> str:
    """The ``<testcase>`` of a record (``located``: its ``file`` is ``source``)."""
    attributes = [
        f"classname={quoteattr(_clean(f'{source}:{kind}'))}",
        f"name={quoteattr(_clean(name))}",
    ]
    if located:
        attributes.append(f"file={quoteattr(_clean(source))}")
    if line is not None:
        attributes.append(f'line="{line}"')
    attributes.append(f'time="{seconds:.6f}"')
    head = f"    <testcase {' '.join(attributes)}"
    if not failures:
        if cached:
            note = "<system-out>passed before (--cache)</system-out>"
            return f"{head}>\n      {note}\n    </testcase>\n"
        return f"{head}/>\n"
    first = failures[0]
    text = "\n".join(f"[{f.check}] {f.message}" for f in failures)
    return (
        f"{head}>\n      <failure type={quoteattr(_clean(first.check))} "
        f"message={quoteattr(_clean(first.message))}>{escape(_clean(text))}</failure>\n"
        "    </testcase>\n"
    )


# -- one entry point -------------------------------------------------------------------------


def write_report(
    report: CertifyReport, format: str, stream: IO[str], records: JunitLog | None = None
) -> None:
    """Write ``report`` in ``format`` (one of :data:`FORMATS` but ``text``) to ``stream``.

    ``records`` is the log of the run's records, which ``junit`` needs.

    Raises
    ------
    ValueError
        If ``format`` is not a machine format, or ``junit`` has no ``records``.
    """
    if format == "json":
        stream.write(json.dumps(_printable_json(report.to_json()), indent=2) + "\n")
    elif format == "sarif":
        stream.write(json.dumps(_printable_json(sarif_log(report)), indent=2) + "\n")
    elif format == "github":
        stream.write(github_annotations(report) + "\n")
    elif format == "junit":
        if records is None:
            raise ValueError("a JUnit report needs the log of the run's records")
        records.write(report, stream)
    else:
        raise ValueError(f"unknown report format {format!r}; one of {', '.join(FORMATS[1:])}")
