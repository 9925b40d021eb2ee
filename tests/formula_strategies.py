"""Hypothesis strategies for formulas, shared by the tests of the two readers."""

from __future__ import annotations

from hypothesis import strategies as st

from twosat_formal.formula import Formula

__all__ = ["formulas"]


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
