"""The console script's end of process (:func:`twosat_formal.cli.entry.end_of_process`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Run first in each probe: an exit handler registered before the CLI's, so that it runs
#: after it (handlers run last in, first out) and reports what the process ends with.
REPORT_AT_EXIT = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: sys.stderr.write(f'frozen={gc.get_freeze_count() > 0}\\n'))\n"
    "from twosat_formal.cli import entry\n"
)


def probe(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``REPORT_AT_EXIT`` and ``code`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", REPORT_AT_EXIT + code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_the_console_script_ends_with_its_objects_frozen_and_its_exit_code() -> None:
    done = probe("entry.main(['--version'])")
    assert done.returncode == 0 and done.stdout.startswith("twosat-formal ")
    assert done.stderr.splitlines()[-1] == "frozen=True"


def test_garbage_left_when_the_command_ends_is_still_finalized() -> None:
    """A cycle that became garbage after the command ran (the collector off, so that
    nothing collects it before the exit) is collected, its finalizer run, at exit."""
    code = (
        "try:\n    entry.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "gc.disable()\n"
        "class Cycle:\n"
        "    def __del__(self):\n"
        "        sys.stderr.write('finalized\\n')\n"
        "cycle = Cycle()\ncycle.me = cycle\ndel cycle\n"
    )
    done = probe(code)
    assert done.returncode == 0 and "Commands" in done.stdout
    assert done.stderr.splitlines()[-2:] == ["finalized", "frozen=True"]


def test_a_caller_that_goes_on_runs_the_end_once_at_its_exit() -> None:
    code = (
        "ends = []\n"
        "entry.end_of_process = lambda: ends.append(1)\n"
        "atexit.register(lambda: sys.stderr.write(f'ends={len(ends)}\\n'))\n"
        "for _ in range(3):\n"
        "    try:\n        entry.main(['--version'])\n    except SystemExit:\n        pass\n"
        "sys.stderr.write(f'before exit: ends={len(ends)} frozen={gc.get_freeze_count() > 0}\\n')\n"
    )
    done = probe(code)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "before exit: ends=0 frozen=False" in lines
    assert lines[-2:] == ["ends=1", "frozen=False"]  # the stand-in froze nothing


def test_a_ctrl_c_in_the_teardown_of_a_finished_command_is_ignored() -> None:
    """A SIGINT once the command is done (in a finalizer of the teardown) neither prints
    "Exception ignored ..." nor changes the exit code; a handler of the caller's own is
    left in place."""
    code = (
        "import os, signal\n"
        "try:\n    entry.main(['--version'])\nexcept SystemExit:\n    pass\n"
        "gc.disable()\n"
        "class Late:\n"
        "    def __del__(self):\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        sys.stderr.write('after the signal\\n')\n"
        "late = Late()\nlate.me = late\ndel late\n"
    )
    done = probe(code)
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr and "KeyboardInterrupt" not in done.stderr
    assert done.stderr.splitlines()[-2:] == ["after the signal", "frozen=True"]
    own = probe(
        "import signal\nsignal.signal(signal.SIGINT, lambda *a: None)\n"
        "try:\n    entry.main(['--version'])\nexcept SystemExit:\n    pass\n"
        "entry.end_of_process()\n"
        "sys.stderr.write(f'kept={signal.getsignal(signal.SIGINT) is not signal.SIG_IGN}\\n')\n"
    )
    assert own.returncode == 0 and "kept=True" in own.stderr, own.stderr
