"""``mono-bridge``: two monotone halves and one moving bridge (§3.4, App. E).

Disjoint variable sets ``P`` and ``N``; ``m₊`` positive clauses ``(p ∨ p')`` over pairs of
distinct variables of ``P``, ``m₋`` negative clauses ``(¬q ∨ ¬q')`` over ``N``, and one
bridge ``(¬p* ∨ q*)`` with ``p* ∈ P``, ``q* ∈ N`` inserted as the ``s``-th clause (1-based).
The count is ``m₊ + m₋ + 1``; the formula is SAT (all of ``P`` true, ``q*`` true, the rest
of ``N`` false). The monotone clauses come positive part first, then negative part
(``shuffle``: in random order); fillers (over fresh variables) follow them.

Knobs (the paper's parametrisation): the overall variable density
``(|P| + |N|) / (2|C|)``, the positive part ratio ``m₊/|C|`` and the relative bridge
position ``s = 1 + round(bridge_position·(|C| − 1))``, i.e. the 0-based bridge index
ranges over ``[0, |C| − 1]``.

Examples
--------
>>> import random
>>> formula, structure = mono_bridge(random.Random(0), 10)
>>> formula.num_clauses, structure["bridge"]["position"]
(10, 6)
"""

from __future__ import annotations

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
    knob_to_int,
    round_half_up,
    share_count,
)
from twosat_formal.make.generators.resolve import KnobRule, Request, Sizing, resolve_sizes

__all__ = ["FAMILY", "PARAMS", "SIZING", "build", "mono_bridge", "resolve"]

FAMILY = "mono-bridge"
#: The smallest formula: the bridge alone.
MIN_CLAUSES = 1

PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec.knob("var_density", "n_pos", "overall variable density (|P|+|N|)/(2|C|)"),
    ParamSpec.knob("pos_ratio", "m_pos", "positive part ratio m+/|C|"),
    ParamSpec.knob(
        "bridge_position", "s", "relative bridge position: s = 1 + round(bridge_position*(|C|-1))"
    ),
    FILLER_SHARE,
    ParamSpec("n_pos", "int", None, "|P|, variables of the positive part", low=1),
    ParamSpec("n_neg", "int", None, "|N|, variables of the negative part", low=1),
    ParamSpec("m_pos", "int", None, "positive clauses m+", low=0),
    ParamSpec("m_neg", "int", None, "negative clauses m-", low=0),
    ParamSpec("s", "int", None, "1-based position of the bridge among all clauses", low=1),
    FRESH_FILLERS,
    ParamSpec("shuffle", "bool", False, "shuffle the non-bridge clauses (bridge stays at s)"),
)


def _var_range(m: int) -> tuple[int, int]:
    """Fewest and most variables a monotone part of ``m`` clauses (+ the bridge end) uses."""
    return (2 if m > 0 else 1), 2 * m + 1


def _budget(request: Request) -> None:
    """``m_pos``, ``m_neg``, ``r``, then ``n_pos`` and ``n_neg``; the total as ``total``."""
    m_pos, m_neg, r = (request.asked(key) for key in ("m_pos", "m_neg", "r"))
    if request.clauses is None and m_pos is not None and m_neg is not None:
        if r is None:
            r = request.fillers_beside(m_pos + m_neg + 1)
        total = m_pos + m_neg + 1 + r
    else:
        m_pos, m_neg, r, total = _split_target(request, m_pos, m_neg, r)
    n_pos, n_neg = _variables(request, m_pos, m_neg)
    request.sizes.update(n_pos=n_pos, n_neg=n_neg, m_pos=m_pos, m_neg=m_neg, r=r, total=total)


def _split_target(
    request: Request, m_pos: int | None, m_neg: int | None, r: int | None
) -> tuple[int, int, int, int]:
    """``(m_pos, m_neg, r, total)`` meeting the clause target ``m+ + m- + 1 + r`` (±1)."""
    target = request.target
    fixed = m_pos + m_neg + 1 if m_pos is not None and m_neg is not None else None
    r = request.fillers_for(r, fixed, target - MIN_CLAUSES, f"the bridge in {target} clauses")
    mono = target - r - 1
    if m_pos is not None and m_neg is not None:
        if abs(m_pos + m_neg - mono) > 1:
            raise ConfigError(
                f"m_pos={m_pos} and m_neg={m_neg} make {m_pos + m_neg + 1 + r} clauses,"
                f" not {target} (±1)",
                parameter="clauses",
                valid=f"{m_pos + m_neg + r}..{m_pos + m_neg + r + 2}",
            )
        return m_pos, m_neg, r, m_pos + m_neg + 1 + r
    if m_pos is not None:
        _refuse_part("m_pos", m_pos, mono)
        return m_pos, mono - m_pos, r, target
    if m_neg is not None:
        _refuse_part("m_neg", m_neg, mono)
        return mono - m_neg, m_neg, r, target
    m_pos = share_count(request.knob("pos_ratio"), target, mono)
    request.use("pos_ratio")
    return m_pos, mono - m_pos, r, target


def _refuse_part(name: str, size: int, mono: int) -> None:
    """Refuse a part of ``size`` clauses above the ``mono`` monotone clauses."""
    if size > mono:
        raise ConfigError(
            f"{name}={size} exceeds the {mono} monotone clauses",
            parameter=name,
            valid=f"0..{mono}",
        )


def _variables(request: Request, m_pos: int, m_neg: int) -> tuple[int, int]:
    """``(n_pos, n_neg)``: as given, else from ``var_density``; each must fit its part."""
    core = m_pos + m_neg + 1
    n_pos, n_neg = request.asked("n_pos"), request.asked("n_neg")
    lo_p, hi_p = _var_range(m_pos)
    lo_n, hi_n = _var_range(m_neg)
    if n_pos is None or n_neg is None:
        density = request.knob("var_density")
        if n_pos is None and n_neg is None:
            total = max(lo_p + lo_n, min(hi_p + hi_n, round_half_up(density * 2 * core)))
            n_pos = min(hi_p, max(lo_p, round_half_up(total * (2 * m_pos + 1) / (2 * core))))
            n_neg = min(hi_n, max(lo_n, total - n_pos))
            n_pos = total - n_neg
        elif n_pos is None:
            assert n_neg is not None
            total = round_half_up(density * 2 * core)
            n_pos = min(hi_p, max(lo_p, total - n_neg))
        else:
            total = round_half_up(density * 2 * core)
            n_neg = min(hi_n, max(lo_n, total - n_pos))
        request.use("var_density")
    for name, size, lo, hi in (("n_pos", n_pos, lo_p, hi_p), ("n_neg", n_neg, lo_n, hi_n)):
        if not lo <= size <= hi:
            raise ConfigError(
                f"{name}={size} does not fit its part",
                parameter=name,
                valid=f"{lo}..{hi} (each variable in some clause, clauses over 2 variables)",
            )
    return n_pos, n_neg


def _check_s(s: int, request: Request) -> None:
    total = request.size("total")
    if s > total:
        raise ConfigError(
            f"bridge position s={s} is beyond the {total} clauses",
            parameter="s",
            valid=f"1..{total}",
        )


#: How a request becomes sizes: the budget splits the clauses into the two monotone
#: parts (``pos_ratio``), the bridge and fillers, and sizes the parts' variables
#: (``var_density``); ``bridge_position`` places the bridge.
SIZING = Sizing(
    FAMILY,
    PARAMS,
    min_clauses=MIN_CLAUSES,
    budget=_budget,
    rules=(
        KnobRule("s", "bridge_position", lambda t, s: knob_to_int(t, 1, s.size("total")), _check_s),
    ),
    count=lambda p: int(p["m_pos"]) + int(p["m_neg"]) + 1 + int(p["r"]),
)


def resolve(clauses: int | None, params: Mapping[str, object]) -> Checked:
    """Validate a request and derive the sizes and the bridge position from the knobs.

    Examples
    --------
    >>> p = resolve(20, {})
    >>> p["m_pos"], p["m_neg"], p["n_pos"] + p["n_neg"], p["s"]
    (10, 9, 20, 11)
    >>> resolve(20, {"bridge_position": 1.0})["s"]
    20
    """
    return resolve_sizes(SIZING, clauses, params)


def build(rng: random.Random, p: Checked) -> tuple[Formula, dict[str, Any]]:
    """Draw a formula of resolved sizes ``p`` (:func:`resolve`'s result) from ``rng``.

    Returns
    -------
    formula, structure:
        ``structure`` holds ``positive`` and ``negative`` (names of ``P`` and ``N``),
        ``bridge`` (``index`` 0-based, ``position`` = s, ``p_star``, ``q_star``),
        ``positive_clauses``, ``negative_clauses``, ``filler_clauses``, ``filler_vars``
        and ``trigger_clause`` (the bridge).

    Examples
    --------
    >>> f, s = mono_bridge(random.Random(3), m_pos=2, m_neg=2, s=1)
    >>> f.num_clauses, s["bridge"]["index"], s["bridge"]["position"]
    (5, 0, 1)
    """
    n_pos, n_neg, m_pos, m_neg, s, r = (
        int(p[key]) for key in ("n_pos", "n_neg", "m_pos", "m_neg", "s", "r")
    )
    pos_vars = list(range(1, n_pos + 1))
    neg_vars = list(range(n_pos + 1, n_pos + n_neg + 1))
    p_star, q_star = rng.choice(pos_vars), rng.choice(neg_vars)
    positive = _pairs(rng, pos_vars, m_pos, p_star)
    negative = [(-a, -b) for a, b in _pairs(rng, neg_vars, m_neg, q_star)]
    n_core = n_pos + n_neg
    fillers, fresh = fresh_fillers(rng, r, n_core, m_pos + m_neg + 1)
    body: list[tuple[int, ...]] = [*positive, *negative, *fillers]
    order = clause_order(rng, len(body), bool(p["shuffle"]))
    bridge_role = len(body)
    order.insert(s - 1, bridge_role)
    body.append((-p_star, q_star))
    formula, perm, position = place(rng, body, order, n_core + len(fresh))

    def name(var: int) -> str:
        return formula.name(perm[var - 1])

    structure: dict[str, Any] = {
        "positive": [name(v) for v in pos_vars],
        "negative": [name(v) for v in neg_vars],
        "bridge": {
            "index": s - 1,
            "position": s,
            "p_star": name(p_star),
            "q_star": name(q_star),
        },
        "positive_clauses": position[:m_pos],
        "negative_clauses": position[m_pos : m_pos + m_neg],
        "filler_clauses": position[m_pos + m_neg : bridge_role],
        "filler_vars": [name(v) for v in fresh],
        "trigger_clause": s - 1,
    }
    return formula, structure


def _pairs(rng: random.Random, variables: list[int], count: int, end: int) -> list[tuple[int, int]]:
    """Monotone pairs; the bridge ``end`` already occurs, so only the others must be covered."""
    if count == 0:
        return []
    return sample_pairs(rng, variables, count, cover=[v for v in variables if v != end])


#: ``mono_bridge(rng, clauses=None, **params)``: draw a mono-bridge formula (App. E),
#: the request resolved by :func:`resolve`, then built by :func:`build`.
mono_bridge = register_family(
    FAMILY,
    build,
    resolve,
    PARAMS,
    summary="SAT: positive and negative monotone parts coupled by one bridge clause at position s",
    section="§3.4, App. E",
    label="SAT",
).draw
