"""The implication graph as a networkx graph, and written where people look at graphs.

:func:`implication_digraph` turns the solver engine's implication graph
(:func:`~twosat_formal.solve.graph.implication_graph`) into a ``networkx.DiGraph``:

* one node per literal (``2 * num_vars``), named as the DSL writes it (``"a"``,
  ``"~a"``), with the attributes ``literal`` (DIMACS int), ``variable`` (name),
  ``positive``, ``scc`` (the engine's strong component; components numbered in order of
  their first literal: ``x1``, ``~x1``, ``x2``, ...), ``scc_size``, ``conflicting``
  (its variable has both literals in one component) and ``on_cycle``;
* one edge per distinct implication, with ``clause`` (the first clause that gives it,
  as the DSL writes it), ``clause_index`` (its 0-based index), ``clauses`` (every clause
  that gives it, ``"; "``-joined), ``on_cycle`` and ``cycle_step`` (its first 1-based step
  on the contradiction cycle, 0 when not on it);
* the graph attributes ``num_vars``, ``num_clauses``, ``satisfiable``, ``cycle`` (the
  solver's checked contradiction cycle, ``"a -> b -> ~a -> a"``; empty when SAT) and
  the :func:`~twosat_formal.solve.measures.structural_measures` that apply (those that are
  ``None`` for the formula's label are left out).

:func:`write_graph` writes it through networkx's writers, the format chosen by the
file's suffix (:data:`GRAPH_FORMATS`): GraphML, GEXF, Graphviz DOT (through pydot; the
cycle drawn in red) or node-link JSON. GEXF has no graph attributes: there the cycle is
read from the ``on_cycle`` and ``cycle_step`` attributes.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> g = implication_digraph(Formula.from_named([["a", "b"], ["~a"], ["~b"]]))
>>> sorted(g.edges(data="clause"))[:2]
[('a', '~a', '~a'), ('b', '~b', '~b')]
>>> g.graph["satisfiable"], g.graph["cycle"]
(False, 'a -> ~a -> b -> ~b -> a')
>>> g.nodes["a"]["on_cycle"], g.edges["~b", "a"]["cycle_step"]
(True, 4)
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, NotTwoCNFError, raises
from twosat_formal.solve.measures import structural_measures

if TYPE_CHECKING:
    from collections.abc import Iterable

    from twosat_formal.solve.scc import Components

__all__ = ["GRAPH_FORMATS", "graph_format", "implication_digraph", "write_graph"]

#: File suffixes :func:`write_graph` writes, and the format of each.
GRAPH_FORMATS = {".graphml": "GraphML", ".gexf": "GEXF", ".dot": "Graphviz DOT", ".json": "JSON"}


@raises(NotTwoCNFError)
def implication_digraph(formula: Formula) -> Any:
    """The implication graph of a 2-CNF as an annotated ``networkx.DiGraph``.

    See the module documentation for the attributes.

    Examples
    --------
    >>> g = implication_digraph(Formula.from_named([["a", "b"]]))
    >>> sorted(g.edges), g.nodes["~a"]["scc_size"]
    ([('~a', 'b'), ('~b', 'a')], 1)
    """
    import networkx as nx

    from twosat_formal.solve import solve
    from twosat_formal.solve.graph import implication_graph
    from twosat_formal.solve.scc import strong_components

    formula.require_2cnf("the implication graph")
    engine = implication_graph(formula)
    result = solve(formula)
    cycle = [int(lit) for lit in result.cycle or ()]
    name = formula.literal_name
    measures = structural_measures(formula)
    graph = nx.DiGraph(
        num_vars=formula.num_vars,
        num_clauses=formula.num_clauses,
        satisfiable=result.status == "SAT",
        cycle=" -> ".join(name(lit) for lit in [*cycle, *cycle[:1]]),
        **{key: value for key, value in measures.items() if value is not None},
    )
    _add_nodes(graph, formula, strong_components(engine), set(cycle))
    _add_edges(graph, formula, engine.edges(), cycle)
    return graph


def _add_nodes(graph: Any, formula: Formula, components: Components, on_cycle: set[int]) -> None:
    """One node per literal, with its component (numbered by first appearance)."""
    from twosat_formal.solve.graph import index_literal
    from twosat_formal.solve.scc import conflicting_variables

    labels = components.labels.tolist()
    renumber: dict[int, int] = {}
    for label in labels:
        renumber.setdefault(label, len(renumber))
    sizes = components.sizes().tolist()
    conflicts = set(conflicting_variables(components).tolist())
    for node, label in enumerate(labels):
        lit = int(index_literal(node))
        graph.add_node(
            formula.literal_name(lit),
            literal=lit,
            variable=formula.name(abs(lit)),
            positive=lit > 0,
            scc=renumber[label],
            scc_size=int(sizes[label]),
            conflicting=abs(lit) in conflicts,
            on_cycle=lit in on_cycle,
        )


def _add_edges(
    graph: Any, formula: Formula, edges: Iterable[tuple[int, int]], cycle: list[int]
) -> None:
    """One edge per implication, with the clauses that give it and its step on the cycle."""
    givers: dict[tuple[int, int], list[int]] = {}
    for index, clause in enumerate(formula.clauses):
        first, second = (clause[0], clause[0]) if len(clause) == 1 else clause
        givers.setdefault((-first, second), []).append(index)
        givers.setdefault((-second, first), []).append(index)
    steps: dict[tuple[int, int], int] = {}
    for step, edge in enumerate(zip(cycle, [*cycle[1:], *cycle[:1]], strict=True), start=1):
        steps.setdefault(edge, step)  # a walk may pass an edge twice: its first step

    def shown(index: int) -> str:
        return formula.clause_text(formula.clause(index))

    for source, target in edges:
        indices = givers[(source, target)]
        step = steps.get((source, target), 0)
        graph.add_edge(
            formula.literal_name(source),
            formula.literal_name(target),
            clause=shown(indices[0]),
            clause_index=indices[0],
            clauses="; ".join(dict.fromkeys(shown(i) for i in indices)),
            on_cycle=step > 0,
            cycle_step=step,
        )


def graph_format(path: str | os.PathLike[str], chosen: str | None = None) -> str:
    """The format :func:`write_graph` writes ``path`` in, as a suffix: ``chosen``
    (``graphml``, ``gexf``, ``dot``, ``json``) or else ``path``'s suffix; a format it
    cannot write is a ConfigError.

    >>> graph_format("out.GraphML"), graph_format("/dev/stdout", "dot")
    ('.graphml', '.dot')
    >>> graph_format("out.png")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: cannot write a graph to out.png: give a file ending in ...
    """
    shown = ", ".join(list(GRAPH_FORMATS)[:-1]) + " or " + list(GRAPH_FORMATS)[-1]
    if chosen is not None:
        if f".{chosen.lower()}" not in GRAPH_FORMATS:
            names = shown.replace(".", "")
            raise ConfigError(
                f"--graph-format {chosen!r} is not a graph format: {names}",
                parameter="graph_format",
                valid=names,
            )
        return f".{chosen.lower()}"
    suffix = Path(path).suffix.lower()
    if suffix not in GRAPH_FORMATS:
        raise ConfigError(
            f"cannot write a graph to {path}: give a file ending in {shown}",
            parameter="graph",
            valid=shown,
        )
    return suffix


def write_graph(graph: Any, path: str | os.PathLike[str], suffix: str | None = None) -> None:
    """Write ``graph`` to ``path`` in the format of its suffix (or of ``suffix``).

    GraphML and GEXF through networkx's writers, DOT through networkx's pydot
    interface, JSON as networkx's node-link data (``edges="edges"``), keys sorted.
    """
    import networkx as nx

    chosen = suffix or graph_format(path)
    if chosen == ".graphml":
        nx.write_graphml(graph, path)
    elif chosen == ".gexf":
        nx.write_gexf(graph, path)
    elif chosen == ".dot":
        from networkx.drawing.nx_pydot import to_pydot

        dot = to_pydot(_quoted(graph))
        Path(path).write_text(dot.to_string(), encoding="utf-8")
    else:
        data = nx.node_link_data(graph, edges="edges")
        Path(path).write_text(json.dumps(data, sort_keys=True, indent=1) + "\n", encoding="utf-8")


def _quoted(graph: Any) -> Any:
    """``graph`` ready for pydot: node names and string values quoted (pydot leaves
    ``~a`` and ``a | b`` bare, which DOT cannot read), the graph attributes where
    networkx's DOT writer takes them, and the contradiction cycle drawn in red."""
    import networkx as nx

    def quote(value: Any) -> Any:
        return f'"{value}"' if isinstance(value, str) else value

    def attributes(data: dict[str, Any]) -> dict[str, Any]:
        shown = {k: quote(v) for k, v in data.items()}
        return {**shown, "color": "red"} if data.get("on_cycle") else shown

    out = nx.DiGraph()
    out.graph["graph"] = {k: quote(v) for k, v in graph.graph.items()}
    for node, data in graph.nodes(data=True):
        out.add_node(quote(node), **attributes(data))
    for source, target, data in graph.edges(data=True):
        out.add_edge(quote(source), quote(target), **attributes(data))
    return out
