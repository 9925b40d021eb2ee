"""The offending strong components in numpy, and the contradiction cycle without SciPy.

:func:`offending_partition` must find exactly SciPy's strong components that hold some
``x`` and ``-x`` (as sets of nodes), :func:`partition_cycle` on its labels must give
the cycle :func:`contradiction_cycle` gives on SciPy's, byte for byte, and
:func:`solve_scc` must give the SciPy path's result, model or cycle, whichever way it
goes; ``solve`` of a dense random UNSAT formula must not import SciPy.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solve_support import scipy_result

from twosat_formal.formula import Formula
from twosat_formal.solve import scc, solve, verify
from twosat_formal.solve.graph import implication_arrays, implication_graph
from twosat_formal.solve.offending import FB_LEVELS, offending_partition
from twosat_formal.solve.scc import (
    ARRAY_LEVELS,
    LARGE_COMPONENT,
    NEAR_LEVELS,
    RowArrays,
    contradiction_cycle,
    partition_cycle,
    solve_scc,
    strong_components,
)

IntArray = npt.NDArray[np.int64]


def random_clauses(
    num_vars: int, ratio: float, rng: random.Random, base: int = 0
) -> list[list[int]]:
    """``ratio * num_vars`` random clauses over the variables ``base + 1 .. base + num_vars``."""
    clauses = []
    for _ in range(max(1, round(ratio * num_vars))):
        a, b = rng.randint(1, num_vars) + base, rng.randint(1, num_vars) + base
        clauses.append([a * rng.choice([1, -1]), b * rng.choice([1, -1])])
    return clauses


def ring_clauses(variables: list[int], rng: random.Random) -> list[list[int]]:
    """``l1 | ~l2, ..., ln, ~l1``: one offending component, a simple cycle of the literals."""
    lits = [var * rng.choice([1, -1]) for var in variables]
    clauses = [[a, -b] for a, b in itertools.pairwise(lits)]
    return [*clauses, [lits[-1]], [-lits[0]]]


@st.composite
def formulas(draw: st.DrawFn) -> Formula:
    """Random dense and sparse 2-CNFs, and disjoint unions of blocks of different sizes
    (dense random blocks, contradictory rings), variables shuffled."""
    rng = draw(st.randoms(use_true_random=False))
    kind = draw(st.sampled_from(["dense", "sparse", "blocks"]))
    if kind == "dense":
        num_vars = draw(st.integers(1, 60))
        clauses = random_clauses(num_vars, draw(st.floats(1.5, 6.0)), rng)
    elif kind == "sparse":
        num_vars = draw(st.integers(1, 80))
        clauses = random_clauses(num_vars, draw(st.floats(0.2, 1.3)), rng)
    else:
        sizes = draw(st.lists(st.integers(1, 25), min_size=2, max_size=5))
        clauses, num_vars = [], 0
        for size in sizes:
            if draw(st.booleans()):
                clauses += ring_clauses(list(range(num_vars + 1, num_vars + size + 1)), rng)
            else:
                clauses += random_clauses(size, draw(st.floats(1.0, 5.0)), rng, base=num_vars)
            num_vars += size
        mapping = list(range(1, num_vars + 1))
        rng.shuffle(mapping)
        clauses = [[mapping[abs(lit) - 1] * (1 if lit > 0 else -1) for lit in c] for c in clauses]
    rng.shuffle(clauses)
    return Formula(clauses, num_vars=num_vars)


def offending_sets(labels: IntArray) -> set[frozenset[int]]:
    """The node sets of the labels' components that hold some ``x`` and ``-x``."""
    bad = set(labels[0::2][labels[0::2] == labels[1::2]].tolist())
    groups: dict[int, set[int]] = {}
    for node, label in enumerate(labels.tolist()):
        if label in bad:
            groups.setdefault(label, set()).add(node)
    return {frozenset(nodes) for nodes in groups.values()}


def check_partition(formula: Formula, labels: IntArray | None) -> None:
    """``labels`` is None, or exact on the offending components and gives SciPy's cycle."""
    if labels is None:
        return
    graph = implication_graph(formula)
    components = strong_components(graph)
    assert offending_sets(labels) == offending_sets(components.labels)
    own = np.flatnonzero(~np.isin(labels, labels[0::2][labels[0::2] == labels[1::2]]))
    assert np.array_equal(labels[own], own)  # every other node: a label of its own
    if offending_sets(labels):
        rows = RowArrays.of(formula)
        assert partition_cycle(rows, labels) == contradiction_cycle(graph, components)


@settings(max_examples=300, deadline=None)
@given(formulas())
def test_the_offending_components_and_cycle_are_the_scipy_paths(formula: Formula) -> None:
    indptr, indices = implication_arrays(formula)
    labels = offending_partition(indptr, indices)
    assert labels is not None  # small graphs: Tarjan's search at the latest
    check_partition(formula, labels)
    check_partition(formula, offending_partition(indptr, indices, tarjan=0))  # rounds alone
    check_partition(formula, offending_partition(indptr, indices, tarjan=0, rounds=2))
    check_partition(formula, offending_partition(indptr, indices, tarjan=0, levels=6))
    check_partition(formula, offending_partition(indptr, indices, tarjan=0, hopeful=True))
    assert solve_scc(formula) == scipy_result(formula)


@settings(max_examples=100, deadline=None)
@given(formulas(), st.randoms(use_true_random=False))
def test_the_submatrix_is_scipys(formula: Formula, rng: random.Random) -> None:
    rows = RowArrays.of(formula)
    size = rows.shape[0]
    nodes = np.array(sorted(rng.sample(range(size), rng.randint(0, size))), dtype=np.int64)
    sub = rows.submatrix(nodes)
    expected = implication_graph(formula).matrix[nodes][:, nodes]
    assert sub.shape == expected.shape
    assert sub.indptr.tolist() == expected.indptr.tolist()
    assert sub.indices.tolist() == expected.indices.tolist()


def blocks(sizes: list[int], ratio: float, seed: int) -> Formula:
    """Disjoint dense random blocks over consecutive variables."""
    rng = np.random.default_rng(seed)
    parts, base = [], 0
    for size in sizes:
        clauses = round(ratio * size)
        variables = rng.integers(1, size + 1, size=(clauses, 2)) + base
        parts.append(variables * rng.choice(np.array([-1, 1]), size=(clauses, 2)))
        base += size
    return Formula(np.concatenate(parts).tolist(), num_vars=base)


@pytest.mark.parametrize(
    ("sizes", "ratio"),
    [
        # the smallest offending component: over LARGE_COMPONENT nodes (about 82,000),
        # under it (about 57,000), most of the graph (searched in place)
        ([LARGE_COMPONENT * 65 // 100, 2 * LARGE_COMPONENT], 4.0),
        ([LARGE_COMPONENT * 45 // 100, 2 * LARGE_COMPONENT], 4.0),
        ([LARGE_COMPONENT], 4.0),
        ([30, 40_000, 25], 3.0),  # the smallest offending component wins
    ],
)
def test_large_components_give_the_scipy_cycle(sizes: list[int], ratio: float) -> None:
    formula = blocks(sizes, ratio, seed=sum(sizes))
    labels = offending_partition(*implication_arrays(formula))
    assert labels is not None
    check_partition(formula, labels)
    result = solve(formula)
    assert result.checked and result == verify(formula, scipy_result(formula))


@pytest.mark.parametrize("num_vars", [4 * NEAR_LEVELS, 2 * ARRAY_LEVELS])
def test_long_paths_give_the_scipy_cycle(num_vars: int) -> None:
    """Paths over NEAR_LEVELS steps: numpy's search up to ARRAY_LEVELS, then SciPy's."""
    rng = random.Random(3)
    clauses = ring_clauses(list(range(1, num_vars + 1)), rng)
    clauses += [[rng.randint(1, num_vars), num_vars + k] for k in range(1, 6)]  # branches
    formula = Formula(clauses, num_vars=num_vars + 5)
    rows = RowArrays.of(formula)
    # forward-backward alone walks the ring level by level: past FB_LEVELS it gives up
    alone = offending_partition(rows.indptr, rows.indices, tarjan=0)
    assert (alone is None) == (2 * num_vars > FB_LEVELS)
    check_partition(formula, alone)
    labels = offending_partition(rows.indptr, rows.indices, tarjan=2 * num_vars + 10)
    assert labels is not None
    check_partition(formula, labels)
    cycle = partition_cycle(rows, labels)
    assert len(cycle) > 2 * num_vars - 2  # the ring: paths of about num_vars steps


def test_satisfiable_dense_formulas_go_to_scipy() -> None:
    rng = random.Random(5)
    num_vars = 3000
    truth = [rng.random() < 0.5 for _ in range(num_vars + 1)]
    clauses: list[list[int]] = []
    while len(clauses) < 3 * num_vars:  # true under ``truth``: satisfiable, 3 per variable
        clause = random_clauses(num_vars, 1 / num_vars, rng)[0]
        if any((lit > 0) == truth[abs(lit)] for lit in clause):
            clauses.append(clause)
    formula = Formula(clauses, num_vars=num_vars)
    arrays = implication_arrays(formula)
    labels = offending_partition(*arrays)
    assert labels is not None and not offending_sets(labels)
    assert offending_partition(*arrays, hopeful=True) is None  # given up after one search
    result = solve_scc(formula)
    assert result.is_sat and result == scipy_result(formula)


def test_a_search_out_of_budget_goes_to_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    formula = blocks([5000], 3.0, seed=11)
    arrays = implication_arrays(formula)
    assert offending_partition(*arrays, rounds=0, tarjan=0) is None
    assert offending_partition(*arrays, levels=2, tarjan=0) is None
    many = blocks([6] * 300, 4.0, seed=2)  # many small contradictions: one a round
    assert offending_partition(*implication_arrays(many), tarjan=0) is None
    assert offending_partition(*implication_arrays(many)) is not None  # Tarjan's search
    assert solve_scc(many) == scipy_result(many)
    calls = []

    def out_of_budget(indptr: IntArray, indices: IntArray, *, hopeful: bool) -> None:
        calls.append(indptr.size)

    monkeypatch.setattr(scc, "offending_partition", out_of_budget)
    assert solve_scc(formula) == scipy_result(formula)
    assert calls == [2 * formula.num_vars + 1]


def test_empty_and_tiny_graphs() -> None:
    empty = offending_partition(np.zeros(1, dtype=np.int32), np.zeros(0, dtype=np.int32))
    assert empty is not None and empty.size == 0
    for formula in (Formula([[1], [-1]]), Formula([[1, 2]]), Formula([[1, -1]])):
        for tarjan in (0, 100):
            check_partition(
                formula, offending_partition(*implication_arrays(formula), tarjan=tarjan)
            )


def test_a_dense_random_contradiction_is_solved_without_importing_scipy() -> None:
    """And a cycle with paths of about 300 steps is found without SciPy."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from twosat_formal.formula import Formula\n"
        "from twosat_formal.solve import solve\n"
        "rng = np.random.default_rng(1)\n"
        "n = 20000\n"
        "pairs = rng.integers(1, n + 1, size=(4 * n, 2)) * rng.choice([-1, 1], size=(4 * n, 2))\n"
        "result = solve(Formula(pairs.tolist(), num_vars=n))\n"
        "print(result.status, result.checked, len(result.cycle) > 1)\n"
        "from twosat_formal.solve.offending import offending_partition\n"
        "from twosat_formal.solve.scc import RowArrays, partition_cycle\n"
        "ring = [[i, -(i + 1)] for i in range(1, 300)] + [[300], [-1], [5, 301]]\n"
        "rows = RowArrays.of(Formula(ring))\n"
        "print(len(partition_cycle(rows, offending_partition(rows.indptr, rows.indices))))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["UNSAT True True", "600", "[]"]


def test_a_dense_formula_over_few_variables_stays_with_the_numpy_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A few nodes with many edges between them are not handed to the Python search."""
    from twosat_formal.solve import offending

    formula = Formula(random_clauses(200, 20.0, random.Random(4)), num_vars=200)
    indptr, indices = implication_arrays(formula)
    calls: list[int] = []
    real = offending._tarjan_rest

    def counted(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(offending, "_tarjan_rest", counted)
    check_partition(formula, offending_partition(indptr, indices))
    assert calls == [1]  # 8,000 edges: few enough
    monkeypatch.setattr(offending, "TARJAN_EDGES", 1000)
    labels = offending_partition(indptr, indices)
    assert labels is not None and calls == [1]  # too many: numpy rounds alone
    check_partition(formula, labels)
    assert solve_scc(formula) == scipy_result(formula)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 70_000), max_size=300), st.booleans())
def test_first_places_are_numpys_unique_indices(values: list[int], small: bool) -> None:
    array = np.array([v % 300 for v in values] if small else values, dtype=np.int32)
    bound = 300 if small else 70_001
    expected = np.sort(np.unique(array, return_index=True)[1])
    assert scc.first_places(array, bound).tolist() == expected.tolist()
