"""``-`` as an output is standard output, for every writer of :mod:`twosat_formal._util.atomic`.

Written through the process's real standard output (``capfd``), and no file named
``-`` appears; ``./-`` stays a file of that name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import cli
from twosat_formal._util.atomic import (
    atomic_output,
    atomic_path,
    refuse_aliases,
    refuse_repeats,
    stream_target,
)
from twosat_formal.errors import ConfigError


def test_dash_is_a_stream_and_dot_slash_dash_a_file() -> None:
    assert stream_target("-") and stream_target(Path("-"))
    assert not stream_target("./-")


def test_atomic_output_of_dash_writes_standard_output(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with atomic_output("-") as stream:
        stream.write("one\n")
    with atomic_path(Path("-")) as path:
        path.write_text("two\n")
    assert capfd.readouterr().out == "one\ntwo\n"
    assert list(tmp_path.iterdir()) == []
    with atomic_output("./-") as stream:
        stream.write("three\n")
    assert (tmp_path / "-").read_text() == "three\n"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from twosat_formal.make.generators import generate

    path = tmp_path_factory.mktemp("data") / "dataset.jsonl"
    path.write_text(generate("backbone", clauses=8, seed=1).to_json() + "\n", encoding="utf-8")
    return path


def test_certify_output_dash_is_the_report_alone_on_stdout(
    dataset: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a pipe reads is the report, as without --output; no file named ``-``."""
    monkeypatch.chdir(tmp_path)
    argv = ["certify", str(dataset), "--format", "json", "--no-cache", "--no-progress"]
    code, plain, _ = cli(capfd, *argv)
    assert code == 0
    code, dashed, err = cli(capfd, *argv, "--output", "-")
    assert code == 0, err
    first, second = json.loads(plain), json.loads(dashed)
    assert first.pop("seconds") >= 0 and second.pop("seconds") >= 0
    first.pop("z3_seconds"), second.pop("z3_seconds")
    assert first == second and first["ok"] is True
    assert list(tmp_path.iterdir()) == []


def test_inspect_graph_dash_is_the_graph_alone_on_stdout(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    formula = tmp_path.parent / f"{tmp_path.name}.cnf"
    formula.write_text("p cnf 2 2\n1 2 0\n-1 2 0\n", encoding="utf-8")
    code, out, err = cli(capfd, "inspect", str(formula), "--graph", "-", "--graph-format", "json")
    assert code == 0, err
    graph = json.loads(out)
    assert len(graph["nodes"]) == 4 and "structure" in err
    assert list(tmp_path.iterdir()) == []


# -- refuse_repeats --------------------------------------------------------------------------


def _names(folder: Path, picks: list[tuple[int, str]]) -> list[str]:
    """Four distinct files in ``folder``, each pick naming one by its path, through ``./``,
    a link or a hard link."""
    files = [folder / f"f{n}.jsonl" for n in range(4)]
    for n, file in enumerate(files):
        file.write_text(f"{n}\n")  # distinct files, never one inode
    names = []
    for place, (number, how) in enumerate(picks):
        file = files[number]
        if how == "same":
            names.append(str(file))
        elif how == "dot":
            names.append(str(file.parent / "." / file.name))
        else:
            other = folder / f"name{place}-{file.name}"
            if how == "symlink":
                other.symlink_to(file)
            else:
                os.link(file, other)
            names.append(str(other))
    return names


PICKS = st.lists(
    st.tuples(st.integers(0, 3), st.sampled_from(["same", "dot", "symlink", "hardlink"])),
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(picks=PICKS)
def test_refuse_repeats_refuses_exactly_a_file_named_twice(
    tmp_path_factory: pytest.TempPathFactory, picks: list[tuple[int, str]]
) -> None:
    """Four files, each named by its path, through ``./``, a link or a hard link: the
    list is refused exactly when one file is in it twice, naming that name."""
    names = _names(tmp_path_factory.mktemp("repeats"), picks)
    numbers = [number for number, _ in picks]
    twice = next((i for i, n in enumerate(numbers) if n in numbers[:i]), None)
    if twice is None:
        refuse_repeats(names)
    else:
        with pytest.raises(ConfigError, match="is given twice") as info:
            refuse_repeats(names)
        assert str(info.value).startswith(f"file {names[twice]} is given twice")


@settings(max_examples=40, deadline=None)
@given(picks=PICKS.filter(bool))
def test_refuse_aliases_refuses_exactly_an_output_that_is_an_input(
    tmp_path_factory: pytest.TempPathFactory, picks: list[tuple[int, str]]
) -> None:
    """The first name is the output, the others inputs: refused exactly when the output's
    file is among them, however it is named (the same-file test of :func:`refuse_repeats`)."""
    names = _names(tmp_path_factory.mktemp("aliases"), picks)
    numbers = [number for number, _ in picks]
    if numbers[0] not in numbers[1:]:
        refuse_aliases({"out": names[0]}, {"dataset": names[1:]})
        return
    with pytest.raises(ConfigError, match="write to another file") as info:
        refuse_aliases({"out": names[0]}, {"dataset": names[1:]})
    assert str(info.value).startswith(f"--out {names[0]} is the input ")
