"""Caching, as a wrapper around any model: answers kept in a SQLite table and reused.

:class:`ResponseCache` is one table, ``responses``, in a SQLite file (stdlib
:mod:`sqlite3`, WAL mode). A row is one answered call, keyed like an evaluation
request by :func:`~twosat_formal.evaluate.store.request_key` (model spec, public endpoint,
prompt hash, sampling parameters, sample index), and holds the
:class:`~twosat_formal.core.model.Response` fields: nothing is judged, nothing is made up.

:class:`CachedModel` wraps a model: a call whose key is in the cache is answered from
it without asking the model; an answered call is stored (and committed) before it is
returned; a failed call stores nothing. A conversation sent as messages
(:meth:`CachedModel.converse`) is keyed by the hash of its
:func:`~twosat_formal.core.model.conversation_key`, never by a transcript's text. An
interrupted job that asks through it resumes where it stopped, and a complete re-run
asks the model nothing. The story verbalizer is handed such a model
(:func:`twosat_formal.evaluate.run.stories.generate_stories`).

Examples
--------
>>> import asyncio
>>> from twosat_formal.core.model import Response, SamplingParams
>>> class Echo:
...     spec, endpoint, calls = "test/echo", "local", 0
...     async def generate(self, prompt, params, sample=0):
...         self.calls += 1
...         return Response(prompt.upper(), "stop", reasoning="Shouting it.")
...     async def aclose(self):
...         pass
>>> echo = Echo()
>>> with ResponseCache(":memory:") as cache:
...     model = CachedModel(echo, cache)
...     first = asyncio.run(model.generate("hi", SamplingParams()))
...     again = asyncio.run(model.generate("hi", SamplingParams()))
...     stored = cache.count()
>>> again == first, echo.calls, model.made, model.reused, stored
(True, 1, 1, 1, 1)
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from twosat_formal._util.atomic import stream_target
from twosat_formal._util.closing import Closing
from twosat_formal.core.model import (
    Model,
    Response,
    SamplingParams,
    Turn,
    conversation_key,
    public_endpoint,
)
from twosat_formal.errors import RecordError
from twosat_formal.evaluate.models.base import WrappedModel, send
from twosat_formal.evaluate.store import prompt_hash, request_key

__all__ = ["CachedModel", "ResponseCache"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    params TEXT NOT NULL,
    sample INTEGER NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_s REAL,
    created_at TEXT NOT NULL,
    reasoning TEXT
);
"""
_FIELDS = "text, finish_reason, prompt_tokens, completion_tokens, latency_s, reasoning"


class ResponseCache(Closing):
    """The ``responses`` table of a SQLite file (``":memory:"`` for a throw-away one).

    The file may be shared with other tables (a run store's, for instance); only
    ``responses`` is read or written here.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        target = str(path)
        if target != ":memory:":
            if stream_target(target):  # SQLite would write its journal beside a device
                raise RecordError(
                    "not a run store (a device, pipe or descriptor, not a file)", source=target
                )
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        self.path = target
        self._db = sqlite3.connect(target)
        try:  # refused before anything is written: another application's file stays as it is
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise RecordError(f"not a run store ({exc})", source=target) from None
        if tables and not tables & {"responses", "schema_version"}:
            self._db.close()
            raise RecordError("not a run store (an SQLite file with other tables)", source=target)
        if target != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        present = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
        if "reasoning" not in present:  # a cache written before the column existed
            self._db.execute("ALTER TABLE responses ADD COLUMN reasoning TEXT")
        self._db.commit()

    def get(self, key: str) -> Response | None:
        """The stored response of ``key``, or ``None``."""
        row = self._db.execute(f"SELECT {_FIELDS} FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else Response(*row)

    def put(
        self,
        key: str,
        *,
        model: str,
        endpoint: str,
        prompt_sha: str,
        params: str,
        sample: int,
        response: Response,
    ) -> None:
        """Store one answered call (a key stored already is left as it is) and commit."""
        self._db.execute(
            f"INSERT INTO responses (key, model, endpoint, prompt_hash, params, sample, {_FIELDS},"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                key,
                model,
                public_endpoint(endpoint),
                prompt_sha,
                params,
                int(sample),
                response.text,
                response.finish_reason,
                response.prompt_tokens,
                response.completion_tokens,
                response.latency_s,
                response.reasoning,
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )
        self._db.commit()

    def count(self, model: str | None = None) -> int:
        """Stored responses (of one model spec, when ``model`` is given)."""
        if model is None:
            row = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        else:
            row = self._db.execute(
                "SELECT COUNT(*) FROM responses WHERE model = ?", (model,)
            ).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()


class CachedModel(WrappedModel):
    """``model`` answered from ``cache`` where it can, its new answers stored there.

    ``made`` counts the calls that reached the model and were stored, ``reused`` the
    calls answered from the cache. Closing it closes the model; the cache stays open
    (its owner closes it).
    """

    def __init__(self, model: Model, cache: ResponseCache) -> None:
        super().__init__(model)
        self.cache = cache
        self.made = 0
        self.reused = 0

    async def _answer(
        self, prompt: str | list[Turn], params: SamplingParams, sample: int
    ) -> Response:
        """The cached response of this call, or the model's (stored before it is returned)."""
        sha = prompt_hash(prompt if isinstance(prompt, str) else conversation_key(prompt))
        params_key = params.key()
        key = request_key(self.spec, self.endpoint, sha, params_key, sample)
        cached = self.cache.get(key)
        if cached is not None:
            self.reused += 1
            return cached
        response = await send(self.model, prompt, params, sample)
        self.cache.put(
            key,
            model=self.spec,
            endpoint=self.endpoint,
            prompt_sha=sha,
            params=params_key,
            sample=sample,
            response=response,
        )
        self.made += 1
        return response
