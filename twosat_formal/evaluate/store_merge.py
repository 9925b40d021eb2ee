"""Merge run stores: shards of one evaluation (or separate runs) into one store.

:func:`merge_stores` copies every instance, prompt, result and run of the sources
into a new store. A request key stored by two sources must hold the same result
(response and judgement; the time it was stored, its latency, attempts and run may
differ); two different results for one key are a conflict and the merge is refused,
leaving nothing behind. Runs keep their metadata (``info``, times, status); each
merged run gets a new id, its ``info`` names the store it came from
(``merged_from``) and its old id (``merged_run_id``), and its results point at it.

The work happens in SQLite (``ATTACH`` and ``INSERT ... SELECT``), so merging does
not load the stores into memory.

Examples
--------
>>> import tempfile, pathlib
>>> from twosat_formal.evaluate.scoring import error_judgement
>>> from twosat_formal.evaluate.store import ResultRow, RunStore, prompt_hash
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> for name, sample in (("a", 0), ("b", 1)):
...     with RunStore(folder / f"{name}.sqlite") as store:
...         run = store.start_run({"shard": name})
...         _ = store.put(ResultRow("ref/coin", "local", prompt_hash("Hi"), "p1", "{}", sample,
...                                 error_judgement("SAT", "x"), run_id=run))
>>> merged = merge_stores([folder / "a.sqlite", folder / "b.sqlite"], folder / "c.sqlite")
>>> merged.results, merged.runs
(2, 2)
>>> with RunStore(folder / "c.sqlite", readonly=True) as store:
...     [run["info"]["shard"] for run in store.runs()], store.count()
(['a', 'b'], 2)
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twosat_formal._util.atomic import refuse_repeats, write_target
from twosat_formal.core.jsonread import loads
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.evaluate.store import ADDED_RESULT_COLUMNS, BUSY_TIMEOUT_MS, RunStore

__all__ = ["MergeReport", "merge_stores"]

#: Result columns that may differ between two copies of one result.
_INCIDENTAL = ("key", "run_id", "created_at", "latency_s", "attempts", "prompt_id")


@dataclass(frozen=True)
class MergeReport:
    """What a merge copied (``results``: distinct results in the merged store)."""

    sources: int
    results: int
    duplicates: int
    prompts: int
    instances: int
    runs: int


def _columns(db: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA {schema}.table_info({table})")]


def _differing(
    db: sqlite3.Connection, table: str, key: str, columns: Sequence[str], picked: str
) -> Any:
    """``picked`` of the first row of ``src``'s ``table`` whose ``columns`` differ from
    those of ``main``'s row with the same ``key`` (``None`` when none does)."""
    differs = " OR ".join(f"s.{c} IS NOT m.{c}" for c in columns)
    return db.execute(
        f"SELECT {picked} FROM src.{table} s JOIN main.{table} m "
        f"ON m.{key} = s.{key} WHERE {differs} LIMIT 1"
    ).fetchone()


def _conflict(db: sqlite3.Connection, source: str) -> str | None:
    """The first key whose result differs between ``src`` and the merged store."""
    present = set(_columns(db, "src", "results"))  # an older store lacks the added columns
    compared = [c for c in _columns(db, "main", "results") if c not in _INCIDENTAL and c in present]
    row = _differing(db, "results", "key", compared, "s.key, s.model, s.prompt_id, s.sample")
    if row is None:
        return None
    key, model, prompt_id, sample = row
    return (
        f"{source}: conflicting results for key {key[:12]}... "
        f"(model {model}, prompt {prompt_id}, sample {sample}); refusing to merge"
    )


def _instance_conflict(db: sqlite3.Connection, source: str) -> str | None:
    row = _differing(db, "instances", "instance_id", ["record"], "s.instance_id")
    if row is None:
        return None
    return f"{source}: instance {row[0]} differs from the one merged already; refusing to merge"


#: What a prompt is: one prompt id must have one of each in the merged store.
_PROMPT = ("prompt_hash", "instance_id", "template", "label", "text", "entities")


def _prompt_conflict(db: sqlite3.Connection, source: str) -> str | None:
    """The first prompt id that ``src`` holds with another text (or entity map, label...)
    than ``main`` does, or twice with different texts itself."""
    row = _differing(db, "prompts", "prompt_id", _PROMPT, "s.prompt_id")
    if row is None:
        row = db.execute(
            "SELECT prompt_id FROM src.prompts GROUP BY prompt_id "
            "HAVING count(DISTINCT prompt_hash) > 1 LIMIT 1"
        ).fetchone()
    if row is None:
        return None
    return (
        f"{source}: prompt {row[0]} has two different texts (or entity maps) among the "
        "stores; refusing to merge"
    )


def _copy_runs(db: sqlite3.Connection, source: str) -> int:
    db.execute("DELETE FROM temp.run_map")
    cursor = db.execute(
        "SELECT run_id, started_at, finished_at, status, info FROM src.runs ORDER BY run_id"
    )
    copied = 0
    for run_id, started, finished, status, info in cursor.fetchall():
        meta = loads(info, source=f"{source} (table runs)")
        meta.setdefault("merged_from", source)
        meta.setdefault("merged_run_id", run_id)
        new = db.execute(
            "INSERT INTO main.runs (started_at, finished_at, status, info) VALUES (?, ?, ?, ?)",
            (started, finished, status, json.dumps(meta, sort_keys=True)),
        ).lastrowid
        db.execute("INSERT INTO temp.run_map (old, new) VALUES (?, ?)", (run_id, new))
        copied += 1
    return copied


def merge_stores(
    sources: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str]
) -> MergeReport:
    """Merge run stores into a new store ``out``.

    Raises
    ------
    ConfigError
        Fewer than one source, or one given twice, ``out`` (or a ``-wal``, ``-shm``
        or ``-journal`` file of it) exists already, or two sources hold different
        results (or instances) under one key, or one prompt id with two texts (or
        entity maps); ``out`` is not left behind, and nothing the merge did not make
        is removed.
    RecordError
        A source that is not a run store.
    """
    if not sources:
        raise ConfigError("name at least one store to merge", parameter="stores")
    refuse_repeats(sources, noun="store", parameter="stores")  # its runs would count twice
    target = write_target(out)  # a link: the store is made where it points, the link stays
    if target.exists():
        raise ConfigError(f"{target} exists; merge into a new file", parameter="out")
    for source in sources:  # each must be a run store this version reads
        RunStore(source, readonly=True).close()
    files = [Path(f"{target}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")]
    for path in files[1:]:  # SQLite would take a stray journal as the new store's
        if path.exists() or path.is_symlink():
            raise ConfigError(f"{path} exists; merge into a new file", parameter="out")
    try:
        return _merge(sources, target)
    except BaseException:
        for path in files:  # none was there before: the merge made each
            path.unlink(missing_ok=True)
        raise


def _merge_one(db: sqlite3.Connection, name: str, results: list[str]) -> tuple[int, int]:
    """Copy the attached store ``src`` into ``main``; (runs copied, duplicate results)."""
    missing = set(results) - set(_columns(db, "src", "results"))
    added = {column for column, _ in ADDED_RESULT_COLUMNS}  # null in an older store
    if missing - added:
        lacking = ", ".join(sorted(missing - added))
        raise RecordError(f"its results lack the columns {lacking}", source=name)
    problem = _conflict(db, name) or _instance_conflict(db, name) or _prompt_conflict(db, name)
    if problem is not None:
        raise ConfigError(problem, parameter="stores")
    runs = _copy_runs(db, name)
    db.execute("INSERT OR IGNORE INTO main.instances SELECT * FROM src.instances")
    db.execute("INSERT OR IGNORE INTO main.prompts SELECT * FROM src.prompts")
    before = db.execute("SELECT count(*) FROM main.results").fetchone()[0]
    picked = ", ".join(
        "(SELECT new FROM temp.run_map WHERE old = s.run_id)"
        if c == "run_id"
        else ("NULL" if c in missing else f"s.{c}")
        for c in results
    )
    db.execute(
        f"INSERT OR IGNORE INTO main.results ({', '.join(results)}) "
        f"SELECT {picked} FROM src.results s"
    )
    offered = db.execute("SELECT count(*) FROM src.results").fetchone()[0]
    after = db.execute("SELECT count(*) FROM main.results").fetchone()[0]
    return runs, offered - (after - before)


def _merge(sources: Sequence[str | os.PathLike[str]], target: Path) -> MergeReport:
    RunStore(target).close()
    db = sqlite3.connect(target, isolation_level=None)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("CREATE TEMP TABLE run_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
        results = _columns(db, "main", "results")
        runs = duplicates = 0
        for source in sources:
            name = str(source)
            db.execute("ATTACH DATABASE ? AS src", (f"{Path(source).resolve().as_uri()}?mode=ro",))
            db.execute("BEGIN")
            try:
                runs_copied, duplicated = _merge_one(db, name, results)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            finally:
                db.execute("DETACH DATABASE src")
            runs += runs_copied
            duplicates += duplicated
        counts = {
            table: int(db.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0])
            for table in ("results", "prompts", "instances")
        }
    finally:
        db.close()
    return MergeReport(
        len(sources), counts["results"], duplicates, counts["prompts"], counts["instances"], runs
    )
