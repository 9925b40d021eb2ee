"""The llama.cpp model without llama.cpp: spec checks and the server's readiness poll.

These need no ``[local]`` extra (``test_models_llamacpp.py`` has the tests that run the
real server). The readiness poll runs against real stand-in processes: it waits until
``GET /v1/models`` answers 200, reports a process that exits before that with its
output, and gives up after the start-up time-out.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from twosat_formal.errors import ConfigError, EvaluationError
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.llamacpp import LlamaCppServer, require_local_extra


class StandIn(LlamaCppServer):
    """A server whose process is a small Python program instead of llama.cpp."""

    def __init__(self, program: str, root: Path, startup_timeout_s: float = 20.0) -> None:
        super().__init__(root / "unused.gguf", startup_timeout_s=startup_timeout_s)
        self.program = program
        self.root = root

    def command(self, port: int) -> list[str]:
        return [sys.executable, "-c", self.program, str(port), str(self.root)]


SERVE = (
    "import functools, http.server, sys, time\n"
    "time.sleep(0.5)\n"  # not ready at once: the poll must wait
    "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[2])\n"
    "http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), handler).serve_forever()\n"
)


def _ready(server: StandIn) -> None:
    async def go() -> None:
        server._spawn()
        try:
            await server._wait_ready()
        finally:
            server.stop()

    asyncio.run(go())


def test_the_poll_waits_for_the_models_endpoint(tmp_path: Path) -> None:
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "models").write_text('{"data": []}', encoding="utf-8")
    server = StandIn(SERVE, tmp_path)
    _ready(server)
    assert not server.running


def test_a_process_that_exits_early_is_reported_with_its_output(tmp_path: Path) -> None:
    server = StandIn("print('no model here'); raise SystemExit(3)", tmp_path)
    with pytest.raises(EvaluationError, match=r"(?s)exited with code 3.*no model here"):
        _ready(server)


@pytest.mark.slow
def test_a_server_that_never_answers_200_times_out(tmp_path: Path) -> None:
    server = StandIn(SERVE, tmp_path, startup_timeout_s=1.5)  # no v1/models file: 404
    with pytest.raises(EvaluationError, match="did not answer"):
        _ready(server)


def test_a_missing_gguf_file_or_a_missing_extra_is_one_clear_error(tmp_path: Path) -> None:
    try:
        require_local_extra()
    except EvaluationError as missing:  # without the [local] extra: the error names it
        assert "[local]" in str(missing) and "\n" not in str(missing)
        with pytest.raises(EvaluationError, match=r"\[local\]"):
            load_model(f"llamacpp/{tmp_path / 'absent.gguf'}")
        return
    with pytest.raises(ConfigError) as info:
        load_model(f"llamacpp/{tmp_path / 'absent.gguf'}")
    assert "llamacpp/<path.gguf>" in str(info.value.valid)
