"""Retrying, written once: a wrapper that retries any model's transient failures.

:class:`RetryingModel` wraps a :class:`~twosat_formal.core.model.Model`. A
:class:`~twosat_formal.errors.TransientModelError` (HTTP 408/429/5xx, a dropped
connection) or a time-out of one attempt is retried after a delay of
:class:`RetryPolicy` (exponential backoff with seeded jitter, honouring the server's
``Retry-After``); after the last attempt the wrapper raises a
:class:`~twosat_formal.errors.TransientModelError` that says it gave up. Any other
:class:`~twosat_formal.errors.TwoSatFormalError` is not worth retrying and passes
through; an :class:`~twosat_formal.errors.EndpointError` (an endpoint no request can
use) is raised at once. The evaluation runner and the story verbalizer both retry
through it. A conversation (:meth:`RetryingModel.converse`) is retried the same way
when the wrapped model takes messages (its ``chat`` is the wrapped model's).

Examples
--------
>>> import asyncio
>>> from twosat_formal.core.model import Response, SamplingParams
>>> class Flaky:  # HTTP 503 once, then an answer
...     spec, endpoint, calls = "test/flaky", "local", 0
...     async def generate(self, prompt, params, sample=0):
...         self.calls += 1
...         if self.calls == 1:
...             raise TransientModelError("HTTP 503", status=503)
...         return Response("The answer is: Yes", "stop")
...     async def aclose(self):
...         pass
>>> model = RetryingModel(Flaky(), RetryPolicy(base_delay_s=0.0))
>>> outcome = asyncio.run(model.attempt("Is it?", SamplingParams()))
>>> outcome.response.text, outcome.attempts, model.retries
('The answer is: Yes', 2, 1)
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from twosat_formal.core.model import Model, Response, SamplingParams, Turn
from twosat_formal.errors import (
    ConfigError,
    EndpointError,
    TransientModelError,
    TwoSatFormalError,
)
from twosat_formal.evaluate.models.base import WrappedModel, check_timeout, send

__all__ = ["Outcome", "RetryPolicy", "RetryingModel"]


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


@dataclass(frozen=True)
class Outcome:
    """What asking with retries came to: the response, or the error that ended it.

    ``attempts`` counts the calls made (1 when the first one answered).
    """

    response: Response | None
    attempts: int
    error: TwoSatFormalError | None = None


class RetryingModel(WrappedModel):
    """``model`` with its transient failures retried (see the module docstring).

    Parameters
    ----------
    model:
        Any model.
    policy:
        The backoff (default :class:`RetryPolicy`).
    rng:
        The jitter's random source (default ``random.Random(seed)``); share one to
        draw the delays of many models from one seeded stream.
    seed:
        Seed of the jitter when no ``rng`` is given.
    timeout_s:
        A bound on one attempt, on top of the model's own time-out (a time-out is
        transient).
    on_retry:
        Called before each retry (a progress counter, for instance).
    """

    def __init__(
        self,
        model: Model,
        policy: RetryPolicy | None = None,
        *,
        rng: random.Random | None = None,
        seed: int = 0,
        timeout_s: float | None = None,
        on_retry: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(model)
        self.policy = policy or RetryPolicy()
        self.rng = rng if rng is not None else random.Random(seed)
        if timeout_s is not None:
            check_timeout(timeout_s)
        self.timeout_s = timeout_s
        self.on_retry = on_retry
        #: Attempts that failed transiently and were retried.
        self.retries = 0

    async def attempt(
        self, prompt: str | Sequence[Turn], params: SamplingParams, sample: int = 0
    ) -> Outcome:
        """Ask with retries; the error that ended it is in the outcome.

        ``prompt`` is one text, or a conversation for a model that takes messages.

        Only an :class:`~twosat_formal.errors.EndpointError` is raised: every request to
        that endpoint would fail alike.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                call = send(self.model, prompt, params, sample)
                if self.timeout_s is not None:
                    response = await asyncio.wait_for(call, self.timeout_s)
                else:
                    response = await call
                return Outcome(response, attempt)
            except (TransientModelError, TimeoutError) as exc:
                retry_after = getattr(exc, "retry_after", None)
                message = str(exc) or f"request timed out after {self.timeout_s} s"
                if attempt >= self.policy.max_attempts:
                    gave_up = TransientModelError(
                        f"{message} (gave up after {attempt} attempts)",
                        status=getattr(exc, "status", None),
                        retry_after=retry_after,
                    )
                    return Outcome(None, attempt, gave_up)
                self.retries += 1
                if self.on_retry is not None:
                    self.on_retry()
                await asyncio.sleep(self.policy.delay(attempt, self.rng, retry_after))
            except EndpointError:
                raise
            except TwoSatFormalError as exc:  # failed for good: not worth retrying
                return Outcome(None, attempt, exc)

    async def _answer(
        self, prompt: str | Sequence[Turn], params: SamplingParams, sample: int
    ) -> Response:
        """The response, or the error that ended the last attempt (raised)."""
        outcome = await self.attempt(prompt, params, sample)
        if outcome.response is None:
            assert outcome.error is not None
            raise outcome.error
        return outcome.response
