"""Command-line interface: ``twosat-formal COMMAND``. Run with ``--help`` for the list.

Each ``*_cmd`` module registers its commands on the shared Typer :data:`app`.
"""

from __future__ import annotations

import twosat_formal.cli.eval_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import generate_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import certify_cmd, perturb_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import list_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import solve_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import story_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import edit_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import report_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import parse_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli import verbalize_cmd  # noqa: F401  (registers commands)
from twosat_formal.cli.app import app, main

__all__ = ["app", "main"]
