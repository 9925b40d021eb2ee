"""``results`` rows carry what a researcher groups by: family, clauses, knobs, template,
error, witness reason and the lenient reading, with no join left to do."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from twosat_formal.evaluate.columns import BUILTIN_COLUMNS, COLUMNS, ExportColumn, export_columns
from twosat_formal.io.instance import write_instances
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record
from twosat_formal.verbalize.prompts import write_prompts

WANTED = {
    "family", "clauses", "params", "template", "error", "witness_reason",
    "lenient_failure", "lenient_decision", "lenient_decision_correct", "lenient_witness_valid",
}  # fmt: skip


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict, dict]:
    """A store with answers to real generated instances: one request per prompt fails."""
    instances = [
        generate("backbone", clauses=12, seed=1, beta=0.5),
        generate("implication-cycle", clauses=10, seed=2),
    ]
    records = [
        prompt_record(inst.formula, template, instance_id=inst.id, seed=k)
        for k, inst in enumerate(instances)
        for template in ("logic", "door")
    ]
    write_instances(instances, tmp_path / "d.jsonl")
    write_prompts(records, tmp_path / "p.jsonl")
    failing = records[0].text
    answer = '{"nobody": "true"}\nThe answer is: Yes'  # a witness naming no entity

    def plan(prompt: str, attempt: int) -> str:
        return "500" if prompt == failing else "ok"

    with FaultServer(plan=plan, answer=lambda prompt: answer) as server:
        code, _, err = cli(
            capsys, "eval", str(tmp_path / "p.jsonl"), "--dataset", str(tmp_path / "d.jsonl"),
            "--model", "openai/m", "--base-url", server.url, "--max-attempts", "1",
            "--store", str(tmp_path / "s.sqlite"), "--no-progress",
        )  # fmt: skip
    assert code == 0, err
    return (
        tmp_path / "s.sqlite",
        {inst.id: inst for inst in instances},
        {record.id: record for record in records},
    )


def test_rows_carry_family_clauses_knobs_template_error_and_lenient_columns(
    store: tuple[Path, dict, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    path, instances, records = store
    code, out, _ = cli(capsys, "results", str(path))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(rows) == 4
    assert set(rows[0]) >= WANTED
    assert tuple(rows[0]) == export_columns()
    for row in rows:
        instance = instances[row["instance_id"]]
        assert row["family"] == instance.family
        assert row["clauses"] == instance.formula.num_clauses
        assert json.loads(row["params"]) == instance.params
        assert row["template"] == records[row["prompt_id"]].template
        if row["failure"] == "error":
            assert row["error"].startswith("HTTP 500 from") and row["response"] is None
        else:
            assert row["error"] is None and row["decision"] == "SAT"
            assert row["lenient_decision"] == "SAT"
            assert isinstance(row["lenient_decision_correct"], bool)
            if row["label"] == "SAT":  # the witness names no entity: invalid, and why
                assert row["witness_valid"] is False and row["witness_reason"]
    assert sum(row["failure"] == "error" for row in rows) == 1
    assert {row["family"] for row in rows} == {"backbone", "implication-cycle"}


def test_a_registered_column_reaches_every_format(
    store: tuple[Path, dict, dict],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = store[0]
    extra = ExportColumn("answer_chars", "int", lambda r: len(r.get("response") or ""), "demo")
    monkeypatch.setitem(COLUMNS._items, extra.name, extra)  # as add_column does, undone after
    assert export_columns()[-1] == "answer_chars"
    for suffix in ("jsonl", "csv", "parquet"):
        target = tmp_path / f"r.{suffix}"
        assert cli(capsys, "results", str(path), "--out", str(target))[0] == 0
        if suffix == "jsonl":
            rows = [json.loads(line) for line in target.read_text().splitlines()]
        elif suffix == "csv":
            with open(target, newline="") as handle:
                rows = list(csv.DictReader(handle))
        else:
            rows = pq.read_table(target).to_pylist()
        assert list(rows[0]) == list(export_columns())
        values = sorted(int(row["answer_chars"]) for row in rows)
        assert values[0] == 0 and values[-1] > 0  # the failed request has no answer


def test_builtin_columns_are_registered_once_in_order() -> None:
    assert export_columns()[: len(BUILTIN_COLUMNS)] == tuple(c.name for c in BUILTIN_COLUMNS)
    assert len(set(export_columns())) == len(export_columns())


_ENTRY = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text(max_size=3))
_SOURCES = sorted({key for column in BUILTIN_COLUMNS for key in column.sources() or ()})


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(_SOURCES), _ENTRY), st.dictionaries(st.text(), _ENTRY))
def test_a_builtin_column_reads_only_its_sources(row: dict, noise: dict) -> None:
    """Each built-in column is a function of the entries it names (so a lean read that
    fetches only those gives the same value); flags are booleans or null; a column
    with a default is never null."""
    for column in BUILTIN_COLUMNS:
        sources = column.sources()
        assert sources is not None
        value = column.value(row)
        mine = {key: row[key] for key in sources if key in row}
        others = {key: entry for key, entry in noise.items() if key not in sources}
        assert column.value({**others, **mine}) == value
        assert column.value(mine) == value
        if column.kind == "bool":
            assert value is None or isinstance(value, bool)
        if column.name in ("strategy", "question_type"):
            assert value
        if (
            len(sources) == 1
            and column.kind != "bool"
            and column.name
            not in (
                "strategy",
                "question_type",
            )
        ):
            assert value == row.get(next(iter(sources)))
