"""A loopback OpenAI-compatible HTTP server that injects faults, for tests and benchmarks.

The server speaks real HTTP/1.1 (keep-alive, ``Content-Length`` bodies) on
``127.0.0.1`` at a free port, from an asyncio loop in a daemon thread. It serves
``POST /v1/chat/completions`` and ``POST /v1/completions`` and answers each request
according to a fault plan:

==============  ===========================================================================
fault           what the client sees
==============  ===========================================================================
``ok``          a well-formed reply, ``finish_reason: "stop"``
``429``         HTTP 429 with a ``Retry-After`` header
``500``         HTTP 500 with an OpenAI-style error body
``503``         HTTP 503
``401``         HTTP 401 (a missing or wrong API key)
``403``         HTTP 403
``404``         HTTP 404 (an unknown model)
``slow``        a well-formed reply after ``slow_s`` seconds
``drop``        the connection closes before any reply
``malformed``   HTTP 200 whose body is not JSON
``length``      the first half of the answer with ``finish_reason: "length"``
==============  ===========================================================================

A plan is a sequence (fault of the ``i``-th request by arrival, ``ok`` beyond its
end) or a function ``plan(prompt, attempt) -> fault`` where ``attempt`` counts the
requests the server has seen for that prompt (0 first), which makes a plan
independent of scheduling. ``latency_s`` is added to every reply. The server is
bounded: after ``max_requests`` requests or ``lifetime_s`` seconds it stops by
itself. ``GET /stats`` answers ``{"requests": N, "cpu_s": S}``: the requests seen so
far and the CPU time of the server's process.

For benchmarks the server runs in a process of its own, so that it never competes
with the client for the interpreter lock: :func:`spawn_fault_server` starts
``python tests/support/faultserver.py`` as a subprocess, and the same command serves from a
terminal::

    python tests/support/faultserver.py --latency 0.05 --port 8000

Examples
--------
>>> import httpx
>>> with FaultServer(plan=["429"], answer=lambda prompt: "The answer is: No") as server:
...     first = httpx.post(server.url + "/completions", json={"prompt": "Hi"})
...     second = httpx.post(server.url + "/completions", json={"prompt": "Hi"})
>>> first.status_code, first.headers["retry-after"], second.json()["choices"][0]["text"]
(429, '0', 'The answer is: No')
>>> [entry.fault for entry in server.log]
['429', 'ok']
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twosat_formal._util.closing import Closing

__all__ = [
    "FAULTS",
    "FaultServer",
    "LoggedRequest",
    "SpawnedServer",
    "main",
    "spawn_fault_server",
]

#: Every fault the server can inject.
FAULTS = (
    "ok", "429", "500", "503", "401", "403", "404", "slow", "drop", "malformed", "length"
)  # fmt: skip

Plan = Sequence[str] | Callable[[str, int], str]
Answer = Callable[[str], str] | Mapping[str, str]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class LoggedRequest:
    """One request the server saw: path, prompt, the fault it got, its auth header."""

    index: int
    path: str
    prompt: str
    fault: str
    authorization: str | None
    #: The request's sampling fields (``max_tokens``, ``temperature``, ``top_p``, ``seed``).
    sampling: Mapping[str, Any] | None = None
    #: A chat request's ``messages``, as sent (``None`` for a completion request).
    messages: Any = None
    #: The whole request body, as sent.
    body: Mapping[str, Any] | None = None


def _prompt_of(path: str, body: Mapping[str, Any]) -> str:
    if path.endswith("/chat/completions"):
        messages = body.get("messages") or []
        return "".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
    return str(body.get("prompt", ""))


@dataclass(kw_only=True, eq=False)
class FaultServer(Closing):
    """The fault-injecting server; use it as a context manager or ``start``/``stop``.

    Parameters
    ----------
    plan:
        A sequence of faults by arrival order, or ``plan(prompt, attempt) -> fault``.
    answer:
        The answer text for a prompt: a function, or a mapping (prompts it lacks get
        ``default_answer``).
    reasoning:
        The reasoning of a chat reply (``message.reasoning_content``) for a prompt, or
        ``None`` for none.
    latency_s:
        Seconds added to every reply.
    slow_s:
        Seconds a ``slow`` reply waits.
    retry_after:
        The ``Retry-After`` header of a ``429`` (seconds, as text).
    max_requests, lifetime_s:
        Bounds after which the server stops by itself.
    port:
        The port to bind on ``127.0.0.1`` (``0``: a free one).
    """

    plan: Plan = ()
    answer: Answer | None = None
    default_answer: str = "The answer is: Yes"
    #: The reasoning sent beside each answer (``reasoning_content``), or none.
    reasoning: Callable[[str], str | None] | None = None
    latency_s: float = 0.0
    slow_s: float = 1.0
    retry_after: str = "0"
    max_requests: int = 100_000
    lifetime_s: float = 300.0
    port: int = 0
    log: list[LoggedRequest] = field(default_factory=list, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _attempts: Counter[str] = field(default_factory=Counter, init=False, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _server: asyncio.base_events.Server | None = field(default=None, init=False, repr=False)
    _connections: set[asyncio.Task[None]] = field(default_factory=set, init=False, repr=False)
    _stopped: threading.Event = field(default_factory=threading.Event, init=False, repr=False)

    # -- life cycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The API root to give a client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FaultServer:
        """Bind a free port and serve from a daemon thread."""
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="faultserver", daemon=True)
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._open(), loop)
        self.port = future.result(timeout=10)
        return self

    async def _open(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, backlog=1024)
        assert self._loop is not None
        self._loop.call_later(self.lifetime_s, self._shutdown)
        return int(self._server.sockets[0].getsockname()[1])

    def _shutdown(self) -> None:
        """Close the listener and every connection (runs on the server's loop)."""
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        self._stopped.set()

    def stop(self) -> None:
        """Stop serving and end the thread (idempotent)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                asyncio.run_coroutine_threadsafe(self._close(), loop).result(timeout=10)
                loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        if not thread.is_alive() and not loop.is_closed():
            loop.close()
        self._loop = self._thread = None

    async def _close(self) -> None:
        self._shutdown()
        if self._server is not None:
            await self._server.wait_closed()
        tasks = list(self._connections)
        await asyncio.gather(*tasks, return_exceptions=True)

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """Wait until the server stopped serving (its bounds, or :meth:`stop`)."""
        return self._stopped.wait(timeout)

    def __enter__(self) -> FaultServer:
        return self.start()

    def close(self) -> None:
        """Stop serving on leaving a ``with`` block (:meth:`stop`)."""
        self.stop()

    # -- bookkeeping -------------------------------------------------------------------------

    def faults(self) -> Counter[str]:
        """How many requests got each fault so far."""
        with self._lock:
            return Counter(entry.fault for entry in self.log)

    def prompts(self) -> list[str]:
        """The prompt of every request so far, in arrival order."""
        with self._lock:
            return [entry.prompt for entry in self.log]

    def _choose(
        self,
        prompt: str,
        path: str,
        authorization: str | None,
        sampling: Mapping[str, Any] | None = None,
        messages: Any = None,
        body: Mapping[str, Any] | None = None,
    ) -> LoggedRequest:
        with self._lock:
            index = len(self.log)
            attempt = self._attempts[prompt]
            self._attempts[prompt] += 1
            if callable(self.plan):
                fault = self.plan(prompt, attempt)
            else:
                fault = self.plan[index] if index < len(self.plan) else "ok"
            if fault not in FAULTS:
                raise ValueError(f"unknown fault {fault!r}")
            entry = LoggedRequest(
                index, path, prompt, fault, authorization, sampling, messages, body
            )
            self.log.append(entry)
            return entry

    def _answer_for(self, prompt: str) -> str:
        if self.answer is None:
            return self.default_answer
        if callable(self.answer):
            return self.answer(prompt)
        return self.answer.get(prompt, self.default_answer)

    # -- HTTP ----------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while not self._stopped.is_set():
                request = await _read_request(reader)
                if request is None:
                    break
                method, path, headers, body = request
                keep = await self._respond(writer, method, path, headers, body)
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _respond(
        self,
        writer: asyncio.StreamWriter,
        method: str,
        path: str,
        headers: Mapping[str, str],
        body: bytes,
    ) -> bool:
        """Answer one request; ``False`` when the connection must close."""
        full_path, path = path, path.split("?", 1)[0]  # route without the query
        if method == "GET" and path.rstrip("/").endswith("/stats"):
            with self._lock:
                seen = len(self.log)
            await _write(writer, 200, {"requests": seen, "cpu_s": time.process_time()})
            return True
        if method != "POST" or not (
            path.endswith("/chat/completions") or path.endswith("/completions")
        ):
            # echoes the whole request target, query included, as careless servers do
            await _write(writer, 404, {"error": {"message": f"no route {method} {full_path}"}})
            return True
        try:
            payload = json.loads(body or b"{}")
        except ValueError:
            await _write(writer, 400, {"error": {"message": "body is not JSON"}})
            return True
        if len(self.log) >= self.max_requests:
            self._shutdown()
            return False
        prompt = _prompt_of(path, payload)
        sampling = {
            k: payload[k] for k in ("max_tokens", "temperature", "top_p", "seed") if k in payload
        }
        entry = self._choose(
            prompt,
            full_path,
            headers.get("authorization"),
            sampling,
            payload.get("messages"),
            payload,
        )
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        fault = entry.fault
        if fault == "drop":
            return False
        if fault == "429":
            error = {"error": {"message": "rate limited", "type": "rate_limit"}}
            await _write(writer, 429, error, {"Retry-After": self.retry_after})
            return True
        if fault in ("500", "503"):
            await _write(writer, int(fault), {"error": {"message": "server error"}})
            return True
        if fault in ("401", "403", "404"):
            message = {
                "401": "invalid API key",
                "403": "forbidden",
                "404": f"no such model at {full_path}",  # echoes the query, as some servers do
            }
            await _write(writer, int(fault), {"error": {"message": message[fault]}})
            return True
        if fault == "malformed":
            await _write_raw(writer, 200, b'{"choices": [{"message": ')
            return True
        if fault == "slow":
            await asyncio.sleep(self.slow_s)
        text = self._answer_for(prompt)
        finish = "stop"
        if fault == "length":
            text, finish = text[: len(text) // 2], "length"
        thought = self.reasoning(prompt) if self.reasoning is not None else None
        await _write(writer, 200, _reply(path, payload, text, finish, prompt, thought))
        return True


def _reply(
    path: str,
    payload: Mapping[str, Any],
    text: str,
    finish: str,
    prompt: str,
    reasoning: str | None = None,
) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
    if path.endswith("/chat/completions"):
        choice["message"] = {"role": "assistant", "content": text}
        if reasoning is not None:
            choice["message"]["reasoning_content"] = reasoning
        kind = "chat.completion"
    else:
        choice["text"] = text
        kind = "text_completion"
    usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {
        "id": "fault-0",
        "object": kind,
        "model": payload.get("model", "fault"),
        "choices": [choice],
        "usage": usage,
    }


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, str, dict[str, str], bytes] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = [*lines[0].split(" ", 2), "", ""][:3]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    body = await reader.readexactly(length) if length else b""
    return method, path, headers, body


async def _write(
    writer: asyncio.StreamWriter,
    status: int,
    payload: Mapping[str, Any],
    extra: Mapping[str, str] | None = None,
) -> None:
    await _write_raw(writer, status, json.dumps(payload).encode(), extra)


async def _write_raw(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    extra: Mapping[str, str] | None = None,
) -> None:
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    head.append("Content-Type: application/json")
    head.append(f"Content-Length: {len(body)}")
    head.extend(f"{k}: {v}" for k, v in (extra or {}).items())
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()


# -- a server in its own process (benchmarks: no GIL shared with the client) ------------------

_SPAWNABLE = frozenset(
    {
        "plan",
        "answer",
        "default_answer",
        "latency_s",
        "slow_s",
        "retry_after",
        "max_requests",
        "lifetime_s",
        "port",
    }
)


class SpawnedServer:
    """A :class:`FaultServer` in a subprocess (``python tests/support/faultserver.py``).

    ``url``, ``stats()`` and ``stop()``; the server stops when its standard input
    closes, so it never outlives the process that spawned it.
    """

    def __init__(self, **options: Any) -> None:
        unknown = set(options) - _SPAWNABLE
        if unknown:
            raise TypeError(f"options a spawned server cannot take: {sorted(unknown)}")
        if callable(options.get("plan")) or callable(options.get("answer")):
            raise TypeError("a spawned server takes a sequence plan and a mapping answer")
        config = {k: list(v) if k == "plan" else v for k, v in options.items()}
        command = [sys.executable, str(Path(__file__).resolve()), "--stop-on-eof"]
        command += ["--config", json.dumps(config)]
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()  # "PORT\n" once the server listens
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError("the fault server process did not start")
        self.port = int(line)

    @property
    def pid(self) -> int:
        """The server process's id."""
        return self._process.pid

    @property
    def url(self) -> str:
        """The API root: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, float]:
        """``{"requests": N, "cpu_s": S}`` from the server (``GET /stats``)."""
        request = urllib.request.Request(self.url + "/stats")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=10) as reply:
            data: dict[str, float] = json.loads(reply.read())
        return data

    def stop(self) -> None:
        """Stop the server and reap the process (idempotent)."""
        process = self._process
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def spawn_fault_server(**options: Any) -> SpawnedServer:
    """Start a :class:`FaultServer` with ``options`` in a subprocess.

    Options must be JSON values (a sequence plan, a mapping answer, numbers, text).
    """
    return SpawnedServer(**options)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve from the command line until Ctrl-C, the server's bounds, or stdin's end."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--latency", type=float, default=None, help="seconds added to each reply")
    parser.add_argument("--lifetime", type=float, default=None, help="seconds before it stops")
    parser.add_argument("--config", default="{}", help="FaultServer options as a JSON object")
    parser.add_argument(
        "--stop-on-eof", action="store_true", help="stop when standard input closes"
    )
    args = parser.parse_args(argv)
    options: dict[str, Any] = json.loads(args.config)
    if args.port:
        options["port"] = args.port
    if args.latency is not None:
        options["latency_s"] = args.latency
    if args.lifetime is not None:
        options["lifetime_s"] = args.lifetime
    server = FaultServer(**options).start()
    print(server.port, flush=True)
    eof = threading.Event()
    if args.stop_on_eof:

        def watch_stdin() -> None:
            sys.stdin.read()
            eof.set()

        threading.Thread(target=watch_stdin, name="stdin-watcher", daemon=True).start()
    else:
        print(f"serving {server.url} (Ctrl-C stops)", file=sys.stderr, flush=True)
    try:
        while not server.wait_stopped(0.1) and not eof.is_set():
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
