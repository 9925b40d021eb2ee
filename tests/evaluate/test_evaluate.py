"""The runner: one stored result per request, retries, concurrency, interrupts, resume, faults.

Fake models exercise the runner's logic; the loopback fault server exercises it
through the real OpenAI-compatible client over real HTTP. Labels and answers come
from a brute-force solver written here.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from tests.support.brute import first_model
from tests.support.faultserver import FaultServer
from tests.support.signals import default_signals, spawn
from twosat_formal.cli import main
from twosat_formal.core.formula import Formula
from twosat_formal.errors import EvaluationError
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.base import Model, Response, SamplingParams, TransientModelError
from twosat_formal.evaluate.run import EvalItem, EvalSummary, RetryPolicy, run_eval
from twosat_formal.evaluate.store import RunStore, prompt_hash
from twosat_formal.io.instance import write_instances
from twosat_formal.make.edits.classify import root_instance
from twosat_formal.verbalize import prompt_record
from twosat_formal.verbalize.prompts import PromptRecord, write_prompts

TEMPLATES = ("logic", "letter", "team", "social", "room", "door")
FAST = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.01)

# -- fixtures written independently of the code under test -----------------------------------


def brute_force(formula: Formula) -> tuple[bool, ...] | None:
    return first_model(formula.clauses, formula.num_vars)


def make_items(count: int, seed: int = 0) -> list[EvalItem]:
    """``count`` small prompts over distinct random 2-CNFs (SAT and UNSAT), every template.

    Each formula is the root of a certifiable instance (:func:`root_instance`, family
    ``file``), so :func:`write_inputs` writes a dataset that ``certify`` passes.
    """
    rng = random.Random(seed)
    items: list[EvalItem] = []
    seen: set[str] = set()
    while len(items) < count:
        index = len(items)
        n = rng.randint(2, 5)
        clauses = [
            [rng.choice([v, -v]) for v in rng.sample(range(1, n + 1), k=min(2, n))]
            for _ in range(rng.randint(3, 9))
        ]
        formula = Formula(clauses, num_vars=n)
        instance = root_instance(formula)
        if instance.id in seen:
            continue
        seen.add(instance.id)
        template = TEMPLATES[index % len(TEMPLATES)]
        record = prompt_record(formula, template, instance_id=instance.id, seed=index)
        label = "SAT" if brute_force(formula) is not None else "UNSAT"
        items.append(EvalItem(record, formula, label))
    return items


def oracle_answer(item: EvalItem) -> str:
    """The answer a perfect model gives, in the App. G.2 format."""
    model = brute_force(item.formula)
    if model is None:
        return "There is a contradiction cycle.\nThe answer is: No"
    record = item.prompt
    names = item.formula.names
    values = {
        entity: record.true_value if model[names.index(var)] else record.false_value
        for entity, var in record.entities.items()
    }
    return "```json\n" + json.dumps(values, ensure_ascii=False) + "\n```\nThe answer is: Yes"


def answers_for(items: list[EvalItem]) -> dict[str, str]:
    return {item.prompt.text: oracle_answer(item) for item in items}


class Scripted:
    """A fake model: answers from ``answers``, raising ``failures[prompt]`` errors first."""

    def __init__(
        self,
        answers: dict[str, str],
        failures: Mapping[str, Sequence[Exception]] | None = None,
        spec: str = "test/scripted",
        delay_s: float = 0.0,
    ) -> None:
        self.spec, self.endpoint = spec, "local"
        self.answers = answers
        self.failures = {k: list(v) for k, v in (failures or {}).items()}
        self.delay_s = delay_s
        self.calls: Counter[tuple[str, int]] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        self.calls[(prompt, sample)] += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            pending = self.failures.get(prompt)
            if pending:
                raise pending.pop(0)
            return Response(self.answers[prompt], "stop", 10, 10, self.delay_s)
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        pass


def run(
    models: Sequence[Model], items: list[EvalItem], store: RunStore, **options: Any
) -> EvalSummary:
    options.setdefault("retry", FAST)
    return asyncio.run(run_eval(models, items, store, **options))


def per_prompt_counts(store: RunStore) -> Counter[tuple[str, str, int]]:
    return Counter((r["model"], r["prompt_id"], r["sample"]) for r in store.results())


# -- the runner with fake models -------------------------------------------------------------------


def test_every_request_ends_with_exactly_one_result(tmp_path: Path) -> None:
    items = make_items(12)
    a, b = Scripted(answers_for(items), spec="test/a"), Scripted(answers_for(items), spec="test/b")
    with RunStore(tmp_path / "s.sqlite") as store:
        summary = run([a, b], items, store, samples=2, concurrency=3)
        counts = per_prompt_counts(store)
        expected = {
            (m, i.prompt.id, s) for m in ("test/a", "test/b") for i in items for s in (0, 1)
        }
        assert set(counts) == expected and set(counts.values()) == {1}
        assert summary.planned == summary.done == 48 and summary.skipped == 0
        assert summary.correct == 48 and summary.failures == Counter(correct=48)
        assert all(r["attempts"] == 1 for r in store.results())


def test_a_rerun_asks_nothing_that_is_stored(tmp_path: Path) -> None:
    items = make_items(8)
    with RunStore(tmp_path / "s.sqlite") as store:
        run([Scripted(answers_for(items))], items[:5], store)
        again = Scripted(answers_for(items))
        summary = run([again], items, store)
        asked = {prompt for prompt, _ in again.calls}
        assert asked == {item.prompt.text for item in items[5:]}
        assert (summary.skipped, summary.done) == (5, 3)
        assert store.count() == 8


def test_sampling_parameters_are_part_of_the_key(tmp_path: Path) -> None:
    items = make_items(3)
    with RunStore(tmp_path / "s.sqlite") as store:
        run([Scripted(answers_for(items))], items, store, params=SamplingParams(max_tokens=10))
        model = Scripted(answers_for(items))
        summary = run([model], items, store, params=SamplingParams(max_tokens=20))
        assert summary.done == 3 and store.count() == 6


def test_concurrency_is_bounded_by_the_semaphore(tmp_path: Path) -> None:
    items = make_items(20)
    model = Scripted(answers_for(items), delay_s=0.005)
    with RunStore(tmp_path / "s.sqlite") as store:
        run([model], items, store, concurrency=4)
    assert model.max_in_flight == 4


def test_transient_failures_are_retried_until_they_pass(tmp_path: Path) -> None:
    items = make_items(6)
    error = TransientModelError("HTTP 429", status=429, retry_after=0.0)
    failures = {item.prompt.text: [error] * (k % FAST.max_attempts) for k, item in enumerate(items)}
    model = Scripted(answers_for(items), failures)
    with RunStore(tmp_path / "s.sqlite") as store:
        summary = run([model], items, store)
        attempts = {r["prompt_id"]: r["attempts"] for r in store.results()}
        failure = {r["prompt_id"]: r["failure"] for r in store.results()}
    for k, item in enumerate(items):
        assert attempts[item.prompt.id] == k % FAST.max_attempts + 1
        assert failure[item.prompt.id] == "correct"
    assert summary.retries == sum(k % FAST.max_attempts for k in range(6))


def test_failures_that_outlast_the_attempts_are_stored_as_errors(tmp_path: Path) -> None:
    items = make_items(3)
    failures: dict[str, list[Exception]] = {
        items[0].prompt.text: [TransientModelError("HTTP 503", status=503)] * 10,
        items[1].prompt.text: [EvaluationError("malformed reply: the body is not JSON")],
    }
    model = Scripted(answers_for(items), failures)
    with RunStore(tmp_path / "s.sqlite") as store:
        summary = run([model], items, store)
        rows = {r["prompt_id"]: r for r in store.results()}
        assert summary.failures == Counter(error=2, correct=1)
        gave_up = rows[items[0].prompt.id]
        assert gave_up["failure"] == "error" and gave_up["attempts"] == FAST.max_attempts
        assert "gave up after 4 attempts" in gave_up["error"]
        assert gave_up["response"] is None and gave_up["decision"] is None
        refused = rows[items[1].prompt.id]
        assert refused["failure"] == "error" and refused["attempts"] == 1
        # stored errors are skipped on a re-run, unless asked to retry them
        healed = Scripted(answers_for(items))
        assert run([healed], items, store).done == 0
        summary = run([healed], items, store, retry_errors=True)
        assert summary.done == 2
        assert Counter(r["failure"] for r in store.results(["failure"])) == {"correct": 3}


def test_an_unexpected_exception_stops_the_run_and_keeps_what_was_stored(tmp_path: Path) -> None:
    items = make_items(6)
    model = Scripted(answers_for(items), {items[3].prompt.text: [RuntimeError("bug")]})
    with RunStore(tmp_path / "s.sqlite") as store:
        with pytest.raises(RuntimeError, match="bug"):
            run([model], items, store, concurrency=1)
        assert store.count() == 3
        assert store.runs()[-1]["status"] == "failed"


def test_cancelling_a_run_keeps_every_finished_result_and_resumes(tmp_path: Path) -> None:
    items = make_items(10)
    answers = answers_for(items)

    class Stalls(Scripted):
        async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
            if prompt == items[4].prompt.text:
                await asyncio.Event().wait()  # never answers
            return await super().generate(prompt, params, sample)

    async def interrupted(store: RunStore) -> None:
        task = asyncio.create_task(run_eval([Stalls(answers)], items, store, concurrency=1))
        while store.count() < 4:
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with RunStore(tmp_path / "s.sqlite") as store:
        asyncio.run(interrupted(store))
        before = {r["key"]: r for r in store.results()}
        assert len(before) == 4 and store.runs()[-1]["status"] == "interrupted"
        model = Scripted(answers)
        summary = run([model], items, store)
        after = {r["key"]: r for r in store.results()}
        assert summary.skipped == 4 and summary.done == 6 and len(after) == 10
        assert all(after[k] == v for k, v in before.items())
        assert {p for p, _ in model.calls} == {i.prompt.text for i in items[4:]}


def test_the_progress_bar_shows_accuracy(tmp_path: Path) -> None:
    items = make_items(4)
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120)
    with RunStore(tmp_path / "s.sqlite") as store:
        run([Scripted(answers_for(items))], items, store, progress=True, console=console)
    assert "acc 100.0%" in buffer.getvalue() and "4/4" in buffer.getvalue()


@given(st.integers(1, 12), st.floats(0, 5), st.floats(0, 50), st.none() | st.floats(0, 100))
def test_backoff_is_bounded_and_seeded(
    attempt: int, base: float, cap: float, after: float | None
) -> None:
    policy = RetryPolicy(base_delay_s=base, max_delay_s=cap)
    delays = [policy.delay(attempt, random.Random(3), after) for _ in range(2)]
    assert delays[0] == delays[1]  # same seed, same jitter
    ceiling = min(cap, base * 2 ** (attempt - 1))
    assert 0 <= delays[0] <= max(ceiling, min(after or 0, cap)) + 1e-9
    if after is not None:
        assert delays[0] >= min(after, cap) - 1e-9


# -- the real client against the loopback fault server ------------------------------------------


def fault_plan(prompt: str, attempt: int) -> str:
    """A fault for each prompt's first attempt (by its hash), then ok."""
    kinds = ("429", "500", "503", "drop", "slow", "malformed", "length", "ok")
    if attempt > 0:
        return "ok"
    return kinds[int(prompt_hash(prompt), 16) % len(kinds)]


@pytest.mark.slow
def test_faults_over_http_end_with_exactly_one_result_per_prompt(tmp_path: Path) -> None:
    items = make_items(40, seed=1)
    answers = answers_for(items)
    # The client waits 2 s for a reply and the "slow" fault takes 8 s: a loaded machine that
    # delays an ok reply by a second still gets it on the first attempt.
    server = FaultServer(plan=fault_plan, answer=answers, slow_s=8.0, lifetime_s=120)
    with server, RunStore(tmp_path / "s.sqlite") as store:

        async def main() -> None:
            async with load_model("openai/fault-test", base_url=server.url, timeout_s=2.0) as model:
                await run_eval([model], items, store, concurrency=8, retry=FAST)

        asyncio.run(main())
        rows = list(store.results())
        first = {item.prompt.id: fault_plan(item.prompt.text, 0) for item in items}
    assert Counter(r["prompt_id"] for r in rows) == Counter(i.prompt.id for i in items)
    for r in rows:
        kind = first[r["prompt_id"]]
        if kind == "malformed":  # not worth retrying: stored as an error at once
            assert (r["failure"], r["attempts"]) == ("error", 1)
            assert "malformed" in r["error"]
        elif kind == "length":
            assert r["failure"] == "truncated" and r["finish_reason"] == "length"
            assert r["truncated"] == 1 or r["truncated"] is True
        elif kind == "ok":
            assert (r["failure"], r["attempts"]) == ("correct", 1)
        else:  # 429, 5xx, dropped connection, time-out: retried, then right
            assert (r["failure"], r["attempts"]) == ("correct", 2), (kind, r)
    seen = server.faults()
    assert {"429", "500", "503", "drop", "slow", "malformed", "length"} <= set(seen)


# -- the command line: resume after SIGKILL, and API keys ----------------------------------------


def write_inputs(folder: Path, items: list[EvalItem]) -> tuple[Path, Path]:
    """Write the prompts and their instances as JSON Lines; return both paths."""
    prompts, dataset = folder / "prompts.jsonl", folder / "dataset.jsonl"
    records: list[PromptRecord] = [item.prompt for item in items]  # type: ignore[misc]
    write_prompts(records, prompts)
    instances = {item.prompt.instance_id: root_instance(item.formula) for item in items}
    assert all(key == inst.id for key, inst in instances.items())
    write_instances(list(instances.values()), dataset)
    return prompts, dataset


def settled_log_length(server: FaultServer, quiet_s: float = 0.5) -> int:
    """The server's request count once requests sent by a killed client stop arriving."""
    seen, since = len(server.log), time.monotonic()
    while time.monotonic() - since < quiet_s:
        time.sleep(0.05)
        if len(server.log) != seen:
            seen, since = len(server.log), time.monotonic()
    return seen


def eval_command(
    tmp_path: Path, items: list[EvalItem], url: str, model: str, *options: str
) -> tuple[Path, list[str]]:
    """Write ``items``' prompts and dataset under ``tmp_path``; return the run store's path
    and the command line of a fresh interpreter that evaluates them with ``model`` against
    the server at ``url`` into that store."""
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    args = ["--store", str(store), "--dataset", str(dataset), "--base-url", url, "-m", model]
    main = "from twosat_formal.cli import main; main()"
    return store, [sys.executable, "-c", main, "eval", str(prompts), *args, *options]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_run_killed_with_sigkill_resumes_without_loss_or_repeats(tmp_path: Path) -> None:
    items = make_items(60, seed=2)
    server = FaultServer(answer=answers_for(items), latency_s=0.05, lifetime_s=120)
    with server:
        store_path, command = eval_command(
            tmp_path, items, server.url, "openai/resume-test", "--concurrency", "2", "--no-progress"
        )
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            stored = 0
            for _ in range(3000):  # wait until some results are stored, however slow the host
                if proc.poll() is not None:
                    break
                if store_path.exists():
                    with contextlib.suppress(Exception), RunStore(store_path, readonly=True) as s:
                        stored = s.count()
                if stored >= 10:
                    break
                time.sleep(0.01)
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
            if proc.stderr:
                proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        with RunStore(store_path, readonly=True) as store:
            before = {r["key"]: r for r in store.results()}
        assert 10 <= len(before) < len(items)
        asked_before = settled_log_length(server)
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        asked_again = server.prompts()[asked_before:]
    with RunStore(store_path, readonly=True) as store:
        after = {r["key"]: r for r in store.results()}
        stored_prompts = Counter(r["prompt_id"] for r in after.values())
    # nothing lost: every result of the killed run is still there, unchanged
    assert all(after[key] == row for key, row in before.items())
    # nothing repeated: the second run asked only for prompts without a result
    stored_texts = {
        item.prompt.text
        for item in items
        if item.prompt.id in {r["prompt_id"] for r in before.values()}
    }
    assert not stored_texts & set(asked_again)
    assert len(asked_again) == len(set(asked_again)) == len(items) - len(before)
    # and the run is complete: exactly one result per prompt, all correct
    assert stored_prompts == Counter(item.prompt.id for item in items)
    assert {r["failure"] for r in after.values()} == {"correct"}


@pytest.mark.slow
def test_api_keys_never_reach_the_store_the_logs_or_the_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sentinel = "sk-SENTINEL-" + "7f3a9c" * 4
    items = make_items(12, seed=3)
    plan = ["429", "500", "drop", "malformed", "length"]
    server = FaultServer(plan=plan, answer=answers_for(items), lifetime_s=120)
    env = dict(os.environ, TWOSAT_TEST_KEY=sentinel)
    with server:
        url = server.url.replace("http://", f"http://user:{sentinel}@")
        store_path, command = eval_command(
            tmp_path, items, url, "openai/key-test", "--api-key-env", "TWOSAT_TEST_KEY",
            "--max-attempts", "3",
        )  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        exports = []
        for out in (
            None,
            *(tmp_path / f"export.{suffix}" for suffix in ("jsonl", "csv", "parquet")),
        ):
            argv = ["results", str(store_path)] + (["--out", str(out)] if out else [])
            with pytest.raises(SystemExit) as exited:
                main(argv)
            assert exited.value.code == 0
            captured = capsys.readouterr()
            exports.append((captured.out + captured.err).encode())
            if out is not None:
                exports.append(out.read_bytes())
        authorizations = {entry.authorization for entry in server.log}
    assert done.returncode == 0, done.stderr
    # the key was in play: the server received it in the Authorization header
    assert authorizations == {f"Bearer {sentinel}"}
    logs = (done.stdout + done.stderr).encode()
    files = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("runs."))
    for blob in (logs, files, *exports):
        assert sentinel.encode() not in blob
        assert b"SENTINEL" not in blob


def _ctrl_c_ignored() -> None:
    """A child as a background job starts it: Ctrl-C ignored, SIGTERM at its default."""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "code", "said", "start"),
    [
        pytest.param(signal.SIGINT, 130, "interrupted", default_signals, marks=pytest.mark.slow),
        (signal.SIGTERM, 143, "terminated", default_signals),
        (signal.SIGTERM, 143, "terminated", _ctrl_c_ignored),
    ],
    ids=["sigint", "sigterm", "sigterm-in-background"],
)
def test_ctrl_c_flushes_the_store_and_exits_cleanly(
    tmp_path: Path, stop: signal.Signals, code: int, said: str, start: Callable[[], None]
) -> None:
    """Ctrl-C, and SIGTERM alike (also where Ctrl-C is ignored): the answers received
    are stored, the run is marked interrupted, and a second run asks only the rest."""
    items = make_items(40, seed=4)
    server = FaultServer(answer=answers_for(items), latency_s=0.05, lifetime_s=120)
    with server:
        store_path, command = eval_command(
            tmp_path, items, server.url, "openai/interrupt-test", "--concurrency", "2",
            "--no-progress",
        )  # fmt: skip
        proc = spawn(command, start=start)  # whatever this test's own process ignores
        for _ in range(3000):
            if proc.poll() is not None or server.faults().total() >= 6:
                break
            time.sleep(0.01)
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == code, err
        assert "interrupted" in out and "Traceback" not in err
        assert err.strip().splitlines()[-1] == said
        with RunStore(store_path, readonly=True) as store:
            interrupted = store.count()
            assert store.runs()[-1]["status"] == "interrupted"
        assert 0 < interrupted < len(items)
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    with RunStore(store_path, readonly=True) as store:
        assert store.count() == len(items)
        assert [r["status"] for r in store.runs()] == ["interrupted", "finished"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "code", "said"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
    ids=["sigint", "sigterm"],
)
def test_one_signal_stops_a_run_while_the_progress_bar_counts_a_huge_plan(
    tmp_path: Path, stop: signal.Signals, code: int, said: str
) -> None:
    """With the progress bar on, a run first counts its plan for the bar's total; a plan
    of 80 million requests takes that pass hours, and one Ctrl-C (or SIGTERM) during it
    stops the command as at any other moment: the run is marked interrupted."""
    store_path, command = eval_command(
        tmp_path, make_items(8, seed=5), "http://127.0.0.1:9/v1", "ref/oracle",
        "--samples", "10000000", "--progress",
    )  # fmt: skip
    proc = spawn(command)
    try:
        for _ in range(6000):  # until the run is recorded: the pass has begun
            if proc.poll() is not None or _run_started(store_path):
                break
            time.sleep(0.01)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=120)  # a hang guard: before, it counted on
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == code and "Traceback" not in err, (out, err)
    assert err.strip().splitlines()[-1] == said and "80000000 planned" in out, (out, err)
    with RunStore(store_path, readonly=True) as store:
        assert [r["status"] for r in store.runs()] == ["interrupted"]


def _run_started(path: Path) -> bool:
    """Whether the store at ``path`` records a run (read without locking it)."""
    if not path.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return bool(db.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.Error:  # not created yet
        return False


def test_the_fault_server_is_bounded_and_stops_by_itself() -> None:
    import httpx

    body = {"messages": [{"role": "user", "content": "Hi"}]}
    with FaultServer(max_requests=2) as server, httpx.Client(trust_env=False) as client:
        for _ in range(2):
            assert client.post(server.url + "/chat/completions", json=body).status_code == 200
        with pytest.raises(httpx.TransportError):
            client.post(server.url + "/chat/completions", json=body)
        assert len(server.log) == 2
    with FaultServer(lifetime_s=0.05) as server:
        assert server.wait_stopped(timeout=30)
        with pytest.raises(httpx.TransportError):
            httpx.post(server.url + "/completions", json={"prompt": "Hi"}, trust_env=False)


def test_an_interrupt_left_in_a_task_is_not_printed_again(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop :func:`evaluate` runs does not print the ``KeyboardInterrupt`` a request's
    task may keep as the run stops (Ctrl-C or SIGTERM: the run says it was
    interrupted); any other error no task retrieved is printed as asyncio prints it.
    Both reach the handler of the loop :func:`evaluate` itself runs."""
    import asyncio
    import importlib

    runner = importlib.import_module("twosat_formal.evaluate.run.runner")

    async def leave_unretrieved(*args: object, **kwargs: object) -> None:
        loop = asyncio.get_running_loop()
        loop.call_exception_handler({"message": "stopped", "exception": KeyboardInterrupt()})
        loop.call_exception_handler({"message": "broken", "exception": ValueError("x")})

    monkeypatch.setattr(runner, "evaluate_async", leave_unretrieved)
    with caplog.at_level("ERROR", logger="asyncio"):
        summary = runner.evaluate([], [], None)
    assert [r.getMessage() for r in caplog.records] == ["broken"]
    assert not summary.interrupted


class _LoopWitness:
    """A model that notes the exception handler of the loop each call runs in."""

    def __init__(self) -> None:
        self.spec, self.endpoint = "witness", "local"
        self.handlers: list[object] = []

    def _note(self) -> None:
        self.handlers.append(asyncio.get_running_loop().get_exception_handler())

    async def __aenter__(self) -> _LoopWitness:
        self._note()
        return self

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        self._note()
        return Response("I cannot tell stories.")

    async def aclose(self) -> None:
        self._note()


def test_every_run_of_requests_has_the_quiet_interrupt_handler(tmp_path: Path) -> None:
    """Stories and a judge run their requests as ``eval`` does (:func:`run_requests`):
    an interrupt a task keeps as they stop is not printed again."""
    from twosat_formal.evaluate.diagnostics.judge import judge_store
    from twosat_formal.evaluate.models.base import _quiet_interrupts
    from twosat_formal.evaluate.run.stories import generate_stories
    from twosat_formal.verbalize.story.generator import StoryItem

    story_model, judge_model = _LoopWitness(), _LoopWitness()
    formula = Formula.from_named([["a", "~b"], ["b"]])
    with contextlib.suppress(EvaluationError):  # its story is no story: the run fails
        generate_stories(
            [StoryItem("demo", formula, "SAT")], "spy", story_model, tmp_path / "calls.sqlite"
        )
    with RunStore(tmp_path / "runs.sqlite"):
        pass
    judge_store(tmp_path / "runs.sqlite", io.StringIO(), judge_model)
    for model in (story_model, judge_model):
        assert model.handlers and set(model.handlers) == {_quiet_interrupts}, model.handlers
