"""``-`` as an output is standard output, for every writer of :mod:`twosat_formal._util.atomic`.

Written through the process's real standard output (``capfd``), and no file named
``-`` appears; ``./-`` stays a file of that name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import cli
from twosat_formal._util.atomic import atomic_output, atomic_path, stream_target


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
