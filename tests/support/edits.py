"""Reading the edit command's output in the edit tests (no tests here)."""

from __future__ import annotations

import json

from twosat_formal.io.instance import Instance

__all__ = ["records"]


def records(text: str) -> list[Instance]:
    """The instances of JSON Lines ``text`` (blank lines skipped)."""
    return [Instance.from_record(json.loads(line)) for line in text.splitlines() if line.strip()]
