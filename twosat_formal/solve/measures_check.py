"""The structural measures derived again, by code that shares nothing with the engine's.

:func:`twosat_formal.solve.measures.structural_measures` reads the engine's implication graph
(CSR arrays), its compiled strong-component search and SciPy's breadth-first searches.
:func:`derive_measures` gives the same measures from the clauses alone, in plain Python:
adjacency lists built here, Kosaraju's two depth-first passes for the strong components
(the engine runs another algorithm; the second walks the graph's dual, which is the
graph itself with its nodes negated), reachability between components as bit sets for
the backbone (a literal ``l`` is forced when ``~l`` reaches ``l``), and a plain
breadth-first search from each conflicting literal or negated backbone literal ``u``
for the distance to ``~u`` (the engine asks SciPy's shortest paths), which by the
graph's duality stops halfway (:func:`_to_negation`); the searches for the shortest
contradiction cycle keep inside the strong component and stop once they cannot beat
the shortest found.
:func:`check_measures` is what ``certify`` runs on an instance record's ``measures``:
every value must equal the one derived here.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> derive_measures(Formula.from_named([["a"], ["~a", "b"], ["~b", "c"]]))["proof_length"]
5
>>> check_measures(Formula([[1], [-1]]), {"shortest_cycle": 2, "backbone": None})
Traceback (most recent call last):
...
twosat_formal.errors.CertificateError: measures: missing longest_path, missing scc_count, \
missing largest_scc, missing nontrivial_sccs, missing forced_depth, missing proof_length
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonread import json_type_name
from twosat_formal.errors import CertificateError
from twosat_formal.solve.measures import MEASURES as MEASURE_KEYS

__all__ = ["check_measures", "derive_measures"]


def _adjacency(formula: Formula) -> list[list[int]]:
    """The implication graph: clause ``a | b`` gives ``~a -> b`` and ``~b -> a``.

    Literal ``v`` is node ``2v - 2``, ``-v`` node ``2v - 1``: a node's negation is the
    node ``^ 1``. The graph is its own dual (``~b -> ~a`` for each ``a -> b``), which
    :func:`_components` uses.

    >>> _adjacency(Formula([[1, -2]]))  # ~x1 -> ~x2, x2 -> x1
    [[], [3], [0], []]
    """
    n = formula.num_vars
    # node[x] for a literal x of 1..n and (counted from the end) of -n..-1
    node = [0, *range(0, 2 * n, 2), *range(2 * n - 1, 0, -2)]
    out: list[list[int]] = [[] for _ in range(2 * n)]
    literals = formula.literals.tolist()
    if formula.is_2cnf and len(literals) == 2 * formula.num_clauses:  # pairs only
        ends = iter([node[x] for x in literals])
        pairs: Iterable[tuple[int, int]] = zip(ends, ends, strict=True)
    else:  # a unit clause (a) gives ~a -> a
        pairs = ((node[c[0]], node[c[1] if len(c) > 1 else c[0]]) for c in formula.clauses)
    for a, b in pairs:
        out[a ^ 1].append(b)
        out[b ^ 1].append(a)
    return out


def _components(out: list[list[int]]) -> tuple[list[int], int]:
    """Kosaraju: each node's component, numbered in a topological order of the
    condensation (an edge between components goes from a lower to a higher number).

    The second pass walks the reversed graph, which by duality is the graph itself
    with every node negated: ``u -> v`` is an edge exactly when ``~v -> ~u`` is.
    """
    comp = [-1] * len(out)
    count = 0
    for root in reversed(_finish_order(out)):
        if comp[root] < 0:
            _label(out, root, comp, count)
            count += 1
    return comp, count


def _finish_order(out: list[list[int]]) -> list[int]:
    """The nodes in the order a depth-first search finishes them."""
    seen = [False] * len(out)
    order: list[int] = []
    finished = order.append
    for root in range(len(out)):
        if seen[root]:
            continue
        seen[root] = True
        nodes, pending = [root], [iter(out[root])]
        while pending:
            for v in pending[-1]:
                if not seen[v]:
                    seen[v] = True
                    nodes.append(v)
                    pending.append(iter(out[v]))
                    break
            else:
                pending.pop()
                finished(nodes.pop())
    return order


def _label(out: list[list[int]], root: int, comp: list[int], label: int) -> None:
    """Give ``label`` to every unlabelled node that reaches ``root``: a node ``u`` with
    an edge to ``x`` is the negation of a successor of ``~x`` (the graph's duality)."""
    comp[root] = label
    todo = [root]
    while todo:
        for w in out[todo.pop() ^ 1]:
            if comp[w ^ 1] < 0:
                comp[w ^ 1] = label
                todo.append(w ^ 1)


def _to_negation(out: list[list[int]], u: int, limit: int) -> int:
    """Edges on a shortest path from node ``u`` to its negation ``u ^ 1``, or
    ``limit + 1`` when there is none of at most ``limit`` edges.

    By the graph's duality (an edge ``a -> b`` for each ``~b -> ~a``), the path from ``w``
    to ``~u`` is as long as the one from ``u`` to ``~w``, so ``d(u, ~u)`` is the least
    ``d(u, w) + d(u, ~w)`` over the nodes ``w``, and a ``w`` halfway along a shortest path
    gives it with both terms at most half of it, rounded up. One breadth-first search
    from ``u`` takes each newly reached ``w`` whose negation it has reached already, and
    stops when the searched depth proves the least sum found (or proves it above
    ``limit``): half as deep as a search for ``~u`` itself.

    >>> _to_negation([[2], [], [1], []], 0, 9)  # 0 -> 2 -> 1
    2
    >>> _to_negation([[2], [], [1], []], 0, 1), _to_negation([[2], [], [], []], 0, 9)
    (2, 10)
    """
    dist = [-1] * len(out)
    dist[u] = 0
    frontier = [u]
    best = limit + 1
    bound = limit  # the search goes on while 2 * level + 1 <= min(best, limit)
    level = 0
    while frontier and 2 * level + 1 <= bound:
        level += 1
        reached = []
        for a in frontier:
            for w in out[a]:
                if dist[w] < 0:
                    dist[w] = level
                    reached.append(w)
                    if dist[w ^ 1] >= 0 and level + dist[w ^ 1] < best:
                        best = bound = level + dist[w ^ 1]
        frontier = reached
    return best


def _shortest_cycle(out: list[list[int]], comp: list[int], conflicts: list[int]) -> int:
    """The least ``d(v, ~v) + d(~v, v)`` over the conflicting variables ``v``.

    A cycle through ``v`` and ``~v`` stays in their strong component, so the searches
    follow the edges inside components alone, and each stops once it cannot beat the
    least sum found so far.
    """
    inside = [[v for v in targets if comp[v] == comp[u]] for u, targets in enumerate(out)]
    best = 2 * len(out)  # above any sum of two simple paths
    for v in conflicts:
        there = _to_negation(inside, 2 * v, best - 2)
        if there <= best - 2:
            best = min(best, there + _to_negation(inside, 2 * v + 1, best - there - 1))
    return best


def derive_measures(formula: Formula) -> dict[str, int | None]:
    """The structural measures of a 2-CNF (see :mod:`twosat_formal.solve.measures`).

    >>> derive_measures(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]]))["shortest_cycle"]
    4
    """
    out = _adjacency(formula)
    comp, count = _components(out)
    sizes, successors = _condense(out, comp, count)
    found: dict[str, int | None] = dict.fromkeys(MEASURE_KEYS)
    found["longest_path"] = _longest_path(successors)
    found["scc_count"] = count
    found["largest_scc"] = max(sizes, default=0)
    found["nontrivial_sccs"] = sum(1 for n in sizes if n > 1)
    # the variables whose two literals share a component
    pairs = zip(comp[::2], comp[1::2], strict=True)
    conflicts = [v for v, (a, b) in enumerate(pairs) if a == b]
    if conflicts:
        found["shortest_cycle"] = found["proof_length"] = _shortest_cycle(out, comp, conflicts)
        return found
    forced = _forced(comp, successors)
    found["backbone"] = len(forced)
    # ~l reaches l for each forced l
    deepest = max((_to_negation(out, node ^ 1, len(out)) for node in forced), default=0)
    found["forced_depth"] = found["proof_length"] = deepest
    return found


def _condense(
    out: list[list[int]], comp: list[int], count: int
) -> tuple[list[int], list[set[int]]]:
    """Each component's number of nodes, and the components its edges lead to (itself
    not)."""
    sizes = [0] * count
    successors: list[set[int]] = [set() for _ in range(count)]
    label = comp.__getitem__
    for c, targets in zip(comp, out, strict=True):
        sizes[c] += 1
        successors[c].update(map(label, targets))
    for c, reached in enumerate(successors):
        reached.discard(c)
    return sizes, successors


def _longest_path(successors: list[set[int]]) -> int:
    """Edges on a longest path of the condensation (components in topological order)."""
    depth = [0] * len(successors)
    for c, targets in enumerate(successors):  # each component after its predecessors
        for d in targets:
            depth[d] = max(depth[d], depth[c] + 1)
    return max(depth, default=0)


def _forced(comp: list[int], successors: list[set[int]]) -> list[int]:
    """The nodes ``l`` with ``~l ~> l`` (``l ^ 1`` is the negation of node ``l``)."""
    reach = [0] * len(successors)
    for c in reversed(range(len(successors))):
        bits = 1 << c
        for d in successors[c]:
            bits |= reach[d]
        reach[c] = bits
    return [node for node in range(len(comp)) if reach[comp[node ^ 1]] >> comp[node] & 1]


def _same(stored: object, derived: int | None) -> bool:
    """Whether a stored measure is the derived one (a bool is no count)."""
    return stored == derived and type(stored) is not bool


def check_measures(formula: Formula, stored: object) -> None:
    """Check an instance record's ``measures`` against :func:`derive_measures`.

    Raises
    ------
    CertificateError
        Naming each measure missing, unknown or not the derived value.

    Examples
    --------
    >>> formula = Formula([[1], [-1, 2]])
    >>> check_measures(formula, derive_measures(formula))
    >>> check_measures(formula, {**derive_measures(formula), "backbone": 1})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.CertificateError: measures: backbone is 1, derived 2
    """
    if not isinstance(stored, Mapping):
        raise CertificateError(f"measures must be an object, not {json_type_name(stored)}")
    derived = derive_measures(formula)
    problems = [f"missing {key}" for key in MEASURE_KEYS if key not in stored]
    problems += [f"unknown {key}" for key in stored if key not in derived]
    problems += [
        f"{key} is {stored[key]!r}, derived {derived[key]!r}"
        for key in MEASURE_KEYS
        if key in stored and not _same(stored[key], derived[key])
    ]
    if problems:
        raise CertificateError("measures: " + ", ".join(problems))
