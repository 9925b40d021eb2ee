"""``backbone``: SAT with a planted backbone and a monotone remainder (§3.3, App. D).

The variables ``V`` split into a backbone ``B`` with planted values ``b`` and a free part
``F = V ∖ B``. Each ``x ∈ B`` gets a fresh auxiliary ``a_x`` and the pair
``(x ∨ a_x), (x ∨ ¬a_x)`` when ``b(x) = 1``, else ``(¬x ∨ a_x), (¬x ∨ ¬a_x)`` (equivalent to
the unit it emulates); then ``m_mono`` monotone clauses over pairs of distinct variables
of ``F``, all ``(y ∨ z)`` for orientation ``+`` or all ``(¬y ∨ ¬z)`` for ``−``. The
clause count is ``2|B| + m_mono`` and the backbone of the result is exactly ``b``.

Knobs: ``beta = |B|/n``, ``mono_density = 2 m_mono / |F|²`` and ``pi``, the probability
of the positive orientation (0: always ``−``, 1: always ``+``, 0.5: a fair coin, as in
Figure 1 of the paper).

Examples
--------
>>> import random
>>> formula, structure = backbone(random.Random(0), 20)
>>> formula.num_clauses, len(structure["backbone"]), len(structure["free"])
(20, 6, 6)
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.family import register_family
from twosat_formal.make.generators.fillers import clause_order, fresh_fillers, place, sample_pairs
from twosat_formal.make.generators.knobs import (
    FILLER_SHARE,
    FRESH_FILLERS,
    Checked,
    ParamSpec,
    round_half_up,
)
from twosat_formal.make.generators.resolve import KnobRule, Request, Sizing, resolve_sizes

__all__ = ["FAMILY", "PARAMS", "SIZING", "backbone", "build", "resolve"]

FAMILY = "backbone"
#: The smallest formula: one backbone variable (two clauses).
MIN_CLAUSES = 2

PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec.knob("beta", "B", "backbone fraction |B|/n"),
    ParamSpec.knob(
        "mono_density",
        "m_mono",
        "density 2*m_mono/|F|^2 of the monotone part (fixes |F| for the clause budget)",
    ),
    ParamSpec.knob(
        "pi",
        "orientation",
        "probability that the monotone part is positive (0: negative, 1: positive)",
    ),
    FILLER_SHARE,
    ParamSpec("n", "int", None, "variables |B|+|F| (auxiliaries not counted)", low=1),
    ParamSpec("B", "int", None, "backbone size |B|", low=0),
    ParamSpec("m_mono", "int", None, "monotone clauses over F", low=0),
    FRESH_FILLERS,
    ParamSpec.choice(
        "orientation", ("+", "-"), "sign of the monotone part (else drawn with pi)", default=None
    ),
    ParamSpec("shuffle", "bool", False, "shuffle all clauses (else backbone, monotone, fillers)"),
)


def _knob_sizes(core: int, beta: float, density: float) -> tuple[int, int, int]:
    """``(|B|, |F|, m_mono)`` with ``2|B| + m_mono = core`` (±1) following the knobs.

    Solves ``|B| = beta·n`` and ``m_mono = density·|F|²/2`` for the clause budget: with
    ``a = 2·beta/(1 − beta)``, ``|F| = (−a + sqrt(a² + 2·density·core)) / density`` and
    ``|B| = a·|F|/2``; ``m_mono`` takes the rest of the budget exactly, and ``|F|`` is
    kept in ``[2, 2·m_mono]`` so that every free variable can occur.
    """
    if beta == 0.0 and density == 0.0:
        raise ConfigError(
            "beta = 0 and mono_density = 0 leave no clause at all",
            parameter="mono_density",
            valid="(0, 1] when beta is 0",
        )
    if beta == 1.0 or density == 0.0:
        return core // 2, 0, 0
    a = 2.0 * beta / (1.0 - beta)
    free_real = (-a + math.sqrt(a * a + 2.0 * density * core)) / density
    size_b = min(core // 2, round_half_up(a * free_real / 2.0))
    mono = core - 2 * size_b
    size_f = min(2 * mono, max(2, round_half_up(free_real))) if mono > 0 else 0
    return size_b, size_f, mono


def _budget(request: Request) -> None:
    """``B``, ``m_mono``, ``r`` and ``n`` from the sizes given, the knobs and the target."""
    beta, density = request.knob("beta"), request.knob("mono_density")
    n, size_b, mono, r = _clause_sizes(request)
    if n is None:
        n = size_b + _free_size(mono, size_b, beta, density, request.used)
    _check_free(n, size_b, mono)
    request.sizes.update(n=n, B=size_b, m_mono=mono, r=r)


def _clause_sizes(request: Request) -> tuple[int | None, int, int, int]:
    """``(n, B, m_mono, r)``: the clause sizes, from those given or the target (``n`` may
    stay open)."""
    n, size_b, mono, r = (request.asked(key) for key in ("n", "B", "m_mono", "r"))
    if request.clauses is None and n is not None and size_b is None and mono is None:
        size_b, mono = _sizes_of_n(request, n)
    if request.clauses is None and size_b is not None and mono is not None:
        if r is None:
            r = request.fillers_beside(2 * size_b + mono)
        return n, size_b, mono, r
    return _split_target(request, n, size_b, mono, r)


def _sizes_of_n(request: Request, n: int) -> tuple[int, int]:
    """The paper's direct mapping from ``n``: ``|B| = beta*n``, ``m_mono = density*|F|^2/2``."""
    size_b = round_half_up(request.knob("beta") * n)
    mono = round_half_up(request.knob("mono_density") * (n - size_b) ** 2 / 2.0)
    request.use("beta", "mono_density")
    return size_b, mono


def _check_free(n: int, size_b: int, mono: int) -> None:
    """Refuse ``n`` variables that leave too few free ones for the monotone clauses."""
    min_free = 2 if mono > 0 else 0
    if n < size_b + min_free:
        raise ConfigError(
            f"n={n} variables leave fewer than {min_free} free ones for {mono} monotone clauses",
            parameter="n",
            valid=f">= {size_b + min_free}",
        )


def _split_target(
    request: Request, n: int | None, size_b: int | None, mono: int | None, r: int | None
) -> tuple[int | None, int, int, int]:
    """``(n, B, m_mono, r)`` meeting the clause target ``2B + m_mono + r``."""
    target = request.target
    fixed = 2 * size_b + mono if size_b is not None and mono is not None else None
    r = request.fillers_for(r, fixed, target - 1, f"a core in {target} clauses")
    core = target - r
    if size_b is not None and mono is not None:
        _check_core(size_b, mono, core, r)
    elif size_b is not None:
        mono = _mono_beside(size_b, core)
    elif mono is not None:
        mono = _refuse_mono(mono, core)
        size_b = (core - mono) // 2
    elif n is not None:
        size_b = min(core // 2, round_half_up(request.knob("beta") * n))
        mono = core - 2 * size_b
        request.use("beta")
    else:
        size_b, size_f, mono = _knob_sizes(core, request.knob("beta"), request.knob("mono_density"))
        n = size_b + size_f
        request.use("beta", "mono_density")
    return n, size_b, mono, r


def _check_core(size_b: int, mono: int, core: int, r: int) -> None:
    """Refuse ``B`` and ``m_mono`` both given that miss the ``core`` clauses by more than 1."""
    if abs(2 * size_b + mono - core) > 1:
        raise ConfigError(
            f"B={size_b} and m_mono={mono} make {2 * size_b + mono} core clauses, not {core} (±1)",
            parameter="clauses",
            valid=f"{2 * size_b + mono + r - 1}..{2 * size_b + mono + r + 1}",
        )


def _mono_beside(size_b: int, core: int) -> int:
    """``m_mono``: the ``core`` clauses the pairs of ``B`` backbone variables leave."""
    mono = core - 2 * size_b
    if mono < 0:
        raise ConfigError(
            f"B={size_b} needs {2 * size_b} clauses, only {core} are left",
            parameter="B",
            valid=f"0..{core // 2} for {core} core clauses",
        )
    return mono


def _refuse_mono(mono: int, core: int) -> int:
    """``m_mono`` as given, refused above the ``core`` clauses."""
    if mono > core:
        raise ConfigError(
            f"m_mono={mono} exceeds the {core} core clauses",
            parameter="m_mono",
            valid=f"0..{core}",
        )
    return mono


#: How a request becomes sizes: the budget splits the clauses into backbone pairs,
#: monotone clauses and fillers (``beta``, ``mono_density``, ``filler_share``); the
#: orientation is left to ``pi`` (drawn when building) unless it is given.
SIZING = Sizing(
    FAMILY,
    PARAMS,
    min_clauses=MIN_CLAUSES,
    budget=_budget,
    rules=(KnobRule("orientation", "pi", lambda t, s: None),),
    count=lambda p: 2 * int(p["B"]) + int(p["m_mono"]) + int(p["r"]),
)


def resolve(clauses: int | None, params: Mapping[str, object]) -> Checked:
    """Validate a request and derive ``n``, ``B``, ``m_mono`` and ``r`` from the knobs.

    The clause count is ``2B + m_mono + r``; the knob path meets the target exactly
    (within ±1 when the monotone part is empty and the target is odd).

    Examples
    --------
    >>> p = resolve(20, {})
    >>> p["n"], p["B"], p["m_mono"]
    (12, 6, 8)
    >>> p = resolve(None, {"n": 10, "beta": 0.2, "mono_density": 0.5})
    >>> p["B"], p["m_mono"]
    (2, 16)
    """
    return resolve_sizes(SIZING, clauses, params)


def _free_size(mono: int, size_b: int, beta: float, density: float, used: set[str]) -> int:
    """``|F|`` when ``B`` and ``m_mono`` are fixed: from the density, else from beta.

    Kept in ``[2, 2·m_mono]`` (0 without monotone clauses).
    """
    if mono == 0:
        return 0
    if density > 0.0:
        used.add("mono_density")
        size = round_half_up(min(math.sqrt(2.0 * mono / density), 2.0 * mono))
    elif 0.0 < beta < 1.0 and size_b > 0:
        used.add("beta")
        size = round_half_up(size_b * (1.0 - beta) / beta)
    else:
        size = 2
    return min(2 * mono, max(2, size))


#: The sign of the monotone clauses' literals, by orientation.
_SIGN = {"+": 1, "-": -1}


def _backbone_pairs(values: dict[int, bool], n: int) -> list[tuple[int, ...]]:
    """Per backbone variable ``x`` of planted value ``values[x]``, with the literal ``l``
    true under it and its auxiliary ``a = n + x``: the pairs ``(l, a)`` and ``(l, -a)``."""
    core: list[tuple[int, ...]] = []
    for x, value in values.items():
        lit, aux = (x if value else -x), n + x
        core.extend([(lit, aux), (lit, -aux)])
    return core


def build(rng: random.Random, p: Checked) -> tuple[Formula, dict[str, Any]]:
    """Draw a formula of resolved sizes ``p`` (:func:`resolve`'s result) from ``rng``.

    Returns
    -------
    formula, structure:
        ``structure`` holds ``backbone`` (``{name: planted value}``), ``auxiliaries``
        (``{x: a_x}``), ``free`` (names of ``F``), ``orientation`` (``"+"``/``"-"``),
        ``backbone_clauses``, ``mono_clauses``, ``filler_clauses`` and ``filler_vars``.

    Examples
    --------
    >>> f, s = backbone(random.Random(2), B=2, m_mono=0, n=2)
    >>> f.num_clauses, f.num_vars, sorted(s["auxiliaries"]) == sorted(s["backbone"])
    (4, 4, True)
    """
    n, size_b, mono, r = (int(p[key]) for key in ("n", "B", "m_mono", "r"))
    backbone_vars = list(range(1, size_b + 1))
    free = list(range(size_b + 1, n + 1))
    values = {x: rng.random() < 0.5 for x in backbone_vars}
    core = _backbone_pairs(values, n)
    orientation = p["orientation"]
    if orientation is None:
        orientation = "+" if rng.random() < float(p["pi"]) else "-"
    sign = _SIGN[orientation]
    core.extend((sign * y, sign * z) for y, z in sample_pairs(rng, free, mono))
    total_vars = n + size_b
    fillers, fresh = fresh_fillers(rng, r, total_vars, len(core))
    body = [*core, *fillers]
    order = clause_order(rng, len(body), bool(p["shuffle"]))
    formula, perm, position = place(rng, body, order, total_vars + len(fresh))

    def name(var: int) -> str:
        return formula.name(perm[var - 1])

    nb = 2 * size_b
    structure: dict[str, Any] = {
        "backbone": {name(x): values[x] for x in backbone_vars},
        "auxiliaries": {name(x): name(n + x) for x in backbone_vars},
        "free": [name(y) for y in free],
        "orientation": orientation,
        "backbone_clauses": position[:nb],
        "mono_clauses": position[nb : len(core)],
        "filler_clauses": position[len(core) : len(body)],
        "filler_vars": [name(v) for v in fresh],
    }
    return formula, structure


#: ``backbone(rng, clauses=None, **params)``: draw a backbone formula (App. D),
#: the request resolved by :func:`resolve`, then built by :func:`build`.
backbone = register_family(
    FAMILY,
    build,
    resolve,
    PARAMS,
    summary="SAT with a planted backbone (pairs with auxiliaries) and a monotone remainder",
    section="§3.3, App. D",
    label="SAT",
).draw
