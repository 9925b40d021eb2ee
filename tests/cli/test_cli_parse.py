"""``twosat-formal parse``: conversion both ways, standard input, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import feed_stdin, run
from twosat_formal import __version__
from twosat_formal.cli.app import _describe_os_error
from twosat_formal.core.formula import Formula
from twosat_formal.io import parse_dimacs, parse_dsl


@pytest.fixture
def dimacs_file(tmp_path: Path) -> Path:
    path = tmp_path / "f.cnf"
    path.write_text("c var 1 rain\np cnf 2 2\n1 -2 0\n2 0\n")
    return path


def test_dimacs_to_dsl(dimacs_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["parse", str(dimacs_file)], capsys)
    assert (code, err) == (0, "")
    assert out == "rain | ~x2\nx2\n"


def test_dsl_to_dimacs_and_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "f.dsl"
    path.write_text("rain -> wet\nrain\n")
    code, out, _ = run(["parse", str(path), "--to", "dimacs"], capsys)
    assert code == 0
    assert out.splitlines() == [
        f"c twosat-formal {__version__}",
        "c var 1 rain",
        "c var 2 wet",
        "p cnf 2 2",
        "-1 2 0",
        "1 0",
    ]
    assert parse_dimacs(out) == parse_dsl(path.read_text())
    converted = tmp_path / "f.cnf"
    converted.write_text(out)
    code, back, _ = run(["parse", str(converted), "--to", "dsl"], capsys)
    assert (code, back) == (0, "~rain | wet\nrain\n")


def test_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    feed_stdin(monkeypatch, b"p cnf 2 1\n1 -2 0\n")
    code, out, _ = run(["parse", "-"], capsys)
    assert (code, out) == (0, "x1 | ~x2\n")


def test_format_option(dimacs_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["parse", str(dimacs_file), "--format", "dimacs", "--to", "dsl"], capsys)
    assert (code, out) == (0, "rain | ~x2\nx2\n")
    code, out, err = run(["parse", str(dimacs_file), "--format", "dsl"], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {dimacs_file}:1:3: ")


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b"p cnf 2 1\n1 3 0\n", ":2:3: literal 3 is beyond the header's 2 variables"),
        (b"p cnf 2 2\n1 0\n", ":1:1: clause count 1 differs from the header's 2"),
        (b"a | | b\n", ":1:5: expected a variable name"),
        (b"p cnf 1 1\n\x00", ":2:1: binary data"),
        (b"", ": the file is empty"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, where: str
) -> None:
    path = tmp_path / "bad"
    path.write_bytes(content)
    code, out, err = run(["parse", str(path)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {path}{where}")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_directory_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["parse", str(tmp_path)], capsys)
    assert (code, err) == (2, f"error: {tmp_path}: is a directory, not a file\n")
    code, _, err = run(["parse", str(tmp_path / "missing.cnf")], capsys)
    assert (code, err) == (2, f"error: {tmp_path / 'missing.cnf'}: no such file\n")


@pytest.mark.parametrize("command", ["parse", "pairs", "edit"])
def test_a_directory_or_a_missing_file_is_worded_alike_by_every_reader(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """read_formula words its own error; a JSON Lines reader lets the file system's
    error reach the CLI, which words it the same (io.inputs.os_error_reason)."""
    out = [] if command == "parse" else ["--out", str(tmp_path / "o.jsonl")]
    out += ["--mode", "individual"] if command == "edit" else []
    for path, says in ((tmp_path, "is a directory, not a file"), (tmp_path / "no", "no such file")):
        code, printed, err = run([command, str(path), *out], capsys)
        assert (code, err) == (2, f"error: {path}: {says}\n"), printed


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (PermissionError(13, "Permission denied", "f.cnf"), "f.cnf: permission denied"),
        (FileNotFoundError(2, "No such file or directory", "-"), "-: this input is not read"),
        (OSError(5, "Input/output error", "f.cnf"), "f.cnf: Input/output error"),
        (FileNotFoundError(2, "No such file or directory"), "[Errno 2] No such file"),
    ],
)
def test_an_os_error_is_one_line_naming_its_file_when_it_has_one(error: OSError, line: str) -> None:
    """Never ``None: no such file`` for an error that names no file."""
    assert _describe_os_error(error).startswith(line)


def test_bad_option_value(dimacs_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["parse", str(dimacs_file), "--to", "json"], capsys)
    assert code == 2 and out == ""


def test_help_describes_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["parse", "--help"], capsys)
    assert code == 0
    for word in ("--to", "--format", "dsl", "dimacs", "standard input"):
        assert word in out


def test_output_round_trips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = Formula([[2, -1], [3], []], num_vars=4, names=["a", "b", "c", "d"])
    path = tmp_path / "f.dsl"
    path.write_text("vars: a, b, c, d\nb | ~a\nc\n()\n")
    code, out, _ = run(["parse", str(path)], capsys)
    assert code == 0 and parse_dsl(out) == f
    code, out, _ = run(["parse", str(path), "--to", "dimacs"], capsys)
    assert code == 0 and parse_dimacs(out) == f
