"""The Typer application and the entry point that turns user errors into exit code 2.

Command modules (``twosat_formal/cli/*_cmd.py``) register their commands on
:data:`app`; no logic lives in the CLI beyond argument handling and printing.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from twosat_formal.errors import TwoSatFormalError

__all__ = ["app", "err_console", "fail", "main", "out_console"]

#: Commands in pipeline order, as ``--help`` lists them.
COMMAND_ORDER = (
    "parse", "solve", "inspect",
    "families", "generate", "operators", "perturb", "edit",
    "templates", "verbalize", "backparse", "story-stats",
    "certify", "eval", "results",
    "experiments", "run-experiment", "report", "bench", "version",
)  # fmt: skip


class _PipelineOrderGroup(TyperGroup):
    """Lists commands in :data:`COMMAND_ORDER` rather than in import order."""

    def list_commands(self, ctx: Any) -> list[str]:
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(super().list_commands(ctx), key=lambda n: (rank.get(n, len(rank)), n))


app = typer.Typer(
    cls=_PipelineOrderGroup,
    name="twosat-formal",
    help="Certified diagnostic 2-SAT benchmarks for LLM reasoners.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _root() -> None:
    """Certified diagnostic 2-SAT benchmarks for LLM reasoners."""


#: Console for results (stdout) and for messages, progress and errors (stderr).
out_console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 2) -> None:
    """Print ``error: message`` on stderr and exit with ``code``."""
    err_console.print(f"error: {message}", markup=False)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI; user errors print one line on stderr and exit with code 2."""
    command = typer.main.get_command(app)
    try:
        result = command.main(
            args=list(argv) if argv is not None else None,
            prog_name="twosat-formal",
            standalone_mode=False,
        )
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("interrupted", markup=False)
        raise SystemExit(130) from None
    except typer.TyperException as exc:  # usage errors: typer prints them, exit code 2
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        else:
            err_console.print(f"error: {exc}", markup=False)
        raise SystemExit(getattr(exc, "exit_code", 2)) from None
    except TwoSatFormalError as exc:
        fail(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        fail(_describe_os_error(exc))
    sys.exit(result if isinstance(result, int) else 0)


def _describe_os_error(exc: BaseException) -> str:
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename}: is a directory, not a file"
    if isinstance(exc, FileNotFoundError):
        return f"{exc.filename}: no such file"
    if isinstance(exc, PermissionError):
        return f"{exc.filename}: permission denied"
    if isinstance(exc, UnicodeDecodeError):
        return f"input is not UTF-8 text (byte {exc.start})"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)
