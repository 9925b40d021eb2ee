"""``certify --format junit|sarif|github|json --output FILE``, read back by their consumers.

The JUnit report is read by junitparser (and by the standard library's XML parser),
the SARIF log is validated against the SARIF 2.1.0 schema (vendored in
``tests/data/ci``) with jsonschema, and the GitHub annotations are parsed back with
the runner's escaping undone. Each report is compared with what the dataset holds:
one test case per record, each failing record named with its checks and messages.
"""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from junitparser import Failure, JUnitXml

from tests.certify.test_certify_tamper import DATASET
from tests.support.cli import error_lines, feed_stdin, run
from tests.support.jsonl import write_jsonl
from twosat_formal.certify import CertifyReport, CheckFailure, certify_files
from twosat_formal.certify.report import JunitLog, github_annotations, sarif_log

SCHEMAS = Path(__file__).parents[1] / "data" / "ci"
SARIF_SCHEMA = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def tampered() -> list[Any]:
    """The mixed dataset with three bad lines: a wrong label, a broken line, a duplicate id."""
    records: list[Any] = copy.deepcopy(DATASET)
    wrong = next(i for i, r in enumerate(records) if r.get("label") == "SAT")
    records[wrong]["label"] = "UNSAT"
    records.insert(3, "{not json")
    records.append(copy.deepcopy(records[0]))
    return records


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("formats")
    return {
        "good": write_jsonl(folder / "good.jsonl", DATASET),
        "bad": write_jsonl(folder / "bad.jsonl", tampered()),
    }


@pytest.fixture(scope="module")
def bad_report(files: dict[str, Path]) -> CertifyReport:
    return certify_files([files["bad"]])


def certify_cli(
    capsys: pytest.CaptureFixture[str], *argv: str, output: Path | None = None
) -> tuple[int, str, str]:
    extra = ["--output", str(output)] if output is not None else []
    return run(["certify", *argv, "--no-progress", *extra], capsys)


# -- JUnit ----------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["good", "bad"])
def test_junit_has_one_test_case_per_record_and_the_failures(
    which: str,
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = files[which]
    out = tmp_path / "report.xml"
    code, stdout, _ = certify_cli(capsys, str(path), "--format", "junit", output=out)
    expected = certify_files([path])
    assert code == (0 if expected.ok else 1)  # the exit code gates with --output too
    assert "result" in stdout  # the text summary still on stdout
    xml = JUnitXml.fromfile(str(out))
    suites = list(xml)
    assert [suite.name for suite in suites] == [str(path)]
    cases = list(suites[0])
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text.strip()]
    assert len(cases) == expected.records == len(lines)
    assert [int(case._elem.get("line")) for case in cases] == lines
    failed: dict[int, list[CheckFailure]] = {}
    for failure in expected.failures:
        assert failure.line is not None
        failed.setdefault(failure.line, []).append(failure)
    for case in cases:
        results = [r for r in case.result if isinstance(r, Failure)]
        failures = failed.get(int(case._elem.get("line")), [])
        assert bool(results) == bool(failures)
        if failures:
            assert results[0].type == failures[0].check
            assert results[0].message == failures[0].message
            for failure in failures:  # every failing check named with its message
                assert f"[{failure.check}] {failure.message}" in results[0].text
    assert xml.tests == suites[0].tests == len(cases)
    assert suites[0].failures == len(failed) == len({f.line for f in expected.failures})
    # the standard library's parser reads the same document
    root = ET.parse(out).getroot()
    assert root.tag == "testsuites" and int(root.get("failures", "-1")) == len(failed)


def test_junit_holds_a_failure_that_belongs_to_no_record(bad_report: CertifyReport) -> None:
    """A dataset-level failure (no line) is a test case of its own, named by its check."""
    from io import StringIO

    failure = CheckFailure(None, None, "dataset", "the dataset holds no record", "empty.jsonl")
    report = CertifyReport(("empty.jsonl",), 0, 0, (failure,), 0.1, 0.0)
    log = JunitLog()
    try:
        stream = StringIO()
        log.write(report, stream)
    finally:
        log.close()
    xml = JUnitXml.fromstring(stream.getvalue().encode("utf-8"))
    (suite,) = list(xml)
    (case,) = list(suite)
    assert case.name == "dataset" and suite.failures == 1
    assert case.result[0].message == "the dataset holds no record"


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    message=st.text(min_size=1, max_size=40),
    record_id=st.text(min_size=1, max_size=20),
    source=st.text(st.characters(blacklist_characters="\0/"), min_size=1, max_size=20),
)
def test_junit_and_sarif_carry_any_text_through_their_parsers(
    message: str, record_id: str, source: str
) -> None:
    """Ids, messages and paths with quotes, markup or control characters survive: the
    consumer reads the same text back (control characters that XML cannot hold
    become U+FFFD)."""
    from io import StringIO

    from twosat_formal.certify import RecordResult

    failure = CheckFailure(record_id, 2, "transform[1]:flip", message, source)
    report = CertifyReport((source,), 2, 5, (failure,), 0.1, 0.0)
    log = JunitLog()
    try:
        log.add(RecordResult("a", 1, source, "instance", 3, (), 0.01, 0.0))
        log.add(RecordResult(record_id, 2, source, "instance", 2, (failure,), 0.02, 0.0))
        stream = StringIO()
        log.write(report, stream)
    finally:
        log.close()
    xml = JUnitXml.fromstring(stream.getvalue().encode("utf-8"))
    (suite,) = list(xml)
    cases = list(suite)
    assert len(cases) == 2 and suite.failures == 1
    clean = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", "\ufffd", message)
    assert cases[1].result[0].message == clean  # an attribute keeps every character
    log_ = sarif_log(report)
    jsonschema.validate(log_, SARIF_SCHEMA)
    (result,) = log_["runs"][0]["results"]
    assert message in result["message"]["text"] and result["ruleId"] == "transform:flip"


# -- SARIF ----------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["good", "bad"])
def test_sarif_is_valid_and_holds_each_failure_at_its_file_and_line(
    which: str,
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = files[which]
    monkeypatch.chdir(path.parent)  # a relative path, as in a repository
    out = tmp_path / "report.sarif"
    code, _, _ = certify_cli(capsys, path.name, "--format", "sarif", output=out)
    expected = certify_files([path.name])
    assert code == (0 if expected.ok else 1)
    log = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(log, SARIF_SCHEMA)
    (sarif_run,) = log["runs"]
    results = sarif_run["results"]
    assert len(results) == len(expected.failures)
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    for result, failure in zip(results, expected.failures, strict=True):
        assert result["level"] == "error"
        assert rules[result["ruleIndex"]] == result["ruleId"]
        assert re.sub(r"\[\d+\]", "", failure.check) == result["ruleId"]
        assert failure.message in result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": path.name, "uriBaseId": "%SRCROOT%"}
        assert physical["region"]["startLine"] == failure.line
    assert sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")
    assert sarif_run["invocations"][0]["exitCode"] == code


def test_sarif_names_an_absolute_path_by_its_file_uri(bad_report: CertifyReport) -> None:
    log = sarif_log(bad_report)
    jsonschema.validate(log, SARIF_SCHEMA)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == Path(bad_report.sources[0]).as_uri()


def test_the_schema_refuses_a_broken_log(bad_report: CertifyReport) -> None:
    """The schema check can fail: a result without its message is refused."""
    log = sarif_log(bad_report)
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SARIF_SCHEMA)


# -- GitHub annotations ---------------------------------------------------------------------

ANNOTATION = re.compile(r"^::(error|notice) ([^:]*)::(.*)$")


def _unescape(text: str, prop: bool) -> str:
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
    for code, char in [*pairs, ("%25", "%")]:
        text = text.replace(code, char)
    return text


def parse_annotations(text: str) -> list[tuple[str, dict[str, str], str]]:
    """Workflow commands as the runner reads them: command, properties, message."""
    found = []
    for line in text.rstrip("\n").split("\n"):  # the runner splits at line ends only
        match = ANNOTATION.match(line)
        assert match, line
        props = dict(p.split("=", 1) for p in match.group(2).split(",") if p)
        found.append(
            (
                match.group(1),
                {k: _unescape(v, True) for k, v in props.items()},
                _unescape(match.group(3), False),
            )
        )
    return found


def test_github_annotations_name_file_line_check_and_message(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = files["bad"]
    code, stdout, _ = certify_cli(capsys, str(path), "--format", "github")
    expected = certify_files([path])
    assert code == 1
    annotations = parse_annotations(stdout)
    errors = [a for a in annotations if a[0] == "error"]
    assert len(errors) == len(expected.failures)
    for (_, props, message), failure in zip(errors, expected.failures, strict=True):
        assert props["file"] == str(path) and int(props["line"]) == failure.line
        assert failure.check in props["title"]
        assert message == failure.message
    assert annotations[-1][0] == "notice"


@given(message=st.text(max_size=30), source=st.text(min_size=1, max_size=15))
def test_github_escaping_round_trips(message: str, source: str) -> None:
    failure = CheckFailure("i", 7, "solve:z3", message, source)
    report = CertifyReport((source,), 1, 1, (failure,), 0.0, 0.0)
    (error, notice) = parse_annotations(github_annotations(report))
    assert error[2] == message and error[1]["file"] == source and error[1]["line"] == "7"
    assert notice[0] == "notice"


# -- json, text, and the options ------------------------------------------------------------


def test_format_json_is_the_json_report(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    code, _, err = certify_cli(capsys, str(files["bad"]), "--format", "json", output=out)
    assert code == 1 and "records failed" in err
    written = json.loads(out.read_text())
    code, stdout, _ = certify_cli(capsys, str(files["bad"]), "--json")
    printed = json.loads(stdout)
    for report in (written, printed):
        report["seconds"] = report["z3_seconds"] = 0
    assert written == printed and written["ok"] is False


def test_format_text_to_a_file(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.txt"
    code, _, _ = certify_cli(capsys, str(files["bad"]), output=out)
    text = out.read_text()
    assert code == 1 and "FAIL" in text and "\x1b[" not in text
    for failure in certify_files([files["bad"]]).failures:
        assert f"[{failure.check}]" in text


def test_json_and_another_format_is_a_usage_error(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = certify_cli(capsys, str(files["good"]), "--json", "--format", "sarif")
    assert code == 2 and "--json" in err and "Traceback" not in err


def test_an_unknown_format_is_a_usage_error(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = certify_cli(capsys, str(files["good"]), "--format", "xml")
    assert code == 2 and "Traceback" not in err


def test_output_into_a_missing_folder_is_a_clear_error(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "report.xml"
    code, _, err = certify_cli(capsys, str(files["good"]), "--format", "junit", output=out)
    assert code == 2 and "Traceback" not in err and "missing" in err


def test_junit_lists_each_record_once_with_a_line_that_is_no_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line that looks like a record but is not JSON is one failing test case in
    its place; every other record is listed once, in file order."""
    path = write_jsonl(tmp_path / "data.jsonl", [*DATASET, '{"id": "q" oops}'])
    out = tmp_path / "report.xml"
    code, _, _ = certify_cli(capsys, str(path), "--format", "junit", output=out)
    assert code == 1
    (suite,) = list(JUnitXml.fromfile(str(out)))
    cases = list(suite)
    assert [int(case._elem.get("line")) for case in cases] == list(range(1, len(DATASET) + 2))
    assert suite.failures == 1


def test_output_that_is_a_folder_is_a_clear_error(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = certify_cli(capsys, str(files["good"]), "--format", "sarif", output=tmp_path)
    assert code == 2 and "Traceback" not in err
    assert err == f"error: {tmp_path}: is a directory, not a file\n"  # as every writer says


@pytest.mark.parametrize("form", ["junit", "sarif", "github", "json", "text"])
@pytest.mark.parametrize("how", ["same", "dot", "symlink", "hardlink"])
def test_an_output_that_is_a_dataset_file_is_refused_and_the_file_kept(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    form: str,
    how: str,
) -> None:
    """``--output`` naming one of the files certified (the second one, through a
    ``./``, a symlink or a hard link) stops with exit 2 before any check; no byte of
    the file changes."""
    import os

    first = write_jsonl(tmp_path / "first.jsonl", DATASET)
    second = tmp_path / "second.jsonl"
    second.write_bytes(files["good"].read_bytes())
    before = second.read_bytes()
    out = {"same": second, "dot": tmp_path / "." / "second.jsonl"}.get(how, tmp_path / "alias")
    if how == "symlink":
        out.symlink_to(second)
    elif how == "hardlink":
        os.link(second, out)
    code, stdout, err = certify_cli(capsys, str(first), str(second), "--format", form, output=out)
    assert code == 2, (code, stdout, err)
    lines = error_lines(err)
    assert len(lines) == 1 and "--output" in lines[0] and "write to another file" in lines[0]
    assert second.read_bytes() == before


@pytest.mark.parametrize("form", ["junit", "sarif", "github", "json", "text"])
def test_a_file_name_that_is_not_utf8_gives_a_utf8_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    """A dataset file whose name is not UTF-8 (bytes ``\\xff``, held as a lone surrogate)
    is reported in every form: the report is valid UTF-8 with U+FFFD in the name, and
    a SARIF URI percent-encodes the name's own bytes."""
    import os
    from urllib.parse import unquote_to_bytes

    from twosat_formal.core.jsonread import loads

    name = os.fsdecode(b"bad\xff data.jsonl")
    write_jsonl(tmp_path / name, tampered())
    monkeypatch.chdir(tmp_path)  # named relative to the working directory, as in CI
    out = tmp_path / "report.out"
    code, stdout, err = certify_cli(capsys, name, "--format", form, output=out)
    assert code == 1 and "Traceback" not in stdout + err, err
    text = out.read_bytes().decode("utf-8")  # strict: no byte of the name left raw
    shown = "bad\ufffd data.jsonl"
    if form == "junit":
        suite = next(iter(JUnitXml.fromfile(str(out))))
        assert suite.name.endswith(shown) and suite.failures == 3
    elif form == "sarif":
        log = loads(text, source="report")
        jsonschema.validate(log, SARIF_SCHEMA)
        (artifact,) = log["runs"][0]["artifacts"]
        uri = artifact["location"]["uri"]
        assert unquote_to_bytes(uri) == os.fsencode(name) and "%SRCROOT%" in text
    elif form == "github":
        errors = [a for a in parse_annotations(text) if a[0] == "error"]
        assert errors and all(a[1]["file"].endswith(shown) for a in errors)
    elif form == "json":
        assert shown in "".join(loads(text, source="report")["sources"])
    else:
        assert f"{shown}:" in text and "FAIL" in text


@pytest.mark.parametrize("form", ["junit", "sarif", "github", "json", "text"])
def test_output_dash_is_standard_output(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    form: str,
) -> None:
    """``--output -`` prints the report as without the option (``-`` is stdout for every
    output of the command line) and leaves no file named ``-``."""
    monkeypatch.chdir(tmp_path)
    bad = str(files["bad"])
    code, dashed, _ = certify_cli(capsys, bad, "--format", form, output=Path("-"))
    assert code == 1 and not (tmp_path / "-").exists()
    code, plain, _ = certify_cli(capsys, bad, "--format", form)
    timing = re.compile(r'(time="|"seconds": |"z3_seconds": )[0-9.]+|.*│ time.*')
    assert timing.sub("", dashed) == timing.sub("", plain)


def test_a_failure_of_the_whole_dataset_names_its_files_not_a_made_up_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files of blank lines hold no record: the dataset's failure belongs to every file,
    so SARIF locates it in each (never at a URI of their joined names) and GitHub
    annotates the run (no ``file=``); one file alone is still named."""
    monkeypatch.chdir(tmp_path)
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text("\n\n", encoding="utf-8")
    code, stdout, _ = certify_cli(capsys, "a.jsonl", "b.jsonl", "--format", "sarif")
    assert code == 1
    log = json.loads(stdout)
    jsonschema.validate(log, SARIF_SCHEMA)
    (result,) = log["runs"][0]["results"]
    uris = [place["physicalLocation"]["artifactLocation"]["uri"] for place in result["locations"]]
    artifacts = [artifact["location"]["uri"] for artifact in log["runs"][0]["artifacts"]]
    assert uris == artifacts == ["a.jsonl", "b.jsonl"]
    code, stdout, _ = certify_cli(capsys, "a.jsonl", "b.jsonl", "--format", "github")
    (error,) = [a for a in parse_annotations(stdout) if a[0] == "error"]
    assert code == 1 and "file" not in error[1] and "no record" in error[2]
    code, stdout, _ = certify_cli(capsys, "a.jsonl", "--format", "github")
    (error,) = [a for a in parse_annotations(stdout) if a[0] == "error"]
    assert error[1]["file"] == "a.jsonl"
    for files in (["a.jsonl", "b.jsonl"], ["a.jsonl"]):
        code, stdout, _ = certify_cli(capsys, *files, "--format", "junit")
        (case,) = ET.fromstring(stdout).iter("testcase")
        assert case.get("file") == (files[0] if len(files) == 1 else None)


def test_a_copy_of_standard_input_is_stdin_in_the_report_and_every_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dataset read from a copy of standard input (``eval --dataset -``'s gate) is
    ``<stdin>`` in the report's sources and in the failures of the whole dataset, as in
    every record's: one name per file, so a failure of the whole dataset of several
    files is still located at each file, never at a file of the joined names."""
    from twosat_formal.io.jsonl import rereadable

    feed_stdin(monkeypatch, "\n\n")
    other = tmp_path / "b.jsonl"
    other.write_text("\n", encoding="utf-8")
    with rereadable("-") as (copy, _):
        alone = certify_files([copy])
        both = certify_files([copy, other], only=["x"])
    assert alone.sources == ("<stdin>",)
    assert [f.source for f in alone.failures] == ["<stdin>"]
    assert both.sources == ("<stdin>", str(other))
    assert {f.source for f in both.failures} == {f"<stdin>, {other}"}
    errors = [a for a in parse_annotations(github_annotations(both)) if a[0] == "error"]
    assert len(errors) == 2 and all("file" not in where for _, where, _ in errors)
    for result in sarif_log(both)["runs"][0]["results"]:
        assert len(result["locations"]) == 2


@settings(max_examples=60, deadline=None)
@given(
    order=st.lists(st.sampled_from(["a.jsonl", "b.jsonl", "c/d.jsonl"]), min_size=1, max_size=30),
    failing=st.sets(st.integers(min_value=0, max_value=29)),
)
def test_junit_suites_hold_their_records_in_order_whatever_order_they_come_in(
    order: list[str], failing: set[int]
) -> None:
    """Records logged file by file or interleaved (as workers may return them): each
    file's suite lists exactly its records, in the order they came, with its failures
    and counts; the suites come in the order their files first came."""
    import io

    from twosat_formal.certify.results import RecordResult

    lines: dict[str, int] = {}
    expected: dict[str, list[tuple[str, bool]]] = {}
    failures = []
    with JunitLog() as log:
        for index, source in enumerate(order):
            line = lines[source] = lines.get(source, 0) + 1
            key = f"{source}#{line}"
            bad = index in failing
            found = (CheckFailure(key, line, "solve:z3", "no", source),) if bad else ()
            failures.extend(found)
            log.add(RecordResult(key, line, source, "instance", 1, found, 0.5, 0.0))
            expected.setdefault(source, []).append((f"{key} (line {line})", bad))
        report = CertifyReport(tuple(expected), len(order), len(order), tuple(failures), 1.0, 0.0)
        stream = io.StringIO()
        log.write(report, stream)
    root = ET.fromstring(stream.getvalue())
    assert [suite.get("name") for suite in root] == list(expected)
    for suite in root:
        cases = [(c.get("name"), c.find("failure") is not None) for c in suite]
        assert cases == expected[suite.get("name") or ""]
        assert suite.get("tests") == str(len(cases))
        assert suite.get("failures") == str(sum(bad for _, bad in cases))
    assert root.get("tests") == str(len(order)) and root.get("failures") == str(len(failures))


def test_junit_reads_each_logged_record_twice_however_many_files(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Writing the JUnit report reads the log once to count and once to write: twice per
    record for 40 files as for one, not once per file and record (which made a report
    of 20,000 records in 400 files take 30 s instead of 0.6 s)."""
    import io
    import types

    from twosat_formal.certify import report as module
    from twosat_formal.certify.results import RecordResult

    reads = []

    def loads(text: str) -> Any:
        reads.append(text)
        return json.loads(text)

    monkeypatch.setattr(module, "json", types.SimpleNamespace(loads=loads, dumps=json.dumps))
    files, per = 40, 5
    sources = tuple(f"s{f}.jsonl" for f in range(files))
    with JunitLog() as log:
        for source in sources:
            for line in range(1, per + 1):
                log.add(RecordResult(f"{source}:{line}", line, source, "instance", 1, (), 0.1, 0))
        report = CertifyReport(sources, files * per, files * per, (), 1.0, 0.0)
        log.write(report, io.StringIO())
    assert len(reads) == 2 * files * per
