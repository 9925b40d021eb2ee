"""``twosat-formal pairs INPUT --out FILE [--seed N]``: minimal SAT/UNSAT twins.

Writes a dataset (JSON Lines): each input instance (its root first when it is derived),
then its twin: the same formula with one clause changed and the opposite label, the
change read off the contradiction cycle (:mod:`twosat_formal.evaluate.diagnostics.twins`). A twin
record carries ``twin_of`` and ``change``. A twin in the input is carried as it is, and
each id is written once. Instances without a twin are kept and named on stderr with the
reason; a summary line follows.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import ProgressOption, input_argument, out_option, seed_option
from twosat_formal.cli.progress import progress_callback
from twosat_formal.evaluate.diagnostics.twins import twins
from twosat_formal.io.instance import Instance, read_instances, write_instances

__all__ = ["pairs"]


@app.command("pairs")
def pairs(
    input_path: Annotated[
        str,
        input_argument('Dataset of instances (JSON Lines); "-" is stdin.'),
    ],
    out: Annotated[Path | None, out_option("Write the dataset here.", "stdout")] = None,
    seed: Annotated[int, seed_option("Picks among equally good one-clause changes.")] = 0,
    progress: ProgressOption = True,
) -> None:
    """Make a minimal twin of each instance: one clause changed, the opposite label."""
    sources: list[Instance] = list(read_instances(input_path))
    with progress_callback("making twins", enabled=progress) as advance:
        run = twins(sources, seed=seed, progress=advance)
    if out is None:
        write_instances(run.records, sys.stdout)
        sys.stdout.flush()
    else:
        write_instances(run.records, out)
    for source_id, reason in run.skipped:
        err_console.print(f"no twin for {source_id}: {reason}", markup=False)
    where = f" to {out}" if out is not None else ""
    err_console.print(f"wrote {len(run.records)} records{where}: {run.summary()}", markup=False)
