"""The ``twosat-formal`` console script: a plain ``solve`` line runs without Typer.

:func:`main` is what the installed ``twosat-formal`` command (and ``python cli.py``)
runs. A plain ``solve`` command line (:func:`plain_solve`: one FILE and the options of
``solve``, each at most once, every value a separate word or ``--option=value``) is
solved and printed here, with the standard library, NumPy and the solver alone: Typer,
Click, Rich and pydantic are not imported (about 0.05 - 0.1 s of a one-off solve).
Anything else (``--help``, another command, an unknown or repeated option, a value
Typer would refuse, ``--``) goes to :func:`twosat_formal.cli.app.main`, the Typer
application, as does every error a plain solve raises, so messages and exit codes are
Typer's (``tests/test_cli_solve_plain.py`` compares both readings byte for byte).

Examples
--------
>>> plain_line(["solve", "f.cnf", "--json"])["as_json"]
True
>>> plain_line(["solve", "f.cnf", "--help"]) is None, plain_line(["parse", "f.cnf"]) is None
(True, True)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # NumPy, the solver and Rich are imported when a solve runs
    from rich.console import Console

    from twosat_formal.formula import Formula
    from twosat_formal.solve import SolveResult

__all__ = [
    "SAT_COMPETITION_CODES",
    "SHOWN",
    "FormatChoice",
    "console",
    "describe",
    "echo",
    "listing",
    "main",
    "plain_line",
    "plain_solve",
    "run_plain",
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


#: ``solve``'s options, as :func:`plain_solve` reads them: flag -> parameter name.
FLAGS = {"--json": "as_json", "--exit-codes": "exit_codes"}
#: ``solve``'s options that take a value: option -> parameter name.
VALUED = {"--backend": "backend", "--format": "format"}


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI: a plain ``solve`` line here, anything else through Typer.

    Unless the environment says otherwise, NumPy's and SciPy's OpenBLAS run one
    thread (see :func:`twosat_formal.cli.app.main`). Exits with the command's code.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = list(argv) if argv is not None else sys.argv[1:]
    plain = plain_line(args)
    if plain is not None:
        try:
            code = run_plain(**plain)
        except BaseException as exc:  # Typer's handling: the same message and exit code
            from twosat_formal.cli.app import finish_plain

            finish_plain(plain, exc)
        sys.exit(0 if code is None else code)
    from twosat_formal.cli.app import main as typer_main

    typer_main(argv)


def plain_line(args: list[str]) -> dict[str, Any] | None:
    """``solve``'s arguments when ``args`` (the words after the program) are a plain
    ``solve`` line, else None. Shell completion (its environment variable set) always
    goes through Typer.
    """
    if args[:1] != ["solve"] or os.environ.get("_TWOSAT_FORMAL_COMPLETE"):
        return None
    return plain_solve(args[1:])


def plain_solve(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments Typer would pass to ``solve``, for plain ``args``.

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
        if word in FLAGS:
            name, value = FLAGS[word], ""  # a flag given: True below
        elif option in VALUED:
            name = VALUED[option]
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
        given[name] = True if name in FLAGS.values() else value
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


def solve_file(
    file: str, backend: str = "scc", format: FormatChoice | None = None
) -> tuple[Formula, SolveResult]:
    """Read FILE and solve it with ``backend``, the certificate checked: ``solve``'s work.

    An unknown backend fails before the file is read.
    """
    from twosat_formal.io import read_formula
    from twosat_formal.solve import BACKENDS, solve

    BACKENDS.get(backend)
    formula = read_formula(file, format=format.value if format else None)
    return formula, solve(formula, backend, check=True)


def run_plain(
    file: str,
    backend: str = "scc",
    as_json: bool = False,
    format: FormatChoice | None = None,
    exit_codes: bool = False,
) -> int | None:
    """``twosat-formal solve`` without Typer: print the answer, return the exit code asked for.

    The same output as the Typer command :func:`twosat_formal.cli.solve_cmd.solve_command`;
    None when ``exit_codes`` is off (exit code 0).
    """
    formula, result = solve_file(file, backend, format)
    if as_json:
        echo(result.to_json_text(formula))
    else:
        for line in describe(result, formula):
            console("out_console").print(line, markup=False)
    return SAT_COMPETITION_CODES[result.status] if exit_codes else None


def echo(text: str) -> None:
    """Print ``text`` and a newline on standard output and flush, as ``typer.echo`` does.

    ASCII text without escape characters (every JSON answer of ``solve``) is written
    as it is, which is what Typer's ``echo`` does with it on any stream; other text
    goes through ``typer.echo`` itself.
    """
    if sys.stdout is None or not text.isascii() or "\x1b" in text:
        import typer

        typer.echo(text)
        return
    sys.stdout.write(text + "\n")  # one write, as typer.echo makes it
    sys.stdout.flush()


#: The consoles for results (stdout) and for messages, progress and errors (stderr),
#: made on first use by :func:`console`.
_CONSOLES: dict[str, Console] = {}


def console(name: str) -> Console:
    """``"out_console"`` or ``"err_console"``, made (and Rich imported) on first use."""
    if name not in _CONSOLES:
        from rich.console import Console

        _CONSOLES[name] = Console(stderr=name == "err_console", highlight=False, soft_wrap=True)
    return _CONSOLES[name]


def listing(words: list[str], separator: str = " ", total: int | None = None) -> str:
    """The first :data:`SHOWN` of ``total`` words (default: all of ``words``)."""
    total = len(words) if total is None else total
    if not total:
        return "(none)"
    shown = separator.join(words[:SHOWN])
    more = total - SHOWN
    return shown + (f" ... ({more} more; --json prints all)" if more > 0 else "")


def describe(result: SolveResult, formula: Formula) -> list[str]:
    """The lines ``twosat-formal solve`` prints without ``--json``.

    >>> from twosat_formal.formula import Formula
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
