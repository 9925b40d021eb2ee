"""``duplicate``: conjoin ``copies`` variable-disjoint renamed copies of the base (§3.5, §5.4).

The result is ``Ψ ∧ ρ₂(Ψ) ∧ … ∧ ρ_d(Ψ)`` with ``d = copies``; copy ``c`` (0-based)
uses variables ``c·n + 1 … c·n + n``, in the base's order or, with ``permute``, in a
seeded order per copy (to avoid accidental alignment of indices). The layout is
``grouped`` (copy after copy) or ``interleaved`` (a random merge that keeps each copy's
clause order). In a named formula, copy ``c`` names its variables ``<name>_<c+1>``
(``<name>_c<c+1>``, ``<name>_cc<c+1>``... where those names are taken).
The result is SAT iff the base is, with ``M^d`` models when the base has ``M``.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula.from_named([["a", "~b"]])
>>> new, t = apply(base)
>>> [[new.literal_name(lit) for lit in c] for c in new.clauses]
[['a', '~b'], ['a_2', '~b_2']]
>>> t.literal_map
((1, 2), (3, 4))
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.make.perturb.operator import Operator, Param, Plan, interleave

__all__ = ["OPERATOR", "apply"]


def _copy_names(formula: Formula, maps: list[tuple[int, ...]]) -> tuple[str, ...]:
    """Copy ``c`` names variable ``a`` ``a_<c+1>``, or ``a_c<c+1>``, ``a_cc<c+1>``... if taken."""
    tag = ""
    while True:
        table = [""] * (len(maps) * formula.num_vars)
        for c, lmap in enumerate(maps):
            for v, w in enumerate(lmap, 1):
                name = formula.name(v)
                table[w - 1] = name if c == 0 else f"{name}_{tag}{c + 1}"
        if len(set(table)) == len(table):
            return tuple(table)
        tag += "c"


def _plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    n, m, d = formula.num_vars, formula.num_clauses, params["copies"]
    maps: list[tuple[int, ...]] = []
    for c in range(d):
        order = list(range(1, n + 1))
        if c > 0 and params["permute"]:
            rng.shuffle(order)
        maps.append(tuple(c * n + w for w in order))
    names: tuple[str, ...] | None = None
    if not formula.has_default_names:
        names = _copy_names(formula, maps)
    if params["layout"] == "grouped":
        perm = tuple(range(d * m))
    else:
        perm = tuple(c * m + i for c, i in interleave([m] * d, rng))
    return Plan(literal_map=tuple(maps), clause_permutation=perm, num_vars=d * n, names=names)


OPERATOR = Operator(
    name="duplicate",
    relation="equisatisfiable-copy-product",
    summary="Conjoin d variable-disjoint renamed copies of the formula, grouped or interleaved.",
    params=(
        Param("copies", "int", 2, "number of copies d, the base included", minimum=2, maximum=64),
        Param(
            "layout",
            "choice",
            "grouped",
            "grouped: copy after copy; interleaved: random merge keeping each copy's order",
            choices=("grouped", "interleaved"),
        ),
        Param("permute", "bool", False, "number each copy's variables in a random order"),
    ),
    planner=_plan,
)

#: Apply ``duplicate`` (see :meth:`Operator.apply`).
apply = OPERATOR.apply
