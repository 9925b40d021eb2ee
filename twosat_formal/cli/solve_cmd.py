"""``twosat-formal solve FILE`` and ``twosat-formal inspect FILE``.

``solve`` prints the label with its checked certificate (a model, or a contradiction
cycle); ``--json`` prints one object, the one :meth:`SolveResult.to_json` gives
(encoded in bulk by :meth:`SolveResult.to_json_text`).
``inspect`` prints the implication-graph structure of a 2-CNF (:func:`analyze`).

A plain ``solve`` command line (one FILE and the options below, each at most once,
every value a separate word or ``--option=value``) is read by :func:`plain_solve`
without Typer's parameter processing, which imports pydantic (about 0.15 s of a
one-off solve): the CLI's entry point calls :func:`solve_command` with the very
arguments Typer would pass. Anything else (``--help``, an unknown or repeated
option, a value Typer would refuse, ``--``) goes through Typer as every other
command does, which prints its usual messages.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from twosat_formal.cli.app import app, console
from twosat_formal.io import read_formula
from twosat_formal.solve import BACKENDS, solve

if TYPE_CHECKING:  # the solver stack is imported when a command runs, not for --help
    from rich.table import Table

    from twosat_formal.analysis import Structure
    from twosat_formal.formula import Formula
    from twosat_formal.solve import SolveResult

__all__ = ["SAT_COMPETITION_CODES", "inspect", "plain_solve", "solve_command"]

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


def _listing(words: list[str], separator: str = " ", total: int | None = None) -> str:
    """The first :data:`SHOWN` of ``total`` words (default: all of ``words``)."""
    total = len(words) if total is None else total
    if not total:
        return "(none)"
    shown = separator.join(words[:SHOWN])
    more = total - SHOWN
    return shown + (f" ... ({more} more; --json prints all)" if more > 0 else "")


def _describe(result: SolveResult, formula: Formula) -> list[str]:
    solver = f"backend {result.backend}"
    if result.general_cnf:
        solver += ", general CNF (not 2-CNF)"
    lines = [f"{result.status}  ({solver})"]
    if result.model is not None:  # only the literals shown are named
        head = [v if value else -v for v, value in enumerate(result.model[:SHOWN], 1)]
        lines.append("model: " + _listing(formula.literal_names(head), total=len(result.model)))
    if result.cycle is not None:
        steps = len(result.cycle)
        walk = formula.literal_names(result.cycle[:SHOWN])
        lines.append(f"contradiction cycle ({steps} steps): " + _listing(walk, " -> ", steps))
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
    BACKENDS.get(backend)  # an unknown name fails before the file is read
    formula = read_formula(file, format=format.value if format else None)
    result = solve(formula, backend, check=True)
    if as_json:
        typer.echo(result.to_json_text(formula))
    else:
        for line in _describe(result, formula):
            console("out_console").print(line, markup=False)
    if exit_codes:
        raise typer.Exit(SAT_COMPETITION_CODES[result.status])


#: ``solve``'s options, as :func:`plain_solve` reads them: flag -> parameter name.
_FLAGS = {"--json": "as_json", "--exit-codes": "exit_codes"}
#: ``solve``'s options that take a value: option -> parameter name.
_VALUED = {"--backend": "backend", "--format": "format"}


def plain_solve(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments Typer would pass to :func:`solve_command`, for plain ``args``.

    ``args`` are the words after ``solve``. A plain line has one FILE (a word not
    starting with ``-``, or ``-`` itself) and at most once each ``--json``,
    ``--exit-codes``, ``--backend NAME`` and ``--format dimacs|dsl`` (a value as the
    next word or after ``=``, not starting with ``-``), in any order. Anything else
    gives None: Typer reads that line, with its own help and error messages.

    Examples
    --------
    >>> plain_solve(["f.cnf", "--json", "--backend=z3"])
    {'file': 'f.cnf', 'backend': 'z3', 'as_json': True, 'format': None, 'exit_codes': False}
    >>> plain_solve(["f.cnf", "--help"]) is None, plain_solve(["--format", "cnf", "f"]) is None
    (True, True)
    """
    given: dict[str, Any] = {}
    words = iter(args)
    for word in words:
        if not _plain_word(word):
            return None
        option, equals, value = word.partition("=")
        if word in _FLAGS:
            name, value = _FLAGS[word], ""  # a flag given: True below
        elif option in _VALUED:
            name = _VALUED[option]
            if not equals:
                value = next(words, "-")  # "-": no value, so not plain
            if value.startswith("-") or not _plain_word(value):
                return None
        elif word == "-" or not word.startswith("-"):
            name, value = "file", word
        else:
            return None
        if name in given:
            return None
        given[name] = True if name in _FLAGS.values() else value
    if "file" not in given:
        return None
    fmt = given.get("format")
    if fmt is not None and fmt not in {choice.value for choice in FormatChoice}:
        return None
    return {
        "file": given["file"],
        "backend": given.get("backend", "scc"),
        "as_json": given.get("as_json", False),
        "format": None if fmt is None else FormatChoice(fmt),
        "exit_codes": given.get("exit_codes", False),
    }


def _plain_word(word: str) -> bool:
    """Whether ``word`` is text Typer passes on unchanged (no lone surrogates)."""
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
        table.add_row(f"{label} ({len(words)})", _listing(words))
    return table


@app.command("inspect")
def inspect(
    file: FileArgument,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the structure as one JSON object.")
    ] = False,
    format: FormatOption = None,
) -> None:
    """Print the implication-graph structure of a 2-CNF in FILE."""
    from twosat_formal.analysis import analyze

    formula = read_formula(file, format=format.value if format else None)
    structure = analyze(formula)
    if as_json:
        typer.echo(json.dumps(structure.to_json()))
        return
    console("out_console").print(_structure_table(structure))
