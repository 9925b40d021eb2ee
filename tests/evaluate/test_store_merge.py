"""``eval --shard`` and ``store merge``: the shards' stores merged hold what one run stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.evaluate.scoring import error_judgement
from twosat_formal.evaluate.store import PromptRow, ResultRow, RunStore, prompt_hash
from twosat_formal.evaluate.store_merge import merge_stores

#: What differs between two runs that asked the same requests: when, how fast, which run.
MEASURED = {"created_at", "latency_s", "run_id"}


def results(store: Path) -> list[dict[str, Any]]:
    with RunStore(store, readonly=True) as run_store:
        return [{k: v for k, v in row.items() if k not in MEASURED} for row in run_store.results()]


def table(store: Path, name: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store) as db:
        return sorted(db.execute(f"SELECT * FROM {name}").fetchall())


def test_shards_merged_equal_one_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    prompts, dataset = write_inputs(tmp_path, make_items(11, seed=3))
    models = ["-m", "ref/oracle", "-m", "ref/coin", "--samples", "2", "--seed", "7"]
    common = [str(prompts), "--dataset", str(dataset), *models, "--no-progress", "--json"]
    whole = tmp_path / "whole.sqlite"
    code, out, err = cli(capsys, "eval", *common, "--store", str(whole))
    assert code == 0, err
    assert json.loads(out)["done"] == 11 * 2 * 2
    parts = []
    for i in range(3):
        part = tmp_path / f"part-{i}.sqlite"
        code, out, err = cli(capsys, "eval", *common, "--store", str(part), "--shard", f"{i}/3")
        assert code == 0, err
        parts.append(part)
    sizes = [len(results(part)) for part in parts]
    assert sum(sizes) == 44 and all(sizes)  # the shards split the work
    merged = tmp_path / "merged.sqlite"
    code, _, err = cli(capsys, "store", "merge", *map(str, parts), "--out", str(merged))
    assert code == 0, err
    assert "44 results (0 identical duplicates)" in err and "3 runs" in err
    assert results(merged) == results(whole)
    assert table(merged, "prompts") == table(whole, "prompts")
    assert table(merged, "instances") == table(whole, "instances")
    with RunStore(merged, readonly=True) as run_store:
        runs = run_store.runs()
        assert [run["info"]["shard"] for run in runs] == ["0/3", "1/3", "2/3"]
        assert [run["info"]["merged_from"] for run in runs] == [str(p) for p in parts]
        assert all(run["status"] == "finished" for run in runs)
        # every merged result points at the merged run of the shard that made it
        by_run = {run["run_id"]: run["info"]["shard"] for run in runs}
        counts = [
            sum(1 for r in run_store.results() if by_run[r["run_id"]] == f"{i}/3") for i in range(3)
        ]
    assert counts == sizes
    # merging a store with a copy of it adds no result: identical results are duplicates
    # (the store itself given twice is refused: tests/cli/test_inputs_twice.py)
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(whole.read_bytes())
    again = tmp_path / "again.sqlite"
    code, _, err = cli(capsys, "store", "merge", str(whole), str(copy), "--out", str(again))
    assert code == 0 and "44 results (44 identical duplicates)" in err
    assert results(again) == results(whole)


def write_result(path: Path, text: str) -> None:
    with RunStore(path) as store:
        run = store.start_run({"name": path.stem})
        judgement = error_judgement("SAT", text)
        store.put(
            ResultRow("ref/coin", "local", prompt_hash("Q"), "p1", "{}", 0, judgement, run_id=run)
        )


def test_conflicting_results_are_refused_and_leave_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    write_result(a, "HTTP 503")
    write_result(b, "HTTP 500")
    out = tmp_path / "c.sqlite"
    with pytest.raises(ConfigError, match=r"b.sqlite: conflicting results for key .*ref/coin"):
        merge_stores([a, b], out)
    assert not out.exists()
    code, _, err = cli(capsys, "store", "merge", str(a), str(b), "--out", str(out))
    assert code == 2 and err.startswith("error: ") and "conflicting results" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


def write_prompt(path: Path, text: str, entities: dict[str, str]) -> None:
    with RunStore(path) as store:
        store.add_prompts([PromptRow("p1", "i1", "logic", "SAT", text, entities, "t", "f")])


@pytest.mark.parametrize(
    ("second", "within"),
    [
        (("Is A true?", {"A": "x1"}), False),  # another text under the id
        (("Is A or B true?", {"A": "x2", "B": "x1"}), False),  # another entity map
        (("Is A true?", {"A": "x1"}), True),  # one store that holds the id twice
    ],
)
def test_one_prompt_id_with_two_texts_is_refused_and_leaves_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    second: tuple[str, dict[str, str]],
    within: bool,
) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    write_prompt(a, "Is A or B true?", {"A": "x1", "B": "x2"})
    write_prompt(a if within else b, *second)
    sources = [a] if within else [a, b]
    out = tmp_path / "c.sqlite"
    with pytest.raises(ConfigError, match=r"prompt p1 has two different texts"):
        merge_stores(sources, out)
    assert not out.exists()
    code, _, err = cli(capsys, "store", "merge", *map(str, sources), "--out", str(out))
    assert code == 2 and err.startswith("error: ") and "prompt p1" in err
    assert not out.exists()


def test_one_prompt_stored_by_two_shards_merges(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    for path in (a, b):
        write_prompt(path, "Is A or B true?", {"A": "x1", "B": "x2"})
    assert merge_stores([a, b], tmp_path / "c.sqlite").prompts == 1


def test_bad_inputs_are_refused(tmp_path: Path) -> None:
    a = tmp_path / "a.sqlite"
    write_result(a, "x")
    with pytest.raises(ConfigError, match="exists"):
        merge_stores([a], a)
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database, not at all" * 100)
    with pytest.raises(RecordError, match="not a run store"):
        merge_stores([a, junk], tmp_path / "out.sqlite")
    assert not (tmp_path / "out.sqlite").exists()
    with pytest.raises(ConfigError):
        merge_stores([], tmp_path / "out.sqlite")


def test_a_store_given_twice_is_refused(tmp_path: Path) -> None:
    """Merged with itself, a store's runs would count twice: refused, nothing written."""
    a = tmp_path / "a.sqlite"
    write_result(a, "x")
    out = tmp_path / "out.sqlite"
    with pytest.raises(ConfigError, match=r"store .*a.sqlite is given twice"):
        merge_stores([a, tmp_path / "." / "a.sqlite"], out)
    assert not out.exists()
