"""``twosat-formal store merge A.sqlite B.sqlite ... --out C.sqlite``: one store from several.

Shards of an evaluation (``eval --shard I/N``), or runs made on different machines,
each write their own run store; ``store merge`` puts them together, refusing two
different results for one request key and keeping every run's metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from twosat_formal.cli.app import err_console, sub_app
from twosat_formal.cli.options import input_argument, out_option

__all__ = ["merge_command", "store_app"]

store_app = sub_app("store", "Run store tools: merge the stores of shards or machines into one.")


@store_app.command("merge")
def merge_command(
    stores: Annotated[
        list[Path],
        input_argument("Run stores to merge.", "STORE.sqlite..."),
    ],
    out: Annotated[Path, out_option("The merged store (a new file).", False)],
) -> None:
    """Merge run stores into a new one; refuse conflicting results for one request key."""
    from twosat_formal.evaluate.store_merge import merge_stores

    report = merge_stores(stores, out)
    err_console.print(
        f"merged {report.sources} stores into {out}: {report.results} results "
        f"({report.duplicates} identical duplicates), {report.prompts} prompts, "
        f"{report.instances} instances, {report.runs} runs",
        markup=False,
    )
