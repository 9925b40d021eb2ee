"""The OpenAI-compatible client against a real loopback HTTP server (no mocks).

The server below speaks just enough of the API: the first path segment picks a
behaviour (``ok``, ``429``, ``500``, ``slow``, ``drop``, ``notjson``, ``nochoices``,
``400``...), and every request it receives is recorded for the checks.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.model import public_endpoint
from twosat_formal.errors import ConfigError, EndpointError, EvaluationError, UnknownNameError
from twosat_formal.evaluate.models import ManagedModel, load_model
from twosat_formal.evaluate.models.base import Response, SamplingParams, TransientModelError
from twosat_formal.evaluate.models.openai_compat import (
    ModelHTTPError,
    OpenAICompatModel,
    parse_reply,
    parse_retry_after,
    request_body,
)

SECRET = "sk-test-0123456789-very-secret"


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes = b""


@dataclass
class Loopback:
    """A running loopback server and what it has seen."""

    port: int
    requests: list[Seen] = field(default_factory=list)

    def url(self, behaviour: str) -> str:
        return f"http://127.0.0.1:{self.port}/{behaviour}/v1"


def _handler(state: Loopback) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

        def _reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            body = json.loads(raw)
            state.requests.append(
                Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw)
            )
            behaviour, _, rest = self.path.lstrip("/").partition("/")
            if behaviour == "ok":
                chat = rest.endswith("chat/completions")
                answer = f"echo {body.get('seed')} The answer is: Yes"
                choice: dict[str, Any] = (
                    {"index": 0, "message": {"role": "assistant", "content": answer}}
                    if chat
                    else {"index": 0, "text": answer}
                )
                choice["finish_reason"] = "length" if body.get("max_tokens") == 1 else "stop"
                payload = {
                    "choices": [choice],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 7},
                }
                self._reply(200, json.dumps(payload).encode())
            elif behaviour == "nousage":
                payload = {"choices": [{"message": {"content": None}, "finish_reason": None}]}
                self._reply(200, json.dumps(payload).encode())
            elif behaviour in ("429", "500", "503", "408"):
                self._reply(
                    int(behaviour),
                    b'{"error": {"message": "slow down please"}}',
                    {"Retry-After": "3"},
                )
            elif behaviour in ("400", "401", "403", "404"):
                self._reply(int(behaviour), b'{"error": {"message": "no such model: m"}}')
            elif behaviour == "slow":
                time.sleep(1.5)
                self._reply(200, b'{"choices": [{"text": "late"}]}')
            elif behaviour == "redirect":
                self._reply(307, b"", {"Location": f"/ok/{rest}"})
            elif behaviour == "drop":
                self.close_connection = True  # no status line at all
            elif behaviour == "notjson":
                self._reply(200, b"<html>gateway</html>")
            elif behaviour == "nochoices":
                self._reply(200, b'{"object": "list"}')
            else:
                self._reply(500, b"unknown behaviour")

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that timed out and left: expected in the "slow" case


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    state = Loopback(port=0)
    server = _Server(("127.0.0.1", 0), _handler(state))
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _generate(model: ManagedModel, params: SamplingParams, sample: int = 0) -> Response:
    async def run() -> Response:
        async with model:
            return await model.generate("Is it? Think.", params, sample)

    return asyncio.run(run())


def _failure(model: ManagedModel) -> EvaluationError:
    with pytest.raises(EvaluationError) as info:
        _generate(model, SamplingParams(max_tokens=8))
    return info.value


def test_chat_request_and_reply(loopback: Loopback, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    model = OpenAICompatModel("m-1", base_url=loopback.url("ok"))
    params = SamplingParams(max_tokens=32, temperature=0.7, top_p=0.9, seed=10)
    response = _generate(model, params, sample=2)
    seen = loopback.requests[-1]
    assert seen.path == "/ok/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {SECRET}"
    assert seen.body == {
        "model": "m-1",
        "messages": [{"role": "user", "content": "Is it? Think."}],
        "max_tokens": 32,
        "temperature": 0.7,
        "top_p": 0.9,
        "seed": 12,
    }
    assert response.text == "echo 12 The answer is: Yes"
    assert response.finish_reason == "stop"
    assert (response.prompt_tokens, response.completion_tokens) == (11, 7)
    assert response.latency_s is not None and response.latency_s >= 0


def test_completion_mode_reads_length_finish(loopback: Loopback) -> None:
    model = load_model("openai/base-7b?mode=completion", base_url=loopback.url("ok"))
    assert isinstance(model, OpenAICompatModel)
    response = _generate(model, SamplingParams(max_tokens=1))
    seen = loopback.requests[-1]
    assert seen.path == "/ok/v1/completions"
    assert seen.body == {"model": "base-7b", "prompt": "Is it? Think.", "max_tokens": 1}
    assert "authorization" not in seen.headers  # no key in the environment: none sent
    assert response.truncated and response.text == "echo None The answer is: Yes"


def test_unset_optional_fields(loopback: Loopback) -> None:
    response = _generate(OpenAICompatModel("m", base_url=loopback.url("nousage")), SamplingParams())
    assert response == Response(text="", finish_reason=None, latency_s=response.latency_s)


def test_base_url_and_key_from_named_variables(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", loopback.url("ok") + "/")
    monkeypatch.setenv("MY_VENDOR_KEY", SECRET + "-vendor")
    monkeypatch.setenv("OPENAI_API_KEY", "not-this-one")
    model = load_model("openai/m", api_key_env="MY_VENDOR_KEY")
    assert model.endpoint == loopback.url("ok")
    _generate(model, SamplingParams())
    assert loopback.requests[-1].headers["authorization"] == f"Bearer {SECRET}-vendor"


def test_named_key_variable_must_be_set() -> None:
    with pytest.raises(ConfigError) as info:
        load_model("openai/m", base_url="http://127.0.0.1:1/v1", api_key_env="NO_SUCH_KEY_VAR")
    assert info.value.parameter == "api_key_env"


@pytest.mark.parametrize("status", [429, 500, 503, 408])
def test_retryable_status_is_transient(loopback: Loopback, status: int) -> None:
    error = _failure(OpenAICompatModel("m", base_url=loopback.url(str(status))))
    assert isinstance(error, TransientModelError)
    assert error.status == status and error.retry_after == 3.0
    assert "slow down please" in str(error)


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_client_errors_are_final(loopback: Loopback, status: int) -> None:
    error = _failure(OpenAICompatModel("m", base_url=loopback.url(str(status))))
    assert not isinstance(error, TransientModelError)
    assert isinstance(error, ModelHTTPError) and error.status == status
    assert "no such model: m" in str(error) and f"HTTP {status}" in str(error)
    # 401, 403 and 404 will not heal: they stop an evaluation (exit code 3)
    assert isinstance(error, EndpointError) == (status != 400)


def test_timeout_is_transient(loopback: Loopback) -> None:
    error = _failure(OpenAICompatModel("m", base_url=loopback.url("slow"), timeout_s=0.2))
    assert isinstance(error, TransientModelError) and "timed out" in str(error)


def test_dropped_connection_is_transient(loopback: Loopback) -> None:
    error = _failure(OpenAICompatModel("m", base_url=loopback.url("drop")))
    assert isinstance(error, TransientModelError) and error.status is None


def test_refused_connection_is_final_and_names_the_endpoint() -> None:
    import socket

    with socket.socket() as sock:  # a port that was free: nobody listens on it now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    error = _failure(OpenAICompatModel("m", base_url=f"http://127.0.0.1:{port}/v1"))
    assert isinstance(error, EndpointError) and not isinstance(error, TransientModelError)
    assert str(error) == (
        f"cannot use http://127.0.0.1:{port}/v1/chat/completions: connection refused"
    )


@pytest.mark.parametrize("behaviour", ["notjson", "nochoices"])
def test_malformed_bodies_are_final(loopback: Loopback, behaviour: str) -> None:
    error = _failure(OpenAICompatModel("m", base_url=loopback.url(behaviour)))
    assert not isinstance(error, TransientModelError)
    assert "malformed reply" in str(error) and loopback.url(behaviour) in str(error)


def test_key_never_leaks(loopback: Loopback, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    url = loopback.url("401").replace("http://", f"http://user:{SECRET}@")
    model = load_model("openai/m", base_url=url)
    texts = [model.spec, model.endpoint, repr(model), str(vars(model).get("base_url"))]
    texts.append(str(_failure(model)))
    assert loopback.requests[-1].headers["authorization"] == f"Bearer {SECRET}"
    for text in texts:
        assert SECRET not in text


def test_bad_configuration() -> None:
    with pytest.raises(ConfigError):
        OpenAICompatModel("m", base_url="ftp://example.org/v1")
    with pytest.raises(ConfigError):
        OpenAICompatModel("m", base_url="http://127.0.0.1/v1", mode="embeddings")
    with pytest.raises(ConfigError):
        OpenAICompatModel("m", base_url="http://127.0.0.1/v1", timeout_s=0)
    with pytest.raises(ConfigError):
        load_model("openai/")
    with pytest.raises(ConfigError):
        load_model("openai/m?mode=edit", base_url="http://127.0.0.1/v1")
    with pytest.raises(ConfigError):
        load_model("openai/m?temperature=hot", base_url="http://127.0.0.1/v1")
    with pytest.raises(ConfigError):
        load_model("openai/m?tempo=1", base_url="http://127.0.0.1/v1")
    with pytest.raises(UnknownNameError) as info:
        load_model("anthropic/claude")
    assert "openai/<model-id>" in str(info.value) and "ref/bounded?budget=N" in str(info.value)


def test_default_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    model = load_model("openai/gpt-4o-mini")
    assert model.endpoint == "https://api.openai.com/v1"
    assert model.spec == "openai/gpt-4o-mini"


# --- pure helpers -------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8"), max_size=40)
_counts = st.one_of(st.none(), st.integers(0, 10**6))


@given(
    mode=st.sampled_from(["chat", "completion"]),
    text=_text,
    finish=st.one_of(st.none(), st.sampled_from(["stop", "length", "content_filter"])),
    prompt_tokens=_counts,
    completion_tokens=_counts,
)
def test_parse_reply_reads_what_was_sent(
    mode: str,
    text: str,
    finish: str | None,
    prompt_tokens: int | None,
    completion_tokens: int | None,
) -> None:
    choice: dict[str, Any] = {"finish_reason": finish}
    if mode == "chat":
        choice["message"] = {"role": "assistant", "content": text}
    else:
        choice["text"] = text
    usage = {
        key: value
        for key, value in (
            ("prompt_tokens", prompt_tokens),
            ("completion_tokens", completion_tokens),
        )
        if value is not None
    }
    payload = json.loads(json.dumps({"choices": [choice], "usage": usage}))
    assert parse_reply(mode, payload, 0.5) == Response(
        text, finish, prompt_tokens, completion_tokens, 0.5
    )


@given(
    mode=st.sampled_from(["chat", "completion"]),
    model_id=st.sampled_from(["m", 'odd "model" ü', "x\x00twosat-formal prompt\x00"]),
    prompts=st.lists(st.text(), min_size=1, max_size=4),
    max_tokens=st.integers(1, 10**5),
    temperature=st.one_of(st.none(), st.floats(0, 2)),
    seed=st.one_of(st.none(), st.integers(0, 2**31)),
    samples=st.lists(st.integers(0, 5), min_size=1, max_size=3),
)
def test_the_request_bytes_are_the_json_of_the_request_body(
    mode: str,
    model_id: str,
    prompts: list[str],
    max_tokens: int,
    temperature: float | None,
    seed: int | None,
    samples: list[int],
) -> None:
    model = OpenAICompatModel(model_id, base_url="http://127.0.0.1:9/v1", mode=mode)
    params = SamplingParams(max_tokens, temperature, None, seed)
    for prompt in prompts:  # the second prompt on reuses the encoded body of the first
        for sample in samples:
            expected = json.dumps(request_body(mode, model_id, prompt, params, sample))
            assert model.body_bytes(prompt, params, sample) == expected.encode("utf-8")
    if mode == "chat":
        turns = [("user", "Hi"), ("assistant", "Hello."), ("user", prompts[0])]
        expected = json.dumps(request_body(mode, model_id, turns, params, samples[0]))
        assert model.body_bytes(turns, params, samples[0]) == expected.encode("utf-8")


def test_the_server_receives_the_request_bytes_as_json(loopback: Loopback) -> None:
    model = OpenAICompatModel("m-1", base_url=loopback.url("ok"))
    params = SamplingParams(max_tokens=32, seed=3)
    _generate(model, params, sample=1)
    seen = loopback.requests[-1]
    body = request_body("chat", "m-1", "Is it? Think.", params, 1)
    assert seen.raw == json.dumps(body).encode("utf-8")
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["content-length"] == str(len(seen.raw))


@given(
    mode=st.sampled_from(["chat", "completion"]),
    max_tokens=st.integers(1, 10**5),
    temperature=st.one_of(st.none(), st.floats(0, 2)),
    top_p=st.one_of(st.none(), st.floats(0, 1, exclude_min=True)),
    seed=st.one_of(st.none(), st.integers(0, 2**31)),
    sample=st.integers(0, 100),
)
def test_request_body_sends_exactly_the_set_parameters(
    mode: str,
    max_tokens: int,
    temperature: float | None,
    top_p: float | None,
    seed: int | None,
    sample: int,
) -> None:
    params = SamplingParams(max_tokens, temperature, top_p, seed)
    body = request_body(mode, "m", "P", params, sample)
    expected_keys = {"model", "max_tokens", "messages" if mode == "chat" else "prompt"}
    expected_keys |= {k for k in ("temperature", "top_p", "seed") if getattr(params, k) is not None}
    assert set(body) == expected_keys
    assert body["max_tokens"] == max_tokens
    if seed is not None:
        assert body["seed"] == seed + sample
    assert json.loads(json.dumps(body)) == body


@given(st.floats(0, 10**6, allow_nan=False))
def test_retry_after_seconds(seconds: float) -> None:
    assert parse_retry_after(repr(seconds)) == seconds
    assert parse_retry_after(f" {seconds} ") == seconds


def test_retry_after_edge_cases() -> None:
    assert parse_retry_after(None) is None
    assert parse_retry_after("-5") == 0.0
    assert parse_retry_after("nan") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    now = datetime(2015, 10, 21, 6, 28, 0, tzinfo=UTC)
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=now) == 3600.0


@pytest.mark.parametrize(
    ("url", "public"),
    [
        ("http://u:p@127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
        ("https://api.example.org/v1", "https://api.example.org/v1"),
        ("http://[::1]:9/v1", "http://[::1]:9/v1"),
    ],
)
def test_public_endpoint(url: str, public: str) -> None:
    assert public_endpoint(url) == public


# --- the shared fault server ----------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "outcome"),
    [
        ("ok", "stop"),
        ("length", "length"),
        ("429", TransientModelError),
        ("500", TransientModelError),
        ("503", TransientModelError),
        ("slow", TransientModelError),
        ("drop", TransientModelError),
        ("malformed", EvaluationError),
    ],
)
@pytest.mark.parametrize("mode", ["chat", "completion"])
def test_against_the_fault_server(fault: str, outcome: object, mode: str) -> None:
    from tests.support.faultserver import FaultServer  # tests/support/faultserver.py

    with FaultServer(plan=[fault], answer=lambda prompt: "The answer is: No", slow_s=1.0) as srv:
        model = OpenAICompatModel("m", base_url=srv.url, mode=mode, timeout_s=0.3)
        if isinstance(outcome, str):
            response = _generate(model, SamplingParams(max_tokens=8))
            assert response.finish_reason == outcome and response.text
        else:
            assert isinstance(outcome, type)
            with pytest.raises(outcome) as info:
                _generate(model, SamplingParams(max_tokens=8))
            transient = isinstance(info.value, TransientModelError)
            assert transient == (outcome is TransientModelError)
        assert [entry.fault for entry in srv.log] == [fault]


# --- the HTTP session: redirects, proxies, event loops, concurrency ----------------------


def test_redirects_are_not_followed(loopback: Loopback) -> None:
    before = len(loopback.requests)
    error = _failure(OpenAICompatModel("m", base_url=loopback.url("redirect")))
    assert isinstance(error, ModelHTTPError) and error.status == 307
    assert [seen.path for seen in loopback.requests[before:]] == ["/redirect/v1/chat/completions"]


def test_loopback_ignores_proxy_variables(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = "http://127.0.0.1:9"  # nothing listens there: a proxied request would fail
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, dead)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    response = _generate(OpenAICompatModel("m", base_url=loopback.url("ok")), SamplingParams())
    assert response.text == "echo None The answer is: Yes"


def test_one_model_serves_several_event_loops_and_reopens_after_close(loopback: Loopback) -> None:
    model = OpenAICompatModel("m", base_url=loopback.url("ok"), mode="completion")

    async def ask(seed: int, close: bool) -> Response:
        response = await model.generate("P", SamplingParams(max_tokens=4, seed=seed))
        if close:
            await model.aclose()
            await model.aclose()  # idempotent
        return response

    first = asyncio.run(ask(1, close=False))  # its session belongs to a loop now closed
    second = asyncio.run(ask(2, close=True))
    third = asyncio.run(ask(3, close=True))  # reopened after close
    assert [r.text for r in (first, second, third)] == [
        "echo 1 The answer is: Yes",
        "echo 2 The answer is: Yes",
        "echo 3 The answer is: Yes",
    ]


@pytest.mark.slow
@given(prompts=st.lists(st.text(st.characters(codec="utf-8"), max_size=30), max_size=40))
def test_concurrent_requests_get_their_own_answers(prompts: list[str]) -> None:
    from tests.support.faultserver import FaultServer  # tests/support/faultserver.py

    answers = {prompt: f"answer to {prompt!r}" for prompt in prompts}

    async def run(url: str) -> list[Response]:
        async with OpenAICompatModel("m", base_url=url) as model:
            params = SamplingParams(max_tokens=8)
            return await asyncio.gather(*(model.generate(p, params) for p in prompts))

    with FaultServer(answer=answers, latency_s=0.01) as server:
        responses = asyncio.run(run(server.url))
        assert sorted(server.prompts()) == sorted(prompts)
    assert [r.text for r in responses] == [answers[p] for p in prompts]
    assert all(r.finish_reason == "stop" for r in responses)


def test_spawned_fault_server_runs_in_its_own_process() -> None:
    import os

    from tests.support.faultserver import spawn_fault_server  # tests/support/faultserver.py

    server = spawn_fault_server(plan=["429", "ok"], answer={"Is it? Think.": "No"}, latency_s=0.01)
    try:
        assert server.pid != os.getpid()
        model = OpenAICompatModel("m", base_url=server.url)
        first = _failure(model)
        assert isinstance(first, TransientModelError) and first.status == 429
        assert _generate(model, SamplingParams()).text == "No"
        stats = server.stats()
        assert stats["requests"] == 2 and stats["cpu_s"] > 0
    finally:
        server.stop()
    server.stop()  # idempotent
    assert isinstance(_failure(OpenAICompatModel("m", base_url=server.url)), EndpointError)
    with pytest.raises(TypeError):
        spawn_fault_server(plan=lambda prompt, attempt: "ok")
