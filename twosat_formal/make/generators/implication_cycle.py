"""``implication-cycle``: UNSAT cores from one contradiction cycle (§3.1, App. B, Algorithm 1).

Distinct variables ``v1..vL`` get literals ``ℓi ∈ {vi, ¬vi}``; the core is the cycle

* forward: ``ℓ1 → ℓ2 → … → ℓk → ¬ℓ1`` (``k`` clauses),
* backward: ``¬ℓ1 → ℓk+1 → … → ℓL → ℓ1`` (``L − k + 1`` clauses),

one clause ``(¬ℓ ∨ ℓ')`` per implication ``ℓ → ℓ'``: ``L + 1`` clauses, UNSAT. At the
extremes one side collapses to a single implication: ``k = 1`` gives the forward clause
``(¬ℓ1 ∨ ¬ℓ1)`` (``ℓ1 → ¬ℓ1``), ``k = L`` the backward clause ``(ℓ1 ∨ ℓ1)``
(``¬ℓ1 → ℓ1``). ``r`` filler clauses over all ``n >= L`` variables follow (Algorithm 1,
line 14; satisfiable on their own, never tautologies); the variables outside the core
occur only in fillers. ``shuffle`` permutes all clauses (core interleaved with fillers).

Examples
--------
>>> import random
>>> formula, structure = implication_cycle(random.Random(0), L=3, k=1, r=0)
>>> formula.num_clauses, structure["k"], len(structure["cycle"])
(4, 1, 4)
>>> first, second = structure["cycle"][:2]  # k = 1: l1 -> ~l1 comes first
>>> second in ("~" + first, first[1:])
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.family import register_family
from twosat_formal.make.generators.fillers import clause_order, place, planted_fillers
from twosat_formal.make.generators.knobs import (
    Checked,
    ParamSpec,
    knob_to_int,
    round_half_up,
)
from twosat_formal.make.generators.resolve import KnobRule, Request, Sizing, resolve_sizes

__all__ = ["FAMILY", "PARAMS", "SIZING", "build", "implication_cycle", "resolve"]

FAMILY = "implication-cycle"
#: The smallest core: L = 2 literals, 3 clauses.
MIN_CLAUSES = 3

PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec.knob(
        "split",
        "k",
        "twist position (k-1)/(L-1): k = 1 + round(split*(L-1)); 0 gives k=1, 1 gives k=L",
    ),
    ParamSpec.knob(
        "filler_share",
        "r",
        "share of filler clauses: r = round(filler_share*N), at most N-3",
        default=0.0,
    ),
    ParamSpec.knob(
        "core_ratio",
        "n",
        "variables: n = L + round((1-core_ratio)*2r); 1 gives n=L; inert when r=0",
    ),
    ParamSpec(
        "L", "int", None, "literals on the contradiction cycle (core has L+1 clauses)", low=2
    ),
    ParamSpec("k", "int", None, "twist position, 1..L (forward part has k clauses)", low=1),
    ParamSpec("r", "int", None, "filler clauses", low=0),
    ParamSpec("n", "int", None, "variables, L..L+2r (the non-core ones occur in fillers)", low=2),
    ParamSpec(
        "shuffle", "bool", False, "shuffle all clauses (else core in cycle order, then fillers)"
    ),
)


def _budget(request: Request) -> None:
    """``L`` and ``r`` with ``L + 1 + r`` clauses: from the sizes given, else the target."""
    clauses = request.clauses
    size_L, r = request.asked("L"), request.asked("r")
    if size_L is not None and r is not None:
        total = size_L + 1 + r
        if clauses is not None and abs(total - clauses) > 1:
            raise ConfigError(
                f"L={size_L} and r={r} make {total} clauses, not {clauses} (±1)",
                parameter="clauses",
                valid=f"{total - 1}..{total + 1} for L={size_L} and r={r}",
            )
    elif size_L is not None and clauses is not None:
        r = clauses - 1 - size_L
        if r < 0:
            raise ConfigError(
                f"L={size_L} needs at least {size_L + 1} clauses, got {clauses}",
                parameter="L",
                valid=f"2..{clauses - 1} for {clauses} clauses",
            )
    elif size_L is not None:
        r = request.fillers_beside(size_L + 1, "when L is set without a clause target")
    else:
        target = request.target
        room = f"a core of at least 3 clauses in {target}"
        r = request.fillers_for(r, None, target - MIN_CLAUSES, room)
        size_L = target - 1 - r
    request.sizes.update(L=size_L, r=r)


def _check_k(k: int, request: Request) -> None:
    size_L = request.size("L")
    if k > size_L:
        raise ConfigError(f"k={k} exceeds L={size_L}", parameter="k", valid=f"1..{size_L}")


def _check_n(n: int, request: Request) -> None:
    size_L, r = request.size("L"), request.size("r")
    if not size_L <= n <= size_L + 2 * r:
        raise ConfigError(
            f"n={n} variables do not fit L={size_L} core literals and r={r} fillers",
            parameter="n",
            valid=f"{size_L}..{size_L + 2 * r} (L..L+2r)",
        )


#: How a request becomes sizes: the budget splits the clauses into the cycle and the
#: fillers; ``split`` places the twist, ``core_ratio`` sizes the variables.
SIZING = Sizing(
    FAMILY,
    PARAMS,
    min_clauses=MIN_CLAUSES,
    budget=_budget,
    rules=(
        KnobRule("k", "split", lambda t, s: knob_to_int(t, 1, s.size("L")), _check_k),
        KnobRule(
            "n",
            "core_ratio",
            lambda t, s: s.size("L") + round_half_up((1.0 - t) * 2 * s.size("r")),
            _check_n,
        ),
    ),
    count=lambda p: int(p["L"]) + 1 + int(p["r"]),
)


def resolve(clauses: int | None, params: Mapping[str, object]) -> Checked:
    """Validate a request and derive every structural parameter from the knobs.

    The clause count is ``L + 1 + r``. Structural parameters given directly win over
    their knobs; a knob is recorded when it was given or used, ``None`` otherwise.

    Examples
    --------
    >>> p = resolve(20, {})
    >>> p["L"], p["k"], p["r"], p["n"]
    (19, 10, 0, 19)
    >>> resolve(10, {"filler_share": 0.5})["r"]
    5
    """
    return resolve_sizes(SIZING, clauses, params)


def build(rng: random.Random, p: Checked) -> tuple[Formula, dict[str, Any]]:
    """Draw a formula of resolved sizes ``p`` (:func:`resolve`'s result) from ``rng``.

    Parameters
    ----------
    rng:
        The random source (the only one used).
    p:
        Every parameter of :data:`PARAMS`, resolved for a target clause count
        ``N = L + 1 + r`` (met exactly).

    Returns
    -------
    formula, structure:
        ``structure`` names the core: ``cycle`` (the ``L + 1`` literals of the
        contradiction cycle, ``ℓ1`` first and ``¬ℓ1`` on it), ``core_clauses`` (indices in
        cycle order), ``forward_clauses``, ``backward_clauses``, ``twist_clause``,
        ``trigger_clause`` (the clause closing the cycle), ``filler_clauses``,
        ``extra_vars``.

    Examples
    --------
    >>> f, s = implication_cycle(random.Random(7), 6, split=1.0)
    >>> f.num_clauses, s["k"], s["L"], len(s["backward_clauses"])
    (6, 5, 5, 1)
    """
    size_L, k, r, n = int(p["L"]), int(p["k"]), int(p["r"]), int(p["n"])
    lits = [v if rng.random() < 0.5 else -v for v in range(1, size_L + 1)]
    core: list[tuple[int, ...]] = [(-a, b) for a, b in pairwise(lits[:k])]
    core.append((-lits[k - 1], -lits[0]))  # twist: ℓk → ¬ℓ1
    backward = [-lits[0], *lits[k:], lits[0]]  # ¬ℓ1 → ℓk+1 → … → ℓL → ℓ1
    core.extend((-a, b) for a, b in pairwise(backward))
    fillers = planted_fillers(rng, r, range(1, n + 1), cover=range(size_L + 1, n + 1))
    body: list[tuple[int, ...]] = [*core, *fillers]
    order = clause_order(rng, len(body), bool(p["shuffle"]))
    formula, perm, position = place(rng, body, order, n)

    def name(role_lit: int) -> str:
        new = perm[abs(role_lit) - 1]
        return formula.literal_name(new if role_lit > 0 else -new)

    walk = [*lits[:k], -lits[0], *lits[k:]]
    core_idx = position[: len(core)]
    structure: dict[str, Any] = {
        "L": size_L,
        "k": k,
        "pivot": name(lits[0]),
        "core_literals": [name(lit) for lit in lits],
        "cycle": [name(lit) for lit in walk],
        "core_clauses": core_idx,
        "forward_clauses": core_idx[:k],
        "backward_clauses": core_idx[k:],
        "twist_clause": core_idx[k - 1],
        "trigger_clause": core_idx[-1],
        "filler_clauses": position[len(core) : len(body)],
        "extra_vars": [formula.name(perm[v - 1]) for v in range(size_L + 1, n + 1)],
    }
    return formula, structure


#: ``implication_cycle(rng, clauses=None, **params)``:
#: draw an implication-cycle formula (Algorithm 1), the request resolved by
#: :func:`resolve`, then built by :func:`build`.
implication_cycle = register_family(
    FAMILY,
    build,
    resolve,
    PARAMS,
    summary="UNSAT core: one contradiction cycle through l1 and ~l1 (L+1 clauses), plus fillers",
    section="§3.1, App. B, Algorithm 1",
    label="UNSAT",
).draw
