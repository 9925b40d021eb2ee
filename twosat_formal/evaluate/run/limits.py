"""Per-model concurrency and rate limits: requests and tokens per minute.

Limits come from the model spec (``openai/m?concurrency=4&rpm=60&tpm=90000``) or from
flags that apply to every model (``--model-concurrency``, ``--rpm``, ``--tpm``); the
spec wins. They change when requests are sent, never what is asked, so
:func:`split_limits` takes them out of the spec before it becomes part of a request's
store key: a run resumed with other limits skips what is stored.

The rates are enforced with :class:`aiolimiter.AsyncLimiter` (a leaky bucket): a
request takes one unit of the minute's requests and, for the tokens, its prompt's
estimated tokens (4 characters each) plus its ``max_tokens`` budget, which is what
providers count against a tokens-per-minute quota when the request arrives.

Examples
--------
>>> split_limits("openai/m?rpm=60&mode=chat&concurrency=2")
('openai/m?mode=chat', ModelLimits(concurrency=2, rpm=60.0, tpm=None))
>>> split_limits("ref/oracle", ModelLimits(rpm=30))
('ref/oracle', ModelLimits(concurrency=None, rpm=30, tpm=None))
>>> estimated_tokens("x" * 400, 100)
200
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from pydantic import BeforeValidator, Field

from twosat_formal._util.registry import set_twice
from twosat_formal.core.params import COUNT, MUST, Rule, check, from_text, rules_table, validate
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import canonical_spec, shown_spec

__all__ = [
    "LIMIT_OPTIONS",
    "LIMIT_RULES",
    "ModelLimiter",
    "ModelLimits",
    "estimated_tokens",
    "split_limits",
]

#: Spec options that set limits (never part of a request's key).
LIMIT_OPTIONS = ("concurrency", "rpm", "tpm")


@dataclass(frozen=True)
class ModelLimits:
    """How hard one model may be asked: requests in flight, requests and tokens a minute.

    ``None`` is no limit of that kind (the run's ``--concurrency`` still bounds all).
    """

    concurrency: int | None = None
    rpm: float | None = None
    tpm: float | None = None

    def __post_init__(self) -> None:
        given = {name: getattr(self, name) for name in LIMIT_OPTIONS}
        given = {name: value for name, value in given.items() if value is not None}
        check(_LIMITS, LIMIT_RULES, given)


#: A whole float (``2.0``) counts as its integer.
_WHOLE = BeforeValidator(lambda v: int(v) if isinstance(v, float) and v.is_integer() else v)
_RATE = Annotated[float, Field(gt=0, allow_inf_nan=False), from_text(float)]
#: What each limit may be: ``name ->`` :class:`~twosat_formal.core.params.Rule` (a spec's
#: text read as a number).
LIMIT_RULES: dict[str, Rule] = {
    "concurrency": Rule(Annotated[COUNT.type, _WHOLE, from_text(float)], COUNT.valid, MUST),
    "rpm": Rule(_RATE, "a finite number > 0", MUST),
    "tpm": Rule(_RATE, "a finite number > 0", MUST),
}
_LIMITS = rules_table("limits", LIMIT_RULES)


def split_limits(spec: str, defaults: ModelLimits | None = None) -> tuple[str, ModelLimits]:
    """The spec without its limit options, in its canonical form
    (:func:`~twosat_formal.evaluate.models.canonical_spec`, the name of the model it
    builds), and the limits (the spec's over ``defaults``)."""
    body, mark, query = spec.partition("?")
    if not mark:
        return spec, defaults or ModelLimits()
    pairs = parse_qsl(query, keep_blank_values=True)
    given: dict[str, str] = {}
    for key, raw in pairs:
        if key in given:
            raise set_twice(key, where=f"in model spec {shown_spec(spec)!r}")
        if key in LIMIT_OPTIONS:
            given[key] = raw

    def problem(key: str, unknown: bool) -> ConfigError:
        valid = LIMIT_RULES[key].valid
        return ConfigError(
            f"model spec {shown_spec(spec)!r}: option {key}={given[key]!r} is not {valid}",
            parameter=key,
            valid=valid,
        )

    limits = replace(defaults or ModelLimits(), **validate(_LIMITS, given, problem))
    rest = urlencode([(key, raw) for key, raw in pairs if key not in LIMIT_OPTIONS], safe="/:")
    return canonical_spec(f"{body}?{rest}" if rest else body), limits


def estimated_tokens(prompt: str, max_tokens: int | None) -> int:
    """What a request counts against a tokens-per-minute quota: prompt (4 chars a
    token, rounded up) plus the answer's budget."""
    return math.ceil(len(prompt) / 4) + (max_tokens or 0)


def _per_minute(rpm: float) -> Any:
    """A leaky bucket of ``rpm`` requests a minute that holds at least one request.

    Under one request a minute (``--rpm 0.5``) it is one request per ``60 / rpm``
    seconds: a bucket of capacity ``rpm`` could never hold the request.

    >>> bucket = _per_minute(0.5)
    >>> bucket.max_rate, bucket.time_period
    (1, 120.0)
    """
    from aiolimiter import AsyncLimiter

    return AsyncLimiter(rpm, 60) if rpm >= 1 else AsyncLimiter(1, 60 / rpm)


class ModelLimiter:
    """The limits of one model at run time.

    :meth:`acquire` waits for a free slot and for the minute's request and token
    budget; :meth:`release` frees the slot when the request is done.
    """

    def __init__(self, limits: ModelLimits) -> None:
        from aiolimiter import AsyncLimiter

        self.limits = limits
        concurrency = limits.concurrency
        self._slots = asyncio.Semaphore(int(concurrency)) if concurrency is not None else None
        self._requests = _per_minute(limits.rpm) if limits.rpm is not None else None
        self._tokens = AsyncLimiter(limits.tpm, 60) if limits.tpm is not None else None
        #: Whether any limit is set (without one, :meth:`acquire` never waits).
        self.limited = any(x is not None for x in (self._slots, self._requests, self._tokens))

    async def acquire(self, prompt: str, max_tokens: int | None) -> None:
        """Wait until a request of ``prompt`` with budget ``max_tokens`` may be sent."""
        if self._slots is not None:
            await self._slots.acquire()
        try:
            if self._requests is not None:
                await self._requests.acquire()
            if self._tokens is not None:  # one request never waits for more than a minute
                tokens = estimated_tokens(prompt, max_tokens)
                await self._tokens.acquire(min(tokens, self._tokens.max_rate))
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """The request is done: free its slot."""
        if self._slots is not None:
            self._slots.release()
