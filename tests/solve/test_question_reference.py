"""The implication-graph searches behind the ``entails`` reference, held to networkx and
to a plain breadth-first search that takes each literal's successors in ascending node
order (the walk a prompt's ``chain`` prints)."""

from __future__ import annotations

from itertools import pairwise

import networkx as nx
import pytest
from hypothesis import given, settings

from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.solve.questions.reference import _reached, _walk


def _node(lit: int) -> int:
    return 2 * (abs(lit) - 1) + (lit < 0)


def _successors(formula: Formula) -> dict[int, list[int]]:
    """Each literal's successors, ascending by node (clause ``(a | b)``: ``~a -> b``,
    ``~b -> a``; a unit clause ``(a)``: ``~a -> a``)."""
    out: dict[int, set[int]] = {}
    for clause in formula.clauses:
        a, b = int(clause[0]), int(clause[-1])
        out.setdefault(-a, set()).add(b)
        out.setdefault(-b, set()).add(a)
    return {lit: sorted(found, key=_node) for lit, found in out.items()}


def _reference_walk(formula: Formula, a: int, b: int) -> list[int]:
    """First-in first-out search from ``a``; each literal keeps the first that reaches it."""
    successors = _successors(formula)
    parent: dict[int, int] = {}
    queue, seen = [a], {a}
    for lit in queue:
        for nxt in successors.get(lit, []):
            if nxt not in seen:
                seen.add(nxt)
                parent[nxt] = lit
                queue.append(nxt)
    if b not in seen:
        return []
    walk = [b]
    while walk[-1] != a:
        walk.append(parent[walk[-1]])
    return walk[::-1]


def _graph(formula: Formula) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(s * v for v in range(1, formula.num_vars + 1) for s in (1, -1))
    graph.add_edges_from((a, b) for a, found in _successors(formula).items() for b in found)
    return graph


@pytest.mark.slow
@settings(max_examples=200)
@given(small_2cnf(max_vars=6, max_clauses=10))
def test_reached_is_every_descendant_and_the_literal_itself(formula: Formula) -> None:
    lits = [s * v for v in range(1, formula.num_vars + 1) for s in (1, -1)]
    graph = _graph(formula)
    assert _reached(formula, lits) == {lit: nx.descendants(graph, lit) | {lit} for lit in lits}


@pytest.mark.slow
@settings(max_examples=200)
@given(small_2cnf(max_vars=6, max_clauses=10))
def test_walk_is_the_ascending_breadth_first_walk(formula: Formula) -> None:
    graph = _graph(formula)
    lits = [s * v for v in range(1, formula.num_vars + 1) for s in (1, -1)]
    for a in lits:
        for b in lits:
            if abs(a) == abs(b):
                continue
            walk = _walk(formula, a, b)
            assert walk == _reference_walk(formula, a, b)
            if nx.has_path(graph, a, b):
                assert len(walk) == nx.shortest_path_length(graph, a, b) + 1
                assert all(graph.has_edge(p, q) for p, q in pairwise(walk))
            else:
                assert walk == []
