"""No input is destroyed or touched: outputs that alias inputs, special files, links.

Real files, real FIFOs, real SQLite and real subprocesses; the expected outcome of
each alias case comes from how the test built its files (which name is a link or a
hard link of which), not from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.evaluate.test_store_merge import write_result
from tests.support.cli import cli
from twosat_formal._util.atomic import atomic_output, atomic_path, refuse_aliases, stream_target
from twosat_formal.cli.outputs import guard_outputs
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.store import RunStore
from twosat_formal.evaluate.store_merge import merge_stores
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def inputs(tmp_path: Path) -> Path:
    """A folder with a dataset, its prompts, answers and a run store of them."""
    inst = generate("backbone", clauses=8, seed=1)
    made = prompt_record(inst.formula, "logic", instance_id=inst.id, seed=1)
    (tmp_path / "dataset.jsonl").write_text(inst.to_json() + "\n", encoding="utf-8")
    (tmp_path / "prompts.jsonl").write_text(json.dumps(made.to_record()) + "\n", "utf-8")
    answer = {"prompt_id": made.id, "response": "The answer is: Yes"}
    (tmp_path / "answers.jsonl").write_text(json.dumps(answer) + "\n", encoding="utf-8")
    write_result(tmp_path / "runs.sqlite", "HTTP 503")
    return tmp_path


# -- special files -------------------------------------------------------------------------


def test_a_device_is_written_as_a_stream_and_never_replaced() -> None:
    before = os.stat("/dev/null")
    with atomic_output("/dev/null") as stream:
        stream.write("gone\n")
    with atomic_path("/dev/null") as path:
        path.write_text("gone too\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_fifo_is_written_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    with atomic_output(fifo) as stream:
        stream.write("one\ntwo\n")
    reader.join(timeout=60)
    assert received == [b"one\ntwo\n"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_a_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to("real.jsonl")
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to("made.jsonl")
    with atomic_output(link) as stream:
        stream.write("new\n")
    with atomic_output(dangling) as stream:
        stream.write("made\n")
    assert link.is_symlink() and os.readlink(link) == "real.jsonl"
    assert real.read_text() == "new\n" and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert dangling.is_symlink() and (tmp_path / "made.jsonl").read_text() == "made\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "dangling.jsonl",
        "link.jsonl",
        "made.jsonl",
        "real.jsonl",
    ]


_WRITE_STDOUT = """
import sys
from twosat_formal._util.atomic import atomic_output
with atomic_output(sys.argv[1]) as stream:
    stream.write("new\\n")
"""


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_dev_stdout_is_the_descriptor_appended_to_not_a_file_replaced(
    tmp_path: Path, name: str
) -> None:
    log = tmp_path / "log.txt"
    log.write_text("old\n")
    inode = log.stat().st_ino
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with open(log, "a") as appended:
        subprocess.run(
            [sys.executable, "-c", _WRITE_STDOUT, name], stdout=appended, env=env, check=True
        )
    assert log.read_text() == "old\nnew\n" and log.stat().st_ino == inode
    piped = subprocess.run(
        [sys.executable, "-c", _WRITE_STDOUT, name],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert piped.stdout == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt"]


def test_what_is_a_stream() -> None:
    assert stream_target("/dev/null") and stream_target("/dev/stdout")
    assert stream_target("/dev/fd/2") and stream_target("/proc/self/status")
    assert not stream_target("/nonexistent/out.jsonl")


def test_the_cli_writes_dev_null_and_a_symlinked_output_through(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = os.stat("/dev/null")
    code, _, err = cli(capsys, "pairs", str(inputs / "dataset.jsonl"), "--out", "/dev/null")
    assert code == 0, err
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
    real = tmp_path / "twins.jsonl"
    link = tmp_path / "twins-link.jsonl"
    link.symlink_to(real)
    code, _, err = cli(capsys, "pairs", str(inputs / "dataset.jsonl"), "--out", str(link))
    assert code == 0, err
    assert link.is_symlink() and real.read_text().count("\n") == 2


# -- outputs that are inputs ---------------------------------------------------------------


#: Each command with its inputs (under the folder ``D``) and the output it is told to
#: write over one of them.
ALIASES: dict[str, list[str]] = {
    "trace --out STORE": ["trace", "D/runs.sqlite", "--out", "D/runs.sqlite"],
    "batch prepare --out PROMPTS": [
        "batch", "prepare", "D/prompts.jsonl", "-m", "openai/m", "--out", "D/prompts.jsonl",
    ],
    "score --out RESPONSES": [
        "score", "D/answers.jsonl", "--prompts", "D/prompts.jsonl", "--out", "D/answers.jsonl",
    ],
    "score --out --prompts": [
        "score", "D/answers.jsonl", "--prompts", "D/prompts.jsonl", "--out", "D/prompts.jsonl",
    ],
    "score --store --dataset": [
        "score", "D/answers.jsonl", "--prompts", "D/prompts.jsonl", "--out", "D/s.jsonl",
        "--dataset", "D/dataset.jsonl", "--store", "D/dataset.jsonl",
    ],
    "perturb --no-base --out INPUT": [
        "perturb", "D/dataset.jsonl", "--op", "reorder", "--no-base", "--out", "D/dataset.jsonl",
    ],
    "edit --no-base --out INPUT": [
        "edit", "D/dataset.jsonl", "--mode", "cumulative", "--no-base", "--out",
        "D/dataset.jsonl",
    ],
    "pairs --out INPUT": ["pairs", "D/dataset.jsonl", "--out", "D/dataset.jsonl"],
    "verbalize --out INPUT": [
        "verbalize", "D/dataset.jsonl", "-t", "logic", "--out", "D/dataset.jsonl",
    ],
    "verbalize --store --out": [
        "verbalize", "D/dataset.jsonl", "-t", "logic", "--out", "D/p.jsonl", "--store",
        "D/p.jsonl",
    ],
    "eval --store PROMPTS": [
        "eval", "D/prompts.jsonl", "-m", "ref/oracle", "--store", "D/prompts.jsonl",
        "--no-progress",
    ],
    "eval --store --dataset": [
        "eval", "D/prompts.jsonl", "-m", "ref/oracle", "--dataset", "D/dataset.jsonl",
        "--store", "D/dataset.jsonl", "--no-progress",
    ],
    "results --out STORE": ["results", "D/runs.sqlite", "--out", "D/runs.jsonl"],
    "generate --out base_file": [
        "generate", "symmetry", "--set", "base_file=D/base.cnf", "--clauses", "8", "--out",
        "D/base.cnf",
    ],
}  # fmt: skip


@pytest.mark.parametrize("how", ["same", "dot", "symlink", "hardlink"])
@pytest.mark.parametrize("case", sorted(ALIASES))
def test_an_output_that_is_an_input_is_refused_and_nothing_changes(
    inputs: Path, capsys: pytest.CaptureFixture[str], case: str, how: str
) -> None:
    argv = [word.replace("D/", f"{inputs}/") for word in ALIASES[case]]
    (inputs / "base.cnf").write_text("p cnf 2 1\n1 2 0\n")
    if case.startswith("results"):  # results goes by the suffix: its store is runs.jsonl
        os.replace(inputs / "runs.sqlite", inputs / "runs.jsonl")
        argv[1] = str(inputs / "runs.jsonl")
    where = max(
        (
            i
            for i, w in enumerate(argv)
            if w in ("--out", "--store")
            and any(word.split("=")[-1] == argv[i + 1] for word in argv[:i])
        ),
        default=None,
    )
    assert where is not None, "the case names an output that is one of its inputs"
    target = Path(argv[where + 1])
    if not target.exists():  # two outputs: one file an earlier run wrote
        target.write_text("an earlier output\n")
    if how == "dot":
        argv[where + 1] = f"{target.parent}/./{target.name}"
    elif how == "symlink":
        (inputs / "alias").symlink_to(target)
        argv[where + 1] = str(inputs / "alias")
    elif how == "hardlink":
        os.link(target, inputs / "alias")
        argv[where + 1] = str(inputs / "alias")
    before = {p.name: digest(p) for p in inputs.iterdir() if p.is_file()}
    code, _, err = cli(capsys, *argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err
    assert argv[where] in lines[0] and "write to another file" in lines[0], lines[0]
    assert {p.name: digest(p) for p in inputs.iterdir() if p.is_file()} == before


def test_two_different_files_are_no_alias(inputs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = inputs / "twins.jsonl"
    code, _, err = cli(capsys, "pairs", str(inputs / "dataset.jsonl"), "--out", str(out))
    assert code == 0, err
    code, _, err = cli(capsys, "pairs", str(inputs / "dataset.jsonl"), "--out", str(out))
    assert code == 0, err  # an earlier output is no input: it is replaced


#: Names of the alias property test: a file, a second file, a symbolic link to each, a
#: hard link to the first, a link to the link; each with the file it is.
_NAMES = {
    "a": "a",
    "b": "b",
    "link-a": "a",
    "link-b": "b",
    "hard-a": "a",
    "link-link-a": "a",
    "missing": "missing",
}


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("names")
    (folder / "a").write_text("a")
    (folder / "b").write_text("b")
    (folder / "link-a").symlink_to("a")
    (folder / "link-b").symlink_to(folder / "b")
    os.link(folder / "a", folder / "hard-a")
    (folder / "link-link-a").symlink_to("link-a")
    return folder


@settings(max_examples=200)
@given(
    out=st.sampled_from(sorted(_NAMES)),
    read=st.lists(st.sampled_from(sorted(_NAMES)), max_size=4),
    dots=st.booleans(),
)
def test_aliases_are_refused_exactly(named: Path, out: str, read: list[str], dots: bool) -> None:
    """Refused exactly when the output is one of the inputs' files, however named."""
    spelled = f"{named}/sub/../{out}" if dots else str(named / out)
    (named / "sub").mkdir(exist_ok=True)
    expected = any(_NAMES[r] == _NAMES[out] for r in read)
    try:
        refuse_aliases({"out": spelled}, {"INPUT": [named / r for r in read]})
    except ConfigError as error:
        assert expected, error
        assert error.parameter == "out"
    else:
        assert not expected


# -- nothing deleted that the tool did not make ----------------------------------------------


def test_export_leaves_a_partial_folder_it_did_not_make(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "hf"
    mine = tmp_path / "hf.partial"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    empty = tmp_path / "empty"
    empty.mkdir()
    inode = empty.stat().st_ino
    for target in (out, empty):
        files = [str(inputs / "dataset.jsonl"), str(inputs / "prompts.jsonl")]
        argv = ["export", *files, "--to", "hf", "--out", str(target)]
        code, _, err = cli(capsys, *argv, "--no-certify")
        assert code == 0, err
        assert any(target.iterdir())
    assert (mine / "notes.txt").read_text() == "my notes"
    assert empty.stat().st_ino == inode  # the folder given is filled, not replaced
    folders = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert folders == ["empty", "hf", "hf.partial"]


def test_a_failed_merge_keeps_files_it_did_not_make(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    write_result(a, "HTTP 503")
    write_result(b, "HTTP 500")  # one key, another result: the merge is refused
    out = tmp_path / "c.sqlite"
    with pytest.raises(ConfigError, match="conflicting results"):
        merge_stores([a, b], out)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("c.")]
    link = tmp_path / "link.sqlite"
    link.symlink_to("real.sqlite")  # the merge writes through it, and keeps it on failure
    with pytest.raises(ConfigError, match="conflicting results"):
        merge_stores([a, b], link)
    assert link.is_symlink() and not (tmp_path / "real.sqlite").exists()
    merge_stores([a], link)
    assert link.is_symlink() and (tmp_path / "real.sqlite").is_file()
    for suffix in ("-wal", "-shm", "-journal"):  # a stray file is no merge's to replace
        stale = tmp_path / f"c.sqlite{suffix}"
        stale.write_text("not the merge's")
        with pytest.raises(ConfigError, match=f"c.sqlite{suffix} exists"):
            merge_stores([a], out)
        assert not out.exists() and stale.read_text() == "not the merge's"
        stale.unlink()


# -- refused inputs are not modified ---------------------------------------------------------


#: Every command that writes into a store it is given (``--store S``), with its inputs.
STORES = {
    "eval": ["eval", "D/prompts.jsonl", "-m", "ref/oracle", "--no-progress"],
    "score": ["score", "D/answers.jsonl", "--prompts", "D/prompts.jsonl", "--out", "D/s.jsonl"],
    "verbalize --story": [
        "verbalize", "D/dataset.jsonl", "--story", "spy", "-m", "ref/oracle", "--out", "D/s.jsonl",
    ],
}  # fmt: skip


def _foreign(path: Path) -> None:
    """Another application's SQLite file (rollback journal, a table of its own)."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    db.close()


@pytest.mark.parametrize("kind", ["sqlite", "text", "device"])
@pytest.mark.parametrize("command", sorted(STORES))
def test_a_file_that_is_no_store_is_refused_untouched(
    inputs: Path, capsys: pytest.CaptureFixture[str], command: str, kind: str
) -> None:
    foreign = inputs / "app.sqlite"
    if kind == "sqlite":
        _foreign(foreign)
    elif kind == "text":
        foreign.write_text("my notes, not a database\n")
    else:
        foreign = Path("/dev/null")
    before = digest(foreign) if kind != "device" else ""
    argv = [word.replace("D/", f"{inputs}/") for word in STORES[command]]
    code, _, err = cli(capsys, *argv, "--store", str(foreign))
    assert code == 2 and f"error: {foreign}: not a run store" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if kind == "device":
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
        assert not list(Path("/dev").glob("null?*"))
        return
    assert digest(foreign) == before
    assert sorted(p.name for p in inputs.iterdir() if p.name.startswith("app")) == ["app.sqlite"]
    if kind == "sqlite":
        with sqlite3.connect(foreign) as db:
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        db.close()


def test_a_refused_model_leaves_no_new_store(
    inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = inputs / "new.sqlite"
    argv = ["eval", str(inputs / "prompts.jsonl"), "--store", str(store), "--no-progress"]
    for model in ("llamacpp/missing.gguf", "llamacpp/gemma3-270m?n_ctx=abc"):
        code, _, err = cli(capsys, *argv, "-m", model)
        assert code == 2 and err.startswith("error: "), err
        assert not any(p.name.startswith("new.sqlite") for p in inputs.iterdir())
    code, _, err = cli(capsys, *argv, "-m", "ref/oracle")
    assert code == 0, err
    with RunStore(store, readonly=True) as run_store:
        stored = run_store.count()
    code, _, err = cli(capsys, *argv, "-m", "llamacpp/missing.gguf")
    assert code == 2  # an existing store keeps what it holds
    with RunStore(store, readonly=True) as run_store:
        assert run_store.count() == stored == 1


def test_a_bad_answers_file_leaves_no_new_store(
    inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = inputs / "answers.jsonl"
    answers.write_text(answers.read_text() + "{broken\n")
    store = inputs / "scored.sqlite"
    argv = ["score", str(answers), "--prompts", str(inputs / "prompts.jsonl")]
    code, _, err = cli(capsys, *argv, "--out", str(inputs / "s.jsonl"), "--store", str(store))
    assert code == 2 and "answers.jsonl" in err, err
    assert not any(p.name.startswith(("scored.sqlite", "s.jsonl")) for p in inputs.iterdir())


@pytest.mark.slow
def test_standard_input_redirected_from_the_output_is_refused(inputs: Path) -> None:
    dataset = inputs / "dataset.jsonl"
    before = digest(dataset)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-c", "from twosat_formal.cli import main; main()", "pairs", "-"]
    with open(dataset) as stdin:
        done = subprocess.run(
            [*command, "--out", str(dataset)], stdin=stdin, capture_output=True, text=True, env=env
        )
    assert done.returncode == 2 and "is the file standard input reads" in done.stderr
    assert digest(dataset) == before
    piped = subprocess.run(
        [*command, "--out", str(dataset)],
        input=dataset.read_text(),
        capture_output=True,
        text=True,
        env=env,
    )
    assert piped.returncode == 0, piped.stderr  # a pipe is no file: the output is written


@pytest.mark.slow
def test_dev_stdout_appended_to_an_input_is_refused(inputs: Path) -> None:
    """``--out /dev/stdout >> dataset.jsonl`` would read its own output as it grows."""
    dataset = inputs / "dataset.jsonl"
    before = digest(dataset)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-c", "from twosat_formal.cli import main; main()", "perturb"]
    command += [str(dataset), "--op", "reorder", "--out", "/dev/stdout"]
    with open(dataset, "a") as appended:
        done = subprocess.run(command, stdout=appended, stderr=subprocess.PIPE, text=True, env=env)
    assert done.returncode == 2 and "--out /dev/stdout is the input" in done.stderr
    assert digest(dataset) == before
    other = inputs / "other.jsonl"
    with open(other, "a") as appended:
        done = subprocess.run(command, stdout=appended, stderr=subprocess.PIPE, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert other.read_text().count("\n") == 2


def test_an_output_that_cannot_be_written_is_named_as_given(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    dataset = str(inputs / "dataset.jsonl")
    for out, named in ((folder, f"{folder}: is a directory"), (tmp_path / "no" / "x.jsonl", "no")):
        code, _, err = cli(capsys, "pairs", dataset, "--out", str(out))
        assert code == 2 and err.startswith(f"error: {tmp_path / named}"), err
        assert ".partial" not in err
    assert list(folder.iterdir()) == []


def test_export_writes_through_a_link_to_an_empty_folder(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    files = [str(inputs / "dataset.jsonl"), str(inputs / "prompts.jsonl")]
    argv = ["export", *files, "--to", "hf", "--out", str(link), "--no-certify"]
    code, _, err = cli(capsys, *argv)
    assert code == 0, err
    assert link.is_symlink() and any(real.iterdir())


# -- every output is guarded -----------------------------------------------------------------

#: Path options that a command only reads (``--cache``: a folder of the tool's own
#: files, which it reads and writes inside, never a path it replaces).
READ_OPTIONS = frozenset({"--dataset", "--prompts", "--cache"})
#: The metavars of options that take a path.
PATH_METAVARS = frozenset({"FILE", "DIR", "OUT", "FOLDER", "PATH"})


def _options(command: object, path: str) -> list[tuple[str, object]]:
    subs = getattr(command, "commands", {})
    if subs:
        return [pair for name, sub in subs.items() for pair in _options(sub, f"{path} {name}")]
    return [(path, p) for p in getattr(command, "params", ()) if p.param_type_name == "option"]


def test_every_path_option_is_read_or_guarded_as_an_output() -> None:
    """An option that takes a path is an input or an output that the guard checks: a
    writing option missing from OUTPUT_OPTIONS would replace the dataset it is given,
    with exit 0."""
    from twosat_formal.cli.app import _load
    from twosat_formal.cli.commands import COMMANDS
    from twosat_formal.cli.outputs import OUTPUT_OPTIONS

    unplaced = [
        (path, param.opts)  # type: ignore[attr-defined]
        for name in COMMANDS
        for path, param in _options(_load(name), name)
        if param.metavar in PATH_METAVARS  # type: ignore[attr-defined]
        and not (OUTPUT_OPTIONS | READ_OPTIONS) & set(param.opts)  # type: ignore[attr-defined]
    ]
    assert unplaced == []


def test_certify_output_over_its_dataset_is_refused_and_the_dataset_kept(
    inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = inputs / "dataset.jsonl"
    before = digest(dataset)
    for spelled in (str(dataset), f"{inputs}/./dataset.jsonl"):
        code, _, err = cli(capsys, "certify", str(dataset), "--output", spelled, "--no-progress")
        assert code == 2, err
        assert err.startswith("error: --output ") and "Traceback" not in err
        assert f"is the input {dataset} (DATASET)" in err
        assert digest(dataset) == before


def test_an_output_in_a_missing_folder_names_the_folder_as_a_folder(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "no such file" for a folder; nothing is made."""
    dataset = str(inputs / "dataset.jsonl")
    missing = tmp_path / "out" / "no" / "such"
    (tmp_path / "out").mkdir()
    for argv in (
        ["pairs", dataset, "--out", str(missing / "x.jsonl")],
        ["generate", "backbone", "--no-progress", "--out", str(missing / "x.jsonl")],
        ["inspect", str(inputs / "f.cnf"), "--graph", str(missing / "g.dot")],
        ["certify", dataset, "--no-progress", "--output", str(missing / "r.json")],
    ):
        (inputs / "f.cnf").write_text("p cnf 1 1\n1 0\n", encoding="utf-8")
        code, _, err = cli(capsys, *argv)
        assert (code, err) == (2, f"error: {missing}: no such folder\n")
    assert list((tmp_path / "out").iterdir()) == []


def _two_inputs() -> click.Command:
    """A command of two inputs and an output that leaves standard input to the guard."""

    @click.command()
    @click.argument("source", type=click.Path(path_type=Path))
    @click.option("--extra", type=click.Path(path_type=Path))
    @click.option("--out", type=click.Path(path_type=Path))
    def merge(source: Path, extra: Path | None, out: Path | None) -> None:
        print("merged")

    return guard_outputs(merge)


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        (["-", "--extra", "-", "--out", "o.jsonl"], True),
        (["--extra", "-", "-"], True),  # named in the order of the parameters all the same
        (["-", "--extra", "e.jsonl"], False),
        (["s.jsonl", "--extra", "-"], False),
    ],
)
def test_every_guarded_command_refuses_standard_input_for_two_inputs(
    argv: list[str], refused: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """The guard refuses it for any command, not only those that ask (eval, score, batch)."""
    command = _two_inputs()
    if not refused:
        command.main(argv, standalone_mode=False)
        assert capsys.readouterr().out == "merged\n"
        return
    with pytest.raises(ConfigError) as info:
        command.main(argv, standalone_mode=False)
    assert str(info.value) == (
        "SOURCE and --extra both read standard input (-): it is read once; give all but one a file"
    )
    assert info.value.parameter == "extra" and capsys.readouterr().out == ""


def test_an_output_that_is_a_folder_is_refused_in_one_wording(
    tmp_path: Path, inputs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``certify --output`` refuses it before its run as every writer refuses it."""
    dataset = str(inputs / "dataset.jsonl")
    folder = tmp_path / "folder"
    folder.mkdir()
    for argv in (
        ["pairs", dataset, "--out", str(folder)],
        ["certify", dataset, "--no-progress", "--output", str(folder)],
    ):
        code, out, err = cli(capsys, *argv)
        assert (code, err) == (2, f"error: {folder}: is a directory, not a file\n"), out
    assert list(folder.iterdir()) == []


def _leaves(command: object, path: str) -> list[tuple[str, object]]:
    subs = getattr(command, "commands", {})
    if subs:
        return [pair for name, sub in subs.items() for pair in _leaves(sub, f"{path} {name}")]
    return [(path, command)]


def _inputs_of(command: object) -> list[str]:
    """The parameters of ``command`` that may name an input file (or ``-``)."""
    from twosat_formal.cli.outputs import NAMES, OUTPUT_OPTIONS

    return [
        p.name
        for p in getattr(command, "params", ())
        if (p.param_type_name == "argument" and p.name not in NAMES)
        or (
            p.param_type_name == "option"
            and (p.metavar in PATH_METAVARS or READ_OPTIONS & set(p.opts))
            and not OUTPUT_OPTIONS & set(p.opts)
        )
    ]


def test_every_command_that_reads_two_inputs_is_guarded() -> None:
    """The guard refuses standard input for two inputs, so every command that may read
    two has it (a command without an output or a list would not be wrapped)."""
    from twosat_formal.cli.app import _load
    from twosat_formal.cli.commands import COMMANDS

    two = [
        (path, command)
        for name in COMMANDS
        for path, command in _leaves(_load(name), name)
        if len(_inputs_of(command)) > 1
    ]
    assert {path for path, _ in two} >= {"eval", "score", "batch prepare"}
    unguarded = [path for path, cmd in two if not getattr(cmd.callback, "_guarded", False)]
    assert unguarded == []
