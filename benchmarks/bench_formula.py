"""A formula's own work, call by call, from a few literals to hundreds, against a commit.

Builds a formula from clause lists and from arrays, tests it for 2-CNF, rebuilds a
reordering and a two-copy transform of it, checks a model and a contradiction cycle,
and solves it: each on random 2-CNFs of 8 to 400 clauses (the first seed's that is
unsatisfiable; the model is checked on the formula with every clause's first literal
made positive), with this package and with
the package at ``--baseline`` (loaded beside it by ``benchmarks/_before.py``), the two
alternating in this process. Prints the CPU microseconds per call of both (best of
``--repeat`` rounds) and their ratio, per size, and the geometric mean of the ratios
of each size. Asserts nothing about time.

Usage::

    python benchmarks/bench_formula.py                        # against BASELINE
    python benchmarks/bench_formula.py --baseline COMMIT
    python benchmarks/bench_formula.py --small                # fewer calls (CI)
"""

from __future__ import annotations

import math
import random
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _before import BASELINE, load_before, module_of
from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]

#: (variables, clauses) of the formulas: 16 to 800 literals.
SIZES = ((5, 8), (20, 40), (60, 120), (200, 400))


def clause_rows(variables: int, clauses: int, seed: int) -> list[list[int]]:
    """Random two-literal clauses over ``variables`` variables."""
    rng = random.Random(seed)
    return [
        [rng.choice((1, -1)) * rng.randint(1, variables) for _ in range(2)] for _ in range(clauses)
    ]


def calls(package: str, variables: int, clauses: int) -> dict[str, Callable[[], Any]]:
    """The timed calls of ``package`` on formulas of this size, by name."""
    formula_module = module_of(package, "core.formula", "formula")
    transform_module = module_of(package, "make.perturb.transform", "perturb.transform")
    solve_module = module_of(package, "solve")
    formula, transform = formula_module.Formula, transform_module.Transform
    solve, verify = solve_module.solve, solve_module.verify
    seed = 1
    while solve(formula(clause_rows(variables, clauses, seed))).status == "SAT":
        seed += 1  # the first seed that draws an unsatisfiable formula
    rows = clause_rows(variables, clauses, seed)
    unsat = formula(rows)
    sat = formula([[abs(a), b] for a, b in rows])  # every clause has a positive literal
    lits, offsets = unsat.literals.copy(), unsat.offsets.copy()
    same = tuple(range(1, variables + 1))
    order = tuple(random.Random(2).sample(range(clauses), clauses))
    reorder = transform("reorder", {}, 0, "equivalent", (same,), order, variables)
    shifted = tuple(range(variables + 1, 2 * variables + 1))
    sources = tuple(range(2 * clauses))
    twice = transform(
        "duplicate", {}, 0, "equisatisfiable-copy-product", (same, shifted), sources, 2 * variables
    )
    model, cycle = solve(sat), solve(unsat)
    return {
        "build from lists": lambda: formula(rows),
        "build from arrays": lambda: formula.from_arrays(lits, offsets),
        "build + is_2cnf": lambda: formula(rows).is_2cnf,
        "rebuild reorder": lambda: reorder.rebuild(unsat),
        "rebuild 2 copies": lambda: twice.rebuild(unsat),
        "check a model": lambda: verify(sat, model),
        "check a cycle": lambda: verify(unsat, cycle),
        "solve": lambda: solve(formula(rows)),
    }


def per_call(call: Callable[[], Any], number: int, repeat: int) -> float:
    """CPU microseconds per call, best of ``repeat`` rounds of ``number`` calls."""
    rounds = timeit.repeat(call, number=number, repeat=repeat, timer=time.process_time)
    return 1e6 * min(rounds) / number


def main() -> None:
    parser = bench_parser(__doc__, "fewer calls per round (CI)", repeat=7, baseline=BASELINE)
    args = parser.parse_args()
    before: ModuleType | None = load_before(args.baseline)
    if before is None:
        print(f"commit {args.baseline} is not in this clone's history; nothing to compare")
        return
    number = 50 if args.small else 1000
    for variables, clauses in SIZES:
        now = calls("twosat_formal", variables, clauses)
        old = calls("twosat_formal_before", variables, clauses)
        ratios = []
        print(f"{variables} variables, {clauses} clauses ({2 * clauses} literals):")
        for name in now:
            ours, theirs = 0.0, 0.0
            for _ in range(2):  # alternate, keeping each one's best
                theirs = min(theirs or math.inf, per_call(old[name], number, args.repeat))
                ours = min(ours or math.inf, per_call(now[name], number, args.repeat))
            ratios.append(ours / theirs)
            at = f"at {args.baseline} {theirs:8.1f} us"
            print(f"  {name:18} {ours:8.1f} us, {at}: {ours / theirs:.2f}")
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"  geometric mean of the ratios: {mean:.2f}")


if __name__ == "__main__":
    main()
