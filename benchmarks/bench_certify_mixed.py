"""Certify a mixed dataset: time per record against the code before, and ``--jobs N``.

The dataset mixes what a lab certifies: roots of four families (``--roots`` per
family), a chain of four perturbations and a filler perturbation of each root,
cumulative and individual symbolic edits of each root, and the prompts of the
perturbed roots under every template (each with its round-trip proof), about 3,000
records at the default size. It is built with the command line, apart from the timing.

1. **Time per record**: :func:`twosat_formal.certify.certify_files` against the same
   function of the package at the commit before the hot-path work (``--baseline``,
   loaded beside the current one by ``benchmarks/_before.py``), the two alternating
   in this process, ``--repeat`` rounds, each run from cold caches. Records have
   gained fields since that commit, so each certifies the dataset built by its own
   command line with the same commands and seeds. The script prints
   the CPU milliseconds per record of both (median) and their ratio, and the ratio to
   the 4.7 ms of the issue's measurement; it checks that no check failed.
2. **Workers**: ``certify --jobs 1`` against ``certify --jobs N`` (the process
   executor, default batches), each a fresh command-line process (start-up included,
   nothing inherited from this one), alternating, ``--repeat`` rounds: wall seconds
   (median) and the speed-up, and the CPU time of all processes of the N-job run over
   that of one job (the overhead of the workers, which wall time hides when other
   work shares the cores). The reports must be equal but for their times.

No assertion is made on time. Usage::

    python benchmarks/bench_certify_mixed.py            # ~3,000 records
    python benchmarks/bench_certify_mixed.py --small    # ~170 records (CI)
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _before import BASELINE, cold, load_before
from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]

from twosat_formal.certify import CertifyReport, certify_files

#: The issue's measured mean time per record (ms) on the 2-core machine.
ISSUE_MS = 4.7

FAMILIES = ("implication-cycle", "equivalence-core", "backbone", "mono-bridge")


def build(folder: Path, roots: int, package: str = "twosat_formal", *, seed: int = 7) -> list[Path]:
    """Write the mixed dataset into ``folder`` with ``package``'s command line (``seed``:
    the roots' generation seed; another seed gives other records throughout)."""
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*sys.path[:2], env.get("PYTHONPATH", "")])
    if package != "twosat_formal":
        where = Path(importlib.import_module(package).__file__ or "").parent.parent
        env["PYTHONPATH"] = os.pathsep.join([str(where), env["PYTHONPATH"]])

    def tf(*args: str) -> bytes:
        code = f"from {package}.cli import main; main()"
        done = subprocess.run(
            [sys.executable, "-c", code, *args], cwd=folder, capture_output=True, env=env
        )
        if done.returncode:
            sys.stderr.write(done.stderr.decode(errors="replace"))
            raise SystemExit(f"twosat-formal {' '.join(args)}: exit {done.returncode}")
        return done.stdout

    with open(folder / "roots.jsonl", "wb") as out:
        for family in FAMILIES:
            out.write(
                tf(
                    "generate",
                    family,
                    "--clauses",
                    "20",
                    "--count",
                    str(roots),
                    "--seed",
                    str(seed),
                    "--no-progress",
                )
            )
    steps = ["--op", "reorder", "--op", "rename", "--op", "flip", "--op", "duplicate"]
    tf("perturb", "roots.jsonl", *steps, "--seed", "3", "--no-base", "--out", "chain.jsonl")
    tf(
        "perturb",
        "roots.jsonl",
        "--op",
        "filler",
        "--seed",
        "4",
        "--no-base",
        "--out",
        "filler.jsonl",
    )
    tf(
        "edit",
        "roots.jsonl",
        "--mode",
        "cumulative",
        "--max-edits",
        "2",
        "--seed",
        "1",
        "--no-base",
        "--out",
        "edits-cumulative.jsonl",
    )
    tf(
        "edit",
        "roots.jsonl",
        "--mode",
        "individual",
        "--keep",
        "both",
        "--max-edits",
        "2",
        "--seed",
        "2",
        "--no-base",
        "--out",
        "edits-individual.jsonl",
    )
    tf(
        "verbalize",
        "chain.jsonl",
        "--template",
        "all",
        "--seed",
        "1",
        "--no-progress",
        "--out",
        "prompts.jsonl",
    )
    names = ["roots", "chain", "filler", "edits-cumulative", "edits-individual", "prompts"]
    return [folder / f"{name}.jsonl" for name in names]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """``run()``'s result, wall seconds, and CPU seconds of this process and its children."""
    cpu, children, wall = time.process_time(), _children_cpu(), time.perf_counter()
    result = run()
    wall = time.perf_counter() - wall
    return result, wall, time.process_time() - cpu + _children_cpu() - children


def per_record(datasets: dict[str, list[Path]], repeat: int, baseline: str) -> None:
    peers: dict[str, Callable[[list[Path]], CertifyReport]] = {"now": certify_files}
    if "before" in datasets:
        peers["before"] = importlib.import_module("twosat_formal_before.certify").certify_files
    runs: dict[str, list[float]] = {who: [] for who in peers}
    checks: dict[str, int] = {}
    for _ in range(repeat):
        for who, certify in sorted(peers.items()):
            cold("twosat_formal_before" if who == "before" else "twosat_formal")
            paths = datasets[who]
            report, _, cpu = timed(lambda certify=certify, paths=paths: certify(paths))
            if report.failures:
                raise SystemExit(f"{who}: {report.failures[0]}")
            runs[who].append(1000 * cpu / report.records)
            checks[who] = report.records
    now = statistics.median(runs["now"])
    print(
        f"certify, CPU ms per record (median of {repeat}): now {now:.2f} "
        f"{_runs(runs['now'])} over {checks['now']} records"
    )
    if "before" not in runs:
        print(f"  peer: commit {baseline} is not in this clone's history; not run")
    else:
        old = statistics.median(runs["before"])
        # each round's two runs follow each other: their ratio moves less with the load
        rounds = [a / b for a, b in zip(runs["now"], runs["before"], strict=True)]
        print(
            f"  peer, the code at {baseline} on the dataset its own commands build: "
            f"{old:.2f} {_runs(runs['before'])} over {checks['before']} records; "
            f"ratio now/before {now / old:.2f} (goal <= 0.33); round by round "
            f"{_runs(rounds)}, median {statistics.median(rounds):.2f}"
        )
    print(f"  against the issue's {ISSUE_MS} ms: ratio {now / ISSUE_MS:.2f} (goal <= 0.33)")


def cli_certify(
    paths: Sequence[Path], jobs: int, executor: str | None = None
) -> tuple[dict[str, Any], float, float]:
    """``certify PATHS --jobs N --json`` in a fresh process: the report (times blanked),
    wall seconds, and CPU seconds of that process and its workers (``executor``: also
    ``--executor``, e.g. ``process`` for workers even on a small dataset)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*sys.path[:2], env.get("PYTHONPATH", "")])
    argv = ["certify", *map(str, paths), "--jobs", str(jobs), "--no-progress", "--json"]
    if executor is not None:
        argv += ["--executor", executor]
    code = "from twosat_formal.cli import main; main()"
    children, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, check=False, env=env
    )
    wall = time.perf_counter() - wall
    if done.returncode != 0:
        raise SystemExit(f"certify --jobs {jobs} failed: {done.stderr.decode()[-500:]}")
    report = json.loads(done.stdout)
    for key in ("seconds", "z3_seconds"):
        report[key] = 0
    return report, wall, _children_cpu() - children


def workers(paths: list[Path], repeat: int, jobs: int) -> None:
    """``--jobs 1`` against ``--jobs N``, each a fresh command-line process, alternating.

    Fresh processes, not calls in this one: a worker forked from this process would
    start with the modules and caches the rounds before it left here.
    """
    one: list[tuple[float, float]] = []
    many: list[tuple[float, float]] = []
    reports: list[dict[str, Any]] = []
    for _ in range(repeat):
        for count, runs in ((1, one), (jobs, many)):
            report, wall, cpu = cli_certify(paths, count)
            runs.append((wall, cpu))
            reports.append(report)
    if any(report != reports[0] for report in reports):
        raise SystemExit("the runs differ in records, checks or failures")
    wall_one = statistics.median(w for w, _ in one)
    wall_many = statistics.median(w for w, _ in many)
    cpu_one = statistics.median(c for _, c in one)
    cpu_many = statistics.median(c for _, c in many)
    print(
        f"certify --jobs 1 (command line, fresh process): {wall_one:.2f} s wall "
        f"{_runs([w for w, _ in one])}, CPU {cpu_one:.2f} s"
    )
    print(
        f"certify --jobs {jobs} (command line, fresh process): {wall_many:.2f} s wall "
        f"{_runs([w for w, _ in many])}, CPU of all processes {cpu_many:.2f} s"
    )
    print(
        f"  speed-up {wall_one / wall_many:.2f}x (goal >= 1.5 at 2 jobs on 2 idle cores); "
        f"CPU of {jobs} jobs over 1 job {cpu_many / cpu_one:.2f}"
    )


def _runs(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{v:.2f}" for v in values) + ")"


def main(argv: Sequence[str] | None = None) -> None:
    args = bench_parser(
        __doc__,
        "about 170 records (for CI)",
        roots=(53, "roots per family"),
        jobs=2,
        repeat=3,
        baseline=BASELINE,
        skip_jobs=(False, "time per record only"),
    ).parse_args(argv)
    roots, repeat = (3, 1) if args.small else (args.roots, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        datasets = {"now": build(Path(tmp) / "now", roots)}
        if load_before(args.baseline) is not None:
            datasets["before"] = build(Path(tmp) / "before", roots, "twosat_formal_before")
        paths = datasets["now"]
        records = sum(1 for path in paths for line in path.open() if line.strip())
        print(
            f"dataset: {records} records ({', '.join(p.stem for p in paths)}); "
            f"load average {os.getloadavg()[0]:.2f}"
        )
        per_record(datasets, repeat, args.baseline)
        if not args.skip_jobs:
            workers(paths, repeat, args.jobs)
        print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
