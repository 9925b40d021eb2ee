"""Running the command line in-process, for the tests of every command."""

from __future__ import annotations

import pytest

from twosat_formal.cli import main

__all__ = ["cli", "run"]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return exit code, stdout and stderr."""
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the CLI, which must exit through ``SystemExit``; exit code, stdout, stderr."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    code = info.value.code
    return (0 if code is None else code if isinstance(code, int) else 1), out, err
