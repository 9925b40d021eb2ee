"""``twosat-formal trace STORE [--out FILE]``: check the claims of every stored answer.

Writes one JSON Lines row per stored answer to a template prompt: its ids, model,
label, failure kind, the claims read from its reasoning (text, form, kind, literals,
character span), the counts per kind, and coverage (see
:mod:`twosat_formal.diagnostics.trace`). A summary line goes to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import ProgressOption, out_option
from twosat_formal.cli.progress import progress_callback

__all__ = ["trace"]


@app.command("trace")
def trace(
    store: Annotated[
        Path,
        typer.Argument(
            metavar="STORE", help="Run store (SQLite) written by eval.", show_default=False
        ),
    ],
    out: Annotated[Path | None, out_option("Write the rows here.", "stdout")] = None,
    progress: ProgressOption = True,
) -> None:
    """Check each claim of every stored answer's reasoning against the formula."""
    from twosat_formal.diagnostics.trace import trace_store

    with progress_callback("tracing", enabled=progress) as advance:
        written = trace_store(store, out if out is not None else sys.stdout, progress=advance)
    if out is None:
        sys.stdout.flush()
    where = f" to {out}" if out is not None else ""
    err_console.print(f"wrote {written} trace rows{where}", markup=False)
