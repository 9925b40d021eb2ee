"""Fillers and pair sampling: distinct variables, coverage, planted satisfiability."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.fillers import (
    arrange,
    matched_fresh_count,
    planted_fillers,
    relabel,
    sample_pairs,
)


@given(seed=st.integers(0, 2**32), num_vars=st.integers(2, 30), count=st.integers(0, 80))
def test_sample_pairs(seed: int, num_vars: int, count: int) -> None:
    variables = list(range(5, 5 + num_vars))
    pairs = sample_pairs(random.Random(seed), variables, count)
    assert len(pairs) == count
    assert all(u != v and {u, v} <= set(variables) for u, v in pairs)
    if 2 * count >= num_vars:
        assert {v for pair in pairs for v in pair} == set(variables)
    distinct = {frozenset(p) for p in pairs}
    assert len(distinct) == min(count, num_vars * (num_vars - 1) // 2)


@given(seed=st.integers(0, 2**32), count=st.integers(0, 40), extra=st.integers(0, 10))
def test_cover_only_the_named_variables(seed: int, count: int, extra: int) -> None:
    extra = min(extra, 2 * count)
    variables = list(range(1, 6 + extra))
    cover = variables[5:]
    pairs = sample_pairs(random.Random(seed), variables, count, cover=cover)
    assert set(cover) <= {v for pair in pairs for v in pair}


@given(
    seed=st.integers(0, 2**32),
    num_vars=st.integers(2, 12),
    count=st.integers(1, 60),
    data=st.data(),
)
def test_planted_fillers_are_satisfied_and_never_tautologies(
    seed: int, num_vars: int, count: int, data: st.DataObject
) -> None:
    variables = list(range(1, num_vars + 1))
    planted = {v: data.draw(st.booleans()) for v in variables}
    clauses = planted_fillers(random.Random(seed), count, variables, planted)
    assert len(clauses) == count
    for a, b in clauses:
        assert abs(a) != abs(b)
        assert (a > 0) == planted[abs(a)] or (b > 0) == planted[abs(b)]
    random_planted = planted_fillers(random.Random(seed), count, variables)
    with Minisat22(bootstrap_with=[list(c) for c in random_planted]) as solver:
        assert solver.solve()


def test_fillers_need_two_variables() -> None:
    with pytest.raises(ConfigError):
        planted_fillers(random.Random(0), 1, [3])
    assert planted_fillers(random.Random(0), 0, []) == []
    with pytest.raises(ConfigError):
        sample_pairs(random.Random(0), [1, 2], -1)


@given(count=st.integers(0, 100), core_vars=st.integers(1, 200), core_clauses=st.integers(0, 200))
def test_matched_fresh_count(count: int, core_vars: int, core_clauses: int) -> None:
    fresh = matched_fresh_count(count, core_vars, core_clauses)
    if count == 0:
        assert fresh == 0
    else:
        assert 2 <= fresh <= 2 * count
        if core_clauses and 2 <= count * core_vars / core_clauses <= 2 * count:
            assert abs(fresh - count * core_vars / core_clauses) <= 0.5 + 1e-9


@given(seed=st.integers(0, 2**32), num_vars=st.integers(1, 20))
def test_relabel_is_a_bijection(seed: int, num_vars: int) -> None:
    clauses = [(v, -(v % num_vars + 1)) for v in range(1, num_vars + 1)]
    renamed, perm = relabel(random.Random(seed), clauses, num_vars)
    assert sorted(perm) == list(range(1, num_vars + 1))
    for (a, b), (x, y) in zip(clauses, renamed, strict=True):
        assert x == perm[a - 1] and y == -perm[-b - 1]


def test_arrange() -> None:
    final, position = arrange([(1,), (2,), (3,)], [1, 2, 0])
    assert final == [(2,), (3,), (1,)] and position == [2, 0, 1]
    with pytest.raises(ConfigError):
        arrange([(1,)], [1])
