"""``inspect FILE --graph OUT``: the implication graph written through networkx's writers.

Each written file is read back by networkx (pydot for DOT) and compared with the engine's
graph: the same literals, the same edges, each edge labelled with a clause that gives
it, the strong components equal to networkx's own, and the marked cycle a closed walk
of edges through some ``x`` and ``~x`` (the solver's checked cycle).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from networkx.drawing.nx_pydot import read_dot

from tests.support.cli import run
from tests.support.formula_strategies import clause_lists
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.solve import solve
from twosat_formal.solve.graph import implication_graph
from twosat_formal.solve.graphs import implication_digraph, write_graph

SUFFIXES = (".graphml", ".gexf", ".dot", ".json")


def read_back(path: Path) -> nx.DiGraph:
    """The graph in ``path``, read by networkx, with DOT's quoted strings unquoted."""
    if path.suffix == ".graphml":
        return nx.read_graphml(path)
    if path.suffix == ".gexf":
        return nx.read_gexf(path)
    if path.suffix == ".json":
        return nx.node_link_graph(json.loads(path.read_text()), edges="edges")
    dot = read_dot(path)

    def plain(value: Any) -> Any:
        text = str(value).strip('"')
        if text in ("True", "true", "False", "false"):
            return text.lower() == "true"
        try:
            return int(text)
        except ValueError:
            return text

    out = nx.DiGraph(**{k: plain(v) for k, v in dot.graph.get("graph", {}).items()})
    for node, data in dot.nodes(data=True):
        if node in ("node", "edge", "graph"):  # pydot's defaults entries
            continue
        out.add_node(plain(node), **{k: plain(v) for k, v in data.items()})
    for source, target, data in dot.edges(data=True):
        out.add_edge(plain(source), plain(target), **{k: plain(v) for k, v in data.items()})
    return out


def check_graph(formula: Formula, graph: nx.DiGraph) -> None:
    """``graph`` is the engine's implication graph of ``formula``, correctly annotated."""
    name = formula.literal_name
    literals = [lit for v in range(1, formula.num_vars + 1) for lit in (v, -v)]
    assert set(graph.nodes) == {name(lit) for lit in literals}
    engine = {(name(a), name(b)) for a, b in implication_graph(formula).edges()}
    assert set(graph.edges) == engine
    clauses = {" | ".join(name(lit) for lit in clause): clause for clause in formula.clauses}
    for source, target, data in graph.edges(data=True):
        clause = clauses[data["clause"]]  # a clause of the formula ...
        pair = (clause[0], clause[0]) if len(clause) == 1 else clause
        gives = {(name(-pair[0]), name(pair[1])), (name(-pair[1]), name(pair[0]))}
        assert (source, target) in gives  # ... that gives this edge
        assert formula.clause(int(data["clause_index"])) == clause
    # strong components: the same partition as networkx's own algorithm
    ours: dict[Any, set[str]] = {}
    for node, data in graph.nodes(data=True):
        ours.setdefault(data["scc"], set()).add(node)
        assert int(data["literal"]) in literals and name(int(data["literal"])) == node
    theirs = {frozenset(c) for c in nx.strongly_connected_components(graph)}
    assert {frozenset(c) for c in ours.values()} == theirs
    for node, data in graph.nodes(data=True):
        assert int(data["scc_size"]) == len(ours[data["scc"]])
        variable = node.lstrip("~")
        same = graph.nodes[variable]["scc"] == graph.nodes["~" + variable]["scc"]
        assert bool(data["conflicting"]) == same
    # the cycle: the solver's checked closed walk through some x and ~x, edge by edge
    result = solve(formula)
    marked = {(s, t): int(d["cycle_step"]) for s, t, d in graph.edges(data=True) if d["on_cycle"]}
    assert all(int(d["cycle_step"]) == 0 for _, _, d in graph.edges(data=True) if not d["on_cycle"])
    walk = [name(lit) for lit in result.cycle or ()]
    steps: dict[tuple[str, str], int] = {}
    for step, edge in enumerate(zip(walk, walk[1:] + walk[:1], strict=True), start=1):
        steps.setdefault(edge, step)
    assert marked == steps
    assert {n for n, d in graph.nodes(data=True) if d["on_cycle"]} == set(walk)
    if result.status == "UNSAT" and result.cycle:
        assert any("~" + w in walk for w in walk if not w.startswith("~"))


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_the_cli_writes_a_graph_networkx_reads_back(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "f.dsl"
    source.write_text(
        "rain -> wet\nwet -> ~rain\n~(rain & cold)\ncold -> rain\n rain | cold\nsun | ~sun\n"
    )
    out = tmp_path / ("g" + suffix)
    code, stdout, err = run(["inspect", str(source), "--graph", str(out), "--json"], capsys)
    assert code == 0, err
    assert json.loads(stdout)["num_vars"] == 4
    assert f"to {out}" in err
    from twosat_formal.io import read_formula

    formula = read_formula(source)
    graph = read_back(out)
    check_graph(formula, graph)
    assert solve(formula).status == "UNSAT"
    if suffix != ".gexf":  # GEXF has no graph attributes
        assert graph.graph["cycle"].count(" -> ") == sum(
            1 for _, _, d in graph.edges(data=True) if d["on_cycle"]
        )
        assert graph.graph["satisfiable"] is False


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_graph_format_names_the_format_of_a_file_without_its_suffix(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--graph-format`` writes what the suffix would: the same graph read back."""
    source = tmp_path / "f.dsl"
    source.write_text("a -> b\nb -> ~a\n~a -> c\n")
    out = tmp_path / "graph-without-suffix"
    argv = ["inspect", str(source), "--graph", str(out), "--graph-format", suffix[1:]]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    named = tmp_path / ("g" + suffix)
    named.write_bytes(out.read_bytes())
    from twosat_formal.io import read_formula

    check_graph(read_formula(source), read_back(named))


def test_an_unknown_graph_format_is_one_line_before_anything_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "g"
    argv = ["inspect", str(tmp_path / "missing.cnf"), "--graph", str(out), "--graph-format", "png"]
    code, _, err = run(argv, capsys)
    assert code == 2 and err.count("\n") == 1 and "'png' is not a graph format" in err, err
    assert not out.exists()


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(clause_lists(max_var=5, min_size=0, max_size=10), st.sampled_from(SUFFIXES))
def test_every_format_round_trips_drawn_formulas(clauses: list[list[int]], suffix: str) -> None:
    import tempfile

    formula = Formula(clauses, num_vars=5, names=["p", "q", "r", "s", "t"])
    check_graph(formula, implication_digraph(formula))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("g" + suffix)
        write_graph(implication_digraph(formula), path)
        check_graph(formula, read_back(path))


def test_bad_graph_targets_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "f.dsl"
    source.write_text("a | b\n")
    code, _, err = run(["inspect", str(source), "--graph", str(tmp_path / "g.png")], capsys)
    assert code == 2 and "give a file ending in .graphml, .gexf, .dot or .json" in err
    assert not (tmp_path / "g.png").exists()
    code, _, err = run(["inspect", str(source), "--graph", str(source)], capsys)
    assert code == 2 and "is the input" in err and source.read_text() == "a | b\n"
    wide = tmp_path / "w.cnf"
    wide.write_text("p cnf 3 1\n1 2 3 0\n")
    code, _, err = run(["inspect", str(wide), "--graph", str(tmp_path / "w.json")], capsys)
    assert code == 2 and "Traceback" not in err and not (tmp_path / "w.json").exists()
    with pytest.raises(ConfigError):
        write_graph(nx.DiGraph(), tmp_path / "g.svg")


@pytest.mark.slow
@pytest.mark.parametrize("as_json", [False, True])
def test_a_graph_on_standard_output_is_all_it_holds(tmp_path: Path, as_json: bool) -> None:
    """``--graph /dev/stdout --graph-format dot`` pipes into Graphviz: the structure goes
    to stderr, so standard output is the DOT text alone (a real process, a real pipe)."""
    import subprocess
    import sys

    source = tmp_path / "f.dsl"
    source.write_text("a -> b\nb -> ~a\n~(a & c)\n")
    cli = str(Path(__file__).parents[2] / "cli.py")
    argv = [cli, "inspect", str(source), "--graph", "/dev/stdout", "--graph-format", "dot"]
    done = subprocess.run(
        [sys.executable, *argv, *(["--json"] if as_json else [])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "g.dot"
    out.write_text(done.stdout)
    from twosat_formal.io import read_formula

    check_graph(read_formula(source), read_back(out))
    shown = '{"num_vars"' if as_json else "┌"  # the JSON object, or the table's frame
    assert shown in done.stderr and shown not in done.stdout
    assert done.stdout.startswith("strict digraph")
