"""``twosat-formal families`` and ``twosat-formal generate``: the generator families.

``generate FAMILY [--clauses N] [--set KEY=VALUE]... [--count K] [--seed S] [--out F]``
writes ``K`` labelled instances as JSON Lines (stdout unless ``--out``); instance ``i``
is item ``i`` of ``Dataset(config, seed=S, size=K)``. ``generate --grid table1`` writes
the Table 1 grid; ``generate FAMILY --grid paper-7`` sweeps the family's knobs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import (
    RunnerOptions,
    ShardOption,
    json_option,
    option_groups,
    out_option,
    seed_option,
)
from twosat_formal.cli.output import default_text, print_catalogue
from twosat_formal.cli.progress import write_with_progress
from twosat_formal.errors import ConfigError

if TYPE_CHECKING:
    from twosat_formal.make.generators import Dataset

__all__ = ["families", "generate"]


@app.command("families")
def families(
    as_json: Annotated[
        bool, json_option("Print the families and their parameters as JSON.")
    ] = False,
) -> None:
    """List the generator families with their knobs, ranges and defaults."""
    from twosat_formal.make.generators import FAMILIES

    print_catalogue(
        FAMILIES.items(),
        as_json,
        lambda family: f"{family.label}; {family.section}",
        lambda family: [
            (p.name, f"{p.valid()}; default {default_text(p.default, 'derived')}. {p.meaning}")
            for p in family.params
        ],
    )


@app.command("generate")
@option_groups
def generate(
    family: Annotated[
        str | None,
        typer.Argument(help="Family to draw from (see `twosat-formal families`)."),
    ] = None,
    clauses: Annotated[
        int | None,
        typer.Option(
            "--clauses",
            min=1,
            help="Target number of clauses (met within ±1).",
            show_default="the family's",
        ),
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
    seed: Annotated[int, seed_option("Seed of the dataset.")] = 0,
    out: Annotated[Path | None, out_option("Write JSON Lines to this file.", "stdout")] = None,
    grid: Annotated[
        str | None,
        typer.Option(
            "--grid",
            help="Named grid: table1, or a knob sweep paper-3 / paper-7 of FAMILY.",
            show_default="none: one FAMILY",
        ),
    ] = None,
    running: RunnerOptions = RunnerOptions(),
    shard: ShardOption = None,
) -> None:
    """Draw labelled instances of a family (or a named grid) as JSON Lines."""
    from twosat_formal._util.atomic import refuse_aliases
    from twosat_formal._util.executors import parse_shard
    from twosat_formal.make.generators.knobs import parse_settings
    from twosat_formal.make.generators.lines import dataset_lines, shard_size

    params = parse_settings(settings or [])
    if isinstance(params.get("base_file"), str):  # read by the generator: an input too
        refuse_aliases({"out": out}, {"base_file": [str(params["base_file"])]})
    part = parse_shard(shard) if shard is not None else None
    datasets = _datasets(family, clauses, params, count, seed, grid)
    total = shard_size(datasets, part)
    with running.open() as runner:
        lines = dataset_lines(datasets, executor=runner, shard=part)
        written = write_with_progress(lines, out, total, "generating", enabled=running.progress)
    if out is not None:
        err_console.print(f"wrote {written} instances to {out}", markup=False)
    if isinstance(params.get("base_file"), str):
        _note_base_file(str(params["base_file"]), out)


def _datasets(
    family: str | None,
    clauses: int | None,
    params: dict[str, str],
    count: int | None,
    seed: int,
    grid: str | None,
) -> list[Dataset]:
    """The datasets to draw: one per cell of ``grid``, else one of ``family``."""
    from twosat_formal.make.generators import FAMILIES, Dataset, DatasetConfig
    from twosat_formal.make.generators.grids import grid_cells

    if grid is not None:
        cells = grid_cells(grid, family=family, clauses=clauses, count=count or 10, extra=params)
        return [cell.dataset(seed) for cell in cells]
    if family is None:
        raise ConfigError(
            "name a family (or a --grid)",
            parameter="family",
            valid="one of " + ", ".join(FAMILIES.names()),
        )
    config = DatasetConfig(family, clauses=clauses, params=params)
    return [Dataset(config, seed=seed, size=count or 1)]


def _note_base_file(name: str, out: Path | None) -> None:
    """Warn when ``certify`` will not find the base file: it reads it relative to the
    dataset's folder only (:func:`~twosat_formal.make.generators.symmetry.base_file_path`)."""
    import os

    from twosat_formal.make.generators.symmetry import base_file_path

    folder = out.parent if out is not None else Path.cwd()
    try:
        found = base_file_path(name, folder)
    except ConfigError:
        found = None
    if found is None or found != Path(os.path.realpath(name)):
        err_console.print(
            f"note: certify reads base_file {name!r} relative to the dataset's folder "
            f"({folder}), where it is not this file; generate from that folder with a "
            "base file inside it to get a dataset that certifies",
            markup=False,
        )
