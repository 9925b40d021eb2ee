"""Formulas whose every literal implies exactly one literal: cycles walked without SciPy.

:func:`permutation_contradiction` must give exactly the contradiction cycle of SciPy's
path (:func:`contradiction_cycle` over :func:`strong_components`), and None exactly when
that path finds the formula satisfiable; ``solve`` of such a formula must not import
SciPy when it is UNSAT, and its certificate is checked as every other.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.formula import Formula
from twosat_formal.solve import check_cycle, solve
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.permutation import (
    permutation_contradiction,
    permutation_cycles,
    successor_literals,
)
from twosat_formal.solve.scc import (
    LARGE_COMPONENT,
    conflicting_variables,
    contradiction_cycle,
    solve_scc,
    strong_components,
)


def ring(order: list[int], signs: list[int]) -> list[list[int]]:
    """``l1 | ~l2, l2 | ~l3, ..., ln, ~l1`` over the literals ``sign * var``: UNSAT."""
    lits = [sign * var for sign, var in zip(signs, order, strict=True)]
    clauses = [[a, -b] for a, b in itertools.pairwise(lits)]
    return [*clauses, [lits[-1]], [-lits[0]]]


def matching(variables: list[int], pairs: list[bool], rng: random.Random) -> list[list[int]]:
    """Every literal of ``variables`` in exactly one clause: random pairs, some split into units."""
    lits = [sign * var for var in variables for sign in (1, -1)]
    rng.shuffle(lits)
    clauses: list[list[int]] = []
    for i, pair in zip(range(0, len(lits), 2), pairs * len(lits), strict=False):
        a, b = lits[i], lits[i + 1]
        clauses += [[a, b]] if pair else [[a], [b]]
    return clauses


@st.composite
def permutation_formulas(draw: st.DrawFn) -> Formula:
    rng = draw(st.randoms(use_true_random=False))
    num_vars = draw(st.integers(1, 40))
    variables = list(range(1, num_vars + 1))
    rng.shuffle(variables)
    clauses: list[list[int]] = []
    rings = draw(st.booleans())  # without rings, some formulas are satisfiable
    while variables:
        take = draw(st.integers(1, len(variables)))
        part, variables = variables[:take], variables[take:]
        kind = draw(
            st.sampled_from(["ring", "xor", "matching"] if rings else ["xor", "xor", "matching"])
        )
        if kind == "ring":
            clauses += ring(part, [rng.choice([1, -1]) for _ in part])
        elif kind == "xor":  # a != b: two 2-cycles; a | ~a: two loops (satisfiable)
            for a, b in zip(part[0::2], part[1::2], strict=False):
                a, b = rng.choice([1, -1]) * a, rng.choice([1, -1]) * b
                clauses += [[a, b], [-a, -b]]
            if len(part) % 2:
                clauses.append([part[-1], -part[-1]])
        else:
            clauses += matching(part, draw(st.lists(st.booleans(), min_size=1, max_size=4)), rng)
    rng.shuffle(clauses)
    return Formula(clauses, num_vars=num_vars)


def scipy_path(formula: Formula) -> tuple[int, ...] | None:
    """The contradiction cycle SciPy's strong components give, or None if satisfiable."""
    graph = implication_graph(formula)
    components = strong_components(graph)
    if conflicting_variables(components).size == 0:
        return None
    return contradiction_cycle(graph, components)


@settings(max_examples=300, deadline=None)
@given(permutation_formulas())
def test_the_walk_gives_the_cycle_of_the_scipy_path(formula: Formula) -> None:
    step = successor_literals(formula)
    assert step is not None  # the strategy draws only such formulas
    graph = implication_graph(formula)
    n = formula.num_vars
    for lit in [*range(1, n + 1), *range(-n, 0)]:  # the steps are the graph's edges
        assert graph.successors(lit) == [step[lit]]
    walk = permutation_contradiction(step)
    expected = scipy_path(formula)
    if expected is None:
        assert walk is None
        assert solve_scc(formula).status == "SAT"
    else:
        assert walk is not None
        cycle = tuple(walk)
        assert cycle == expected
        check_cycle(formula, cycle)
        assert solve_scc(formula).cycle == expected


@settings(max_examples=200, deadline=None)
@given(permutation_formulas())
def test_permutation_cycles_walk_each_cycle_with_a_positive_literal_once(
    formula: Formula,
) -> None:
    step = successor_literals(formula)
    assert step is not None
    order, starts, mirrored = permutation_cycles(step)
    n = formula.num_vars
    assert len(set(order)) == len(order)
    assert set(range(1, n + 1)) <= set(order)  # every positive literal is walked
    ends = [*starts[1:], len(order)]
    for start, end, holds in zip(starts, ends, mirrored, strict=True):
        cycle = order[start:end]
        assert cycle[0] == min(lit for lit in cycle if lit > 0)
        assert [step[lit] for lit in cycle] == [*cycle[1:], cycle[0]]
        assert holds == (-cycle[0] in cycle)
    assert [order[s] for s in starts] == sorted(order[s] for s in starts)
    # The negative literals left out are exactly the cycles without a positive literal.
    for lit in set(range(-n, 0)) - set(order):
        walk = [lit]
        while step[walk[-1]] != lit:
            walk.append(step[walk[-1]])
        assert all(w < 0 for w in walk)


def test_other_graphs_are_left_to_scipy() -> None:
    chain = Formula([[-1, 2], [-2, 3]])  # x3 implies nothing
    fan = Formula([[1, 2], [1, 3], [-1]])  # -1 implies 2 and 3
    twice = Formula([[1, -2], [1, -2], [2], [-1]])  # a ring with a clause repeated
    for formula in (chain, fan, twice):
        assert successor_literals(formula) is None
        assert solve_scc(formula).cycle == scipy_path(formula)
    assert solve_scc(twice).cycle == (1, -1, -2, 2)
    assert permutation_contradiction(successor_literals(Formula([])) or []) is None


def test_a_ring_larger_than_a_large_component_gives_the_scipy_cycle() -> None:
    """Above LARGE_COMPONENT nodes the SciPy path searches from both ends at once."""
    rng = random.Random(7)
    num_vars = LARGE_COMPONENT // 2 + 1000
    order = rng.sample(range(1, num_vars + 1), num_vars)
    clauses = ring(order, [rng.choice([1, -1]) for _ in order])
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=num_vars)
    result = solve(formula)
    assert result.checked and result.cycle == scipy_path(formula)
    assert len(result.cycle or ()) == 2 * num_vars


def test_an_unsat_ring_is_solved_without_importing_scipy() -> None:
    code = (
        "import sys\n"
        "from twosat_formal.formula import Formula\n"
        "from twosat_formal.solve import solve\n"
        "n = 30000\n"
        "clauses = [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1]]\n"
        "result = solve(Formula(clauses))\n"
        "print(result.status, result.checked, len(result.cycle), result.cycle[:3])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["UNSAT True 60000 (1, -1, -2)", "[]"]


@pytest.mark.parametrize("num_vars", [1, 2, 5])
def test_small_rings(num_vars: int) -> None:
    formula = Formula(ring(list(range(1, num_vars + 1)), [1] * num_vars))
    step = successor_literals(formula)
    walk = None if step is None else permutation_contradiction(step)
    assert walk is not None
    assert tuple(walk) == scipy_path(formula)
