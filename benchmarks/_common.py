"""Helpers the benchmark scripts share: a seeded random 2-CNF and a best-of timer."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from twosat_formal.formula import Formula

__all__ = ["best_of", "random_2cnf"]


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
