"""Verbalize a dataset with round-trip proofs: prompts per second, one worker vs N.

The dataset is Table 1's grid (``--count`` formulas per cell); every instance is
verbalized with every template (six prompts, each with its Z3 round-trip proof) by
:func:`twosat_formal.verbalize.lines.prompt_lines`, first in this process and then on
N worker processes (``--jobs``, default 2). The script prints prompts per second of
both and the ratio, N workers over the peer measured in the same run (one worker).
It also checks that both wrote the same prompts (ids and texts). No assertion is made
on time.

Usage::

    python benchmarks/bench_verbalize.py            # 5 formulas per cell, 660 prompts
    python benchmarks/bench_verbalize.py --small    # small cells only (CI)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from twosat_formal.executors import Executor, LocalExecutor, ProcessExecutor
from twosat_formal.generators.grids import grid_cells, grid_instances
from twosat_formal.instance import write_instances
from twosat_formal.verbalize import TEMPLATES
from twosat_formal.verbalize.lines import prompt_lines


def run(path: Path, executor: Executor) -> tuple[float, list[tuple[str, str]]]:
    """Seconds to verbalize ``path`` with every template, and the prompts' ids and texts."""
    start = time.perf_counter()
    lines = list(prompt_lines(path, TEMPLATES.names(), seed=0, executor=executor))
    seconds = time.perf_counter() - start
    return seconds, [(json.loads(line)["id"], json.loads(line)["text"]) for line in lines]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="small cells only (for CI)")
    parser.add_argument("--count", type=int, default=5, help="formulas per grid cell")
    parser.add_argument("--jobs", type=int, default=2, help="workers of the parallel run")
    args = parser.parse_args(argv)
    cells = grid_cells("table1", count=1 if args.small else args.count)
    if args.small:
        cells = [cell for cell in cells if cell.clauses is not None and cell.clauses <= 20]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.jsonl"
        instances = write_instances(grid_instances(cells, 0), path)
        one, prompts = run(path, LocalExecutor())
        with ProcessExecutor(args.jobs) as executor:
            many, again = run(path, executor)
    if again != prompts:
        raise SystemExit("the parallel run wrote other prompts")
    rate_one, rate_many = len(prompts) / one, len(prompts) / many
    print(f"dataset: {instances} instances, {len(prompts)} prompts with round-trip proofs")
    print(f"verbalize, 1 worker (peer): {rate_one:.0f} prompts/s ({one:.2f} s)")
    print(
        f"verbalize, {args.jobs} workers: {rate_many:.0f} prompts/s ({many:.2f} s); "
        f"ratio {rate_many / rate_one:.2f}x"
    )


if __name__ == "__main__":
    main()
