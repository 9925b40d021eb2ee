"""Standard input (``-``) where a command takes it: its errors name ``<stdin>``.

A command that reads its input more than once copies standard input to a temporary
file first (:func:`twosat_formal.io.jsonl.rereadable`); whatever reads that copy, an
error in it is located at ``<stdin>:LINE``, as for a file, never at the temporary path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import cli, error_lines, feed_stdin
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record

#: A JSON Lines record that no reader takes (no schema_version, no id).
BAD_RECORD = '{"instance_id": 1}\n'
#: A DIMACS file broken on line 2, column 3.
BAD_FORMULA = "p cnf 1 1\n1 x 0\n"

#: Every command that reads ``-`` (D: a folder of good inputs), with what it is fed.
STDIN_CASES: dict[str, tuple[list[str], str | bytes, str]] = {
    "eval": (["eval", "-", "-m", "ref/oracle", "--store", "D/s.sqlite"], BAD_RECORD, ":1"),
    "eval --no-verify": (
        ["eval", "-", "-m", "ref/oracle", "--store", "D/s.sqlite", "--no-verify"],
        BAD_RECORD,
        ":1",
    ),
    "score --prompts": (
        ["score", "D/answers.jsonl", "--prompts", "-", "--out", "D/o.jsonl"],
        BAD_RECORD,
        ":1",
    ),
    "score": (
        ["score", "-", "--prompts", "D/prompts.jsonl", "--out", "D/o.jsonl"],
        BAD_RECORD,
        ":1",
    ),
    "batch prepare": (
        ["batch", "prepare", "-", "-m", "openai/m", "--out", "D/b.jsonl"],
        BAD_RECORD,
        ":1",
    ),
    "verbalize": (["verbalize", "-", "-t", "logic"], BAD_RECORD, ":1"),
    "verbalize a formula": (["verbalize", "-", "-t", "logic"], BAD_FORMULA, ":2:3"),
    "perturb": (["perturb", "-", "--op", "reorder"], BAD_RECORD, ":1"),
    "perturb a formula": (["perturb", "-", "--op", "reorder"], BAD_FORMULA, ":2:3"),
    "edit": (["edit", "-", "--mode", "individual"], BAD_RECORD, ":1"),
    "edit a formula": (["edit", "-", "--mode", "individual"], BAD_FORMULA, ":2:3"),
    "pairs": (["pairs", "-"], BAD_RECORD, ":1"),
    "story-stats": (["story-stats", "-"], BAD_RECORD, ":1"),
    "parse": (["parse", "-"], BAD_FORMULA, ":2:3"),
    "backparse": (["backparse", "-"], b"You are given\n\xff\n", ":2:1: binary data"),
    "backparse empty": (["backparse", "-"], b"", ": the file is empty"),
    "solve": (["solve", "-"], BAD_FORMULA, ":2:3"),
    "inspect": (["inspect", "-"], BAD_FORMULA, ":2:3"),
}


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the good prompts and answers the stdin input is given beside."""
    folder = tmp_path_factory.mktemp("good")
    inst = generate("backbone", clauses=8, seed=1)
    made = prompt_record(inst.formula, "logic", instance_id=inst.id, seed=1)
    (folder / "prompts.jsonl").write_text(json.dumps(made.to_record()) + "\n", "utf-8")
    answer = {"prompt_id": made.id, "response": "The answer is: Yes"}
    (folder / "answers.jsonl").write_text(json.dumps(answer) + "\n", encoding="utf-8")
    return folder


#: The outputs of the STDIN_CASES commands, written in the test's own folder.
OUTPUTS = ("s.sqlite", "o.jsonl", "b.jsonl")


def case_argv(words: list[str], good: Path, tmp_path: Path) -> list[str]:
    """A STDIN_CASES command's words: its inputs ``D/...`` in ``good``, its outputs in
    ``tmp_path`` (which must stay empty when the command refuses its input)."""
    argv = list(words)
    for name in OUTPUTS:
        argv = [w.replace(f"D/{name}", str(tmp_path / name)) for w in argv]
    return [w.replace("D/", f"{good}/") for w in argv]


def refused(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    data: str | bytes,
) -> tuple[str, str, str]:
    """Run ``argv`` with ``data`` on standard input; it must exit 2 with one error line:
    that line, then stdout and stderr."""
    feed_stdin(monkeypatch, data)
    code, out, err = cli(capsys, *argv)
    lines = error_lines(err)
    assert code == 2, (code, out, err)
    assert len(lines) == 1, err
    return lines[0], out, err


@pytest.mark.parametrize("case", sorted(STDIN_CASES))
def test_an_error_in_standard_input_names_stdin_and_its_line(
    case: str,
    good: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    words, text, where = STDIN_CASES[case]
    argv = case_argv(words, good, tmp_path)
    if argv[0] in ("eval", "verbalize", "perturb", "edit", "pairs"):
        argv.append("--no-progress")
    line, out, err = refused(capsys, monkeypatch, argv, text)
    assert line.startswith(f"error: <stdin>{where}"), err
    assert "twosat-stdin" not in err + out and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", sorted(STDIN_CASES))
def test_empty_standard_input_is_refused_as_an_empty_file(
    case: str,
    good: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Zero bytes are an error, never an empty input, whichever reader takes ``-``."""
    argv = case_argv(STDIN_CASES[case][0], good, tmp_path)
    line, _, err = refused(capsys, monkeypatch, argv, b"")
    assert line.startswith("error: <stdin>: the file is empty"), err
    assert list(tmp_path.iterdir()) == []


#: Inputs that are files only (datasets certify reads by path, folders, SQLite stores).
FILE_ONLY: dict[str, list[str]] = {
    "certify": ["certify", "-"],
    "export": ["export", "-", "--to", "hf", "--out", "T/ex"],
    "report": ["report", "-", "--out", "T/r"],
    "results": ["results", "-"],
    "trace": ["trace", "-"],
    "store merge": ["store", "merge", "-", "--out", "T/m.sqlite"],
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(FILE_ONLY))
def test_dash_where_a_file_is_needed_says_so_not_no_such_file(
    case: str,
    good: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The message of a special file offers ``-`` where the command reads stdin; where it
    does not, ``-`` is told so (never ``-: no such file``) and nothing is written."""
    argv = [w.replace("D/", f"{good}/").replace("T/", f"{tmp_path}/") for w in FILE_ONLY[case]]
    monkeypatch.chdir(tmp_path)
    feed_stdin(monkeypatch, b"{}\n")
    code, out, err = cli(capsys, *argv)
    lines = error_lines(err)
    assert code == 2, (code, out, err)
    assert lines == ["error: -: this input is not read from standard input: give a file"], err
    assert list(tmp_path.iterdir()) == []
