"""Eval says what went wrong: fail fast on endpoints that cannot work, summarise errors.

Every failure is produced by a real socket: the loopback fault server answers HTTP 401,
403, 404 and 500, and a port nobody listens on refuses connections.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import FAST, answers_for, make_items, write_inputs
from tests.support.faultserver import FaultServer
from twosat_formal.cli import main
from twosat_formal.errors import (
    EXIT_REQUESTS_FAILED,
    EndpointError,
    RefusedRequestError,
    unreachable,
)
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.run import run_eval
from twosat_formal.evaluate.store import RunStore

SECRET = "hunter2-secret"


def closed_port() -> int:
    """A port that was free a moment ago: nobody listens on it now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def eval_args(tmp_path: Path, base_url: str, *extra: str, count: int = 6) -> list[str]:
    prompts, dataset = write_inputs(tmp_path, make_items(count))
    return [
        "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
        "--base-url", base_url, "--store", str(tmp_path / "s.sqlite"), "--no-progress", *extra,
    ]  # fmt: skip


def test_a_closed_port_fails_at_once_with_one_line_naming_the_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = closed_port()
    url = f"http://user:{SECRET}@127.0.0.1:{port}/v1?key={SECRET}"
    code, out, err = run_cli(capsys, *eval_args(tmp_path, url, "--max-attempts", "6"))
    assert code == EXIT_REQUESTS_FAILED == 3
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert f"127.0.0.1:{port}/v1" in lines[0] and "connection refused" in lines[0]
    assert SECRET not in err + out and "Traceback" not in err
    with RunStore(tmp_path / "s.sqlite", readonly=True) as store:
        assert store.count() == 0  # nothing stored: the next run asks everything
        assert store.runs()[-1]["status"] == "failed"


@pytest.mark.parametrize(("fault", "hint"), [("401", "API key"), ("403", "permissions"),
                                             ("404", "model id")])  # fmt: skip
def test_refused_requests_fail_fast_without_retries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fault: str, hint: str
) -> None:
    with FaultServer(plan=lambda prompt, attempt: fault) as server:
        args = eval_args(tmp_path, server.url, "--concurrency", "1", count=5)
        code, _, err = run_cli(capsys, *args)
        seen = len(server.log)
    assert code == 3
    assert seen == 1  # one request, no retry, no second prompt
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: cannot use {server.url}/chat/completions: HTTP {fault}")
    assert hint in line


def test_every_request_of_a_model_failed_exits_3_with_the_most_frequent_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FaultServer(plan=lambda prompt, attempt: "500") as server:
        args = eval_args(tmp_path, server.url, "--max-attempts", "1", "--model", "ref/oracle")
        code, out, err = run_cli(capsys, *args)
    assert code == 3
    assert "error      6x HTTP 500 from" in out and "server error" in out
    assert err.strip().splitlines() == [
        "error: every request of openai/m failed (errors above; `results` lists each one)"
    ]
    code, out, _ = run_cli(capsys, *args, "--json")  # stored errors are skipped: nothing done
    assert code == 0 and json.loads(out)["done"] == 0


def test_some_failed_requests_are_summarised_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = make_items(6)
    prompts, dataset = write_inputs(tmp_path, items)
    failing = {items[0].prompt.text, items[1].prompt.text}
    plan = {True: "503", False: "ok"}
    answers = answers_for(items)
    with FaultServer(plan=lambda p, a: plan[p in failing], answer=answers) as server:
        code, out, err = run_cli(
            capsys, "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
            "--base-url", server.url, "--store", str(tmp_path / "s.sqlite"), "--no-progress",
            "--max-attempts", "1", "--json",
        )  # fmt: skip
    summary = json.loads(out)
    assert code == 0 and err == ""
    assert summary["failures"] == {"correct": 4, "error": 2}
    [entry] = summary["errors"]
    assert entry["count"] == 2 and entry["message"].startswith("HTTP 503 from")
    assert summary["failed_models"] == []


def test_the_runner_raises_endpoint_errors_and_marks_the_run_failed(tmp_path: Path) -> None:
    items = make_items(4)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with RunStore(tmp_path / "s.sqlite") as store:

        async def go() -> None:
            async with load_model("openai/m", base_url=url) as model:
                await run_eval([model], items, store, retry=FAST)

        with pytest.raises(EndpointError) as info:
            asyncio.run(go())
        assert info.value.endpoint == f"{url}/chat/completions"
        assert info.value.status is None and info.value.exit_code == 3
        assert store.runs()[-1]["status"] == "failed"


def test_refused_request_errors_are_endpoint_errors_and_http_errors() -> None:
    error = RefusedRequestError("http://h/v1/chat/completions", status=401, detail="bad key")
    assert isinstance(error, EndpointError) and error.status == 401
    assert str(error).startswith("cannot use http://h/v1/chat/completions: HTTP 401: bad key")


def test_dns_failures_and_refusals_are_recognised_through_their_causes() -> None:
    wrapped = OSError("cannot connect")
    wrapped.__cause__ = socket.gaierror(-2, "Name or service not known")
    assert unreachable(wrapped) == "unknown host (DNS lookup failed)"
    assert unreachable(ConnectionRefusedError(111, "refused")) == "connection refused"
    assert unreachable(ConnectionResetError(104, "reset")) is None  # worth retrying


def test_an_unknown_host_fails_at_once_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "http://no-such-host.invalid/v1"  # .invalid never resolves (RFC 6761)
    code, _, err = run_cli(capsys, *eval_args(tmp_path, url, count=2))
    assert code == 3
    assert err.strip().splitlines() == [
        f"error: cannot use {url}/chat/completions: unknown host (DNS lookup failed)"
    ]
