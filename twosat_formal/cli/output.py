"""What commands print on stdout: one JSON object, lines of plain text, or a catalogue.

Text is printed as it is, never as markup. A registry's catalogue (``families``,
``operators``) prints each entry as its name and a bracketed note, its one-line
summary, then one aligned line per parameter; with ``--json``, the list of the
entries' ``to_json()``. :func:`story_rates` writes the story validation rates beside
the paper's, as ``verbalize --story``, ``story-stats`` and ``report`` print them.

Examples
--------
>>> print_json({"b": 1, "a": [2]})
{"a": [2], "b": 1}
>>> print_lines(["accuracy   [50.0%]", "store      runs.sqlite"])
accuracy   [50.0%]
store      runs.sqlite
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

__all__ = ["default_text", "print_catalogue", "print_json", "print_lines", "story_rates"]


def print_json(value: Any) -> None:
    """Print ``value`` as one line of JSON, its keys sorted."""
    out_console.print(json.dumps(value, sort_keys=True), markup=False)


def print_lines(lines: Iterable[str]) -> None:
    """Print each line as it is (``[`` and ``]`` are text, not markup)."""
    for line in lines:
        out_console.print(line, markup=False)


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
        print_lines([json.dumps([entry.to_json() for _, entry in entries], indent=2)])
        return
    for name, entry in entries:
        rows = params(entry)
        width = max((len(key) for key, _ in rows), default=0)
        print_lines(
            [
                f"{name}  [{note(entry)}]",
                f"  {entry.summary}",
                *(f"    {key:<{width}}  {text}" for key, text in rows),
                "",
            ]
        )


def story_rates(first_attempt: float | None, fallback: float | None) -> str:
    """The validation rates of stories beside the paper's (``-`` for a rate not known).

    >>> story_rates(0.8, None)
    'first-attempt validation 80.0% (paper 95.4%), fallback - (paper 3.3%)'
    """
    from twosat_formal.verbalize.story.statistics import (
        PAPER_FALLBACK_RATE as FALLBACK,
    )
    from twosat_formal.verbalize.story.statistics import (
        PAPER_FIRST_ATTEMPT_RATE as FIRST,
    )

    shown = ["-" if rate is None else f"{rate:.1%}" for rate in (first_attempt, fallback)]
    first, fall = f"(paper {FIRST:.1%})", f"(paper {FALLBACK:.1%})"
    return f"first-attempt validation {shown[0]} {first}, fallback {shown[1]} {fall}"
