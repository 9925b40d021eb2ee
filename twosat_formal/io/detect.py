"""Reading a formula from text or from a file, whatever its format.

:func:`detect_format` tells DIMACS from the DSL, :func:`parse_formula` parses text and
:func:`read_formula` reads a file (``"-"`` is standard input). Every problem, from a
missing file to a misplaced token, is a :class:`~twosat_formal.errors.ParseError` that
names the file, and the line and column where the text has them.

>>> detect_format("c a comment\\np cnf 2 1\\n1 -2 0\\n"), detect_format("a | ~b")
('dimacs', 'dsl')
>>> parse_formula("p cnf 2 1\\n1 -2 0\\n") == parse_formula("x1 | ~x2")
True
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, ParseError
from twosat_formal.io._parsing import BLANKS, decode, refuse_non_text
from twosat_formal.io.dimacs import parse_dimacs
from twosat_formal.io.inputs import os_error_reason, read_bounded, read_stream_bounded
from twosat_formal.io.jsonl import source_name

if TYPE_CHECKING:
    from twosat_formal.io.dsl import Conversion

__all__ = [
    "FORMATS",
    "detect_format",
    "parse_formula",
    "parse_reading",
    "read_formula",
]

Format = Literal["dimacs", "dsl"]
#: The formats :func:`parse_formula` and :func:`read_formula` accept.
FORMATS: tuple[Format, ...] = ("dimacs", "dsl")
#: How much of a large file format detection reads before decoding it all.
_HEAD = 1 << 16

_DIMACS_COMMENT = re.compile(rf"c(?:[{BLANKS}].*)?\Z", re.DOTALL)
_DIMACS_START = re.compile(rf"p[{BLANKS}]+cnf(?![A-Za-z0-9_])|[-0-9%]")


def detect_format(text: str) -> Format:
    """``"dimacs"`` if the text looks like DIMACS, else ``"dsl"``.

    The first line that is not blank, not a ``#`` comment and not a DIMACS comment
    (``c`` alone or followed by a blank) decides: a ``p cnf`` header, a number or the
    ``%`` trailer mean DIMACS. No DSL line can start that way.

    Examples
    --------
    >>> detect_format("p cnf 0 0"), detect_format("1 -2 0"), detect_format("c | d")
    ('dimacs', 'dimacs', 'dsl')
    >>> detect_format("")
    'dsl'
    """
    refuse_non_text(text)
    line = _first_significant_line(text)
    return "dimacs" if line is not None and _DIMACS_START.match(line) else "dsl"


def _first_significant_line(text: str) -> str | None:
    """The first line that is not blank, a ``#`` comment or a DIMACS comment, stripped."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end].strip(BLANKS)
        start = end + 1
        if line and not line.startswith("#") and not _DIMACS_COMMENT.match(line):
            return line
    return None


def _detect_bytes(data: bytes) -> Format | None:
    """The format of ASCII ``data`` judged from its first complete lines, if they tell."""
    head = data[: data.rfind(b"\n", 0, _HEAD) + 1] if len(data) > _HEAD else data
    line = _first_significant_line(head.decode("ascii"))
    if line is None:
        return None
    return "dimacs" if _DIMACS_START.match(line) else "dsl"


def _chosen(format: str | None) -> Format | None:
    if format is None or format in FORMATS:
        return format
    raise ConfigError(
        f"unknown formula format {format!r}", parameter="format", valid=" or ".join(FORMATS)
    )


def parse_formula(text: str, *, format: str | None = None, source: str | None = None) -> Formula:
    """Parse ``text`` as DIMACS or DSL (detected when ``format`` is ``None``).

    Parameters
    ----------
    text:
        The formula text; empty text is the empty DSL formula.
    format:
        ``"dimacs"``, ``"dsl"`` or ``None`` to detect it with :func:`detect_format`.
    source:
        A file name for error messages.

    Raises
    ------
    ParseError
        On malformed text; :class:`~twosat_formal.errors.ConfigError` on an unknown format.

    Examples
    --------
    >>> parse_formula("a & ~a").num_clauses
    2
    >>> parse_formula("a | b", format="dimacs")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 1:1: expected "p cnf <vars> <clauses>", found 'a'
    """
    return parse_reading(text, format=format, source=source)[0]


def parse_reading(
    text: str, *, format: str | None = None, source: str | None = None
) -> tuple[Formula, tuple[Conversion, ...]]:
    """:func:`parse_formula`, with the conversions of the DSL's formula lines.

    A DIMACS text, or a DSL text of plain clause lines only, has none; a record made
    from the formula keeps them in its provenance (see
    :func:`~twosat_formal.io.dsl.check_conversions`).

    Examples
    --------
    >>> formula, conversions = parse_reading("a\\n~(a & b)")
    >>> formula.num_clauses, [c.line for c in conversions]
    (2, [2])
    """
    chosen = _chosen(format) or detect_format(text)
    if chosen == "dsl":
        from twosat_formal.io.dsl import read_dsl  # Lark: imported for the DSL only

        return read_dsl(text, source=source)
    return parse_dimacs(text, source=source), ()


def read_formula(path: str | os.PathLike[str], *, format: str | None = None) -> Formula:
    """Read a formula file (``"-"`` reads standard input), DIMACS or DSL.

    Errors name the file as given, and a copy of standard input
    (:func:`~twosat_formal.io.jsonl.rereadable`) as ``<stdin>``.

    An empty file (no bytes at all), binary data, a directory or a missing file is a
    :class:`ParseError` naming the file, like any malformed text; so are a file larger
    than :data:`~twosat_formal.io.inputs.MAX_TEXT_BYTES` and a pipe or a device
    (:func:`~twosat_formal.io.inputs.check_input`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     file = pathlib.Path(tmp, "f.cnf")
    ...     _ = file.write_text("p cnf 2 1\\n1 2 0\\n")
    ...     read_formula(file).clauses
    (Clause(1, 2),)
    >>> read_formula("/nonexistent/f.cnf")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: /nonexistent/f.cnf: no such file
    """
    chosen = _chosen(format)
    if str(path) == "-":
        source = "<stdin>"
        data = read_stream_bounded(sys.stdin.buffer, source, ParseError)
    else:
        source = source_name(path)  # <stdin> for a copy of it (rereadable)
        data = _read_bytes(Path(path), source)
    if not data:
        raise ParseError(
            'the file is empty: expected DIMACS ("p cnf <vars> <clauses>") or DSL clauses',
            source=source,
        )
    if data.isascii() and b"\0" not in data:
        # ASCII DIMACS is read as bytes: a large file is not decoded just to look at
        # its first lines.
        chosen = chosen or _detect_bytes(data)
        if chosen == "dimacs":
            return parse_dimacs(data, source=source)
    text = decode(data, source=source)
    chosen = chosen or detect_format(text)
    if chosen == "dsl":
        from twosat_formal.io.dsl import parse_dsl  # Lark: imported for the DSL only

        return parse_dsl(text, source=source)
    return parse_dimacs(text, source=source)


def _read_bytes(path: Path, source: str) -> bytes:
    try:
        return read_bounded(path, source, ParseError)
    except OSError as exc:
        reason = os_error_reason(exc) or f"cannot be read ({exc.strerror or exc})"
        raise ParseError(reason, source=source) from None
