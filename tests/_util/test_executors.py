"""Executors: order, errors and bounded reading; the same bytes on local, process and Ray.

The byte comparisons run the real commands (generate, perturb, edit, verbalize) on
every executor and number of workers. Measured times (``proof.seconds``,
``roundtrip.time_s``) are the one part of a record that no rerun reproduces, so they
are blanked before comparing; everything else must match byte for byte.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run
from tests.support.signals import spawn
from twosat_formal._util import executors
from twosat_formal._util.executors import (
    DEFAULT_CHUNK,
    FIRST_CHUNK,
    Executor,
    LocalExecutor,
    ProcessExecutor,
    make_executor,
    parse_shard,
    shard_range,
)
from twosat_formal.cli import main
from twosat_formal.errors import ConfigError, RecordError, TwoSatFormalError, UnknownNameError

MEASURED = {"seconds", "time_s", "z3_seconds"}


def blank_measured(value: Any) -> Any:
    """``value`` with every measured time set to 0 (keys ``seconds`` and ``time_s``)."""
    if isinstance(value, dict):
        return {k: 0 if k in MEASURED else blank_measured(v) for k, v in value.items()}
    if isinstance(value, list):
        return [blank_measured(v) for v in value]
    return value


def comparable(text: str) -> list[str]:
    """The lines of a JSON Lines output, measured times blanked, re-encoded."""
    return [json.dumps(blank_measured(json.loads(line))) for line in text.splitlines()]


# -- work functions (module level: the process and Ray workers import them) --------------


def square_or_fail(bad: int, x: int) -> int:
    if x == bad:
        raise RecordError(f"item {x} is bad", line=x, source="items")
    return x * x


def unknown_name(x: int) -> int:
    raise UnknownNameError("thing", str(x), ["a", "b"])


def not_ours(x: int) -> int:
    raise ZeroDivisionError("a bug, not a user error")


_STARTED: list[int] = []


def note_start() -> None:
    _STARTED.append(os.getpid())


def started_here(x: int) -> tuple[int, bool]:
    """``x``, and whether this worker ran the initializer (once, in this very process)."""
    return x, [os.getpid()] == _STARTED


# -- the abstraction ----------------------------------------------------------------------


@pytest.mark.parametrize("kind,jobs", [("local", None), ("process", 1), ("process", 2)])
def test_results_come_in_input_order(kind: str, jobs: int | None) -> None:
    with make_executor(kind, jobs=jobs, chunk=3) as ex:
        assert list(ex.map(partial(square_or_fail, -1), range(25))) == [x * x for x in range(25)]
        assert list(ex.map(abs, [])) == []


@pytest.mark.parametrize("kind,jobs", [("local", None), ("process", 2)])
def test_the_first_error_in_input_order_is_raised_after_the_items_before_it(
    kind: str, jobs: int | None
) -> None:
    got: list[int] = []
    with make_executor(kind, jobs=jobs, chunk=2) as ex, pytest.raises(RecordError) as info:
        got.extend(ex.map(partial(square_or_fail, 7), range(20)))
    assert got == [x * x for x in range(7)]
    assert str(info.value) == "items:7: item 7 is bad" and info.value.line == 7


def test_an_error_that_does_not_pickle_keeps_its_message() -> None:
    with ProcessExecutor(2) as ex, pytest.raises(TwoSatFormalError) as info:
        list(ex.map(unknown_name, [1, 2]))
    assert str(info.value) == "unknown thing '1'; choose one of: a, b"


def test_a_bug_in_a_worker_is_not_hidden() -> None:
    with ProcessExecutor(1) as ex, pytest.raises(ZeroDivisionError):
        list(ex.map(not_ours, [1]))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_started_workers_each_run_the_initializer_first(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "start_method", lambda: method)
    with ProcessExecutor(2, chunk=1) as ex:
        ex.start(note_start)
        ex.start(not_ours)  # type: ignore[arg-type]  # already started: not called
        assert list(ex.map(started_here, range(6))) == [(x, True) for x in range(6)]
    assert _STARTED == []  # not in this process
    with LocalExecutor() as local:
        local.start(note_start)  # nothing to start here
        assert _STARTED == [] and list(local.map(abs, [-1])) == [1]


@pytest.mark.skipif(sys.platform != "linux", reason="the process executor forks on Linux only")
def test_workers_are_forked_only_from_a_single_thread() -> None:
    alone = threading.active_count() == 1  # pytest's own process runs one thread
    assert executors.start_method() == ("fork" if alone else "spawn")
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert executors.start_method() == "spawn"
    finally:
        release.set()
        other.join()
    assert executors.start_method() == ("fork" if alone else "spawn")


def log_and_sleep(log: str, item: int) -> int:
    """Note that ``item`` starts (one line, appended) and take a while over it."""
    import time

    with open(log, "a") as stream:
        stream.write(f"start {item}\n")
    time.sleep(0.2)
    return item


INTERRUPTED = """
import sys
from functools import partial
from tests._util.test_executors import log_and_sleep
from twosat_formal._util.executors import ProcessExecutor
with ProcessExecutor(2, chunk=1) as ex:
    for done in ex.map(partial(log_and_sleep, sys.argv[1]), range(100_000)):
        if done == 4:
            print("running", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_the_workers_and_the_command_at_once(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group: the workers end at once, without going
    on with the items queued for them or printing tracebacks, and the map raises
    KeyboardInterrupt in the command."""
    import signal

    log = tmp_path / "items.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = spawn([sys.executable, "-c", INTERRUPTED, str(log)], env=env, new_session=True)
    try:
        assert command.stdout is not None and command.stdout.readline() == "running\n"
        with open(log, "a") as stream:
            stream.write("SIGINT\n")
        os.killpg(command.pid, signal.SIGINT)
        _, err = command.communicate(timeout=120)  # a hang fails here, not a slow machine
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode != 0
    assert err.count("KeyboardInterrupt") == 1 and "_process_worker" not in err, err
    after = log.read_text().split("SIGINT\n")[1].splitlines()
    assert len(after) <= 2, after  # at most one item a worker began as the signal came


class _Recording(Executor):
    """Runs batches here and records their sizes."""

    def __init__(self, chunk: int | None = None) -> None:
        super().__init__(2, chunk=chunk)
        self.sizes: list[int] = []

    def _submit(self, fn: Any, batch: list[Any]) -> Any:
        self.sizes.append(len(batch))
        return [fn(x) for x in batch]

    def _result(self, handle: Any) -> list[Any]:
        return list(handle)


def test_batches_grow_by_default_and_keep_a_fixed_size_when_asked() -> None:
    growing = _Recording()
    assert list(growing.map(abs, range(-300, 0))) == list(range(300, 0, -1))
    sizes = [FIRST_CHUNK]
    while sum(sizes) < 300:
        sizes.append(min(2 * sizes[-1], DEFAULT_CHUNK, 300 - sum(sizes)))
    assert growing.sizes == sizes and max(sizes) == DEFAULT_CHUNK
    fixed = _Recording(chunk=5)
    assert list(fixed.map(abs, range(12))) == list(range(12))
    assert fixed.sizes == [5, 5, 2]


def test_input_is_read_only_as_fast_as_results_are_taken() -> None:
    consumed = 0

    def items() -> Iterator[int]:
        nonlocal consumed
        for x in range(10_000):
            consumed += 1
            yield x

    with ProcessExecutor(2, chunk=4) as ex:
        results = ex.map(abs, items())
        assert next(results) == 0
        assert consumed <= ex.window * ex.chunk + ex.chunk
        assert sum(results) == sum(range(10_000))
    consumed = 0
    with ProcessExecutor(2) as ex:  # growing batches: bounded by the largest
        results = ex.map(abs, items())
        assert next(results) == 0
        assert consumed <= ex.window * ex.chunk + ex.chunk
        assert sum(results) == sum(range(10_000))
    lazy = LocalExecutor().map(abs, items())
    consumed = 0
    next(lazy)
    assert consumed == 1


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"--jobs must be in \[1, 1024\]"):
        make_executor("process", jobs=0)
    with pytest.raises(UnknownNameError, match="local, process, ray"):
        make_executor("threads")
    with pytest.raises(ConfigError, match="0 <= i < n"):
        parse_shard("2")


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ConfigError, match=r"pip install 'twosat-formal\[ray\]'"):
        make_executor("ray")


def test_shards_partition_the_items_in_order() -> None:
    for total in range(12):
        for count in range(1, 6):
            blocks = [list(shard_range(total, (i, count))) for i in range(count)]
            assert [x for block in blocks for x in block] == list(range(total))


# -- the commands: the same bytes on every executor ---------------------------------------


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("exec") / "data.jsonl"
    main_argv = ["generate", "--grid", "table1", "--count", "1", "--out", str(path)]
    with pytest.raises(SystemExit):
        main([*main_argv, "--no-progress"])
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:9]) + "\n")  # small formulas of several families
    return path


def commands(dataset: Path) -> dict[str, list[str]]:
    data = str(dataset)
    return {
        "generate": ["generate", "backbone", "--clauses", "12", "--count", "9", "--seed", "4"],
        "perturb": ["perturb", data, "--op", "reorder", "--op", "rename", "--seed", "2"],
        "edit": ["edit", data, "--mode", "individual", "-k", "1", "--seed", "3"],
        "verbalize": ["verbalize", data, "--template", "all", "--seed", "5"],
    }


def outputs(
    dataset: Path, options: list[str], capsys: pytest.CaptureFixture[str]
) -> dict[str, list[str]]:
    found = {}
    for name, argv in commands(dataset).items():
        code, out, err = run([*argv, "--no-progress", *options], capsys)
        assert code == 0, err
        found[name] = comparable(out)
    # certify the perturbed dataset and the prompts: the same report, but for times
    perturbed, prompts = dataset.parent / "perturbed.jsonl", dataset.parent / "prompts.jsonl"
    perturbed.write_text("".join(line + "\n" for line in found["perturb"]))
    prompts.write_text("".join(line + "\n" for line in found["verbalize"]))
    code, out, err = run(
        ["certify", str(perturbed), str(prompts), "--json", "--no-progress", *options], capsys
    )
    assert code == 0, err
    report = blank_measured(json.loads(out))
    assert report["ok"] and report["records"] == len(found["perturb"]) + len(found["verbalize"])
    found["certify"] = [json.dumps(report)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    "options", [["--jobs", "1", "--executor", "process"], ["--jobs", "2"]], ids=["p1", "p2"]
)
def test_process_executor_writes_the_local_bytes(
    dataset: Path, options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    local = outputs(dataset, [], capsys)
    assert all(len(lines) >= 9 for name, lines in local.items() if name != "certify")
    assert outputs(dataset, options, capsys) == local


@pytest.mark.slow
def test_ray_executor_writes_the_local_bytes(
    dataset: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ray = pytest.importorskip("ray", reason="needs the [ray] extra")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local = outputs(dataset, [], capsys)
    assert not ray.is_initialized()
    with make_executor("ray", jobs=2) as ex:  # a real local Ray with 2 CPUs
        assert ray.is_initialized() and ex.jobs == 2
        # Ray workers import the library, not this test module: library functions here
        items = [f"{i}/9" for i in range(9)]
        assert list(ex.map(parse_shard, items)) == [(i, 9) for i in range(9)]
        with pytest.raises(ConfigError, match="got '9/9'"):
            list(ex.map(parse_shard, [*items, "9/9", "10/9"]))
        # the commands find the running Ray and use it (and leave it running)
        assert outputs(dataset, ["--executor", "ray", "--jobs", "2"], capsys) == local
        assert ray.is_initialized()
        bad = dataset.parent / "bad.jsonl"
        bad.write_text(dataset.read_text() + '{"id": \n')
        code, _, err = run(["perturb", str(bad), "--op", "reorder", "--executor", "ray"], capsys)
        assert (
            code == 2
            and err.strip() == f"error: {bad}:10: invalid JSON at column 8: Expecting value"
        )
    assert not ray.is_initialized()  # the executor shut down the Ray it started
