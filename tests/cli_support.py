"""Running the command line in-process, for the tests of every command."""

from __future__ import annotations

import pytest

from twosat_formal.cli import main

__all__ = ["cli"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return exit code, stdout and stderr."""
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
