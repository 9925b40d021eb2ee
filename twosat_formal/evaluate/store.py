"""The run store: one SQLite file (stdlib :mod:`sqlite3`, WAL mode) per study.

A request is keyed by :func:`request_key`: the SHA-256 of the model spec, the
endpoint, the prompt's hash, the sampling parameters and the sample index, and the
reasoning strategy when it is not ``direct`` (so the keys of ``direct`` results, and
of stores written before strategies, are what they always were). The
``results`` table holds at most one row per key (``INSERT ... ON CONFLICT DO
NOTHING``); :meth:`RunStore.put` commits each result, :meth:`RunStore.put_many` leaves
a group of them for one :meth:`RunStore.commit` (the evaluation runner commits every
50 ms), so a killed run loses at most what was not committed, and a re-run skips
every stored key.

Tables (``SCHEMA_VERSION`` 1):

* ``schema_version(version)``: one row;
* ``instances(instance_id, family, label, num_vars, num_clauses, dimacs, record)``:
  the instance records the prompts came from (``record`` is the whole JSON record);
* ``prompts(prompt_id, prompt_hash, instance_id, template, label, text, entities,
  true_value, false_value, seed)``: one row per prompt record, keyed by id and hash;
* ``results(key, model, endpoint, prompt_hash, prompt_id, params, sample, ...)``: one
  row per answered (or failed) request with the response and its judgement;
* ``runs(run_id, started_at, finished_at, status, info)``: one row per ``eval`` run.

API keys never enter the store: endpoints lose any user information, query and
fragment before they are hashed or written (:func:`public_endpoint`).

Examples
--------
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
>>> with RunStore(path) as store:
...     key = request_key("ref/oracle", "local", prompt_hash("Hi"), "{}", 0)
...     store.stored_among([key])
set()
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from twosat_formal._util.atomic import stream_target
from twosat_formal._util.closing import Closing
from twosat_formal.core.jsonread import loads
from twosat_formal.core.model import Response, public_endpoint
from twosat_formal.core.params import MAX_STORED
from twosat_formal.errors import EXIT_USAGE, RecordError, TwoSatFormalError
from twosat_formal.evaluate.columns import (
    BUILTIN_COLUMNS,
    COLUMNS,
    JOINED,
    pick_columns,
    sources_of,
)
from twosat_formal.evaluate.scoring import Judgement
from twosat_formal.io.inputs import special_kind

__all__ = [
    "BUSY_TIMEOUT_MS",
    "EXPORT_COLUMNS",
    "LEASE_S",
    "SCHEMA_VERSION",
    "PromptRow",
    "ResultRow",
    "RunStore",
    "filled_store",
    "prompt_hash",
    "public_endpoint",
    "request_key",
]

#: Version of the store's tables; a store written by a newer version is refused.
SCHEMA_VERSION = 1
#: How long a writer waits for another's lock on a store, in milliseconds.
BUSY_TIMEOUT_MS = 10000

#: The built-in columns of ``twosat-formal results``, in order (the full, extensible
#: list is :func:`twosat_formal.evaluate.columns.export_columns`).
EXPORT_COLUMNS: tuple[str, ...] = tuple(column.name for column in BUILTIN_COLUMNS)

_SCHEMA_TEMPLATE = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS instances (
    instance_id TEXT PRIMARY KEY,
    family TEXT,
    label TEXT,
    num_vars INTEGER,
    num_clauses INTEGER,
    dimacs TEXT,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS prompts (
    prompt_id TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    instance_id TEXT,
    template TEXT,
    label TEXT,
    text TEXT NOT NULL,
    entities TEXT NOT NULL,
    true_value TEXT,
    false_value TEXT,
    seed INTEGER,
    PRIMARY KEY (prompt_id, prompt_hash)
);
CREATE INDEX IF NOT EXISTS prompts_by_hash ON prompts (prompt_hash);
{results}
CREATE INDEX IF NOT EXISTS results_by_model ON results (model, prompt_hash);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    info TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
    key TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL,
    owner TEXT NOT NULL,
    expires REAL NOT NULL
);
"""


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this host (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: Seconds a run's lease on a planned request holds (see :meth:`RunStore.lease`).
LEASE_S = 900.0
_LEASE = (
    "INSERT INTO leases (key, run_id, owner, expires) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (key) DO UPDATE "
    "SET run_id = excluded.run_id, owner = excluded.owner, expires = excluded.expires "
    "WHERE leases.run_id = excluded.run_id OR leases.expires < ? "
    "OR leases.run_id NOT IN (SELECT run_id FROM runs WHERE status = 'running')"
)


#: ``json.dumps(value, sort_keys=True)``, with one encoder made once.
_sorted_json = json.JSONEncoder(sort_keys=True).encode
#: ``json.dumps(parts, separators=(",", ":"), ensure_ascii=False)``: a key's parts.
_key_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

#: :func:`public_endpoint`, remembered: a run's few endpoints are each parsed once, not
#: once per request.
_public_endpoint = lru_cache(maxsize=256)(public_endpoint)


def prompt_hash(text: str) -> str:
    """SHA-256 (hex) of a prompt's UTF-8 text.

    >>> prompt_hash("Hi")[:12]
    '3639efcd08ab'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_key(
    model: str,
    endpoint: str,
    prompt_sha: str,
    params: str,
    sample: int,
    strategy: str | None = None,
) -> str:
    """The store key of one request (SHA-256 hex of its parts, as JSON).

    ``params`` is :meth:`~twosat_formal.core.model.SamplingParams.key`. The endpoint
    goes through :func:`public_endpoint` first. ``strategy`` (the key of a
    :class:`~twosat_formal.verbalize.strategies.Strategy`, ``prompt_sha`` staying the hash of the
    prompt without the strategy's text) is a sixth part unless it is ``direct`` or
    ``None``: a ``direct`` request keeps the five-part key it always had.

    >>> a = request_key("ref/oracle", "local", "ab", "{}", 0)
    >>> a == request_key("ref/oracle", "local", "ab", "{}", 1), len(a)
    (False, 64)
    >>> a == request_key("ref/oracle", "local", "ab", "{}", 0, "direct")
    True
    >>> a == request_key("ref/oracle", "local", "ab", "{}", 0, "cot")
    False
    """
    parts: list[str | int] = [model, _public_endpoint(endpoint), prompt_sha, params, int(sample)]
    if strategy is not None and strategy != "direct":
        parts.append(strategy)
    return hashlib.sha256(_key_json(parts).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PromptRow:
    """What the store keeps of one prompt record.

    >>> PromptRow("p1", "i1", "logic", "SAT", "text", {"A": "x1"}, "true", "false").prompt_hash[:8]
    '982d9e3e'
    """

    prompt_id: str
    instance_id: str | None
    template: str | None
    label: str | None
    text: str
    entities: Mapping[str, Any]
    true_value: str | None = None
    false_value: str | None = None
    seed: int | None = None

    @property
    def prompt_hash(self) -> str:
        """:func:`prompt_hash` of :attr:`text`."""
        return prompt_hash(self.text)


@dataclass(frozen=True)
class ResultRow:
    """One stored result: the request's identity, the response and its judgement.

    ``response`` is ``None`` when the request failed for good (``judgement.failure``
    is then ``error``); ``attempts`` counts the tries it took.

    >>> from twosat_formal.evaluate.scoring import error_judgement
    >>> row = ResultRow("ref/coin", "local", "ab", "p1", "{}", 0, error_judgement("SAT", "x"))
    >>> row.key == request_key("ref/coin", "local", "ab", "{}", 0)
    True
    """

    model: str
    endpoint: str
    prompt_hash: str
    prompt_id: str
    params: str
    sample: int
    judgement: Judgement
    response: Response | None = None
    attempts: int = 1
    run_id: int | None = None
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    #: The reasoning strategy's key (:class:`~twosat_formal.verbalize.strategies.Strategy`).
    strategy: str = "direct"
    #: What a ``symbolic-cot`` answer formalized, checked against the instance
    #: (:func:`~twosat_formal.verbalize.strategies.check_formalization`).
    formalization: Mapping[str, Any] | None = None

    @property
    def key(self) -> str:
        """:func:`request_key` of this result."""
        return request_key(
            self.model, self.endpoint, self.prompt_hash, self.params, self.sample, self.strategy
        )


def _optional_json(value: Any) -> str | None:
    return None if value is None else _sorted_json(value)


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(bool(value))


#: The ``results`` table of the first release, column by column in table order: name
#: and SQL type.
_FIRST_COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "TEXT PRIMARY KEY"),
    ("model", "TEXT NOT NULL"),
    ("endpoint", "TEXT NOT NULL"),
    ("prompt_hash", "TEXT NOT NULL"),
    ("prompt_id", "TEXT NOT NULL"),
    ("params", "TEXT NOT NULL"),
    ("sample", "INTEGER NOT NULL"),
    ("run_id", "INTEGER"),
    ("label", "TEXT NOT NULL"),
    ("response", "TEXT"),
    ("finish_reason", "TEXT"),
    ("prompt_tokens", "INTEGER"),
    ("completion_tokens", "INTEGER"),
    ("latency_s", "REAL"),
    ("attempts", "INTEGER NOT NULL"),
    ("error", "TEXT"),
    ("failure", "TEXT NOT NULL"),
    ("decision", "TEXT"),
    ("decision_correct", "INTEGER NOT NULL"),
    ("witness_valid", "INTEGER"),
    ("witness_reason", "TEXT"),
    ("witness", "TEXT"),
    ("truncated", "INTEGER NOT NULL"),
    ("lenient_failure", "TEXT NOT NULL"),
    ("lenient_decision", "TEXT"),
    ("lenient_decision_correct", "INTEGER NOT NULL"),
    ("lenient_witness_valid", "INTEGER"),
    ("created_at", "TEXT NOT NULL"),
)
#: The ``results`` columns added after the first release, with their SQL types, in table
#: order: an older store gains them when opened for writing (reading one, they are null).
ADDED_RESULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("cycle_valid", "INTEGER"),
    ("cycle_reason", "TEXT"),
    ("reasoning", "TEXT"),
    ("strategy", "TEXT"),
    ("formalization", "TEXT"),
    ("question_type", "TEXT"),
    ("precision", "REAL"),
    ("recall", "REAL"),
    ("chain_valid", "INTEGER"),
    ("chain_reason", "TEXT"),
    ("core_reason", "TEXT"),
    ("size_ratio", "REAL"),
)
_RESULT_COLUMNS = (*_FIRST_COLUMNS, *ADDED_RESULT_COLUMNS)

_SCHEMA = _SCHEMA_TEMPLATE.replace(
    "{results}",
    "CREATE TABLE IF NOT EXISTS results (\n"
    + ",\n".join(f"    {name} {kind}" for name, kind in _RESULT_COLUMNS)
    + "\n);",
)
_INSERT_RESULT = (
    f"INSERT INTO results ({', '.join(name for name, _ in _RESULT_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_RESULT_COLUMNS))}) ON CONFLICT (key) DO NOTHING"
)


#: The integers an SQLite INTEGER holds (signed 64-bit).
_STORABLE_INTS = range(-MAX_STORED - 1, MAX_STORED + 1)


def _storable(result: ResultRow, name: str, value: int | None) -> int | None:
    """``value`` of ``result``'s field ``name`` when a store can hold it.

    Raises :class:`~twosat_formal.errors.RecordError` naming the result and the field
    for an integer SQLite cannot hold (no traceback, nothing stored).

    >>> from twosat_formal.evaluate.scoring import error_judgement
    >>> row = ResultRow("m", "local", "ab", "p1", "{}", 2**63, error_judgement("SAT", "x"))
    >>> _storable(row, "sample", row.sample)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: the result of model 'm' for prompt 'p1': sample \
9223372036854775808 is outside the integers a run store holds (-2^63 .. 2^63 - 1)
    """
    if value is None:
        return None
    value = int(value)
    if value in _STORABLE_INTS:
        return value
    # str() of an integer of thousands of digits is refused by Python itself
    shown = str(value) if abs(value) < 10**40 else f"of {value.bit_length()} bits"
    raise RecordError(
        f"the result of model {result.model!r} for prompt {result.prompt_id!r}: {name} "
        f"{shown} is outside the integers a run store holds (-2^63 .. 2^63 - 1)"
    )


def _result_values(result: ResultRow, key: str | None) -> tuple[Any, ...]:
    """The values of :data:`_INSERT_RESULT` for ``result`` (stored under ``key``), in
    the order of :data:`_RESULT_COLUMNS`; an integer no store holds is refused
    (:func:`_storable`)."""
    j = result.judgement
    r = result.response
    text, finish, prompt_tokens, completion_tokens, latency_s, reasoning = (
        (None,) * 6
        if r is None
        else (
            r.text,
            r.finish_reason,
            _storable(result, "prompt_tokens", r.prompt_tokens),
            _storable(result, "completion_tokens", r.completion_tokens),
            r.latency_s,
            r.reasoning,
        )
    )
    return (
        key or result.key,
        result.model,
        _public_endpoint(result.endpoint),
        result.prompt_hash,
        result.prompt_id,
        result.params,
        _storable(result, "sample", result.sample),
        result.run_id,
        j.label,
        text,
        finish,
        prompt_tokens,
        completion_tokens,
        latency_s,
        _storable(result, "attempts", result.attempts),
        j.error,
        j.failure,
        j.decision,
        int(j.decision_correct),
        _flag(j.witness_valid),
        j.witness_reason,
        _optional_json(j.witness),
        int(j.truncated),
        j.lenient_failure,
        j.lenient_decision,
        int(j.lenient_decision_correct),
        _flag(j.lenient_witness_valid),
        result.created_at,
        _flag(j.cycle_valid),
        j.cycle_reason,
        reasoning,
        None if result.strategy == "direct" else result.strategy,
        _optional_json(result.formalization),
        j.ask,
        j.precision,
        j.recall,
        _flag(j.chain_valid),
        j.chain_reason,
        j.core_reason,
        j.size_ratio,
    )


def _stored_json(store: RunStore, value: Any) -> Any:
    return None if value is None else store._json(value, "results")


#: The flags stored as 0 or 1 that may be null (not judged).
_OPTIONAL_FLAGS = ("witness_valid", "lenient_witness_valid", "cycle_valid", "chain_valid")
#: How :meth:`RunStore.results` reads a stored value back, per column (in this order):
#: flags as booleans (an optional flag keeps ``None``), the strategy ``direct`` when
#: unset, a row stored before question types a ``decision`` question, JSON decoded.
_RESULT_READERS: dict[str, Callable[[RunStore, Any], Any]] = {
    **dict.fromkeys(
        ("decision_correct", "truncated", "lenient_decision_correct"),
        lambda _, value: bool(value),
    ),
    **dict.fromkeys(_OPTIONAL_FLAGS, lambda _, value: None if value is None else bool(value)),
    "strategy": lambda _, value: value or "direct",
    "formalization": _stored_json,
    "question_type": lambda _, value: "decision" if value is None else value,
    "witness": _stored_json,
}
#: The columns a full read of an older store gives as null (then read as above): the
#: added ones, each once, the optional flags first.
_FULL_READ_DEFAULTS = tuple(
    name
    for name in dict.fromkeys((*_OPTIONAL_FLAGS, *(name for name, _ in ADDED_RESULT_COLUMNS)))
    if name not in dict(_FIRST_COLUMNS)
)


@dataclass(frozen=True)
class _Wanted:
    """The stored columns an export reads: those ``needed`` (all for ``None``), less
    those ``without``."""

    without: Collection[str]
    needed: Collection[str] | None

    def __contains__(self, name: object) -> bool:
        return name not in self.without and (self.needed is None or name in self.needed)


class RunStore(Closing):
    """A run store at ``path`` (created when missing), opened for reading and writing.

    Parameters
    ----------
    path:
        The SQLite file (created when missing, with its folder).
    readonly:
        Open an existing store without writing to it (``results`` export); a missing
        file raises :class:`FileNotFoundError`.

    Raises
    ------
    RecordError
        When the file is not a run store, or one written by a newer version.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from twosat_formal.evaluate.scoring import error_judgement
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
    >>> result = ResultRow("ref/coin", "local", prompt_hash("Hi"), "p1", "{}", 0,
    ...                    error_judgement("SAT", "HTTP 503"), attempts=6)
    >>> with RunStore(path) as store:
    ...     store.put(result), store.put(result), store.count()
    (True, False, 1)
    >>> with RunStore(path) as store:
    ...     store.stored_among([result.key, "other"]) == {result.key}
    True
    >>> with RunStore(path, readonly=True) as store:
    ...     row = next(store.export_rows())
    ...     row["prompt_id"], row["failure"]
    ('p1', 'error')
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if self.path.exists():  # a pipe or a device is no store (nor a directory)
            kind = special_kind(self.path.stat())
            if kind is not None:
                raise RecordError(
                    f"not a run store (it is {kind}, not a file)", source=str(self.path)
                )
        elif readonly:
            raise FileNotFoundError(2, "No such file or directory", str(self.path))
        if stream_target(self.path):  # SQLite would write its journal beside a device
            raise RecordError(
                "not a run store (a device, pipe or descriptor, not a file)",
                source=str(self.path),
            )
        try:
            if readonly:
                self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path)
        except sqlite3.DatabaseError as exc:
            raise RecordError(f"not a run store ({exc})", source=str(self.path)) from None
        try:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise RecordError(f"not a run store ({exc})", source=str(self.path)) from None
        except BaseException:
            self._db.close()
            raise

    def _setup(self) -> None:
        self._check_schema()
        if self.readonly:
            return
        db = self._db
        db.execute("PRAGMA journal_mode = WAL")  # once the file is known to be a run store
        db.execute("PRAGMA synchronous = NORMAL")
        with db:
            db.executescript(_SCHEMA)
            if db.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 0:
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            present = set(self._result_columns())
            for name, kind in ADDED_RESULT_COLUMNS:
                if name not in present:
                    db.execute(f"ALTER TABLE results ADD COLUMN {name} {kind}")

    def _check_schema(self) -> None:
        """Refuse a file whose schema version this version does not read, and a file
        that is not a run store (an empty one may become one unless read-only)."""
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if "schema_version" not in tables:
            if tables or self.readonly:
                raise RecordError(
                    "not a run store (no schema_version table)", source=str(self.path)
                )
            return
        row = self._db.execute("SELECT max(version) FROM schema_version").fetchone()
        version = row[0] if row else None
        if version is None or version > SCHEMA_VERSION:
            raise RecordError(
                f"run store schema version {version} is not supported "
                f"(this version reads {SCHEMA_VERSION})",
                source=str(self.path),
            )

    # -- life cycle ----------------------------------------------------------------------

    def close(self) -> None:
        """Commit what is pending and close the file."""
        if not self.readonly:
            self._db.commit()
        self._db.close()

    # -- prompts and instances -------------------------------------------------------------

    def add_instance(self, record: Mapping[str, Any]) -> None:
        """Keep an instance record (the first record stored under an id stays)."""
        self.add_instances([record])

    def add_instances(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Keep instance records in one transaction (the first stored under an id stays;
        a record repeated among ``records`` is written once)."""
        rows: dict[str, tuple[Any, ...]] = {}
        for record in records:
            instance_id = str(record.get("id"))
            if instance_id not in rows:
                rows[instance_id] = (
                    instance_id,
                    record.get("family"),
                    record.get("label"),
                    record.get("num_vars"),
                    record.get("num_clauses"),
                    record.get("dimacs"),
                    json.dumps(record, sort_keys=True, default=str),
                )
        if not rows:
            return
        with self._db:
            self._db.executemany(
                "INSERT INTO instances (instance_id, family, label, num_vars, num_clauses, "
                "dimacs, record) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (instance_id) DO NOTHING",
                rows.values(),
            )

    def add_prompts(self, prompts: Iterable[PromptRow]) -> None:
        """Keep prompt records (one row per id and text; repeats are ignored)."""
        rows = [
            (
                p.prompt_id,
                p.prompt_hash,
                p.instance_id,
                p.template,
                p.label,
                p.text,
                _sorted_json(dict(p.entities)),
                p.true_value,
                p.false_value,
                p.seed,
            )
            for p in prompts
        ]
        with self._db:
            self._db.executemany(
                "INSERT INTO prompts (prompt_id, prompt_hash, instance_id, template, label, "
                "text, entities, true_value, false_value, seed) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (prompt_id, prompt_hash) DO NOTHING",
                rows,
            )

    def _json(self, text: str, table: str) -> Any:
        """A JSON value stored in ``table``, read by the one JSON reader."""
        return loads(text, source=f"{self.path} (table {table})")

    def instances(self) -> Iterator[dict[str, Any]]:
        """The stored instance records, by id."""
        for (record,) in self._db.execute("SELECT record FROM instances ORDER BY instance_id"):
            yield self._json(record, "instances")

    def prompts(self) -> Iterator[PromptRow]:
        """The stored prompt rows, by id."""
        for _, row in self.prompts_by_hash():
            yield row

    def prompts_by_hash(self, *, text: bool = True) -> Iterator[tuple[str, PromptRow]]:
        """The stored prompt rows, by id, each with its stored :func:`prompt_hash`.

        With ``text=False`` the prompt's text is not read and each row's ``text`` is
        empty (so its own ``prompt_hash`` is not the prompt's: use the one given
        beside it): a reader that needs the template and entities alone does not
        load every prompt.
        """
        query = (
            "SELECT prompt_hash, prompt_id, instance_id, template, label, "
            + ("text" if text else "''")
            + ", entities, true_value, false_value, seed FROM prompts "
            "ORDER BY prompt_id, prompt_hash"
        )
        for row in self._db.execute(query):
            key, pid, iid, template, label, body, entities, true_value, false_value, seed = row
            yield (
                key,
                PromptRow(
                    pid,
                    iid,
                    template,
                    label,
                    body,
                    self._json(entities, "prompts"),
                    true_value,
                    false_value,
                    seed,
                ),
            )

    # -- results ---------------------------------------------------------------------------

    def put(self, result: ResultRow, *, commit: bool = True, key: str | None = None) -> bool:
        """Store one result; ``False`` when its key was already stored.

        With ``commit=False`` the insert waits for the next :meth:`commit` (the runner
        groups the results of a few milliseconds into one commit). ``key`` is
        ``result.key`` when the caller has it at hand already.
        """
        cursor = self._db.execute(_INSERT_RESULT, _result_values(result, key))
        if commit:
            self._db.commit()
        return cursor.rowcount == 1

    def put_many(self, results: Iterable[tuple[ResultRow, str | None]]) -> int:
        """Store ``(result, key)`` pairs in one statement; how many were new.

        The same rows as one :meth:`put` each (a stored key is kept, not replaced),
        left for the next :meth:`commit`; ``key`` is ``result.key`` or ``None``.

        >>> import tempfile, pathlib
        >>> from twosat_formal.evaluate.scoring import error_judgement
        >>> rows = [ResultRow("ref/coin", "local", "ab", "p1", "{}", s, error_judgement("SAT", "x"))
        ...         for s in (0, 1, 0)]
        >>> with RunStore(pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite") as store:
        ...     store.put_many((row, None) for row in rows), store.count()
        (2, 2)
        """
        cursor = self._db.executemany(
            _INSERT_RESULT, (_result_values(result, key) for result, key in results)
        )
        return cursor.rowcount

    def commit(self) -> None:
        """Commit the results stored with ``put(..., commit=False)``."""
        self._db.commit()

    def stored_among(self, keys: Sequence[str]) -> set[str]:
        """The keys among ``keys`` that are stored (one indexed query per 500 keys).

        The runner plans a run a batch of keys at a time with it, so what is still to
        ask is found without loading every stored key.
        """
        found: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT key FROM results WHERE key IN ({marks})"
            found.update(row[0] for row in self._db.execute(query, chunk))
        return found

    def lease(
        self,
        keys: Sequence[str],
        run_id: int,
        *,
        now: float | None = None,
        lease_s: float = LEASE_S,
    ) -> set[str]:
        """Lease ``keys`` to run ``run_id``; the keys among them that it holds now.

        A key is held by the run that leased it until the lease expires (``lease_s``
        seconds), the run ends (its status is no longer ``running``), its process is
        found gone (a run killed on this host) or it is :meth:`release`\\ d; meanwhile
        no other run gets it. Two ``eval`` runs on one
        store so share the requests instead of both asking each: what one holds, the
        other leaves. The leases are committed at once (and with them the results
        stored so far), so that every other run sees them.

        >>> import tempfile, pathlib
        >>> with RunStore(pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite") as store:
        ...     one, two = store.start_run({}), store.start_run({})
        ...     first, second = store.lease(["a", "b"], one), store.lease(["b", "c"], two)
        ...     store.finish_run(one, "finished")
        ...     sorted(first), sorted(second), sorted(store.lease(["b"], two))
        (['a', 'b'], ['c'], ['b'])
        """
        now = time.time() if now is None else now
        owner = f"{socket.gethostname()}:{os.getpid()}"
        held: set[str] = set()
        with self._db:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                for _ in range(2):  # again once the leases of killed runs are cleared
                    rows = ((k, run_id, owner, now + lease_s, now) for k in chunk)
                    self._db.executemany(_LEASE, rows)
                    marks = ", ".join("?" * len(chunk))
                    query = f"SELECT key FROM leases WHERE run_id = ? AND key IN ({marks})"
                    got = {row[0] for row in self._db.execute(query, (run_id, *chunk))}
                    if len(got) == len(set(chunk)) or not self._clear_dead(chunk, run_id):
                        break
                held.update(got)
        return held

    def _clear_dead(self, keys: Sequence[str], run_id: int) -> bool:
        """Drop the leases among ``keys`` of other runs whose process on this host is gone."""
        marks = ", ".join("?" * len(keys))
        query = f"SELECT DISTINCT owner FROM leases WHERE run_id != ? AND key IN ({marks})"
        host = socket.gethostname()
        dead = []
        for (owner,) in self._db.execute(query, (run_id, *keys)):
            where, _, pid = str(owner).rpartition(":")
            if where == host and pid.isdecimal() and not _alive(int(pid)):
                dead.append((owner,))
        self._db.executemany("DELETE FROM leases WHERE owner = ?", dead)
        return bool(dead)

    def release(self, run_id: int) -> None:
        """Give up every lease of run ``run_id`` (at its end, whatever it came to)."""
        with self._db:
            self._db.execute("DELETE FROM leases WHERE run_id = ?", (run_id,))

    def delete_errors(self, keys: Iterable[str]) -> int:
        """Forget the ``error`` results among ``keys`` so they are asked again."""
        with self._db:
            cursor = self._db.executemany(
                "DELETE FROM results WHERE key = ? AND failure = 'error'", ((k,) for k in keys)
            )
        return cursor.rowcount

    def count(self, *, model: str | None = None) -> int:
        """How many results are stored (for ``model`` only, when given)."""
        if model is None:
            return int(self._db.execute("SELECT count(*) FROM results").fetchone()[0])
        row = self._db.execute("SELECT count(*) FROM results WHERE model = ?", (model,))
        return int(row.fetchone()[0])

    def budgets(self) -> dict[str, list[int]]:
        """The token budgets (``max_tokens`` of the sampling parameters) each model's
        stored requests were asked with, in increasing order; a request without one
        is left out.

        >>> import tempfile, pathlib
        >>> with RunStore(pathlib.Path(tempfile.mkdtemp()) / "r.sqlite") as store:
        ...     store.budgets()
        {}
        """
        query = (
            "SELECT DISTINCT model, json_extract(params, '$.max_tokens') AS budget "
            "FROM results WHERE budget IS NOT NULL ORDER BY model, budget"
        )
        out: dict[str, list[int]] = {}
        for model, budget in self._db.execute(query):
            out.setdefault(str(model), []).append(int(budget))
        return out

    def results(self, columns: Collection[str] | None = None) -> Iterator[dict[str, Any]]:
        """Every stored result as a dict of its columns, in a stable order.

        ``columns`` names the columns of the ``results`` table to read (all of them
        for ``None``); SQLite reads no other, so a caller that does not name
        ``response`` never loads an answer's text.
        """
        picked = "*" if columns is None else self._present(columns, prefix="") or "key"
        cursor = self._db.execute(
            f"SELECT {picked} FROM results ORDER BY model, prompt_id, sample, params, endpoint"
        )
        names = [d[0] for d in cursor.description]
        defaults = _FULL_READ_DEFAULTS if columns is None else ()
        keys = {*names, *defaults}
        readers = [(name, read) for name, read in _RESULT_READERS.items() if name in keys]
        for row in cursor:
            out = dict(zip(names, row, strict=True))
            for name in defaults:
                out.setdefault(name, None)
            for name, read in readers:
                out[name] = read(self, out[name])
            yield out

    def _result_columns(self) -> list[str]:
        return [row[1] for row in self._db.execute("PRAGMA table_info(results)")]

    def _present(self, wanted: Container[str], *, prefix: str) -> str:
        """The SQL list of the ``results`` columns in ``wanted``, in table order."""
        return ", ".join(prefix + name for name in self._result_columns() if name in wanted)

    def export_rows(
        self, *, without: Collection[str] = (), columns: Sequence[str] | None = None
    ) -> Iterator[dict[str, Any]]:
        """One row per sample and prompt with the export columns
        (:data:`twosat_formal.evaluate.columns.COLUMNS`, in order).

        A result belongs to every stored prompt with the same text (the same request);
        a result whose prompt is not stored keeps the id it was asked for. The family,
        clause count and knobs come from the stored instance of the prompt.

        ``columns`` names the export columns wanted (all of them for ``None``): the
        rows carry those alone, in export order, and SQLite reads only what they are
        made of (:meth:`~twosat_formal.evaluate.columns.ExportColumn.sources`), so asking for
        no column made of ``response`` never loads an answer's text. ``without``
        names columns of the ``results`` table the caller does not need (``report``
        passes ``{"response"}``): SQLite does not read them, and the columns made of
        them are ``None``.
        """
        picked_columns = pick_columns(columns)
        wanted = _Wanted(without, None if columns is None else sources_of(picked_columns))
        cursor = self._db.execute(self._export_query(wanted))
        names = [d[0] for d in cursor.description]
        values = [(name, COLUMNS.get(name).value) for name in picked_columns]
        for row in cursor:
            joined = dict(zip(names, row, strict=True))
            yield {name: value(joined) for name, value in values}

    def _export_query(self, wanted: Container[str]) -> str:
        """The query of :meth:`export_rows` reading the ``wanted`` columns."""
        joined_sql = {name: sql for name, (_, sql) in JOINED.items() if name in wanted}
        selected = [self._present(wanted, prefix="r.")]
        selected += [f"{sql} AS {name}" for name, sql in joined_sql.items()]
        join_instances = any(name.startswith("instance_") for name in joined_sql)
        return (
            f"SELECT {', '.join(filter(None, selected)) or 'NULL'} "
            "FROM results r LEFT JOIN prompts p ON p.prompt_hash = r.prompt_hash "
            + ("LEFT JOIN instances i ON i.instance_id = p.instance_id " if join_instances else "")
            + "ORDER BY r.model, coalesce(p.prompt_id, r.prompt_id), r.sample, r.params, "
            "r.endpoint"
        )

    # -- runs ------------------------------------------------------------------------------

    def start_run(self, info: Mapping[str, Any]) -> int:
        """Record the start of a run (``info``: what was asked, never a key)."""
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO runs (started_at, status, info) VALUES (?, 'running', ?)",
                (datetime.now(UTC).isoformat(), json.dumps(dict(info), sort_keys=True)),
            )
        return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, status: str) -> None:
        """Record how a run ended (``finished``, ``interrupted``, ``failed``)."""
        with self._db:
            self._db.execute(
                "UPDATE runs SET finished_at = ?, status = ? WHERE run_id = ?",
                (datetime.now(UTC).isoformat(), status, run_id),
            )

    def runs(self) -> list[dict[str, Any]]:
        """The recorded runs, oldest first."""
        cursor = self._db.execute(
            "SELECT run_id, started_at, finished_at, status, info FROM runs ORDER BY run_id"
        )
        return [
            {
                "run_id": a,
                "started_at": b,
                "finished_at": c,
                "status": d,
                "info": self._json(e, "runs"),
            }
            for a, b, c, d, e in cursor
        ]


@contextmanager
def filled_store(path: str | os.PathLike[str], *, keep_results: bool = True) -> Iterator[RunStore]:
    """The writable store at ``path`` for a command that fills it; leaves nothing behind
    when the command is refused.

    A store this call created (with its ``-wal``, ``-shm`` and ``-journal`` files) is
    removed again when the block raises a refusal (a
    :class:`~twosat_formal.errors.TwoSatFormalError` of exit code 2: a model spec
    refused once the run starts, a bad line of the answers; or an :class:`OSError`: an
    answers file that is missing or unreadable) and holds no result, or
    whatever it holds unless ``keep_results`` (``score``: its results are
    scored again in a moment; ``eval`` keeps answers it paid for). An existing store,
    an interruption and failed requests (exit code 3: the run is stored as ``failed``)
    keep what they hold.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
    >>> try:
    ...     with filled_store(path) as store:
    ...         raise RecordError("a refused model spec")
    ... except RecordError:
    ...     pass
    >>> path.exists()
    False
    """
    made = _new_files(path)
    store = RunStore(path)
    try:
        yield store
    except (TwoSatFormalError, OSError) as error:
        # a refusal (an input that cannot be read is one: the command exits 2 naming
        # it), not a failed request (that run is kept), on a store left empty
        refused = isinstance(error, OSError) or error.exit_code == EXIT_USAGE
        discard = refused and (not keep_results or store.count() == 0)
        store.close()
        if discard:
            for file in made:
                file.unlink(missing_ok=True)
        raise
    except BaseException:
        store.close()
        raise
    store.close()


def _new_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files of a store at ``path`` (with its ``-wal``, ``-shm`` and ``-journal``
    files) that opening it creates: none when the store exists."""
    files = [Path(f"{os.fspath(path)}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")]
    made = [file for file in files if not file.exists() and not file.is_symlink()]
    return made if files[0] in made else []
