"""Certify the Table 1 grid with three perturbations per instance.

The dataset holds every Table 1 instance (220: 22 cells x 10 formulas) and three
derived records per instance, about 900 records in all, so that every operator is
exercised:

* a clause shuffle (``reorder``);
* fresh names with polarity flips, then ``flip`` (``rename`` + ``flip``);
* per family: ``filler`` over existing variables (implication-cycle, UNSAT),
  ``duplicate`` (equivalence-core), ``filler`` over fresh variables (backbone),
  ``bridge-move`` of the bridge to the end (mono-bridge).

Building the dataset is timed apart; then ``certify_files`` runs and the script prints
the time per record (mean, median, 95th percentile, max) and the share of the time spent
in Z3 (the Z3 backend and the perturbation proofs). Then the same dataset is certified
with ``--jobs 1`` and ``--jobs N`` (process executor, N = ``--jobs``, default 2), each
``twosat-formal certify`` in a fresh process, and the speed-up, the wall time of one job
over that of N, is printed next to its peer (one job in the same run). No assertion is made on time.

Usage::

    python benchmarks/bench_certify.py            # ~900 records
    python benchmarks/bench_certify.py --small    # a few dozen records (CI)
    python benchmarks/bench_certify.py --jobs 4   # the speed-up of 4 jobs over 1
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]
from bench_certify_mixed import cli_certify

from twosat_formal.certify import RecordResult, certify_files
from twosat_formal.io.instance import Instance
from twosat_formal.make.generators.grids import grid_cells
from twosat_formal.make.perturb.chain import StepSpec
from twosat_formal.make.perturb.instances import instance_seed, perturb_instance

THIRD: dict[str, list[StepSpec]] = {
    "implication-cycle": [("filler", {"over": "existing", "placement": "interleave"})],
    "equivalence-core": [("duplicate", {"layout": "interleaved"})],
    "backbone": [("filler", {"placement": "interleave"})],
    "mono-bridge": [("bridge-move", {"relative": 1.0})],
}


def chains(family: str) -> list[list[StepSpec]]:
    """The three perturbation chains applied to an instance of ``family``."""
    return [
        ["reorder"],
        [("rename", {"names": "fresh", "flip": 0.5}), "flip"],
        THIRD.get(family, ["reorder"]),
    ]


def records(small: bool, seed: int, count: int = 10) -> Iterator[Instance]:
    """The grid's instances, each followed by its three derived instances."""
    cells = grid_cells("table1", count=1 if small else count)
    if small:
        cells = [cell for cell in cells if cell.clauses is not None and cell.clauses <= 20]
    instances = (inst for cell in cells for inst in cell.dataset(seed))
    for inst in instances:
        yield inst
        for k, steps in enumerate(chains(inst.family)):
            yield perturb_instance(inst, steps, seed=instance_seed(seed + k, inst.id))


class _Seconds:
    """A record log (:class:`twosat_formal.certify.RecordLog`) of each record's seconds."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def add(self, result: RecordResult) -> None:
        self.seconds.append(result.seconds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = bench_parser(__doc__, "a few dozen records (for CI)", jobs=2, seed=0, count=10)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table1-perturbed.jsonl"
        start = time.perf_counter()
        with path.open("w", encoding="utf-8") as out:
            count = 0
            for inst in records(args.small, args.seed, args.count):
                out.write(inst.to_json() + "\n")
                count += 1
        built = time.perf_counter() - start
        log = _Seconds()
        report = certify_files([path], records=log)
        # the speed-up: fresh command-line processes (a worker forked from this one would
        # start with the imports and caches of the run above); workers even when small
        _, one_wall, _ = cli_certify([path], 1)
        _, many_wall, _ = cli_certify([path], args.jobs, "process")

    per = sorted(log.seconds)
    p95 = per[min(len(per) - 1, int(0.95 * len(per)))] if per else 0.0
    worker_seconds = sum(per)
    print(f"dataset: {count} records built in {built:.2f} s")
    print(
        f"certify: {report.records} records, {report.checks} checks, "
        f"{len(report.failures)} failures, {report.seconds:.2f} s wall "
        "(jobs=1)"
    )
    speedup = one_wall / many_wall if many_wall > 0 else float("nan")
    print(
        f"certify --jobs {args.jobs} (command line, fresh process): {many_wall:.2f} s wall "
        f"vs --jobs 1: {one_wall:.2f} s; speed-up {speedup:.2f}x "
        "(goal >= 1.5 at 2 jobs on 2 cores)"
    )
    if per:
        print(
            "per record: "
            f"mean {1000 * statistics.fmean(per):.1f} ms, "
            f"median {1000 * statistics.median(per):.1f} ms, "
            f"p95 {1000 * p95:.1f} ms, max {1000 * per[-1]:.1f} ms"
        )
    if worker_seconds > 0:
        share = report.z3_seconds / worker_seconds
        print(
            f"Z3 (backend + perturbation proofs): {report.z3_seconds:.2f} s "
            f"= {100 * share:.1f}% of the checking time"
        )
    for failure in report.failures[:10]:
        print(f"FAIL {failure}")


if __name__ == "__main__":
    main()
