"""Command-line interface: ``twosat-formal COMMAND``. Run with ``--help`` for the list.

Each ``*_cmd`` module registers its commands on the shared Typer :data:`app`.
"""

from __future__ import annotations

from twosat_formal.cli import (  # noqa: F401  (each module registers its commands)
    certify_cmd,
    edit_cmd,
    eval_cmd,
    generate_cmd,
    list_cmd,
    parse_cmd,
    perturb_cmd,
    report_cmd,
    solve_cmd,
    story_cmd,
    verbalize_cmd,
)
from twosat_formal.cli.app import app, main

__all__ = ["app", "main"]
