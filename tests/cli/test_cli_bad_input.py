"""The README's promise about bad input, held to by every registered command.

Every command of :data:`twosat_formal.cli.commands.COMMANDS` that reads a file is fed a
missing file, a zero-byte file, a binary file (not UTF-8) and a malformed one (a broken
formula, dataset, spec or store, whatever it reads). Each must exit with 2 and print
one line on stderr, ``error: ...``, naming the file, without a traceback, and leave no
output file behind. Commands that read no file are listed in :data:`NO_FILE` with the
reason; a command in neither table fails the test, so a new command must be placed.

Every case that writes (``--out``, ``--store``) is also told to write over its input
(the same path, a symbolic link to it, a hard link): exit 2, one line, the input
unchanged; and to write to ``/dev/null``: the device is written as a stream (or the
command says in one line that it is no folder or store), never replaced, and nothing
appears beside it; and is sent a real ``SIGTERM`` as it puts its finished output in
place: exit 143, ``terminated``, neither output nor partial file left. Signals in the
middle of the work (workers, an evaluation) are sent in ``test_signals.py`` and
``test_evaluate.py``.
"""

from __future__ import annotations

import json
import os
import signal
import stat
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tests.io.test_json_reading import HAZARDS
from tests.support.cli import cli, error_lines
from twosat_formal.cli.commands import COMMANDS
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record

#: Commands that read no file given on the command line, and why.
NO_FILE: dict[str, str] = {
    "families": "lists the generator families; no input",
    "operators": "lists the perturbation operators; no input",
    "templates": "lists the template schemes; no input",
    "experiments": "lists the experiment protocols; no input",
    "version": "prints versions; no input",
    "bench": "draws its own grid from the seed; reads no file (only writes --out)",
}

Argv = Callable[[str, Path, Path], list[str]]

#: Per command: how it is called with a bad file ``F`` (``D``: a folder of good inputs,
#: ``O``: an output path that must not exist afterwards), and what kind of file it reads.
CASES: dict[str, tuple[Argv, str]] = {
    "parse": (lambda f, d, o: ["parse", f], "formula"),
    "solve": (lambda f, d, o: ["solve", f], "formula"),
    "inspect": (lambda f, d, o: ["inspect", f], "formula"),
    "generate": (
        lambda f, d, o: [
            "generate",
            "symmetry",
            "--set",
            f"base_file={f}",
            "--clauses",
            "8",
            "--out",
            str(o),
        ],
        "formula",
    ),
    "perturb": (lambda f, d, o: ["perturb", f, "--op", "reorder", "--out", str(o)], "dataset"),
    "edit": (lambda f, d, o: ["edit", f, "--mode", "cumulative", "--out", str(o)], "dataset"),
    "pairs": (lambda f, d, o: ["pairs", f, "--out", str(o)], "dataset"),
    "verbalize": (lambda f, d, o: ["verbalize", f, "-t", "logic", "--out", str(o)], "dataset"),
    "backparse": (lambda f, d, o: ["backparse", f], "text"),
    "story-stats": (lambda f, d, o: ["story-stats", f], "dataset"),
    "certify": (lambda f, d, o: ["certify", f], "dataset"),
    "eval": (
        lambda f, d, o: ["eval", f, "-m", "ref/oracle", "--store", str(o), "--no-progress"],
        "dataset",
    ),
    "results": (lambda f, d, o: ["results", f, "--out", str(o)], "store"),
    "store": (lambda f, d, o: ["store", "merge", f, "--out", str(o)], "store"),
    "score": (
        lambda f, d, o: ["score", f, "--prompts", str(d / "prompts.jsonl"), "--out", str(o)],
        "dataset",
    ),
    "batch": (
        lambda f, d, o: ["batch", "prepare", f, "-m", "openai/m", "--out", str(o)],
        "dataset",
    ),
    "trace": (lambda f, d, o: ["trace", f, "--out", str(o)], "store"),
    "export": (lambda f, d, o: ["export", f, "--to", "hf", "--out", str(o)], "dataset"),
    "run-experiment": (
        lambda f, d, o: ["run-experiment", f, "-m", "ref/oracle", "--out", str(o), "--no-progress"],
        "spec",
    ),
    "report": (lambda f, d, o: ["report", f, "--out", str(o)], "store"),
}

#: Second inputs, and formula files where a command also reads a dataset: the same
#: promise, beyond the one file per command the table above holds to it.
MORE_CASES: dict[str, tuple[Argv, str]] = {
    "perturb a formula": (
        lambda f, d, o: ["perturb", f, "--op", "reorder", "--out", str(o)],
        "formula",
    ),
    "edit a formula": (
        lambda f, d, o: ["edit", f, "--mode", "cumulative", "--out", str(o)],
        "formula",
    ),
    "verbalize a formula": (
        lambda f, d, o: ["verbalize", f, "-t", "logic", "--out", str(o)],
        "formula",
    ),
    "eval --dataset": (
        lambda f, d, o: [
            "eval",
            str(d / "prompts.jsonl"),
            "-m",
            "ref/oracle",
            "--dataset",
            f,
            "--store",
            str(o),
            "--no-progress",
        ],
        "dataset",
    ),
    "score --prompts": (
        lambda f, d, o: ["score", str(d / "answers.jsonl"), "--prompts", f, "--out", str(o)],
        "dataset",
    ),
    "certify a second file": (
        lambda f, d, o: ["certify", str(d / "dataset.jsonl"), f],
        "dataset",
    ),
    "certify --output": (lambda f, d, o: ["certify", f, "--output", str(o)], "dataset"),
    "inspect --graph": (
        lambda f, d, o: ["inspect", f, "--graph", str(o), "--graph-format", "graphml"],
        "formula",
    ),
}

#: A malformed file of each kind (valid UTF-8, wrong content).
MALFORMED = {
    "formula": "p cnf 2 1\n1 x 0\n",
    "dataset": "{broken\n",
    "text": "lorem ipsum dolor sit amet\n",
    "store": "this is not a database\n",
    "spec": "{broken",
}
#: The input's file name per kind (some commands go by the suffix).
SUFFIX = {
    "formula": ".cnf",
    "dataset": ".jsonl",
    "text": ".txt",
    "store": ".sqlite",
    "spec": ".json",
}

#: Where a command may answer a bad *record* as certify does: a failed check (exit 1)
#: naming ``FILE:LINE``, not a usage error. certify's report is its output: written
#: (to ``--output``) for a failed check too, since the exit code is what gates.
REPORTS_RECORDS = {"certify"}


def _report(out: Path, stdout: str) -> str:
    """certify's report: on stdout, or in ``--output`` (then stdout has its summary)."""
    return stdout + (out.read_text(encoding="utf-8") if out.is_file() else "")


def _left(out: Path, command: str, code: int) -> list[Path]:
    """What a case left beside its output ``out``: nothing, but the report of a check
    that failed (exit 1), which certify writes to ``--output`` as it does on a pass."""
    left = list(out.parent.iterdir())
    if command.startswith(tuple(REPORTS_RECORDS)) and code == 1 and "--output" in command:
        assert left == [out], left
        return []
    return left


def test_every_command_is_either_fed_bad_files_or_listed_with_a_reason() -> None:
    assert set(CASES) | set(NO_FILE) == set(COMMANDS)
    assert not set(CASES) & set(NO_FILE)


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of good inputs the bad one is given beside (the prompts of ``score``)."""
    folder = tmp_path_factory.mktemp("good")
    inst = generate("backbone", clauses=8, seed=1)
    made = prompt_record(inst.formula, "logic", instance_id=inst.id, seed=1)
    (folder / "dataset.jsonl").write_text(inst.to_json() + "\n", encoding="utf-8")
    (folder / "prompts.jsonl").write_text(json.dumps(made.to_record()) + "\n", encoding="utf-8")
    answer = {"prompt_id": made.id, "response": "The answer is: Yes"}
    (folder / "answers.jsonl").write_text(json.dumps(answer) + "\n", encoding="utf-8")
    both = (folder / "dataset.jsonl").read_text() + (folder / "prompts.jsonl").read_text()
    (folder / "bundle.jsonl").write_text(both, encoding="utf-8")  # instances and prompts
    return folder


@pytest.mark.parametrize("how", ["missing", "zero-byte", "binary", "malformed"])
@pytest.mark.parametrize("command", [*sorted(CASES), *MORE_CASES])
def test_a_bad_file_is_one_line_naming_it_exit_2_and_no_output(
    tmp_path: Path,
    good: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    how: str,
) -> None:
    argv, kind = {**CASES, **MORE_CASES}[command]
    work = tmp_path / "work"
    work.mkdir()
    path = work / f"bad-input{SUFFIX[kind]}"
    if how == "zero-byte":
        path.write_bytes(b"")
    elif how == "binary":
        path.write_bytes(b"\xff\xfe\x00\x81\x00\x9f binary \xc3\x28\n")
    elif how == "malformed":
        path.write_text(MALFORMED[kind], encoding="utf-8")
    out = tmp_path / "out" / "result.jsonl"
    out.parent.mkdir()
    code, stdout, err = cli(capsys, *argv(str(path), good, out))
    assert "Traceback" not in err + stdout
    if command.startswith(tuple(REPORTS_RECORDS)) and how in ("binary", "malformed"):
        assert code == 1, (code, stdout, err)
        assert f"{path.name}:1" in _report(out, stdout)
    else:
        assert code == 2, (code, stdout, err)
        lines = error_lines(err)
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert path.name in lines[0], lines[0]
    assert _left(out, command, code) == []
    assert [p.name for p in work.iterdir()] == ([] if how == "missing" else [path.name])


def _good_input(command: str, kind: str, tmp_path: Path, good: Path, stored: Path) -> Path:
    """A valid input of ``kind`` for ``command``: a formula file written in ``tmp_path``,
    the run store, or the command's good JSON Lines file."""
    if kind == "formula":
        path = tmp_path / "input.cnf"
        path.write_text(GOOD["formula"], encoding="utf-8")
        return path
    if kind == "store":
        return stored
    return good / GOOD_JSONL.get(command, "dataset.jsonl")


def _output_of(argv: Argv) -> str | None:
    """The option (``--out``, ``--store``) under which a case's command writes ``O``."""
    words = argv("F", Path("D"), Path("O"))
    return next((w for w, v in pairwise(words) if v == "O"), None)


#: The cases whose command writes an output file or folder.
WRITERS = sorted(name for name, (argv, _) in {**CASES, **MORE_CASES}.items() if _output_of(argv))


def test_every_command_that_writes_is_in_the_output_walk() -> None:
    """A command with an ``--out`` or ``--store`` option is walked with it."""
    from twosat_formal.cli.app import _load
    from twosat_formal.cli.outputs import OUTPUT_OPTIONS

    def writes(command: object) -> bool:
        subs = getattr(command, "commands", {})
        if subs:
            return any(writes(sub) for sub in subs.values())
        return any(OUTPUT_OPTIONS & set(p.opts) for p in getattr(command, "params", ()))

    writing = {name for name in COMMANDS if writes(_load(name))}
    walked = {name.split()[0] for name in WRITERS}
    assert writing - set(NO_FILE) <= walked, writing - walked


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
@pytest.mark.parametrize("command", WRITERS)
def test_an_output_that_is_the_input_is_refused_and_the_input_kept(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str], command: str, how: str
) -> None:
    """Whatever the command and however the input is named again, it is not written."""
    argv, kind = {**CASES, **MORE_CASES}[command]
    work = tmp_path / "work"
    work.mkdir()
    path = work / f"input{SUFFIX[kind]}"
    path.write_text(MALFORMED[kind], encoding="utf-8")  # never read: refused before
    out = path
    if how == "symlink":
        out = work / "alias"
        out.symlink_to(path)
    elif how == "hardlink":
        out = work / "alias"
        os.link(path, out)
    listing = sorted(p.name for p in work.iterdir())
    code, stdout, err = cli(capsys, *argv(str(path), good, out))
    assert code == 2, (code, stdout, err)
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert f"{_output_of(argv)} {out}" in lines[0] and "write to another file" in lines[0]
    assert path.read_text(encoding="utf-8") == MALFORMED[kind]
    assert sorted(p.name for p in work.iterdir()) == listing


#: A good formula, and the good JSON Lines file (in ``good``) of the commands that read
#: other records than instances.
GOOD = {"formula": "p cnf 3 2\n1 -2 0\n2 3 0\n"}
GOOD_JSONL = {
    "batch": "prompts.jsonl",
    "eval": "prompts.jsonl",
    "score": "answers.jsonl",
    "score --prompts": "prompts.jsonl",
    "certify a second file": "prompts.jsonl",
    "export": "bundle.jsonl",
}


@pytest.mark.parametrize("command", [c for c in WRITERS if not c.startswith("run-experiment")])
def test_dev_null_as_output_is_written_as_a_stream_never_replaced(
    tmp_path: Path, good: Path, stored: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """``--out /dev/null`` (or ``--store``): exit 0 having written to the device, or one
    line saying the device is no folder or store; the device stays the device."""
    argv, kind = {**CASES, **MORE_CASES}[command]
    path = _good_input(command, kind, tmp_path, good, stored)
    before = os.stat("/dev/null")
    code, stdout, err = cli(capsys, *argv(str(path), good, Path("/dev/null")))
    assert "Traceback" not in err + stdout
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = error_lines(err)
        assert len(lines) == 1 and lines[0].startswith("error: ") and "/dev/null" in lines[0]
    assert not list(Path("/dev").glob("null?*"))  # no journal, no partial file beside it
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (
        before.st_ino,
        before.st_rdev,
    )


#: Writing cases whose output is a folder, which standard output cannot be: ``-`` names
#: a folder there as any other name does.
FOLDER_OUTPUTS = {"export", "report", "run-experiment"}


@pytest.mark.parametrize("command", [c for c in WRITERS if not c.startswith(tuple(FOLDER_OUTPUTS))])
def test_dash_as_output_is_standard_output_never_a_file_named_dash(
    tmp_path: Path,
    good: Path,
    stored: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    """``--out -`` (``--output``, ``--store``, ``--graph``): exit 0 having written to
    standard output, or one line saying it cannot be written there (a store); never a
    file named ``-`` (certify, batch prepare and inspect made one)."""
    argv, kind = {**CASES, **MORE_CASES}[command]
    path = _good_input(command, kind, tmp_path, good, stored)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, stdout, err = cli(capfd, *argv(str(path), good, Path("-")))
    assert "Traceback" not in err + stdout
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = error_lines(err)
        assert len(lines) == 1 and lines[0].startswith("error: ") and "-" in lines[0], err
    assert list(work.iterdir()) == []


@pytest.fixture(scope="module")
def stored(good: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run store of the good prompts, answered by the oracle."""
    from twosat_formal.cli import main

    store = tmp_path_factory.mktemp("store") / "runs.sqlite"
    argv = ["eval", str(good / "prompts.jsonl"), "-m", "ref/oracle", "--no-progress"]
    with pytest.raises(SystemExit) as done:
        main([*argv, "--store", str(store)])
    assert done.value.code in (0, None)
    return store


#: Writing cases whose output is not one file renamed into place (a store, a report
#: folder): a SIGTERM as the output is put in place does not concern them; each is
#: stopped by real signals elsewhere (``test_signals.py``, ``test_evaluate.py``).
NOT_RENAMED = {
    "eval": "writes into its run store as answers come (test_evaluate.py stops it)",
    "eval --dataset": "as eval",
    "store": "merges into a new SQLite file (a failed merge removes it: test_outputs.py)",
    "report": "writes a report folder",
}


@pytest.mark.parametrize(
    "command", [c for c in WRITERS if not c.startswith(("run-experiment", *NOT_RENAMED))]
)
def test_sigterm_as_the_output_is_put_in_place_leaves_nothing(
    tmp_path: Path,
    good: Path,
    stored: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    """A real SIGTERM, sent to the command by itself at the last moment (as it renames
    its finished output into place): exit 143, ``terminated``, and neither the output
    nor a partial file is left."""
    argv, kind = {**CASES, **MORE_CASES}[command]
    path = _good_input(command, kind, tmp_path, good, stored)
    work = tmp_path / "out"
    work.mkdir()
    out = work / ("result.csv" if command.startswith(("results", "score")) else "result")
    renamed = os.replace
    sent: list[bool] = []

    def signalled(source: Any, target: Any) -> None:
        sent.append(True)
        signal.raise_signal(signal.SIGTERM)  # handled before the next line runs
        renamed(source, target)

    monkeypatch.setattr(os, "replace", signalled)
    # the command handles SIGTERM only where it has its default action, as in a shell;
    # an earlier test or library in this process may have set a handler of its own
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        code, stdout, err = cli(capsys, *argv(str(path), good, out))
    finally:
        signal.signal(signal.SIGTERM, previous)
        monkeypatch.undo()
    assert sent, (code, err)
    assert code == 143, (code, stdout, err)
    assert err.strip().splitlines()[-1] == "terminated" and "Traceback" not in err
    assert list(work.iterdir()) == []


#: A line of each kind of hostile JSON (see ``test_json_reading``), and a DIMACS
#: literal of more than 4,300 digits (once read as 1), each after a blank line, with
#: the line it is refused at.
HOSTILE: dict[str, dict[str, tuple[str, int]]] = {
    "dataset": {k: (v, 2) for k, v in HAZARDS.items()},
    "spec": {k: (v, 2) for k, v in HAZARDS.items() if "carriage return" not in k},
    "formula": {
        "a literal of 5,000 digits": ("p cnf 2 1\n1 " + "1" * 5000 + " 0\n", 3),
        "a header of 5,000 digits": ("p cnf " + "2" * 5000 + " 1\n1 0\n", 2),
    },
}


@pytest.mark.parametrize(
    ("command", "hazard"),
    [
        (command, hazard)
        for command, (_, kind) in sorted({**CASES, **MORE_CASES}.items())
        for hazard in sorted(HOSTILE.get(kind, {}))
    ],
)
def test_hostile_input_is_one_located_line_exit_2_and_no_output(
    tmp_path: Path,
    good: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    hazard: str,
) -> None:
    argv, kind = {**CASES, **MORE_CASES}[command]
    work = tmp_path / "work"
    work.mkdir()
    path = work / f"bad-input{SUFFIX[kind]}"
    text, line = HOSTILE[kind][hazard]
    path.write_bytes(("\n" + text + "\n").encode("utf-8"))
    out = tmp_path / "out" / "result.jsonl"
    out.parent.mkdir()
    code, stdout, err = cli(capsys, *argv(str(path), good, out))
    assert "Traceback" not in err + stdout
    where = f"{path.name}:{line}"
    if command.startswith(tuple(REPORTS_RECORDS)):
        assert code == 1, (code, stdout, err)
        assert where in _report(out, stdout)
    else:
        assert code == 2, (code, stdout, err)
        lines = error_lines(err)
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        assert where in lines[0], lines[0]
    assert _left(out, command, code) == []
    assert [p.name for p in work.iterdir()] == [path.name]
