"""``rename``: rename variables, optionally flipping polarities (equivalent under the map).

Base variable ``v`` becomes the literal ``literal_map[0][v - 1]`` of the result.
With ``names="permute"`` the result keeps the base's name table, so a seeded
permutation of the variables is a permutation of the existing names; with
``names="fresh"`` every variable gets a new name ``<prefix><i>`` that the base does not
use (the prefix is picked automatically unless given). ``flip`` is the probability
that a variable also has its polarity flipped.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula.from_named([["a", "~b"], ["b", "c"]])
>>> new, t = apply(base, names="fresh", shuffle=False)
>>> new.names, new.clauses == base.clauses
(('v1', 'v2', 'v3'), True)
>>> new, t = apply(base, seed=1, flip=1.0)
>>> all(lit < 0 for lit in t.literal_map[0])
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.make.perturb.operator import Operator, Param, Plan, fresh_names, names_or_none

__all__ = ["OPERATOR", "apply"]


def _plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    n = formula.num_vars
    order = list(range(1, n + 1))
    if params["shuffle"]:
        rng.shuffle(order)
    flips = [rng.random() < params["flip"] for _ in range(n)]
    lmap = tuple(-w if flipped else w for w, flipped in zip(order, flips, strict=True))
    if params["names"] == "fresh":
        names = fresh_names(set(formula.names), n, params["prefix"])
    else:
        names = formula.names
    return replace(Plan.keep(formula), literal_map=(lmap,), names=names_or_none(names))


OPERATOR = Operator(
    name="rename",
    relation="equivalent-under-map",
    summary="Rename variables (a permutation of the names, or fresh names), with optional "
    "polarity flips.",
    params=(
        Param(
            "names",
            "choice",
            "permute",
            "permute: permute the existing names; fresh: new names the base does not use",
            choices=("permute", "fresh"),
        ),
        Param(
            "prefix", "str", None, "prefix of fresh names (default: the first free of v, y, z...)"
        ),
        Param("shuffle", "bool", True, "draw a random variable permutation (else keep the order)"),
        Param(
            "flip",
            "float",
            0.0,
            "probability that a variable's polarity is flipped",
            minimum=0,
            maximum=1,
        ),
    ),
    planner=_plan,
)

#: Apply ``rename`` (see :meth:`Operator.apply`).
apply = OPERATOR.apply
