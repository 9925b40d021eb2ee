"""The run store: keys, insert-once, durability across a SIGKILL, schema checks, export rows."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import RecordError
from twosat_formal.evaluate.models.base import Response, SamplingParams
from twosat_formal.evaluate.scoring import Judgement, error_judgement
from twosat_formal.evaluate.store import (
    EXPORT_COLUMNS,
    SCHEMA_VERSION,
    PromptRow,
    ResultRow,
    RunStore,
    prompt_hash,
    public_endpoint,
    request_key,
)


def judged(label: str = "UNSAT", failure: str = "correct") -> Judgement:
    return Judgement(
        failure=failure,
        decision=label if failure == "correct" else None,
        decision_correct=failure == "correct",
        witness_valid=None if label == "UNSAT" else failure == "correct",
        label=label,
        lenient_failure=failure,
    )


def row(text: str = "prompt", sample: int = 0, model: str = "ref/oracle", **kw: Any) -> ResultRow:
    options: dict[str, Any] = {
        "model": model,
        "endpoint": "local",
        "prompt_hash": prompt_hash(text),
        "prompt_id": "p-" + text,
        "params": SamplingParams().key(),
        "sample": sample,
        "judgement": judged(),
        "response": Response("The answer is: No", "stop", 10, 5, 0.25),
    }
    options.update(kw)
    return ResultRow(**options)


# -- keys ----------------------------------------------------------------------------------


Parts = tuple[str, str, str, str, int]
PARTS = st.tuples(
    st.text(max_size=12),
    st.text(max_size=12),
    st.text(max_size=12),
    st.text(max_size=12),
    st.integers(0, 1000),
)


@given(PARTS, PARTS)
def test_request_keys_differ_when_any_part_differs(a: Parts, b: Parts) -> None:
    same = request_key(*a) == request_key(*b)
    normalized_a = (a[0], public_endpoint(a[1]), *a[2:])
    normalized_b = (b[0], public_endpoint(b[1]), *b[2:])
    assert same == (normalized_a == normalized_b)


@given(PARTS)
def test_a_request_key_is_the_sha256_of_its_parts_as_compact_json(parts: Parts) -> None:
    model, endpoint, sha, params, sample = parts
    blob = json.dumps(
        [model, public_endpoint(endpoint), sha, params, sample],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert request_key(*parts) == hashlib.sha256(blob.encode("utf-8")).hexdigest()


def test_request_keys_never_change() -> None:
    # a store keeps the keys of its results: a run resumes only if they are made alike
    key = request_key("openai/m", "http://127.0.0.1:1/v1", prompt_hash("é"), '{"max_tokens":8}', 3)
    assert key == "363cab3840b331f2598e6ba93b166937ab5da88c4bb75cc75529ed7fd94c973e"


def test_request_keys_are_the_same_in_every_process() -> None:
    key = request_key("openai/m", "http://127.0.0.1:1/v1", prompt_hash("é"), "{}", 3)
    code = (
        "from twosat_formal.evaluate.store import request_key, prompt_hash;"
        "print(request_key('openai/m', 'http://127.0.0.1:1/v1', prompt_hash('é'), '{}', 3))"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == key


def test_endpoints_lose_credentials_before_they_are_keyed() -> None:
    secret = "https://me:sk-secret@host.example/v1?api_key=sk-secret#frag"
    assert public_endpoint(secret) == "https://host.example/v1"
    assert request_key("m", secret, "h", "{}", 0) == request_key(
        "m", "https://host.example/v1", "h", "{}", 0
    )


# -- insert once ---------------------------------------------------------------------------------


def test_a_key_is_stored_once_and_the_first_result_stays(tmp_path: Path) -> None:
    with RunStore(tmp_path / "s.sqlite") as store:
        first = row(response=Response("The answer is: No", "stop"))
        second = row(response=Response("The answer is: Yes", "stop"))
        assert first.key == second.key
        assert store.put(first) is True
        assert store.put(second) is False
        assert store.count() == 1
        (stored,) = store.results()
        assert stored["response"] == "The answer is: No"
        assert store.stored_among([first.key, "other"]) == {first.key}
        assert [r["key"] for r in store.results(["key"])] == [first.key]


@settings(max_examples=40)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 2), st.text(max_size=5))))
def test_insert_once_keeps_one_row_per_key(puts: list[tuple[str, int, str]]) -> None:
    first: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp, RunStore(Path(tmp) / "s.sqlite") as store:
        for text, sample, answer in puts:
            result = row(text, sample, response=Response(answer, "stop"))
            inserted = store.put(result)
            assert inserted == (result.key not in first)
            first.setdefault(result.key, answer)
        stored = {r["key"]: r["response"] for r in store.results()}
    assert stored == first


#: The integers SQLite's INTEGER holds, and one past each end.
LOWEST, HIGHEST = -(2**63), 2**63 - 1


def with_field(name: str, value: int) -> ResultRow:
    """A result whose integer field ``name`` (of the row or of its response) is ``value``."""
    fields: dict[str, Any] = {name: value}
    if name in ("sample", "attempts"):
        return row(**fields)
    return row(response=Response("The answer is: No", "stop", **fields))


@settings(max_examples=40)
@given(
    name=st.sampled_from(["sample", "attempts", "prompt_tokens", "completion_tokens"]),
    value=st.one_of(
        st.integers(),
        st.sampled_from([LOWEST - 1, LOWEST, HIGHEST, HIGHEST + 1, 10**4000]),
    ),
)
def test_an_integer_a_store_cannot_hold_is_refused_by_name_and_nothing_is_stored(
    name: str, value: int
) -> None:
    """Whoever writes a result (``eval``, ``score``, Python), an integer outside SQLite's
    64-bit range is a clear error naming the field, never an ``OverflowError``."""
    result = with_field(name, value)
    with tempfile.TemporaryDirectory() as tmp, RunStore(Path(tmp) / "s.sqlite") as store:
        if LOWEST <= value <= HIGHEST:
            assert store.put_many([(result, None)]) == 1
            assert [r[name] for r in store.results([name])] == [value]
            return
        for put in (store.put, lambda r: store.put_many([(r, None)])):
            with pytest.raises(RecordError, match=f": {name} .* outside the integers"):
                put(result)
            assert store.count() == 0


def test_each_result_is_committed_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = RunStore(path)
    store.put(row("a"))
    reader = sqlite3.connect(path)  # another connection sees it before any close
    assert reader.execute("SELECT count(*) FROM results").fetchone()[0] == 1
    reader.close()
    store.close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_results_survive_a_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    script = textwrap.dedent(
        f"""
        import os, signal
        from twosat_formal.evaluate.models.base import Response, SamplingParams
        from twosat_formal.evaluate.scoring import Judgement, error_judgement
        from twosat_formal.evaluate.store import ResultRow, RunStore, prompt_hash
        store = RunStore({str(path)!r})
        for i in range(25):
            store.put(ResultRow("m", "local", prompt_hash(str(i)), str(i),
                                SamplingParams().key(), 0, error_judgement("SAT", "x")))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    with RunStore(path, readonly=True) as store:
        assert store.count() == 25


# -- the file --------------------------------------------------------------------------------------


def test_the_store_is_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    with RunStore(tmp_path / "s.sqlite"):
        pass
    db = sqlite3.connect(tmp_path / "s.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    db.close()
    with RunStore(tmp_path / "s.sqlite"):  # reopening adds no second version row
        pass
    db = sqlite3.connect(tmp_path / "s.sqlite")
    assert db.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1
    db.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    RunStore(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    with pytest.raises(RecordError, match="schema version"):
        RunStore(path)


def test_files_that_are_not_run_stores_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "g.sqlite"
    garbage.write_bytes(b"this is not a database, not at all" * 100)
    with pytest.raises(RecordError, match="not a run store"):
        RunStore(garbage)
    other = tmp_path / "o.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    with pytest.raises(RecordError, match="not a run store"):
        RunStore(other)
    with pytest.raises(FileNotFoundError):
        RunStore(tmp_path / "missing.sqlite", readonly=True)


def test_secrets_in_endpoints_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with RunStore(path) as store:
        store.put(row(endpoint="https://u:sk-SENTINEL-1@h.example/v1?key=sk-SENTINEL-1"))
        (stored,) = store.results()
        assert stored["endpoint"] == "https://h.example/v1"
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"SENTINEL" not in blob


# -- prompts, instances, export rows -----------------------------------------------------------


def test_export_rows_join_prompts_and_keep_every_column(tmp_path: Path) -> None:
    with RunStore(tmp_path / "s.sqlite") as store:
        store.add_prompts(
            [PromptRow("p1", "i1", "logic", "UNSAT", "T1", {"A": "x1"}, "true", "false", 0)]
        )
        store.add_prompts(
            [PromptRow("p1", "i1", "logic", "UNSAT", "T1", {"A": "x1"}, "true", "false", 0)]
        )
        store.add_instance(
            {"id": "i1", "family": "backbone", "label": "UNSAT", "dimacs": "p cnf 1 2"}
        )
        store.put(row("T1", 0))
        store.put(row("T1", 1, judgement=error_judgement("UNSAT", "HTTP 500"), response=None))
        store.put(row("T-orphan", 0))
        rows = list(store.export_rows())
        assert [list(r) for r in rows] == [list(EXPORT_COLUMNS)] * 3
        by_prompt = {(r["prompt_id"], r["sample"]): r for r in rows}
        ok = by_prompt[("p1", 0)]
        assert (ok["instance_id"], ok["template"], ok["label"], ok["failure"]) == (
            "i1",
            "logic",
            "UNSAT",
            "correct",
        )
        assert ok["decision"] == "UNSAT" and ok["decision_correct"] is True
        assert ok["witness_valid"] is None and ok["truncated"] is False
        assert (ok["prompt_tokens"], ok["completion_tokens"], ok["latency_s"]) == (10, 5, 0.25)
        failed = by_prompt[("p1", 1)]
        assert failed["failure"] == "error" and failed["response"] is None
        orphan = by_prompt[("p-T-orphan", 0)]  # a result whose prompt was never stored
        assert orphan["instance_id"] is None
        assert [p.prompt_id for p in store.prompts()] == ["p1"]
        assert [i["family"] for i in store.instances()] == ["backbone"]
        assert Counter(r["failure"] for r in store.results(["failure"])) == {
            "correct": 2,
            "error": 1,
        }


def test_delete_errors_forgets_only_errors(tmp_path: Path) -> None:
    with RunStore(tmp_path / "s.sqlite") as store:
        good, bad = row("a"), row("b", judgement=error_judgement("UNSAT", "x"), response=None)
        store.put(good)
        store.put(bad)
        assert store.delete_errors([good.key, bad.key]) == 1
        assert [r["key"] for r in store.results(["key"])] == [good.key]


def test_runs_are_recorded_without_secrets(tmp_path: Path) -> None:
    with RunStore(tmp_path / "s.sqlite") as store:
        run = store.start_run({"models": ["ref/coin"]})
        store.finish_run(run, "interrupted")
        (info,) = store.runs()
        assert info["status"] == "interrupted" and info["info"] == {"models": ["ref/coin"]}
        assert json.dumps(info)


def test_an_older_store_reads_back_with_the_later_columns_null(tmp_path: Path) -> None:
    """A store written before the added columns, read in full, gives every column: the
    added ones null (a flag ``None``), its strategy ``direct`` and question ``decision``;
    a read of named columns gives those alone, read as in a current store."""
    from twosat_formal.evaluate.store import ADDED_RESULT_COLUMNS

    path = tmp_path / "old.sqlite"
    with RunStore(path) as store:
        store.put(row("a"))
        store.put(row("b", judgement=judged("SAT"), strategy="cot"))
        current = list(store.results())
    with sqlite3.connect(path) as db:
        for name, _ in ADDED_RESULT_COLUMNS:
            db.execute(f"ALTER TABLE results DROP COLUMN {name}")
    with RunStore(path, readonly=True) as store:
        older = list(store.results())
        named = list(store.results(["decision_correct", "witness_valid", "sample"]))
    added = {name for name, _ in ADDED_RESULT_COLUMNS}
    defaults = {"strategy": "direct", "question_type": "decision"}
    assert [set(r) for r in older] == [set(r) for r in current]
    for old, new in zip(older, current, strict=True):
        for name, value in new.items():
            expected = defaults.get(name) if name in added else value
            assert old[name] == expected and type(old[name]) is type(expected), name
    assert named == [
        {"sample": r["sample"], "decision_correct": r["decision_correct"],
         "witness_valid": r["witness_valid"]}
        for r in current
    ]  # fmt: skip
    assert all(isinstance(r["decision_correct"], bool) for r in named)
