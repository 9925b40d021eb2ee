"""``twosat-formal solve FILE`` and ``twosat-formal inspect FILE``.

``solve`` prints the label with its checked certificate (a model, or a contradiction
cycle) as plain lines (:func:`describe`); ``--json`` prints one object, the one
:meth:`SolveResult.to_json` gives (encoded in bulk by :meth:`SolveResult.to_json_text`).
``inspect`` prints the implication-graph structure of a 2-CNF (:func:`analyze`) and its
structural measures (:func:`~twosat_formal.solve.measures.structural_measures`); with
``--graph OUT.graphml|.gexf|.dot|.json`` (or any OUT with ``--graph-format``) it also
writes the annotated implication graph (:func:`~twosat_formal.solve.graphs.implication_digraph`).
"""

from __future__ import annotations

import io
import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from twosat_formal.cli.app import app, console
from twosat_formal.io import read_formula
from twosat_formal.solve import BACKENDS, solve

if TYPE_CHECKING:  # the solver stack is imported when a command runs, not for --help
    from rich.table import Table

    from twosat_formal.core.formula import Formula
    from twosat_formal.solve import SolveResult
    from twosat_formal.solve.analysis import Structure

__all__ = [
    "SAT_COMPETITION_CODES",
    "SHOWN",
    "FormatChoice",
    "describe",
    "inspect",
    "listing",
    "solve_command",
    "solve_file",
]

#: Human output lists at most this many literals of a model, cycle or literal set.
SHOWN = 100
#: ``solve --exit-codes``: the SAT-competition convention.
SAT_COMPETITION_CODES = {"SAT": 10, "UNSAT": 20}


class FormatChoice(StrEnum):
    """Input formats."""

    dimacs = "dimacs"
    dsl = "dsl"


FileArgument = Annotated[
    str,
    typer.Argument(
        metavar="FILE",
        help='Formula file, DIMACS or DSL ("-" reads standard input).',
        show_default=False,
    ),
]
FormatOption = Annotated[
    FormatChoice | None,
    typer.Option(
        "--format",
        help='Format of FILE; detected when omitted (a "p cnf" header means DIMACS).',
        show_default="detected",
    ),
]


@app.command("solve")
def solve_command(
    file: FileArgument,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help="Solver backend: " + ", ".join(BACKENDS.names()) + ". A formula that is "
            "not a 2-CNF goes to pysat when scc is asked for.",
        ),
    ] = "scc",
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON object: status, model or cycle, backend."),
    ] = False,
    format: FormatOption = None,
    exit_codes: Annotated[
        bool,
        typer.Option(
            "--exit-codes",
            help="Exit 10 on SAT and 20 on UNSAT, as SAT-competition solvers do (default: 0).",
        ),
    ] = False,
) -> None:
    """Decide FILE (SAT or UNSAT) and print the checked certificate."""
    formula, result = solve_file(file, backend, format)
    # Plain text either way, without importing Rich (a tenth of a tiny solve's start-up):
    # the lines hold identifiers, numbers and fixed words, which a console prints as is.
    text = result.to_json_text(formula) if as_json else "\n".join(describe(result, formula))
    typer.echo(text)
    if exit_codes:
        raise typer.Exit(SAT_COMPETITION_CODES[result.status])


def solve_file(
    file: str, backend: str = "scc", format: FormatChoice | None = None
) -> tuple[Formula, SolveResult]:
    """Read FILE and solve it with ``backend``, the certificate checked: ``solve``'s work.

    An unknown backend fails before the file is read.
    """
    BACKENDS.get(backend)
    formula = read_formula(file, format=format.value if format else None)
    return formula, solve(formula, backend, check=True)


def listing(words: list[str], separator: str = " ", total: int | None = None) -> str:
    """The first :data:`SHOWN` of ``total`` words (default: all of ``words``).

    >>> listing(["a", "b"]), listing([])
    ('a b', '(none)')
    """
    total = len(words) if total is None else total
    if not total:
        return "(none)"
    shown = separator.join(words[:SHOWN])
    more = total - SHOWN
    return shown + (f" ... ({more} more; --json prints all)" if more > 0 else "")


def describe(result: SolveResult, formula: Formula) -> list[str]:
    """The lines ``twosat-formal solve`` prints without ``--json``.

    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.solve import solve
    >>> f = Formula.from_named([["a"], ["~a"]])
    >>> describe(solve(f), f)
    ['UNSAT  (backend scc)', 'contradiction cycle (2 steps): a -> ~a -> a', 'certificate: checked']
    """
    solver = f"backend {result.backend}"
    if result.general_cnf:
        solver += ", general CNF (not 2-CNF)"
    lines = [f"{result.status}  ({solver})"]
    if result.model is not None:  # only the literals shown are named
        head = [v if value else -v for v, value in enumerate(result.model[:SHOWN], 1)]
        lines.append("model: " + listing(formula.literal_names(head), total=len(result.model)))
    if result.cycle is not None:
        steps = len(result.cycle)
        walk = formula.literal_names(result.cycle[:SHOWN])
        lines.append(f"contradiction cycle ({steps} steps): " + listing(walk, " -> ", steps))
        if steps <= SHOWN:
            lines[-1] += f" -> {walk[0]}"
    if result.empty_clause is not None:
        lines.append(f"empty clause: clause {result.empty_clause + 1}")
    if result.checked:
        lines.append("certificate: checked")
    elif not result.has_certificate:
        lines.append("certificate: none (the solver gives no proof for this general CNF)")
    else:
        lines.append("certificate: not checked")
    return lines


def _structure_table(structure: Structure) -> Table:
    from rich.table import Table

    info = structure.to_json()
    table = Table(title="structure", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("value", overflow="fold")
    table.add_row("variables", str(info["num_vars"]))
    table.add_row("clauses", str(info["num_clauses"]))
    table.add_row("satisfiable", "yes" if info["satisfiable"] else "no")
    table.add_row("strong components", str(info["scc_count"]))
    table.add_row("largest component", f"{info['largest_scc']} literals")
    table.add_row("components of 2+ literals", str(info["nontrivial_sccs"]))
    for key, label in (
        ("conflicting_variables", "conflicting variables"),
        ("backbone", "backbone literals"),
        ("pure_literals", "pure literals"),
        ("free_variables", "free variables"),
    ):
        words = info[key]
        table.add_row(f"{label} ({len(words)})", listing(words))
    return table


#: The rows of the structural measures in ``inspect``'s table (JSON: ``measures``).
_MEASURE_ROWS = (
    ("shortest_cycle", "shortest contradiction cycle"),
    ("longest_path", "longest implication path (components)"),
    ("backbone", "backbone size"),
    ("forced_depth", "deepest forced literal (steps)"),
    ("proof_length", "proof length (steps)"),
)


@app.command("inspect")
def inspect(
    file: FileArgument,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the structure as one JSON object.")
    ] = False,
    format: FormatOption = None,
    graph: Annotated[
        Path | None,
        typer.Option(
            "--graph",
            metavar="OUT",
            help="Also write the implication graph (literals, edges labelled with their "
            "clause, strong components and the contradiction cycle as attributes) to OUT: "
            ".graphml, .gexf, .dot or .json.",
            show_default="none: no graph written",
        ),
    ] = None,
    graph_as: Annotated[
        str | None,
        typer.Option(
            "--graph-format",
            metavar="graphml|gexf|dot|json",
            help="The format of --graph when its name does not say it (- or /dev/stdout, say).",
            show_default="the suffix of OUT",
        ),
    ] = None,
) -> None:
    """Print the implication-graph structure of a 2-CNF in FILE."""
    from twosat_formal.solve.measures import structural_measures

    suffix = None
    if graph is not None:
        from twosat_formal.solve.graphs import graph_format

        suffix = graph_format(graph, graph_as)  # refused before anything is read
    formula = read_formula(file, format=format.value if format else None)
    structure = _analyzed(formula, file)
    if graph is not None:
        from twosat_formal._util.atomic import atomic_path
        from twosat_formal.solve.graphs import implication_digraph, write_graph

        drawn = implication_digraph(formula)
        with atomic_path(graph) as partial:
            write_graph(drawn, partial, suffix)
        console("err_console").print(
            f"wrote the implication graph ({drawn.number_of_nodes()} literals, "
            f"{drawn.number_of_edges()} implications) to {graph}",
            markup=False,
        )
    measures = structural_measures(formula)
    # a graph written to standard output (piped into dot) keeps it to itself
    shown = "err_console" if graph is not None and _is_stdout(graph) else "out_console"
    if as_json:
        typer.echo(
            json.dumps({**structure.to_json(), "measures": measures}), err=shown == "err_console"
        )
        return
    table = _structure_table(structure)
    for key, label in _MEASURE_ROWS:
        value = measures[key]
        table.add_row(label, "-" if value is None else str(value))
    console(shown).print(table)


def _analyzed(formula: Formula, file: str) -> Structure:
    """The structure of ``formula``; a formula that is no 2-CNF names ``file`` and the clause.

    >>> from twosat_formal.core.formula import Formula
    >>> _analyzed(Formula([[1, 2, 3]]), "f.cnf")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.NotTwoCNFError: f.cnf: structure analysis needs a 2-CNF, but \
clause 1 has 3 literals
    """
    from twosat_formal.errors import NotTwoCNFError
    from twosat_formal.solve.analysis import analyze

    try:
        return analyze(formula)
    except NotTwoCNFError as exc:
        name = "<stdin>" if file == "-" else file
        raise NotTwoCNFError(f"{name}: {exc}", clause_index=exc.clause_index) from None


def _is_stdout(path: Path) -> bool:
    """Whether ``path`` is standard output: ``-``, ``/dev/stdout``, ``/dev/fd/1``."""
    if os.fspath(path) == "-":
        return True
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False
