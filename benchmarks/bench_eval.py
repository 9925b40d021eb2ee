"""Throughput of the evaluation runner against a loopback server with a fixed latency.

The fault server (``tests/support/faultserver.py``) runs in its own process (so that it never
competes with the client for the interpreter lock) and answers every request after
50 ms. The runner sends 2,000 requests at concurrency 64 through the real
OpenAI-compatible client, scores every answer and commits every result to a SQLite
run store. The ideal throughput is ``concurrency / latency`` (1,280 requests per
second).

The peer, measured in the same run, is a bare :mod:`aiohttp` loop (the client's own
HTTP library) with the same concurrency that neither scores nor stores: the gap
between the two is what the harness costs. The script prints, for both, the ratio to
the ideal throughput and the CPU time per request of the client's process and of the
server's process (wall-clock ratios depend on how busy the machine is; CPU time per
request much less), and the ceiling the client's CPU time sets on the ratio when the
client has a whole core to itself. It also prints the harness overhead alone (runner, scoring and
store, measured with an in-process model that answers at once). No assertion is made
on time.

The two clients take turns, three rounds of each by default (``--repeat``), each first
every other round; the script prints every round's ratios and the load average
beside them, then the medians. The issue's goal is a throughput ratio of at least
0.95. On a machine that other work keeps busy, the ratio of client CPU per request
(bare / harness) is the steadier figure.

Usage::

    python benchmarks/bench_eval.py            # 2,000 requests, 3 rounds
    python benchmarks/bench_eval.py --small    # 200 requests, 1 round (CI)
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp

sys.path.append(str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]
from faultserver import SpawnedServer, spawn_fault_server  # type: ignore[import-not-found,unused-ignore]

from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.base import Response, SamplingParams
from twosat_formal.evaluate.run import EvalItem, EvalPrompt, run_eval
from twosat_formal.evaluate.store import RunStore

ANSWER = 'Set A true.\n```json\n{"A": "true", "B": "false"}\n```\nThe answer is: Yes'
FORMULA = Formula.from_named([["x1", "~x2"], ["x1"]])


@dataclass(frozen=True)
class Measure:
    """One timed phase: wall seconds, client CPU seconds, server CPU seconds."""

    wall_s: float
    cpu_s: float
    server_cpu_s: float


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


async def timed(server: SpawnedServer | None, body: Callable[[], Awaitable[None]]) -> Measure:
    """Run ``body`` and measure its wall time and the CPU time of both processes."""
    server_before = server.stats()["cpu_s"] if server is not None else 0.0
    cpu_before, started = time.process_time(), time.perf_counter()
    await body()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_before
    server_after = server.stats()["cpu_s"] if server is not None else 0.0
    return Measure(wall, cpu, server_after - server_before)


async def harness(
    server: SpawnedServer, work: list[EvalItem], concurrency: int, folder: Path
) -> Measure:
    """The runner on ``work`` through the real client (HTTP, scoring, store).

    Like the bare loop, the client is warmed first: one untimed run of ``2 * concurrency``
    requests into a store of its own opens the connections and loads the scoring code.
    """
    async with load_model("openai/bench", base_url=server.url) as model:
        with RunStore(folder / "warm.sqlite") as warm:
            await run_eval([model], items(2 * concurrency), warm, concurrency=concurrency)
        with RunStore(folder / "runs.sqlite") as store:

            async def body() -> None:
                summary = await run_eval(
                    [model],
                    work,
                    store,
                    params=SamplingParams(max_tokens=64),
                    concurrency=concurrency,
                )
                if summary.correct != len(work):
                    raise SystemExit(f"unexpected results: {summary.to_dict()}")

            return await timed(server, body)


class Instant:
    """A model that answers at once, in process: what is left is the harness alone."""

    spec, endpoint = "bench/instant", "local"

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        return Response(ANSWER, "stop", 10, 10, 0.0)

    async def aclose(self) -> None:
        pass


async def harness_alone(work: list[EvalItem], concurrency: int, folder: Path) -> Measure:
    """The runner, scoring and store on ``work`` with no HTTP at all."""
    with RunStore(folder / "instant.sqlite") as store:

        async def body() -> None:
            await run_eval([Instant()], work, store, concurrency=concurrency)

        return await timed(None, body)


async def bare_client(server: SpawnedServer, work: list[EvalItem], concurrency: int) -> Measure:
    """The same requests from a bare aiohttp loop (no scoring, no store).

    Warmed like the harness: ``2 * concurrency`` untimed requests through the same
    session open its connections first.
    """
    semaphore = asyncio.Semaphore(concurrency)
    url = server.url + "/chat/completions"
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, trust_env=False) as session:

        async def one(item: EvalItem) -> None:
            async with semaphore:
                body = {
                    "model": "bench",
                    "messages": [{"role": "user", "content": item.prompt.text}],
                }
                async with session.post(url, json=body) as reply:
                    reply.raise_for_status()
                    await reply.json()

        await asyncio.gather(*(one(item) for item in items(2 * concurrency)))

        async def body() -> None:
            await asyncio.gather(*(one(item) for item in work))

        return await timed(server, body)


def load() -> str:
    """The machine's load averages (1, 5 and 15 minutes), as ``uptime`` prints them."""
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print throughput ratios and the overhead per request."""
    args = bench_parser(
        __doc__,
        "200 requests in one round instead of 2,000 in three",
        concurrency=(64, "requests in flight"),
        latency=(0.05, "server latency (s)"),
        repeat=(0, "rounds of each client (0: 3, or 1 with --small)"),
    ).parse_args(argv)
    count = 200 if args.small else 2000
    rounds = args.repeat or (1 if args.small else 3)
    work = items(count)
    ideal = args.concurrency / args.latency
    print(
        f"{count} requests at concurrency {args.concurrency}, server latency "
        f"{1000 * args.latency:.0f} ms: ideal {ideal:.0f} req/s; load average {load()}"
    )
    server = spawn_fault_server(default_answer=ANSWER, latency_s=args.latency)
    ours: list[Measure] = []
    peers: list[Measure] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for index in range(rounds):
                folder = Path(tmp) / f"round{index}"
                folder.mkdir()
                # the two in turn, each first every other round: a change of load in the
                # middle of a round does not always fall on the same one
                if index % 2 == 0:
                    peers.append(asyncio.run(bare_client(server, work, args.concurrency)))
                ours.append(asyncio.run(harness(server, work, args.concurrency, folder)))
                if index % 2 == 1:
                    peers.append(asyncio.run(bare_client(server, work, args.concurrency)))
                print(
                    f"round {index + 1}: harness / bare aiohttp throughput "
                    f"{peers[-1].wall_s / ours[-1].wall_s:.2f}, client CPU per request "
                    f"{1000 * ours[-1].cpu_s / count:.3f} / {1000 * peers[-1].cpu_s / count:.3f} ms"
                    f"; load average {load()}"
                )
            alone = asyncio.run(harness_alone(work, args.concurrency, Path(tmp)))
    finally:
        server.stop()
    for name, runs in (("harness", ours), ("bare aiohttp", peers)):
        wall = statistics.median(m.wall_s for m in runs)
        rate = count / wall
        print(
            f"{name:<12} {wall:6.2f} s: {rate:7.1f} req/s, {rate / ideal:6.1%} of ideal; "
            f"CPU per request: client {1000 * statistics.median(m.cpu_s for m in runs) / count:.3f}"
            f" ms, server {1000 * statistics.median(m.server_cpu_s for m in runs) / count:.3f} ms"
            f" (medians of {rounds})"
        )
    throughput = statistics.median(p.wall_s / o.wall_s for p, o in zip(peers, ours, strict=True))
    cpu = statistics.median(p.cpu_s / o.cpu_s for p, o in zip(peers, ours, strict=True))
    print(f"harness / bare aiohttp throughput: {throughput:.2f} (median of {rounds}; goal >= 0.95)")
    print(f"bare aiohttp / harness client CPU per request: {cpu:.2f} (median of {rounds})")
    print(
        f"harness overhead (runner, scoring, store; no HTTP): "
        f"{1000 * alone.cpu_s / count:.3f} ms CPU, {1000 * alone.wall_s / count:.3f} ms wall "
        "per request"
    )
    ceiling = min(1.0, count / statistics.median(m.cpu_s for m in ours) / ideal)
    print(f"CPU-bound ceiling of the harness (a whole core for the client): {ceiling:.3f} of ideal")
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
