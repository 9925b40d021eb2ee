"""Certify in CI: 100,000 mixed records with ``--jobs``, their memory, and ``--cache`` on 1 % more.

The dataset is the mixed one of ``bench_certify_mixed.py`` (roots of four families,
perturbation chains, fillers, cumulative and individual edits, prompts under every
template), built with the command line at about 56 records per root and family:
``--roots 1790`` gives about 100,000 records. Then, each a fresh command-line process
as a CI job runs it (``certify FILES --jobs N --format junit --output FILE --cache DIR``):

1. **A full run** on a tenth of the dataset (built with a tenth of the roots) and on
   the whole, with an empty cache:
   wall seconds, records per second, and the peak resident memory of the driver and
   of the largest worker (``ru_maxrss``). Memory is flat when the whole costs about
   what the tenth costs (the index keeps about 170 bytes per record id, nothing
   more grows with the records).
2. **The dataset grown by 1 %**: records built with another seed (1 % of the roots)
   appended to its files, certified with the cache of the full run: wall seconds,
   the records checked (the new ones) and those passed from the cache, and the ratio
   to the full run (the goal: about 1 %, plus the fixed cost of reading the files).

Every run must pass; the JUnit report must list every record. No assertion is made
on time. Usage::

    python benchmarks/bench_certify_ci.py             # ~100,000 records (an hour or so on 2 cores)
    python benchmarks/bench_certify_ci.py --small     # ~340 records (CI)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]
from bench_certify_mixed import build  # type: ignore[import-not-found,unused-ignore]

#: A CI job's budget (GitLab's default job timeout; GitHub's is six hours).
CI_BUDGET_S = 3600.0

#: Runs the command line, then prints the peak memory of this process and its workers.
_RUNNER = """
import json, resource, sys
from twosat_formal.cli import main
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": code, "driver_kb": own, "worker_kb": workers}), file=sys.stderr)
"""


def certify(
    paths: Sequence[Path], jobs: int, cache: Path, report: Path
) -> tuple[dict[str, Any], float]:
    """``certify PATHS --jobs N --format junit --output REPORT --cache CACHE`` in a fresh
    process: its exit code and peak memory (driver, largest worker), and its wall seconds."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*sys.path[:2], env.get("PYTHONPATH", "")])
    # --executor process: workers at every size, so the sizes' memory compares
    argv = [*map(str, paths), "--jobs", str(jobs), "--executor", "process", "--no-progress"]
    argv += ["--format", "junit", "--output", str(report), "--cache", str(cache)]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, "certify", *argv],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    wall = time.perf_counter() - start
    figures = json.loads(done.stderr.strip().splitlines()[-1])
    if figures["code"] != 0:
        raise SystemExit(f"certify failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return figures, wall


def junit_counts(report: Path) -> tuple[int, int, int]:
    """Test cases, failures, and cases passed from the cache, read back from the JUnit."""
    root = ET.parse(report).getroot()
    cases = root.iter("testcase")
    cached = 0
    total = 0
    for case in cases:
        total += 1
        out = case.find("system-out")
        cached += out is not None and "--cache" in (out.text or "")
    return total, int(root.get("failures", "0")), cached


def count(paths: Sequence[Path]) -> int:
    return sum(1 for path in paths for line in path.open("rb") if line.strip())


def grow(paths: Sequence[Path], extra: Sequence[Path]) -> None:
    """Append each file of ``extra`` to the file of ``paths`` with the same name."""
    for path, more in zip(paths, extra, strict=True):
        assert path.name == more.name
        with path.open("ab") as out:
            out.write(more.read_bytes())


def _mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def main(argv: Sequence[str] | None = None) -> None:
    args = bench_parser(
        __doc__,
        "about 340 records (for CI)",
        roots=(1790, "roots per family (about 56 records each)"),
        jobs=2,
    ).parse_args(argv)
    roots = 6 if args.small else args.roots
    growth = max(1, round(roots / 100))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        paths = build(folder / "data", roots)
        part = build(folder / "tenth", max(1, roots // 10))
        extra = build(folder / "extra", growth, seed=8)
        print(
            f"built {count(paths)} records (+{count(extra)} to grow by) in "
            f"{time.perf_counter() - start:.0f} s; load average {os.getloadavg()[0]:.2f}"
        )
        runs = {}
        for name, files in (("a tenth", part), ("whole", paths)):
            records = count(files)
            cache = folder / f"cache-{name.replace(' ', '-')}"
            figures, wall = certify(files, args.jobs, cache, folder / "report.xml")
            tests, failures, cached = junit_counts(folder / "report.xml")
            assert tests == records and failures == 0 and cached == 0, (tests, records)
            runs[name] = (records, wall, figures)
            print(
                f"certify --jobs {args.jobs}, {name}: {records} records in {wall:.1f} s wall "
                f"({records / wall:.0f} records/s; {wall / CI_BUDGET_S:.0%} of a one-hour "
                f"CI job), peak memory: driver {_mb(figures['driver_kb'])}, largest worker "
                f"{_mb(figures['worker_kb'])}"
            )
        (small, _, low), (whole, full_wall, high) = runs["a tenth"], runs["whole"]
        ratios = {who: high[f"{who}_kb"] / max(1, low[f"{who}_kb"]) for who in ("driver", "worker")}
        print(
            f"  peak memory from {small} to {whole} records ({whole / small:.0f}x the "
            f"records): driver x{ratios['driver']:.2f}, largest worker x{ratios['worker']:.2f}"
            " (flat: about x1)"
        )
        grow(paths, extra)
        records = count(paths)
        _, wall = certify(paths, args.jobs, folder / "cache-whole", folder / "report.xml")
        tests, failures, cached = junit_counts(folder / "report.xml")
        assert tests == records and failures == 0, (tests, records, failures)
        print(
            f"grown by {records - whole} records ({(records - whole) / whole:.1%}), with "
            f"the cache: {wall:.1f} s wall, {records - cached} records checked, {cached} "
            f"passed from the cache; {wall / full_wall:.1%} of the full run "
            f"(goal: about {(records - whole) / whole:.0%} plus reading the files)"
        )
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
