"""Command-line interface: ``twosat-formal COMMAND``. Run with ``--help`` for the list.

Commands load lazily: :data:`~twosat_formal.cli.commands.COMMANDS` names each
command's module, and only the module of the command that runs is imported. To add a
command, see :mod:`twosat_formal.cli.commands`.
"""

from __future__ import annotations

from twosat_formal.cli.app import app, main

__all__ = ["app", "main"]
