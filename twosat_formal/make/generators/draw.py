"""Drawing one labelled instance of a registered family: :func:`generate`, :func:`derive_seed`.

Examples
--------
>>> inst = generate("implication-cycle", clauses=10, seed=1)
>>> inst.label, inst.formula.num_clauses, inst.params["k"]
('UNSAT', 10, 5)
"""

from __future__ import annotations

import random
from typing import Any

from twosat_formal.core.provenance import tool_version
from twosat_formal.core.seeds import derive_seed
from twosat_formal.errors import ConfigError, TwoSatFormalError
from twosat_formal.io.instance import Instance, instance_id
from twosat_formal.make.checks import check_int, check_seed
from twosat_formal.make.generators.family import FAMILIES
from twosat_formal.solve import solve
from twosat_formal.solve.measures import instance_measures

__all__ = ["check_seed", "derive_seed", "generate"]


def generate(family: str, *, clauses: int | None = None, seed: int, **params: Any) -> Instance:
    """Draw one labelled instance of ``family``.

    Parameters
    ----------
    family:
        A name of :data:`FAMILIES`.
    clauses:
        Target clause count (met within ±1; the achieved count is recorded), or
        ``None`` for the family's default or its structural parameters.
    seed:
        The seed of ``random.Random`` (the only source of randomness).
    **params:
        Knobs and structural parameters (``None`` counts as not given). Text values
        are accepted as the CLI passes them. ``achieved_clauses``, if given, must
        match the result (so ``generate(family, seed=s, **inst.params)`` re-checks).

    Returns
    -------
    Instance
        Labelled by the solver; ``params`` holds the complete resolved parameters.

    Raises
    ------
    ConfigError
        For an unknown, out-of-range or impossible parameter (``parameter`` and
        ``valid`` say which and what is allowed).
    UnknownNameError
        For an unknown family.

    Examples
    --------
    >>> inst = generate("mono-bridge", clauses=10, seed=0, bridge_position=0.0)
    >>> inst.label, inst.structure["bridge"]["index"]
    ('SAT', 0)
    """
    spec = FAMILIES.get(family)
    seed = check_seed(seed)
    if clauses is not None:
        check_int(clauses, "clauses")
    request = dict(params)
    achieved = request.pop("achieved_clauses", None)
    resolved = spec.resolve(clauses, request)
    formula, structure = spec.build(random.Random(seed), resolved)
    if achieved is not None and int(achieved) != formula.num_clauses:
        raise ConfigError(
            f"these parameters make {formula.num_clauses} clauses, not {achieved}",
            parameter="achieved_clauses",
            valid=str(formula.num_clauses),
        )
    record_params: dict[str, Any] = {**resolved, "achieved_clauses": formula.num_clauses}
    # the benchmark is 2-SAT: refuse what certify would reject (a wider or empty clause)
    formula.require_2cnf(f"a {family} instance")
    result = solve(formula)
    if spec.label in ("SAT", "UNSAT") and result.status != spec.label:
        raise TwoSatFormalError(
            f"{family} built a {result.status} formula where its construction is {spec.label}"
        )
    return Instance(
        id=instance_id(family, record_params, seed),
        family=family,
        params=record_params,
        seed=seed,
        formula=formula,
        label=result.status,
        certificate=result.to_json(formula),
        structure=structure,
        measures=instance_measures(formula),
        provenance={
            "tool": "twosat-formal",
            "tool_version": tool_version(),
            "generator": family,
            "params": record_params,
            "seed": seed,
        },
    )
