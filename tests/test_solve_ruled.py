"""The walk of a functional graph by rulers is the walk node by node, node for node.

:func:`ruled_walk` must give exactly the paths and cycles of
:func:`functional_walk`'s Python walk, whatever the graph (paths and cycles of any
lengths, numbered in any order), whatever the share of rulers and however soon a
long stretch is finished node by node; and a formula large enough to be walked so must
still get the SciPy path's result. A long contradiction cycle's check must find a
broken step wherever it is, in the order the steps come.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solve_support import scipy_result

from twosat_formal.errors import CertificateError
from twosat_formal.formula import Formula
from twosat_formal.solve import SolveResult, solve, verify
from twosat_formal.solve.functional import (
    RULED_NODES,
    functional_walk,
    solve_functional,
    successor_nodes,
)
from twosat_formal.solve.ruled import ruled_walk, sampled_rulers


def node_by_node(step: np.ndarray) -> tuple[list[int], list[int]]:
    walk = functional_walk(step, share=2.0, ruled=sys.maxsize)
    return walk.paths.tolist(), walk.cycles.tolist()


def led_of(step: np.ndarray) -> np.ndarray:
    size = step.size - 1
    led = np.zeros(size + 1, dtype=np.bool_)
    led[step[:size]] = True
    return led


@st.composite
def functional_steps(draw: st.DrawFn) -> np.ndarray:
    """Steps of a graph of disjoint paths and cycles, its nodes numbered at random or in
    runs, with many short pieces or a few long ones."""
    size = draw(st.integers(0, 400))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    order = rng.permutation(size) if draw(st.booleans()) else np.arange(size)
    piece = draw(st.sampled_from([1, 2, 3, 8, 50, 1000]))
    cuts = np.sort(rng.choice(size + 1, size=min(size + 1, max(1, size // piece)), replace=False))
    step = np.full(size + 1, size, dtype=np.int64)
    bounds = np.unique(np.concatenate(([0], cuts, [size])))
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        part = order[lo:hi]
        if part.size == 0:
            continue
        step[part[:-1]] = part[1:]
        if draw(st.booleans()):  # a cycle, else a path
            step[part[-1]] = part[0]
    return step


@settings(max_examples=400, deadline=None)
@given(functional_steps(), st.integers(0, 6), st.integers(0, 12))
def test_the_walk_by_rulers_is_the_walk_node_by_node(
    step: np.ndarray, bits: int, tail: int
) -> None:
    paths, cycles = ruled_walk(step, led_of(step), bits=bits, tail=tail)
    assert (paths.tolist(), cycles.tolist()) == node_by_node(step)


def test_a_long_stretch_without_rulers_is_finished_node_by_node() -> None:
    size = 3000
    step = np.append(np.roll(np.arange(size), -1), size)  # one ring through every node
    ruler = sampled_rulers(size)
    assert int(np.diff(np.flatnonzero(ruler)).max()) > 8  # stretches longer than the tail
    paths, cycles = ruled_walk(step, led_of(step), tail=8)
    assert (paths.tolist(), cycles.tolist()) == node_by_node(step)


def test_rulers_are_about_one_node_in_two_to_the_bits() -> None:
    for bits in (0, 3, 6):
        share = np.count_nonzero(sampled_rulers(1 << 16, bits)) / (1 << 16)
        assert abs(share * (1 << bits) - 1) < 0.05


def shuffled_ring(num_vars: int, seed: int, extra: list[list[int]]) -> Formula:
    """``l1 | ~l2, ..., ln, ~l1`` over shuffled variables and turned signs (UNSAT)."""
    rng = np.random.default_rng(seed)
    lits = (rng.permutation(num_vars) + 1) * rng.choice([-1, 1], size=num_vars)
    pairs = [[int(a), -int(b)] for a, b in itertools.pairwise(lits.tolist())]
    clauses = [*pairs, [int(lits[-1])], [-int(lits[0])], *extra]
    order = rng.permutation(len(clauses))
    return Formula([clauses[i] for i in order.tolist()], num_vars=num_vars + 2)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_large_shuffled_ring_is_walked_by_rulers_to_the_scipy_result(seed: int) -> None:
    num_vars = RULED_NODES  # 2 * num_vars nodes: walked by rulers
    ring = shuffled_ring(num_vars, seed, [[num_vars + 1, num_vars + 2]])
    step = successor_nodes(ring)
    assert step is not None and step.size - 1 >= RULED_NODES
    assert solve_functional(ring) == scipy_result(ring)
    chain = Formula([c for c in ring.clauses if len(c) == 2], num_vars=ring.num_vars)
    assert solve_functional(chain) == scipy_result(chain)  # satisfiable: SciPy's model


def test_a_broken_step_of_a_long_shuffled_cycle_is_named() -> None:
    num_vars = 3000
    ring = shuffled_ring(num_vars, 3, [])
    result = solve(ring)
    assert result.cycle is not None and len(result.cycle) == 2 * num_vars
    cycle = list(result.cycle)
    for where in (0, 1234, len(cycle) - 1):
        broken = cycle.copy()
        broken[where] = -broken[where]
        with pytest.raises(CertificateError, match=rf"cycle step {max(where, 1)} \("):
            verify(ring, SolveResult("UNSAT", cycle=tuple(broken), backend="scc"))
