"""Clause lists as SMT-LIB 2 text over ``v1..vn``, the queries Z3 parses in C++.

Z3 reads such a text much faster than it builds the same terms through its Python API.
The text names variable ``v`` ``v<v>`` (:func:`declarations` declares them) and writes a
clause list as one conjunction of disjunctions (:func:`smt_cnf`). Two equal clause
lists are the same text, so Z3 builds the same term for both (it shares equal terms):
``(xor A A)`` is then an equivalence Z3 proves at once.

Examples
--------
>>> smt_cnf([[1, -2], [3]])
'(and (or v1 (not v2)) v3 true)'
>>> declarations(0, 2)
'(declare-const v1 Bool)(declare-const v2 Bool)'
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

__all__ = ["declarations", "smt_cnf", "smt_literal"]


@lru_cache(maxsize=1 << 16)
def smt_literal(x: int) -> str:
    """A literal as an SMT-LIB 2 term over ``v1..vn`` (remembered: formulas repeat them).

    >>> smt_literal(3), smt_literal(-3)
    ('v3', '(not v3)')
    """
    return f"v{x}" if x > 0 else f"(not v{-x})"


def smt_cnf(clauses: Sequence[Sequence[int]]) -> str:
    """A clause list as an SMT-LIB 2 term over ``v1..vn`` (an empty clause is ``false``,
    an empty list ``true``).

    >>> smt_cnf([[1, -2], [3], []]), smt_cnf([])
    ('(and (or v1 (not v2)) v3 false true)', 'true')
    """
    if not clauses:
        return "true"
    literal = smt_literal
    terms = []
    for c in clauses:
        if len(c) == 2:  # most clauses: one f-string, faster than the join
            first, second = c
            terms.append(f"(or {literal(first)} {literal(second)})")
        elif len(c) > 2:
            terms.append("(or " + " ".join(map(literal, c)) + ")")
        else:
            terms.append(literal(c[0]) if c else "false")
    return "(and " + " ".join(terms) + " true)"


def declarations(declared: int, num_vars: int) -> str:
    """The declarations of ``v{declared + 1}..v{num_vars}`` (none when ``num_vars`` is not
    above ``declared``).

    >>> declarations(2, 3), declarations(3, 2)
    ('(declare-const v3 Bool)', '')
    """
    return "".join(f"(declare-const v{v} Bool)" for v in range(declared + 1, num_vars + 1))
