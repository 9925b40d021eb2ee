"""Helpers the benchmark scripts share: the command line, a seeded random 2-CNF, a timer."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from twosat_formal.core.formula import Formula

__all__ = ["bench_parser", "best_of", "random_2cnf"]

#: The help of the options several benchmarks take.
COMMON_HELP = {
    "baseline": "commit of the peer",
    "count": "formulas per grid cell",
    "jobs": "worker processes of the parallel runs",
    "repeat": "rounds of each measurement",
    "seed": "seed of the generated inputs",
}


def bench_parser(doc: str | None, small: str, **options: object) -> argparse.ArgumentParser:
    """The command line of a benchmark: ``--small`` (help ``small``) and ``options``.

    The description is the first paragraph of ``doc``. Each keyword names an option
    (``skip_jobs`` is ``--skip-jobs``); its value is the default of one that
    :data:`COMMON_HELP` knows, or a ``(default, help)`` pair. The option takes a value
    of the default's type; a ``False`` default makes it a switch.

    >>> parser = bench_parser("Time X.", "one size", seed=3, fast=(False, "skip"))
    >>> args = parser.parse_args(["--seed", "4", "--fast"])
    >>> args.small, args.seed, args.fast
    (False, 4, True)
    """
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help=small)
    for name, value in options.items():
        default, text = value if isinstance(value, tuple) else (value, COMMON_HELP[name])
        flag = "--" + name.replace("_", "-")
        if default is False:
            parser.add_argument(flag, action="store_true", help=text)
        else:
            parser.add_argument(flag, type=type(default), default=default, help=text)
    return parser


def random_2cnf(clauses: int, seed: int) -> Formula:
    """A random 2-CNF with ``clauses`` clauses over as many variables (ratio 1.0).

    >>> random_2cnf(5, seed=1) == random_2cnf(5, seed=1)
    True
    """
    rng = np.random.default_rng(seed)
    variables = rng.integers(1, clauses + 1, size=(clauses, 2))
    signs = rng.choice(np.array([-1, 1]), size=(clauses, 2))
    return Formula.from_pairs(variables * signs, num_vars=clauses)


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The best wall-clock time of ``repeat`` runs of ``run``, in seconds.

    >>> best_of(2, lambda: None) >= 0
    True
    """
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
