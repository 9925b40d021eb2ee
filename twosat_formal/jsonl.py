"""JSON Lines files: the one reader and writer every record type uses.

Records (instances, prompts, story records) are JSON objects, one per line, UTF-8,
``\\n`` line ends; ``"-"`` is stdin or stdout. Blank lines are skipped when reading.
Non-ASCII text is written as is, except U+0085, U+2028 and U+2029, which are escaped
inside JSON strings so that every reader sees one record per line.

Examples
--------
>>> import io
>>> buf = io.StringIO()
>>> write_lines([json_line({"a": "x\\u2028y"}), json_line({"b": 2})], buf)
2
>>> buf.getvalue()
'{"a": "x\\\\u2028y"}\\n{"b": 2}\\n'
>>> [(line.number, line.value) for line in read_stream(io.StringIO(buf.getvalue()), "<mem>")]
[(1, {'a': 'x\\u2028y'}), (2, {'b': 2})]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from twosat_formal.errors import RecordError

__all__ = ["JsonLine", "json_line", "read_json_lines", "read_stream", "write_lines"]

#: Characters that some readers take for line breaks; escaped inside JSON strings.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


class JsonLine(NamedTuple):
    """One parsed line: where it came from and its JSON value.

    With ``strict=False`` a line that is not JSON has a :class:`RecordError` as value.
    """

    source: str
    number: int
    value: Any


def json_line(obj: Any) -> str:
    """One record as a JSON line (no trailing newline), safe for every line reader."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False).translate(_LINE_BREAKS)


def read_stream(stream: IO[str], source: str, *, strict: bool = True) -> Iterator[JsonLine]:
    """The JSON values of the non-blank lines of ``stream``.

    Raises :class:`RecordError` with the line number for a line that is not JSON
    (``strict=False``: yields the error as the line's value instead).
    """
    for number, text in enumerate(stream, 1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            error = RecordError(f"invalid JSON: {exc.msg}", line=number, source=source)
            if strict:
                raise error from None
            value = error
        yield JsonLine(source, number, value)


def read_json_lines(path: str | Path, *, strict: bool = True) -> Iterator[JsonLine]:
    """:func:`read_stream` over a file (``"-"``: stdin), lazily."""
    if str(path) == "-":
        yield from read_stream(sys.stdin, "<stdin>", strict=strict)
        return
    with open(path, encoding="utf-8") as stream:
        yield from read_stream(stream, str(path), strict=strict)


def write_lines(lines: Iterable[str], path_or_stream: str | Path | IO[str]) -> int:
    """Write JSON lines to a path (``"-"``: stdout) or a text stream; returns how many."""
    if isinstance(path_or_stream, str | Path):
        if str(path_or_stream) == "-":
            return write_lines(lines, sys.stdout)
        with open(path_or_stream, "w", encoding="utf-8", newline="\n") as stream:
            return write_lines(lines, stream)
    count = 0
    for line in lines:
        path_or_stream.write(line + "\n")
        count += 1
    return count
