"""The evaluation runner: ask models every prompt, score each answer, store it.

One request is one ``(prompt, model, sample)``; it is keyed in the
:class:`~twosat_formal.store.RunStore` by model spec, endpoint, prompt hash, sampling
parameters and sample index, and a request whose key is stored is skipped, so a
killed or interrupted run resumes where it stopped.

* **Concurrency.** An :class:`asyncio.Semaphore` bounds the requests in flight; new
  requests are created only when a slot is free, so memory stays flat on long runs.
* **Retries.** A :class:`~twosat_formal.models.base.TransientModelError` (HTTP 429 and
  5xx, time-outs, dropped connections) is retried with exponential backoff and jitter
  drawn from a seeded :class:`random.Random`, honouring the server's ``Retry-After``
  (:class:`RetryPolicy`). After the last attempt, or on a failure that is not worth
  retrying, the sample is stored with failure ``error``.
* **Progress.** A rich progress bar on stderr with ETA and the running accuracy.
* **Durability.** Results are committed in groups, at most :data:`COMMIT_INTERVAL_S`
  after they arrive (one commit per result costs more than the HTTP request on a busy
  machine). A SIGKILL loses only the results of that last window and the requests in
  flight, which the next run asks again; nothing is stored twice.
* **Ctrl-C.** An interrupt cancels the requests in flight, commits what was stored,
  marks the run ``interrupted`` and :func:`evaluate` returns the summary with
  ``interrupted=True``.
* **Story prompts.** A story record of the LLM story verbalizer (``"kind": "story"``)
  is a prompt too (:class:`StoryPrompt`): its template is ``story:<theme>`` and each
  entity has its own true and false description, which scoring reads per entity. The
  run's ``info`` in the store keeps each story's validation counts (``stories``), so a
  report can show the first-attempt validation and fallback rates of what it scores.

Examples
--------
>>> import asyncio, tempfile, pathlib
>>> from twosat_formal.formula import Formula
>>> from twosat_formal.models.base import Response, SamplingParams
>>> from twosat_formal.store import RunStore
>>> class Always:
...     spec, endpoint = "test/no", "local"
...     async def generate(self, prompt, params, sample=0):
...         return Response("The answer is: No", "stop")
...     async def aclose(self):
...         pass
>>> prompt = EvalPrompt("p1", "i1", "logic", "Is A true?", {"A": "x1"}, "true", "false")
>>> item = EvalItem(prompt, Formula([[1], [-1]]), "UNSAT")
>>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
>>> with RunStore(path) as store:
...     summary = asyncio.run(run_eval([Always()], [item], store))
...     again = asyncio.run(run_eval([Always()], [item], store))
>>> summary.done, summary.correct, again.done, again.skipped
(1, 1, 0, 1)
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

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

from twosat_formal.errors import ConfigError, RecordError, TwoSatFormalError
from twosat_formal.formula import Formula
from twosat_formal.jsonl import read_json_lines
from twosat_formal.models.base import Model, Response, SamplingParams, TransientModelError
from twosat_formal.prompts import PromptRecord
from twosat_formal.provenance import tool_version
from twosat_formal.scoring import (
    LABELS,
    Judgement,
    PromptLike,
    entity_variables,
    error_judgement,
    score,
    value_words,
)
from twosat_formal.store import PromptRow, ResultRow, RunStore, prompt_hash, request_key
from twosat_formal.verbalize.story.record import (
    StoryRecord,
    StoryStatistics,
    is_story_record,
    story_statistics,
)

__all__ = [
    "STORY_TEMPLATE_PREFIX",
    "EvalItem",
    "EvalPrompt",
    "EvalSummary",
    "PromptRecordLike",
    "RetryPolicy",
    "StoryPrompt",
    "evaluate",
    "item_from_story",
    "item_from_text",
    "load_items",
    "read_eval_prompts",
    "run_eval",
    "story_counts",
]

#: The template of a story prompt is this prefix and the story's theme.
STORY_TEMPLATE_PREFIX = "story:"
#: Results stored within this many seconds share one commit. A killed run loses at most
#: these (and the requests in flight); the next run asks them again.
COMMIT_INTERVAL_S = 0.05


class PromptRecordLike(PromptLike, Protocol):
    """What the runner reads from a prompt record: scoring's view plus its identity."""

    @property
    def id(self) -> str:
        """The prompt's id."""
        ...

    @property
    def instance_id(self) -> str:
        """The id of the instance it verbalizes."""
        ...

    @property
    def template(self) -> str:
        """The verbalization scheme."""
        ...

    @property
    def text(self) -> str:
        """The full prompt, exactly as the model reads it."""
        ...


@dataclass(frozen=True)
class EvalPrompt:
    """A plain :class:`PromptRecordLike` (tests, notebooks).

    >>> EvalPrompt("p", "i", "logic", "text", {"A": 1}, "true", "false").template
    'logic'
    """

    id: str
    instance_id: str
    template: str
    text: str
    entities: Mapping[str, Any]
    true_value: str
    false_value: str
    seed: int | None = None


@dataclass(frozen=True)
class StoryPrompt:
    """A story record as a prompt to ask (App. G.2, story variant).

    ``template`` is ``story:<theme>``; ``entity_values`` maps each entity to its own
    ``(true description, false description)``, which the witness must use. ``story``
    is the whole record (its recovered formula, its validation history).

    >>> from twosat_formal.verbalize.story.record import StoryRecord, story_id
    >>> record = StoryRecord(story_id("i", "heist", "m", 0), "i", "heist", "m", 0,
    ...                      {"the vault": "x1"}, "Intro.", (), "Intro.", "TEXT", ())
    >>> prompt = StoryPrompt.from_story(record)
    >>> prompt.template, prompt.entity_values
    ('story:heist', {'the vault': ('is open', 'is sealed')})
    """

    id: str
    instance_id: str
    template: str
    text: str
    entities: Mapping[str, Any]
    entity_values: Mapping[str, tuple[str, str]]
    seed: int | None = None
    story: StoryRecord | None = field(default=None, compare=False, repr=False)

    @property
    def theme(self) -> str:
        """The story's theme (the template without :data:`STORY_TEMPLATE_PREFIX`)."""
        return self.template.removeprefix(STORY_TEMPLATE_PREFIX)

    @classmethod
    def from_story(cls, record: StoryRecord) -> StoryPrompt:
        """The prompt of a story record: its full prompt text and per-entity values."""
        return cls(
            id=record.id,
            instance_id=record.instance_id,
            template=STORY_TEMPLATE_PREFIX + record.theme,
            text=record.text,
            entities=dict(record.entities),
            entity_values=record.descriptions(),
            seed=record.seed,
            story=record,
        )


@dataclass(frozen=True)
class EvalItem:
    """One prompt to ask, with what scoring needs: the formula and its label.

    ``prompt`` is a template prompt (:class:`PromptRecordLike`) or a story prompt
    (:class:`StoryPrompt`). ``instance`` is the instance's JSON record, kept in the
    store for reports.
    """

    prompt: PromptRecordLike | StoryPrompt
    formula: Formula
    label: str
    instance: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter.

    Attempt ``k`` (1-based) that fails waits a uniform draw in ``[d/2, d]`` with
    ``d = min(max_delay_s, base_delay_s * 2 ** (k - 1))``, or the server's
    ``Retry-After`` when that is longer (capped at ``max_delay_s``).

    >>> policy = RetryPolicy(base_delay_s=1.0, max_delay_s=4.0)
    >>> rng = random.Random(0)
    >>> [0.5 <= policy.delay(1, rng) <= 1.0, 2.0 <= policy.delay(3, rng) <= 4.0]
    [True, True]
    >>> policy.delay(1, rng, retry_after=3.0)
    3.0
    """

    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(
                f"max_attempts must be >= 1, got {self.max_attempts}",
                parameter="max_attempts",
                valid=">= 1",
            )
        if self.base_delay_s < 0 or self.max_delay_s < 0:
            raise ConfigError("retry delays must be >= 0", parameter="delay", valid=">= 0")

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt``."""
        cap = min(self.max_delay_s, self.base_delay_s * 2.0 ** (attempt - 1))
        wait = rng.uniform(cap / 2, cap)
        if retry_after is not None:
            wait = max(wait, min(float(retry_after), self.max_delay_s))
        return wait


@dataclass
class EvalSummary:
    """What a run did.

    ``planned`` requests in all, ``skipped`` because they were stored already, ``done``
    stored by this run (``correct`` of them), ``failures`` by kind, ``retries``
    attempts that were retried, and whether the run was ``interrupted``.
    """

    planned: int = 0
    skipped: int = 0
    done: int = 0
    correct: int = 0
    retries: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    interrupted: bool = False
    elapsed_s: float = 0.0
    run_id: int | None = None

    @property
    def accuracy(self) -> float | None:
        """Share of this run's results that are ``correct`` (``None`` before any)."""
        return self.correct / self.done if self.done else None

    @property
    def remaining(self) -> int:
        """Requests still to do (those in flight at an interrupt, for instance)."""
        return self.planned - self.skipped - self.done

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view.

        >>> EvalSummary(planned=2, done=2, correct=1).to_dict()["accuracy"]
        0.5
        """
        return {
            "planned": self.planned,
            "skipped": self.skipped,
            "done": self.done,
            "remaining": self.remaining,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "retries": self.retries,
            "failures": dict(sorted(self.failures.items())),
            "interrupted": self.interrupted,
            "elapsed_s": round(self.elapsed_s, 3),
            "run_id": self.run_id,
        }


@dataclass(frozen=True)
class _Request:
    item: EvalItem
    model: Model
    sample: int
    key: str
    prompt_sha: str


def _prompt_row(item: EvalItem) -> PromptRow:
    p = item.prompt
    return PromptRow(
        prompt_id=p.id,
        instance_id=p.instance_id,
        template=p.template,
        label=item.label,
        text=p.text,
        entities=dict(p.entities),
        true_value=getattr(p, "true_value", None),
        false_value=getattr(p, "false_value", None),
        seed=getattr(p, "seed", None),
    )


def story_counts(records: Iterable[StoryRecord]) -> dict[str, dict[str, Any]]:
    """The validation counts of each story record, by story id (first of each id kept).

    Each entry is the theme and the fields of
    :func:`~twosat_formal.verbalize.story.story_statistics` of that story alone, so
    the counts of distinct stories add up to the statistics of all of them.
    :func:`run_eval` keeps them in the run's ``info`` (``stories``).

    >>> from twosat_formal.verbalize.story.record import StoryRecord, story_id
    >>> record = StoryRecord(story_id("i", "spy", "m", 0), "i", "spy", "m", 0, {},
    ...                      "I.", (), "I.", "T", ())
    >>> counts = story_counts([record])[record.id]
    >>> counts["theme"], counts["stories"], counts["llm_clauses"]
    ('spy', 1, 0)
    """
    out: dict[str, dict[str, Any]] = {}
    for story in records:
        if story.id not in out:
            stats = story_statistics([story])
            counts = {f: getattr(stats, f) for f in StoryStatistics.__dataclass_fields__}
            out[story.id] = {"theme": story.theme, **counts}
    return out


class _Runner:
    def __init__(
        self,
        store: RunStore,
        params: SamplingParams,
        retry: RetryPolicy,
        seed: int,
        request_timeout_s: float | None,
        summary: EvalSummary,
    ) -> None:
        self.store = store
        self.params = params
        self.params_key = params.key()
        self.retry = retry
        self.rng = random.Random(seed)
        self.request_timeout_s = request_timeout_s
        self.summary = summary
        self.run_id: int | None = None
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self._commit_timer: asyncio.TimerHandle | None = None

    async def ask(self, request: _Request) -> tuple[Response | None, int, str | None]:
        """The response (or ``None`` and the error) and the number of attempts."""
        attempt = 0
        while True:
            attempt += 1
            try:
                call = request.model.generate(request.item.prompt.text, self.params, request.sample)
                if self.request_timeout_s is not None:
                    response = await asyncio.wait_for(call, self.request_timeout_s)
                else:
                    response = await call
                return response, attempt, None
            except (TransientModelError, TimeoutError) as exc:
                retry_after = getattr(exc, "retry_after", None)
                message = str(exc) or f"request timed out after {self.request_timeout_s} s"
                if attempt >= self.retry.max_attempts:
                    return None, attempt, f"{message} (gave up after {attempt} attempts)"
                self.summary.retries += 1
                await asyncio.sleep(self.retry.delay(attempt, self.rng, retry_after))
            except TwoSatFormalError as exc:  # failed for good: not worth retrying
                return None, attempt, str(exc)

    async def handle(self, request: _Request) -> None:
        response, attempts, error = await self.ask(request)
        item = request.item
        judgement: Judgement
        if response is None:
            judgement = error_judgement(item.label, error or "request failed")
        else:
            judgement = score(response, item.prompt, item.formula, item.label)
        row = ResultRow(
            model=request.model.spec,
            endpoint=request.model.endpoint,
            prompt_hash=request.prompt_sha,
            prompt_id=item.prompt.id,
            params=self.params_key,
            sample=request.sample,
            judgement=judgement,
            response=response,
            attempts=attempts,
            run_id=self.run_id,
        )
        self.store.put(row, commit=False, key=request.key)
        if self._commit_timer is None:
            loop = asyncio.get_running_loop()
            self._commit_timer = loop.call_later(COMMIT_INTERVAL_S, self.commit)
        self.summary.done += 1
        self.summary.correct += judgement.correct
        self.summary.failures[judgement.failure] += 1
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, advance=1, accuracy=self._accuracy_text())

    def commit(self) -> None:
        """Commit the results stored since the last commit."""
        if self._commit_timer is not None:
            self._commit_timer.cancel()
            self._commit_timer = None
        self.store.commit()

    def _accuracy_text(self) -> str:
        acc = self.summary.accuracy
        return "acc  -  " if acc is None else f"acc {acc:6.1%}"

    async def run(
        self, models: Sequence[Model], items: Sequence[EvalItem], samples: int, concurrency: int
    ) -> None:
        requests: list[_Request] = []
        for item in items:
            sha = prompt_hash(item.prompt.text)
            for model in models:
                for sample in range(samples):
                    key = request_key(model.spec, model.endpoint, sha, self.params_key, sample)
                    requests.append(_Request(item, model, sample, key, sha))
        stored = self.store.stored_keys()
        todo = [r for r in requests if r.key not in stored]
        self.summary.planned = len(requests)
        self.summary.skipped = len(requests) - len(todo)
        if self.progress is not None:
            self.task = self.progress.add_task(
                "eval", total=len(todo), accuracy=self._accuracy_text()
            )
        semaphore = asyncio.Semaphore(concurrency)

        async def one(request: _Request) -> None:
            try:
                await self.handle(request)
            finally:
                semaphore.release()

        async with asyncio.TaskGroup() as group:
            for request in todo:
                await semaphore.acquire()
                group.create_task(one(request))


async def run_eval(
    models: Sequence[Model],
    items: Sequence[EvalItem],
    store: RunStore,
    *,
    params: SamplingParams | None = None,
    samples: int = 1,
    concurrency: int = 8,
    retry: RetryPolicy | None = None,
    seed: int = 0,
    request_timeout_s: float | None = None,
    retry_errors: bool = False,
    progress: bool = False,
    console: Console | None = None,
    run_info: Mapping[str, Any] | None = None,
    summary: EvalSummary | None = None,
) -> EvalSummary:
    """Ask every model every prompt ``samples`` times; score and store each answer.

    Parameters
    ----------
    models:
        Ready models (see :func:`twosat_formal.models.load_model`).
    items:
        The prompts with their formulas and labels.
    store:
        Where results go; stored requests are skipped.
    params:
        Sampling parameters of every request (default :class:`SamplingParams`).
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

    Returns
    -------
    EvalSummary
        Counts of what was planned, skipped, done and how it was judged.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from twosat_formal.formula import Formula
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
    if samples < 1:
        raise ConfigError(f"samples must be >= 1, got {samples}", parameter="samples", valid=">= 1")
    if concurrency < 1:
        raise ConfigError(
            f"concurrency must be >= 1, got {concurrency}", parameter="concurrency", valid=">= 1"
        )
    params = params or SamplingParams()
    summary = summary if summary is not None else EvalSummary()
    for item in items:  # a prompt whose entity map does not fit its formula stops us early
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
    runner = _Runner(store, params, retry or RetryPolicy(), seed, request_timeout_s, summary)
    store.add_prompts(_prompt_row(item) for item in items)
    for item in items:
        if item.instance is not None:
            store.add_instance(item.instance)
    if retry_errors:
        keys = [
            request_key(m.spec, m.endpoint, prompt_hash(i.prompt.text), params.key(), s)
            for i in items
            for m in models
            for s in range(samples)
        ]
        store.delete_errors(keys)
    info = {
        "tool_version": tool_version(),
        "models": [m.spec for m in models],
        "params": params.key(),
        "samples": samples,
        "prompts": len(items),
        **dict(run_info or {}),
    }
    stories = story_counts(
        item.prompt.story
        for item in items
        if isinstance(item.prompt, StoryPrompt)
        if item.prompt.story is not None
    )
    if stories:
        info["stories"] = stories
    runner.run_id = summary.run_id = store.start_run(info)
    started = time.perf_counter()
    status = "failed"
    bar: Progress | None = None
    if progress:
        bar = Progress(
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
        runner.progress = bar
        bar.start()
    try:
        await runner.run(models, items, samples, concurrency)
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
        runner.commit()
        if bar is not None:
            bar.stop()
        store.finish_run(summary.run_id, status)
    return summary


def evaluate(
    specs: Sequence[str],
    items: Sequence[EvalItem],
    store: RunStore,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    mode: str = "chat",
    **options: Any,
) -> EvalSummary:
    """Load the models named by ``specs``, run :func:`run_eval`, and release them.

    Models are loaded with :func:`twosat_formal.models.load_model` and closed on the
    way out, even on error or Ctrl-C (a llama.cpp server is stopped). A Ctrl-C returns
    the summary with ``interrupted=True``: what was stored stays stored.
    ``options`` are those of :func:`run_eval`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from twosat_formal.formula import Formula
    >>> from twosat_formal.verbalize import verbalize
    >>> formula = Formula.from_named([["p", "q"], ["~p", "q"]])
    >>> item = EvalItem(verbalize(formula, "team").record("i1", None), formula, "SAT")
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "runs.sqlite"
    >>> with RunStore(path) as store:
    ...     summary = evaluate(["ref/sat-biased", "ref/oracle"], [item], store)
    >>> summary.done, dict(summary.failures)
    (2, {'correct': 2})
    """
    from twosat_formal.models import load_model

    summary: EvalSummary = options.pop("summary", None) or EvalSummary()

    async def main() -> None:
        async with AsyncExitStack() as stack:
            models: list[Model] = []
            for spec in specs:
                model = load_model(spec, base_url=base_url, api_key_env=api_key_env, mode=mode)
                models.append(await stack.enter_async_context(model))
            await run_eval(models, items, store, summary=summary, **options)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        summary.interrupted = True
    return summary


def item_from_story(prompt: StoryPrompt) -> EvalItem:
    """An item whose formula is the story's recovered formula, labelled by the solver.

    The recovered formula is what the validator read back from each clue (or what
    each fallback sentence says), one clause per source clause, over the variables
    of the entity map in order; the story's round-trip proof, re-checked by
    ``certify``, is what makes it the instance's formula. The label comes from
    :func:`twosat_formal.solve.solve` with its certificate checked.

    Raises
    ------
    RecordError
        The prompt carries no story record.

    Examples
    --------
    >>> from twosat_formal.verbalize.story.record import StoryRecord, story_id
    >>> record = StoryRecord(story_id("i", "heist", "m", 0), "i", "heist", "m", 0,
    ...                      {"the vault": "v", "the alarm": "w"}, "I.", (), "I.", "T",
    ...                      (("v", "~w"), ("w",)))
    >>> item = item_from_story(StoryPrompt.from_story(record))
    >>> item.label, item.formula.names, item.formula.num_clauses
    ('SAT', ('v', 'w'), 2)
    """
    from twosat_formal.solve import solve

    if prompt.story is None:
        raise RecordError(f"story prompt {prompt.id} carries no story record")
    names = [str(name) for name in prompt.entities.values()]
    formula = Formula.from_named(prompt.story.recovered, variables=names)
    if formula.num_vars != len(names):
        raise RecordError(
            f"story {prompt.id}: the recovered formula names variables outside its entity map"
        )
    return EvalItem(prompt, formula, solve(formula, check=True).status)


def item_from_text(prompt: PromptRecordLike) -> EvalItem:
    """An item whose formula is read back from the prompt text and labelled by the solver.

    The back-parser (:func:`twosat_formal.verbalize.backparse.backparse`) reads the
    template verbalization at the head of the prompt with the record's entities;
    the record's round-trip proof is what makes that formula the instance's. The
    label comes from :func:`twosat_formal.solve.solve` with its certificate checked.

    Examples
    --------
    >>> from twosat_formal.formula import Formula
    >>> from twosat_formal.verbalize import verbalize
    >>> record = verbalize(Formula.from_named([["p"], ["~p", "q"]]), "door").record("i", None)
    >>> item = item_from_text(record)
    >>> item.label, item.formula.names
    ('SAT', ('p', 'q'))
    """
    from twosat_formal.solve import solve
    from twosat_formal.verbalize.backparse import backparse

    entities = list(prompt.entities)
    parsed = backparse(prompt.text, prompt.template, entities=entities, source=prompt.id)
    names = [str(prompt.entities[e]) for e in entities]
    formula = parsed.formula.with_names(names)
    return EvalItem(prompt, formula, solve(formula, check=True).status)


def read_eval_prompts(path: str | Path) -> Iterator[PromptRecord | StoryPrompt]:
    """The prompts of a JSON Lines file (``"-"``: stdin), lazily; blank lines skipped.

    A line is a template prompt record (:class:`~twosat_formal.prompts.PromptRecord`,
    as ``prompts`` and ``verbalize`` write them) or a story record
    (``"kind": "story"``, as ``verbalize --story`` writes them), read as a
    :class:`StoryPrompt`; one file may hold both.

    Raises
    ------
    RecordError
        On the first line that is not valid JSON or not a valid record (with its line
        number).

    Examples
    --------
    >>> import tempfile, os
    >>> from twosat_formal.prompts import write_prompts
    >>> rec = PromptRecord.create("i1", "door", "T", {"door 1": "a"}, "open", "closed", 3)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "p.jsonl")
    ...     _ = write_prompts([rec], path)
    ...     [r == rec for r in read_eval_prompts(path)]
    [True]
    """
    for line in read_json_lines(path):
        if is_story_record(line.value):
            story = StoryRecord.from_record(line.value, line=line.number, source=line.source)
            yield StoryPrompt.from_story(story)
        else:
            yield PromptRecord.from_record(line.value, line=line.number, source=line.source)


def load_items(
    prompts: str | Path,
    *,
    dataset: str | Path | None = None,
    limit: int | None = None,
) -> list[EvalItem]:
    """The items of a prompt file, with formulas and labels.

    Parameters
    ----------
    prompts:
        JSON Lines prompt records and/or story records (:func:`read_eval_prompts`).
    dataset:
        The JSON Lines instances the prompts verbalize
        (:func:`twosat_formal.instance.read_instances`): formulas, labels and the
        metadata reports need. Without it, each formula is read back from its prompt
        (:func:`item_from_text`), or is a story's recovered formula
        (:func:`item_from_story`), and is labelled by the solver.
    limit:
        Keep the first ``limit`` prompts only.

    Raises
    ------
    RecordError
        A prompt that names an instance the dataset lacks.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from twosat_formal.formula import Formula
    >>> from twosat_formal.instance import Instance, write_instances
    >>> from twosat_formal.prompts import write_prompts
    >>> from twosat_formal.verbalize import verbalize
    >>> formula = Formula.from_named([["p", "~q"], ["q"]])
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = write_prompts([verbalize(formula, "room").record("i1", None)], folder / "p.jsonl")
    >>> _ = write_instances([Instance("i1", "demo", {}, 0, formula, "SAT", {}, {}, {})],
    ...                     folder / "d.jsonl")
    >>> [item.label for item in load_items(folder / "p.jsonl", dataset=folder / "d.jsonl")]
    ['SAT']
    """
    if limit is not None and limit < 0:
        raise ConfigError(f"limit must be >= 0, got {limit}", parameter="limit", valid=">= 0")
    records: list[PromptRecord | StoryPrompt] = []
    for record in read_eval_prompts(prompts):
        if limit is not None and len(records) >= limit:
            break
        records.append(record)
    if dataset is None:
        return [
            item_from_story(record) if isinstance(record, StoryPrompt) else item_from_text(record)
            for record in records
        ]
    from twosat_formal.instance import read_instances

    wanted = {record.instance_id for record in records}
    instances = {inst.id: inst for inst in read_instances(dataset) if inst.id in wanted}
    items = []
    for record in records:
        instance = instances.get(record.instance_id)
        if instance is None:
            raise RecordError(
                f"prompt {record.id} verbalizes instance {record.instance_id!r}, "
                f"which is not in {dataset}",
                source=str(prompts),
            )
        items.append(EvalItem(record, instance.formula, instance.label, instance.to_record()))
    return items
