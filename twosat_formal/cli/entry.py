"""The ``twosat-formal`` console script (and ``python cli.py``).

:func:`main` is a thin call into :func:`twosat_formal.cli.app.main`, the Typer
application; nothing in :mod:`twosat_formal.cli` imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI with ``argv`` (default: the process's arguments); exits with its code."""
    from twosat_formal.cli.app import main as run

    run(argv)
