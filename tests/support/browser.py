"""Drive headless Chromium over the DevTools protocol through a pipe (no extra package).

Chromium started with ``--remote-debugging-pipe`` reads protocol commands from its file
descriptor 3 and writes replies and events to descriptor 4, each a JSON object ended
by a NUL byte. :class:`Browser` opens one page, collects its console errors and
uncaught exceptions, evaluates expressions in it and takes screenshots.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

#: How long one protocol command may take before the test gives up (seconds).
COMMAND_TIMEOUT_S = 60.0


def chromium_path() -> str:
    """The Chromium executable; skips the test where there is none (fails under CI)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI"):
        pytest.fail("Chromium is not installed (.ci/run installs Debian's chromium)")
    pytest.skip("Chromium is not installed")


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self._profile = tempfile.mkdtemp(prefix="chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def place_pipes() -> None:  # runs in the child: the pipe ends become fds 3 and 4
            read_end = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._process = subprocess.Popen(
            [
                chromium_path(), "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
                "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--mute-audio", "about:blank",
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=place_pipes, close_fds=False,
        )  # fmt: skip
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.errors: list[str] = []
        self._loaded = False
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    # -- the protocol -------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_child], [], [], COMMAND_TIMEOUT_S)
            if not ready:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        data: dict[str, Any] = json.loads(message)
        self._event(data)
        return data

    def _event(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(f"exception: {details.get('text')} {details.get('exception')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(f"log: {params['entry'].get('text')}")
        elif method == "Page.loadEventFired":
            self._loaded = True

    def _call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            command["sessionId"] = session
        os.write(self._to_child, json.dumps(command).encode() + b"\0")
        while True:
            message = self._read()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command to the page; its result."""
        return self._call(method, params, self._session)

    # -- what the tests use -------------------------------------------------------------------

    def open(self, path: Path) -> None:
        """Load the file ``path`` and wait for its load event."""
        self._loaded = False
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        while not self._loaded:
            self._read()

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values)."""
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} raised {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        """The viewport as PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        """Close the browser and remove its profile."""
        with contextlib.suppress(RuntimeError, OSError, TimeoutError):
            self._call("Browser.close")
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self._profile, ignore_errors=True)
