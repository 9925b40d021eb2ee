"""What commands print on stdout: one JSON object, or lines of plain text (never markup).

Examples
--------
>>> print_json({"b": 1, "a": [2]})
{"a": [2], "b": 1}
>>> print_lines(["accuracy   [50.0%]", "store      runs.sqlite"])
accuracy   [50.0%]
store      runs.sqlite
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from twosat_formal.cli.app import out_console

__all__ = ["print_json", "print_lines"]


def print_json(value: Any) -> None:
    """Print ``value`` as one line of JSON, its keys sorted."""
    out_console.print(json.dumps(value, sort_keys=True), markup=False)


def print_lines(lines: Iterable[str]) -> None:
    """Print each line as it is (``[`` and ``]`` are text, not markup)."""
    for line in lines:
        out_console.print(line, markup=False)
