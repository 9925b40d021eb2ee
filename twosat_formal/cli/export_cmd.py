"""``twosat-formal export``: a certified dataset for Hugging Face, SAT solvers, inspect, lm-eval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import app, err_console, out_console
from twosat_formal.cli.options import input_argument, out_option
from twosat_formal.core.model import DEFAULT_MAX_TOKENS
from twosat_formal.integrations.exports import DEFAULT_LICENSE, DEFAULT_MAX_GEN_TOKS

__all__ = ["export_command"]

_FORMATS = "hf, dimacs, inspect, lm-eval"


@app.command("export")
def export_command(
    inputs: Annotated[
        list[Path],
        input_argument(
            "Dataset and prompt (or story) files together, as for `certify`.", "INPUT..."
        ),
    ],
    to: Annotated[
        str,
        typer.Option("--to", metavar="FORMAT", help=f"One of {_FORMATS}.", show_default=False),
    ],
    out: Annotated[
        Path, out_option("The folder to write (missing or empty).", False, metavar="DIR")
    ],
    certify: Annotated[
        bool,
        typer.Option(
            "--certify/--no-certify",
            help="Run certify's checks first and refuse the inputs if any fails.",
        ),
    ] = True,
    name: Annotated[
        str, typer.Option("--name", help="Task and dataset name (inspect, lm-eval, the card).")
    ] = "twosat",
    max_tokens: Annotated[
        int,
        typer.Option("--max-tokens", min=1, help="Generation budget of the inspect task."),
    ] = DEFAULT_MAX_TOKENS,
    max_gen_toks: Annotated[
        int,
        typer.Option(
            "--max-gen-toks",
            min=1,
            help="Generation budget of the lm-eval task (must be below the model's context).",
        ),
    ] = DEFAULT_MAX_GEN_TOKS,
    license: Annotated[
        str,
        typer.Option(
            "--license",
            help="License of the hf dataset card (a Hub identifier: cc-by-4.0, mit...).",
        ),
    ] = DEFAULT_LICENSE,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Worker processes for certify.")] = 1,
) -> None:
    """Export a certified dataset for Hugging Face, SAT solvers, inspect or lm-eval."""
    from twosat_formal.integrations.exports import ExportOptions, export_dataset

    options = ExportOptions(
        name=name, max_tokens=max_tokens, max_gen_toks=max_gen_toks, license=license
    )
    files = export_dataset(inputs, to, out, certify=certify, options=options, jobs=jobs)
    for path in files:
        out_console.print(str(path), markup=False)
    err_console.print(f"{len(files)} files written to {out}", markup=False)
