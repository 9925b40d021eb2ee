"""``twosat-formal parse FILE``: read a formula (DIMACS or DSL) and print it in either format."""

from __future__ import annotations

from enum import StrEnum

import typer

from twosat_formal.cli.app import app
from twosat_formal.cli.options import FormulaFormat
from twosat_formal.io import read_formula, write_dimacs, write_dsl

__all__ = ["InputFormat", "parse"]


class InputFormat(StrEnum):
    """Formats ``parse`` can read."""

    dimacs = "dimacs"
    dsl = "dsl"


@app.command()
def parse(
    file: str = typer.Argument(
        ..., help='Formula file, DIMACS or DSL ("-" reads standard input).', show_default=False
    ),
    to: FormulaFormat = typer.Option(
        FormulaFormat.dsl, "--to", help="Format to print: the DSL or DIMACS (with names)."
    ),
    format: InputFormat | None = typer.Option(
        None,
        "--format",
        help='Format of FILE; detected when omitted (a "p cnf" header means DIMACS).',
        show_default="detected",
    ),
) -> None:
    """Parse FILE and print the formula in canonical form (DSL or DIMACS)."""
    formula = read_formula(file, format=format.value if format else None)
    text = write_dsl(formula) if to is FormulaFormat.dsl else write_dimacs(formula)
    typer.echo(text, nl=False)
