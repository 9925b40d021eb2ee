"""Running the command line in-process, and Python code in a fresh interpreter."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from twosat_formal.cli import main

__all__ = ["cli", "error_lines", "feed_stdin", "input_file", "python_stdout", "run", "run_ok"]


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


def run_ok(*argv: str) -> None:
    """Run the CLI, which must exit through ``SystemExit`` with code 0."""
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    assert info.value.code == 0


def feed_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes | str) -> None:
    """Make ``data`` (``str``: encoded as UTF-8) the standard input the CLI reads."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))


def error_lines(err: str) -> list[str]:
    """The lines of ``err`` that are not blank (a refusal is exactly one)."""
    return [line for line in err.splitlines() if line.strip()]


def input_file(tmp_path: Path, name: str, text: str) -> Path:
    """Write ``text`` (UTF-8) as the file ``name`` in ``tmp_path``, a command's input."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def python_stdout(
    code: str, *, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> str:
    """What ``python -c code`` prints in a new interpreter (``env``: its whole
    environment; default: this one's); a failing child fails the test."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        env=None if env is None else dict(env),
    )
    return done.stdout
