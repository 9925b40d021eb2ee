#!/usr/bin/env python
"""The tests that take longer than a threshold and are not marked ``slow``.

Reads the report that ``python -m pytest --durations=0`` prints (saved to a file), takes
each test's longest phase (setup, call or teardown), and asks pytest (collecting their
files) which of the tests over the threshold carry the ``slow`` marker: a marker on the
test, its class, its module's ``pytestmark`` or its parameter set all count, as for
``pytest -m slow``. Prints the others, slowest first, as ``SECONDS  NODE_ID``.

Usage::

    python -m pytest -n 2 --durations=0 | tee durations.log
    python scripts/slow_tests.py durations.log                  # over 10 s
    python scripts/slow_tests.py durations.log --threshold 8

Exit codes: 0 when every test over the threshold is marked, 1 when some are not, 2 for a
file that cannot be read or holds no durations. A test of the report that pytest no
longer collects (renamed, moved) is named on stderr and does not change the exit code.
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: one line of the report: ``12.34s call     tests/x/test_y.py::test_z[a-b]``
LINE = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown) +(\S.*?)\s*$")
HEADER = re.compile(r"^=+ slowest (?:\d+ )?durations =+$")


class ReportError(Exception):
    """A report that holds no durations section."""


@dataclass(frozen=True)
class Duration:
    """One line of a ``--durations`` report.

    Attributes
    ----------
    seconds : float
        The time of the phase.
    phase : str
        ``setup``, ``call`` or ``teardown``.
    node : str
        The test's node id.
    """

    seconds: float
    phase: str
    node: str


def parse_report(text: str) -> list[Duration]:
    """The durations of a report, in its order.

    Only the lines of the ``slowest durations`` section count (a test's own output
    cannot pose as one). Raises :class:`ReportError` when there is no such section.

    >>> parse_report("== slowest durations ==\\n3.20s call     t.py::a[x y]\\n")
    [Duration(seconds=3.2, phase='call', node='t.py::a[x y]')]
    """
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if HEADER.match(line.strip())]
    if not starts:
        raise ReportError("no 'slowest durations' section (run pytest with --durations=0)")
    found = []
    for line in lines[starts[-1] + 1 :]:
        match = LINE.match(line)
        if match:
            found.append(Duration(float(match[1]), match[2], match[3]))
        elif line.startswith("=") or (line.strip() and not line.startswith("(")):
            break
    return found


def over(durations: list[Duration], threshold: float) -> dict[str, float]:
    """Each test whose longest phase is over ``threshold`` seconds, with that time.

    >>> over([Duration(2.0, "setup", "a"), Duration(11.0, "call", "a"),
    ...       Duration(9.0, "call", "b")], 10)
    {'a': 11.0}
    """
    longest: dict[str, float] = {}
    for d in durations:
        longest[d.node] = max(longest.get(d.node, 0.0), d.seconds)
    return {node: s for node, s in longest.items() if s > threshold}


#: run by ``python -c``: collect, and print each test with whether it carries the marker
COLLECT = """
import sys, pytest
class Recorder:
    def pytest_collection_modifyitems(self, items):
        for item in items:
            print("@@", int(item.get_closest_marker(sys.argv[1]) is not None), item.nodeid)
sys.exit(pytest.main(sys.argv[2:], plugins=[Recorder()]))
"""


def collect(nodes: list[str], root: Path, marker: str) -> dict[str, bool]:
    """Each test pytest collects from the files of ``nodes``: whether it has ``marker``.

    A marker on the test, its class, its module (``pytestmark``) or its parameter set
    counts, as for ``pytest -m``.
    """
    files = sorted({node.split("::", 1)[0] for node in nodes})
    if not files:
        return {}
    options = ["--collect-only", "-q", "-p", "no:cacheprovider", "-o", "addopts="]
    command = [sys.executable, "-c", COLLECT, marker, *options, "--rootdir", str(root), *files]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 5):  # 5: nothing collected
        raise ReportError(f"pytest --collect-only failed:\n{done.stdout[-2000:]}{done.stderr}")
    found = {}
    for line in done.stdout.splitlines():
        if line.startswith("@@ "):
            flag, node = line[3:].split(" ", 1)
            found[node] = flag == "1"
    return found


def _seconds(text: str) -> float:
    """A threshold: a finite number of seconds, zero or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"a number of seconds, 0 or more, not {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    """List the unmarked tests over the threshold; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("report", type=Path, help="a saved `pytest --durations=0` report")
    parser.add_argument("--threshold", type=_seconds, default=10.0, help="seconds (default 10)")
    parser.add_argument("--marker", default="slow", help="the marker (default slow)")
    parser.add_argument("--root", type=Path, default=ROOT, help="where to run pytest")
    args = parser.parse_args(argv)
    try:
        slow = over(parse_report(args.report.read_text(encoding="utf-8")), args.threshold)
        nodes = sorted(slow)
        marked = collect(nodes, args.root, args.marker)
    except (OSError, UnicodeDecodeError, ReportError) as error:
        print(f"slow_tests: {args.report}: {error}", file=sys.stderr)
        return 2
    for node in nodes:
        if node not in marked:
            print(f"not collected now (moved or renamed?): {node}", file=sys.stderr)
    unmarked = [n for n in nodes if marked.get(n) is False]
    for node in sorted(unmarked, key=lambda n: (-slow[n], n)):
        print(f"{slow[node]:8.2f}  {node}")
    return 1 if unmarked else 0


if __name__ == "__main__":
    sys.exit(main())
