"""Structural measures against independent oracles: networkx on the implication graph
built here from the clauses, and the backbone by brute force over every assignment."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings

from tests.support.cli import run
from tests.support.formula_strategies import clause_lists
from twosat_formal.core.formula import Formula
from twosat_formal.solve.measures import MEASURES, structural_measures
from twosat_formal.solve.measures_check import derive_measures


def oracle(formula: Formula) -> dict[str, int | None]:
    n = formula.num_vars
    g = nx.DiGraph()
    g.add_nodes_from(lit for v in range(1, n + 1) for lit in (v, -v))
    for clause in formula.clauses:
        a, b = (clause[0], clause[0]) if len(clause) == 1 else clause
        g.add_edge(-a, b)
        g.add_edge(-b, a)
    comps = list(nx.strongly_connected_components(g))
    dag = nx.condensation(g, comps)
    sizes = [len(c) for c in comps]
    models = [
        bits
        for bits in product([False, True], repeat=n)
        if all(any(bits[abs(x) - 1] == (x > 0) for x in c) for c in formula.clauses)
    ]
    dist = dict(nx.all_pairs_shortest_path_length(g))

    def d(x: int, y: int) -> float:
        return dist[x].get(y, float("inf"))

    found: dict[str, int | None] = {
        "longest_path": nx.dag_longest_path_length(dag) if dag.number_of_nodes() else 0,
        "scc_count": len(comps),
        "largest_scc": max(sizes, default=0),
        "nontrivial_sccs": sum(1 for s in sizes if s > 1),
        "shortest_cycle": None,
        "backbone": None,
        "forced_depth": None,
        "proof_length": None,
    }
    if not models:
        found["shortest_cycle"] = found["proof_length"] = int(
            min(d(v, -v) + d(-v, v) for v in range(1, n + 1) if d(v, -v) + d(-v, v) < 1e9)
        )
        return found
    literals = [lit for v in range(1, n + 1) for lit in (v, -v)]
    backbone = [lit for lit in literals if all(m[abs(lit) - 1] == (lit > 0) for m in models)]
    found["backbone"] = len(backbone)
    found["forced_depth"] = int(max((d(-lit, lit) for lit in backbone), default=0))
    # the proof of SAT that the hardest forced literal needs: its shortest forcing chain
    found["proof_length"] = int(
        max((nx.shortest_path_length(g, -lit, lit) for lit in backbone), default=0)
    )
    return found


@settings(max_examples=150, deadline=None)
@given(clause_lists(max_var=6, min_size=0, max_size=12))
def test_measures_equal_the_oracles(clauses: list[list[int]]) -> None:
    formula = Formula(clauses, num_vars=6)
    measures = structural_measures(formula)
    assert list(measures) == list(MEASURES)
    assert measures == oracle(formula)


def test_a_long_ring_is_measured_by_the_engine_as_by_the_independent_derivation() -> None:
    n = 600  # a ring of n + 1 clauses: every variable conflicts (too many for brute force)
    ring = Formula([[i, -(i + 1)] for i in range(1, n)] + [[n], [-1]], num_vars=n)
    measures = structural_measures(ring)
    assert measures == derive_measures(ring)
    assert measures["shortest_cycle"] == measures["proof_length"] == 2 * n


def test_inspect_json_and_the_graph_carry_the_measures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "f.dsl"
    source.write_text("a\na -> b\nb -> c\nc | d\n")
    out = tmp_path / "g.graphml"
    code, stdout, err = run(["inspect", str(source), "--json", "--graph", str(out)], capsys)
    assert code == 0, err
    measures = json.loads(stdout)["measures"]
    formula = Formula.from_named([["a"], ["~a", "b"], ["~b", "c"], ["c", "d"]])
    assert measures == oracle(formula)
    assert measures["forced_depth"] == 5 and measures["backbone"] == 3
    graph = nx.read_graphml(out)
    for key in MEASURES:  # a measure that does not apply (None) is left out
        assert graph.graph.get(key) == measures[key]
    assert measures["shortest_cycle"] is None and "shortest_cycle" not in graph.graph
    code, stdout, _ = run(["inspect", str(source)], capsys)
    assert code == 0 and "deepest forced literal" in stdout
