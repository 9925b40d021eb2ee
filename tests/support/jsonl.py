"""JSON Lines in tests: writing inputs (a string line as it is) and reading outputs."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["read_jsonl", "write_jsonl"]


def write_jsonl(path: Path, records: Iterable[Any]) -> Path:
    """Write ``records`` to ``path``, one JSON value a line (a ``str`` verbatim); ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_jsonl(Path(tmp) / "d.jsonl", [{"a": 1}, "not json"])
    ...     path.read_text(encoding="utf-8")
    '{"a": 1}\\nnot json\\n'
    """
    lines = (r if isinstance(r, str) else json.dumps(r) for r in records)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[Any]:
    """The JSON value of each line of ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     read_jsonl(write_jsonl(Path(tmp) / "d.jsonl", [{"a": 1}, [2]]))
    [{'a': 1}, [2]]
    """
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
