"""Per-model limits (concurrency, requests and tokens per minute) and endpoint pools.

Limits are enforced with aiolimiter's real leaky buckets; a test that a request is
held back waits 0.2 s for something that, unheld, takes microseconds, and that the
bucket releases after tens of seconds: no speed is measured. The endpoint pool is
tested against two real HTTP servers on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import answers_for, make_items, write_inputs
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from twosat_formal.core.model import Response, SamplingParams
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.run import EvalItem, run_eval
from twosat_formal.evaluate.run.limits import ModelLimiter, ModelLimits, split_limits
from twosat_formal.evaluate.store import RunStore


def test_limit_options_leave_the_spec_and_are_checked() -> None:
    assert split_limits("openai/m?tpm=5000&temperature=0.5&rpm=2") == (
        "openai/m?temperature=0.5",
        ModelLimits(rpm=2.0, tpm=5000.0),
    )
    assert split_limits("ref/coin?concurrency=3", ModelLimits(concurrency=9, rpm=1)) == (
        "ref/coin",
        ModelLimits(concurrency=3, rpm=1),
    )
    for bad in ("ref/coin?rpm=0", "ref/coin?rpm=fast", "ref/coin?concurrency=1.5"):
        with pytest.raises(ConfigError, match=r"rpm|concurrency"):
            split_limits(bad)
    with pytest.raises(ConfigError):
        ModelLimits(concurrency=0)


async def held_back(limiter: ModelLimiter, prompt: str, budget: int | None) -> bool:
    """Whether the next request has to wait (0.2 s is ample for one that does not)."""
    try:
        await asyncio.wait_for(limiter.acquire(prompt, budget), 0.2)
    except TimeoutError:
        return True
    return False


def test_requests_and_tokens_per_minute_hold_requests_back() -> None:
    async def check() -> tuple[list[bool], list[bool]]:
        per_minute = ModelLimiter(ModelLimits(rpm=3))
        requests = [await held_back(per_minute, "p", None) for _ in range(4)]
        tokens = ModelLimiter(ModelLimits(tpm=1000))  # a request: 100 + 400 tokens
        spent = [await held_back(tokens, "x" * 400, 400) for _ in range(3)]
        return requests, spent

    requests, spent = asyncio.run(check())
    assert requests == [False, False, False, True]
    assert spent == [False, False, True]


class Counting:
    """A model that counts the requests it has in flight."""

    def __init__(self, spec: str, answers: dict[str, str]) -> None:
        self.spec, self.endpoint = spec, "local"
        self.answers = answers
        self.in_flight = self.most = self.calls = 0

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        self.in_flight += 1
        self.calls += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return Response(self.answers[prompt], "stop")

    async def aclose(self) -> None:
        pass


def test_each_model_keeps_its_own_concurrency(tmp_path: Path) -> None:
    items: list[EvalItem] = make_items(12, seed=8)
    answers = answers_for(items)
    slow, fast = Counting("test/slow", answers), Counting("test/fast", answers)
    limits = {"test/slow": ModelLimits(concurrency=2)}
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = asyncio.run(
            run_eval([slow, fast], items, store, concurrency=8, samples=2, limits=limits)
        )
        info = store.runs()[-1]["info"]
    assert summary.done == 48 and summary.correct == 48
    assert slow.calls == fast.calls == 24
    assert slow.most == 2 and 2 < fast.most <= 8
    assert info["limits"] == {"test/slow": {"concurrency": 2, "rpm": None, "tpm": None}}


def test_several_base_urls_share_the_requests_and_one_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(10, seed=6)
    prompts, dataset = write_inputs(tmp_path, items)
    answers = answers_for(items)
    store = tmp_path / "runs.sqlite"
    common = [str(prompts), "--dataset", str(dataset), "--store", str(store), "--no-progress"]
    with FaultServer(answer=answers, latency_s=0.02) as a, FaultServer(answer=answers) as b:
        spec = "openai/m?concurrency=4&rpm=6000"
        code, out, err = cli(
            capsys,
            "eval",
            *common,
            "-m",
            spec,
            "--base-url",
            a.url,
            "--base-url",
            b.url,
            "--samples",
            "3",
            "--json",
        )
        assert code == 0, err
        assert json.loads(out)["done"] == 30 and json.loads(out)["accuracy"] == 1.0
        served = Counter(entry.fault for entry in a.log), Counter(e.fault for e in b.log)
        assert all(sum(counts.values()) > 0 for counts in served)  # both endpoints worked
        assert sum(len(server.log) for server in (a, b)) == 30
        with RunStore(store, readonly=True) as run_store:
            rows = list(run_store.results())
        assert {row["endpoint"] for row in rows} == {a.url}  # the pool's key: the first URL
        assert {row["model"] for row in rows} == {"openai/m"}  # limits are not in the key
        # the same deployment through its first endpoint alone: everything is stored
        code, out, err = cli(
            capsys,
            "eval",
            *common,
            "-m",
            "openai/m",
            "--base-url",
            a.url,
            "--samples",
            "3",
            "--json",
        )
        assert code == 0, err
        assert json.loads(out)["skipped"] == 30 and len(a.log) + len(b.log) == 30


@pytest.mark.parametrize("rpm", [0.001, 0.5, 0.999])
def test_under_one_request_a_minute_the_first_goes_and_the_next_waits(rpm: float) -> None:
    """``--rpm`` takes any finite number > 0: below 1 the bucket is one request per
    ``60 / rpm`` seconds (a bucket of capacity ``rpm`` could hold no request at all)."""

    async def check() -> list[bool]:
        limiter = ModelLimiter(ModelLimits(rpm=rpm))
        return [await held_back(limiter, "p", None) for _ in range(2)]

    assert asyncio.run(check()) == [False, True]


def test_eval_with_a_rate_under_one_request_a_minute_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The smallest rate the option takes (0.001 a minute) asks its first request."""
    prompts, dataset = write_inputs(tmp_path, make_items(1, seed=8))
    code, out, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(dataset), "-m", "ref/oracle",
        "--store", str(tmp_path / "runs.sqlite"), "--rpm", "0.001", "--no-progress",
    )  # fmt: skip
    assert code == 0 and "1 done now" in out and "Traceback" not in err, (code, out, err)
