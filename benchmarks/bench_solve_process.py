"""Benchmark: the whole ``twosat-formal solve F --json`` process against a PySAT script.

Measured as a user runs it: a fresh Python process that reads a DIMACS file, solves
it and prints JSON, start-up and imports included. The peer is a small script that
reads the same file with ``pysat.formula.CNF``, solves it with MiniSat22 and prints
``{"status": ..., "model": {"x1": true, ...}}`` (the status alone when UNSAT: MiniSat
gives no certificate, while ``solve`` also finds and checks a contradiction cycle).
Both outputs are compared (same status) before anything is timed.

Shapes (``--small`` shrinks the large ones to 5,000 variables, for CI):

* random 2-CNF over 500,000 variables at clause/variable ratios 0.5, 1 and 2;
* dense random 2-CNF: a fifth of the variables (100,000), 4 clauses per variable
  (UNSAT, one offending component of most literals);
* a chain ``x1 -> x2 -> ... -> x500000`` (satisfiable);
* a ring contradiction: ``x1 | ~x2, x2 | ~x3, ...`` closed by ``x500000`` and ``~x1``,
  whose only contradiction cycle has a million literals;
* the same ring plus one clause ``x500001 | x500002`` over two fresh variables: the
  same contradiction cycle, but not every literal implies a literal (``x500001``
  implies nothing);
* the ring plus one chord ``~x1 | x250000`` inside it: ``x1`` implies ``~x1`` and
  ``x250000``, so the component is not a simple cycle (its contradiction cycle still
  has a million literals); left out of the geometric mean, which stays over the other
  large shapes (``OUTSIDE_MEAN``), and printed with it in a second mean;
* the ring over renumbered variables, signs turned and clauses in random order
  (``shuffled ring``: no runs of consecutive variables to walk at once);
* the ring plus 400 random clauses, shuffled the same way (``ring + 400 clauses``:
  about 800 literals that imply two, short contradiction cycles);
* dense random 2-CNF over few variables: 1,000 variables, 500 clauses per variable
  (``dense few variables``: a few thousand nodes, a million edges);
* a 5-variable file (start-up cost alone).

The last four large shapes were added after the goal's geometric mean was set; they
are held to the goal of each large shape and printed in the second mean.

Both processes run as an installed package does, with their bytecode cached (pip
compiles it at install time): the benchmark gives them one bytecode cache in its
temporary folder (``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says)
and runs each of them once, untimed, before the first timing. Without that, a checkout run
with ``PYTHONDONTWRITEBYTECODE=1`` compiles every module of the package at every start.

Prints, per shape, the median wall time of each process over ``--repeat`` runs and
the ratio ours / PySAT, then the geometric mean of the ratios over the large shapes
(but the ring with a chord; then a second mean with it).
``--importtime`` adds ``python -X importtime`` totals for ``--help`` and for a solve
of the 5-variable file. Asserts nothing about time.

Usage::

    python benchmarks/bench_solve_process.py                # 500,000 variables
    python benchmarks/bench_solve_process.py --small        # 5,000 variables (CI)
    python benchmarks/bench_solve_process.py --importtime   # and import times
    python benchmarks/bench_solve_process.py --size 1000000 --shape "random ratio 1"
"""

from __future__ import annotations

import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]

__all__ = [
    "OUTSIDE_MEAN",
    "SHAPES",
    "main",
    "ring_chord_pairs",
    "ring_fresh_pairs",
    "run_process",
    "write_dimacs_pairs",
]

ROOT = Path(__file__).resolve().parents[1]

#: The peer: read the file with PySAT, solve with MiniSat22, print the same JSON.
PYSAT_SCRIPT = """\
import json, sys
from pysat.formula import CNF
from pysat.solvers import Minisat22
cnf = CNF(from_file=sys.argv[1])
with Minisat22(bootstrap_with=cnf.clauses) as solver:
    if solver.solve():
        model = solver.get_model() or []
        values = {f"x{abs(lit)}": lit > 0 for lit in model}
        names = {f"x{v}": values.get(f"x{v}", False) for v in range(1, cnf.nv + 1)}
        print(json.dumps({"status": "SAT", "model": names}))
    else:
        print(json.dumps({"status": "UNSAT"}))
"""

#: Our process, as the ``twosat-formal`` console script runs it (pyproject.toml's entry).
OURS = "from twosat_formal.cli.entry import main; main()"


def random_pairs(num_vars: int, ratio: float, seed: int) -> np.ndarray:
    """Random 2-CNF clauses (rows of two DIMACS literals) at ``ratio`` clauses per variable.

    >>> random_pairs(10, 2.0, seed=1).shape
    (20, 2)
    """
    rng = np.random.default_rng(seed)
    clauses = round(ratio * num_vars)
    variables = rng.integers(1, num_vars + 1, size=(clauses, 2))
    return variables * rng.choice(np.array([-1, 1]), size=(clauses, 2))


def chain_pairs(num_vars: int) -> np.ndarray:
    """``x1 -> x2 -> ... -> xn``: the clauses ``~xi | x(i+1)``.

    >>> chain_pairs(3).tolist()
    [[-1, 2], [-2, 3]]
    """
    i = np.arange(1, num_vars, dtype=np.int64)
    return np.stack([-i, i + 1], axis=1)


def ring_pairs(num_vars: int) -> np.ndarray:
    """``xi | ~x(i+1)`` for every i, closed by the units ``xn`` and ``~x1`` (UNSAT).

    >>> ring_pairs(3).tolist()
    [[1, -2], [2, -3], [3, 3], [-1, -1]]
    """
    i = np.arange(1, num_vars, dtype=np.int64)
    ring = np.stack([i, -(i + 1)], axis=1)
    return np.concatenate([ring, [[num_vars, num_vars], [-1, -1]]])


def ring_fresh_pairs(num_vars: int) -> np.ndarray:
    """:func:`ring_pairs` over ``num_vars - 2`` variables and the clause of the last two.

    >>> ring_fresh_pairs(5).tolist()
    [[1, -2], [2, -3], [3, 3], [-1, -1], [4, 5]]
    """
    return np.concatenate([ring_pairs(num_vars - 2), [[num_vars - 1, num_vars]]])


def ring_chord_pairs(num_vars: int) -> np.ndarray:
    """:func:`ring_pairs` and the chord ``~x1 | x(n/2)`` inside the ring.

    >>> ring_chord_pairs(4).tolist()
    [[1, -2], [2, -3], [3, -4], [4, 4], [-1, -1], [-1, 2]]
    """
    return np.concatenate([ring_pairs(num_vars), [[-1, num_vars // 2]]])


def shuffled(pairs: np.ndarray, num_vars: int, seed: int) -> np.ndarray:
    """The same clauses over renumbered variables, signs turned and clauses reordered.

    >>> sorted(np.abs(shuffled(np.array([[1, -2], [2, 2]]), 2, seed=1)).sum(axis=1).tolist())
    [3, 4]
    """
    rng = np.random.default_rng(seed)
    renumber = np.concatenate([[0], rng.permutation(num_vars) + 1])
    turn = np.concatenate([[1], rng.choice(np.array([-1, 1]), size=num_vars)])
    out = np.sign(pairs) * renumber[np.abs(pairs)] * turn[np.abs(pairs)]
    return out[rng.permutation(len(out))]


def ring_random_pairs(num_vars: int, seed: int, chords: int = 400) -> np.ndarray:
    """:func:`ring_pairs` and ``chords`` random clauses, all shuffled (:func:`shuffled`).

    >>> ring_random_pairs(10, seed=1, chords=3).shape
    (14, 2)
    """
    rng = np.random.default_rng(seed)
    extra = rng.integers(1, num_vars + 1, size=(chords, 2)) * rng.choice([-1, 1], (chords, 2))
    return shuffled(np.concatenate([ring_pairs(num_vars), extra]), num_vars, seed)


def write_dimacs_pairs(path: Path, pairs: np.ndarray, num_vars: int) -> None:
    """Write 2-literal rows as DIMACS (a row ``[a, a]`` is the unit clause ``a``)."""
    lines = [f"p cnf {num_vars} {len(pairs)}"]
    first, second = pairs[:, 0].tolist(), pairs[:, 1].tolist()
    lines += [f"{a} 0" if a == b else f"{a} {b} 0" for a, b in zip(first, second, strict=True)]
    path.write_text("\n".join(lines) + "\n")


#: name -> (builds the clauses for a size, whether it is a large shape). The large
#: shapes' ratios make the geometric mean, but for those of :data:`OUTSIDE_MEAN`.
SHAPES: dict[str, tuple[Callable[[int, int], tuple[np.ndarray, int]], bool]] = {
    "random ratio 0.5": (lambda n, seed: (random_pairs(n, 0.5, seed), n), True),
    "random ratio 1": (lambda n, seed: (random_pairs(n, 1.0, seed), n), True),
    "random ratio 2": (lambda n, seed: (random_pairs(n, 2.0, seed), n), True),
    "dense random": (lambda n, seed: (random_pairs(n // 5, 4.0, seed), n // 5), True),
    "long chain": (lambda n, seed: (chain_pairs(n), n), True),
    "ring contradiction": (lambda n, seed: (ring_pairs(n), n), True),
    "ring + fresh clause": (lambda n, seed: (ring_fresh_pairs(n + 2), n + 2), True),
    "ring + chord": (lambda n, seed: (ring_chord_pairs(n), n), True),
    "shuffled ring": (lambda n, seed: (shuffled(ring_pairs(n), n, seed), n), True),
    "ring + 400 clauses": (lambda n, seed: (ring_random_pairs(n, seed), n), True),
    "dense few variables": (lambda n, seed: (random_pairs(n // 500, 500.0, seed), n // 500), True),
    "5-variable file": (
        lambda n, seed: (np.array([[1, -2], [2, -3], [3, 4], [-4, 5], [-5, 1]]), 5),
        False,
    ),
}


#: Large shapes added after the goal's geometric mean was set (over the six shapes
#: before them): timed and held to the goal of each large shape, but their ratios
#: are left out of that geometric mean (printed with them in a second one).
OUTSIDE_MEAN = frozenset(
    {"ring + chord", "shuffled ring", "ring + 400 clauses", "dense few variables"}
)

#: The bytecode cache both processes share (set by :func:`main` to a temporary folder).
PYCACHE: list[str] = []


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if PYCACHE:  # cached bytecode, as an installed package has it
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE[0]
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(argv: list[str]) -> tuple[float, float, str]:
    """Wall time and CPU time (user + system) of one process, and its standard output.

    Fails loudly if the process fails.
    """
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=_env())
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return elapsed, cpu, done.stdout


def import_total_ms(code: str) -> tuple[float, list[tuple[float, str]]]:
    """``python -X importtime`` of ``code``: total ms of top-level imports, and the top 6."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=_env()
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _self, cumulative, name = line[len("import time:") :].split("|")
        if not name.startswith("  "):  # depth 0 only: these add up to the whole
            rows.append((int(cumulative) / 1000, name.strip()))
    return sum(ms for ms, _ in rows), sorted(rows, reverse=True)[:6]


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the ratios."""
    parser = bench_parser(
        __doc__,
        "5,000 variables, one run (CI)",
        size=(500_000, "variables of the large shapes"),
        repeat=3,
        seed=2024,
        importtime=(False, "also print import times"),
    )
    parser.add_argument(
        "--shape", action="append", choices=list(SHAPES), help="only this shape (repeatable)"
    )
    args = parser.parse_args(argv)
    size, repeat = (5_000, 1) if args.small else (args.size, args.repeat)

    print("whole process: twosat-formal solve F --json vs a PySAT MiniSat22 script (same JSON)")
    print("median over runs of the wall time and of the CPU time (user + system) of each process")
    print(
        f"{'shape':>20} {'vars':>7} {'clauses':>7} {'status':>6} | {'wall s':>6} {'pysat':>6} "
        f"{'ratio':>5} | {'cpu s':>6} {'pysat':>6} {'ratio':>5}"
    )
    wall_ratios: list[float] = []
    cpu_ratios: list[float] = []
    extra_wall: list[float] = []  # the shapes of OUTSIDE_MEAN
    extra_cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        PYCACHE[:] = [str(Path(tmp) / "pycache")]
        peer_script = Path(tmp) / "pysat_solve.py"
        peer_script.write_text(PYSAT_SCRIPT)
        tiny = Path(tmp) / "5-variable file.cnf"
        warm: list[float] = []
        for name, (build, large) in SHAPES.items():
            if args.shape and name not in args.shape:
                continue
            pairs, num_vars = build(size, args.seed)
            path = tiny if not large else Path(tmp) / f"{name}.cnf"
            write_dimacs_pairs(path, pairs, num_vars)
            commands = (
                [sys.executable, "-c", OURS, "solve", str(path), "--json"],
                [sys.executable, str(peer_script), str(path)],
            )
            times: list[list[tuple[float, float]]] = [[], []]
            outputs = ["", ""]
            if not warm:  # untimed: fills the bytecode cache
                warm = [run_process(argv)[0] for argv in commands]
            for _ in range(repeat):  # alternate, so that load on the machine hits both alike
                for which, argv in enumerate(commands):
                    wall, cpu, outputs[which] = run_process(argv)
                    times[which].append((wall, cpu))
            ours_json, peer_json = json.loads(outputs[0]), json.loads(outputs[1])
            if ours_json["status"] != peer_json["status"] or not ours_json["checked"]:
                raise SystemExit(f"{name}: ours {ours_json['status']}, pysat {peer_json['status']}")
            ours_wall, peer_wall = (statistics.median(w for w, _ in t) for t in times)
            ours_cpu, peer_cpu = (statistics.median(c for _, c in t) for t in times)
            if large:
                wall, cpu = (
                    (extra_wall, extra_cpu) if name in OUTSIDE_MEAN else (wall_ratios, cpu_ratios)
                )
                wall.append(ours_wall / peer_wall)
                cpu.append(ours_cpu / peer_cpu)
            print(
                f"{name:>20} {num_vars:>7} {len(pairs):>7} {ours_json['status']:>6} | "
                f"{ours_wall:>6.2f} {peer_wall:>6.2f} {ours_wall / peer_wall:>5.2f} | "
                f"{ours_cpu:>6.2f} {peer_cpu:>6.2f} {ours_cpu / peer_cpu:>5.2f}"
            )
        if wall_ratios:
            print(
                "geometric mean of the ratios over the large shapes: "
                f"wall {_geomean(wall_ratios):.2f}, cpu {_geomean(cpu_ratios):.2f}"
                + (" (but " + ", ".join(sorted(OUTSIDE_MEAN)) + ")" if extra_wall else "")
            )
        if wall_ratios and extra_wall:
            print(
                "geometric mean with them too: "
                f"wall {_geomean(wall_ratios + extra_wall):.2f}, "
                f"cpu {_geomean(cpu_ratios + extra_cpu):.2f}"
            )
        print("goals: every large shape <= 1.0, geometric mean <= 0.6, 5-variable file <= 5")

        if args.importtime:
            if not tiny.exists():  # its shape was left out above
                write_dimacs_pairs(tiny, *SHAPES["5-variable file"][0](0, args.seed))
            print("\npython -X importtime (top-level imports, ms; best of 3)")
            cli = "from twosat_formal.cli.entry import main\ntry: main({})\nexcept SystemExit: pass"
            for label, args_list in (
                ("--help", ["--help"]),
                ("solve 5-variable file", ["solve", str(tiny), "--json"]),
            ):
                code = cli.format(repr(args_list))
                runs = [import_total_ms(code) for _ in range(3)]
                total, top = min(runs, key=lambda r: r[0])
                print(
                    f"  {label}: {total:.0f} ms; largest: "
                    + ", ".join(f"{n} {ms:.0f}" for ms, n in top)
                )


if __name__ == "__main__":
    main()
