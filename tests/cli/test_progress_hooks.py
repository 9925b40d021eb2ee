"""Progress of ``pairs``, ``score`` and ``trace``: the library hooks and ``--no-progress``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run
from twosat_formal.evaluate.diagnostics.trace import trace_rows
from twosat_formal.evaluate.diagnostics.twins import twins
from twosat_formal.io.instance import write_instances
from twosat_formal.make.generators import generate


def test_twins_report_each_instance() -> None:
    sources = [generate("implication-cycle", clauses=8, seed=s) for s in range(3)]
    calls: list[tuple[int, int]] = []
    run_ = twins(sources, seed=1, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert run_.records == twins(sources, seed=1).records


def test_trace_reports_each_stored_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, prompts, store = tmp_path / "d.jsonl", tmp_path / "p.jsonl", tmp_path / "s.sqlite"
    write_instances([generate("implication-cycle", clauses=8, seed=2)], data)
    assert run(["verbalize", str(data), "-t", "logic", "--out", str(prompts)], capsys)[0] == 0
    argv = ["eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle", "-m", "ref/coin"]
    assert run([*argv, "--store", str(store), "--no-progress"], capsys)[0] == 0
    calls: list[tuple[int, int]] = []
    rows = list(trace_rows(store, progress=lambda done, total: calls.append((done, total))))
    assert calls == [(1, 2), (2, 2)] and len(rows) == 2
    with_bar, without = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run(["trace", str(store), "--out", str(with_bar)], capsys)[0] == 0
    assert run(["trace", str(store), "--out", str(without), "--no-progress"], capsys)[0] == 0
    assert with_bar.read_bytes() == without.read_bytes()


@pytest.mark.parametrize("command", ["pairs", "score", "trace"])
def test_the_commands_take_no_progress(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0 and "--no-progress" in out


def test_pairs_writes_the_same_with_and_without_a_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "d.jsonl"
    write_instances([generate("backbone", clauses=10, seed=s) for s in range(2)], data)
    outs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    assert run(["pairs", str(data), "--out", str(outs[0])], capsys)[0] == 0
    assert run(["pairs", str(data), "--out", str(outs[1]), "--no-progress"], capsys)[0] == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()


def test_the_bar_starts_with_the_total_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bar's task is created with the known total and the first item done, so no
    frame shows an unknown total (``0/?``) for work whose size is known."""
    import importlib
    import io

    from rich.console import Console
    from rich.progress import Progress

    from twosat_formal.cli.progress import with_progress

    cli_app = importlib.import_module("twosat_formal.cli.app")
    terminal = Console(file=io.StringIO(), force_terminal=True, width=100)
    monkeypatch.setattr(cli_app, "err_console", terminal)
    added: list[tuple[object, object]] = []
    add_task = Progress.add_task

    def spy(self: Progress, description: str, *args: object, **kwargs: object) -> object:
        added.append((kwargs.get("total"), kwargs.get("completed")))
        return add_task(self, description, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Progress, "add_task", spy)
    assert list(with_progress(iter("abc"), 3, "counting")) == ["a", "b", "c"]
    assert added == [(3, 1)]
