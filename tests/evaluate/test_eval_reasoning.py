"""``eval`` keeps the reasoning a server sends beside the answer: stored, in ``results``,
read by ``trace``, carried by ``score``; never scored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import answers_for, make_items, write_inputs
from tests.support.faultserver import FaultServer
from tests.support.jsonl import read_jsonl, write_jsonl
from twosat_formal.cli import main
from twosat_formal.evaluate.store import RunStore
from twosat_formal.evaluate.store_merge import merge_stores
from twosat_formal.integrations.answers import custom_id, read_answers


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def thought_of(prompt: str) -> str:
    """Reasoning that restates the prompt's first rule, then claims the wrong answer."""
    return prompt.splitlines()[1] + "\nSo the answer is: maybe.\nThe answer is: Yes"


def test_reasoning_content_is_stored_exported_and_traced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(6)
    prompts, dataset = write_inputs(tmp_path, items)
    with_reasoning = {item.prompt.text for item in items[::2]}
    answers = answers_for(items)
    store = tmp_path / "runs.sqlite"
    with FaultServer(
        answer=answers, reasoning=lambda p: thought_of(p) if p in with_reasoning else None
    ) as server:
        code, out, err = run(
            capsys, "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
            "--base-url", server.url, "--store", str(store), "--no-progress", "--json",
        )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["failures"] == {"correct": len(items)}  # the reasoning is not scored
    results = tmp_path / "results.jsonl"
    assert run(capsys, "results", str(store), "--out", str(results))[0] == 0
    rows = {row["prompt_id"]: row for row in read_jsonl(results)}
    for item in items:
        row = rows[item.prompt.id]
        expected = thought_of(item.prompt.text) if item.prompt.text in with_reasoning else None
        assert row["reasoning"] == expected
        assert row["response"] == answers[item.prompt.text] and row["failure"] == "correct"
    traces = tmp_path / "traces.jsonl"
    code, _, err = run(capsys, "trace", str(store), "--out", str(traces), "--no-progress")
    assert code == 0, err
    traced = {row["prompt_id"]: row for row in read_jsonl(traces)}
    assert traced.keys() == rows.keys()
    for item in items:
        reasoning = traced[item.prompt.id]["reasoning"]
        if item.prompt.text not in with_reasoning:
            assert reasoning is None
            continue
        first = reasoning["claims"][0]  # the prompt's own first rule: a clause claim
        assert first["kind"] == "clause" and first["text"] == item.prompt.text.splitlines()[1]
        assert reasoning["counts"]["clause"] >= 1 and 0 < reasoning["coverage"] <= 1

    # score carries the reasoning of batch lines and of the rows results writes
    lines = []
    for row in rows.values():
        message = {"content": row["response"]}
        if row["reasoning"] is not None:
            message["reasoning_content"] = row["reasoning"]
        body = {"model": "m", "choices": [{"message": message, "finish_reason": "stop"}]}
        cid = custom_id(row["prompt_id"], row["sample"])
        lines.append({"custom_id": cid, "response": {"status_code": 200, "body": body}})
    batch = write_jsonl(tmp_path / "batch.jsonl", lines)
    got = {a.prompt_id: a.response.reasoning for a in read_answers(batch) if a.response}
    assert got == {pid: row["reasoning"] for pid, row in rows.items()}
    scored = tmp_path / "scored.jsonl"
    argv = ["--prompts", str(prompts), "--dataset", str(dataset), "--out", str(scored)]
    assert run(capsys, "score", str(results), *argv)[0] == 0
    assert read_jsonl(scored) == read_jsonl(results)


def test_a_store_without_the_reasoning_column_reads_merges_and_gains_it(tmp_path: Path) -> None:
    items = make_items(2)
    prompts, dataset = write_inputs(tmp_path, items)
    old = tmp_path / "old.sqlite"
    argv = ["eval", str(prompts), "--dataset", str(dataset), "--model", "ref/oracle"]
    with pytest.raises(SystemExit):
        main([*argv, "--store", str(old), "--no-progress"])
    with sqlite3.connect(old) as db:  # as a store written before the column existed
        db.execute("ALTER TABLE results DROP COLUMN reasoning")
    with RunStore(old, readonly=True) as store:
        assert [row["reasoning"] for row in store.results()] == [None, None]
    merged = tmp_path / "merged.sqlite"
    merge_stores([old], merged)
    with RunStore(merged, readonly=True) as store:
        assert [row["reasoning"] for row in store.results()] == [None, None]
    with RunStore(old) as store:  # opened for writing, it gains the column
        assert [row["reasoning"] for row in store.results()] == [None, None]
    with sqlite3.connect(old) as db:
        assert "reasoning" in {row[1] for row in db.execute("PRAGMA table_info(results)")}


def test_the_response_cache_keeps_the_reasoning_and_gains_its_column(tmp_path: Path) -> None:
    from twosat_formal.core.model import Response
    from twosat_formal.evaluate.models.cache import ResponseCache

    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as db:  # a cache written before the column existed
        db.execute(
            "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, endpoint TEXT "
            "NOT NULL, prompt_hash TEXT NOT NULL, params TEXT NOT NULL, sample INTEGER NOT "
            "NULL, text TEXT NOT NULL, finish_reason TEXT, prompt_tokens INTEGER, "
            "completion_tokens INTEGER, latency_s REAL, created_at TEXT NOT NULL)"
        )
        db.execute(
            "INSERT INTO responses VALUES ('old', 'm', 'local', 'h', '{}', 0, 'No', 'stop', "
            "1, 2, 0.5, '2024-01-01')"
        )
    answer = Response("The answer is: No", "stop", 3, 4, 0.25, "A, so not A.")
    with ResponseCache(path) as cache:
        assert cache.get("old") == Response("No", "stop", 1, 2, 0.5, None)
        cache.put("new", model="m", endpoint="local", prompt_sha="h", params="{}", sample=1,
                  response=answer)  # fmt: skip
    with ResponseCache(path) as cache:
        assert cache.get("new") == answer
