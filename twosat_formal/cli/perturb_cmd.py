"""``twosat-formal perturb`` and ``twosat-formal operators``: proven perturbations.

``perturb INPUT --op OP [--op OP]... [--set KEY=VALUE]... [--seed S] [--out FILE]``
applies a chain of operators, each proven with Z3. A formula file gives one line of
JSON with both formulas and the chain; a dataset gives a dataset whose derived records
carry ``base_id`` and ``transforms``, keep the label and have fresh ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import (
    RunnerOptions,
    input_argument,
    json_option,
    option_groups,
    out_option,
    seed_option,
)
from twosat_formal.cli.output import default_text, print_catalogue
from twosat_formal.cli.progress import write_with_progress
from twosat_formal.make.perturb import OPERATORS
from twosat_formal.make.perturb.chain import parse_steps
from twosat_formal.make.perturb.instances import perturb_lines

__all__ = ["operators", "perturb"]


@app.command("perturb")
@option_groups
def perturb(
    input_path: Annotated[
        str,
        input_argument('Formula file (DIMACS or DSL) or JSON Lines dataset ("-" reads stdin).'),
    ],
    ops: Annotated[
        list[str],
        typer.Option(
            "--op",
            help="Operator to apply (repeatable, applied in order; see `twosat-formal operators`).",
            show_default=False,
        ),
    ],
    settings: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Parameter KEY=VALUE for every operator that has KEY; OP.KEY=VALUE or "
            "N.KEY=VALUE (N: 1-based step) to target one (repeatable).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, seed_option("Seed of the chain.")] = 0,
    out: Annotated[Path | None, out_option("Write to this file.", "stdout")] = None,
    keep_base: Annotated[
        bool,
        typer.Option(
            "--keep-base/--no-base",
            help="Dataset input: also write the input records, so the output certifies alone.",
        ),
    ] = True,
    running: RunnerOptions = RunnerOptions(),
) -> None:
    """Apply a chain of proven perturbations to a formula file or a dataset."""

    steps = parse_steps(ops, settings or [])
    with running.open() as runner:
        lines = perturb_lines(input_path, steps, seed=seed, keep_base=keep_base, executor=runner)
        written = write_with_progress(lines, out, None, "perturbing", enabled=running.progress)
    where = "stdout" if out is None else str(out)
    err_console.print(f"wrote {written} records to {where}", markup=False)


@app.command("operators")
def operators(
    as_json: Annotated[
        bool, json_option("Print the operators and their parameters as JSON.")
    ] = False,
) -> None:
    """List the perturbation operators, the relation each proves, and their parameters."""
    print_catalogue(
        OPERATORS.items(),
        as_json,
        lambda op: op.relation,
        lambda op: [
            (p.name, f"{p.type_text}; default {default_text(p.default, 'none')}. {p.help}")
            for p in op.params
        ],
    )
