"""``twosat-formal families`` and ``twosat-formal generate``: the generator families.

``generate FAMILY [--clauses N] [--set KEY=VALUE]... [--count K] [--seed S] [--out F]``
writes ``K`` labelled instances as JSON Lines (stdout unless ``--out``); instance ``i``
is item ``i`` of ``Dataset(config, seed=S, size=K)``. ``generate --grid table1`` writes
the Table 1 grid; ``generate FAMILY --grid paper-7`` sweeps the family's knobs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from twosat_formal.cli.app import app, err_console, out_console
from twosat_formal.cli.options import ProgressOption
from twosat_formal.errors import ConfigError

if TYPE_CHECKING:  # the library is imported when a command runs, not for --help
    from twosat_formal.instance import Instance

__all__ = ["families", "generate"]


@app.command("families")
def families(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the families and their parameters as JSON.")
    ] = False,
) -> None:
    """List the generator families with their knobs, ranges and defaults."""
    from twosat_formal.generators import FAMILIES

    if as_json:
        data = [family.to_json() for _, family in FAMILIES.items()]
        out_console.print(json.dumps(data, indent=2), markup=False)
        return
    for name, family in FAMILIES.items():
        out_console.print(f"{name}  [{family.label}; {family.section}]", markup=False)
        out_console.print(f"  {family.summary}", markup=False)
        width = max(len(p.name) for p in family.params)
        for p in family.params:
            default = "derived" if p.default is None else json.dumps(p.default)
            line = f"    {p.name:<{width}}  {p.valid()}; default {default}. {p.meaning}"
            out_console.print(line, markup=False)
        out_console.print("", markup=False)


@app.command("generate")
def generate(
    family: Annotated[
        str | None,
        typer.Argument(help="Family to draw from (see `twosat-formal families`)."),
    ] = None,
    clauses: Annotated[
        int | None,
        typer.Option("--clauses", min=1, help="Target number of clauses (met within ±1)."),
    ] = None,
    settings: Annotated[
        list[str] | None,
        typer.Option("--set", help="Parameter KEY=VALUE (repeatable), e.g. --set split=0.2."),
    ] = None,
    count: Annotated[
        int | None,
        typer.Option(
            "--count", min=1, help="Instances to draw (per grid cell with --grid; default 1/10)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the dataset.")] = 0,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write JSON Lines to this file instead of stdout."),
    ] = None,
    grid: Annotated[
        str | None,
        typer.Option(
            "--grid", help="Named grid: table1, or a knob sweep paper-3 / paper-7 of FAMILY."
        ),
    ] = None,
    progress: ProgressOption = True,
) -> None:
    """Draw labelled instances of a family (or a named grid) as JSON Lines."""
    from twosat_formal.generators import FAMILIES, Dataset, DatasetConfig
    from twosat_formal.generators.grids import grid_cells, grid_instances
    from twosat_formal.generators.knobs import parse_settings
    from twosat_formal.instance import write_instances

    params = parse_settings(settings or [])
    if grid is not None:
        cells = grid_cells(grid, family=family, clauses=clauses, count=count or 10, extra=params)
        total = sum(cell.count for cell in cells)
        instances = grid_instances(cells, seed)
    else:
        if family is None:
            raise ConfigError(
                "name a family (or a --grid)",
                parameter="family",
                valid="one of " + ", ".join(FAMILIES.names()),
            )
        data = Dataset(
            DatasetConfig(family, clauses=clauses, params=params), seed=seed, size=count or 1
        )
        total = len(data)
        instances = iter(data)
    shown = _with_progress(instances, total) if progress and total > 1 else instances
    if out is None:
        write_instances(shown, sys.stdout)
        sys.stdout.flush()
    else:
        written = write_instances(shown, out)
        err_console.print(f"wrote {written} instances to {out}", markup=False)


def _with_progress(instances: Iterator[Instance], total: int) -> Iterator[Instance]:
    columns = (
        TextColumn("generating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("generate", total=total)
        for instance in instances:
            yield instance
            bar.advance(task)
