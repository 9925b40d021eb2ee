"""Retrying and caching as wrappers around any model (the Model protocol only)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.model import Model, Response, SamplingParams
from twosat_formal.errors import ConfigError, EvaluationError, TransientModelError
from twosat_formal.evaluate.models.cache import CachedModel, ResponseCache
from twosat_formal.evaluate.models.retry import RetryingModel, RetryPolicy

NO_WAIT = RetryPolicy(max_attempts=4, base_delay_s=0.0, max_delay_s=0.0)


class Scripted:
    """Fails as told (``"transient"``, ``"fatal"``, ``"hang"``) call by call, then answers."""

    def __init__(self, faults: list[str], spec: str = "test/scripted") -> None:
        self.spec, self.endpoint = spec, "local"
        self.faults = list(faults)
        self.calls: list[tuple[str, int]] = []

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        self.calls.append((prompt, sample))
        fault = self.faults.pop(0) if self.faults else None
        if fault == "transient":
            raise TransientModelError("HTTP 503", status=503)
        if fault == "fatal":
            raise EvaluationError("HTTP 400: bad request")
        if fault == "hang":
            await asyncio.sleep(10)
        return Response(f"{prompt}#{sample}", "stop", 3, 4, 0.01)

    async def aclose(self) -> None:
        pass


def test_wrappers_are_models() -> None:
    inner = Scripted([])
    with ResponseCache(":memory:") as cache:
        for wrapped in (RetryingModel(inner), CachedModel(inner, cache)):
            assert isinstance(wrapped, Model)
            assert (wrapped.spec, wrapped.endpoint) == (inner.spec, inner.endpoint)


@given(st.integers(min_value=0, max_value=3))
def test_transient_failures_are_retried_until_an_answer(failures: int) -> None:
    inner = Scripted(["transient"] * failures)
    counted: list[int] = []
    model = RetryingModel(inner, NO_WAIT, on_retry=lambda: counted.append(1))
    outcome = asyncio.run(model.attempt("p", SamplingParams(), 2))
    assert outcome.response is not None and outcome.response.text == "p#2"
    assert outcome.attempts == failures + 1 == len(inner.calls)
    assert model.retries == failures == len(counted)


def test_persistent_transient_failures_give_up_after_the_last_attempt() -> None:
    inner = Scripted(["transient"] * 10)
    model = RetryingModel(inner, NO_WAIT)
    with pytest.raises(TransientModelError, match=r"HTTP 503 \(gave up after 4 attempts\)"):
        asyncio.run(model.generate("p", SamplingParams()))
    assert len(inner.calls) == 4 and model.retries == 3


def test_failures_for_good_are_not_retried() -> None:
    inner = Scripted(["fatal"])
    outcome = asyncio.run(RetryingModel(inner, NO_WAIT).attempt("p", SamplingParams()))
    assert outcome.response is None and outcome.attempts == 1
    assert isinstance(outcome.error, EvaluationError) and "bad request" in str(outcome.error)


def test_a_timed_out_attempt_is_transient() -> None:
    inner = Scripted(["hang"])
    model = RetryingModel(inner, NO_WAIT, timeout_s=0.05)
    outcome = asyncio.run(model.attempt("p", SamplingParams()))
    assert outcome.response is not None and outcome.attempts == 2


def test_the_jitter_is_seeded() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    a, b = RetryingModel(Scripted([]), policy, seed=7), RetryingModel(Scripted([]), policy, seed=7)
    assert [policy.delay(k, a.rng) for k in (1, 2, 3)] == [
        policy.delay(k, b.rng) for k in (1, 2, 3)
    ]
    with pytest.raises(ConfigError):
        RetryPolicy(max_attempts=0)


def test_the_cache_answers_repeated_calls_from_sqlite_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    params = SamplingParams(max_tokens=8)
    inner = Scripted([])
    with ResponseCache(path) as cache:
        model = CachedModel(inner, cache)
        first = asyncio.run(model.generate("p", params, 0))
        asyncio.run(model.generate("p", params, 1))  # another sample: another key
        asyncio.run(model.generate("p", SamplingParams(max_tokens=9), 0))  # other params
    assert (model.made, model.reused, len(inner.calls)) == (3, 0, 3)
    again = Scripted([])
    with ResponseCache(path) as cache:  # a new connection: what was stored is on disk
        reopened = CachedModel(again, cache)
        assert asyncio.run(reopened.generate("p", params, 0)) == first
        assert cache.count() == 3 and cache.count("test/scripted") == 3 and cache.count("x") == 0
    assert again.calls == [] and reopened.reused == 1
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(responses)")]
    assert "text" in columns and "failure" not in columns  # answers only, no judgements


def test_failed_calls_are_not_cached() -> None:
    inner = Scripted(["fatal"])
    with ResponseCache(":memory:") as cache:
        model = CachedModel(inner, cache)
        with pytest.raises(EvaluationError):
            asyncio.run(model.generate("p", SamplingParams()))
        assert cache.count() == 0
        assert asyncio.run(model.generate("p", SamplingParams())).text == "p#0"
        assert cache.count() == 1 and model.made == 1


def test_the_cache_keeps_no_secret_of_the_endpoint(tmp_path: Path) -> None:
    inner = Scripted([])
    inner.endpoint = "https://user:sk-secret@api.example.org/v1?key=sk-secret"
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        asyncio.run(CachedModel(inner, cache).generate("p", SamplingParams()))
    assert b"sk-secret" not in (tmp_path / "c.sqlite").read_bytes()
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        assert db.execute("SELECT endpoint FROM responses").fetchone()[0] == (
            "https://api.example.org/v1"
        )


def test_cache_outside_retry_reuses_without_retrying() -> None:
    inner = Scripted(["transient"])
    with ResponseCache(":memory:") as cache:
        model = CachedModel(RetryingModel(inner, NO_WAIT), cache)
        asyncio.run(model.generate("p", SamplingParams()))
        asyncio.run(model.generate("p", SamplingParams()))
    assert len(inner.calls) == 2 and (model.made, model.reused) == (1, 1)
