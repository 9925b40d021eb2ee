"""``twosat-formal eval`` and ``twosat-formal results`` through the CLI entry point."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from twosat_formal.evaluate.run import EvalItem
from twosat_formal.evaluate.store import EXPORT_COLUMNS, RunStore

Inputs = tuple[Path, Path, list[EvalItem]]


@pytest.fixture
def inputs(tmp_path: Path) -> Inputs:
    items = make_items(12, seed=5)
    prompts, dataset = write_inputs(tmp_path, items)
    return prompts, dataset, items


def eval_argv(inputs: Inputs, store: Path) -> list[str]:
    """``eval`` of the prompts against their dataset into ``store``, without a progress bar."""
    prompts, dataset, _ = inputs
    return ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store), "--no-progress"]


def test_eval_with_the_oracle_is_all_correct_and_resumable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: Inputs
) -> None:
    items = inputs[2]
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(capsys, *eval_argv(inputs, store), "-m", "ref/oracle", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["done"] == summary["planned"] == len(items)
    assert summary["accuracy"] == 1.0 and summary["failures"] == {"correct": len(items)}
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.export_rows())
        assert len(list(run_store.instances())) == len(items)
    labels = {item.prompt.id: item.label for item in items}
    assert all(row["label"] == labels[row["prompt_id"]] for row in rows)
    assert all(row["witness_valid"] is (row["label"] == "SAT" or None) for row in rows)
    # run again: nothing is asked twice
    code, out, _ = cli(capsys, *eval_argv(inputs, store), "-m", "ref/oracle")
    assert code == 0
    assert f"{len(items)} planned, {len(items)} already stored, 0 done now" in out


def test_eval_samples_limit_and_several_models(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: Inputs
) -> None:
    store = tmp_path / "runs.sqlite"
    code, _, err = cli(
        capsys, *eval_argv(inputs, store),
        "-m", "ref/sat-biased", "-m", "ref/coin", "--samples", "2", "--limit", "3",
        "--seed", "4", "--temperature", "0.5", "--top-p", "0.9",
    )  # fmt: skip
    assert code == 0, err
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.results())
    assert len(rows) == 2 * 2 * 3
    assert Counter((r["model"], r["sample"]) for r in rows) == {
        (m, s): 3 for m in ("ref/sat-biased", "ref/coin") for s in (0, 1)
    }
    params = json.loads(rows[0]["params"])
    assert params == {"max_tokens": 32768, "seed": 4, "temperature": 0.5, "top_p": 0.9}
    biased = [r for r in rows if r["model"] == "ref/sat-biased"]
    assert all(r["decision"] == "SAT" for r in biased)
    assert all(r["failure"] == "wrong-decision" for r in biased if r["label"] == "UNSAT")


def test_results_exports_the_same_rows_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: Inputs
) -> None:
    items = inputs[2]
    store = tmp_path / "runs.sqlite"
    code, _, err = cli(capsys, *eval_argv(inputs, store), "-m", "ref/coin")
    assert code == 0, err
    code, out, err = cli(capsys, "results", str(store))
    assert code == 0 and f"{len(items)} rows written to stdout" in err
    from_stdout = [json.loads(line) for line in out.splitlines()]
    assert [list(row) for row in from_stdout] == [list(EXPORT_COLUMNS)] * len(items)
    exported = {}
    for suffix in ("jsonl", "csv", "parquet"):
        target = tmp_path / f"out.{suffix}"
        code, _, err = cli(capsys, "results", str(store), "--out", str(target))
        assert code == 0, err
        if suffix == "jsonl":
            rows = [json.loads(line) for line in target.read_text().splitlines()]
        elif suffix == "csv":
            with open(target, newline="") as handle:
                reader = csv.DictReader(handle)
                assert tuple(reader.fieldnames or ()) == EXPORT_COLUMNS
                rows = list(reader)
        else:
            table = pq.read_table(target)
            assert tuple(table.column_names) == EXPORT_COLUMNS
            rows = table.to_pylist()
        exported[suffix] = rows
    assert exported["jsonl"] == from_stdout == exported["parquet"]
    for row, text_row in zip(exported["jsonl"], exported["csv"], strict=True):
        for column in EXPORT_COLUMNS:
            value = row[column]
            if isinstance(value, bool):
                value = str(value).lower()
            expected = "" if value is None else str(value)
            assert text_row[column] == expected
    ids = {item.prompt.id: item for item in items}
    for row in from_stdout:
        item = ids[row["prompt_id"]]
        assert (row["instance_id"], row["template"], row["label"]) == (
            item.prompt.instance_id,
            item.prompt.template,
            item.label,
        )
        assert row["decision"] in ("SAT", "UNSAT", None)
        assert (row["witness_valid"] is None) == (row["label"] == "UNSAT")


def test_eval_without_a_dataset_reads_formulas_back_from_the_prompts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: Inputs
) -> None:
    prompts, _, items = inputs
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(
        capsys, "eval", str(prompts), "--store", str(store), "-m", "ref/oracle", "--no-progress",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["failures"] == {"correct": len(items)}
    with RunStore(store, readonly=True) as run_store:
        labels = {r["prompt_id"]: r["label"] for r in run_store.results()}
    assert labels == {item.prompt.id: item.label for item in items}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "{prompts}", "-m", "gpt-4o", "--dataset", "{dataset}"], "unknown model spec"),
        (["eval", "{prompts}", "-m", "ref/oracle", "--mode", "fax"], "unknown mode"),
        (["eval", "{tmp}/missing.jsonl", "-m", "ref/oracle"], "no such file"),
        (["results", "{tmp}/missing.sqlite"], "no such file"),
        (["results", "{store}", "--out", "{tmp}/x.xlsx"], "use .jsonl, .csv or .parquet"),
        (["results", "{prompts}"], "not a run store"),
    ],
)
def test_user_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    inputs: Inputs,
    argv: list[str],
    message: str,
) -> None:
    prompts, dataset, _ = inputs
    store = tmp_path / "runs.sqlite"
    RunStore(store).close()
    names = {"prompts": prompts, "dataset": dataset, "tmp": tmp_path, "store": store}
    code, _, err = cli(capsys, *[a.format(**names) for a in argv])
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_a_prompt_whose_instance_is_missing_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: Inputs
) -> None:
    dataset = inputs[1]
    lines = dataset.read_text().splitlines()
    dataset.write_text("\n".join(lines[1:]) + "\n")
    code, _, err = cli(capsys, *eval_argv(inputs, tmp_path / "runs.sqlite"), "-m", "ref/oracle")
    assert code == 2 and "is not in" in err
