"""Throughput of the evaluation runner against a loopback server with a fixed latency.

The fault server (``tests/faultserver.py``) runs in its own process and answers every
request after 50 ms. The runner sends 2,000 requests at concurrency 64 through the
real OpenAI-compatible client, scores every answer and commits every result to a
SQLite run store. The ideal throughput is ``concurrency / latency`` (1,280 requests
per second); the target is at least 80% of it.

The peer, measured in the same run, is a bare ``httpx`` loop with the same
concurrency that neither scores nor stores: the gap between the two is what the
harness costs. The script prints both ratios, the wall time per request per slot
beyond the server's latency, and the harness overhead alone (runner, scoring and
store, measured with an in-process model that answers at once). No assertion is made
on time.

Usage::

    python benchmarks/bench_eval.py            # 2,000 requests
    python benchmarks/bench_eval.py --small    # 200 requests (CI)
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from faultserver import spawn_fault_server  # type: ignore[import-not-found,unused-ignore]

from twosat_formal.evaluate import EvalItem, EvalPrompt, run_eval
from twosat_formal.formula import Formula
from twosat_formal.models import load_model
from twosat_formal.models.base import Response, SamplingParams
from twosat_formal.store import RunStore

ANSWER = 'Set A true.\n```json\n{"A": "true", "B": "false"}\n```\nThe answer is: Yes'
FORMULA = Formula.from_named([["x1", "~x2"], ["x1"]])


def items(count: int) -> list[EvalItem]:
    """``count`` distinct prompts (distinct texts, so distinct store keys)."""
    return [
        EvalItem(
            EvalPrompt(
                id=f"p{i}",
                instance_id="bench",
                template="logic",
                text=f"Consider these logical relationships (copy {i}):\nA is true.",
                entities={"A": "x1", "B": "x2"},
                true_value="true",
                false_value="false",
            ),
            FORMULA,
            "SAT",
        )
        for i in range(count)
    ]


async def harness(url: str, work: list[EvalItem], concurrency: int, folder: Path) -> float:
    """Seconds the runner takes for ``work`` (client, scoring, store)."""
    async with load_model("openai/bench", base_url=url) as model:
        with RunStore(folder / "runs.sqlite") as store:
            started = time.perf_counter()
            summary = await run_eval(
                [model], work, store, params=SamplingParams(max_tokens=64), concurrency=concurrency
            )
            elapsed = time.perf_counter() - started
            if summary.correct != len(work):
                raise SystemExit(f"unexpected results: {summary.to_dict()}")
    return elapsed


class Instant:
    """A model that answers at once, in process: what is left is the harness alone."""

    spec, endpoint = "bench/instant", "local"

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        return Response(ANSWER, "stop", 10, 10, 0.0)

    async def aclose(self) -> None:
        pass


async def harness_alone(work: list[EvalItem], concurrency: int, folder: Path) -> float:
    """Seconds the runner, scoring and store take for ``work`` with no HTTP at all."""
    with RunStore(folder / "instant.sqlite") as store:
        started = time.perf_counter()
        await run_eval([Instant()], work, store, concurrency=concurrency)
        return time.perf_counter() - started


async def bare_client(url: str, work: list[EvalItem], concurrency: int) -> float:
    """Seconds a bare httpx loop takes for the same requests (no scoring, no store)."""
    semaphore = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=256)
    async with httpx.AsyncClient(base_url=url + "/", limits=limits, trust_env=False) as client:

        async def one(item: EvalItem) -> None:
            async with semaphore:
                body = {
                    "model": "bench",
                    "messages": [{"role": "user", "content": item.prompt.text}],
                }
                reply = await client.post("chat/completions", json=body)
                reply.raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(one(item) for item in work))
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print throughput ratios and the overhead per request."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="200 requests instead of 2,000")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight")
    parser.add_argument("--latency", type=float, default=0.05, help="server latency (s)")
    args = parser.parse_args(argv)
    count = 200 if args.small else 2000
    work = items(count)
    ideal = args.concurrency / args.latency
    server = spawn_fault_server(answer=None, default_answer=ANSWER, latency_s=args.latency)
    try:
        asyncio.run(bare_client(server.url, items(min(count, 2 * args.concurrency)), 8))  # warm
        peer = asyncio.run(bare_client(server.url, work, args.concurrency))
        with tempfile.TemporaryDirectory() as tmp:
            ours = asyncio.run(harness(server.url, work, args.concurrency, Path(tmp)))
            alone = asyncio.run(harness_alone(work, args.concurrency, Path(tmp)))
    finally:
        server.stop()
    for name, seconds in (("harness", ours), ("bare httpx", peer)):
        rate = count / seconds
        per_slot = seconds * args.concurrency / count
        print(
            f"{name:<11} {count} requests in {seconds:6.2f} s: {rate:7.1f} req/s, "
            f"{rate / ideal:6.1%} of ideal ({ideal:.0f} req/s), "
            f"{1000 * (per_slot - args.latency):7.2f} ms per request beyond the latency"
        )
    print(f"harness / bare httpx throughput: {peer / ours:.2f}")
    print(
        f"harness overhead (runner, scoring, store; no HTTP): {1000 * alone / count:.3f} ms "
        "per request"
    )
    print(f"ratio to ideal: {count / ours / ideal:.3f} (target >= 0.80)")


if __name__ == "__main__":
    main()
