"""``flip``: negate every occurrence of chosen variables (equivalent under the map).

The variables are named by ``variables``, or else a seeded sample of
``round(fraction * num_vars)`` of them. Names are kept: a model of the result is a
model of the base with the flipped variables negated.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula.from_named([["a", "~b"], ["b", "c"]])
>>> new, t = apply(base, variables=["b"])
>>> [[new.literal_name(lit) for lit in c] for c in new.clauses]
[['a', 'b'], ['~b', 'c']]
>>> t.literal_map
((1, -2, 3),)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.make.perturb.operator import Operator, Param, Plan

__all__ = ["OPERATOR", "apply"]


def _plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    n = formula.num_vars
    if params["variables"] is not None:
        chosen = {formula.var(name) for name in params["variables"]}
    else:
        chosen = set(rng.sample(range(1, n + 1), round(params["fraction"] * n)))
    lmap = tuple(-v if v in chosen else v for v in range(1, n + 1))
    return replace(Plan.keep(formula), literal_map=(lmap,))


OPERATOR = Operator(
    name="flip",
    relation="equivalent-under-map",
    summary="Negate every occurrence of chosen variables.",
    params=(
        Param(
            "variables", "strs", None, "names of the variables to flip (default: a random sample)"
        ),
        Param(
            "fraction",
            "float",
            0.5,
            "share of the variables flipped when none are named",
            minimum=0,
            maximum=1,
        ),
    ),
    planner=_plan,
)

#: Apply ``flip`` (see :meth:`Operator.apply`).
apply = OPERATOR.apply
