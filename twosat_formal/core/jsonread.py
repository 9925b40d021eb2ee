"""The one JSON reader of the project: whole, strict and bounded.

Every reader of the project's JSON (dataset records, prompt and story records, answer
files, experiment specs, manifests, reports) parses through :func:`loads`, so a text is
either read the same way everywhere or refused everywhere, with its place:

- an object with a key twice (``{"label": "UNSAT", "label": "SAT"}``): other readers
  keep either copy, so no copy is trusted;
- nesting of arrays and objects deeper than :data:`MAX_DEPTH`;
- a number Python will not convert (an integer of more than 4,300 digits);
- a number beyond the range of a double (``1e999``, ``-1`` and 400 zeros ``.0``): it
  would read as infinity, which no JSON writer writes back;
- ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON;
- a ``\\u`` escape of half a surrogate pair, which no UTF-8 text can hold.

Every refusal is a :class:`~twosat_formal.errors.RecordError` naming the source and the
line (the record's line in a JSON Lines file; the line inside a whole document).

Examples
--------
>>> loads('{"a": [1, 2]}', source="x.json")
{'a': [1, 2]}
>>> loads('{"label": "UNSAT",\\n "label": "SAT"}', source="x.json")
Traceback (most recent call last):
...
twosat_formal.errors.RecordError: x.json:2: the key 'label' appears twice in one object
>>> loads("[" * 200 + "]" * 200, source="d.jsonl", line=7)
Traceback (most recent call last):
...
twosat_formal.errors.RecordError: d.jsonl:7: arrays and objects nested deeper than 100
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

from twosat_formal.errors import RecordError

__all__ = ["MAX_DEPTH", "json_type_name", "line_of_path", "loads"]

#: The deepest nesting of arrays and objects a JSON text may have (records need < 10).
MAX_DEPTH = 100

#: A JSON string, escapes included (the text around it holds no quote).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
#: How a bracket moves the depth.
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
#: A ``\\u`` escape of a surrogate (perhaps escaped itself: then the walk finds nothing).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")

#: Every token of a JSON text: strings, brackets, colons, commas and other scalars.
_PART = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+', re.DOTALL)


class _Duplicate(ValueError):
    """Raised by the decoder's object hook; :func:`loads` locates the key."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class _OutOfRange(ValueError):
    """Raised by the decoder's float hook; :func:`loads` locates the number."""

    def __init__(self, number: str) -> None:
        super().__init__(number)
        self.number = number


def _float(number: str) -> float:
    """The double of a JSON number with a fraction or exponent; finite, or refused."""
    value = float(number)
    if math.isinf(value):
        raise _OutOfRange(number)
    return value


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant, parse_float=_float)


def _shown_number(number: str) -> str:
    """A number as an error shows it: whole up to 24 characters, else its ends.

    >>> _shown_number("1e999"), _shown_number("-1" + "0" * 400 + ".0")
    ('1e999', '-10000000000...000.0 (404 characters)')
    """
    if len(number) <= 24:
        return number
    return f"{number[:12]}...{number[-5:]} ({len(number)} characters)"


def _too_deep(value: Any) -> bool:
    """Whether the parsed ``value`` nests arrays and objects deeper than :data:`MAX_DEPTH`.

    Walked without recursion, over the containers only.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def _first_duplicate(text: str) -> tuple[str, int]:
    """The first key (in text order) that its object already holds, and where it starts.

    Two members of one object with one key are two keys at one path (every other pair
    of members differs in some key or index of their paths, and that comes earlier).
    """
    seen: set[tuple[Any, ...]] = set()
    for path, at, key in _paths(text):
        if key and tuple(path) in seen:
            return path[-1], at
        seen.add(tuple(path))
    return "?", 0  # not reached for a text the decoder refused for a duplicate


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


#: Where a refused constant, a long number and a lone surrogate escape are (in a text
#: whose strings are blanked, but the escape's, which is found in the text itself).
_CONSTANT = re.compile(r"NaN|-?Infinity")
_LONG_NUMBER = re.compile(r"[0-9]{4301,}")
_LONE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<![0-9a-fA-F]{4})\\u[dD][c-fC-F]"
)


def _blanked(text: str) -> str:
    """``text`` with the inside of every string blanked (positions and lines kept)."""
    return _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)


#: Above this many brackets the text is scanned for its depth before it is parsed, so
#: the parser never recurses far (whatever the interpreter's recursion limit); below it,
#: the parsed value is walked (cheaper; records hold far fewer).
_SCAN_FIRST = 20 * MAX_DEPTH


def _deepest(text: str) -> int:
    """Where nesting first goes deeper than :data:`MAX_DEPTH` (0: it does not)."""
    depth = 0
    for match in re.finditer(r"[\[\]{}]", _blanked(text)):
        depth += _STEP[match.group()]
        if depth > MAX_DEPTH:
            return match.start()
    return 0


def _deep(text: str, line: int | None, source: str) -> RecordError:
    return RecordError(
        f"arrays and objects nested deeper than {MAX_DEPTH}",
        line=_line_of(text, line, _deepest),
        source=source,
    )


def _line_of(text: str, line: int | None, find: re.Pattern[str] | Any) -> int | None:
    """The line of a refusal: ``line`` for a JSON Lines record, else the line in the
    document where ``find`` (a pattern, or a function of the text) puts it."""
    if line is not None:
        return line
    if isinstance(find, re.Pattern):
        match = find.search(text if find is _LONE_ESCAPE else _blanked(text))
        return None if match is None else _line_at(text, match.start(), None)
    return _line_at(text, find(text), None)


def _line_at(text: str, position: int, line: int | None) -> int:
    """The line of ``position``: ``line`` itself for one JSON Lines record."""
    return line if line is not None else text.count("\n", 0, position) + 1


def line_of_path(text: str, path: Sequence[str | int]) -> int | None:
    """The line of the value at ``path`` (keys and list indexes) in the JSON ``text``.

    A member of an object is found at its key; ``None`` when ``path`` is not in ``text``.

    >>> line_of_path('{"a": 1,\\n "b": [true,\\n {"c": 2}]}', ["b", 1, "c"])
    3
    >>> line_of_path('{"a": 1}', ["z"]) is None
    True
    """
    want = list(path)
    return next(
        (_line_at(text, at, None) for at_path, at, _ in _paths(text) if at_path == want), None
    )


def _paths(text: str) -> Iterator[tuple[list[Any], int, bool]]:
    """Each value of the JSON ``text`` in text order (an object's member first at its key):
    its path of keys and list indexes, where it starts, and whether it is the key."""
    open_: list[list[Any]] = []  # per open container: [is an object, its key or index]
    for token in _PART.finditer(text):
        mark = token.group()
        if mark in ",:]}":
            _past(open_, mark)
            continue
        key = bool(open_) and open_[-1][0] and open_[-1][1] is None
        if key:
            open_[-1][1] = json.loads(mark)
        yield [entry[1] for entry in open_], token.start(), key
        if mark in "[{":
            open_.append([mark == "{", None if mark == "{" else 0])


def _past(open_: list[list[Any]], mark: str) -> None:
    """Step past punctuation: a comma to the next member or item, a bracket out."""
    if mark == ",":
        top = open_[-1]
        top[1] = None if top[0] else top[1] + 1
    elif mark != ":":
        open_.pop()


def _invalid(text: str, exc: json.JSONDecodeError) -> str:
    """What the decoder expected, and the column where (in characters, 1-based).

    >>> try:
    ...     _DECODER.decode('{"a": }')
    ... except json.JSONDecodeError as exc:
    ...     print(_invalid('{"a": }', exc))
    invalid JSON at column 7: Expecting value
    """
    where = f"invalid JSON at column {exc.colno}"
    if text[exc.pos : exc.pos + 1] == "\ufeff":  # JSON has no byte-order mark
        return f"{where}: a byte-order mark (U+FEFF); write UTF-8 without one"
    return f"{where}: {exc.msg}"


def _decode(text: str, source: str, line: int | None) -> Any:
    """The decoder's value of ``text``; what it refuses, a located :class:`RecordError`."""
    try:
        return _DECODER.decode(text)
    except _Duplicate:
        key, at = _first_duplicate(text)
        raise RecordError(
            f"the key {key!r} appears twice in one object",
            line=_line_at(text, at, line),
            source=source,
        ) from None
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise RecordError(_invalid(text, exc), line=where, source=source) from None
    except RecursionError:  # far deeper than MAX_DEPTH: refused as any deep text is
        raise _deep(text, line, source) from None
    except _OutOfRange as exc:
        number = re.compile(rf"(?<![0-9.eE+-]){re.escape(exc.number)}(?![0-9.eE+-])")
        raise RecordError(
            f"the number {_shown_number(exc.number)} is beyond the range of a double",
            line=_line_of(text, line, number),
            source=source,
        ) from None
    except ValueError as exc:
        message, find = str(exc), _CONSTANT
        if "digits" in message:
            message, find = "a number of more than 4300 digits", _LONG_NUMBER
        raise RecordError(message, line=_line_of(text, line, find), source=source) from None


def loads(text: str, *, source: str, line: int | None = None) -> Any:
    """The JSON value of ``text``, or a located :class:`RecordError` (see the module).

    Parameters
    ----------
    text:
        One JSON text: a whole document, or one record of a JSON Lines file.
    source:
        The name errors give (a path, ``<stdin>``).
    line:
        The record's line in its JSON Lines file; ``None`` for a whole document, whose
        errors give the line inside it.

    Examples
    --------
    >>> loads('{"n": 1' + "0" * 5000 + "}", source="d.jsonl", line=3)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: d.jsonl:3: a number of more than 4300 digits
    >>> loads('["\\\\ud800"]', source="d.jsonl", line=1)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: d.jsonl:1: a \\u escape of half a surrogate pair ...
    """
    brackets = text.count("[") + text.count("{")  # more than the depth, if any is deep
    if brackets > _SCAN_FIRST and _deepest(text):  # never parse what is very deep
        raise _deep(text, line, source)
    value = _decode(text, source, line)
    if brackets > MAX_DEPTH and isinstance(value, dict | list) and _too_deep(value):
        raise _deep(text, line, source)
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and _has_surrogate(value):
        raise RecordError(
            "a \\u escape of half a surrogate pair (no UTF-8 text holds one)",
            line=_line_of(text, line, _LONE_ESCAPE),
            source=source,
        )
    return value


#: The JSON name of each type a JSON value parses to (``bool`` before ``int``: a bool is an int).
_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),
    ((int, float), "number"),
    (str, "string"),
    ((list, tuple), "array"),
    (dict, "object"),
)


def json_type_name(value: Any) -> str:
    """The JSON type of ``value`` for a "must be X, not T" message; Python's name otherwise.

    Examples
    --------
    >>> [json_type_name(v) for v in (None, True, 3, 2.5, "a", [1], {"a": 1})]
    ['null', 'boolean', 'number', 'number', 'string', 'array', 'object']
    >>> json_type_name(b"x")
    'bytes'
    """
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__
