"""Benchmark: certified 2-SAT solving against PySAT's MiniSat22 and a networkx SCC solver.

Random 2-CNF at clause/variable ratio 1.0 with 10^5 and 10^6 clauses. Times
``solve(formula)`` (implication graph, strong components, model or contradiction
cycle, and the vectorised check of that certificate) against

* PySAT's MiniSat22 with the clauses loaded from Python lists, as a user would
  (building the lists is not timed; loading and solving are);
* a networkx solve of the same formula: implication ``DiGraph``, strong components,
  condensation, topological order, model. At 10^6 clauses networkx takes minutes, so
  it is measured up to 10^5 clauses only.

Then measures the peak memory of ``solve`` at the largest size in a fresh process
(the growth of the peak resident set, and the tracemalloc peak of the allocations
Python and numpy see). Prints best-of-N times and ratios; asserts nothing.
Targets: <= 0.7 x PySAT, <= 0.1 x networkx, <= 1.5 GiB.

Usage::

    python benchmarks/bench_solve.py            # 10^5 and 10^6 clauses
    python benchmarks/bench_solve.py --small    # 10^4 clauses, a few seconds (CI)
"""

from __future__ import annotations

import multiprocessing
import resource
import tracemalloc
from typing import Any

import networkx as nx
from _common import bench_parser, best_of, random_2cnf  # type: ignore[import-not-found,unused-ignore]
from pysat.solvers import Solver

from twosat_formal.solve import solve

__all__ = ["main", "networkx_solve", "pysat_solve"]

#: Largest size at which the networkx solver is timed.
NETWORKX_MAX = 100_000


def pysat_solve(clauses: list[list[int]]) -> bool:
    """Load Python lists into MiniSat22 and solve (the model is fetched too).

    >>> pysat_solve([[1, 2], [-1]])
    True
    """
    with Solver(name="m22", bootstrap_with=clauses) as solver:
        satisfiable = bool(solver.solve())
        if satisfiable:
            solver.get_model()
    return satisfiable


def networkx_solve(pairs: list[list[int]], num_vars: int) -> bool:
    """2-SAT with networkx: strong components, condensation, topological order, model.

    >>> networkx_solve([[1, 2], [-1, 2], [1, -2], [-1, -2]], 2)
    False
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(range(1, num_vars + 1))
    graph.add_nodes_from(range(-num_vars, 0))
    for a, b in pairs:
        graph.add_edge(-a, b)
        graph.add_edge(-b, a)
    components = list(nx.strongly_connected_components(graph))
    comp = {lit: i for i, members in enumerate(components) for lit in members}
    if any(comp[v] == comp[-v] for v in range(1, num_vars + 1)):
        return False
    dag = nx.condensation(graph, scc=components)
    rank = {c: i for i, c in enumerate(nx.topological_sort(dag))}
    model = [rank[comp[v]] > rank[comp[-v]] for v in range(1, num_vars + 1)]
    return len(model) == num_vars


def _status_bytes(field: str) -> int | None:
    """A ``Vm*`` field of ``/proc/self/status`` in bytes (None where there is none)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _peak_child(size: int, seed: int, queue: Any) -> None:
    formula = random_2cnf(size, seed)
    formula.pairs()
    try:  # reset the peak resident set size (Linux >= 4.0), so it measures solve only
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass
    before = _status_bytes("VmRSS")
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    tracemalloc.start()
    solve(formula)
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = _status_bytes("VmHWM")
    if before is None or peak is None:  # no /proc: fall back on getrusage
        before = maxrss_before
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    queue.put((peak - before, traced, peak))


def peak_memory(size: int, seed: int) -> tuple[int, int, int]:
    """Memory of ``solve`` in a fresh process, in bytes.

    Returns the growth of the resident set over its size before the call, the
    tracemalloc peak (what Python and numpy allocate), and the peak resident set
    of the whole process during the call.
    """
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_peak_child, args=(size, seed, queue))
    child.start()
    result: tuple[int, int, int] = queue.get()
    child.join()
    return result


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the ratios."""
    args = bench_parser(__doc__, "10^4 clauses only (for CI)", repeat=3, seed=2024).parse_args(argv)
    sizes = [10_000] if args.small else [100_000, 1_000_000]

    print("solve (certificate + check) vs PySAT MiniSat22 (from Python lists) and networkx")
    header = f"{'clauses':>10} {'label':>6} {'solve s':>9} {'pysat s':>9} {'ratio':>7}"
    print(header + f" {'networkx s':>11} {'ratio':>7}")
    for size in sizes:
        formula = random_2cnf(size, args.seed)
        lists = formula.pairs().tolist()
        result = solve(formula)
        assert result.checked and result.is_sat == pysat_solve(lists)
        ours = best_of(args.repeat, lambda f=formula: solve(f))  # type: ignore[misc]
        peer = best_of(args.repeat, lambda c=lists: pysat_solve(c))  # type: ignore[misc]
        line = f"{size:>10} {result.status:>6} {ours:>9.3f} {peer:>9.3f} {ours / peer:>7.3f}"
        if size <= NETWORKX_MAX:
            assert networkx_solve(lists, formula.num_vars) == result.is_sat
            slow = best_of(1, lambda c=lists, n=formula.num_vars: networkx_solve(c, n))  # type: ignore[misc]
            line += f" {slow:>11.3f} {ours / slow:>7.3f}"
        else:
            line += f" {'(skipped: too slow)':>19}"
        print(line)

    largest = sizes[-1]
    grown, traced, peak = peak_memory(largest, args.seed)
    gib = float(1 << 30)
    print(f"\npeak memory of solve at {largest} clauses (fresh process):")
    print(f"  peak resident set during solve {peak / gib:.3f} GiB (whole process),")
    print(f"  of which {grown / gib:.3f} GiB above the resident set before the call;")
    print(f"  tracemalloc peak (Python and numpy allocations) {traced / gib:.3f} GiB")
    print("targets: solve <= 0.7 x pysat, <= 0.1 x networkx, peak memory <= 1.5 GiB")


if __name__ == "__main__":
    main()
