"""``reorder``: present the same clauses in another order (relation: equivalent).

Orders: ``shuffled`` (a seeded uniform permutation), ``reversed``, ``construction``
(the order the base already has: the identity), or ``explicit`` with ``permutation``
(``permutation[i]`` is the base clause that becomes clause ``i``).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> new, t = apply(Formula([[1], [2], [3]]), order="reversed")
>>> new.clauses, t.clause_permutation
((Clause(3), Clause(2), Clause(1)), (2, 1, 0))
>>> apply(Formula([[1], [2], [3]]), permutation=[1, 2, 0])[0].clauses
(Clause(2), Clause(3), Clause(1))
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.perturb.operator import Operator, Param, Plan

__all__ = ["OPERATOR", "apply"]

ORDERS = ("shuffled", "reversed", "construction", "explicit")


def _plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    m = formula.num_clauses
    order, permutation = params["order"], params["permutation"]
    if order is None:
        order = "shuffled" if permutation is None else "explicit"
    if permutation is not None and order != "explicit":
        raise ConfigError(f"a permutation was given with order {order!r}", parameter="permutation")
    if order == "explicit":
        if permutation is None:
            raise ConfigError("order 'explicit' needs a permutation", parameter="permutation")
        if sorted(permutation) != list(range(m)):
            raise ConfigError(
                f"permutation is not a permutation of 0..{m - 1}",
                parameter="permutation",
                valid=f"each of 0..{m - 1} exactly once",
            )
        perm = list(permutation)
    elif order == "shuffled":
        perm = list(range(m))
        rng.shuffle(perm)
    elif order == "reversed":
        perm = list(range(m - 1, -1, -1))
    else:
        perm = list(range(m))
    return Plan.keep(formula, perm)


OPERATOR = Operator(
    name="reorder",
    relation="equivalent",
    summary="Permute the clauses: shuffled, reversed, construction order, or explicit.",
    params=(
        Param(
            "order",
            "choice",
            None,
            "which order (default: shuffled, or explicit when a permutation is given)",
            choices=ORDERS,
        ),
        Param(
            "permutation",
            "ints",
            None,
            "explicit order: entry i is the base clause that becomes clause i (0-based)",
        ),
    ),
    planner=_plan,
)

#: Apply ``reorder`` (see :meth:`Operator.apply`).
apply = OPERATOR.apply
