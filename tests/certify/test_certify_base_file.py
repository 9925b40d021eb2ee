"""``certify`` reads a record's ``base_file`` in the dataset's folder, nowhere else.

A dataset is data: whatever its ``params.base_file`` says (an absolute path, a device,
a FIFO, a path out of the folder, a link out of it), ``certify`` opens no file the
command line did not name but a regular file in the dataset's folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.signals import default_signals
from twosat_formal.make.generators import generate

BASE = "p cnf 3 3\n1 2 0\n-1 3 0\n-2 -3 0\n"


@pytest.fixture()
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A symmetry dataset drawn from ``base.cnf`` beside it (``data/ds.jsonl``)."""
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "base.cnf").write_text(BASE)
    monkeypatch.chdir(folder)
    inst = generate("symmetry", clauses=6, seed=3, base_file="base.cnf")
    path = folder / "ds.jsonl"
    path.write_text(inst.to_json() + "\n")
    monkeypatch.chdir(tmp_path)  # certified from elsewhere: the dataset's folder counts
    return path


def tampered(dataset: Path, base_file: str) -> Path:
    text = dataset.read_text().replace('"base_file": "base.cnf"', f'"base_file": "{base_file}"')
    assert base_file in text
    path = dataset.with_name("tampered.jsonl")
    path.write_text(text)
    return path


def test_a_base_file_in_the_dataset_folder_certifies_from_anywhere(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "certify", str(dataset))
    assert code == 0, out + err


def test_a_changed_base_file_fails(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (dataset.parent / "base.cnf").write_text("p cnf 3 3\n1 2 0\n-1 3 0\n-2 3 0\n")
    code, out, _ = cli(capsys, "certify", str(dataset))
    assert code == 1 and "[regenerate]" in out


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("/etc/shadow", "is an absolute path"),
        ("/dev/zero", "is an absolute path"),
        ("../outside.cnf", "is outside the dataset's folder"),
        ("sub/../../outside.cnf", "is outside the dataset's folder"),
        ("link.cnf", "is outside the dataset's folder"),
        ("zero.cnf", "is outside the dataset's folder"),
        ("folder.cnf", "is not a regular file"),
        ("gone.cnf", "this root was drawn from is not here"),
    ],
)
def test_a_base_file_outside_the_folder_or_not_a_file_is_refused_unread(
    dataset: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    folder = dataset.parent
    (folder.parent / "outside.cnf").write_text(BASE)
    (folder / "sub").mkdir()
    (folder / "link.cnf").symlink_to(folder.parent / "outside.cnf")
    (folder / "zero.cnf").symlink_to("/dev/zero")  # read, it would never end
    (folder / "folder.cnf").mkdir()
    code, out, _ = cli(capsys, "certify", str(tampered(dataset, name)))
    assert code == 1
    failures = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert any(f"the base file {name!r} {message}" in line for line in failures), out


def test_a_fifo_named_as_base_file_is_not_opened(dataset: Path) -> None:
    """Opening a FIFO blocks until a writer comes: refused, it ends at once."""
    os.mkfifo(dataset.parent / "pipe.cnf")
    path = tampered(dataset, "pipe.cnf")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", "from twosat_formal.cli import main; main()", "certify", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,  # a child that opened the FIFO would wait here, and fail the test
        preexec_fn=default_signals,
    )
    assert done.returncode == 1, done.stderr
    assert "the base file 'pipe.cnf' is not a regular file" in done.stdout


def test_generate_says_when_certify_would_not_find_the_base_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "base.cnf").write_text(BASE)
    argv = ["generate", "symmetry", "--clauses", "6", "--set"]
    monkeypatch.chdir(tmp_path)  # the recorded 'data/base.cnf' is not in data/ itself
    code, _, err = cli(capsys, *argv, "base_file=data/base.cnf", "--out", "data/ds.jsonl")
    assert code == 0 and "note: certify reads base_file 'data/base.cnf'" in err, err
    code, out, _ = cli(capsys, "certify", "data/ds.jsonl")
    assert code == 1 and "is not here" in out
    monkeypatch.chdir(folder)
    code, _, err = cli(capsys, *argv, "base_file=base.cnf", "--out", "ds.jsonl")
    assert code == 0 and "note:" not in err, err
    code, out, err = cli(capsys, "certify", str(folder / "ds.jsonl"))
    assert code == 0, out + err
