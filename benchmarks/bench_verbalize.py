"""Verbalize a dataset with round-trip proofs: prompts per second against the code before.

The dataset is Table 1's grid (``--count`` formulas per cell); every instance is
verbalized with every template (six prompts, each with its round-trip proof: the text
parsed back, compared clause by clause and proven equivalent by Z3) by
:func:`twosat_formal.verbalize.lines.prompt_lines`.

1. **Prompts per second** in this process, against the same function of the package
   at the commit before the hot-path work (``--baseline``, loaded beside the current
   one by ``benchmarks/_before.py``), the two alternating, ``--repeat`` rounds, each
   from cold caches; CPU time (the steadier figure on a shared machine) and wall
   time, medians, and their ratio (the issue asks for 5x its ~180 prompts/s).
2. **Workers**: the same on N worker processes (``--jobs``, default 2) against one
   worker, and a check that both wrote the same prompts (ids and texts).

No assertion is made on time. Usage::

    python benchmarks/bench_verbalize.py            # 5 formulas per cell, 660 prompts
    python benchmarks/bench_verbalize.py --small    # small cells only (CI)
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _before import BASELINE, cold, load_before, module_of
from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]

from twosat_formal._util.executors import Executor, LocalExecutor, ProcessExecutor
from twosat_formal.verbalize import TEMPLATES
from twosat_formal.verbalize.lines import prompt_lines

#: The issue's measured rate (prompts per second, round-trip proofs included).
ISSUE_RATE = 180.0


def run(path: Path, executor: Executor) -> tuple[float, list[tuple[str, str]]]:
    """Seconds to verbalize ``path`` with every template, and the prompts' ids and texts."""
    start = time.perf_counter()
    lines = list(prompt_lines(path, TEMPLATES.names(), seed=0, executor=executor))
    seconds = time.perf_counter() - start
    return seconds, [(json.loads(line)["id"], json.loads(line)["text"]) for line in lines]


def rates(
    peers: dict[str, tuple[Callable[[], Iterable[Any]], str]], repeat: int
) -> dict[str, list[tuple[float, float]]]:
    """``(CPU, wall)`` prompts per second of each peer, alternating, ``repeat`` rounds."""
    found: dict[str, list[tuple[float, float]]] = {who: [] for who in peers}
    for _ in range(repeat):
        for who, (make, package) in peers.items():
            cold(package)
            cpu, wall = time.process_time(), time.perf_counter()
            count = sum(1 for _ in make())
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            found[who].append((count / cpu, count / wall))
    return found


def write_grid(package: str, path: Path, small: bool, count: int) -> int:
    """Write the grid's instances with ``package`` (the current one or the peer)."""
    grids = module_of(package, "make.generators.grids", "generators.grids")
    cells = grids.grid_cells("table1", count=1 if small else count)
    if small:
        cells = [cell for cell in cells if cell.clauses is not None and cell.clauses <= 20]
    written: int = module_of(package, "io.instance", "instance").write_instances(
        (inst for cell in cells for inst in cell.dataset(0)), path
    )
    return written


def main(argv: Sequence[str] | None = None) -> None:
    args = bench_parser(
        __doc__, "small cells only (for CI)", count=5, jobs=2, repeat=3, baseline=BASELINE
    ).parse_args(argv)
    repeat = 1 if args.small else args.repeat
    print(f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.jsonl"
        instances = write_grid("twosat_formal", path, args.small, args.count)
        templates = TEMPLATES.names()
        before = load_before(args.baseline) is not None
        if before:  # the peers verbalize the templates both versions have
            known = importlib.import_module("twosat_formal_before.verbalize").TEMPLATES.names()
            templates = [name for name in templates if name in known]
        peers: dict[str, tuple[Callable[[], Iterable[Any]], str]] = {
            "now": (lambda: prompt_lines(path, templates, seed=0), "twosat_formal")
        }
        if before:
            old = importlib.import_module("twosat_formal_before.verbalize.lines")
            old_path = Path(tmp) / "before.jsonl"
            write_grid("twosat_formal_before", old_path, args.small, args.count)
            peers["before"] = (
                lambda: old.prompt_lines(old_path, templates, seed=0),
                "twosat_formal_before",
            )
        found = rates(peers, repeat)
        one, prompts = run(path, LocalExecutor())
        with ProcessExecutor(args.jobs) as executor:
            many, again = run(path, executor)
    if again != prompts:
        raise SystemExit("the parallel run wrote other prompts")
    print(f"dataset: {instances} instances, {len(prompts)} prompts with round-trip proofs")
    cpu_now = statistics.median(c for c, _ in found["now"])
    wall_now = statistics.median(w for _, w in found["now"])
    print(
        f"verbalize, prompts per CPU second (median of {repeat}): now {cpu_now:.0f} "
        f"{[round(c) for c, _ in found['now']]}; per wall second {wall_now:.0f}"
    )
    if "before" in found:
        cpu_old = statistics.median(c for c, _ in found["before"])
        wall_old = statistics.median(w for _, w in found["before"])
        print(
            f"  peer, the code at {args.baseline}: {cpu_old:.0f} "
            f"{[round(c) for c, _ in found['before']]}; per wall second {wall_old:.0f}; "
            f"ratio now/before {cpu_now / cpu_old:.2f}x CPU, {wall_now / wall_old:.2f}x wall"
        )
    else:
        print(f"  peer: commit {args.baseline} is not in this clone's history; not run")
    print(f"  against the issue's {ISSUE_RATE:.0f}/s: {cpu_now / ISSUE_RATE:.2f}x (goal >= 5)")
    rate_one, rate_many = len(prompts) / one, len(prompts) / many
    print(
        f"verbalize, 1 worker (peer, this process, caches warm): {rate_one:.0f} prompts/s "
        f"({one:.2f} s)"
    )
    print(
        f"verbalize, {args.jobs} workers (their start included): {rate_many:.0f} prompts/s "
        f"({many:.2f} s); ratio {rate_many / rate_one:.2f}x"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
