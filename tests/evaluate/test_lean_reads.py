"""``results`` and ``report`` read only the columns they need from the run store.

A store whose 32 answers are each 250 KB long: exporting columns that are not made of the
answer never names ``response`` in a query, and neither that export nor loading a
report holds more than a small fraction of the answers' text in memory at once (the
report's trace checks take the answers one at a time).
"""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.columns import COLUMNS, JOINED, ExportColumn, pick_columns, sources_of
from twosat_formal.evaluate.export import export_results
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.run import EvalItem, run_eval
from twosat_formal.evaluate.store import RunStore
from twosat_formal.make.generators import generate
from twosat_formal.report.load import load_report_data
from twosat_formal.verbalize import verbalize

ROWS = 32
PAD = 250_000  # characters appended to every stored answer
TOTAL = ROWS * PAD


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store of ``ROWS`` answered template prompts with their instances, every answer
    padded to ``PAD`` characters after its real text."""
    items = []
    for k in range(ROWS):
        inst = generate("backbone", clauses=6, seed=k, beta=0.5)
        template = ("logic", "door")[k % 2]
        record = verbalize(inst.formula, template, seed=k).record(inst.id, None)
        items.append(EvalItem(record, inst.formula, inst.label, inst.to_record()))
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as run_store:
        asyncio.run(run_eval([load_model("ref/oracle")], items, run_store))
        assert sum(1 for _ in run_store.instances()) == ROWS
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE results SET response = response || '\n' || ?", ("z" * (PAD - 1),))
    db.close()
    return path


@contextmanager
def peak_bytes() -> Iterator[list[int]]:
    """The peak of Python's traced allocations inside the block, in bytes."""
    box = [0]
    tracemalloc.start()
    try:
        yield box
    finally:
        box[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


@contextmanager
def queries(store: RunStore) -> Iterator[list[str]]:
    """Every SQL statement the store's connection runs inside the block."""
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        store._db.set_trace_callback(None)


def test_an_export_without_response_never_selects_it(store: Path) -> None:
    with RunStore(store, readonly=True) as run_store, queries(run_store) as seen:
        rows = list(run_store.export_rows(columns=["model", "decision_correct", "template"]))
    assert len(rows) == ROWS
    assert all(tuple(row) == ("template", "model", "decision_correct") for row in rows)
    assert all(row["decision_correct"] is True and row["template"] for row in rows)
    selects = [q for q in seen if q.lstrip().upper().startswith("SELECT")]
    assert selects and not any("response" in q for q in selects)
    # no column of the instances table is needed, so that table is not joined
    assert not any("instances" in q for q in selects)


def test_the_lean_rows_equal_the_full_rows_on_their_columns(store: Path) -> None:
    names = ["instance_id", "prompt_id", "template", "clauses", "params", "failure", "sample"]
    with RunStore(store, readonly=True) as run_store:
        full = list(run_store.export_rows())
        lean = list(run_store.export_rows(columns=names))
    assert lean == [{k: row[k] for k in pick_columns(names)} for row in full]
    assert all(len(row["response"]) > PAD for row in full)


def exported_rows(
    capsys: pytest.CaptureFixture[str], store: Path, columns: str
) -> list[dict[str, Any]]:
    """The rows ``results --columns columns`` writes to stdout; the command must succeed."""
    code, out, err = cli(capsys, "results", str(store), "--columns", columns)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_results_command_writes_the_columns_asked(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = exported_rows(capsys, store, "model,decision,label")
    assert [tuple(row) for row in rows] == [("model", "label", "decision")] * ROWS


def test_an_export_without_response_holds_no_answer_in_memory(store: Path) -> None:
    with RunStore(store, readonly=True) as run_store:
        export_results(run_store, stream=io.StringIO(), columns=["model"])  # warm up
        buffer = io.StringIO()
        with peak_bytes() as peak:
            count = export_results(run_store, stream=buffer, columns=["model", "decision"])
    assert count == ROWS == len(buffer.getvalue().splitlines())
    # one answer alone would be PAD bytes; all of them TOTAL
    assert peak[0] < PAD // 4, (peak[0], TOTAL)


def test_results_command_asking_for_response_gets_it(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = exported_rows(capsys, store, "response")
    assert len(rows) == ROWS and all(len(row["response"]) > PAD for row in rows)


@pytest.mark.slow
def test_report_holds_one_answer_at_a_time(store: Path) -> None:
    with peak_bytes() as peak:
        data = load_report_data(store)
    assert len(data.rows) == ROWS and len(data.traces) == ROWS
    assert all(row.get("response") is None for row in data.rows)
    # the trace checks read each answer in turn (checking one takes about ten times
    # its size); holding all of them would take TOTAL bytes and more
    assert peak[0] < TOTAL // 2, (peak[0], TOTAL)


def test_an_unknown_column_is_one_clear_error(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "results", str(store), "--columns", "model,answer")
    assert code == 2
    assert "no export column 'answer'" in err and "Traceback" not in err
    with pytest.raises(ConfigError):
        pick_columns(["nope"])


@pytest.mark.parametrize("names", ["", ",", " , "])
def test_an_empty_column_list_is_one_clear_error(
    store: Path, capsys: pytest.CaptureFixture[str], names: str
) -> None:
    code, out, err = cli(capsys, "results", str(store), "--columns", names)
    assert code == 2 and out == ""
    assert "--columns names no column: give one or more" in err and "Traceback" not in err


def test_every_builtin_column_declares_what_it_reads(store: Path) -> None:
    def length(row: Any) -> int:
        return len(row.get("response") or "")

    assert ExportColumn("lean_length", "int", length, "answer length").sources() is None
    declared = ExportColumn("lean_declared", "int", length, "", frozenset({"response"}))
    assert declared.sources() == frozenset({"response"})
    db = sqlite3.connect(store)
    table = {row[1] for row in db.execute("PRAGMA table_info(results)")}
    db.close()
    for name in COLUMNS.names():
        sources = sources_of([name])
        assert sources is not None and sources <= table | set(JOINED), name
