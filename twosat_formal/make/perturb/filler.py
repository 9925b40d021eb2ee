"""``filler``: add clauses that do not take part in the (un)satisfiability (paper §3, §5.2).

``over="fresh"`` (the default) adds ``count`` two-literal clauses over new variables
that no base clause uses. Their number is chosen so that filler and base have
comparable variable density (variables per clause), unless ``variables`` gives it.
The filler part is built around a seeded model of its own (every filler clause has a
literal true in it), and that model is recorded as the transform's witness: the
result is a *conservative extension* of the base, so it has the base's label.

``over="existing"`` adds ``count`` clauses over two distinct variables of the base
(never a tautology). This keeps the label only when the base is UNSAT (adding
clauses keeps an UNSAT formula UNSAT); the proof checks that the base is UNSAT and
fails otherwise.

``placement`` puts the filler clauses at the ``end``, at the ``start``, or randomly
``interleave``\\ s them with the base (each part keeping its own order).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])
>>> new, t = apply(base, seed=4, count=2)
>>> new.num_clauses, t.fresh_vars, t.relation
(6, (3, 4), 'conservative-extension')
>>> new2, t2 = apply(base, seed=4, count=2, over="existing")
>>> t2.relation, new2.num_vars
('label-preserving-monotone', 2)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.perturb.operator import Operator, Param, Plan, fresh_names, interleave

__all__ = ["OPERATOR", "apply", "default_count", "matched_variables"]

#: Prefixes tried, in order, for the names of filler variables in a named formula.
FILLER_PREFIXES = ("f", "g", "h", "k", "m", "filler")


def default_count(num_clauses: int) -> int:
    """The default number of filler clauses: a third of the base (75 + 25 as in §5.2).

    >>> default_count(75)
    25
    """
    return max(1, round(num_clauses / 3))


def matched_variables(base: Formula, count: int) -> int:
    """How many fresh variables give ``count`` filler clauses the base's variable density.

    >>> matched_variables(Formula([[1, 2], [2, 3], [3, 4], [4, 1]]), 2)
    2
    """
    used = len(base.used_variables)
    if base.num_clauses == 0 or used == 0:
        return max(2, count)
    return max(2, round(count * used / base.num_clauses))


def _placement(m: int, r: int, how: str, rng: random.Random) -> tuple[int, ...]:
    if how == "end":
        return tuple(range(m + r))
    if how == "start":
        return (*range(m, m + r), *range(m))
    return tuple(i if part == 0 else m + i for part, i in interleave([m, r], rng))


def _random_pair(pool: tuple[int, ...] | list[int], rng: random.Random) -> list[int]:
    """Two distinct variables of ``pool``, each with a random sign."""
    a, b = rng.sample(pool, 2)
    return [a if rng.random() < 0.5 else -a, b if rng.random() < 0.5 else -b]


def _true_pair(
    fresh: tuple[int, ...], value: dict[int, bool], rng: random.Random
) -> tuple[int, ...]:
    """A random pair over ``fresh`` with a literal true under ``value`` (one flipped if not)."""
    lits = _random_pair(fresh, rng)
    if not any(value[abs(lit)] == (lit > 0) for lit in lits):
        j = 0 if rng.random() < 0.5 else 1
        lits[j] = -lits[j]
    return tuple(lits)


def _plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    count = params["count"] if params["count"] is not None else default_count(formula.num_clauses)
    return _PLANNERS[params["over"]](formula, rng, params, count)


def _plan_existing(
    formula: Formula, rng: random.Random, params: Mapping[str, Any], count: int
) -> Plan:
    """``count`` clauses over two distinct variables of the base each."""
    if params["variables"] is not None:
        raise ConfigError(
            "'variables' counts fresh variables; it does not apply to over='existing'",
            parameter="variables",
        )
    pool = sorted(formula.used_variables)
    if len(pool) < 2 and count > 0:
        raise ConfigError(
            "filler over existing variables needs a base with at least two variables",
            parameter="over",
        )
    added = tuple(tuple(_random_pair(pool, rng)) for _ in range(count))
    placed = _placement(formula.num_clauses, count, params["placement"], rng)
    return replace(
        Plan.keep(formula, placed), added_clauses=added, relation="label-preserving-monotone"
    )


def _plan_fresh(
    formula: Formula, rng: random.Random, params: Mapping[str, Any], count: int
) -> Plan:
    """``count`` clauses over fresh variables, each true under a seeded model of its own."""
    n = formula.num_vars
    k = params["variables"]
    if k is None:
        k = matched_variables(formula, count) if count > 0 else 0
    fresh = tuple(range(n + 1, n + k + 1))
    value = {v: rng.random() < 0.5 for v in fresh}
    added = tuple(_true_pair(fresh, value, rng) for _ in range(count))
    names: tuple[str, ...] | None = None
    if not formula.has_default_names:
        names = formula.names + fresh_names(
            set(formula.names), k, params["prefix"], FILLER_PREFIXES
        )
    return replace(
        Plan.keep(formula, _placement(formula.num_clauses, count, params["placement"], rng)),
        num_vars=n + k,
        names=names,
        added_clauses=added,
        fresh_vars=fresh,
        witness=tuple(v if value[v] else -v for v in fresh),
        relation="conservative-extension",
    )


#: The planner of each ``over`` choice: the one place the choices are listed.
_PLANNERS = {"existing": _plan_existing, "fresh": _plan_fresh}


OPERATOR = Operator(
    name="filler",
    relation="conservative-extension",
    summary="Add r filler clauses over fresh variables (matched density), or over existing "
    "variables of an UNSAT base.",
    params=(
        Param(
            "count",
            "int",
            None,
            "number of filler clauses r (default: a third of the base)",
            minimum=0,
        ),
        Param(
            "over",
            "choice",
            "fresh",
            "fresh: new variables (conservative extension); existing: base variables "
            "(UNSAT bases only)",
            choices=("fresh", "existing"),
        ),
        Param(
            "variables",
            "int",
            None,
            "number of fresh variables (default: the base's variable density)",
            minimum=2,
        ),
        Param(
            "placement",
            "choice",
            "end",
            "where the filler clauses go",
            choices=("end", "start", "interleave"),
        ),
        Param("prefix", "str", None, "name prefix of fresh variables in a named formula"),
    ),
    planner=_plan,
)

#: Apply ``filler`` (see :meth:`Operator.apply`).
apply = OPERATOR.apply
