"""What a stopped run keeps, and what its resumption asks again.

The runner scores answers in batches and commits the stored results in groups
(:data:`~twosat_formal.evaluate.run.runner.COMMIT_INTERVAL_S`), so the guarantee is:

* a cancelled or failed run (Ctrl-C, an unexpected error) keeps every answer that came
  in: the answers not scored yet are scored, stored and committed on the way out;
* a killed run (SIGKILL, power loss) loses what was not committed yet: the results of
  the last commit interval, the answers not scored yet and the requests in flight;
* either way the next run asks exactly what is not stored, once, and what is stored
  stays as it was.

The runner's batching changes no stored byte: the rows are those of :func:`score`
and :meth:`RunStore.put`, one request at a time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import Scripted, answers_for, make_items, run
from twosat_formal.core.model import Response, SamplingParams
from twosat_formal.errors import TransientModelError
from twosat_formal.evaluate.run import EvalItem, run_eval
from twosat_formal.evaluate.scoring import error_judgement, score
from twosat_formal.evaluate.store import ResultRow, RunStore, prompt_hash

ITEMS = make_items(12, seed=7)


class StallsAfter(Scripted):
    """Answers its first ``answers`` requests, then never answers again."""

    def __init__(self, answers: dict[str, str], count: int) -> None:
        super().__init__(answers)
        self.count = count
        self.started = self.answered = self.stalled = 0

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        if self.started >= self.count:
            self.stalled += 1
            await asyncio.Event().wait()
        self.started += 1
        response = await super().generate(prompt, params, sample)
        self.answered += 1
        return response


def committed(path: Path) -> int:
    """The results another connection sees: the committed ones."""
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM results").fetchone()[0])


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(count=st.integers(0, len(ITEMS) - 1), concurrency=st.integers(1, 5))
def test_a_cancelled_run_keeps_every_answer_that_came_in_and_resumes(
    tmp_path_factory: pytest.TempPathFactory, count: int, concurrency: int
) -> None:
    path = tmp_path_factory.mktemp("cancel") / "runs.sqlite"
    answers = answers_for(ITEMS)
    model = StallsAfter(answers, count)

    async def cancelled(store: RunStore) -> None:
        task = asyncio.create_task(run_eval([model], ITEMS, store, concurrency=concurrency))
        while model.answered < count or model.stalled < min(concurrency, len(ITEMS) - count):
            await asyncio.sleep(0)
        task.cancel()  # at once: some answers are not scored yet
        with pytest.raises(asyncio.CancelledError):
            await task

    with RunStore(path) as store:
        asyncio.run(cancelled(store))
        # every answer that came in is stored, and committed (another connection sees it)
        assert store.count() == committed(path) == count
        assert store.runs()[-1]["status"] == "interrupted"
        before = {r["key"]: r for r in store.results()}
        again = Scripted(answers)
        summary = run([again], ITEMS, store, concurrency=concurrency)
        after = {r["key"]: r for r in store.results()}
    answered = {prompt for prompt, _ in model.calls}
    assert (summary.skipped, summary.done) == (count, len(ITEMS) - count)
    assert set(again.calls) == {(i.prompt.text, 0) for i in ITEMS if i.prompt.text not in answered}
    assert set(again.calls.values()) <= {1}
    assert len(after) == len(ITEMS) and all(after[k] == row for k, row in before.items())


def test_a_failed_run_keeps_every_answer_that_came_in(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    bug = {ITEMS[5].prompt.text: [RuntimeError("bug")]}
    with RunStore(path) as store:
        with pytest.raises(RuntimeError, match="bug"):
            run([Scripted(answers_for(ITEMS), bug)], ITEMS, store, concurrency=1)
        assert store.count() == committed(path) == 5
        assert store.runs()[-1]["status"] == "failed"


# -- the stored rows are those of score() and put(), one request at a time --------------------


def mixed_answers(items: list[EvalItem]) -> dict[str, str]:
    """Right and wrong decisions, broken and missing witnesses, no answer at all."""
    right = answers_for(items)
    kinds = [
        lambda t: t,
        lambda t: t.replace("Yes", "No") if "Yes" in t else t.replace("No", "Yes"),
        lambda t: t.replace("}\n```", ",}\n```"),
        lambda t: t.rsplit("\n", 1)[-1],
        lambda t: "I am not sure.",
        lambda t: t.replace("The answer is", "answer"),
    ]
    return {i.prompt.text: kinds[k % len(kinds)](right[i.prompt.text]) for k, i in enumerate(items)}


def test_the_stored_rows_are_those_of_score_and_put(tmp_path: Path) -> None:
    items = make_items(48, seed=11)
    answers = mixed_answers(items)
    error = TransientModelError("HTTP 503", status=503)
    failures = {items[3].prompt.text: [error] * 4, items[4].prompt.text: [error]}
    with RunStore(tmp_path / "runs.sqlite") as store:
        run([Scripted(answers, failures)], items, store, concurrency=7)
        stored = {r["key"]: r for r in store.results()}
        run_id = store.runs()[-1]["run_id"]
    # the reference: every request scored and stored on its own, in plan order
    with RunStore(tmp_path / "reference.sqlite") as reference:
        for item in items:
            text = answers[item.prompt.text]
            attempts = 1 + len(failures.get(item.prompt.text, []))
            if attempts > 4:  # FAST allows four attempts
                judgement = error_judgement(item.label, "HTTP 503 (gave up after 4 attempts)")
                response = None
                attempts = 4
            else:
                response = Response(text, "stop", 10, 10, 0.0)
                judgement = score(response, item.prompt, item.formula, item.label)
            row = ResultRow(
                "test/scripted",
                "local",
                prompt_hash(item.prompt.text),
                item.prompt.id,
                SamplingParams().key(),
                0,
                judgement,
                response,
                attempts=attempts,
                run_id=run_id,
            )
            assert reference.put(row)
        expected = {r["key"]: r for r in reference.results()}
    assert set(stored) == set(expected) and len(expected) == 48
    kinds = {r["failure"] for r in expected.values()}
    assert {"correct", "wrong-decision", "bad-json", "no-answer", "error"} <= kinds
    for key, row in expected.items():
        got = dict(stored[key])
        for measured in ("created_at", "latency_s"):
            got[measured] = row[measured]
        assert got == row, key


def test_put_many_stores_the_rows_of_put_byte_for_byte(tmp_path: Path) -> None:
    items = make_items(10, seed=3)
    answers = mixed_answers(items)
    rows = [
        ResultRow(
            "test/m",
            "http://user:secret@127.0.0.1:9/v1?key=secret",
            prompt_hash(i.prompt.text),
            i.prompt.id,
            "{}",
            sample,
            score(
                Response(answers[i.prompt.text], "stop", 3, 4, 0.5), i.prompt, i.formula, i.label
            ),
            Response(answers[i.prompt.text], "stop", 3, 4, 0.5),
            attempts=2,
            run_id=1,
            created_at="2026-01-01T00:00:00+00:00",
        )
        for i in items
        for sample in (0, 1, 0)  # the repeated key is kept once
    ]
    with RunStore(tmp_path / "one.sqlite") as one, RunStore(tmp_path / "many.sqlite") as many:
        added = sum(one.put(row) for row in rows)
        assert many.put_many((row, row.key) for row in rows) == added == 20
        assert many.put_many([(rows[0], None)]) == 0
        many.commit()

    def dump(path: Path) -> list[tuple[object, ...]]:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT * FROM results ORDER BY key").fetchall()

    assert dump(tmp_path / "one.sqlite") == dump(tmp_path / "many.sqlite")
    with sqlite3.connect(tmp_path / "many.sqlite") as db:
        witnesses = dict(db.execute("SELECT key, witness FROM results"))
    for row in rows:  # the stored witness is its sorted JSON, as it always was
        witness = row.judgement.witness
        assert witnesses[row.key] == (
            None if witness is None else json.dumps(witness, sort_keys=True)
        )
    assert any(w is not None for w in witnesses.values())
    assert all("secret" not in str(value) for row in dump(tmp_path / "one.sqlite") for value in row)


# -- a killed run ------------------------------------------------------------------------------

KILLED_RUN = """
import asyncio, sys
from pathlib import Path
from twosat_formal.evaluate.run import EvalItem, EvalPrompt, run_eval, runner
from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Response
from twosat_formal.evaluate.store import RunStore

store, log = Path(sys.argv[1]), Path(sys.argv[2])
answered, runner.COMMIT_INTERVAL_S = int(sys.argv[3]), float(sys.argv[4])
formula = Formula.from_named([["x1", "x2"]])
items = [
    EvalItem(EvalPrompt(f"p{i}", "i", "logic", f"Prompt {i}: A or B.", {"A": "x1", "B": "x2"},
                        "true", "false"), formula, "SAT")
    for i in range(20)
]

class Stalls:
    spec, endpoint, asked = "test/stalls", "local", 0
    async def generate(self, prompt, params, sample=0):
        with log.open("a") as out:
            out.write(prompt + "\\n")
        self.asked += 1
        if self.asked > answered:
            (log.parent / "stalled").touch()
            await asyncio.Event().wait()
        return Response('{"A": "true", "B": "false"}\\nThe answer is: Yes', "stop")
    async def aclose(self):
        pass

with RunStore(store) as s:
    asyncio.run(run_eval([Stalls()], items, s, concurrency=1))
"""


def killed_then_resumed(tmp_path: Path, answered: int, interval: float) -> tuple[int, list[str]]:
    """Run 20 prompts, kill the run once ``answered`` are answered and, with a short commit
    ``interval``, committed; resume. The results the killed run kept, and what the
    resumption asked."""
    script = tmp_path / "run.py"
    script.write_text(KILLED_RUN)
    store, first, second = tmp_path / "runs.sqlite", tmp_path / "first.log", tmp_path / "second.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    command = [sys.executable, str(script), str(store)]
    proc = subprocess.Popen([*command, str(first), str(answered), str(interval)], env=env)
    try:
        for _ in range(6000):  # however slow the host: until the run waits for good
            stalled = (tmp_path / "stalled").exists()
            if stalled and (interval > 60 or committed(store) == answered):
                break
            assert proc.poll() is None
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    kept = committed(store)
    done = subprocess.run([*command, str(second), "1000", "0.05"], env=env, timeout=120)
    assert done.returncode == 0
    with RunStore(store, readonly=True) as s:
        rows = list(s.results())
    assert sorted(r["prompt_id"] for r in rows) == sorted(f"p{i}" for i in range(20))
    assert {r["failure"] for r in rows} == {"correct"}
    return kept, second.read_text().splitlines()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_run_keeps_what_was_committed_and_resumes_with_the_rest(tmp_path: Path) -> None:
    kept, asked = killed_then_resumed(tmp_path, 7, 0.05)
    assert kept == 7
    assert sorted(asked) == sorted(f"Prompt {i}: A or B." for i in range(7, 20))


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_killed_run_loses_at_most_what_was_not_committed(tmp_path: Path) -> None:
    # nothing is committed within the hour: the kill loses all seven answers, and the
    # next run asks them again, once each, with the rest
    kept, asked = killed_then_resumed(tmp_path, 7, 3600.0)
    assert kept == 0
    assert sorted(asked) == sorted(f"Prompt {i}: A or B." for i in range(20))


# -- the inputs are stored a plan batch ahead of the requests -------------------------------------


def stored_prompt_hashes(path: Path) -> tuple[set[str], list[str]]:
    """The hashes of the committed prompts, and the prompt hash of each committed result."""
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        prompts = {row[0] for row in db.execute("SELECT prompt_hash FROM prompts")}
        results = [row[0] for row in db.execute("SELECT prompt_hash FROM results")]
    return prompts, results


def test_every_result_is_committed_with_or_after_its_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("twosat_formal.evaluate.run.runner.PLAN_BATCH", 4)
    path = tmp_path / "runs.sqlite"
    items = make_items(20, seed=5)
    answers = answers_for(items)
    model = StallsAfter(answers, 6)

    async def cancelled(store: RunStore) -> None:
        task = asyncio.create_task(run_eval([model], items, store, concurrency=2))
        while model.answered < 6 or model.stalled < 2:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with RunStore(path) as store:
        asyncio.run(cancelled(store))
        prompts, results = stored_prompt_hashes(path)
        assert len(results) == 6 and set(results) <= prompts
        assert len(prompts) < len(items)  # the rest waits for the plan to reach them
        run([Scripted(answers, spec="test/a"), Scripted(answers, spec="test/b")], items, store)
        prompts, results = stored_prompt_hashes(path)
    assert prompts == {prompt_hash(item.prompt.text) for item in items}
    assert len(results) == 6 + 2 * len(items)


def test_a_run_without_models_stores_its_prompts(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        summary = run([], ITEMS, store)
        assert summary.done == 0 and len(list(store.prompts())) == len(ITEMS)


def test_an_instance_shared_by_prompts_is_stored_once(tmp_path: Path) -> None:
    record = {"id": "i1", "family": "f", "label": "SAT", "num_vars": 2, "num_clauses": 1}
    with RunStore(tmp_path / "runs.sqlite") as store:
        store.add_instances([record, {**record, "family": "other"}, {"id": "i2"}])
        store.add_instances([{**record, "family": "later"}])
        assert [(r["id"], r.get("family")) for r in store.instances()] == [
            ("i1", "f"),
            ("i2", None),
        ]


def test_answers_waiting_to_be_scored_stay_bounded_by_the_concurrency(tmp_path: Path) -> None:
    from twosat_formal.core.formula import Formula
    from twosat_formal.evaluate.run import EvalPrompt
    from twosat_formal.evaluate.run.runner import SCORE_BACKLOG

    formula = Formula.from_named([["x1", "x2"]])
    items = [
        EvalItem(
            EvalPrompt(f"p{i}", "i", "logic", f"Prompt {i}.", {"A": "x1", "B": "x2"}, "t", "f"),
            formula,
            "SAT",
        )
        for i in range(600)
    ]
    concurrency = 4
    with RunStore(tmp_path / "runs.sqlite") as store:

        class Instant:  # answers at once, faster than answers are scored
            spec, endpoint = "test/instant", "local"
            answered, most_waiting = 0, 0

            async def generate(
                self, prompt: str, params: SamplingParams, sample: int = 0
            ) -> Response:
                waiting = self.answered - store.count()
                self.most_waiting = max(self.most_waiting, waiting)
                self.answered += 1
                return Response('{"A": "t", "B": "f"}\nThe answer is: Yes', "stop")

            async def aclose(self) -> None:
                pass

        model = Instant()
        summary = run([model], items, store, concurrency=concurrency)
        assert summary.done == store.count() == len(items)
    assert model.most_waiting <= (SCORE_BACKLOG + 1) * concurrency
