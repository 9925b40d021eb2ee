"""Random clause material shared by the families: variable pairs, fillers, relabelling.

Filler clauses (§5.2 of the paper, and line 14 of Algorithm 1) are two-literal clauses
over two *distinct* variables (so never a tautology) that a planted assignment of their
own variables satisfies. Over fresh variables they therefore leave the satisfiability of
any core unchanged; over the core's variables (Algorithm 1, UNSAT cores only) they are
satisfiable on their own and cannot make an UNSAT core SAT.

Examples
--------
>>> import random
>>> rng = random.Random(1)
>>> clauses = planted_fillers(rng, 4, [1, 2, 3], {1: True, 2: False, 3: True})
>>> len(clauses), all(len({abs(a), abs(b)}) == 2 for a, b in clauses)
(4, True)
>>> truth = {1: True, 2: False, 3: True}
>>> all((a > 0) == truth[abs(a)] or (b > 0) == truth[abs(b)] for a, b in clauses)
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.knobs import round_half_up

__all__ = [
    "Pair",
    "arrange",
    "clause_order",
    "fresh_fillers",
    "fresh_variables",
    "matched_fresh_count",
    "place",
    "planted_fillers",
    "random_assignment",
    "relabel",
    "sample_pairs",
]

#: A two-literal clause as a pair of DIMACS literals.
Pair = tuple[int, int]


def sample_pairs(
    rng: random.Random,
    variables: Sequence[int],
    count: int,
    *,
    cover: Sequence[int] | None = None,
) -> list[tuple[int, int]]:
    """Draw ``count`` pairs of distinct variables from ``variables``, in random order.

    Every variable of ``cover`` (default: all of ``variables``) occurs in some pair as
    far as ``count`` allows (``2 * count >= len(cover)`` covers all). Repeated pairs
    are avoided while unused pairs remain.

    Examples
    --------
    >>> pairs = sample_pairs(random.Random(0), [4, 5, 6, 7, 8], 3)
    >>> sorted({v for pair in pairs for v in pair})
    [4, 5, 6, 7, 8]
    """
    if count < 0:
        raise ConfigError(f"cannot draw {count} pairs", parameter="count", valid=">= 0")
    if count == 0:
        return []
    pool = list(dict.fromkeys(variables))
    if len(pool) < 2:
        raise ConfigError(
            f"{count} clauses need at least 2 variables, got {len(pool)}",
            parameter="variables",
            valid=">= 2 variables",
        )
    pairs = _covering_pairs(rng, pool, pool if cover is None else cover)[:count]
    used = {frozenset(p) for p in pairs}
    total = len(pool) * (len(pool) - 1) // 2
    while len(pairs) < count:
        u, v = _new_pair(rng, pool, used, total)
        used.add(frozenset((u, v)))
        pairs.append((u, v) if rng.random() < 0.5 else (v, u))
    rng.shuffle(pairs)
    return pairs


def _covering_pairs(rng: random.Random, pool: list[int], cover: Sequence[int]) -> list[Pair]:
    """Pairs that hold every variable of ``cover`` once (the last one with any other)."""
    order = list(dict.fromkeys(cover))
    rng.shuffle(order)
    pairs = [(order[i], order[i + 1]) for i in range(0, len(order) - 1, 2)]
    if len(order) % 2:
        last = order[-1]
        pairs.append((last, rng.choice([v for v in pool if v != last])))
    return pairs


def _new_pair(rng: random.Random, pool: list[int], used: set[frozenset[int]], total: int) -> Pair:
    """Two distinct variables of ``pool`` not paired in ``used`` while unused pairs remain."""
    if len(used) >= total:
        return _two(rng, pool)
    if 2 * len(used) > total:
        free = [p for p in combinations(pool, 2) if frozenset(p) not in used]
        return rng.choice(free)
    u, v = _two(rng, pool)
    while frozenset((u, v)) in used:
        u, v = _two(rng, pool)
    return u, v


def _two(rng: random.Random, pool: list[int]) -> Pair:
    u, v = rng.sample(pool, 2)
    return u, v


def random_assignment(rng: random.Random, variables: Sequence[int]) -> dict[int, bool]:
    """A uniformly random truth value for each variable.

    >>> sorted(random_assignment(random.Random(0), [3, 1]))
    [1, 3]
    """
    return {v: rng.random() < 0.5 for v in variables}


def planted_fillers(
    rng: random.Random,
    count: int,
    variables: Sequence[int],
    assignment: Mapping[int, bool] | None = None,
    *,
    cover: Sequence[int] | None = None,
) -> list[Pair]:
    """``count`` filler clauses over ``variables`` that ``assignment`` satisfies.

    Each clause joins two distinct variables (never a tautology) with random signs;
    if neither literal holds under the planted assignment, one of them (chosen at
    random) is flipped. Every variable of ``cover`` (default: all) occurs when
    ``2 * count >= len(cover)``.

    Parameters
    ----------
    rng:
        The random source.
    count:
        Number of clauses.
    variables:
        The variables the clauses may use (at least 2 when ``count > 0``).
    assignment:
        The planted assignment; a random one when ``None``.
    cover:
        Variables that must occur (default: all of ``variables``).

    Examples
    --------
    >>> clauses = planted_fillers(random.Random(3), 3, [1, 2], {1: False, 2: False})
    >>> all(a < 0 or b < 0 for a, b in clauses)
    True
    """
    pairs = sample_pairs(rng, variables, count, cover=cover)
    truth = dict(assignment) if assignment is not None else random_assignment(rng, variables)
    clauses: list[Pair] = []
    for u, v in pairs:
        a = u if rng.random() < 0.5 else -u
        b = v if rng.random() < 0.5 else -v
        if (a > 0) != truth[u] and (b > 0) != truth[v]:
            if rng.random() < 0.5:
                a = -a
            else:
                b = -b
        clauses.append((a, b))
    return clauses


def matched_fresh_count(count: int, core_vars: int, core_clauses: int) -> int:
    """How many fresh variables ``count`` fillers get at the core's variable density.

    The density is variables per clause; the result lies in ``[2, 2 * count]`` so
    that every fresh variable can occur and no clause needs a repeated variable.

    >>> matched_fresh_count(10, 12, 20), matched_fresh_count(1, 50, 10)
    (6, 2)
    >>> matched_fresh_count(0, 5, 5)
    0
    """
    if count <= 0:
        return 0
    density = core_vars / core_clauses if core_clauses > 0 else 1.0
    return max(2, min(2 * count, round_half_up(count * density)))


def fresh_variables(count: int, core_vars: int, core_clauses: int) -> range:
    """The fresh variables after ``1..core_vars`` for ``count`` fillers at the core's density.

    Their number is :func:`matched_fresh_count`'s.

    >>> fresh_variables(10, 12, 20), fresh_variables(0, 5, 5)
    (range(13, 19), range(6, 6))
    """
    num_fresh = matched_fresh_count(count, core_vars, core_clauses)
    return range(core_vars + 1, core_vars + num_fresh + 1)


def fresh_fillers(
    rng: random.Random, count: int, core_vars: int, core_clauses: int
) -> tuple[list[Pair], range]:
    """``count`` planted fillers over fresh variables after the core's, and those variables.

    The fresh variables are :func:`fresh_variables`' (the core's density); the
    fillers are :func:`planted_fillers` over them, so they share no variable with
    the core and cannot change its label.

    >>> clauses, fresh = fresh_fillers(random.Random(1), 3, 4, 4)
    >>> fresh, all(abs(lit) in fresh for clause in clauses for lit in clause)
    (range(5, 8), True)
    """
    fresh = fresh_variables(count, core_vars, core_clauses)
    return planted_fillers(rng, count, fresh), fresh


def clause_order(rng: random.Random, count: int, shuffle: bool) -> list[int]:
    """The indices ``0..count-1``, shuffled by ``rng`` when ``shuffle`` is set.

    >>> clause_order(random.Random(0), 3, False)
    [0, 1, 2]
    >>> sorted(clause_order(random.Random(0), 3, True))
    [0, 1, 2]
    """
    order = list(range(count))
    if shuffle:
        rng.shuffle(order)
    return order


def relabel(
    rng: random.Random, clauses: Sequence[Sequence[int]], num_vars: int
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Rename variables ``1..num_vars`` by a uniformly random permutation.

    Returns the renamed clauses and ``perm`` with ``perm[v - 1]`` the new variable of
    ``v``; families build over role-ordered variables and place them at random.

    >>> clauses, perm = relabel(random.Random(0), [(1, -2)], 2)
    >>> clauses == [(perm[0], -perm[1])]
    True
    """
    perm = list(range(1, num_vars + 1))
    rng.shuffle(perm)
    renamed = [tuple(perm[lit - 1] if lit > 0 else -perm[-lit - 1] for lit in c) for c in clauses]
    return renamed, perm


def arrange(
    clauses: Sequence[tuple[int, ...]], order: Sequence[int]
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Put ``clauses`` in ``order`` (a permutation of their indices).

    Returns the reordered clauses and ``position`` with ``position[i]`` the new index
    of clause ``i``, so that a family can report its clause roles after reordering.

    >>> arrange([(1, 2), (3, 4), (5, 6)], [2, 0, 1])
    ([(5, 6), (1, 2), (3, 4)], [1, 2, 0])
    """
    if sorted(order) != list(range(len(clauses))):
        raise ConfigError("order must be a permutation of the clause indices", parameter="order")
    position = [0] * len(clauses)
    for new, old in enumerate(order):
        position[old] = new
    return [clauses[old] for old in order], position


def place(
    rng: random.Random, body: Sequence[Sequence[int]], order: Sequence[int], num_vars: int
) -> tuple[Formula, list[int], list[int]]:
    """Rename ``body``'s variables at random (:func:`relabel`), then put it in ``order``.

    Returns the formula, ``perm`` (``perm[v - 1]`` the new variable of ``v``) and
    ``position`` (``position[i]`` the new index of clause ``i``).

    >>> formula, perm, position = place(random.Random(0), [(1, -2), (2, 3)], [1, 0], 3)
    >>> formula.num_clauses, position, formula.clauses[1] == (perm[0], -perm[1])
    (2, [1, 0], True)
    """
    renamed, perm = relabel(rng, body, num_vars)
    final, position = arrange(renamed, order)
    return Formula(final, num_vars=num_vars), perm, position
