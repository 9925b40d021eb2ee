"""``twosat-formal version``: the version and the solver versions this install uses."""

from __future__ import annotations

from twosat_formal.cli.app import app
from twosat_formal.cli.options import JsonOption
from twosat_formal.cli.output import print_json, print_lines
from twosat_formal.core.provenance import tool_versions


@app.command()
def version(as_json: JsonOption = False) -> None:
    """Print the tool version and the versions of the solvers it uses."""
    info = tool_versions()
    if as_json:
        print_json(info)
    else:
        print_lines(f"{key} {value}" for key, value in info.items())
