"""A loopback HTTP server that answers each POST with the bytes a test chooses.

Where :mod:`faultserver` plays a well-behaved server's faults, this one plays a hostile
server: the reply's status, headers and body bytes are whatever ``reply(path, body)``
returns, sent over real HTTP/1.1 on ``127.0.0.1`` (:mod:`http.server`, one thread
per connection). A body may be an iterable of chunks, so that a test can send more
bytes than it holds (a 1 GB answer is a ``Content-Length`` and a generator); the
server stops writing once the client hangs up.

Examples
--------
>>> import httpx
>>> with RawServer(lambda path, body: Raw(200, b'{"ok": true}')) as server:
...     httpx.post(server.url + "/completions", json={}).json()
{'ok': True}
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Raw", "RawServer", "chat_reply"]


@dataclass(frozen=True)
class Raw:
    """One reply: status, body (bytes or chunks), extra headers, declared length."""

    status: int
    body: bytes | Iterable[bytes]
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The ``Content-Length`` sent for a body of chunks.
    length: int | None = None


def chat_reply(content: str = "The answer is: Yes", **extra: Any) -> dict[str, Any]:
    """A well-formed chat completion reply, with top-level fields ``extra`` added."""
    return {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        **extra,
    }


Reply = Callable[[str, Mapping[str, Any]], Raw]


class RawServer:
    """Serve ``reply(path, request_json)`` to every POST; a context manager."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                outer.paths.append(self.path)
                raw = outer.reply(self.path, body)
                chunks = [raw.body] if isinstance(raw.body, bytes) else raw.body
                size = len(raw.body) if isinstance(raw.body, bytes) else raw.length
                self.send_response(raw.status)
                self.send_header("Content-Type", "application/json")
                if size is not None:
                    self.send_header("Content-Length", str(size))
                for name, value in raw.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    for chunk in chunks:
                        self.wfile.write(chunk)
                    self.wfile.flush()
                except OSError:  # the client hung up: it read what it wanted
                    self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # A short poll: ``shutdown`` waits for the serving loop to look at its flag,
        # which the default (0.5 s) would make every server's exit cost.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        """The API root: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)
