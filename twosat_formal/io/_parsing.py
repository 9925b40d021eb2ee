"""Machinery shared by the formula readers: cached Lark parsers, positions and errors.

Every reader reports a malformed input as a :class:`~twosat_formal.errors.ParseError`
carrying the 1-based ``line`` and ``column`` (in characters), the ``source`` name and
the offending line as ``context``. Lark's own exceptions never leave this package:
:func:`translate` turns them into a :class:`ParseError` that says what was expected.

>>> locate("p cnf 1 1\\n1 x 0", 12)
(2, 3)
>>> err = error_at("expected a literal", "p cnf 1 1\\n1 x 0", 12, source="f.cnf")
>>> str(err), err.context
('f.cnf:2:3: expected a literal', '1 x 0')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Lark is imported when a parser is built or an error translated
    from lark import Lark, Token
    from lark.exceptions import LarkError, UnexpectedInput

from twosat_formal.errors import ParseError, expect_type
from twosat_formal.resources import grammar_text

__all__ = [
    "BLANKS",
    "check_text",
    "context_line",
    "decode",
    "describe_expected",
    "error_at",
    "found_word",
    "lark_parser",
    "locate",
    "refuse_non_text",
    "translate",
]

#: Characters that separate tokens on a line (newlines are counted apart).
BLANKS = " \t\f\r\v"
#: The longest context line an error keeps.
_CONTEXT_CHARS = 200


@cache
def lark_parser(grammar: str, *, propagate_positions: bool = False) -> Lark:
    """The LALR parser of ``grammar`` (a file in ``grammar/``), built once per process.

    >>> lark_parser("dimacs.lark") is lark_parser("dimacs.lark")
    True
    """
    # strict=False: the grammars have no regex collisions or conflicts, which
    # tests/io/test_io_grammars.py checks once with strict=True; checking it again in
    # every process cost a quarter of a second of start-up.
    from lark import Lark

    return Lark(
        grammar_text(grammar),
        parser="lalr",
        lexer="contextual",
        strict=False,
        propagate_positions=propagate_positions,
        maybe_placeholders=False,
    )


def locate(text: str, offset: int) -> tuple[int, int]:
    """The 1-based ``(line, column)`` of character ``offset`` in ``text``.

    >>> locate("ab\\ncd", 4)
    (2, 2)
    """
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def context_line(text: str, line: int) -> str:
    """Line number ``line`` (1-based) of ``text`` without its newline, cut to 200 characters.

    >>> context_line("a\\r\\nbc\\n", 2)
    'bc'
    """
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    found = text[start : end if end >= 0 else len(text)].rstrip("\r")
    return found[:_CONTEXT_CHARS]


def error_at(
    message: str,
    text: str,
    offset: int | None = None,
    *,
    line: int | None = None,
    column: int | None = None,
    source: str | None = None,
) -> ParseError:
    """A :class:`ParseError` at character ``offset`` (or at ``line``/``column``) of ``text``.

    >>> str(error_at("expected 0", "p cnf 1 1\\n1", line=2, column=1))
    '2:1: expected 0'
    """
    if offset is not None:
        line, column = locate(text, offset)
    context = context_line(text, line) if line is not None else None
    return ParseError(message, line=line, column=column, source=source, context=context)


def refuse_non_text(
    value: object,
    *,
    what: str = "formula text",
    types: tuple[type, ...] = (str,),
    valid: str = "a str",
) -> None:
    """Refuse a ``value`` given as ``what`` that is none of ``types`` (``valid`` in words).

    The type check of every formula reader (:func:`~twosat_formal.errors.expect_type`,
    parameter ``text``), never a failure from inside the reader (``bytes(3)`` is three
    NULs, ``None`` has no ``find``).

    Raises
    ------
    ArgumentTypeError
        ``value`` is of none of ``types``.

    Examples
    --------
    >>> refuse_non_text("a | b")
    >>> refuse_non_text(None)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ArgumentTypeError: formula text must be a str, not NoneType
    """
    expect_type(value, types, parameter="text", valid=valid, what=what)


def check_text(text: str, *, source: str | None = None) -> None:
    """Refuse text that holds binary data: a NUL character or a lone surrogate.

    >>> check_text("p cnf 0 0")
    >>> check_text("a | b\\x00")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 1:6: binary data (a NUL character) where text was expected

    Anything but a ``str`` is refused by :func:`refuse_non_text`.
    """
    refuse_non_text(text)
    nul = text.find("\0")
    if nul >= 0:
        raise error_at(
            "binary data (a NUL character) where text was expected", text, nul, source=source
        )
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise error_at(
                "binary data (an unpaired surrogate) where text was expected",
                text,
                exc.start,
                source=source,
            ) from None


def decode(data: bytes, *, source: str | None = None) -> str:
    """Decode UTF-8 ``data`` (a leading byte-order mark is dropped); binary data is refused.

    >>> decode("¬a".encode())
    '¬a'
    >>> try:
    ...     decode(b"p cnf\\n\\xff")
    ... except ParseError as err:
    ...     print(err.line, err.column, err.message)
    2 1 binary data (byte 0xff is not UTF-8) where text was expected
    """
    nul = data.find(b"\0")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = exc.start if nul < 0 else min(nul, exc.start)
        prefix = data[:bad].decode("utf-8", errors="replace")
        what = "a NUL character" if bad == nul else f"byte 0x{data[bad]:02x} is not UTF-8"
        raise error_at(
            f"binary data ({what}) where text was expected", prefix, len(prefix), source=source
        ) from None
    check_text(text, source=source)
    return text


def _expected(exc: UnexpectedInput) -> set[str]:
    """The terminals the parser would have accepted where it failed (``$END`` included)."""
    state = getattr(exc, "state", None)
    try:
        table = state.parse_conf.parse_table.states[state.position]  # type: ignore[union-attr]
        return {name for name in table if name == "$END" or name.isupper()}
    except (AttributeError, KeyError, TypeError):
        found = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()
        return set(found)


def describe_expected(names: Iterable[str], describe: Mapping[str, str]) -> str:
    """The expected terminals in words: ``"a literal, 0 or the end of the input"``.

    Descriptions follow the order of ``describe``; unknown names are shown as they are.

    >>> describe_expected({"ZERO", "LITERAL"}, {"LITERAL": "a literal", "ZERO": "0"})
    'a literal or 0'
    """
    words = {**describe, "$END": describe.get("$END", "the end of the input")}
    order = list(words)
    shown: list[str] = []
    for name in sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n)):
        word = words.get(name, name)
        if word and word not in shown:
            shown.append(word)
    if not shown:
        return "something else"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def found_word(text: str, offset: int) -> str:
    """The text at ``offset`` up to the next blank, quoted, for an error message."""
    if offset >= len(text):
        return "the end of the input"
    if text[offset] == "\n":
        return "the end of the line"
    end = offset
    while end < len(text) and end - offset < 20 and not text[end].isspace():
        end += 1
    word = text[offset:end] or text[offset : offset + 1]
    return repr(word) if word.isprintable() else ascii(word)


def translate(
    exc: LarkError, text: str, *, source: str | None, describe: Mapping[str, str]
) -> ParseError:
    """Turn a Lark exception raised while parsing ``text`` into a :class:`ParseError`.

    The position is that of the first non-blank character of the offending token; the
    message says what was expected, with the terminals named by ``describe``.
    """
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken, VisitError

    if isinstance(exc, VisitError) and isinstance(exc.orig_exc, ParseError):
        return exc.orig_exc
    kinds = (
        (UnexpectedToken, _unexpected_token),
        (UnexpectedCharacters, _unexpected_characters),
        (UnexpectedEOF, _unexpected_end),
    )
    for kind, error in kinds:
        if isinstance(exc, kind):
            return error(exc, text, source, describe)
    return error_at(f"malformed input ({type(exc).__name__})", text, 0, source=source)


def _unexpected_token(
    exc: Any, text: str, source: str | None, describe: Mapping[str, str]
) -> ParseError:
    """A token the grammar does not allow there, perhaps the end of the input."""
    expected = describe_expected(_expected(exc), describe)
    token: Token = exc.token
    if token.type == "$END":
        line, column = getattr(token, "line", None) or 1, getattr(token, "column", None) or 1
        return error_at(
            f"expected {expected}, found the end of the input",
            text,
            line=line,
            column=column,
            source=source,
        )
    offset = (token.start_pos or 0) + len(token) - len(token.lstrip(BLANKS))
    word = str(token).strip(BLANKS).split(maxsplit=1)[0] if token.strip() else ""
    found = repr(word) if word and word.isprintable() else found_word(text, offset)
    return error_at(f"expected {expected}, found {found}", text, offset, source=source)


def _unexpected_characters(
    exc: Any, text: str, source: str | None, describe: Mapping[str, str]
) -> ParseError:
    """Characters no terminal matches."""
    expected = describe_expected(_expected(exc), describe)
    offset = int(getattr(exc, "pos_in_stream", 0) or 0)
    return error_at(
        f"expected {expected}, found {found_word(text, offset)}", text, offset, source=source
    )


def _unexpected_end(
    exc: Any, text: str, source: str | None, describe: Mapping[str, str]
) -> ParseError:
    """The input ends where the grammar wants more."""
    expected = describe_expected(set(exc.expected or ()), describe)
    return error_at(
        f"expected {expected}, found the end of the input", text, len(text), source=source
    )
