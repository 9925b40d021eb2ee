"""The text and JSON catalogue of a registry, printed by ``families`` and ``operators``.

Each entry prints as its name and a bracketed note, its one-line summary, then one
aligned line per parameter; with ``--json``, the list of the entries' ``to_json()``.

Examples
--------
>>> from types import SimpleNamespace
>>> entry = SimpleNamespace(summary="Swap two clauses.", to_json=lambda: {"name": "swap"})
>>> print_catalogue([("swap", entry)], False, lambda e: "equivalent",
...                 lambda e: [("i", "int; default 0"), ("seed", "int; default 1")])
swap  [equivalent]
  Swap two clauses.
    i     int; default 0
    seed  int; default 1
<BLANKLINE>
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from twosat_formal.cli.app import out_console

__all__ = ["default_text", "print_catalogue"]


def default_text(value: object, missing: str) -> str:
    """A parameter's default as JSON text, ``missing`` for ``None``.

    >>> default_text([1, 2], "none"), default_text(None, "derived")
    ('[1, 2]', 'derived')
    """
    return missing if value is None else json.dumps(value)


def print_catalogue(
    entries: Iterable[tuple[str, Any]],
    as_json: bool,
    note: Callable[[Any], str],
    params: Callable[[Any], Sequence[tuple[str, str]]],
) -> None:
    """Print ``(name, entry)`` pairs: ``note(entry)`` in brackets, ``params(entry)`` rows."""
    entries = list(entries)
    if as_json:
        data = [entry.to_json() for _, entry in entries]
        out_console.print(json.dumps(data, indent=2), markup=False)
        return
    for name, entry in entries:
        out_console.print(f"{name}  [{note(entry)}]", markup=False)
        out_console.print(f"  {entry.summary}", markup=False)
        rows = params(entry)
        width = max((len(key) for key, _ in rows), default=0)
        for key, text in rows:
            out_console.print(f"    {key:<{width}}  {text}", markup=False)
        out_console.print("", markup=False)
