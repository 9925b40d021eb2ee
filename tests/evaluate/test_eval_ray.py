"""``eval --executor ray``: the models are asked on Ray workers, the driver stores.

A real local Ray with 2 CPUs (started once for the module) and, for the HTTP models,
a real OpenAI-compatible server on 127.0.0.1. For deterministic models the store a
Ray run writes holds the same results as a local run's, measured fields aside
(latency, time stamps, run ids); a Ray run resumes a store as a local one does, and
a worker's errors are the local errors.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.evaluate.test_evaluate import make_items
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from twosat_formal._util.executors import make_executor
from twosat_formal.errors import EndpointError
from twosat_formal.evaluate.run import EvalItem, EvalSummary, RetryPolicy, evaluate
from twosat_formal.evaluate.store import RunStore

pytestmark = pytest.mark.slow

MEASURED = {"latency_s", "created_at", "run_id"}


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    ray = pytest.importorskip("ray", reason="needs the [ray] extra")
    patch = pytest.MonkeyPatch()
    patch.delenv("RAY_ADDRESS", raising=False)
    assert not ray.is_initialized()
    with make_executor("ray", jobs=2):  # a real local Ray with 2 CPUs, for the module
        yield
    patch.undo()
    assert not ray.is_initialized()


def stored(path: Path) -> list[dict[str, Any]]:
    with RunStore(path, readonly=True) as store:
        return [{k: v for k, v in row.items() if k not in MEASURED} for row in store.results()]


def run(path: Path, specs: list[str], items: list[EvalItem], **options: Any) -> EvalSummary:
    with RunStore(path) as store:
        return evaluate(specs, items, store, concurrency=8, **options)


def test_reference_models_on_ray_store_what_local_stores(ray_session: None, tmp_path: Path) -> None:
    items = make_items(12, seed=5)
    specs = ["ref/coin", "ref/oracle"]
    local = run(tmp_path / "local.sqlite", specs, items, samples=2)
    remote = run(tmp_path / "ray.sqlite", specs, items, samples=2, executor="ray", jobs=2)
    assert local.done == remote.done == 48
    assert stored(tmp_path / "ray.sqlite") == stored(tmp_path / "local.sqlite")
    assert len({row["response"] for row in stored(tmp_path / "ray.sqlite")}) > 2


def answer(prompt: str) -> str:
    """A deterministic answer that depends on the prompt."""
    return "The answer is: " + ("Yes" if len(prompt) % 5 < 2 else "No")


def plan(prompt: str, attempt: int) -> str:
    """HTTP 500 on the first try of some prompts (retried), then a reply."""
    return "500" if attempt == 0 and len(prompt) % 2 == 0 else "ok"


def test_http_models_on_ray_store_what_local_stores_and_resume(
    ray_session: None, tmp_path: Path
) -> None:
    items = make_items(10, seed=6)
    spec = ["openai/m"]
    retry = RetryPolicy(base_delay_s=0.0)
    with FaultServer(plan=plan, answer=answer) as server:
        local = run(tmp_path / "local.sqlite", spec, items, base_url=server.url, retry=retry)
    # on Ray: half of the prompts, then all of them; the second run asks only the rest.
    # A fresh server (its fault plan starts again) at the same URL (the keys name it)
    with FaultServer(plan=plan, answer=answer, port=server.port) as server:
        first = run(
            tmp_path / "ray.sqlite", spec, items[:4], base_url=server.url, retry=retry,
            executor="ray", jobs=2,
        )  # fmt: skip
        asked_first = set(server.prompts())
        second = run(
            tmp_path / "ray.sqlite", spec, items, base_url=server.url, retry=retry,
            executor="ray", jobs=2,
        )  # fmt: skip
        asked = server.prompts()
    assert local.retries == first.retries + second.retries > 0
    assert (first.done, second.done, second.skipped) == (4, 6, 4)
    assert asked_first == {item.prompt.text for item in items[:4]}
    assert sorted(set(asked) - asked_first) == sorted(item.prompt.text for item in items[4:])
    assert stored(tmp_path / "ray.sqlite") == stored(tmp_path / "local.sqlite")


def test_a_refused_endpoint_stops_a_ray_run_as_a_local_one(
    ray_session: None, tmp_path: Path
) -> None:
    items = make_items(3, seed=7)
    errors = []
    for executor in ("local", "ray"):
        with (
            FaultServer(plan=lambda prompt, attempt: "404") as server,
            pytest.raises(EndpointError) as info,
        ):
            run(tmp_path / f"{executor}.sqlite", ["openai/m"], items,
                base_url=server.url, executor=executor, jobs=2)  # fmt: skip
        errors.append((type(info.value), str(info.value).replace(server.url, "URL")))
    assert errors[0] == errors[1]


def test_the_eval_command_runs_on_ray(
    ray_session: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from twosat_formal.verbalize.prompts import write_prompts

    items = make_items(6, seed=8)
    write_prompts([item.prompt for item in items], tmp_path / "p.jsonl")
    base = ["eval", str(tmp_path / "p.jsonl"), "-m", "ref/coin", "--no-progress", "--no-verify"]
    for name, extra in (("local", []), ("ray", ["--executor", "ray", "--jobs", "2"])):
        code, _, err = cli(capsys, *base, "--store", str(tmp_path / f"{name}.sqlite"), *extra)
        assert code == 0, err
    assert len(stored(tmp_path / "ray.sqlite")) == 6
    assert stored(tmp_path / "ray.sqlite") == stored(tmp_path / "local.sqlite")


def test_eval_refuses_the_process_executor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from twosat_formal.verbalize.prompts import write_prompts

    items = make_items(2, seed=9)
    write_prompts([item.prompt for item in items], tmp_path / "p.jsonl")
    code, _, err = cli(
        capsys, "eval", str(tmp_path / "p.jsonl"), "-m", "ref/coin", "--no-verify",
        "--store", str(tmp_path / "s.sqlite"), "--executor", "process",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert "eval asks its models here (local) or on Ray workers (ray)" in err


def test_an_interrupted_ray_run_resumes_to_the_local_store(
    ray_session: None, tmp_path: Path
) -> None:
    from twosat_formal.evaluate.run import run_eval
    from twosat_formal.evaluate.run.remote import ModelSource, ray_models

    items = make_items(8, seed=10)
    late = {item.prompt.text for item in items[4:]}

    def slow_late(prompt: str, attempt: int) -> str:  # the last four answer in 2 s
        return "slow" if prompt in late and attempt == 0 else "ok"

    with FaultServer(plan=slow_late, answer=answer, slow_s=2.0) as server:
        local = run(tmp_path / "local.sqlite", ["openai/m"], items, base_url=server.url)
    assert local.done == 8

    async def interrupted(url: str) -> EvalSummary:
        summary = EvalSummary()
        source = ModelSource("openai/m", (url,))
        async with ray_models([source], jobs=2) as models:
            with RunStore(tmp_path / "ray.sqlite") as store:
                task = asyncio.ensure_future(run_eval(models, items, store, summary=summary))
                while summary.done < 4:  # the quick ones are stored, the slow ones asked
                    await asyncio.sleep(0.01)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
        return summary

    with FaultServer(plan=slow_late, answer=answer, slow_s=2.0, port=server.port) as again:
        cut = asyncio.run(interrupted(again.url))
        assert cut.interrupted and cut.done == 4
        with RunStore(tmp_path / "ray.sqlite", readonly=True) as store:
            assert [run["status"] for run in store.runs()] == ["interrupted"]
        resumed = run(
            tmp_path / "ray.sqlite", ["openai/m"], items, base_url=again.url,
            executor="ray", jobs=2,
        )  # fmt: skip
        asked = Counter(again.prompts())
    assert (resumed.skipped, resumed.done) == (4, 4)
    # each quick prompt was asked once; each slow one twice (cut, then resumed)
    assert sorted(asked.values()) == [1, 1, 1, 1, 2, 2, 2, 2]
    assert {text for text, n in asked.items() if n == 2} == late
    assert stored(tmp_path / "ray.sqlite") == stored(tmp_path / "local.sqlite")
