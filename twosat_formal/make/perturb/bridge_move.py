"""``bridge-move``: move one designated clause to another position (relation: equivalent).

Paper §3.4: a mono-bridge instance's single cross-polarity bridge clause is placed at
a chosen position ``s`` to probe sensitivity to late coupling; satisfiability does
not depend on ``s``. ``clause`` is the 0-based index of the clause to move; in a
chain applied to an instance it defaults to the instance's bridge (tracked through
earlier steps). The target is ``position`` (0-based), or ``relative`` in ``[0, 1]``
(``round(relative · (m - 1))``), or else a seeded random position.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = Formula([[1], [2], [3], [-1, 3]])
>>> new, t = apply(base, clause=3, position=0)
>>> new.clauses[0], t.clause_permutation
(Clause(-1, 3), (3, 0, 1, 2))
>>> apply(base, clause=0, relative=1.0)[1].clause_permutation
(1, 2, 3, 0)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.perturb.operator import Operator, Param, Plan

__all__ = ["OPERATOR", "apply"]


def _plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    m = formula.num_clauses
    clause, position, relative = params["clause"], params["position"], params["relative"]
    if clause is None:
        raise ConfigError(
            "bridge-move needs the clause to move (set 'clause', or apply it to a "
            "mono-bridge instance, whose bridge is the default)",
            parameter="clause",
        )
    _check_index("clause", clause, m)
    if position is not None and relative is not None:
        raise ConfigError("give 'position' or 'relative', not both", parameter="position")
    if relative is not None:
        position = round(relative * (m - 1))
    elif position is None:
        position = rng.randrange(m)
    _check_index("position", position, m)
    order = [i for i in range(m) if i != clause]
    order.insert(position, clause)
    return Plan.keep(formula, order)


def _check_index(name: str, value: int, m: int) -> None:
    """Refuse a clause index ``value`` (parameter ``name``) beyond the ``m`` clauses."""
    if value >= m:
        raise ConfigError(
            f"{name} {value} is out of range for {m} clauses", parameter=name, valid=f"0..{m - 1}"
        )


OPERATOR = Operator(
    name="bridge-move",
    relation="equivalent",
    summary="Move a designated clause (default: a mono-bridge instance's bridge) to position s.",
    params=(
        Param(
            "clause",
            "int",
            None,
            "0-based index of the clause to move (default: the bridge)",
            minimum=0,
        ),
        Param("position", "int", None, "0-based target position (default: random)", minimum=0),
        Param(
            "relative",
            "float",
            None,
            "target position as a share of the clause list",
            minimum=0,
            maximum=1,
        ),
    ),
    planner=_plan,
)

#: Apply ``bridge-move`` (see :meth:`Operator.apply`).
apply = OPERATOR.apply
