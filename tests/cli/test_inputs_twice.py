"""A file given twice to a command that reads several is refused: its records would
count twice.

``certify d.jsonl d.jsonl`` failed every record as a repeated id (JUnit doubled the
failures) and ``store merge A.sqlite A.sqlite`` doubled A's runs. Each command that
takes several dataset or store files refuses one named twice, however it is named
again (the same path, ``./``, a symbolic link, a hard link), with exit code 2, one
line naming the file as given twice, and nothing written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.test_outputs import inputs as inputs  # the fixture
from tests.support.cli import cli

#: How a file is named again.
HOW = ["same", "dot", "symlink", "hardlink"]


def again(path: Path, how: str) -> str:
    """Another name of ``path``, made as ``how`` says."""
    if how == "same":
        return str(path)
    if how == "dot":
        return str(path.parent / "." / path.name)
    other = path.parent / f"again-{path.name}"
    if how == "symlink":
        other.symlink_to(path.name)
    else:
        os.link(path, other)
    return str(other)


def refused(code: int, err: str, noun: str) -> None:
    assert code == 2, err
    assert err.startswith(f"error: {noun} ") and "is given twice" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("form", ["text", "junit"])
def test_certify_refuses_a_dataset_given_twice(
    how: str,
    form: str,
    inputs: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = inputs / "dataset.jsonl"
    out = inputs / "report.out"
    code, _, err = cli(
        capsys, "certify", str(data), str(inputs / "prompts.jsonl"), again(data, how),
        "--format", form, "--output", str(out), "--no-progress",
    )  # fmt: skip
    refused(code, err, "dataset")
    assert not out.exists()


@pytest.mark.parametrize("how", HOW)
def test_export_refuses_an_input_given_twice(
    how: str,
    inputs: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data, prompts = inputs / "dataset.jsonl", inputs / "prompts.jsonl"
    out = inputs / "exported"
    code, _, err = cli(
        capsys, "export", str(data), str(prompts), again(prompts, how), "--to", "hf",
        "--out", str(out),
    )  # fmt: skip
    refused(code, err, "input")
    assert not out.exists()


@pytest.mark.parametrize("how", HOW)
def test_store_merge_refuses_a_store_given_twice(
    how: str,
    inputs: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = inputs / "runs.sqlite"
    out = inputs / "merged.sqlite"
    code, _, err = cli(capsys, "store", "merge", str(store), again(store, how), "--out", str(out))
    refused(code, err, "store")
    assert not out.exists()


def test_distinct_files_are_taken(inputs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The check refuses repeats only: distinct files, and one store, are taken."""
    code, _, err = cli(
        capsys, "certify", str(inputs / "dataset.jsonl"), str(inputs / "prompts.jsonl"),
        "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    code, _, err = cli(
        capsys, "store", "merge", str(inputs / "runs.sqlite"), "--out", str(inputs / "m.sqlite")
    )
    assert code == 0, err
