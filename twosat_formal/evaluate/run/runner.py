"""The asynchronous runner: ask models every item, score each answer, store it.

:func:`run_eval` asks every model every prompt; :func:`evaluate` (and
:func:`evaluate_async` inside an event loop) loads the models by their specs first.

Answers are scored and stored off the requests' path, in batches
(:data:`SCORE_QUIET_S`, :data:`SCORE_WAIT_S`, :data:`SCORE_BATCH`), and committed in
groups (:data:`COMMIT_INTERVAL_S`). A run that ends, is cancelled or fails stores
and commits every answer that came in; a killed process loses what was not
committed yet (the requests in flight, the answers not scored, the last commit
interval's results). A re-run asks exactly what is not stored, once.

Examples
--------
A model that fails once with HTTP 429 is asked again, and its answer scored:

>>> import tempfile, pathlib
>>> from twosat_formal.errors import TransientModelError
>>> from twosat_formal.evaluate.run import EvalPrompt
>>> from twosat_formal.core.model import Response
>>> from twosat_formal.core.formula import Formula
>>> class Flaky:  # fails once with HTTP 429, then answers
...     spec, endpoint, calls = "test/flaky", "local", 0
...     async def generate(self, prompt, params, sample=0):
...         self.calls += 1
...         if self.calls == 1:
...             raise TransientModelError("HTTP 429", status=429, retry_after=0.0)
...         return Response('{"A": "true"}\\nThe answer is: Yes', "stop")
...     async def aclose(self):
...         pass
>>> prompt = EvalPrompt("p1", "i1", "logic", "A is true.", {"A": "x1"}, "true", "false")
>>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
>>> with RunStore(path) as store:
...     summary = asyncio.run(run_eval([Flaky()], [EvalItem(prompt, Formula([[1]]), "SAT")],
...                                    store, retry=RetryPolicy(base_delay_s=0.0)))
>>> summary.done, summary.retries, dict(summary.failures)
(1, 1, {'correct': 1})
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any, NamedTuple

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.core.model import DEFAULT_MODE, Model, SamplingParams
from twosat_formal.core.provenance import tool_version
from twosat_formal.errors import ArgumentTypeError, ConfigError, ParseError, expect_type
from twosat_formal.evaluate.models.base import run_requests, sampling_for
from twosat_formal.evaluate.models.retry import Outcome, RetryingModel, RetryPolicy
from twosat_formal.evaluate.run.arguments import check_access_types, check_run_types
from twosat_formal.evaluate.run.items import EvalItem, StoryPrompt
from twosat_formal.evaluate.run.limits import ModelLimiter, ModelLimits, split_limits
from twosat_formal.evaluate.run.summary import EvalSummary, story_counts
from twosat_formal.evaluate.scoring import (
    LABELS,
    Judgement,
    entity_variables,
    error_judgement,
    score,
    value_words,
)
from twosat_formal.evaluate.store import ResultRow, RunStore, prompt_hash, request_key
from twosat_formal.verbalize.strategies import (
    DIRECT,
    Strategy,
    certify_strategy,
    check_formalization,
    formalization,
    parse_strategies,
)

__all__ = [
    "COMMIT_INTERVAL_S",
    "DEFAULT_CONCURRENCY",
    "EVAL_EXECUTORS",
    "PLAN_BATCH",
    "SCORE_BACKLOG",
    "SCORE_BATCH",
    "SCORE_QUIET_S",
    "SCORE_WAIT_S",
    "check_run",
    "evaluate",
    "evaluate_async",
    "run_eval",
]

#: Where ``eval`` can ask its models (``--executor``).
EVAL_EXECUTORS = ("local", "ray")
#: The requests in flight per model unless a caller asks for another number.
DEFAULT_CONCURRENCY = 8

#: Requests planned, and looked up in the store, at a time.
PLAN_BATCH = 512

#: Answers are scored and stored once no other answer has come in for this many
#: seconds (the end of a burst of answers), so that the requests that take their slots
#: go out first, ...
SCORE_QUIET_S = 0.001
#: ... or at the latest this many seconds after the first answer of the batch came in.
SCORE_WAIT_S = 0.05
#: Answers scored and stored (one ``INSERT`` statement) between two turns of the event
#: loop: a long batch never holds up the requests for longer than this many scorings.
SCORE_BATCH = 8

#: At most this many answers per request in flight (``concurrency``) wait to be scored:
#: a request whose answer makes more waits (answers come faster than they are scored,
#: say from an in-process model) scores them all before its slot is free, so the
#: answers held in memory stay bounded.
SCORE_BACKLOG = 4

#: Results stored within this many seconds share one commit (made once the answers
#: coming in meanwhile are stored too, so that commits fall between bursts). A killed
#: run loses at most these, the answers not scored yet and the requests in flight; the
#: next run asks them again (see :func:`run_eval`).
COMMIT_INTERVAL_S = 0.05


class _Request(NamedTuple):
    item: EvalItem
    model: RetryingModel
    sample: int
    key: str
    prompt_sha: str
    strategy: Strategy = Strategy(DIRECT)


class _Runner:
    def __init__(
        self,
        store: RunStore,
        params: SamplingParams | None,
        retry: RetryPolicy | None,
        seed: int,
        request_timeout_s: float | None,
        summary: EvalSummary,
        strategies: Sequence[Strategy] = (Strategy(DIRECT),),
    ) -> None:
        self.store = store
        self.strategies = tuple(strategies)
        self.params = params or SamplingParams()
        self._by_spec: dict[str, tuple[SamplingParams, str]] = {}
        self.retry = retry or RetryPolicy()
        self.rng = random.Random(seed)
        self.request_timeout_s = request_timeout_s
        self.summary = summary
        self.run_id: int | None = None
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self._commit_timer: asyncio.TimerHandle | None = None
        self._answered: list[tuple[_Request, Outcome]] = []
        self._drain_due = False
        self._inputs_stored = 0
        self._backlog = SCORE_BACKLOG
        self._commit_waits = False
        self._last_answer = 0.0
        self._group: asyncio.TaskGroup | None = None

    def params_of(self, model: Model) -> tuple[SamplingParams, str]:
        """A model's sampling parameters (the run's, with its spec's options) and key."""
        found = self._by_spec.get(model.spec)
        if found is None:
            params = sampling_for(model.spec, self.params)
            found = self._by_spec[model.spec] = (params, params.key())
        return found

    def start(self, info: Mapping[str, Any]) -> int:
        """Record the start of the run in the store (``info``: what was asked); its id."""
        self.run_id = self.summary.run_id = self.store.start_run(info)
        return self.run_id

    def _count_retry(self) -> None:
        self.summary.retries += 1

    async def handle(self, request: _Request) -> None:
        """Ask one request; its answer waits for :meth:`drain`, so the request's slot
        is free as soon as the answer is in (scoring never delays the next request)."""
        params = self.params_of(request.model)[0]
        text = request.strategy.apply(request.item.prompt.text)
        outcome = await request.model.attempt(text, params, request.sample)
        self._answered.append((request, outcome))
        if len(self._answered) >= self._backlog:
            self.drain()  # answers come faster than they are scored: score them here
            return
        self._last_answer = asyncio.get_running_loop().time()
        if not self._drain_due and self._group is not None:
            self._drain_due = True
            try:
                self._group.create_task(self._drain_later())
            except RuntimeError:  # the run is shutting down: its last drain stores it
                self._drain_due = False

    async def _drain_later(self) -> None:
        """Wait for the end of a burst of answers (:data:`SCORE_QUIET_S`, at most
        :data:`SCORE_WAIT_S`), then drain them :data:`SCORE_BATCH` at a time."""
        loop = asyncio.get_running_loop()
        first = loop.time()
        while True:
            await asyncio.sleep(SCORE_QUIET_S)
            now = loop.time()
            if now - self._last_answer >= SCORE_QUIET_S or now - first >= SCORE_WAIT_S:
                break
        started = loop.time()
        while True:
            self.drain(SCORE_BATCH)
            if not self._answered:
                break
            if self._commit_waits and loop.time() - started >= SCORE_WAIT_S:
                self.commit()  # answers keep coming: the commit waits no longer
            await asyncio.sleep(0)  # the requests and answers waiting meanwhile go first
        self._drain_due = False
        if self._commit_waits:
            self.commit()

    def drain(self, limit: int | None = None) -> None:
        """Score the first ``limit`` answers waiting (all of them for ``None``), store
        them in one statement, count them."""
        if limit is None or len(self._answered) <= limit:
            batch, self._answered = self._answered, []
        else:
            batch, self._answered = self._answered[:limit], self._answered[limit:]
        if not batch:
            return
        stored_at = datetime.now(UTC).isoformat()  # one time for the statement's rows
        rows = [(self._row(*answered, stored_at), answered[0].key) for answered in batch]
        self.store.put_many(rows)
        self.summary.done += len(batch)
        if self._commit_timer is None:
            loop = asyncio.get_running_loop()
            self._commit_timer = loop.call_later(COMMIT_INTERVAL_S, self._commit_due)
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, advance=len(batch), accuracy=self._accuracy_text())

    def _row(self, request: _Request, outcome: Outcome, stored_at: str) -> ResultRow:
        """The stored row of one answer (or failed request), scored; counted in the
        summary."""
        item, model, response = request.item, request.model, outcome.response
        summary = self.summary
        judgement: Judgement
        if response is None:
            error = str(outcome.error or "request failed")
            judgement = error_judgement(item.label, error)
            summary.errors[error] += 1
            summary.model_errors[model.spec] += 1
        else:
            judgement = score(response, item.prompt, item.formula, item.label)
        formalized = None
        if request.strategy.name == "symbolic-cot" and response is not None:
            variables = entity_variables(item.prompt.entities, item.formula)
            formalized = check_formalization(formalization(response.text, variables), item.formula)
        summary.correct += judgement.correct
        summary.failures[judgement.failure] += 1
        summary.model_done[model.spec] += 1
        return ResultRow(
            model=model.spec,
            endpoint=model.endpoint,
            prompt_hash=request.prompt_sha,
            prompt_id=item.prompt.id,
            params=self.params_of(model)[1],
            sample=request.sample,
            judgement=judgement,
            response=response,
            attempts=outcome.attempts,
            run_id=self.run_id,
            created_at=stored_at,
            strategy=request.strategy.key,
            formalization=formalized,
        )

    def _commit_due(self) -> None:
        """The commit interval is over: commit now, or, when answers are waiting to be
        stored (a burst is coming in), as soon as they are."""
        self._commit_timer = None
        if self._drain_due:
            self._commit_waits = True
        else:
            self.commit()

    def commit(self) -> None:
        """Commit the results stored since the last commit."""
        self._commit_waits = False
        if self._commit_timer is not None:
            self._commit_timer.cancel()
            self._commit_timer = None
        self.store.commit()

    def _accuracy_text(self) -> str:
        acc = self.summary.accuracy
        return "acc  -  " if acc is None else f"acc {acc:6.1%}"

    def store_inputs(self, items: Sequence[EvalItem], end: int) -> None:
        """Store the prompts (and instances) of ``items[:end]`` not stored yet by this run.

        The plan stores them a batch ahead of the requests it plans, so that every
        result is committed with or after its prompt, and the first requests go out
        without waiting for every prompt of the run to be stored.
        """
        if end > self._inputs_stored:
            _store_inputs(self.store, items[self._inputs_stored : end])
            self._inputs_stored = min(end, len(items))

    def plan(
        self, models: Sequence[RetryingModel], items: Sequence[EvalItem], samples: int
    ) -> Iterator[list[_Request]]:
        """Every request of the run, lazily, :data:`PLAN_BATCH` at a time.

        A prompt with the text of an earlier one (two instances that are one formula)
        makes the same requests, keyed alike: they are planned once, under the first
        (:func:`_repeated_texts` counts the others).
        """
        batch: list[_Request] = []
        seen: set[str] = set()
        for index, item in enumerate(items):
            if index == self._inputs_stored:  # the inputs a plan batch ahead, in one go
                self.store_inputs(items, index + PLAN_BATCH)
            sha = prompt_hash(item.prompt.text)
            if sha in seen:
                continue
            seen.add(sha)
            for model in models:
                params_key = self.params_of(model)[1]
                for strategy in self.strategies:
                    for sample in range(samples * strategy.samples_per_vote):
                        key = request_key(
                            model.spec, model.endpoint, sha, params_key, sample, strategy.key
                        )
                        batch.append(_Request(item, model, sample, key, sha, strategy))
                        if len(batch) == PLAN_BATCH:
                            yield batch
                            batch = []
        if batch:
            yield batch

    def request_keys(
        self, models: Sequence[Model], items: Sequence[EvalItem], samples: int
    ) -> Iterator[str]:
        """The store key of every request of the run, in plan order, lazily (so that the
        keys are never all in memory)."""
        for item in items:
            sha = prompt_hash(item.prompt.text)
            for model in models:
                params_key = self.params_of(model)[1]
                for strategy in self.strategies:
                    for sample in range(samples * strategy.samples_per_vote):
                        yield request_key(
                            model.spec, model.endpoint, sha, params_key, sample, strategy.key
                        )

    def todo(
        self, models: Sequence[RetryingModel], items: Sequence[EvalItem], samples: int
    ) -> Iterator[_Request]:
        """The requests whose keys are not stored, in plan order (an anti-join per batch).

        Each batch's requests are leased to this run (:meth:`RunStore.lease`) before
        they are asked: a request another run on the store holds is left to it, and
        counted (``summary.leased``), never asked twice at once. Memory holds one batch,
        never the whole plan nor the stored keys, so it does not grow with prompts x
        models x samples.
        """
        for batch in self.plan(models, items, samples):
            fresh = self._unstored(batch)
            if self.run_id is None or not fresh:
                yield from fresh
                continue
            held = self.store.lease([r.key for r in fresh], self.run_id)
            self.summary.leased += len(fresh) - len(held)
            yield from (r for r in fresh if r.key in held)

    def _unstored(self, batch: list[_Request]) -> list[_Request]:
        """The requests of ``batch`` whose keys are not stored; the others are counted
        (``summary.skipped``)."""
        stored = self.store.stored_among([r.key for r in batch])
        self.summary.skipped += sum(1 for r in batch if r.key in stored)
        return [r for r in batch if r.key not in stored]

    async def count_todo(
        self, models: Sequence[RetryingModel], items: Sequence[EvalItem], samples: int
    ) -> int:
        """How many requests :meth:`todo` will yield (a counting pass, for the bar).

        The event loop gets a turn after each plan batch, so that Ctrl-C or ``SIGTERM``
        stops a run at once however long its plan (ten million samples) makes the pass.
        """
        total = 0
        for batch in self.plan(models, items, samples):
            total += len(batch) - len(self.store.stored_among([r.key for r in batch]))
            await asyncio.sleep(0)
        return total

    async def run(
        self,
        models: Sequence[Model],
        items: Sequence[EvalItem],
        samples: int,
        concurrency: int,
        limits: Mapping[str, ModelLimits] | None = None,
    ) -> None:
        retrying = [
            RetryingModel(
                m,
                self.retry,
                rng=self.rng,
                timeout_s=self.request_timeout_s,
                on_retry=self._count_retry,
            )
            for m in models
        ]
        per_item = sum(samples * s.samples_per_vote for s in self.strategies)
        self.summary.planned = len(items) * len(models) * per_item
        # a prompt that repeats an earlier one's text is that prompt's requests: counted
        # with those already stored, never asked twice
        self.summary.skipped += _repeated_texts(items) * len(models) * per_item
        if self.progress is not None:
            total = await self.count_todo(retrying, items, samples)
            self.task = self.progress.add_task("eval", total=total, accuracy=self._accuracy_text())
        semaphore = asyncio.Semaphore(concurrency)
        self._backlog = SCORE_BACKLOG * concurrency

        async def one(request: _Request, limiter: ModelLimiter) -> None:
            try:
                await self.handle(request)
            finally:
                limiter.release()
                semaphore.release()

        async def feed(model: RetryingModel, group: asyncio.TaskGroup) -> None:
            # one feeder per model: a model that waits for its limits holds no slot of
            # the run's --concurrency, so the other models go on
            limiter = ModelLimiter((limits or {}).get(model.spec, ModelLimits()))
            budget = self.params_of(model)[0].max_tokens
            for request in self.todo([model], items, samples):
                if limiter.limited:
                    await limiter.acquire(request.item.prompt.text, budget)
                await semaphore.acquire()
                group.create_task(one(request, limiter))

        async with asyncio.TaskGroup() as group:
            self._group = group
            for model in retrying:
                group.create_task(feed(model, group))
        self.store_inputs(items, len(items))  # a run with no model stores them too


def _repeated_texts(items: Sequence[EvalItem]) -> int:
    """How many of ``items`` have the prompt text of an earlier one.

    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.verbalize import verbalize
    >>> formula = Formula.from_named([["p", "q"]])
    >>> record = verbalize(formula, "team").record("i1")
    >>> _repeated_texts([EvalItem(record, formula, "SAT")] * 3)
    2
    """
    return len(items) - len({prompt_hash(item.prompt.text) for item in items})


def check_run(samples: int, concurrency: int) -> None:
    """Refuse a number of samples or a concurrency out of range (:class:`ConfigError`)
    or not an int (:class:`~twosat_formal.errors.ArgumentTypeError`; a bool is none).

    >>> check_run(10**12, 4)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: samples must be in [1, 10000000], got 1000000000000
    """
    for name, value in (("samples", samples), ("concurrency", concurrency)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentTypeError(
                f"{name} must be an int, not {type(value).__name__}",
                parameter=name,
                valid="an int (not a bool)",
            )
    if not 1 <= samples <= MAX_SIZE:
        raise ConfigError(
            f"samples must be in [1, {MAX_SIZE}], got {samples}",
            parameter="samples",
            valid=f"an integer in [1, {MAX_SIZE}]",
        )
    if concurrency < 1:
        raise ConfigError(
            f"concurrency must be >= 1, got {concurrency}", parameter="concurrency", valid=">= 1"
        )


def _check_items(items: Sequence[EvalItem]) -> None:
    """Refuse, before anything is stored or sent, a prompt whose entity map does not
    fit its formula, or whose label is unknown."""
    for item in items:
        try:
            entity_variables(item.prompt.entities, item.formula)
            value_words(item.prompt)
        except ConfigError as exc:
            raise ConfigError(
                f"prompt {item.prompt.id}: {exc}", parameter="entities", valid=exc.valid
            ) from None
        if item.label not in LABELS:
            raise ConfigError(
                f"prompt {item.prompt.id}: unknown label {item.label!r}",
                parameter="label",
                valid="SAT or UNSAT",
            )


def _check_strategies(items: Sequence[EvalItem], strategies: Sequence[Strategy]) -> None:
    """Refuse, before anything is sent, a strategy whose text a prompt has no place for,
    or (a template prompt) whose prompt does not read back to the prompt's own rules
    (:func:`~twosat_formal.verbalize.strategies.certify_strategy`)."""
    from twosat_formal.verbalize import TEMPLATES

    for strategy in strategies:
        if strategy.text is None:
            continue
        for item in items:
            prompt = item.prompt
            try:
                strategy.apply(prompt.text)
                if prompt.template in TEMPLATES:
                    certify_strategy(strategy, prompt.text, None, prompt.template, prompt.entities)
            except (ConfigError, ParseError) as exc:
                raise ConfigError(
                    f"prompt {prompt.id}: {exc}",
                    parameter="strategy",
                    valid=getattr(exc, "valid", None) or "a strategy that keeps the rules",
                ) from None


def _store_inputs(store: RunStore, items: Sequence[EvalItem]) -> None:
    """The prompts, and the instances they verbalize, into the run store."""
    store.add_prompts(item.prompt_row() for item in items)
    store.add_instances(item.instance for item in items if item.instance is not None)


def _story_info(items: Sequence[EvalItem]) -> dict[str, Any]:
    """``{"stories": ...}`` for the run record when some prompts are stories, else ``{}``."""
    stories = story_counts(
        item.prompt.story
        for item in items
        if isinstance(item.prompt, StoryPrompt)
        if item.prompt.story is not None
    )
    return {"stories": stories} if stories else {}


def _progress_bar(console: Console | None) -> Progress:
    """The bar of a run: done of planned, accuracy so far, elapsed and remaining time."""
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[accuracy]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        transient=False,
    )


def _checked_run(
    items: Sequence[EvalItem],
    strategies: Sequence[str | Strategy] | None,
    samples: int,
    concurrency: int,
) -> tuple[Strategy, ...]:
    """The run's strategies (``direct`` alone by default), once the run's numbers, its
    items and its strategies are checked (:class:`ConfigError` before anything is
    stored or sent)."""
    check_run(samples, concurrency)
    _check_items(items)
    chosen = tuple(
        s if isinstance(s, Strategy) else parse_strategies([s])[0] for s in (strategies or [DIRECT])
    )
    _check_strategies(items, chosen)
    widest = max(chosen, key=lambda s: s.samples_per_vote)
    if samples * widest.samples_per_vote > MAX_SIZE:  # the samples asked of each prompt
        raise ConfigError(
            f"samples x K of {widest.key} must be at most {MAX_SIZE} per prompt and model, "
            f"got {samples} x {widest.samples_per_vote}",
            parameter="strategy",
            valid=f"samples x K in [1, {MAX_SIZE}]",
        )
    return chosen


def _run_info(
    runner: _Runner,
    models: Sequence[Model],
    items: Sequence[EvalItem],
    samples: int,
    limits: Mapping[str, ModelLimits] | None,
    run_info: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """What the run store records about a run: the tool, its models and their sampling
    parameters, limits, samples, prompts, strategies (unless ``direct`` alone), the
    caller's ``run_info`` and the story counts."""
    chosen = runner.strategies
    return {
        "tool_version": tool_version(),
        "models": [m.spec for m in models],
        "params": runner.params.key(),
        "model_params": {m.spec: runner.params_of(m)[1] for m in models},
        "limits": {spec: asdict(found) for spec, found in sorted((limits or {}).items())},
        "samples": samples,
        "prompts": len(items),
        **({"strategies": [s.key for s in chosen]} if chosen != (Strategy(DIRECT),) else {}),
        **dict(run_info or {}),
        **_story_info(items),
    }


async def _run_recorded(
    runner: _Runner,
    run_id: int,
    models: Sequence[Model],
    items: Sequence[EvalItem],
    samples: int,
    concurrency: int,
    limits: Mapping[str, ModelLimits] | None,
    bar: Progress | None,
) -> None:
    """Run the started run ``run_id`` to its end, with ``bar`` shown; however it ends, store and
    commit the answers in, and record its status (finished, interrupted or failed).

    A request that failed unexpectedly is raised alone (the first of them, with a note
    counting the others), not as the task group's exception group.
    """
    summary, store = runner.summary, runner.store
    started = time.perf_counter()
    status = "failed"
    if bar is not None:
        runner.progress = bar
        bar.start()
    try:
        await runner.run(models, items, samples, concurrency, limits)
        status = "finished"
    except asyncio.CancelledError:
        status = "interrupted"
        summary.interrupted = True
        raise
    except BaseExceptionGroup as group:  # a request failed unexpectedly: show the first
        first = group.exceptions[0]
        if len(group.exceptions) > 1:
            first.add_note(f"({len(group.exceptions) - 1} other requests failed as well)")
        raise first from None
    finally:
        summary.elapsed_s = time.perf_counter() - started
        try:
            runner.drain()  # the answers in, not scored yet: a cancelled run keeps them
        finally:
            runner.commit()
        if bar is not None:
            bar.stop()
        store.finish_run(run_id, status)
        store.release(run_id)


async def run_eval(
    models: Sequence[Model],
    items: Sequence[EvalItem],
    store: RunStore,
    *,
    params: SamplingParams | None = None,
    samples: int = 1,
    concurrency: int = DEFAULT_CONCURRENCY,
    retry: RetryPolicy | None = None,
    seed: int = 0,
    request_timeout_s: float | None = None,
    retry_errors: bool = False,
    progress: bool = False,
    console: Console | None = None,
    run_info: Mapping[str, Any] | None = None,
    summary: EvalSummary | None = None,
    limits: Mapping[str, ModelLimits] | None = None,
    strategies: Sequence[str | Strategy] | None = None,
) -> EvalSummary:
    """Ask every model every prompt ``samples`` times; score and store each answer.

    Parameters
    ----------
    models:
        Ready models (see :func:`twosat_formal.evaluate.models.load_model`).
    items:
        The prompts with their formulas and labels.
    store:
        Where results go; stored requests are skipped.
    params:
        Sampling parameters of every request (default :class:`SamplingParams`); a
        model whose spec carries sampling options (``?max_tokens=16384``) has them
        applied on top (:func:`~twosat_formal.evaluate.models.base.sampling_for`).
    samples:
        Samples per prompt and model (sample indices ``0 .. samples - 1``).
    concurrency:
        Requests in flight at most.
    retry:
        Backoff policy for transient failures (default :class:`RetryPolicy`).
    seed:
        Seed of the backoff jitter.
    request_timeout_s:
        A bound on one attempt, on top of the model's own time-out (a time-out is
        transient).
    retry_errors:
        Ask again the requests stored with failure ``error``.
    progress:
        Show a progress bar on ``console`` (default: stderr).
    run_info:
        What to record about the run in the store (never an API key).
    summary:
        A summary to fill in place (it stays readable if the run is cancelled).
    limits:
        Per-model limits by spec (:class:`~twosat_formal.evaluate.run.limits.ModelLimits`:
        requests in flight, requests and tokens per minute), within ``concurrency``.
    strategies:
        The reasoning strategies to ask each prompt under
        (:mod:`twosat_formal.verbalize.strategies`; default ``direct`` alone): names such as
        ``cot`` or ``sample-k:5``. Each is recorded with its results and is part of
        their store keys (a ``direct`` key is the key it always was); ``sample-k:K``
        asks ``samples * K`` samples, voted on ``K`` at a time when reported.

    The module's notes say when answers are scored, stored, committed, and what a stop keeps.

    Returns
    -------
    EvalSummary
        Counts of what was planned, skipped, done and how it was judged.
    """
    check_run_types(params, retry, seed, request_timeout_s, retry_errors, strategies)
    chosen = _checked_run(items, strategies, samples, concurrency)
    summary = summary if summary is not None else EvalSummary()
    runner = _Runner(store, params, retry, seed, request_timeout_s, summary, chosen)
    if retry_errors:
        store.delete_errors(runner.request_keys(models, items, samples))
    run_id = runner.start(_run_info(runner, models, items, samples, limits, run_info))
    bar = _progress_bar(console) if progress else None
    await _run_recorded(runner, run_id, models, items, samples, concurrency, limits, bar)
    return summary


@dataclass(frozen=True)
class ModelAccess:
    """How :func:`evaluate` and :func:`evaluate_async` reach the models named by their specs.

    Both take these as keyword arguments (``base_url=...``) or as one object
    (``access=ModelAccess(...)``); their other keyword arguments are those of
    :func:`run_eval`.

    Parameters
    ----------
    base_url:
        The endpoint of the ``openai/`` models; several endpoints of the same
        deployment fan each model's requests out over them
        (:class:`~twosat_formal.evaluate.models.pool.PooledModel`; the store keys name
        the first).
    api_key_env:
        The environment variable holding the API key.
    mode:
        ``chat`` or ``completion``.
    timeout_s:
        The seconds one request may take (default: the client's, 300 s).
    limits:
        Limits of every model; a spec's own ``?concurrency=N&rpm=R&tpm=T`` win, and are
        taken out of the spec (:func:`~twosat_formal.evaluate.run.limits.split_limits`),
        so limits never change a request's key.
    executor:
        Where the models are asked: ``local`` (here) or ``ray`` (on ``jobs`` Ray
        workers, each building its own clients; ``ray_address`` or ``$RAY_ADDRESS``
        names a cluster, else a local Ray is started:
        :func:`~twosat_formal.evaluate.run.remote.ray_models`). Either way this process
        plans, limits, retries, scores and writes the store, so both store the same
        results.
    jobs, ray_address:
        The Ray workers and cluster of the ``ray`` executor.

    Examples
    --------
    >>> ModelAccess.take({"mode": "completion", "samples": 2})
    (ModelAccess(base_url=None, api_key_env=None, mode='completion', timeout_s=None, \
limits=None, executor='local', jobs=None, ray_address=None), {'samples': 2})
    """

    base_url: str | Sequence[str] | None = None
    api_key_env: str | None = None
    mode: str = DEFAULT_MODE
    timeout_s: float | None = None
    limits: ModelLimits | None = None
    executor: str = "local"
    jobs: int | None = None
    ray_address: str | None = None

    def __post_init__(self) -> None:
        check_access_types(
            **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "limits"}
        )

    @classmethod
    def take(
        cls, options: Mapping[str, Any], access: ModelAccess | None = None
    ) -> tuple[ModelAccess, dict[str, Any]]:
        """The access named among keyword ``options`` (on top of ``access``), and the
        options left for :func:`run_eval`."""
        if access is not None:
            expect_type(access, cls, parameter="access", valid="a ModelAccess")
        names = {f.name for f in fields(cls)}
        mine = {key: value for key, value in options.items() if key in names}
        rest = {key: value for key, value in options.items() if key not in names}
        unknown = sorted(set(rest) - _RUN_OPTIONS)
        if unknown:  # before any model is loaded (a server started)
            raise ArgumentTypeError(
                f"evaluate() got an unexpected keyword argument {unknown[0]!r}",
                parameter=unknown[0],
                valid=", ".join(sorted(names | _RUN_OPTIONS)),
            )
        return replace(access or cls(), **mine), rest

    def urls(self) -> tuple[str | None, ...]:
        """The endpoints the models are asked at (``None``: the client's default)."""
        url = self.base_url
        return (url,) if url is None or isinstance(url, str) else tuple(url) or (None,)


#: The keyword arguments :func:`evaluate` hands to :func:`run_eval` (``limits`` is
#: built from :class:`ModelAccess`'s).
_RUN_OPTIONS = frozenset(inspect.signature(run_eval).parameters) - {
    "models",
    "items",
    "store",
    "limits",
}


async def evaluate_async(
    specs: Sequence[str],
    items: Sequence[EvalItem],
    store: RunStore,
    *,
    access: ModelAccess | None = None,
    **options: Any,
) -> EvalSummary:
    """:func:`evaluate` as a coroutine, for code that already runs an event loop.

    A notebook (Jupyter runs one) awaits it: ``summary = await evaluate_async(...)``.
    The parameters and the result are those of :func:`evaluate`; a cancellation (the
    notebook's interrupt) propagates after what was stored is committed.

    Examples
    --------
    >>> import asyncio, tempfile, pathlib
    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.verbalize import verbalize
    >>> formula = Formula.from_named([["p"], ["~p"]])
    >>> item = EvalItem(verbalize(formula, "logic").record("i1"), formula, "UNSAT")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
    >>> async def notebook_cell():
    ...     with RunStore(path) as store:
    ...         return await evaluate_async(["ref/oracle"], [item], store)
    >>> asyncio.run(notebook_cell()).correct
    1
    """
    from twosat_formal.evaluate.run.remote import ModelSource, ray_models

    how, options = ModelAccess.take(options, access)
    if how.executor not in EVAL_EXECUTORS:
        raise ConfigError(
            f"eval asks its models here (local) or on Ray workers (ray), not {how.executor!r}",
            parameter="executor",
            valid=", ".join(EVAL_EXECUTORS),
        )
    summary: EvalSummary = options.pop("summary", None) or EvalSummary()
    urls = how.urls()
    by_spec = dict(split_limits(spec, how.limits) for spec in specs)
    sources = [
        ModelSource(spec, urls, how.api_key_env, how.mode, how.timeout_s) for spec in by_spec
    ]
    async with AsyncExitStack() as stack:
        if how.executor == "ray":
            models = await stack.enter_async_context(
                ray_models(sources, jobs=how.jobs, address=how.ray_address)
            )
        else:
            models = []
            for source in sources:
                model = source.load()
                models.append(await stack.enter_async_context(model))  # type: ignore[arg-type]
        await run_eval(models, items, store, summary=summary, limits=by_spec, **options)
    return summary


def refuse_running_loop(
    call: str = "evaluate_async", valid: str = "twosat_formal.evaluate.run.evaluate_async"
) -> None:
    """Refuse to start an event loop where one is running (:class:`ConfigError`), naming
    the coroutine ``call`` (``valid``: its full name), which runs there."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return  # no loop runs here: evaluate runs its own
    raise ConfigError(
        "evaluate runs its own event loop and one is already running here (a notebook?): "
        f"use `summary = await {call}(...)` with the same arguments",
        parameter="evaluate",
        valid=f"await {valid}(...)",
    )


def evaluate(
    specs: Sequence[str],
    items: Sequence[EvalItem],
    store: RunStore,
    *,
    access: ModelAccess | None = None,
    **options: Any,
) -> EvalSummary:
    """Load the models named by ``specs``, run :func:`run_eval`, and release them.

    The models are reached as ``access`` and the keyword arguments named in
    :class:`ModelAccess` say (``base_url``, ``api_key_env``, ``mode``, ``timeout_s``,
    ``limits``, ``executor``, ``jobs``, ``ray_address``); the other ``options`` are
    those of :func:`run_eval`.

    Models are loaded with :func:`twosat_formal.evaluate.models.load_model` and closed on the
    way out, even on error or Ctrl-C (a llama.cpp server is stopped). A Ctrl-C returns
    the summary with ``interrupted=True``: what was stored stays stored.

    It runs its own event loop, so it cannot be called where one is running (a
    Jupyter notebook): there, ``await`` :func:`evaluate_async` instead, which a
    :class:`~twosat_formal.errors.ConfigError` says.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.verbalize import verbalize
    >>> formula = Formula.from_named([["p", "q"], ["~p", "q"]])
    >>> item = EvalItem(verbalize(formula, "team").record("i1"), formula, "SAT")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
    >>> with RunStore(path) as store:
    ...     summary = evaluate(["ref/sat-biased", "ref/oracle"], [item], store)
    >>> summary.done, dict(summary.failures)
    (2, {'correct': 2})
    """
    refuse_running_loop()
    summary: EvalSummary = options.pop("summary", None) or EvalSummary()
    try:
        run_requests(evaluate_async(specs, items, store, access=access, summary=summary, **options))
    except KeyboardInterrupt:
        summary.interrupted = True
    return summary
