"""``twosat-formal version``: the version and the solver versions this install uses."""

from __future__ import annotations

import json

from twosat_formal.cli.app import app, out_console
from twosat_formal.cli.options import JsonOption
from twosat_formal.provenance import tool_versions


@app.command()
def version(as_json: JsonOption = False) -> None:
    """Print the tool version and the versions of the solvers it uses."""
    info = tool_versions()
    if as_json:
        out_console.print(json.dumps(info, sort_keys=True), markup=False)
    else:
        for key, value in info.items():
            out_console.print(f"{key} {value}", markup=False)
