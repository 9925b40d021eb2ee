"""Hypothesis strategies for formulas, shared by the tests of the two readers."""

from __future__ import annotations

from hypothesis import strategies as st

from twosat_formal.core.formula import Formula

__all__ = ["TRUTH_TABLE_CNFS", "clause_lists", "formulas", "small_2cnf"]


def clause_lists(
    max_var: int, min_size: int, max_size: int, *, min_width: int = 1, max_width: int = 2
) -> st.SearchStrategy[list[list[int]]]:
    """Lists of ``min_size`` to ``max_size`` clauses of ``min_width`` to ``max_width``
    literals over the variables 1 to ``max_var``."""
    literal = st.integers(1, max_var).flatmap(lambda v: st.sampled_from([v, -v]))
    clause = st.lists(literal, min_size=min_width, max_size=max_width)
    return st.lists(clause, min_size=min_size, max_size=max_size)


#: CNFs of 0 to 6 clauses of 0 to 3 literals over the variables 1 to 4: any width, the
#: empty clause too, and few enough variables to check every claim by truth table.
TRUTH_TABLE_CNFS = clause_lists(max_var=4, min_size=0, max_size=6, min_width=0, max_width=3)


@st.composite
def formulas(
    draw: st.DrawFn, names: st.SearchStrategy[str], max_vars: int = 7, max_width: int = 4
) -> Formula:
    """Random CNFs: any widths (empty and unit clauses too), duplicates, names from
    ``names`` (or the default ones)."""
    n = draw(st.integers(0, max_vars))
    if n == 0:
        return Formula(draw(st.lists(st.just([]), max_size=2)))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(literal, max_size=max_width), max_size=12))
    table = draw(st.none() | st.lists(names, min_size=n, max_size=n, unique=True))
    return Formula(clauses, num_vars=n, names=table)


@st.composite
def small_2cnf(
    draw: st.DrawFn, max_vars: int = 5, max_clauses: int = 7, prefix: str | None = None
) -> Formula:
    """Small 2-CNFs: 2 to ``max_vars`` variables, 1 to ``max_clauses`` clauses of one or
    two literals (duplicates and tautologies too); with ``prefix``, the variables are
    named ``prefix1``, ``prefix2``, ... (else the default names)."""
    n = draw(st.integers(2, max_vars))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clause = st.lists(literal, min_size=1, max_size=2)
    clauses = draw(st.lists(clause, min_size=1, max_size=max_clauses))
    names = None if prefix is None else [f"{prefix}{i}" for i in range(1, n + 1)]
    return Formula(clauses, num_vars=n, names=names)
