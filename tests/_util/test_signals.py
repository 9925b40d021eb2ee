"""``SIGTERM`` stops a command as Ctrl-C does; signal tests set their child's disposition.

A command stopped by ``SIGTERM`` (sent to it alone, as ``kill`` and job schedulers do)
leaves no partial file, ends its worker processes, prints ``terminated`` and exits
with 143; ``eval`` is covered in ``test_evaluate.py`` (its run stored as
``interrupted``, the answers received kept).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.signals import default_signals, spawn

_MAIN = "from twosat_formal.cli import main; main()"


def _children(pid: int) -> set[int]:
    """The child processes of ``pid`` (from ``/proc``)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(
    not Path("/proc/self/task").exists(), reason="reads the process tree from /proc"
)
def _ctrl_c_ignored() -> None:
    """A child as a background job starts it: Ctrl-C ignored, SIGTERM at its default."""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stop", "start"),
    [
        (signal.SIGTERM, default_signals),
        (signal.SIGINT, default_signals),
        (signal.SIGTERM, _ctrl_c_ignored),
    ],
    ids=["sigterm", "sigint", "sigterm-in-background"],
)
@pytest.mark.parametrize("name", ["generate", "certify"])
def test_a_signal_to_the_command_alone_stops_it_and_its_workers(
    tmp_path: Path, many: Path, stop: signal.Signals, start: Callable[[], None], name: str
) -> None:
    out = tmp_path / "dataset.jsonl"
    if name == "generate":
        words = ["generate", "backbone", "--clauses", "40", "--count", "1000000"]
        words += ["--out", str(out)]
    else:
        words = ["certify", str(many)]
    command = [sys.executable, "-c", _MAIN, *words, "--jobs", "2", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = spawn(command, start=start, env=env)
    try:
        workers: set[int] = set()
        for _ in range(6000):  # until both workers run, however slow the host
            workers = _children(proc.pid)
            if len(workers) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert len(workers) >= 2, proc.communicate()[1]
        time.sleep(0.5)  # the workers are busy with their batches
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=120)  # a hang fails here, not a slow machine
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    code, said = (143, "terminated") if stop == signal.SIGTERM else (130, "interrupted")
    assert proc.returncode == code, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == said, err
    assert list(tmp_path.iterdir()) == []  # no output, no partial file
    for _ in range(1000):
        if not any(_running(pid) for pid in workers):
            break
        time.sleep(0.01)
    assert not any(_running(pid) for pid in workers)


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset that certify takes seconds over."""
    from twosat_formal.make.generators import generate

    path = tmp_path_factory.mktemp("many") / "dataset.jsonl"
    lines = [generate("backbone", clauses=20, seed=seed).to_json() for seed in range(2000)]
    path.write_text("\n".join(lines) + "\n")
    return path


_HANDLER = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_a_child_gets_ctrl_c_even_where_its_parent_ignores_it() -> None:
    """What a background job does to its children, and what the signal tests undo."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        inherited = subprocess.run(
            [sys.executable, "-c", _HANDLER], capture_output=True, text=True, check=True
        )
        restored = subprocess.run(
            [sys.executable, "-c", _HANDLER],
            capture_output=True,
            text=True,
            check=True,
            preexec_fn=default_signals,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    assert inherited.stdout.strip() == "False"  # ignored, as launched from a background job
    assert restored.stdout.strip() == "True"
