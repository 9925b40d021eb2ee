"""The local llama.cpp backend end to end: a real server, the real gemma3-270m model.

These tests check the pipeline (start, request, finish reason, usage, stop), never
the model's answers: gemma3-270m is a small base model. They need the ``[local]``
extra and are skipped, with that reason, only when ``llama_cpp`` cannot be imported.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.llama import NEEDS_LLAMA
from tests.support.signals import spawn
from twosat_formal.errors import EvaluationError
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.base import SamplingParams
from twosat_formal.evaluate.models.llamacpp import LlamaCppModel, LlamaCppServer

pytestmark = NEEDS_LLAMA

PROMPT = "Question: is the sky blue? Answer:"
SHORT = SamplingParams(max_tokens=8, temperature=0.0, seed=1)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, limit_s: float = 60.0) -> bool:
    """Wait (bounded) until ``pid`` is gone; returns whether it is."""
    deadline = time.monotonic() + limit_s
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _alive(pid)


def _server_pid(model: object) -> int:
    assert isinstance(model, LlamaCppModel) and model.server is not None
    pid = model.server.pid
    assert pid is not None
    return pid


@pytest.mark.slow
def test_completion_mode_end_to_end_and_stop_on_error() -> None:
    pids: list[int] = []

    async def run() -> None:
        async with load_model("llamacpp/gemma3-270m?n_ctx=1024", mode="completion") as model:
            assert model.endpoint == "local" and model.spec == "llamacpp/gemma3-270m?n_ctx=1024"
            pids.append(_server_pid(model))
            assert _alive(pids[0])
            response = await model.generate(PROMPT, SHORT)
            assert response.finish_reason == "length" and response.truncated
            assert response.completion_tokens == 8
            assert response.prompt_tokens is not None and response.prompt_tokens > 0
            assert response.latency_s is not None and response.text
            again = await model.generate(PROMPT, SHORT)
            assert again.finish_reason == "length"
            raise RuntimeError("boom inside the async with")

    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(run())
    assert pids and _wait_gone(pids[0])


@pytest.mark.slow
def test_chat_mode_round_trip() -> None:
    async def run() -> tuple[int, str | None, int | None]:
        model = load_model("llamacpp/gemma3-270m?n_ctx=1024&mode=chat")
        try:
            response = await model.generate(PROMPT, SHORT)  # starts the server on first use
            return _server_pid(model), response.finish_reason, response.prompt_tokens
        finally:
            await model.aclose()

    pid, finish, prompt_tokens = asyncio.run(run())
    assert finish in ("stop", "length")
    assert prompt_tokens is not None and prompt_tokens > 0
    assert _wait_gone(pid)


@pytest.mark.slow
def test_cancelled_task_stops_the_server() -> None:
    pids: list[int] = []

    async def hold() -> None:
        async with load_model("llamacpp/gemma3-270m?n_ctx=512", mode="completion") as model:
            pids.append(_server_pid(model))
            await asyncio.sleep(3600)

    async def run() -> None:
        task = asyncio.create_task(hold())
        while not pids and not task.done():
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert pids and _wait_gone(pids[0])


_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from twosat_formal.evaluate.models import load_model

    async def main(how):
        model = load_model("llamacpp/gemma3-270m?n_ctx=512", mode="completion")
        if how == "atexit":  # started and never closed: only the atexit guard stops it
            await model.start()
            print(model.server.pid, flush=True)
            return
        async with model:
            print(model.server.pid, flush=True)
            await asyncio.sleep(3600)

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["sigint", "sigkill", "atexit"])
def test_server_dies_with_its_owner(how: str) -> None:
    """Ctrl-C, a killed parent and a plain exit without closing all stop the server."""
    child = spawn([sys.executable, "-c", _CHILD, how])
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip().isdigit(), child.stderr.read() if child.stderr else ""
        pid = int(line)
        if how == "sigint":
            assert _alive(pid)
            child.send_signal(signal.SIGINT)
        elif how == "sigkill":
            assert _alive(pid)
            child.kill()
        child.wait(timeout=120)
        assert _wait_gone(pid)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.slow
def test_broken_model_file_reports_the_server_output(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file\n" * 64)
    server = LlamaCppServer(broken, n_ctx=256, startup_timeout_s=120)
    with pytest.raises(EvaluationError) as info:
        asyncio.run(server.start())
    message = str(info.value)
    assert "exited with code" in message and "last output:" in message
    assert message.split("last output:", 1)[1].strip()  # the tail is not empty
    assert server.pid is not None and _wait_gone(server.pid)
