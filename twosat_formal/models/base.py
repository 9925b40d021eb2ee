"""The one interface every model implements, and the records it exchanges.

A model sees only the prompt text. It is called as ``await model.generate(prompt,
params)`` and answers with a :class:`Response`. Failures that are worth retrying
(HTTP 429 and 5xx, time-outs, dropped connections) raise :class:`TransientModelError`;
failures that are not raise :class:`~twosat_formal.errors.EvaluationError`. Retrying
is the runner's job, not the model's.

Examples
--------
>>> params = SamplingParams(max_tokens=64, temperature=0.0)
>>> params.key()
'{"max_tokens":64,"seed":null,"temperature":0.0,"top_p":null}'
>>> Response(text="The answer is: Yes", finish_reason="stop").truncated
False
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from twosat_formal.errors import TransientModelError

__all__ = ["ClosingModel", "Model", "Response", "SamplingParams", "TransientModelError"]


@dataclass(frozen=True)
class SamplingParams:
    """Sampling parameters of one request (the sample index is not one of them)."""

    max_tokens: int = 4096
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None

    def key(self) -> str:
        """Canonical JSON of the parameters: part of a request's store key."""
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Response:
    """What a model answered to one prompt."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None

    @property
    def truncated(self) -> bool:
        """Whether the answer was cut by the token limit (finish reason ``length``)."""
        return self.finish_reason == "length"


@runtime_checkable
class Model(Protocol):
    """A model that answers prompts.

    ``spec`` is the spec string it was loaded from (``ref/oracle``,
    ``openai/gpt-4o-mini``...) and ``endpoint`` where it runs (a base URL, or
    ``"local"``); both are part of a request's store key. API keys are never part
    of either.
    """

    spec: str
    endpoint: str

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        """Answer ``prompt``; ``sample`` is the sample index (seeds reference models)."""
        ...

    async def aclose(self) -> None:
        """Release what the model holds (HTTP clients, a server subprocess)."""
        ...


class ClosingModel:
    """Mixin: ``async with model:`` closes the model (calls ``aclose``) on the way out."""

    async def aclose(self) -> None:
        """Release what the model holds; nothing by default."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
