"""A client for any OpenAI-compatible server (hosted APIs, vLLM, llama.cpp, Ollama).

The client speaks two dialects of the same API:

* **chat** mode posts ``{"messages": [{"role": "user", "content": PROMPT}]}`` to
  ``BASE_URL/chat/completions`` and reads ``choices[0].message.content``; a
  conversation (:meth:`OpenAICompatModel.converse`) is posted as one message per turn,
  earlier answers as ``assistant`` messages;
* **completion** mode posts ``{"prompt": PROMPT}`` to ``BASE_URL/completions`` and
  reads ``choices[0].text``.

Both send ``max_tokens`` and, when they are set, ``temperature``, ``top_p`` and
``seed`` (sample ``k`` of a seeded request is sent with seed ``seed + k``, so that
repeated samples are distinct draws and each one is reproducible). ``finish_reason``
and ``usage`` are read from the reply, and the latency is measured around the request.

Requests go through one :mod:`aiohttp` session per model, opened on the first request
(inside the running event loop) and closed by :meth:`OpenAICompatModel.aclose`. Its
connection pool is unbounded: the runner's semaphore is what limits requests in
flight. Connections are kept alive and reused, so a run at concurrency ``N`` holds
about ``N`` connections to the server.

Errors are sorted for the runner: HTTP 408, 429 and 5xx, time-outs and dropped
connections raise :class:`~twosat_formal.errors.TransientModelError` (with the
server's ``Retry-After`` hint, through :func:`~twosat_formal.errors.request_error`). What
asking again will not heal, a refused connection, an unknown host and HTTP 401, 403 and
404, raises :class:`~twosat_formal.errors.EndpointError`
(:class:`~twosat_formal.errors.RefusedRequestError` for the HTTP statuses), which stops
an evaluation at once. Any other HTTP error and any reply that is not the expected JSON
raise :class:`~twosat_formal.errors.ModelHTTPError` /
:class:`~twosat_formal.errors.EvaluationError`.

The API key is read from the environment (``OPENAI_API_KEY``, or the variable named
by ``api_key_env``) and only ever travels in the ``Authorization`` header: it is not
part of :attr:`OpenAICompatModel.spec`, :attr:`OpenAICompatModel.endpoint`, the
``repr`` or any error message.

Examples
--------
>>> model = OpenAICompatModel("gpt-4o-mini", base_url="http://127.0.0.1:8000/v1/")
>>> model.spec, model.endpoint, model.mode
('openai/gpt-4o-mini', 'http://127.0.0.1:8000/v1', 'chat')
>>> request_body("completion", "m", "Hi", SamplingParams(max_tokens=8, seed=3), sample=2)
{'model': 'm', 'prompt': 'Hi', 'max_tokens': 8, 'seed': 5}
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import json
import os
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import SplitResult, urlsplit, urlunsplit

from twosat_formal.core.model import (
    DEFAULT_MODE,
    ROLES,
    SecretMask,
    Turn,
    join_url,
    public_endpoint,
    url_secrets,
)
from twosat_formal.core.params import MAX_STORED, MUST, Rule, check, rules_table
from twosat_formal.errors import (
    FINAL_STATUS,
    ConfigError,
    EvaluationError,
    ModelHTTPError,
    RefusedRequestError,
    TransientModelError,
    request_error,
)
from twosat_formal.evaluate.models.base import (
    DEFAULT_TIMEOUT_S,
    OnePathModel,
    Response,
    SamplingParams,
    check_timeout,
)
from twosat_formal.evaluate.models.bounded import (
    ACCEPT_ENCODING,
    MAX_REPLY_BYTES,
    check_text,
    load_reply,
    read_body,
)

if TYPE_CHECKING:  # imported where it is used: the CLI starts faster without it
    import aiohttp

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT_S",
    "MODES",
    "MODE_RULE",
    "UNKNOWN_MODE_RULE",
    "ModelHTTPError",
    "OpenAICompatModel",
    "RefusedRequestError",
    "check_mode",
    "parse_reply",
    "parse_responses_reply",
    "parse_retry_after",
    "request_body",
]

#: Where requests go when neither ``base_url`` nor ``OPENAI_BASE_URL`` is set.
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The two request dialects.
MODES = (DEFAULT_MODE, "completion")
#: The rule of a ``mode`` option (:class:`~twosat_formal.core.params.Rule`): one of
#: :data:`MODES`; an owner with its own words replaces the message.
MODE_RULE = Rule(Literal[MODES], " or ".join(MODES), MUST)
#: :data:`MODE_RULE` in the words of a mode named alone (:func:`check_mode`, a model's
#: ``mode``, ``eval --mode``, a batch's ``mode``): ``unknown mode 'fax'``.
UNKNOWN_MODE_RULE = MODE_RULE._replace(message="unknown mode {value!r}")
_MODE = {"mode": UNKNOWN_MODE_RULE}
_MODE_TABLE = rules_table("mode", _MODE)

Mode = Literal["chat", "completion"]

_TRANSIENT_STATUS = frozenset({408, 429})
#: Where a prompt text goes in an encoded request body (a text no prompt holds).
_PROMPT_SLOT = "\x00twosat-formal prompt\x00"
_PROMPT_SLOT_JSON = json.dumps(_PROMPT_SLOT)
#: Encoded request bodies kept per model (parameters and seeded sample indices).
_MAX_TEMPLATES = 256
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
_DETAIL_CHARS = 300


def request_body(
    mode: str,
    model_id: str,
    prompt: str | Sequence[Turn],
    params: SamplingParams,
    sample: int = 0,
) -> dict[str, Any]:
    """The JSON body of one request in ``mode`` (``"chat"`` or ``"completion"``).

    ``prompt`` is one text, or (chat mode only) a conversation: ``(role, text)``
    turns, sent as one message each. Unset parameters (``None``) are left out, so the
    server's defaults apply; a set ``seed`` is sent as ``seed + sample``. A set
    ``max_completion_tokens`` is sent instead of ``max_tokens`` (OpenAI's reasoning
    models refuse ``max_tokens``), then ``reasoning_effort`` and the extra body fields.

    Examples
    --------
    >>> request_body("chat", "m", "Hi", SamplingParams(max_tokens=4, temperature=0.0))
    {'model': 'm', 'messages': [{'role': 'user', 'content': 'Hi'}], 'max_tokens': 4, \
'temperature': 0.0}
    >>> request_body("chat", "m", [("user", "Hi"), ("assistant", "Hello."), ("user", "More")],
    ...              SamplingParams(max_tokens=4))["messages"][1]
    {'role': 'assistant', 'content': 'Hello.'}
    >>> from twosat_formal.core.model import extra_body
    >>> params = SamplingParams(max_completion_tokens=900, reasoning_effort="low",
    ...                         extra_body=extra_body(["top_k=20"]))
    >>> request_body("completion", "o3-mini", "Hi", params)
    {'model': 'o3-mini', 'prompt': 'Hi', 'max_completion_tokens': 900, \
'reasoning_effort': 'low', 'top_k': 20}
    """
    check_mode(mode)
    body: dict[str, Any] = {"model": model_id}
    if mode == "chat":
        turns = _turns(prompt)
        body["messages"] = [{"role": role, "content": text} for role, text in turns]
    elif isinstance(prompt, str):
        body["prompt"] = prompt
    else:
        raise ConfigError(
            "completion mode takes one prompt text, not a conversation",
            parameter="mode",
            valid="chat",
        )
    if params.max_completion_tokens is not None:
        body["max_completion_tokens"] = params.max_completion_tokens
    else:
        body["max_tokens"] = params.max_tokens
    optional = {
        "temperature": params.temperature,
        "top_p": params.top_p,
        "seed": None if params.seed is None else params.seed + sample,
        "reasoning_effort": params.reasoning_effort,
    }
    body.update((key, value) for key, value in optional.items() if value is not None)
    for key, value in params.extra_body:
        body[key] = json.loads(value)
    return body


def check_mode(mode: str) -> None:
    """Raise :class:`~twosat_formal.errors.ConfigError` for a mode not in :data:`MODES`
    (:data:`UNKNOWN_MODE_RULE`).

    >>> check_mode("fax")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: unknown mode 'fax'
    """
    check(_MODE_TABLE, _MODE, {"mode": mode})


def _turns(prompt: str | Sequence[Turn]) -> Sequence[Turn]:
    """The chat turns of ``prompt``: one user turn for a text, else the checked conversation."""
    if isinstance(prompt, str):
        return [("user", prompt)]
    if not prompt or prompt[-1][0] != "user" or any(role not in ROLES for role, _ in prompt):
        raise ConfigError(
            "a conversation is user and assistant turns ending with a user turn",
            parameter="messages",
        )
    return prompt


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date).

    Examples
    --------
    >>> parse_retry_after("2.5")
    2.5
    >>> now = datetime(2024, 1, 1, 0, 0, 0, tzinfo=UTC)
    >>> parse_retry_after("Mon, 01 Jan 2024 00:00:07 GMT", now=now)
    7.0
    >>> parse_retry_after("soon") is None
    True
    """
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds or seconds in (float("inf"), float("-inf")):  # NaN or infinite
        return None
    return max(0.0, seconds)


def parse_reply(mode: str, payload: object, latency_s: float | None = None) -> Response:
    """Read text, finish reason, token usage and reasoning out of a decoded reply body.

    The reasoning is the message's ``reasoning_content`` (or ``reasoning``) when the
    server sends it.

    Raises :class:`~twosat_formal.errors.EvaluationError` when the body is not the
    shape the API promises.

    Examples
    --------
    >>> reply = {"choices": [{"text": "Yes", "finish_reason": "length"}],
    ...          "usage": {"prompt_tokens": 5, "completion_tokens": 1}}
    >>> parse_reply("completion", reply)
    Response(text='Yes', finish_reason='length', prompt_tokens=5, completion_tokens=1, \
latency_s=None, reasoning=None)
    >>> message = {"content": "No", "reasoning_content": "A implies not A."}
    >>> parse_reply("chat", {"choices": [{"message": message}]}).reasoning
    'A implies not A.'
    >>> parse_reply("chat", {"choices": []})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: malformed reply: no choices in the reply body
    """
    body = _json_object(payload)
    choice = _first_choice(body)
    part: Any = choice
    if mode == "chat":
        part = choice.get("message")
        if not isinstance(part, dict):
            raise EvaluationError("malformed reply: the choice has no message object")
    text = _text_field(part.get("content" if mode == "chat" else "text"))
    finish = choice.get("finish_reason")
    return _response(
        body,
        text,
        finish if isinstance(finish, str) else None,
        ("prompt_tokens", "completion_tokens"),
        latency_s,
        _reasoning_of(part),
    )


def _json_object(payload: object) -> dict[str, Any]:
    """``payload``, which must be a JSON object."""
    if not isinstance(payload, dict):
        raise EvaluationError("malformed reply: the body is not a JSON object")
    return payload


def _first_choice(payload: dict[str, Any]) -> dict[str, Any]:
    """The first of the reply's ``choices``."""
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise EvaluationError("malformed reply: no choices in the reply body")
    return choices[0]


def _text_field(text: object) -> str:
    """The answer text of a reply field (missing is empty), a string."""
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise EvaluationError("malformed reply: the answer text is not a string")
    return text


def _response(
    payload: dict[str, Any],
    text: str,
    finish: str | None,
    usage_fields: tuple[str, str],
    latency_s: float | None,
    reasoning: str | None,
) -> Response:
    """The :class:`Response` of a reply, its token counts read from ``usage``.

    Every text it keeps (the answer, the finish reason and the reasoning) must encode
    as UTF-8: a lone surrogate, which no store holds, fails the request.
    """
    usage = payload.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return Response(
        text=check_text(text, "the answer text"),
        finish_reason=None if finish is None else check_text(finish, "the finish reason"),
        prompt_tokens=_count(usage.get(usage_fields[0])),
        completion_tokens=_count(usage.get(usage_fields[1])),
        latency_s=latency_s,
        reasoning=None if reasoning is None else check_text(reasoning, "the reasoning"),
    )


#: Where servers put the reasoning beside the answer: vLLM, DeepSeek and llama.cpp
#: ``reasoning_content``, OpenRouter and Ollama ``reasoning``.
REASONING_FIELDS = ("reasoning_content", "reasoning")


def _reasoning_of(part: dict[str, Any]) -> str | None:
    """The reasoning text a message (or completion choice) carries, if any."""
    for name in REASONING_FIELDS:
        value = part.get(name)
        if isinstance(value, str) and value:
            return value
    return None


#: Why a Responses API reply stopped early, as a finish reason.
_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


def parse_responses_reply(payload: object, latency_s: float | None = None) -> Response:
    """Read a Responses API reply (``/v1/responses``): text, finish reason, token usage.

    The text is that of every ``output_text`` part of the ``message`` items of
    ``output``, in order, and the reasoning that of the ``reasoning`` items'
    summaries; an ``incomplete`` reply stopped by ``max_output_tokens`` has finish
    reason ``length`` (truncated), a ``completed`` one ``stop``.

    Raises :class:`~twosat_formal.errors.EvaluationError` when the body is not the
    shape the API promises.

    Examples
    --------
    >>> reply = {"object": "response", "status": "incomplete",
    ...          "incomplete_details": {"reason": "max_output_tokens"},
    ...          "output": [{"type": "message", "content": [
    ...              {"type": "output_text", "text": "The answer"}]}],
    ...          "usage": {"input_tokens": 9, "output_tokens": 2}}
    >>> parse_responses_reply(reply)
    Response(text='The answer', finish_reason='length', prompt_tokens=9, completion_tokens=2, \
latency_s=None, reasoning=None)
    >>> parse_responses_reply({"object": "response", "output": 3})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: malformed reply: 'output' is not a list
    """
    payload = _json_object(payload)
    output = payload.get("output")
    if not isinstance(output, list):
        raise EvaluationError("malformed reply: 'output' is not a list")
    texts: list[str] = []
    thoughts: list[str] = []
    for item in output:
        if not isinstance(item, dict):
            raise EvaluationError("malformed reply: an output item is not an object")
        if item.get("type") == "reasoning":
            thoughts.extend(_summary_texts(item))
        elif item.get("type") == "message":
            texts.extend(_output_texts(item))
    return _response(
        payload,
        "".join(texts),
        _responses_finish(payload),
        ("input_tokens", "output_tokens"),
        latency_s,
        "\n\n".join(thoughts) or None,
    )


def _summary_texts(item: dict[str, Any]) -> list[str]:
    """The texts of a Responses API ``reasoning`` item's summary parts."""
    parts = item.get("summary") or []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _output_texts(item: dict[str, Any]) -> list[str]:
    """The texts of a Responses API ``message`` item's ``output_text`` parts."""
    content = item.get("content")
    if not isinstance(content, list):
        raise EvaluationError("malformed reply: a message's content is not a list")
    texts = []
    for part in content:
        if not isinstance(part, dict):
            raise EvaluationError("malformed reply: a content part is not an object")
        if part.get("type") == "output_text":
            text = part.get("text")
            if not isinstance(text, str):
                raise EvaluationError("malformed reply: the answer text is not a string")
            texts.append(text)
    return texts


def _responses_finish(payload: dict[str, Any]) -> str | None:
    """The finish reason of a Responses API reply, from its ``status``."""
    status = payload.get("status")
    if status == "completed":
        return "stop"
    if status != "incomplete":
        return None
    details = payload.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return _INCOMPLETE.get(reason, reason) if isinstance(reason, str) else "incomplete"


def _count(value: object) -> int | None:
    """A ``usage`` figure as a token count: a whole number in
    [0, :data:`~twosat_formal.core.params.MAX_STORED`], anything else (a negative, a
    float, a string, a number no store holds) unreported.

    >>> _count(12), _count(-1), _count(2**63), _count(True), _count("12")
    (12, None, None, None, None)
    """
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STORED:
        return value
    return None


def _error_detail(body: bytes, mask: Callable[[str], str] = str) -> str:
    """The server's error message, trimmed (the OpenAI ``{"error": {"message"}}`` shape).

    A body that is not bounded JSON (:func:`~twosat_formal.evaluate.models.bounded.load_reply`)
    is shown as text; lone surrogates are escaped, and ``mask`` hides the secrets the
    server may echo before the text is trimmed.

    Examples
    --------
    >>> _error_detail(b'{"error": {"message": "rate   limited"}}')
    'rate limited'
    >>> _error_detail(b"<html>Bad Gateway</html>")
    '<html>Bad Gateway</html>'
    """
    try:
        payload = load_reply(body)
    except EvaluationError:
        text = body[: _DETAIL_CHARS * 4].decode("utf-8", "replace")
    else:
        error = payload.get("error") if isinstance(payload, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
        else:
            text = json.dumps(payload)
    text = " ".join(mask(check_text(text[: _DETAIL_CHARS * 4], "", strict=False)).split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 3] + "..."


def _check_settings(model_id: str, mode: str, timeout_s: float) -> None:
    """Raise :class:`~twosat_formal.errors.ConfigError` for an empty model id, an unknown
    mode or a time-out that is not a finite positive number."""
    if not model_id:
        raise ConfigError("the model id is empty", parameter="model", valid="openai/<model-id>")
    check_mode(mode)
    check_timeout(timeout_s)


def _http_url(url: str) -> SplitResult:
    """The parts of ``url``, which must be http(s) with a host and a port in 1-65535."""
    parts = urlsplit(url.strip())
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # not a number, or not in 0-65535
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise ConfigError(
            f"base URL {public_endpoint(url)!r} is not an http(s) URL with a port in 1-65535",
            parameter="base_url",
            valid="http(s)://HOST[:PORT]/PATH",
        )
    return parts


def _api_key(api_key_env: str | None) -> str | None:
    """The API key from the environment; a variable named explicitly must be set."""
    key = os.environ.get(api_key_env or "OPENAI_API_KEY")
    if api_key_env and not key:
        raise ConfigError(
            f"environment variable {api_key_env} (named as the API key) is not set",
            parameter="api_key_env",
            valid="the name of a set environment variable",
        )
    return key


def _request_base(url: str, parts: SplitResult, key: str | None) -> str:
    """What requests are sent to: ``url`` with its user information and query kept (never
    printed or stored), but an API key is the credential: then the user information goes."""
    if not key or parts.username is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


class OpenAICompatModel(OnePathModel):
    """A model behind an OpenAI-compatible HTTP API.

    Parameters
    ----------
    model_id:
        The ``model`` field of each request (``gpt-4o-mini``, a vLLM model name...).
    base_url:
        The API root, e.g. ``http://127.0.0.1:8000/v1``; defaults to ``OPENAI_BASE_URL``
        and then :data:`DEFAULT_BASE_URL`.
    api_key_env:
        Name of the environment variable holding the key (default ``OPENAI_API_KEY``).
        When it is named explicitly it must be set; the default may be unset, and then
        no ``Authorization`` header is sent (local servers need none).
    mode:
        ``"chat"`` or ``"completion"``.
    timeout_s:
        Seconds one request may take before it fails as transient.
    spec, endpoint:
        Override the store identity (used by the llama.cpp backend, whose port varies
        from run to run); by default ``openai/<model_id>`` and the public base URL.
    send_key:
        ``False`` never sends a key (a private local server must not receive the
        user's hosted-API key).
    max_reply_bytes:
        The largest reply body read, after decompression
        (:data:`~twosat_formal.evaluate.models.bounded.MAX_REPLY_BYTES`); a larger one fails
        the request.

    The key and the base URL's secrets are masked (``***``) in every error message
    and answer text, in the forms a server may echo them
    (:class:`~twosat_formal.core.model.SecretMask`).
    """

    def __init__(
        self,
        model_id: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        mode: str = DEFAULT_MODE,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        spec: str | None = None,
        endpoint: str | None = None,
        send_key: bool = True,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        _check_settings(model_id, mode, timeout_s)
        raw_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        parts = _http_url(raw_url)
        self.model_id = model_id
        self.mode: Mode = "chat" if mode == "chat" else "completion"
        self.timeout_s = float(timeout_s)
        self.base_url = public_endpoint(raw_url)
        self.spec = spec if spec is not None else f"openai/{model_id}"
        self.endpoint = endpoint if endpoint is not None else self.base_url
        key = _api_key(api_key_env) if send_key else None
        self._headers = {"Accept-Encoding": ACCEPT_ENCODING}
        if key:
            self._headers["Authorization"] = f"Bearer {key}"
        self._mask = SecretMask([*url_secrets(raw_url), *([key] if key else [])])
        self.max_reply_bytes = max_reply_bytes
        request_base = _request_base(raw_url.strip(), parts, key)
        # Loopback servers are never reached through a proxy from the environment.
        self._trust_env = parts.hostname not in _LOOPBACK_HOSTS
        import aiohttp
        import yarl

        # parsed once: every request of this model goes to the same URL
        self._url = yarl.URL(join_url(request_base, self.path))
        self._timeout = aiohttp.ClientTimeout(
            total=self.timeout_s, connect=min(self.timeout_s, 30.0)
        )
        self._session: aiohttp.ClientSession | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        self._where = f"{self.endpoint}/{self.path}"
        self._templates: dict[tuple[SamplingParams, int], tuple[bytes, bytes]] = {}

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(spec={self.spec!r}, endpoint={self.endpoint!r}, "
            f"mode={self.mode!r})"
        )

    @property
    def path(self) -> str:
        """The request path under the base URL for this mode."""
        return "chat/completions" if self.mode == "chat" else "completions"

    @property
    def chat(self) -> bool:
        """Whether :meth:`converse` sends messages (chat mode)."""
        return self.mode == "chat"

    async def _answer(
        self, prompt: str | list[Turn], params: SamplingParams, sample: int
    ) -> Response:
        """Send a prompt text, or a conversation as messages (chat mode only), and return
        the server's answer.

        Raises :class:`TransientModelError` for failures worth retrying,
        :class:`~twosat_formal.errors.ConfigError` for a conversation in completion mode
        and :class:`~twosat_formal.errors.EvaluationError` for the others; their
        messages never hold the base URL's user information or query.
        """
        try:
            response = await self._generate(prompt, params, sample)
        except EvaluationError as exc:
            exc.args = tuple(self.mask(a) if isinstance(a, str) else a for a in exc.args)
            for name in ("detail", "reason"):
                value = getattr(exc, name, None)
                if isinstance(value, str):
                    setattr(exc, name, self.mask(value))
            raise
        text = self.mask(response.text)
        return response if text is response.text else dataclasses.replace(response, text=text)

    def mask(self, text: str) -> str:
        """``text`` with the key and the base URL's secrets masked (``***``).

        >>> model = OpenAICompatModel("m", base_url="http://127.0.0.1:8000/v1?key=sk/12345678")
        >>> model.mask("no route /v1/completions?key=sk%2F12345678; key sk/12345678")
        'no route /v1/completions?***; key ***'
        """
        return self._mask(text)

    def body_bytes(
        self, prompt: str | Sequence[Turn], params: SamplingParams, sample: int = 0
    ) -> bytes:
        """The bytes of a request: ``json.dumps(request_body(...))``, encoded.

        A prompt text goes into the encoded body of its parameters (and, when they
        are seeded, sample), made once, so that only the prompt is encoded per request.

        >>> model = OpenAICompatModel("m", base_url="http://127.0.0.1:8000/v1")
        >>> print(model.body_bytes("Hi ü", SamplingParams(max_tokens=4)).decode())
        {"model": "m", "messages": [{"role": "user", "content": "Hi \\u00fc"}], "max_tokens": 4}
        """
        if not isinstance(prompt, str):
            body = request_body(self.mode, self.model_id, prompt, params, sample)
            return json.dumps(body).encode("utf-8")
        slot = (params, sample if params.seed is not None else 0)
        template = self._templates.get(slot)
        if template is None:
            body = request_body(self.mode, self.model_id, _PROMPT_SLOT, params, sample)
            head, mark, tail = json.dumps(body).partition(_PROMPT_SLOT_JSON)
            if not mark or _PROMPT_SLOT_JSON in tail:  # the model id holds the mark itself
                body = request_body(self.mode, self.model_id, prompt, params, sample)
                return json.dumps(body).encode("utf-8")
            if len(self._templates) >= _MAX_TEMPLATES:
                self._templates.clear()
            template = self._templates[slot] = (head.encode("utf-8"), tail.encode("utf-8"))
        return b"".join((template[0], json.dumps(prompt).encode("utf-8"), template[1]))

    async def _generate(
        self, prompt: str | Sequence[Turn], params: SamplingParams, sample: int
    ) -> Response:
        import aiohttp
        from aiohttp.payload import BytesPayload

        body = BytesPayload(
            self.body_bytes(prompt, params, sample),
            content_type="application/json",
            encoding="utf-8",
        )
        where = self._where
        session = self._open_session()
        started = time.perf_counter()
        try:
            async with session.post(self._url, data=body, allow_redirects=False) as reply:
                status = reply.status
                retry_after_header = reply.headers.get("Retry-After")
                raw = await read_body(
                    reply.content.iter_any(),
                    reply.headers.get("Content-Encoding"),
                    self.max_reply_bytes,
                )
        except (TimeoutError, aiohttp.ClientError) as exc:
            raise request_error(exc, where) from None
        except EvaluationError as exc:  # a body past the bounds
            raise EvaluationError(f"{exc} (from {where})") from None
        latency = time.perf_counter() - started
        if status in _TRANSIENT_STATUS or status >= 500:
            raise TransientModelError(
                f"HTTP {status} from {where}: {_error_detail(raw, self.mask)}",
                status=status,
                retry_after=parse_retry_after(retry_after_header),
            )
        if status in FINAL_STATUS:
            raise RefusedRequestError(where, status=status, detail=_error_detail(raw, self.mask))
        if not 200 <= status < 300:
            detail = _error_detail(raw, self.mask)
            raise ModelHTTPError(
                f"HTTP {status} from {where}: {detail}", status=status, detail=detail
            )
        try:
            return parse_reply(self.mode, load_reply(raw), latency)
        except EvaluationError as exc:
            raise EvaluationError(f"{exc} (from {where})") from None

    def _open_session(self) -> aiohttp.ClientSession:
        """The HTTP session of the running event loop (opened on first use)."""
        import aiohttp

        session = self._session
        loop = asyncio.get_running_loop()
        if session is None or session.closed or self._session_loop is not loop:
            session = aiohttp.ClientSession(
                headers=self._headers,
                timeout=self._timeout,
                connector=aiohttp.TCPConnector(limit=0, limit_per_host=0),
                trust_env=self._trust_env,
                auto_decompress=False,  # inflated within bounds by read_body
            )
            self._session, self._session_loop = session, loop
        return session

    async def aclose(self) -> None:
        """Close the HTTP session and its connections (idempotent)."""
        session, self._session, self._session_loop = self._session, None, None
        if session is not None and not session.closed:
            await session.close()
