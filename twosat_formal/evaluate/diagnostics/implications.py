"""A small implication graph whose edges remember the clause they come from.

The diagnostics need more than reachability: which clause justifies a step (to check a
model's chain of reasoning, or to know which clause a twin may replace), and the
shortest walk between two literals (to build a contradiction cycle a reader can follow).
Clause ``(a | b)`` gives the steps ``~a -> b`` and ``~b -> a``; a unit clause ``(a)``
gives ``~a -> a``. Literals are DIMACS ints. Walks are found by breadth-first search
that visits edges in clause order, so the same formula always gives the same walk.

This module shares no code with the solver (:mod:`twosat_formal.solve`); the
diagnostics use it to build and to check, and use the solver only for labels.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> g = Implications(Formula.from_named([["~a", "b"], ["~b", "c"], ["~c"]]))
>>> g.clause_of(1, 2), g.clause_of(2, 1)
(0, None)
>>> g.walk(1, -1)
[1, 2, 3, -3, -2, -1]
>>> g.walk_clauses([1, 2, 3])
[0, 1]
>>> g.entails(-1), g.entails(1)
(True, False)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from itertools import pairwise

from twosat_formal.core.formula import Formula

__all__ = ["Implications"]


class Implications:
    """The implication graph of a 2-CNF, each edge labelled with its first clause.

    Parameters
    ----------
    formula:
        A 2-CNF (:meth:`~twosat_formal.core.formula.Formula.require_2cnf` is called).
    skip:
        Clause indices to leave out (the graph of the formula without them).
    """

    def __init__(self, formula: Formula, *, skip: Iterable[int] = ()) -> None:
        formula.require_2cnf("the implication graph")
        left_out = set(skip)
        self.formula = formula
        self._out: dict[int, list[tuple[int, int]]] = {}
        self._edge: dict[tuple[int, int], int] = {}
        for index, clause in enumerate(formula.clauses):
            if index in left_out:
                continue
            a, b = (clause[0], clause[0]) if len(clause) == 1 else (clause[0], clause[1])
            for src, dst in ((-a, b), (-b, a)):
                if (src, dst) not in self._edge:
                    self._edge[(src, dst)] = index
                    self._out.setdefault(src, []).append((dst, index))

    def clause_of(self, src: int, dst: int) -> int | None:
        """The first clause (0-based) that gives the step ``src -> dst``, or ``None``."""
        return self._edge.get((src, dst))

    def successors(self, lit: int) -> list[int]:
        """The literals one step from ``lit``, in clause order."""
        return [dst for dst, _ in self._out.get(lit, [])]

    def walk(self, start: int, goal: int, budget: int | None = None) -> list[int] | None:
        """A shortest walk ``start ~> goal`` (literals, both ends included), or ``None``.

        A walk from a literal to itself has at least one step (a cycle through it). With
        a ``budget``, the breadth-first search expands that many literals at most.
        """
        parent: dict[int, int] = {}
        queue = deque([start])
        seen = {start} if start != goal else set()
        expanded = 0
        while queue and (budget is None or expanded < budget):
            expanded += 1
            lit = queue.popleft()
            for dst, _ in self._out.get(lit, []):
                if dst in seen:
                    continue
                seen.add(dst)
                parent[dst] = lit
                if dst == goal:
                    path = [goal]
                    while path[-1] != start or len(path) == 1:
                        path.append(parent[path[-1]])
                    return path[::-1]
                queue.append(dst)
        return None

    def entails(self, lit: int) -> bool:
        """Whether ``~lit ~> lit``: the formula forces ``lit`` (or is UNSAT).

        For a satisfiable 2-CNF this is exactly ``formula |= lit``.
        """
        return self.walk(-lit, lit) is not None

    def walk_clauses(self, walk: Sequence[int]) -> list[int]:
        """The clause of each step of ``walk`` (``KeyError`` names a step with none)."""
        out = []
        for src, dst in pairwise(walk):
            index = self.clause_of(src, dst)
            if index is None:
                raise KeyError(f"no clause gives the step {src} -> {dst}")
            out.append(index)
        return out
