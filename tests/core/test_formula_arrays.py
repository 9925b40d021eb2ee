"""A formula's arrays against a reference written here on Python lists.

:class:`Formula` keeps its clauses as numpy arrays, with one path for every size: on
drawn clause lists small and large (a few hundred clauses), its arrays, widths, 2-CNF
test, checks of given arrays and clause selections must be what the lists give.
"""

from __future__ import annotations

import random
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.formula_strategies import clause_lists
from twosat_formal.core.formula import Formula, take_clauses
from twosat_formal.errors import ConfigError


@st.composite
def large_clause_lists(draw: st.DrawFn) -> list[list[int]]:
    """100 to 600 clauses of 0 to 4 literals over up to 80 variables, drawn from a seed."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    n = draw(st.integers(1, 80))
    widths = draw(st.sampled_from([[2], [1, 2], [0, 1, 2, 3, 4]]))
    return [
        [rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.choice(widths))]
        for _ in range(draw(st.integers(100, 600)))
    ]


CLAUSES = clause_lists(max_var=9, min_size=0, max_size=12, min_width=0, max_width=4)
ANY_CLAUSES = CLAUSES | large_clause_lists()


@settings(max_examples=200, deadline=None)
@given(ANY_CLAUSES, st.integers(0, 3))
def test_the_arrays_are_the_clause_lists(clauses: list[list[int]], extra: int) -> None:
    used = max((abs(lit) for clause in clauses for lit in clause), default=0)
    for f in (Formula(clauses), Formula(clauses, num_vars=used + extra)):
        assert f.literals.tolist() == [lit for clause in clauses for lit in clause]
        bounds = [0]
        for clause in clauses:
            bounds.append(bounds[-1] + len(clause))
        assert f.offsets.tolist() == bounds
        assert f.widths.tolist() == [len(clause) for clause in clauses]
        assert f.is_2cnf == all(1 <= len(clause) <= 2 for clause in clauses)
        assert [list(clause) for clause in f.clauses] == clauses
        assert f.num_clauses == len(clauses)
        for array in (f.literals, f.offsets, f.widths):
            assert array.dtype == np.int64 and not array.flags.writeable
        assert Formula.from_arrays(f.literals, f.offsets, f.num_vars) == f
    assert Formula(clauses).num_vars == used
    assert Formula(clauses, num_vars=used + extra).num_vars == used + extra


def reference_refusal(lits: list[int], offsets: list[int], num_vars: int | None) -> str | None:
    """The parameter that a refusal of these arrays names, ``None`` if they are fine."""
    if not offsets:
        return "arrays"
    rising = all(a <= b for a, b in pairwise(offsets))
    if offsets[0] != 0 or offsets[-1] != len(lits) or not rising:
        return "offsets"
    if 0 in lits:
        return "literal"
    if num_vars is not None and num_vars < max(map(abs, lits), default=0):
        return "num_vars"
    return None


@st.composite
def arrays(draw: st.DrawFn) -> tuple[list[int], list[int], int | None]:
    """Literal and offset lists that are often right and often wrong in one way: an
    offset moved, a literal made 0, too few variables declared; small or large."""
    clauses = draw(CLAUSES | large_clause_lists())
    lits = [lit for clause in clauses for lit in clause]
    offsets = [0]
    for clause in clauses:
        offsets.append(offsets[-1] + len(clause))
    change = draw(st.sampled_from(["none", "offset", "zero", "vars", "empty"]))
    num_vars = None
    if change == "offset":
        at = draw(st.integers(0, len(offsets) - 1))
        offsets[at] += draw(st.sampled_from([-2, -1, 1, 2, 2**62]))
    elif change == "zero" and lits:
        lits[draw(st.integers(0, len(lits) - 1))] = 0
    elif change == "vars":
        num_vars = draw(st.integers(0, 10))
    elif change == "empty":
        offsets = []
    return lits, offsets, num_vars


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(arrays())
def test_given_arrays_are_refused_as_the_lists_say(
    drawn: tuple[list[int], list[int], int | None],
) -> None:
    lits, offsets, num_vars = drawn
    expected = reference_refusal(lits, offsets, num_vars)
    if expected is None:
        f = Formula.from_arrays(lits, offsets, num_vars)
        assert f.literals.tolist() == lits and f.offsets.tolist() == offsets
        return
    with pytest.raises(ConfigError) as info:
        Formula.from_arrays(lits, offsets, num_vars)
    assert info.value.parameter == expected


@settings(max_examples=200, deadline=None)
@given(ANY_CLAUSES, st.data())
def test_a_selection_takes_the_listed_clauses(
    clauses: list[list[int]], data: st.DataObject
) -> None:
    f = Formula(clauses)
    indices = data.draw(st.lists(st.integers(0, max(len(clauses) - 1, 0)), max_size=40))
    if not clauses:
        indices = []
    chosen = f.select(indices)
    assert [list(clause) for clause in chosen.clauses] == [clauses[i] for i in indices]
    assert chosen.num_vars == f.num_vars
    lits, offsets = take_clauses(f.literals, f.offsets, np.array(indices, dtype=np.int64))
    assert lits.tolist() == [lit for i in indices for lit in clauses[i]]
    assert offsets.tolist() == chosen.offsets.tolist()
