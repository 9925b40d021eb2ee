"""Every report of ``certify`` gives the same count of failed records, counted by place.

A record is its place in the dataset (file and line): a line that is no record (not
JSON, not an object, no id) fails as one record each, a repeated id fails as one more
record, and a failure of the whole dataset (one of blank lines only) is no record. The
expected counts come from how the dataset was built, not from the code under test; the
counts are read back from each format (JSON, SARIF, the GitHub notice, JUnit's test
cases, the text summary and the line on standard error).
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from io import StringIO
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.certify.test_certify_tamper import DATASET
from tests.support.cli import run
from twosat_formal.certify import CertifyReport, certify_files
from twosat_formal.certify.report import JunitLog, write_report
from twosat_formal.io.jsonl import json_line

#: Lines that are no record, each failing as one record of its own.
BROKEN = ["oops", "{bad", "[1]", '"text"', "{}", '{"id": 3}']
#: The records that have an id (a copy of one fails as a repeated id).
WITH_ID = [i for i, record in enumerate(DATASET) if "id" in record]
#: The machine formats.
FORMS = ("json", "sarif", "github", "junit")


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def count_in(form: str, text: str) -> int:
    """The failed records that the report ``text`` in ``form`` gives."""
    if form == "json":
        return int(json.loads(text)["failed_records"])
    if form == "sarif":
        return int(json.loads(text)["runs"][0]["invocations"][0]["properties"]["failedRecords"])
    if form == "github":
        notice = re.search(r"::notice title=certify::\d+ records, (\d+) failed", text)
        assert notice is not None, text
        return int(notice.group(1))
    if form == "junit":  # the test cases of records (they have a line) with a failure
        cases = ET.fromstring(text).iter("testcase")
        return sum(
            1 for case in cases if "line" in case.attrib and case.find("failure") is not None
        )
    match = re.search(r"failed records\s*│\s*(\d+)", text)  # the text summary
    assert match is not None, text
    return int(match.group(1))


def counts(report: CertifyReport, records: JunitLog) -> dict[str, int]:
    """The failed records each machine format gives for ``report``."""
    found: dict[str, int] = {}
    for form in FORMS:
        stream = StringIO()
        write_report(report, form, stream, records)
        found[form] = count_in(form, stream.getvalue())
    return found


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inserts=st.lists(
        st.tuples(st.integers(0, len(DATASET)), st.sampled_from([*BROKEN, ""])), max_size=6
    ),
    repeats=st.lists(st.sampled_from(WITH_ID), unique=True, max_size=3),
)
def test_every_format_counts_each_failing_line_once(
    tmp_path_factory: pytest.TempPathFactory,
    inserts: list[tuple[int, str]],
    repeats: list[int],
) -> None:
    lines = [json_line(record) for record in DATASET]
    lines += [json_line(copy.deepcopy(DATASET[i])) for i in repeats]  # a repeated id each
    for where, text in sorted(inserts, reverse=True):
        lines.insert(where, text)
    path = write_lines(tmp_path_factory.mktemp("counts") / "data.jsonl", lines)
    broken = sum(1 for _, text in inserts if text)  # a blank line is no record
    with JunitLog() as records:
        report = certify_files([path], records=records)
        assert report.records == len(DATASET) + len(repeats) + broken
        expected = broken + len(repeats)
        assert report.failed_records == expected
        assert counts(report, records) == dict.fromkeys(FORMS, expected)


def test_a_dataset_of_blank_lines_fails_with_no_failed_record(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "blank.jsonl", ["", "  ", ""])
    with JunitLog() as records:
        report = certify_files([path], records=records)
        assert not report.ok and report.records == 0
        assert counts(report, records) == dict.fromkeys(FORMS, 0)
    assert report.verdict.startswith("0 of 0 records failed; the dataset holds no record")


@pytest.mark.parametrize("form", ["text", "json", "sarif", "github", "junit"])
def test_the_command_line_gives_the_same_count_on_stdout_stderr_and_the_report(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json_line(record) for record in DATASET[:3]] + ["oops", "{bad", "[1]"]
    path = write_lines(tmp_path / "mal.jsonl", lines)
    out = tmp_path / "report.out"
    code, stdout, err = run(
        ["certify", str(path), "--no-progress", "--format", form, "--output", str(out)], capsys
    )
    assert code == 1
    assert count_in("text", stdout) == 3
    assert "certify: 3 of 6 records failed" in err
    assert count_in(form, out.read_text(encoding="utf-8")) == 3


def test_the_command_line_on_blank_lines_says_the_dataset_holds_no_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_lines(tmp_path / "blank.jsonl", ["", ""])
    code, stdout, err = run(["certify", str(path), "--no-progress", "--json"], capsys)
    assert code == 1
    assert json.loads(stdout)["failed_records"] == 0
    assert "0 of 0 records failed; the dataset holds no record" in err
    assert "1 of 0" not in err
