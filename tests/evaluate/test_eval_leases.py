"""Two ``eval`` runs on one store share its requests: none is asked twice, none is lost.

Two ``eval`` processes start together on one store against one real HTTP server on
127.0.0.1, whose replies take a while, so the runs overlap. Each request is leased to
one run before it is asked; the server sees every prompt once, the store ends with
every result once, and each run's summary accounts for every planned request (done
here, stored already, or left to the other run).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import answers_for, make_items, write_inputs
from tests.support.faultserver import FaultServer
from twosat_formal.evaluate.store import RunStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_two_runs_on_one_store_ask_each_request_once(tmp_path: Path) -> None:
    items = make_items(24, seed=8)
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with FaultServer(answer=answers_for(items), latency_s=0.2) as server:
        argv = [
            sys.executable, str(ROOT / "cli.py"), "eval", str(prompts), "--dataset", str(dataset),
            "-m", "openai/m", "--base-url", server.url, "--store", str(store),
            "--no-progress", "--concurrency", "2", "--json",
        ]  # fmt: skip
        runs = [
            subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            for _ in range(2)
        ]
        outputs = [run.communicate(timeout=300) for run in runs]
        asked = Counter(server.prompts())
    for run, (_, err) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, err.decode()
    summaries = [json.loads(out) for out, _ in outputs]
    assert set(asked.values()) == {1} and len(asked) == len(items)
    for summary in summaries:
        assert summary["planned"] == len(items)
        assert summary["done"] + summary["skipped"] + summary["leased"] == summary["planned"]
        assert summary["remaining"] == 0
    assert sum(s["done"] for s in summaries) == len(items)
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*), count(DISTINCT key) FROM results").fetchone() == (
            len(items),
            len(items),
        )
        assert db.execute("SELECT count(*) FROM leases").fetchone() == (0,)  # all released


def test_a_lease_holds_until_it_expires_or_its_run_ends(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        one, two = store.start_run({}), store.start_run({})
        assert store.lease(["a"], one, now=0.0, lease_s=10.0) == {"a"}
        assert store.lease(["a"], two, now=5.0, lease_s=10.0) == set()
        assert store.lease(["a"], two, now=11.0, lease_s=10.0) == {"a"}  # expired
        assert store.lease(["a"], one, now=12.0, lease_s=10.0) == set()
        store.finish_run(two, "interrupted")
        assert store.lease(["a"], one, now=13.0, lease_s=10.0) == {"a"}  # its run ended
        store.release(one)
        assert store.lease(["a"], two, now=14.0, lease_s=10.0) == {"a"}


@pytest.mark.skipif(not hasattr(os, "kill"), reason="needs process ids")
def test_the_leases_of_a_killed_run_are_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        killed = store.start_run({})
    code = (
        "import sys; from twosat_formal.evaluate.store import RunStore\n"
        f"s = RunStore({str(path)!r}); s.lease(['a', 'b'], {killed}); s.close()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)  # gone once it returns
    with RunStore(path) as store:
        assert store.runs()[0]["status"] == "running"  # never finished
        after = store.start_run({})
        assert store.lease(["a", "b", "c"], after) == {"a", "b", "c"}


@pytest.mark.parametrize("pid", ["\u00b2", "x", ""])
def test_a_lease_whose_owner_names_no_process_id_is_held_until_it_expires(
    tmp_path: Path, pid: str
) -> None:
    """A lease owner written elsewhere (``host:²``: ``str.isdigit`` passes ``²``, which
    ``int`` refuses) names no process to find gone: its lease holds, no error."""
    with RunStore(tmp_path / "runs.sqlite") as store:
        other, mine = store.start_run({}), store.start_run({})
        assert store.lease(["a"], other, now=0.0, lease_s=10.0) == {"a"}
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.execute("UPDATE leases SET owner = ?", (f"{socket.gethostname()}:{pid}",))
    with RunStore(tmp_path / "runs.sqlite") as store:
        assert store.lease(["a"], mine, now=5.0, lease_s=10.0) == set()
        assert store.lease(["a"], mine, now=11.0, lease_s=10.0) == {"a"}  # expired
