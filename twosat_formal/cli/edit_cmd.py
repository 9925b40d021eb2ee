"""``twosat-formal edit``: solver-verified symbolic edits of a dataset or a formula file.

``edit INPUT --mode cumulative|individual [--keep preserving|changing|both]
[--max-edits K] [--seed S] [--op NAME]... [--premise-edits] [--out FILE.jsonl]`` writes
a dataset (JSON Lines): each input instance (a formula file becomes one root instance),
then its edited instances, each with its new label, certificate, ``base_id`` and edit
transforms. The operator edits are used by default; the premise edits (``drop``,
``insert``) only with ``--premise-edits`` or when named with ``--op``. A summary line
goes to stderr.
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import (
    RunnerOptions,
    input_argument,
    option_groups,
    out_option,
    seed_option,
)
from twosat_formal.cli.progress import write_with_progress
from twosat_formal.make.edits import EDITS
from twosat_formal.make.edits.operators import PREMISE, category_of, default_operators

__all__ = ["EditChoice", "edit"]


class Mode(StrEnum):
    """The edit modes."""

    cumulative = "cumulative"
    individual = "individual"


class Keep(StrEnum):
    """The classes of edits to keep."""

    preserving = "preserving"
    changing = "changing"
    both = "both"


class Order(StrEnum):
    """The order a cumulative chain scans the clauses in."""

    forward = "forward"
    shuffled = "shuffled"


OpsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--op",
        help="Edit to use (repeatable; default: the operator edits "
        f"{', '.join(default_operators())}; all: {', '.join(EDITS.names())}).",
        show_default=False,
    ),
]
PremiseEditsOption = Annotated[
    bool,
    typer.Option(
        "--premise-edits/--no-premise-edits",
        help="Also use the premise edits drop and insert, which take a clause out or add "
        "one rather than edit an operator (reported apart from operator edits).",
    ),
]


@dataclasses.dataclass(frozen=True)
class EditChoice:
    """The edits ``edit`` uses: --op and --premise-edits (an option group, see
    :func:`~twosat_formal.cli.options.option_groups`).

    Examples
    --------
    >>> EditChoice(ops=["converse"]).operators()
    ['converse']
    >>> EditChoice(premise_edits=True).operators()[-2:]
    ['drop', 'insert']
    >>> EditChoice(ops=["converse"], premise_edits=True).operators()
    ['converse', 'drop', 'insert']
    """

    ops: OpsOption = None
    premise_edits: PremiseEditsOption = False

    def operators(self) -> list[str]:
        """The edits named by --op (the operator edits by default), then, with
        --premise-edits, the premise edits not named already."""
        chosen = list(self.ops) if self.ops else list(default_operators())
        if self.premise_edits:
            premise = [n for n in default_operators(premise=True) if category_of(n) == PREMISE]
            chosen += [name for name in premise if name not in chosen]
        return chosen


@app.command("edit")
@option_groups
def edit(
    input_path: Annotated[
        str,
        input_argument(
            'Dataset of instances (JSON Lines) or formula file (DIMACS or DSL); "-" is stdin.'
        ),
    ],
    mode: Annotated[
        Mode,
        typer.Option(
            "--mode",
            help="cumulative: up to K label-preserving edits in a chain, one level per edit; "
            "individual: single edits kept apart by class.",
            show_default=False,
        ),
    ],
    keep: Annotated[
        Keep,
        typer.Option(
            "--keep", help="Classes of edits to keep (cumulative edits are all preserving)."
        ),
    ] = Keep.both,
    max_edits: Annotated[
        int,
        typer.Option(
            "--max-edits",
            "-k",
            min=1,
            help="Cumulative: the deepest level K. Individual: edits kept per class and instance.",
        ),
    ] = 3,
    seed: Annotated[int, seed_option("Seed of the edits.")] = 0,
    edits: EditChoice = EditChoice(),
    order: Annotated[
        Order,
        typer.Option("--order", help="Cumulative: scan the clauses in formula order or shuffled."),
    ] = Order.forward,
    keep_base: Annotated[
        bool,
        typer.Option(
            "--keep-base/--no-base",
            help="Also write the input instances, which the metrics use as baselines.",
        ),
    ] = True,
    out: Annotated[Path | None, out_option("Write the dataset here.", "stdout")] = None,
    running: RunnerOptions = RunnerOptions(),
) -> None:
    """Make solver-verified symbolic edits, label-preserving or label-changing."""
    from twosat_formal.make.edits import EditRun, edit_lines

    run = EditRun(mode.value, max_edits)
    with running.open() as runner:
        lines = edit_lines(
            input_path,
            run,
            keep=keep.value,
            seed=seed,
            operators=edits.operators(),
            order=order.value,
            keep_base=keep_base,
            executor=runner,
        )
        written = write_with_progress(lines, out, None, "editing", enabled=running.progress)
    where = f" to {out}" if out is not None else ""
    err_console.print(f"wrote {written} records{where}: {run.summary()}", markup=False)
