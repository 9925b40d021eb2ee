"""The own 2-SAT backend for small formulas, in plain Python: no SciPy to import.

A one-off ``twosat-formal solve`` of a handful of clauses would spend most of its time
importing SciPy; a formula of at most :data:`SMALL_CLAUSES` clauses is solved here
instead, and so is a larger one while SciPy is not yet imported, until the process
has solved :data:`COLD_CLAUSES` clauses here (:func:`prefers_python`): up to about
that size, plain Python is faster than importing SciPy, and a process that goes on
solving such formulas then imports it once. The results are
the very ones of the SciPy path, not merely equivalent ones: the strong components come
from an iterative Tarjan search that visits roots in node order and successors in the
sorted order of the CSR matrix, as SciPy's does, so components are numbered in the same
(reverse topological) order and the model is the same; the contradiction cycle joins
breadth-first shortest paths found in the same order, so it is the same walk. The tests
compare both paths result for result, and the certificate is checked either way.

Examples
--------
The same result as the SciPy path, model or cycle:

>>> from twosat_formal.formula import Formula
>>> sat = Formula([[1, 2], [-1, 2], [1, -2], [3, -4]])
>>> unsat = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3, -4]])
>>> [(solve_small(f) == scc.solve_scc(f), solve_small(f).status) for f in (sat, unsat)]
[(True, 'SAT'), (True, 'UNSAT')]
"""

from __future__ import annotations

import sys

from twosat_formal.errors import NotTwoCNFError, TwoSatFormalError, raises
from twosat_formal.formula import Formula
from twosat_formal.solve import scc
from twosat_formal.solve.result import SolveResult

__all__ = [
    "COLD_CLAUSES",
    "SMALL_CLAUSES",
    "is_small",
    "prefers_python",
    "small_components",
    "small_cycle",
    "solve_small",
    "successor_lists",
]

#: Formulas with at most this many clauses are solved in plain Python.
SMALL_CLAUSES = 500

#: While SciPy is not imported, larger formulas are solved in plain Python too, until
#: they add up to this many clauses in the process: plain Python takes about as long
#: for them (a few microseconds a clause) as importing SciPy's graph routines.
COLD_CLAUSES = 20_000

#: Clauses of larger-than-small formulas solved here so far in this process.
_cold_clauses = [0]


def is_small(formula: Formula) -> bool:
    """Whether :func:`solve_small` is the path for ``formula`` (by number of clauses).

    >>> is_small(Formula([[1, 2]]))
    True
    """
    return formula.num_clauses <= SMALL_CLAUSES


def prefers_python(formula: Formula) -> bool:
    """Whether the ``scc`` backend solves ``formula`` here rather than with SciPy.

    Small formulas always; a larger one only while SciPy's graph routines are not
    imported and the larger formulas solved here add up to at most
    :data:`COLD_CLAUSES` clauses (this call counts ``formula`` when it says yes). Both
    paths give the same result, so the choice changes only how long it takes.

    >>> prefers_python(Formula([[1, 2]]))
    True
    """
    if is_small(formula):
        return True
    spent = _cold_clauses[0] + formula.num_clauses
    if "scipy.sparse.csgraph" in sys.modules or spent > COLD_CLAUSES:
        return False
    _cold_clauses[0] = spent
    return True


def _node(lit: int) -> int:
    return 2 * (lit - 1) if lit > 0 else 2 * (-lit - 1) + 1


def _literal(node: int) -> int:
    var = (node >> 1) + 1
    return -var if node & 1 else var


def successor_lists(formula: Formula) -> list[list[int]]:
    """The implication graph as sorted successor lists, nodes numbered as the matrix's.

    Node ``2*(v-1)`` is ``v`` and ``2*(v-1)+1`` is ``-v``; a clause ``(a | b)`` gives
    ``-a -> b`` and ``-b -> a``, a unit ``(a)`` gives ``-a -> a``; repeated edges are
    kept once.

    >>> successor_lists(Formula([[1, 2], [-1]]))
    [[1], [2], [], [0]]
    """
    succ: list[list[int]] = [[] for _ in range(2 * formula.num_vars)]
    for a, b in formula.pairs().tolist():
        na = 2 * a - 2 if a > 0 else -2 * a - 1  # _node, inline
        nb = 2 * b - 2 if b > 0 else -2 * b - 1
        succ[na ^ 1].append(nb)
        succ[nb ^ 1].append(na)
    return [sorted(set(targets)) if len(targets) > 1 else targets for targets in succ]


def small_components(succ: list[list[int]]) -> tuple[int, list[int]]:
    """Strong components: their number, and each node's component, numbered as found.

    An iterative Tarjan search: roots in node order, successors in list order. A
    component is numbered when its search finishes, so every edge between two
    components goes from a higher number to a lower one (reverse topological order).

    >>> small_components([[1], [0], [0]])
    (2, [0, 0, 1])
    """
    size = len(succ)
    index = [0] * size  # discovery time, from 1; 0 while unvisited
    low = [0] * size
    label = [-1] * size
    on_stack = [False] * size
    stack: list[int] = []
    count = clock = 0
    for root in range(size):
        if index[root]:
            continue
        clock += 1
        index[root] = low[root] = clock
        stack.append(root)
        on_stack[root] = True
        work = [(root, len(succ[root]))]
        while work:
            v, i = work[-1]
            if i:
                work[-1] = (v, i - 1)
                w = succ[v][i - 1]
                if not index[w]:
                    clock += 1
                    index[w] = low[w] = clock
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, len(succ[w])))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    label[w] = count
                    if w == v:
                        break
                count += 1
            if work:
                parent = work[-1][0]
                if low[v] < low[parent]:
                    low[parent] = low[v]
    return count, label


def _shortest_path(
    succ: list[list[int]], start: int, goal: int, limit: int | None = None
) -> list[int] | None:
    """A breadth-first shortest path ``start ~> goal`` (both included), ``goal != start``.

    The search goes level by level, in the order a queue would take the nodes, so it
    finds the path a queue finds. With ``limit``, a path of more than ``limit`` edges
    is not looked for (``None`` then); without it, an unreachable goal is an error.
    """
    pred = {start: start}
    level = [start]
    depth = 0
    while level and (limit is None or depth < limit):
        depth += 1
        following = []
        for node in level:
            for nxt in succ[node]:
                if nxt in pred:
                    continue
                pred[nxt] = node
                if nxt == goal:
                    path = [goal]
                    while path[-1] != start:
                        path.append(pred[path[-1]])
                    return path[::-1]
                following.append(nxt)
        level = following
    if limit is None:
        raise TwoSatFormalError(f"node {goal} is not reachable from node {start}")
    return None


def small_cycle(succ: list[list[int]], label: list[int]) -> tuple[int, ...]:
    """The contradiction cycle that :func:`~twosat_formal.solve.scc.contradiction_cycle` finds.

    The smallest component holding some ``x`` and ``-x`` (the lowest such variable on
    ties), its first conflicting variables tried, the shortest walk kept.

    >>> succ = successor_lists(Formula([[1], [-1]]))
    >>> small_cycle(succ, small_components(succ)[1])
    (1, -1)
    """
    conflicts = [v for v in range(1, len(label) // 2 + 1) if label[2 * v - 2] == label[2 * v - 1]]
    if not conflicts:
        raise TwoSatFormalError("no variable shares a component with its negation")
    sizes: dict[int, int] = {}
    for comp in label:
        sizes[comp] = sizes.get(comp, 0) + 1
    target = label[2 * conflicts[0] - 2]
    for v in conflicts:
        if sizes[label[2 * v - 2]] < sizes[target]:
            target = label[2 * v - 2]
    tries = max(1, min(scc.CYCLE_CANDIDATES, scc.CYCLE_SEARCH_BUDGET // (2 * sizes[target])))
    best: list[int] | None = None
    for x in [v for v in conflicts if label[2 * v - 2] == target][:tries]:
        pos, neg = 2 * x - 2, 2 * x - 1
        # a walk of d1 + d2 edges replaces the best of L only if d1 + d2 < L, d2 >= 1:
        # longer paths are not searched for (the same walk is kept either way)
        there = _shortest_path(succ, pos, neg, None if best is None else len(best) - 2)
        if there is None:
            continue
        rest = None if best is None else len(best) - len(there)
        back = _shortest_path(succ, neg, pos, rest)
        if back is None:
            continue
        walk = there + back[1:-1]
        if best is None or len(walk) < len(best):
            best = walk
    assert best is not None
    return tuple(_literal(node) for node in best)


@raises(NotTwoCNFError)
def solve_small(formula: Formula) -> SolveResult:
    """Decide a small 2-CNF in plain Python; the SciPy path's model or cycle.

    The result is not yet checked (``checked=False``).

    Examples
    --------
    >>> solve_small(Formula([[1], [-1]])).cycle
    (1, -1)
    """
    succ = successor_lists(formula)
    _count, label = small_components(succ)
    if any(label[i] == label[i + 1] for i in range(0, len(label), 2)):
        return SolveResult("UNSAT", cycle=small_cycle(succ, label), backend="scc")
    model = tuple(label[i] < label[i + 1] for i in range(0, len(label), 2))
    return SolveResult("SAT", model=model, backend="scc")
