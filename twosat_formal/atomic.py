"""Atomic output files: every command writes beside the target and renames on success.

A command that fails half-way (a bad line 3 of its input, a missing model, Ctrl-C)
leaves no partial output file and keeps an existing one intact: the output goes to a
temporary file in the target's folder, which replaces the target only when the
writing finished.

Examples
--------
>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
>>> with atomic_output(target) as stream:
...     _ = stream.write("one\\n")
>>> target.read_text()
'one\\n'
>>> try:
...     with atomic_output(target) as stream:
...         _ = stream.write("half")
...         raise ValueError("input broken at line 3")
... except ValueError:
...     pass
>>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
('one\\n', ['out.jsonl'])
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["atomic_output", "atomic_path"]


@contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``target`` that replaces it when the block succeeds.

    For writers that want a path (Parquet, SQLite exports); the temporary file is
    removed when the block raises.
    """
    final = Path(target)
    handle, name = tempfile.mkstemp(
        prefix=f".{final.name}.", suffix=".partial", dir=final.parent or "."
    )
    os.close(handle)
    partial = Path(name)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(partial, 0o666 & ~mask)  # the permissions a plain open() would give
    try:
        yield partial
        os.replace(partial, final)
    finally:
        if partial.exists():
            partial.unlink()


@contextmanager
def atomic_output(
    target: str | os.PathLike[str], *, mode: str = "w", newline: str | None = "\n"
) -> Iterator[IO[str]]:
    """A text stream whose content becomes ``target`` only when the block succeeds."""
    with (
        atomic_path(target) as partial,
        open(partial, mode, encoding="utf-8", newline=newline) as stream,
    ):
        yield stream
