"""Formulas whose every literal implies at most one literal: walked without SciPy.

:func:`solve_functional` must give exactly the result of SciPy's path (the model from
:func:`strong_components`, or the contradiction cycle of :func:`contradiction_cycle`),
its labels must be SciPy's labels, node for node, and its answer PySAT's and Z3's;
``solve`` of such a formula must not import SciPy, and its certificate is checked as
every other. So must the contradiction cycle of a formula with a few literals that
imply two literals or more, walked or searched without SciPy
(:mod:`twosat_formal.solve.bfs`), whatever the shape of its component.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components
from solve_support import scipy_result

from twosat_formal.errors import TwoSatFormalError
from twosat_formal.formula import Formula
from twosat_formal.solve import (
    bfs,
    check_result,
    decide,
    functional,
    scc,
    solve,
    verify,
)
from twosat_formal.solve.functional import (
    branching_contradiction,
    functional_contradiction,
    functional_labels,
    functional_walk,
    solve_functional,
    successor_nodes,
)
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.runs import stride_runs
from twosat_formal.solve.scc import (
    LARGE_COMPONENT,
    solve_scc,
    strong_components,
)

#: SciPy up to 1.17 numbers strong components with Pearce's algorithm, whose order the
#: walk reproduces (and so SciPy's model); a later SciPy may number them otherwise.
PEARCE = "Pearce" in (connected_components.__doc__ or "")


def ring(order: list[int], signs: list[int]) -> list[list[int]]:
    """``l1 | ~l2, l2 | ~l3, ..., ln, ~l1`` over the literals ``sign * var``: UNSAT."""
    lits = [sign * var for sign, var in zip(signs, order, strict=True)]
    clauses = [[a, -b] for a, b in itertools.pairwise(lits)]
    return [*clauses, [lits[-1]], [-lits[0]]]


def chain(order: list[int], signs: list[int]) -> list[list[int]]:
    """``l1 -> l2 -> ... -> ln`` over the literals ``sign * var``: satisfiable."""
    lits = [sign * var for sign, var in zip(signs, order, strict=True)]
    return [[-a, b] for a, b in itertools.pairwise(lits)]


def matching(
    variables: list[int], pairs: list[bool], keep: float, rng: random.Random
) -> list[list[int]]:
    """Each literal of ``variables`` in at most one clause: random pairs, some split into units."""
    lits = [sign * var for var in variables for sign in (1, -1) if rng.random() < keep]
    rng.shuffle(lits)
    clauses: list[list[int]] = []
    for i, pair in zip(range(0, len(lits) - 1, 2), pairs * len(lits), strict=False):
        a, b = lits[i], lits[i + 1]
        clauses += [[a, b]] if pair else [[a], [b]]
    return clauses


@st.composite
def functional_formulas(draw: st.DrawFn, max_vars: int = 40) -> Formula:
    """Rings, chains, xor pairs and partial matchings over disjoint variables, some
    clauses repeated (in either order): every literal implies at most one literal."""
    rng = draw(st.randoms(use_true_random=False))
    num_vars = draw(st.integers(1, max_vars))
    variables = list(range(1, num_vars + 1))
    rng.shuffle(variables)
    clauses: list[list[int]] = []
    rings = draw(st.booleans())  # without rings, many formulas are satisfiable
    kinds = ["ring", "chain", "xor", "matching"] if rings else ["chain", "xor", "matching"]
    while variables:
        take = draw(st.integers(1, len(variables)))
        part, variables = variables[:take], variables[take:]
        kind = draw(st.sampled_from(kinds))
        signs = [rng.choice([1, -1]) for _ in part]
        if kind == "ring":
            clauses += ring(part, signs)
        elif kind == "chain":
            clauses += chain(part, signs)
        elif kind == "xor":  # a != b: two 2-cycles; a | ~a: two loops (satisfiable)
            for a, b in zip(part[0::2], part[1::2], strict=False):
                a, b = rng.choice([1, -1]) * a, rng.choice([1, -1]) * b
                clauses += [[a, b], [-a, -b]]
            if len(part) % 2:
                clauses.append([part[-1], -part[-1]])
        else:
            pairs = draw(st.lists(st.booleans(), min_size=1, max_size=4))
            clauses += matching(part, pairs, draw(st.sampled_from([0.5, 0.9, 1.0])), rng)
    for _ in range(draw(st.integers(0, 3)) if clauses else 0):
        clauses.append(rng.choice(clauses)[::-1])
    rng.shuffle(clauses)
    return Formula(clauses, num_vars=num_vars)


@settings(max_examples=300, deadline=None)
@given(functional_formulas())
def test_the_walk_gives_the_labels_model_and_cycle_of_the_scipy_path(formula: Formula) -> None:
    step = successor_nodes(formula)
    assert step is not None  # the strategy draws only such formulas
    graph = implication_graph(formula)
    size = 2 * formula.num_vars
    matrix = graph.matrix
    for node in range(size):  # the steps are the graph's edges
        row = matrix.indices[matrix.indptr[node] : matrix.indptr[node + 1]].tolist()
        assert row == ([] if step[node] == size else [int(step[node])])
    count, labels = functional_labels(functional_walk(step))
    components = strong_components(graph)
    assert count == components.count
    pairs = set(zip(labels.tolist(), components.labels.tolist(), strict=True))
    assert len(pairs) == count  # the same partition into components ...
    result = solve_functional(formula)
    assert result is not None
    if PEARCE:  # ... numbered as SciPy numbers them, node for node: the same model
        assert labels.tolist() == components.labels.tolist()
    if PEARCE or result.cycle is not None:  # a cycle does not depend on the numbering
        assert result == scipy_result(formula)
        assert solve_scc(formula) == result
    checked = verify(formula, result)
    assert checked.checked
    check_result(formula, checked)


@settings(max_examples=100, deadline=None)
@given(functional_formulas(max_vars=12))
def test_the_walk_agrees_with_pysat_and_z3(formula: Formula) -> None:
    result = solve_functional(formula)
    assert result is not None
    assert {decide(formula, "pysat"), decide(formula, "z3")} == {result.status}


@settings(max_examples=200, deadline=None)
@given(functional_formulas())
def test_the_walk_lists_each_path_and_cycle_once(formula: Formula) -> None:
    step = successor_nodes(formula)
    assert step is not None
    size = 2 * formula.num_vars
    succ = step.tolist()
    walk = functional_walk(step)
    assert sorted([*walk.paths.tolist(), *walk.cycles.tolist()]) == list(range(size))
    led = {succ[node] for node in range(size)}
    paths = walk.paths.tolist()
    for start, end in itertools.pairwise([*walk.path_starts.tolist(), len(paths)]):
        nodes = paths[start:end]
        assert nodes[0] not in led  # from a node without predecessor ...
        assert [succ[node] for node in nodes] == [*nodes[1:], size]  # ... to its end
    cycles = walk.cycles.tolist()
    roots = []
    for start, end in itertools.pairwise([*walk.cycle_starts.tolist(), len(cycles)]):
        nodes = cycles[start:end]
        assert nodes[0] == min(nodes)  # from its lowest node ...
        assert [succ[node] for node in nodes] == [*nodes[1:], nodes[0]]  # ... round
        roots.append(nodes[0])
    assert roots == sorted(roots)
    cycle = functional_contradiction(walk)
    if cycle is not None:  # a whole cycle holding some x and -x, from its lowest variable
        lits = cycle.tolist()
        assert lits[0] > 0 and -lits[0] in lits
        assert lits[0] == min(abs(lit) for lit in lits)


@st.composite
def branching_formulas(draw: st.DrawFn) -> Formula:
    """A functional formula and one to three clauses more, over its variables or fresh
    ones: some literals imply two literals."""
    base = draw(functional_formulas(max_vars=30))
    n = base.num_vars
    fresh = draw(st.integers(0, 2))
    literal = st.integers(1, n + fresh).flatmap(lambda v: st.sampled_from([v, -v]))
    extra = draw(st.lists(st.lists(literal, min_size=1, max_size=2), min_size=1, max_size=3))
    return Formula([*base.clauses, *extra], num_vars=n + fresh)


@settings(max_examples=400, deadline=None)
@given(branching_formulas())
def test_a_walked_branching_contradiction_is_the_scipy_paths(formula: Formula) -> None:
    expected = scipy_result(formula)
    result = solve_functional(formula)
    if result is not None:  # walked: then exactly the SciPy path's result
        assert result == expected
        if successor_nodes(formula) is None:  # some literal implies two: a cycle only
            assert result.cycle is not None
            assert tuple(branching_contradiction(formula).tolist()) == result.cycle
        check_result(formula, verify(formula, result))
    assert solve_scc(formula) == expected


@settings(max_examples=200, deadline=None)
@given(
    branching_formulas(),
    st.integers(0, 3),
    st.integers(1, 6),
    st.randoms(use_true_random=False),
)
def test_a_look_at_the_first_clauses_never_changes_the_answer(
    formula: Formula, branching: int, prefix: int, rng: random.Random
) -> None:
    """With small limits, the look at the first clauses declines only what the whole
    formula's walk declines too (and it does decline some)."""
    clauses = list(formula.clauses)
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=formula.num_vars)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(functional, "BRANCHING", branching)
        patch.setattr(functional, "PREFIX_CLAUSES", 10**9)
        whole = solve_functional(formula)
        patch.setattr(functional, "PREFIX_CLAUSES", prefix)
        if functional._branches_early(formula) and formula.num_clauses > prefix:
            assert whole is None
        assert solve_functional(formula) == whole


@pytest.mark.parametrize(("chords", "seed"), [(150, 1), (400, 2)])
def test_a_ring_with_hundreds_of_random_chords_gets_the_scipy_cycle(chords: int, seed: int) -> None:
    """Hundreds of literals that imply two (up to ``BRANCHING``) are still searched
    without SciPy, to the SciPy path's very cycle."""
    rng = random.Random(seed)
    num_vars = LARGE_COMPONENT // 2 + 1000
    order = rng.sample(range(1, num_vars + 1), num_vars)
    clauses = ring(order, [rng.choice([1, -1]) for _ in order])
    for _ in range(chords):
        a, b = rng.sample(range(1, num_vars + 1), 2)
        clauses.append([a * rng.choice([1, -1]), b * rng.choice([1, -1])])
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=num_vars)
    step, sources, targets = functional._steps(formula)
    branching = np.unique(sources[step[sources] != targets]).size
    assert 64 < branching <= functional.BRANCHING
    walked = branching_contradiction(formula)
    assert walked is not None
    assert solve_scc(formula) == scipy_result(formula)


def test_a_ring_with_a_clause_touching_it_is_walked() -> None:
    rng = random.Random(5)
    num_vars = LARGE_COMPONENT // 2 + 1000
    order = rng.sample(range(1, num_vars + 1), num_vars)
    ring_vars, fresh = order[:-1], order[-1]
    clauses = ring(ring_vars, [rng.choice([1, -1]) for _ in ring_vars])
    clauses.append([clauses[0][0], fresh])  # a literal of the ring implies one more
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=num_vars)
    assert successor_nodes(formula) is None
    walked = branching_contradiction(formula)
    assert walked is not None and len(walked) == 2 * (num_vars - 1)
    result = solve(formula)
    assert result.checked and result == verify(formula, scipy_result(formula))
    assert result.cycle == tuple(walked.tolist())


def test_a_component_that_is_not_a_simple_cycle_is_searched() -> None:
    chord = Formula([*ring([1, 2, 3, 4, 5], [1] * 5), [1, -3]])  # -1 -> -3 inside the ring
    walked = solve_functional(chord)
    assert walked is not None and walked == scipy_result(chord) == solve_scc(chord)
    assert walked.cycle == tuple(branching_contradiction(chord).tolist())
    many = Formula([[1, v] for v in range(2, 200)])  # -1 implies 198 literals: SAT
    assert branching_contradiction(many) is None


def test_a_declined_search_is_left_to_scipy() -> None:
    """With room for no arrival at a special node, the search declines; SciPy decides."""
    chord = Formula([*ring([1, 2, 3, 4, 5], [1] * 5), [1, -3]])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bfs, "EVENTS", 0)
        assert branching_contradiction(chord) is None
        assert solve_functional(chord) is None
        assert solve_scc(chord) == scipy_result(chord)


def test_other_graphs_are_left_to_scipy() -> None:
    fan = Formula([[1, 2], [1, 3], [-1]])  # -1 implies 2 and 3: satisfiable
    assert successor_nodes(fan) is None
    assert solve_functional(fan) is None
    assert solve_scc(fan) == scipy_result(fan)
    branch = Formula([[1, -2], [2, -3], [3], [-1], [1, 4]])  # a ring, -1 also implies 4
    assert successor_nodes(branch) is None
    assert solve_functional(branch) == scipy_result(branch)  # a simple cycle: walked
    twice = Formula([[1, -2], [1, -2], [-2, 1], [2], [-1]])  # a ring, a clause repeated
    assert solve_scc(twice).cycle == scipy_result(twice).cycle == (1, -1, -2, 2)
    empty = solve_functional(Formula([]))
    assert empty is not None and empty.model == ()
    with pytest.raises(TwoSatFormalError, match="two predecessors"):
        functional_walk(np.array([2, 2, 0, 4, 4]))  # 0 -> 2 and 1 -> 2: no 2-CNF's steps


def test_a_ring_larger_than_a_large_component_gives_the_scipy_cycle() -> None:
    """Above LARGE_COMPONENT nodes the SciPy path searches from both ends at once."""
    rng = random.Random(7)
    num_vars = LARGE_COMPONENT // 2 + 1000
    order = rng.sample(range(1, num_vars + 1), num_vars)
    clauses = ring(order[:-2], [rng.choice([1, -1]) for _ in order[:-2]])
    clauses.append([order[-2], -order[-1]])  # fresh variables: not every literal implies one
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=num_vars)
    assert successor_nodes(formula) is not None
    result = solve(formula)
    assert result.checked and result == verify(formula, scipy_result(formula))
    assert len(result.cycle or ()) == 2 * (num_vars - 2)


@pytest.mark.skipif(not PEARCE, reason="this SciPy numbers components in another order")
def test_a_long_chain_gets_the_scipy_model() -> None:
    rng = random.Random(11)
    num_vars = 30_000
    order = rng.sample(range(1, num_vars + 1), num_vars)
    clauses = chain(order, [rng.choice([1, -1]) for _ in order])
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=num_vars)
    result = solve_scc(formula)
    assert result.is_sat and result == scipy_result(formula)
    check_result(formula, verify(formula, result))


def test_these_formulas_are_solved_without_importing_scipy() -> None:
    code = (
        "import sys\n"
        "from twosat_formal.formula import Formula\n"
        "from twosat_formal.solve import solve\n"
        "n = 30000\n"
        "ring = [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1], [n + 1, n + 2]]\n"
        "chain = [[-i, i + 1] for i in range(1, n)]\n"
        "touch = [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1], [1, n + 1]]\n"
        "chord = [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1], [-1, n // 2]]\n"
        "for clauses in (ring, chain, touch, chord):\n"
        "    result = solve(Formula(clauses))\n"
        "    certificate = result.cycle if result.cycle else result.model\n"
        "    print(result.status, result.checked, len(certificate), certificate[:3])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        "UNSAT True 60000 (1, -1, -2)",
        "SAT True 30000 (True, True, True)",
        "UNSAT True 60000 (1, -1, -2)",
        "UNSAT True 60000 (1, -1, -2)",
        "[]",
    ]


@pytest.mark.parametrize("num_vars", [1, 2, 5])
def test_small_rings(num_vars: int) -> None:
    formula = Formula(ring(list(range(1, num_vars + 1)), [1] * num_vars))
    result = solve_functional(formula)
    assert result is not None and result == scipy_result(formula)
    assert result.cycle is not None and np.array_equal(
        np.sort(np.abs(result.cycle)), np.repeat(np.arange(1, num_vars + 1), 2)
    )


@st.composite
def chorded_rings(draw: st.DrawFn) -> Formula:
    """A ring over permuted, signed variables (two rings, sometimes), and a few clauses
    touching it: chords either way, units, clauses repeated, fresh variables."""
    rng = draw(st.randoms(use_true_random=False))
    num_vars = draw(st.integers(1, 300))
    order = rng.sample(range(1, num_vars + 1), num_vars)
    cut = draw(st.integers(1, num_vars)) if draw(st.booleans()) else num_vars
    clauses: list[list[int]] = []
    for part in (order[:cut], order[cut:]):
        if part:
            clauses += ring(part, [rng.choice([1, -1]) for _ in part])
    fresh = draw(st.integers(0, 2))
    literal = st.integers(1, num_vars + fresh).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses += draw(st.lists(st.lists(literal, min_size=1, max_size=2), min_size=1, max_size=6))
    clauses += [clauses[i] for i in draw(st.lists(st.integers(0, len(clauses) - 1), max_size=3))]
    rng.shuffle(clauses)
    return Formula(clauses, num_vars=num_vars + fresh)


@settings(max_examples=300, deadline=None)
@given(
    chorded_rings(),
    st.sampled_from([LARGE_COMPONENT, 2, 8, 64, 256]),
    st.sampled_from([scc.CYCLE_SEARCH_BUDGET, 64, 600]),
)
def test_a_searched_component_gives_the_scipy_paths_cycle(
    formula: Formula, large: int, budget: int
) -> None:
    """Whatever the component's shape, the cycle is the SciPy path's, literal for literal:
    with the search from both ends in components of more than ``large`` literals (and
    the one-ended search where it goes past its levels), and ``budget`` deciding how
    many variables are tried."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scc, "LARGE_COMPONENT", large)
        patch.setattr(scc, "CYCLE_SEARCH_BUDGET", budget)
        expected = scipy_result(formula)
        walked = branching_contradiction(formula)
        assert solve_scc(formula) == expected
    if walked is not None:
        assert expected.cycle == tuple(walked.tolist())
    elif expected.status == "UNSAT":  # declined: only a graph that is functional after all
        assert successor_nodes(formula) is not None


@pytest.mark.parametrize("num_vars", [LARGE_COMPONENT // 2 - 40, LARGE_COMPONENT // 2 + 40])
def test_a_ring_with_chords_at_the_real_limits_gives_the_scipy_cycle(num_vars: int) -> None:
    """Components just under and just over LARGE_COMPONENT literals (one-ended searches of
    a few variables; searches from both ends, one going past its levels)."""
    rng = random.Random(num_vars)
    order = rng.sample(range(1, num_vars + 1), num_vars)
    signs = [rng.choice([1, -1]) for _ in order]
    lits = [sign * var for sign, var in zip(signs, order, strict=True)]
    clauses = ring(order, signs)
    clauses += [[-lits[0], lits[num_vars // 2]], [lits[7], -lits[num_vars // 3]]]
    rng.shuffle(clauses)
    formula = Formula(clauses, num_vars=num_vars)
    walked = solve_functional(formula)
    expected = scipy_result(formula)
    assert walked is not None and walked == expected
    result = solve(formula)
    assert result.checked and result == verify(formula, expected)


@st.composite
def ordered_functional_formulas(draw: st.DrawFn, max_vars: int = 120) -> Formula:
    """Chains and rings over runs of consecutive variables (up or down, signs mostly
    kept along a stretch), beside other functional parts: many nodes step two nodes up
    or down, in runs long enough to be taken at once."""
    rng = draw(st.randoms(use_true_random=False))
    num_vars = draw(st.integers(1, max_vars))
    clauses: list[list[int]] = []
    first = 1
    while first <= num_vars:
        take = draw(st.integers(1, num_vars - first + 1))
        part = list(range(first, first + take))
        first += take
        if draw(st.booleans()):
            part.reverse()
        sign = rng.choice([1, -1])
        signs = []
        for _ in part:  # a sign kept for a while, then perhaps turned
            if rng.random() < 0.05:
                sign = -sign
            signs.append(sign)
        kind = draw(st.sampled_from(["ring", "chain", "matching"]))
        if kind == "ring":
            clauses += ring(part, signs)
        elif kind == "chain":
            clauses += chain(part, signs)
        else:
            clauses += matching(part, [True, False], 0.9, rng)
    if draw(st.booleans()):
        rng.shuffle(clauses)
    return Formula(clauses, num_vars=num_vars)


@settings(max_examples=300, deadline=None)
@given(ordered_functional_formulas())
def test_a_walk_run_by_run_is_the_walk_node_by_node(formula: Formula) -> None:
    step = successor_nodes(formula)
    assert step is not None
    by_runs = functional_walk(step, share=0.0)
    by_nodes = functional_walk(step, share=2.0, ruled=sys.maxsize)
    for name in ("paths", "path_starts", "cycles", "cycle_starts"):
        assert getattr(by_runs, name).tolist() == getattr(by_nodes, name).tolist(), name
    result = solve_functional(formula)
    assert result is not None
    if PEARCE or result.cycle is not None:
        assert result == scipy_result(formula)


@pytest.mark.parametrize("num_vars", [300, 3000])
def test_ordered_rings_and_chains_are_walked_run_by_run(num_vars: int) -> None:
    ring_formula = Formula(ring(list(range(1, num_vars + 1)), [1] * num_vars))
    chain_formula = Formula(chain(list(range(num_vars, 0, -1)), [-1] * num_vars))
    for formula in (ring_formula, chain_formula):
        step = successor_nodes(formula)
        assert step is not None
        runs = stride_runs(step)
        assert runs is not None and int(runs.max()) >= num_vars - 2  # taken at once
        walk = functional_walk(step)
        plain = functional_walk(step, share=2.0, ruled=sys.maxsize)
        assert walk.cycles.tolist() == plain.cycles.tolist()
        assert walk.paths.tolist() == plain.paths.tolist()
        assert solve_functional(formula) == scipy_result(formula)
