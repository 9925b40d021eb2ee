"""``equivalence-core``: SAT with exactly ``2^f`` models (§3.2, App. C, Algorithm 2).

``f`` of the ``n`` variables are free; every other (bound) variable ``y`` gets a parent
``p(y)`` among the free ones and a sign, and the two clauses of ``y ↔ τ(y)``:
``(¬y ∨ p), (¬p ∨ y)`` for ``τ(y) = p`` and ``(¬y ∨ ¬p), (p ∨ y)`` for ``τ(y) = ¬p``.
The core has ``2(n − f)`` clauses and exactly ``2^f`` models. Parents are drawn so
that every free variable is some parent while ``f <= n − f``. Optional filler clauses
over fresh variables (§5.2, at the core's variable density) come after the definitions
(``definitions=early``) or before them (``late``); ``shuffle`` permutes all clauses.

Examples
--------
>>> import random
>>> formula, structure = equivalence_core(random.Random(0), 10)
>>> formula.num_clauses, structure["f"], structure["core_model_count"]
(10, 3, 8)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.family import register_family
from twosat_formal.make.generators.fillers import clause_order, fresh_fillers, place
from twosat_formal.make.generators.knobs import (
    FILLER_SHARE,
    FRESH_FILLERS,
    Checked,
    ParamSpec,
    round_half_up,
)
from twosat_formal.make.generators.resolve import Request, Sizing, resolve_sizes

__all__ = ["FAMILY", "PARAMS", "SIZING", "build", "equivalence_core", "resolve"]

FAMILY = "equivalence-core"
#: The smallest core: one bound variable, two clauses.
MIN_CLAUSES = 2

PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec.knob(
        "free_ratio", "f", "free-to-bound ratio f/(n-f): f = max(1, round(free_ratio*(n-f)))"
    ),
    FILLER_SHARE,
    ParamSpec("n", "int", None, "core variables (free and bound)", low=1),
    ParamSpec("f", "int", None, "free variables, 0..n (>= 1 when some variable is bound)", low=0),
    FRESH_FILLERS,
    ParamSpec.choice(
        "definitions", ("early", "late"), "definitions before (early) or after (late) the fillers"
    ),
    ParamSpec("shuffle", "bool", False, "shuffle all clauses (else construction order)"),
)


#: The most digits of an integer that a record may hold (the limit of every JSON reader
#: of the package and of Python's ``int`` to text).
JSON_DIGITS = 4300
#: The most free variables: ``core_model_count`` = ``2^f`` must have at most
#: :data:`JSON_DIGITS` digits, i.e. ``2^f < 10^JSON_DIGITS``.
MAX_FREE = (10**JSON_DIGITS).bit_length() - 1


def _budget(request: Request) -> None:
    """``n``, ``f`` and ``r`` with ``2(n − f) + r`` clauses, from the sizes given or the knobs."""
    clauses = request.clauses
    n, f, r = request.asked("n"), request.asked("f"), request.asked("r")
    if n is not None and f is not None:
        r = _pair_given(request, n, f, r)
    elif clauses is None and (n is not None or f is not None):
        n, f = _one_size_given(request, n, f)
    else:
        n, f, r = _split_target(request, n, f, r)
    if r is None:
        r = request.fillers_beside(2 * (n - f))
    if n - f > 0 and f == 0:
        raise ConfigError(
            f"{n} variables with none free leave the bound ones without a parent",
            parameter="f",
            valid=f"1..{n}",
        )
    if f > MAX_FREE:
        raise ConfigError(
            f"f={f} free variables make 2^{f} models, a number of more than "
            f"{JSON_DIGITS} digits that a record's core_model_count cannot hold",
            parameter="f",
            valid=f"0..{MAX_FREE}",
        )
    request.sizes.update(n=n, f=f, r=r)


def _pair_given(request: Request, n: int, f: int, r: int | None) -> int | None:
    """``r`` when ``n`` and ``f`` are both given (``None``: fillers follow the share)."""
    clauses = request.clauses
    if f > n:
        raise ConfigError(f"f={f} exceeds n={n}", parameter="f", valid=f"0..{n}")
    bound = n - f
    if r is None and clauses is not None and "filler_share" in request.given:
        r = max(0, clauses - 2 * bound)
    elif r is None:
        r = 0 if clauses is not None else None
    total = 2 * bound + (r if r is not None else 0)
    if clauses is not None and abs(total - clauses) > 1:
        raise ConfigError(
            f"n={n}, f={f}, r={r} make {total} clauses, not {clauses} (±1)",
            parameter="clauses",
            valid=f"{total - 1}..{total + 1} for these n, f, r",
        )
    return r


def _one_size_given(request: Request, n: int | None, f: int | None) -> tuple[int, int]:
    """``(n, f)`` from the one given and the ratio ``f/(n − f)`` (no clause target)."""
    ratio = request.knob("free_ratio")
    if n is not None:
        f = min(n, max(1, round_half_up(ratio * n / (1.0 + ratio))))
    else:
        assert f is not None
        if ratio == 0.0:
            raise ConfigError(
                "free_ratio must be above 0 to derive n from f alone",
                parameter="free_ratio",
                valid="a number in (0, 1]",
            )
        n = f + max(1, round_half_up(f / ratio))
    request.use("free_ratio")
    return n, f


def _split_target(
    request: Request, n: int | None, f: int | None, r: int | None
) -> tuple[int, int, int]:
    """``(n, f, r)`` meeting the clause target (at most one of ``n``, ``f`` given)."""
    target = request.target
    if r is None:
        r = request.fillers_in(target)
        bound = (target - r) // 2
        if r > 0:
            r = target - 2 * bound
    else:
        request.refuse_fillers(r, target - MIN_CLAUSES, f"a definition in {target} clauses")
        bound = (target - r) // 2
    if n is not None:
        f = n - bound
        if f < 1:
            raise ConfigError(
                f"n={n} leaves no free variable for {bound} bound ones",
                parameter="n",
                valid=f">= {bound + 1} for {target} clauses",
            )
    elif f is not None:
        n = f + bound
    else:
        f = max(1, round_half_up(request.knob("free_ratio") * bound))
        n = f + bound
        request.use("free_ratio")
    return n, f, r


#: How a request becomes sizes: the budget splits the clauses into definitions (two per
#: bound variable) and fillers; ``free_ratio`` sizes the free variables.
SIZING = Sizing(
    FAMILY,
    PARAMS,
    min_clauses=MIN_CLAUSES,
    budget=_budget,
    count=lambda p: 2 * (int(p["n"]) - int(p["f"])) + int(p["r"]),
)


def resolve(clauses: int | None, params: Mapping[str, object]) -> Checked:
    """Validate a request and derive ``n``, ``f`` and ``r`` from the knobs.

    The clause count is ``2(n − f) + r``; an odd target is met within ±1 by the core
    alone, exactly when fillers absorb the parity.

    Examples
    --------
    >>> p = resolve(20, {})
    >>> p["n"], p["f"], p["r"]
    (15, 5, 0)
    >>> p = resolve(15, {"filler_share": 0.4})
    >>> p["n"] - p["f"], p["r"]
    (4, 7)
    """
    return resolve_sizes(SIZING, clauses, params)


def build(rng: random.Random, p: Checked) -> tuple[Formula, dict[str, Any]]:
    """Draw a formula of resolved sizes ``p`` (:func:`resolve`'s result) from ``rng``.

    Returns
    -------
    formula, structure:
        ``structure`` holds ``free`` (names), ``bound`` (``{y: {"parent", "sign"}}``),
        ``definition_clauses`` (the two clause indices of each bound variable),
        ``filler_clauses``, ``filler_vars`` and ``core_model_count`` (``2^f``).

    Examples
    --------
    >>> f, s = equivalence_core(random.Random(1), n=3, f=1)
    >>> f.num_clauses, s["free"] == [next(iter(s["bound"].values()))["parent"]]
    (4, True)
    """
    n, f, r = int(p["n"]), int(p["f"]), int(p["r"])
    free = list(range(1, f + 1))
    bound = list(range(f + 1, n + 1))
    parents, signs, defs = _definitions(rng, free, bound)
    fillers, fresh = fresh_fillers(rng, r, n, len(defs))
    if p["definitions"] == "early":
        body, def_at, fill_at = [*defs, *fillers], 0, len(defs)
    else:
        body, def_at, fill_at = [*fillers, *defs], len(fillers), 0
    order = clause_order(rng, len(body), bool(p["shuffle"]))
    formula, perm, position = place(rng, body, order, n + len(fresh))

    def name(var: int) -> str:
        return formula.name(perm[var - 1])

    structure: dict[str, Any] = {
        "n": n,
        "f": f,
        "free": [name(v) for v in free],
        "bound": {
            name(y): {"parent": name(parent), "sign": "+" if positive else "-"}
            for y, parent, positive in zip(bound, parents, signs, strict=True)
        },
        "definition_clauses": [
            [position[def_at + 2 * i], position[def_at + 2 * i + 1]] for i in range(len(bound))
        ],
        "filler_clauses": position[fill_at : fill_at + len(fillers)],
        "filler_vars": [name(v) for v in fresh],
        "core_model_count": 2**f,
    }
    return formula, structure


def _definitions(
    rng: random.Random, free: list[int], bound: list[int]
) -> tuple[list[int], list[bool], list[tuple[int, ...]]]:
    """Each bound variable's parent (every free variable one while they last), the sign
    of its equivalence, and its two definition clauses."""
    parents = free[:] if len(free) <= len(bound) else []
    rng.shuffle(parents)
    while len(parents) < len(bound):
        parents.append(rng.choice(free))
    defs: list[tuple[int, ...]] = []
    signs: list[bool] = []
    for y, parent in zip(bound, parents, strict=True):
        positive = rng.random() < 0.5
        signs.append(positive)
        if positive:
            defs.extend([(-y, parent), (-parent, y)])
        else:
            defs.extend([(-y, -parent), (parent, y)])
    return parents, signs, defs


#: ``equivalence_core(rng, clauses=None, **params)``:
#: draw an equivalence-core formula (Algorithm 2), the request resolved by
#: :func:`resolve`, then built by :func:`build`.
equivalence_core = register_family(
    FAMILY,
    build,
    resolve,
    PARAMS,
    summary="SAT with exactly 2^f models: bound variables defined as equivalent to free ones",
    section="§3.2, App. C, Algorithm 2",
    label="SAT",
).draw
