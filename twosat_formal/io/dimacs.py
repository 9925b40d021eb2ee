"""DIMACS CNF: the reader, held to the grammar of record ``grammar/dimacs.lark``, and the writer.

The dialect (documented in ``docs/dsl.md``): comment lines start with ``c`` and may
appear anywhere; the header ``p cnf <vars> <clauses>`` is required and checked (a
literal beyond ``<vars>``, or a clause count other than ``<clauses>``, is an error that
names both numbers); a clause ends at ``0``, not at a newline; the SATLIB trailer (``%``
then ``0``) is accepted. Variable ``i`` is named ``x<i>`` unless a comment line
``c var <i> <name>`` names it. :func:`write_dimacs` writes those lines for the names
that are not the default, after a provenance header, so DSL -> DIMACS -> DSL keeps names.

:func:`parse_dimacs` is the one reader: a single pass of a compiled recogniser
(:mod:`twosat_formal.io._dimacs`) over the text's bytes, for every text, small or
large, valid or not, then :func:`assemble`, the checks that need the whole file. The
tests hold it to the Lark parser of the grammar (``tests/support/lark_dimacs.py``):
the same formula, or the same error, word for word.

Examples
--------
>>> f = parse_dimacs("c var 1 rain\\np cnf 2 2\\n1 -2 0\\n2 0\\n")
>>> f.names, f.clauses
(('rain', 'x2'), (Clause(1, -2), Clause(2)))
>>> print(write_dimacs(f, provenance={"seed": 7}), end="")  # doctest: +ELLIPSIS
c twosat-formal ...
c seed: 7
c var 1 rain
p cnf 2 2
1 -2 0
2 0
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from twosat_formal._util.lazy import cached_property
from twosat_formal.core.formula import MAX_SIZE, Formula, default_var, is_valid_name
from twosat_formal.errors import ConfigError, ParseError, raises
from twosat_formal.io._dimacs import END, TOKEN, recognise
from twosat_formal.io._parsing import (
    BLANKS,
    check_text,
    context_line,
    decode,
    describe_expected,
    error_at,
    found_word,
    refuse_non_text,
)

__all__ = [
    "DECLARATION",
    "DESCRIBE",
    "HEADER",
    "MAX_VARIABLES",
    "DimacsParts",
    "assemble",
    "clamp",
    "header_numbers",
    "number_value",
    "parse_dimacs",
    "shown_number",
    "write_dimacs",
]

#: The most variables a header may declare; more is refused as an absurd number.
MAX_VARIABLES = MAX_SIZE
#: Literals whose size does not fit are stored as this (always beyond the header).
_CLAMP = 1 << 62

#: How error messages name the grammar's terminals.
DESCRIBE: dict[str, str] = {
    "HEADER": '"p cnf <vars> <clauses>"',
    "LITERAL": "a literal",
    "ZERO": "0",
    "PERCENT": 'the "%" trailer',
    "$END": "the end of the input",
}

_BL = f"[{BLANKS}]"  # one blank
#: A header line that the grammar accepted; the two groups are its numbers.
HEADER = re.compile(rf"{_BL}*p{_BL}+cnf{_BL}+([0-9]+){_BL}+([0-9]+){_BL}*")
#: A comment line that names a variable: ``c var <i> <name>`` (exactly four words).
DECLARATION = re.compile(rf"c{_BL}+var{_BL}+(\S+){_BL}+(\S+){_BL}*")
#: Provenance keys: one word, so that every provenance line reads back unambiguously.
_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")

Position = tuple[int, int]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class DimacsParts:
    """What a DIMACS reader found, before the checks that need the whole file.

    Positions are 1-based ``(line, column)`` pairs; the callables are asked only when
    an error is reported, so a reader can compute them lazily.
    """

    num_vars: int
    num_clauses: int
    header_at: Position
    literals: IntArray
    offsets: IntArray
    declarations: Sequence[tuple[Position, str]]
    literal_at: Callable[[int], Position]
    literal_text: Callable[[int], str]
    clause_at: Callable[[int], Position]
    context: Callable[[int], str]


def assemble(parts: DimacsParts, *, source: str | None = None) -> Formula:
    """Check ``parts`` against the header and the naming rules, and build the Formula.

    Of all the violations the first one in the text is reported: an absurd header, a
    literal beyond the header's variables, a clause count other than the header's (at
    the first extra clause, or at the header when clauses are missing), or a malformed
    ``c var`` line.
    """
    found: list[tuple[Position, str]] = []
    n, m = parts.num_vars, parts.num_clauses
    if n > MAX_VARIABLES:  # refused before anything (the name table) is sized from it
        (line, column) = parts.header_at
        raise ParseError(
            f"the header's {_count(n)} variables exceed the limit of {MAX_VARIABLES}",
            line=line,
            column=column,
            source=source,
            context=parts.context(line),
        )
    lits = parts.literals
    if len(lits) and (int(lits.max()) > n or int(lits.min()) < -n):
        k = int(np.flatnonzero((lits > n) | (lits < -n))[0])
        value = shown_number(parts.literal_text(k))
        found.append((parts.literal_at(k), f"literal {value} is beyond the header's {n} variables"))
    count = len(parts.offsets) - 1
    if count != m:
        where = parts.clause_at(m) if count > m else parts.header_at
        found.append((where, f"clause count {count} differs from the header's {_count(m)}"))
    names, problem = _names(parts.declarations, n)
    if problem is not None:
        found.append(problem)
    if found:
        (line, column), message = min(found, key=lambda item: item[0])
        raise ParseError(
            message, line=line, column=column, source=source, context=parts.context(line)
        )
    return Formula.from_arrays(lits, parts.offsets, n, names)


def _names(
    declarations: Sequence[tuple[Position, str]], num_vars: int
) -> tuple[dict[int, str] | None, tuple[Position, str] | None]:
    """The names the ``c var`` lines give, by variable, or the first problem with them.

    Only the declared names are kept: a header's variable count sizes nothing here.
    """
    parsed = _parse_declarations(declarations)
    if not parsed:
        return None, None
    declared = {var for _, var, _, _ in parsed if 1 <= var <= num_vars}
    by_var: dict[int, str] = {}
    by_name: dict[str, int] = {}
    for (line, column), var, name, match in parsed:
        problem = _number_problem(match[1], var, num_vars, by_var.get(var), name)
        if problem is not None:
            return None, ((line, column + match.start(1)), problem)
        problem = _name_problem(name, var, num_vars, by_name, declared)
        if problem is not None:
            return None, ((line, column + match.start(2)), problem)
        by_var[var] = name
        by_name[name] = var
    return by_var, None


def _parse_declarations(
    declarations: Sequence[tuple[Position, str]],
) -> list[tuple[Position, int, str, re.Match[str]]]:
    """Each ``c var`` line's place, number (-1 if not digits alone), name and match."""
    parsed = []
    for at, comment in declarations:
        match = DECLARATION.fullmatch(comment)
        if match is not None:
            number = match[1]
            var = number_value(number) if number.isascii() and number.isdigit() else -1
            parsed.append((at, var, match[2], match))
    return parsed


def _number_problem(
    number: str, var: int, num_vars: int, named: str | None, name: str
) -> str | None:
    """What is wrong with the number of a ``c var`` line (``named``: its earlier name)."""
    if var < 0:
        return f'expected a variable number in "c var", found {number!r}'
    if var == 0:
        return 'variable numbers in "c var" start at 1'
    if var > num_vars:
        return (
            f'variable {shown_number(number)} in "c var" is beyond the header\'s '
            f"{num_vars} variables"
        )
    if named is not None:
        return f"variable {var} is named twice ({named!r}, {name!r})"
    return None


def _name_problem(
    name: str, var: int, num_vars: int, by_name: dict[str, int], declared: set[int]
) -> str | None:
    """What is wrong with the name a ``c var`` line gives variable ``var``."""
    if not is_valid_name(name):
        return (
            f"invalid variable name {name!r}: expected an identifier "
            "[A-Za-z_][A-Za-z0-9_]* that is not not/or/and/vars"
        )
    if name in by_name:
        return f"name {name!r} already names variable {by_name[name]}"
    clash = default_var(name)
    if clash is not None and clash != var and clash <= num_vars and clash not in declared:
        return f"name {name!r} is already the default name of variable {clash}"
    return None


def header_numbers(header: str) -> tuple[int, int]:
    """The two numbers of a header line the grammar accepted.

    >>> header_numbers("  p cnf 7 12 ")
    (7, 12)
    """
    match = HEADER.fullmatch(header)
    if match is None:  # pragma: no cover - the grammar only lets well-formed headers through
        raise ValueError(f"not a header line: {header!r}")
    return number_value(match[1]), number_value(match[2])


def clamp(value: int) -> int:
    """``value`` if it fits the literal arrays, else a stand-in that is beyond any header.

    >>> clamp(-10**30) == -(1 << 62)
    True
    """
    return value if -_CLAMP < value < _CLAMP else (_CLAMP if value > 0 else -_CLAMP)


#: Significant digits of a number that fits below :data:`_CLAMP` (2**62 has 19 digits).
_FIT_DIGITS = 19


def number_value(token: str | bytes) -> int:
    """The value of a number token ``-?[0-9]+``, clamped (:func:`clamp`).

    A number of more significant digits than any literal or count can have is clamped
    without converting it: Python refuses to convert more than 4,300 digits, and no
    such number may ever be read as another one.

    >>> number_value("-" + "9" * 5000) == -(1 << 62), number_value(b"-" + b"0" * 5000 + b"7")
    (True, -7)
    """
    text = token.decode("ascii") if isinstance(token, bytes) else token
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    significant = digits.lstrip("0")
    if len(significant) > _FIT_DIGITS:
        return -_CLAMP if negative else _CLAMP
    return clamp(int(text[0] + significant if negative and significant else significant or "0"))


def _count(value: int) -> str:
    """A header's count as a message shows it (a clamped one was too long to convert)."""
    return str(value) if value < _CLAMP else f"more than {_CLAMP - 1}"


def shown_number(text: str) -> str:
    """A number as a message shows it: a long one by its ends and its length.

    >>> shown_number("1" * 70)
    '111111111111...111111 (70 digits)'
    >>> shown_number("42")
    '42'
    """
    if len(text) <= 64:
        return text
    return f"{text[:12]}...{text[-6:]} ({len(text.lstrip('-'))} digits)"


#: What the grammar accepts in each state of the recogniser (``failure[3]``, see
#: :func:`~twosat_formal.io._dimacs.recognise`).
_EXPECTED = (
    {"HEADER"},
    {"LITERAL", "ZERO", "PERCENT", "$END"},
    {"LITERAL", "ZERO"},
    {"ZERO", "$END"},
    {"$END"},
)
#: A number token from its first byte.
_NUMBER = re.compile(rb"-?[0-9]+")


@raises(ParseError)
def parse_dimacs(text: str | bytes, *, source: str | None = None) -> Formula:
    """Read DIMACS CNF ``text`` as the grammar of record ``grammar/dimacs.lark`` reads it.

    One pass of the compiled recogniser (:mod:`twosat_formal.io._dimacs`) over the
    text's UTF-8 bytes, then the checks that need the whole file (:func:`assemble`).

    Parameters
    ----------
    text:
        The DIMACS text, as ``str`` or as UTF-8 ``bytes`` (a leading byte-order mark is
        dropped; NUL bytes and invalid UTF-8 are refused as binary data).
    source:
        A file name for error messages (``"<stdin>"``, a path...).

    Returns
    -------
    Formula
        The clauses in file order (duplicates kept), ``<vars>`` variables, names from
        ``c var`` lines.

    Raises
    ------
    ParseError
        At the first deviation from the grammar, with its line, column and what was
        expected there, or at the first violation of the header and naming rules.

    Examples
    --------
    >>> parse_dimacs("p cnf 3 2\\n1 -3\\n  0 2 0\\n%\\n0\\n").clauses
    (Clause(1, -3), Clause(2))
    >>> parse_dimacs(b"p cnf 2 1\\n1 3 0\\n")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 2:3: literal 3 is beyond the header's 2 variables
    >>> parse_dimacs("p cnf 2 1\\n1 -2\\n")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 2:3: expected a literal or 0, found the end of the input
    """
    data = _utf8(text, source)
    literals, offsets, header, declarations, _, failure = recognise(data)
    if failure is not None:
        raise _failure(data, failure, source)
    assert header is not None  # the recogniser fails without one
    start, end, line, column = header
    num_vars, num_clauses = header_numbers(data[start:end].decode("ascii"))
    where = _Places(data)
    parts = DimacsParts(
        num_vars=num_vars,
        num_clauses=num_clauses,
        header_at=(line, column),
        literals=literals,
        offsets=offsets,
        declarations=[((ln, col), data[a:b].decode("utf-8")) for ln, col, a, b in declarations],
        literal_at=lambda k: where.position(int(where.starts[0][k])),
        literal_text=lambda k: where.number(int(where.starts[0][k])),
        clause_at=lambda i: where.position(int(where.starts[1][i])),
        context=lambda ln: context_line(where.text, ln),
    )
    return assemble(parts, source=source)


def _utf8(text: str | bytes, source: str | None) -> bytes:
    """``text`` as UTF-8 bytes, binary data refused (:func:`check_text`, :func:`decode`)."""
    refuse_non_text(
        text, what="DIMACS text", types=(str, bytes, bytearray, memoryview), valid="a str or bytes"
    )
    if isinstance(text, str):
        check_text(text, source=source)
        return text.encode("utf-8")
    data = bytes(text)
    if not data.isascii() or b"\0" in data:
        data = decode(data, source=source).encode("utf-8")
    return data


class _Places:
    """Where things are in a text the recogniser read, for the error that needs them."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    @cached_property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @cached_property
    def starts(self) -> tuple[IntArray, IntArray]:
        """The offsets of each literal and of each clause's first token."""
        starts = recognise(self.data, True)[4]
        assert starts is not None
        return starts

    def position(self, offset: int) -> Position:
        """The 1-based line and column (in characters) of byte ``offset``."""
        line_start = self.data.rfind(b"\n", 0, offset) + 1
        column = len(self.data[line_start:offset].decode("utf-8")) + 1
        return self.data.count(b"\n", 0, offset) + 1, column

    def number(self, offset: int) -> str:
        """The number token at byte ``offset``."""
        match = _NUMBER.match(self.data, offset)
        assert match is not None
        return match[0].decode("ascii")


def _failure(data: bytes, failure: tuple[int, int, int, int], source: str | None) -> ParseError:
    """The error of the recogniser's first deviation, as Lark's parser of the grammar words it."""
    kind, at, end, state = failure
    text = data.decode("utf-8")
    expected = f"expected {describe_expected(_EXPECTED[state], DESCRIBE)}"
    if kind == END:
        line, column = (1, 1) if at < 0 else _Places(data).position(at)
        message = f"{expected}, found the end of the input"
        return error_at(message, text, line=line, column=column, source=source)
    offset = len(data[:at].decode("utf-8"))
    found = repr(data[at:end].decode("ascii")) if kind == TOKEN else found_word(text, offset)
    return error_at(f"{expected}, found {found}", text, offset, source=source)


#: ``json.dumps(value, sort_keys=True, ensure_ascii=True, allow_nan=False)``, its
#: encoder made once: NaN and infinities are not JSON (they would be written as
#: ``NaN``/``Infinity``, which no JSON reader of the project takes back).
_provenance_json = json.JSONEncoder(sort_keys=True, ensure_ascii=True, allow_nan=False).encode


def write_dimacs(formula: Formula, *, provenance: Mapping[str, object] | None = None) -> str:
    """The formula as DIMACS text, with a provenance header and its variable names.

    The output is deterministic: ``c twosat-formal <version>``, one ``c <key>: <json>``
    line per provenance item (keys sorted), one ``c var <i> <name>`` line per variable
    whose name is not ``x<i>``, the ``p cnf`` header, then one clause per line.

    Parameters
    ----------
    formula:
        Any formula (clauses of any width, the empty clause included).
    provenance:
        Items to record; keys are single words (``[A-Za-z0-9_][A-Za-z0-9_.-]*``) and
        values must be JSON-serialisable.

    Examples
    --------
    >>> f = Formula.from_named([["a", "~b"]])
    >>> write_dimacs(f).splitlines()[1:]
    ['c var 1 a', 'c var 2 b', 'p cnf 2 1', '1 -2 0']
    """
    from twosat_formal.core.provenance import tool_version  # importlib.metadata: for writers only

    lines = [f"c twosat-formal {tool_version()}"]
    for key in sorted(provenance or {}):
        if not isinstance(key, str) or not _KEY.match(key):
            raise ConfigError(
                f"provenance key {key!r} is not a single word",
                parameter="provenance",
                valid="keys matching [A-Za-z0-9_][A-Za-z0-9_.-]*",
            )
        try:
            value = _provenance_json(provenance[key])  # type: ignore[index]
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"provenance value of {key!r} is not JSON-serialisable: {exc}",
                parameter="provenance",
            ) from None
        lines.append(f"c {key}: {value}")
    lines.extend(f"c var {v} {name}" for v, name in formula.named.items())
    lines.append(f"p cnf {formula.num_vars} {formula.num_clauses}")
    head = "\n".join(lines) + "\n"
    return head + _clause_lines(formula)


def _clause_lines(formula: Formula) -> str:
    """One ``lit lit ... 0`` line per clause.

    One ``%``-format over all literals: ``"%d " * width + "0\\n"`` per clause (``"0\\n"``
    for the empty clause), filled with the literals as Python ints, whose ``%d`` is
    their ``str``. A third of the time of joining the literals' strings on a
    60-clause formula, and about half on 10^6 clauses.

    >>> _clause_lines(Formula([[1, -2], [], [3]]))
    '1 -2 0\\n0\\n3 0\\n'
    """
    if formula.num_clauses == 0:
        return ""
    layout = "".join(["%d " * width + "0\n" for width in formula.widths.tolist()])
    return layout % tuple(formula.literals.tolist())
