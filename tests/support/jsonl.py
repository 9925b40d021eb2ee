"""Writing JSON Lines inputs for tests: one record per line, a string as it is."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["write_jsonl"]


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
