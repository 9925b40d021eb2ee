"""The one interface every model implements, and the records it exchanges (core layer).

Implementations (reference reasoners, the OpenAI-compatible client, llama.cpp) and
the wrappers that add retrying and caching to any model live in
:mod:`twosat_formal.evaluate.models`; code in lower layers (the story verbalizer) depends on
this protocol only and is handed a model by its caller.

A model sees only the prompt text. It is called as ``await model.generate(prompt,
params)`` and answers with a :class:`Response`. Failures that are worth retrying
(HTTP 429 and 5xx, time-outs, dropped connections) raise :class:`TransientModelError`;
failures that are not raise :class:`~twosat_formal.errors.EvaluationError`. Retrying
is a wrapper's job (:class:`twosat_formal.evaluate.models.retry.RetryingModel`), not the model's.

**Conversations.** A model whose ``chat`` attribute is true also implements
:class:`ChatModel`: ``await model.converse(turns, params)`` sends a conversation as
separate messages, the earlier turns (``("user", text)``, ``("assistant", text)``)
before the last user turn, as a chat endpoint takes them. A model without it (a
completion endpoint, a reference reasoner) takes one prompt text only; its caller
renders the conversation into one (the story verbalizer writes a ``User:`` /
``Assistant:`` transcript). :func:`takes_messages` tells the two apart, and
:func:`conversation_key` is the canonical text of a conversation, for cache keys.

Examples
--------
>>> params = SamplingParams(max_tokens=64, temperature=0.0)
>>> params.key()
'{"max_tokens":64,"seed":null,"temperature":0.0,"top_p":null}'
>>> Response(text="The answer is: Yes", finish_reason="stop").truncated
False
>>> conversation_key([("user", "Hi"), ("assistant", "Hello.")])
'[["user","Hi"],["assistant","Hello."]]'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Annotated, Literal, Protocol, runtime_checkable
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit, urlunsplit

from pydantic import Field

from twosat_formal._util.registry import set_twice
from twosat_formal.core.jsonread import loads
from twosat_formal.core.params import MUST, Rule, check, rules_table
from twosat_formal.errors import ConfigError, RecordError, TransientModelError

__all__ = [
    "BODY_FIELDS",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODE",
    "MAX_SEED",
    "MAX_TOKENS",
    "REASONING_EFFORTS",
    "ROLES",
    "SAMPLING",
    "SAMPLING_RULES",
    "ChatModel",
    "Model",
    "Response",
    "SamplingParams",
    "SecretMask",
    "TransientModelError",
    "Turn",
    "conversation_key",
    "extra_body",
    "join_url",
    "public_endpoint",
    "redact_url",
    "url_secrets",
]

#: The token budget of every model in the paper's Table 4 (Phi-4-reasoning and -plus
#: ran with 16,384: give them ``?max_tokens=16384`` in their spec).
DEFAULT_MAX_TOKENS = 32768
#: The request dialect of an OpenAI-compatible or llama.cpp model unless a spec names one.
DEFAULT_MODE = "chat"


#: The largest seed and token budget a request carries (a server's 64-bit and 32-bit
#: integers; ``seed + sample`` must fit as well).
MAX_SEED = 2**62
MAX_TOKENS = 2**31 - 1

#: The values of ``reasoning_effort`` (OpenAI's reasoning models; vLLM passes it on).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")
#: A token limit (``max_tokens``, and ``max_completion_tokens``, its newer name).
_TOKENS = Rule(Annotated[int, Field(ge=1, le=MAX_TOKENS)], f"an integer in [1, {MAX_TOKENS}]", MUST)
#: What each sampling parameter may be: ``name ->`` :class:`~twosat_formal.core.params.Rule`,
#: the type a pydantic one with its bounds; the one rule for :class:`SamplingParams`,
#: ``--temperature``/``--top-p``/``--seed``/``--max-tokens`` and a model spec's
#: ``?temperature=...`` options (:data:`SAMPLING`).
SAMPLING_RULES: dict[str, Rule] = {
    "max_tokens": _TOKENS,
    "max_completion_tokens": _TOKENS,
    "temperature": Rule(
        Annotated[float, Field(ge=0, allow_inf_nan=False)], "a finite number >= 0", MUST
    ),
    "top_p": Rule(
        Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)], "a number in (0, 1]", MUST
    ),
    "seed": Rule(Annotated[int, Field(ge=0, le=MAX_SEED)], f"an integer in [0, {MAX_SEED}]", MUST),
    "reasoning_effort": Rule(
        Literal[REASONING_EFFORTS], "one of " + ", ".join(REASONING_EFFORTS), MUST
    ),
}
#: The table of :data:`SAMPLING_RULES` (:mod:`twosat_formal.core.params`).
SAMPLING = rules_table("sampling", SAMPLING_RULES)


@dataclass(frozen=True)
class SamplingParams:
    """Sampling parameters of one request (the sample index is not one of them).

    The fields of reasoning models are unset by default: ``max_completion_tokens``
    (sent instead of ``max_tokens``, which OpenAI's reasoning models refuse),
    ``reasoning_effort`` (one of :data:`REASONING_EFFORTS`) and ``extra_body``, more
    fields of the request body as ``(key, JSON text)`` pairs sorted by key
    (:func:`extra_body`).
    """

    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    max_completion_tokens: int | None = None
    reasoning_effort: str | None = None
    extra_body: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        given = {name: getattr(self, name) for name in SAMPLING_RULES}
        given = {name: value for name, value in given.items() if value is not None}
        check(SAMPLING, SAMPLING_RULES, given)
        for key, text in self.extra_body:
            if key in BODY_FIELDS:
                raise ConfigError(
                    f"the body field {key!r} is set by its own option, not as an extra field",
                    parameter="body",
                    valid=f"a field other than {', '.join(BODY_FIELDS)}",
                )
            if key in HONOURED_ONLY:  # as extra_body refuses it, for pairs given here
                _honoured(key, _body_value(key, text))

    def key(self) -> str:
        """Canonical JSON of the parameters: part of a request's store key.

        The fields of reasoning models appear only when set, so the key of parameters
        without them is the same as before they existed.
        """
        fields = asdict(self)
        for name in ("max_completion_tokens", "reasoning_effort"):
            if fields[name] is None:
                del fields[name]
        extra = fields.pop("extra_body")
        if extra:
            fields["extra_body"] = {k: json.loads(v) for k, v in extra}
        return json.dumps(fields, sort_keys=True, separators=(",", ":"))


#: Body fields made from the request and its parameters: never extra fields.
BODY_FIELDS = (
    "model",
    "messages",
    "prompt",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "seed",
    "reasoning_effort",
)


#: Body fields whose other values no request of the pipeline honours: the value it
#: reads (``None``: any value is refused) and why. ``n`` above 1 asks for choices of
#: which only the first would be scored (``--samples`` asks for more); a stream is
#: not one JSON reply (and no Batch API streams); ``echo`` puts the prompt before the
#: answer, which would be scored as the answer; ``stream_options`` is for a stream.
HONOURED_ONLY: dict[str, tuple[object, str]] = {
    "n": (1, "only the first choice is scored; ask for more samples with --samples"),
    "stream": (False, "a streamed reply is not one JSON reply, and a batch cannot stream"),
    "stream_options": (None, "replies are not streamed"),
    "echo": (False, "the echoed prompt would be scored as the answer"),
}


def _honoured(key: str, value: object) -> None:
    """Refuse body field ``key`` = ``value`` where the pipeline cannot honour it."""
    if key not in HONOURED_ONLY:
        return
    read, why = HONOURED_ONLY[key]
    if read is None or type(value) is not type(read) or value != read:
        shown = json.dumps(value, ensure_ascii=False)
        raise ConfigError(
            f"body field {key!r} = {shown} cannot be honoured: {why}",
            parameter="body",
            valid="leave it out" if read is None else f"{key}={json.dumps(read)} or leave it out",
        )


def _body_value(key: str, raw: str) -> object:
    """The value of ``--body KEY=RAW``: the JSON ``raw`` is, else the string ``raw``.

    JSON is read by the project's one reader (:mod:`twosat_formal.core.jsonread`): a
    text Python reads as JSON that the reader refuses (an object with a key twice,
    ``NaN``, a number beyond a double) is an error naming the field, never sent as
    one copy or as a value that is not JSON.
    """
    try:
        json.loads(raw)
    except ValueError:
        return raw
    try:
        return loads(raw, source="--body")
    except RecordError as exc:
        reason = str(exc).partition(": ")[2]
        raise ConfigError(f"body field {key!r}: {reason}", parameter="body") from None


def extra_body(pairs: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE`` texts as :attr:`SamplingParams.extra_body`: a value that is JSON is
    that JSON value, any other is a string.

    >>> extra_body(["top_k=20", 'chat_template_kwargs={"enable_thinking": false}', "user=me"])
    (('chat_template_kwargs', '{"enable_thinking":false}'), ('top_k', '20'), ('user', '"me"'))
    >>> extra_body(["top_k"])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: body field 'top_k' is not KEY=VALUE
    >>> extra_body(['logit_bias={"1": 1, "1": 2}'])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: body field 'logit_bias': the key '1' appears twice in \
one object
    >>> extra_body(["n=3"])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: body field 'n' = 3 cannot be honoured: only the first \
choice is scored; ask for more samples with --samples
    """
    found: dict[str, str] = {}
    for pair in pairs:
        key, equals, raw = pair.partition("=")
        key = key.strip()
        if not equals or not key:
            raise ConfigError(f"body field {pair!r} is not KEY=VALUE", parameter="body")
        if key in found:
            raise set_twice(key, where="in --body", parameter="body")
        value = _body_value(key, raw)
        _honoured(key, value)
        found[key] = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return tuple(sorted(found.items()))


@dataclass(frozen=True)
class Response:
    """What a model answered to one prompt.

    ``reasoning`` is the reasoning a server sends beside the answer
    (``reasoning_content`` or ``reasoning``), when it sends one; it is kept, never
    scored: the answer is ``text``.
    """

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    reasoning: str | None = None

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


#: The roles of a conversation's turns.
ROLES = ("user", "assistant")

#: One turn of a conversation: its role (one of :data:`ROLES`) and its text.
Turn = tuple[str, str]


@runtime_checkable
class ChatModel(Model, Protocol):
    """A model that can take a conversation as messages (a chat endpoint).

    ``chat`` says whether it does now: a client in completion mode has the method
    but not the dialect. Call :func:`takes_messages` rather than reading it.
    """

    chat: bool

    async def converse(
        self, turns: Sequence[Turn], params: SamplingParams, sample: int = 0
    ) -> Response:
        """Answer the conversation ``turns`` (its last turn is the user's)."""
        ...


def takes_messages(model: object) -> bool:
    """Whether ``model`` takes a conversation as messages (:class:`ChatModel` with ``chat``).

    >>> class Plain:
    ...     spec, endpoint = "test/plain", "local"
    ...     async def generate(self, prompt, params, sample=0): ...
    ...     async def aclose(self): ...
    >>> takes_messages(Plain())
    False
    """
    return isinstance(model, ChatModel) and bool(model.chat)


def conversation_key(turns: Sequence[Turn]) -> str:
    """The canonical text of a conversation: compact JSON of its ``[role, text]`` pairs.

    A cache keyed by it does not confuse a conversation sent as messages with the same
    conversation rendered into one transcript text.
    """
    return json.dumps([[role, text] for role, text in turns], separators=(",", ":"))


@lru_cache(maxsize=256)  # called for every stored result with a handful of distinct values
def public_endpoint(endpoint: str) -> str:
    """``endpoint`` without user information, query, fragment or trailing slash.

    Secrets hide in the first three. This is the one function every URL goes through
    before it reaches a store, a log, an export, an error message or the screen.
    Values that are not URLs (``"local"``) come back unchanged.

    >>> public_endpoint("https://me:sk-123@api.example.org/v1/?key=sk-123#x")
    'https://api.example.org/v1'
    >>> public_endpoint("http://[::1]:8080/v1?token=t")
    'http://[::1]:8080/v1'
    >>> public_endpoint("local")
    'local'
    """
    parts = urlsplit(endpoint.strip())
    if not parts.scheme or not parts.netloc:
        return endpoint
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: keep none of it
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")).rstrip("/")


def join_url(base: str, path: str) -> str:
    """``path`` appended to the path of ``base``, its query and fragment kept at the end.

    What is sent to a server; print or store only :func:`public_endpoint` of it.

    >>> join_url("http://127.0.0.1:8000/v1?key=SECRET", "chat/completions")
    'http://127.0.0.1:8000/v1/chat/completions?key=SECRET'
    >>> join_url("https://u:p@example.org/v1/", "/completions")
    'https://u:p@example.org/v1/completions'
    """
    parts = urlsplit(base.strip())
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, parts.fragment))


#: A query value shorter than this is not taken for a credential on its own
#: (``?mode=completion`` does not mask ``completion`` everywhere); the whole query is
#: always masked, and so are the key and the URL's user information.
_MIN_SECRET_VALUE = 8


def _echo_pattern(plain: str) -> str:
    """A pattern of ``plain`` in which each character may come back escaped.

    A character may be percent-escaped (either case of hex digit), a ``/`` escaped
    in a JSON string (``\\/``), a space as ``+``; in any mix.
    """
    parts = []
    for char in plain:  # the escaped forms first: "%" must take all of "%25"
        escaped = "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        options = ["".join(f"[{d}{d.lower()}]" if d.isalpha() else d for d in escaped)]
        if char == "/":
            options.append(r"\\/")
        elif char == " ":
            options.append(r"\+")
        options.append(re.escape(char))
        parts.append("(?:" + "|".join(options) + ")")
    return "".join(parts)


class SecretMask:
    """Masks ``secrets`` with ``***`` in a text, in every form they may come back in.

    A secret comes back as sent, percent-decoded or percent-escaped (``/`` as ``%2F``
    or ``%2f``, a space as ``+``, any mix of escaped and plain characters), or escaped
    inside a JSON string (``\\/``). A text without ``%``, ``\\`` or ``+`` is searched
    only when it holds a secret as it is (a substring test per secret).

    >>> mask = SecretMask(["sk-a/b c"])
    >>> mask("key=sk-a%2Fb%20c or sk-a/b+c or sk-a%2fb c or sk-a\\\\/b c; sk-a fine")
    'key=*** or *** or *** or ***; sk-a fine'
    >>> SecretMask([])("nothing to hide")
    'nothing to hide'
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        plains = set()
        for secret in filter(None, secrets):
            plains.add(secret)
            # the decoded forms, unless decoding made a short text of it ("%41" is "A")
            plains.update(
                p for p in (unquote_plus(secret), unquote(secret)) if len(p) >= _MIN_SECRET_VALUE
            )
        patterns = sorted(plains, key=lambda p: (-len(p), p))
        self._pattern = (
            re.compile("|".join(_echo_pattern(p) for p in patterns)) if patterns else None
        )
        self._plains = tuple(patterns)

    def __call__(self, text: str) -> str:
        """``text`` with every form of every secret replaced by ``***``."""
        if self._pattern is None:
            return text
        if not ("%" in text or "\\" in text or "+" in text) and not any(
            plain in text for plain in self._plains
        ):
            return text  # no escapes: only a secret as it is could be there
        return self._pattern.sub("***", text)


def url_secrets(url: str) -> list[str]:
    """The secrets of ``url``: user, password, query and its values, fragment.

    >>> url_secrets("http://u:pw@h/v1?key=SECRET-42&mode=chat")
    ['key=SECRET-42&mode=chat', '', 'pw', 'u', 'SECRET-42']
    """
    parts = urlsplit(url.strip())
    values = [v for _, v in parse_qsl(parts.query, keep_blank_values=True)]
    secrets = [parts.query, parts.fragment, parts.password or "", parts.username or ""]
    return secrets + [v for v in values if len(v) >= _MIN_SECRET_VALUE]


def redact_url(text: str, url: str) -> str:
    """``text`` with the secrets of ``url`` (user, password, query, fragment) masked.

    For messages that may echo what was sent (an HTTP client's error, a server's
    error body), in any of the forms of :class:`SecretMask`.

    >>> redact_url("404: no route /v1/chat?key=SECRET", "http://h/v1?key=SECRET")
    '404: no route /v1/chat?***'
    >>> redact_url("no route /v1/chat?key=sk%2Fab&mode=chat", "http://h/v1?key=sk/ab&mode=chat")
    'no route /v1/chat?***'
    >>> redact_url("fine", "http://h/v1")
    'fine'
    """
    return SecretMask(url_secrets(url))(text)
