"""The evaluation runner: ask models every prompt, score each answer, store it.

One request is one ``(prompt, model, sample)``; it is keyed in the
:class:`~twosat_formal.evaluate.store.RunStore` by model spec, endpoint, prompt hash, sampling
parameters and sample index, and a request whose key is stored is skipped, so a
killed or interrupted run resumes where it stopped.

* **Concurrency.** An :class:`asyncio.Semaphore` bounds the requests in flight; new
  requests are created only when a slot is free, so memory stays flat on long runs.
* **Retries.** A :class:`~twosat_formal.errors.TransientModelError` (HTTP 429 and
  5xx, time-outs, dropped connections) is retried with exponential backoff and jitter
  drawn from a seeded :class:`random.Random`, honouring the server's ``Retry-After``
  (:class:`RetryPolicy`, through :class:`~twosat_formal.evaluate.models.retry.RetryingModel`).
  After the last attempt, or on a failure that is not worth
  retrying, the sample is stored with failure ``error``.
* **Fail fast.** An :class:`~twosat_formal.errors.EndpointError` (connection refused,
  unknown host, HTTP 401, 403, 404) stops the run at once: every other request would
  fail the same way. What was stored stays stored; the run is marked ``failed``.
* **Errors summarised.** The summary counts the distinct error messages
  (:meth:`EvalSummary.top_errors`) and names the models every request of which failed
  (:attr:`EvalSummary.failed_models`).
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

The package has one module per concern: :mod:`~twosat_formal.evaluate.run.items` (prompt
types and item loading), :mod:`~twosat_formal.evaluate.run.runner` (the asynchronous
runner) and :mod:`~twosat_formal.evaluate.run.summary` (what a run did), and
:mod:`~twosat_formal.evaluate.run.stories` (stories told by a model named by its spec,
its calls retried and cached). Retrying and caching are model wrappers
(:mod:`twosat_formal.evaluate.models.retry`, :mod:`twosat_formal.evaluate.models.cache`).

Examples
--------
>>> import asyncio, tempfile, pathlib
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.core.model import Response, SamplingParams
>>> from twosat_formal.evaluate.store import RunStore
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

from twosat_formal.evaluate.models.retry import RetryPolicy
from twosat_formal.evaluate.run.items import (
    STORY_TEMPLATE_PREFIX,
    EvalItem,
    EvalPrompt,
    PromptRecordLike,
    StoryPrompt,
    item_from_story,
    item_from_text,
    load_items,
    read_eval_prompts,
)
from twosat_formal.evaluate.run.runner import ModelAccess, evaluate, evaluate_async, run_eval
from twosat_formal.evaluate.run.stories import StoryRun, generate_stories
from twosat_formal.evaluate.run.summary import EvalSummary, story_counts
from twosat_formal.evaluate.run.verify import Verification, verify_items

__all__ = [
    "STORY_TEMPLATE_PREFIX",
    "EvalItem",
    "EvalPrompt",
    "EvalSummary",
    "ModelAccess",
    "PromptRecordLike",
    "RetryPolicy",
    "StoryPrompt",
    "StoryRun",
    "Verification",
    "evaluate",
    "evaluate_async",
    "generate_stories",
    "item_from_story",
    "item_from_text",
    "load_items",
    "read_eval_prompts",
    "run_eval",
    "story_counts",
    "verify_items",
]
