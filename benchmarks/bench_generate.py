"""Generate and label the Table 1 grid; print instances/s and the labelling cost vs PySAT.

Usage::

    python benchmarks/bench_generate.py           # the whole grid (220 instances)
    python benchmarks/bench_generate.py --small   # a few cells, for CI

The peer is PySAT's MiniSat labelling the same formulas in the same run; the ratio
says how the project's own labelling compares with it on these (small) formulas.
"""

from __future__ import annotations

import time

from _common import bench_parser  # type: ignore[import-not-found,unused-ignore]
from pysat.solvers import Minisat22

from twosat_formal.make.generators.grids import grid_cells
from twosat_formal.solve import solve


def _pysat_label(clauses: list[list[int]]) -> str:
    with Minisat22(bootstrap_with=clauses) as solver:
        return "SAT" if solver.solve() else "UNSAT"


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print one line per measure."""
    args = bench_parser(__doc__, "a few cells only (for CI)", seed=0).parse_args(argv)
    cells = grid_cells("table1", count=2 if args.small else 10)
    if args.small:
        cells = [cells[0], cells[7], cells[11], cells[15]]
    start = time.perf_counter()
    instances = [inst for cell in cells for inst in cell.dataset(args.seed)]
    elapsed = time.perf_counter() - start
    rate = len(instances) / elapsed if elapsed > 0 else float("inf")
    print(f"generated and labelled {len(instances)} instances in {elapsed:.3f} s ({rate:.0f}/s)")

    formulas = [inst.formula for inst in instances]
    start = time.perf_counter()
    ours = [solve(f).status for f in formulas]
    ours_s = time.perf_counter() - start
    lists = [[list(c) for c in f.clauses] for f in formulas]
    start = time.perf_counter()
    peer = [_pysat_label(c) for c in lists]
    peer_s = time.perf_counter() - start
    if ours != peer:
        raise SystemExit("labels disagree with PySAT")
    ratio = ours_s / peer_s if peer_s > 0 else float("inf")
    print(f"labelling: solve {ours_s:.3f} s, PySAT MiniSat {peer_s:.3f} s, ratio {ratio:.2f}x")


if __name__ == "__main__":
    main()
