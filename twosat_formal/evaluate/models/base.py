"""What model implementations share: the ``async with`` mixin and a spec's sampling options.

The protocol itself (:class:`Model`, :class:`Response`, :class:`SamplingParams`) is
the core module :mod:`twosat_formal.core.model`; its names and
:class:`~twosat_formal.errors.TransientModelError` are importable from here too.
:func:`sampling_for` is the one place a spec's ``?max_tokens=...&temperature=...``
becomes sampling parameters; :func:`run_requests` is the one way a run of requests gets
its own event loop.

Examples
--------
>>> params = SamplingParams(max_tokens=64, temperature=0.0)
>>> sampling_for("openai/phi-4-reasoning?max_tokens=16384&temperature=0.8", params)
SamplingParams(max_tokens=16384, temperature=0.8, top_p=None, seed=None, \
max_completion_tokens=None, reasoning_effort=None, extra_body=())
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Annotated, Any, Self, TypeVar
from urllib.parse import parse_qsl

from twosat_formal.core.model import (
    DEFAULT_MAX_TOKENS,
    SAMPLING_RULES,
    ChatModel,
    Model,
    Response,
    SamplingParams,
    Turn,
    takes_messages,
)
from twosat_formal.core.params import Rule, check, from_text, rules_table
from twosat_formal.errors import ConfigError, TransientModelError

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_TIMEOUT_S",
    "OPTION_MESSAGE",
    "OPTION_RULES",
    "SAMPLING_OPTIONS",
    "SAMPLING_TEXT",
    "ClosingModel",
    "Model",
    "OnePathModel",
    "Response",
    "SamplingParams",
    "TransientModelError",
    "WrappedModel",
    "check_timeout",
    "run_requests",
    "sampling_for",
    "sampling_options",
    "send",
    "spec_option",
]

#: Seconds one request may take (connect, send, wait, read) before it is retried
#: (``eval --timeout``).
DEFAULT_TIMEOUT_S = 300.0
#: Spec options (``openai/m?max_tokens=16384&temperature=0.8``) that every kind of
#: model takes: they set the model's sampling parameters, not how it is built.
SAMPLING_OPTIONS: tuple[str, ...] = (
    "max_tokens",
    "temperature",
    "top_p",
    "seed",
    "max_completion_tokens",
    "reasoning_effort",
)


#: How a spec's text becomes each sampling parameter, before its rule is checked.
_READ: dict[str, Callable[[str], object]] = {
    "max_tokens": int,
    "max_completion_tokens": int,
    "seed": int,
    "temperature": float,
    "top_p": float,
    "reasoning_effort": str,
}
#: The message of a spec option's rule: ``option budget='x' is not an integer >= 1``.
OPTION_MESSAGE = "option {key}={value!r} is not {valid}"


def spec_option(rule: Rule, read: Callable[[str], object]) -> Rule:
    """``rule`` over a spec's text, read by ``read`` first, with :data:`OPTION_MESSAGE`.

    >>> from twosat_formal.core.params import COUNT
    >>> spec_option(COUNT, int).message
    'option {key}={value!r} is not {valid}'
    """
    return Rule(Annotated[rule.type, from_text(read)], rule.valid, OPTION_MESSAGE)


#: :data:`~twosat_formal.core.model.SAMPLING_RULES` over a spec's text (``?max_tokens=16384``):
#: ``name ->`` :class:`~twosat_formal.core.params.Rule`; a kind of model adds its own.
OPTION_RULES: dict[str, Rule] = {
    name: spec_option(rule, _READ[name]) for name, rule in SAMPLING_RULES.items()
}
#: The table of :data:`OPTION_RULES`: a spec's sampling options, read from text.
SAMPLING_TEXT = rules_table("sampling options", OPTION_RULES)


_T = TypeVar("_T")


def run_requests(run: Coroutine[Any, Any, _T]) -> _T:
    """``run`` (a run of model requests: ``eval``, stories, a judge) to its end in an
    event loop of its own, as :func:`asyncio.run` runs it, whose handler of the errors
    no task retrieved is :func:`_quiet_interrupts`.

    >>> async def answer() -> int:
    ...     return 42
    >>> run_requests(answer())
    42
    """
    with asyncio.Runner() as runner:
        runner.get_loop().set_exception_handler(_quiet_interrupts)
        return runner.run(run)


def _quiet_interrupts(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The handler of the errors no task retrieved, on the loop :func:`run_requests`
    runs: a ``KeyboardInterrupt`` (Ctrl-C, or SIGTERM, which a run reports as
    interrupted) left in a request's task as the run stops is not printed again as a
    traceback; every other error is printed as asyncio prints it.

    >>> loop = asyncio.new_event_loop()
    >>> _quiet_interrupts(loop, {"message": "stopped", "exception": KeyboardInterrupt()})
    >>> loop.close()
    """
    if isinstance(context.get("exception"), KeyboardInterrupt):
        return
    loop.default_exception_handler(context)


def check_timeout(timeout_s: float) -> None:
    """Refuse (:class:`ConfigError`) a request time-out that is not a finite positive number
    of seconds."""
    if not (timeout_s > 0 and math.isfinite(timeout_s)):
        raise ConfigError(
            f"timeout must be a finite positive number of seconds, got {timeout_s}",
            parameter="timeout_s",
            valid="a finite number > 0",
        )


def sampling_options(options: Mapping[str, object]) -> dict[str, Any]:
    """The sampling parameters among a spec's options, checked and typed.

    >>> sampling_options({"max_tokens": "16384", "mode": "chat", "top_p": "0.9"})
    {'max_tokens': 16384, 'top_p': 0.9}
    >>> sampling_options({"temperature": "hot"})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: option temperature='hot' is not a finite number >= 0
    """
    given = {key: options[key] for key in SAMPLING_OPTIONS if key in options}
    return check(SAMPLING_TEXT, OPTION_RULES, given)


def sampling_for(spec: str, base: SamplingParams) -> SamplingParams:
    """``base`` with the sampling options of a model spec's query applied.

    This is the one place a spec's ``?max_tokens=...&temperature=...&top_p=...&seed=...``
    becomes sampling parameters, for every kind of model (a spec without options, or
    one of a model kind this package does not know, leaves ``base`` as it is).

    >>> sampling_for("ref/oracle", SamplingParams(max_tokens=8)).max_tokens
    8
    >>> sampling_for("llamacpp/m.gguf?n_ctx=4096&max_tokens=512", SamplingParams()).max_tokens
    512
    """
    _, _, query = spec.partition("?")
    if not query:
        return base
    try:
        pairs = dict(parse_qsl(query, keep_blank_values=True))
    except ValueError:
        return base
    found = sampling_options(pairs)
    return replace(base, **found) if found else base


async def send(
    model: Model, prompt: str | Sequence[Turn], params: SamplingParams, sample: int = 0
) -> Response:
    """Ask ``model`` one prompt text, or a conversation as messages.

    What a wrapper calls on the model it wraps, so that it passes conversations on.
    A conversation needs a model that takes messages
    (:func:`~twosat_formal.core.model.takes_messages`); :class:`ConfigError` otherwise.

    >>> import asyncio
    >>> class Echo:
    ...     spec, endpoint = "test/echo", "local"
    ...     async def generate(self, prompt, params, sample=0):
    ...         return Response(prompt)
    ...     async def aclose(self): ...
    >>> asyncio.run(send(Echo(), "Hi", SamplingParams())).text
    'Hi'
    """
    if isinstance(prompt, str):
        return await model.generate(prompt, params, sample)
    if not takes_messages(model):
        raise ConfigError(
            f"{model.spec} takes one prompt text, not a conversation", parameter="messages"
        )
    assert isinstance(model, ChatModel)
    return await model.converse(prompt, params, sample)


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


class OnePathModel(ClosingModel):
    """A :class:`ClosingModel` that answers prompts and conversations by one method.

    :meth:`generate` and :meth:`converse` both call ``_answer``, with the prompt text
    or the list of turns; a subclass defines ``_answer`` (and ``chat``, which says
    whether a conversation may be sent).

    >>> import asyncio
    >>> class Echo(OnePathModel):
    ...     spec, endpoint, chat = "test/echo", "local", True
    ...     async def _answer(self, prompt, params, sample):
    ...         return Response(text=str(prompt))
    >>> asyncio.run(Echo().generate("hi", SamplingParams())).text
    'hi'
    """

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        """Answer the prompt text ``prompt``."""
        return await self._answer(prompt, params, sample)

    async def converse(
        self, turns: Sequence[Turn], params: SamplingParams, sample: int = 0
    ) -> Response:
        """Answer the conversation ``turns``, sent as messages."""
        return await self._answer(list(turns), params, sample)

    async def _answer(
        self, prompt: str | list[Turn], params: SamplingParams, sample: int
    ) -> Response:
        raise NotImplementedError


class WrappedModel(OnePathModel):
    """A :class:`OnePathModel` around another ``model``: it answers as that model (its
    ``spec`` and ``endpoint``), takes a conversation where that model does, and closes
    it; a subclass defines ``_answer``, which asks it by :func:`send`."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.spec = model.spec
        self.endpoint = model.endpoint

    @property
    def chat(self) -> bool:
        """Whether the wrapped model takes conversations as messages."""
        return takes_messages(self.model)

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.model.aclose()
