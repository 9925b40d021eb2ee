"""A fast DIMACS reader: whole-file numpy passes instead of a token-by-token parser.

:func:`scan_dimacs` accepts exactly the language of ``grammar/dimacs.lark`` and returns
the same :class:`~twosat_formal.core.formula.Formula` as
:func:`~twosat_formal.io.dimacs.parse_dimacs`, or a :class:`ParseError` at the same
line and column; the tests check this on random, hand-made and mutated files.

How it works, in four paths tried in turn:

* small: a plain file (as on the quick path, without the trailer) of at most
  :data:`SMALL_BYTES` bytes has its numbers read by ``bytes.split`` and ``int``
  instead of the vectorised checks and numpy's parser, whose fixed costs dominate on
  the few dozen clauses of a benchmark instance; the rest is the quick path's;
* quick: a plain file (a few comment lines, the header, then only numbers and blanks,
  perhaps the ``%`` trailer) is checked with ``bytes.translate`` and one vectorised
  test that every minus sign starts a number; numpy's C parser then reads the numbers
  in one call;
* fast: comments anywhere. Bytes are classified (blank, newline, digit, minus, other)
  by table lookup; the lines that hold an "other" byte (comments, the header, the
  trailer, mistakes) are few and sorted out one by one, and the text between them is
  read as on the quick path;
* thorough, for anything unusual (in practice: errors): the maximal runs of digits and
  minus signs, their values by a vectorised Horner scheme, and the grammar's ordering
  rules (header first, clauses ended by 0, the trailer last) checked on the token
  sequence, reporting the first deviation in the text as the LALR parser would.

A path that meets anything it does not expect declines and leaves the text to the next.
Checks that need the whole file are shared with the Lark reader
(:func:`~twosat_formal.io.dimacs.assemble`).

>>> scan_dimacs(b"c var 2 b\\np cnf 2 2\\n1 -2 0 2\\n0\\n").clauses
(Clause(1, -2), Clause(2))
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from twosat_formal._util.lazy import cached_property
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ParseError
from twosat_formal.io._parsing import BLANKS, check_text, decode, describe_expected
from twosat_formal.io.dimacs import (
    DECLARATION,
    DESCRIBE,
    HEADER,
    MAX_VARIABLES,
    DimacsParts,
    Position,
    assemble,
    header_numbers,
    number_value,
)

__all__ = ["SMALL_BYTES", "scan_dimacs"]

#: Texts of at most this many bytes are tried on the small path first.
SMALL_BYTES = 4096

BLANK, NEWLINE, OTHER, DIGIT, MINUS = 0, 1, 2, 3, 4
_BLANK_BYTES = BLANKS.encode("ascii")
#: Blanks and newlines: the bytes between tokens.
_SPACE_BYTES = _BLANK_BYTES + b"\n"
_CLASS = np.full(256, OTHER, dtype=np.uint8)
_CLASS[list(_BLANK_BYTES)] = BLANK
_CLASS[ord("\n")] = NEWLINE
_CLASS[ord("0") : ord("9") + 1] = DIGIT
_CLASS[ord("-")] = MINUS
_IS_OTHER = _CLASS == OTHER
_IS_SPACE = _CLASS <= NEWLINE

#: Digits that always fit an int64 in the vectorised value computation.
_SAFE_DIGITS = 18
_INT64 = np.iinfo(np.int64)
#: Bytes of the body of a plain file: digits, minus signs, blanks and newlines.
_NUMBER_BYTES = b"0123456789-" + _SPACE_BYTES
#: Comment lines before the header that the quick path reads one by one.
_PROLOGUE_LINES = 512
#: Offsets below this are located by counting newlines, without the newline index.
_NEAR = 1 << 20
_ZERO = re.compile(rb"-?0+")
_NUMBER = re.compile(rb"-?[0-9]+")
#: Blank lines and comment lines, then the header's line (from its ``p``).
_BLANK_RUN = b"[" + _BLANK_BYTES + b"]*"
_OPENING = re.compile(
    b"(?:" + _BLANK_RUN + rb"(?:c[^\n]*)?\n)*" + _BLANK_RUN + rb"(?P<header>p[^\n]*)"
)
#: Kinds of lines that hold an "other" byte.
_COMMENT, _HEADER_LINE, _PERCENT, _BAD = 0, 1, 2, 3

IntArray = npt.NDArray[np.int64]


def scan_dimacs(text: str | bytes, *, source: str | None = None) -> Formula:
    """Read DIMACS CNF fast; same result and errors as :func:`parse_dimacs`.

    Parameters
    ----------
    text:
        The DIMACS text, as ``str`` or as UTF-8 ``bytes`` (a leading byte-order mark is
        dropped; NUL bytes and invalid UTF-8 are refused as binary data).
    source:
        A file name for error messages.

    Returns
    -------
    Formula

    Raises
    ------
    ParseError
        At the same line and column as the Lark reader would report.

    Examples
    --------
    >>> scan_dimacs("p cnf 2 1\\n1 -2 0\\n").clauses
    (Clause(1, -2),)
    >>> scan_dimacs("p cnf 2 1\\n1 -2\\n")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 2:3: expected a literal or 0, found the end of the input
    """
    if isinstance(text, str):
        check_text(text, source=source)
        data = text.encode("utf-8")
    else:
        data = bytes(text)
        if not data.isascii() or b"\0" in data:
            data = decode(data, source=source).encode("utf-8")
    scan = _Scan(data, source)
    for path in (scan.small, scan.quick, scan.fast):
        formula = path()
        if formula is not None:  # (an empty formula is falsy: it has no clauses)
            return formula
    return scan.thorough()


@dataclass(frozen=True)
class _Lines:
    """The lines that hold an "other" byte, by kind, and the first unexplained one."""

    kinds: npt.NDArray[np.int8]
    firsts: IntArray  # offset of the line's first "other" byte
    ends: IntArray  # offset of the line's end (its newline, or the end of the text)
    bad: int | None  # first "other" byte that no comment, header or trailer explains

    def of(self, kind: int) -> IntArray:
        return self.firsts[self.kinds == kind]

    @cached_property
    def cuts(self) -> tuple[IntArray, IntArray]:
        """Byte ranges ``[start, end)`` that hold no number: comment and header lines."""
        removed = (self.kinds == _COMMENT) | (self.kinds == _HEADER_LINE)
        return self.firsts[removed], self.ends[removed]


def _minus_signs_start_numbers(body: bytes) -> bool:
    """Whether every minus sign of ``body`` (digits, minus signs and blanks only) follows
    a blank (or the start) and precedes a digit."""
    arr = np.frombuffer(body, dtype=np.uint8)
    minus = arr == ord("-")
    if not minus.any():
        return True
    if minus[-1]:
        return False
    # Here a byte below "0" is a blank or a minus sign; one from "-" up is a digit or a minus.
    if np.any(minus[:-1] & (arr[1:] < ord("0"))):
        return False
    return not (minus[0] or np.any(minus[1:] & (arr[:-1] >= ord("-"))))


def _value(run: bytes) -> int:
    """The value of a run of digits and minus signs, clamped; 1 if it is malformed."""
    if _NUMBER.fullmatch(run) is None:
        return 1
    return number_value(run)


def _numbers(text: bytes) -> IntArray:
    """The integers of ``text`` (digits, minus signs and blanks only), by numpy's C parser.

    Raises ``ValueError`` or ``DeprecationWarning`` if numpy could not read it all.
    """
    if not text.strip(_SPACE_BYTES):
        return np.empty(0, dtype=np.int64)  # numpy reads blank text as [0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values: IntArray = np.fromstring(text, dtype=np.int64, sep=" ")
    return values


def _trusted(values: IntArray, trailer: IntArray) -> bool:
    """Whether numpy's reading of a body and a trailer stands: the trailer at most one
    ``0``, the last clause closed, no number at int64's ends (perhaps clamped there)."""
    if len(trailer) > 1 or (len(trailer) and trailer[0] != 0):
        return False
    return not len(values) or (
        values[-1] == 0 and not np.any((values == _INT64.max) | (values == _INT64.min))
    )


def _int_numbers(body: bytes) -> list[int] | None:
    """The numbers of a body of digits, minus signs and blanks read by ``int``, the last
    one 0 and all within int64; ``None`` for any other body."""
    if body.translate(None, _NUMBER_BYTES):
        return None
    try:
        numbers = list(map(int, body.split()))
    except ValueError:
        return None
    if numbers and (numbers[-1] != 0 or max(max(numbers), -min(numbers)) >= _INT64.max):
        return None
    return numbers


class _Scan:
    """One scan of one DIMACS text (``data`` is valid UTF-8 without a byte-order mark)."""

    def __init__(self, data: bytes, source: str | None) -> None:
        self.data = data
        self.source = source
        self.arr = np.frombuffer(data, dtype=np.uint8)

    @cached_property
    def newlines(self) -> IntArray:
        return np.flatnonzero(self.arr == ord("\n"))

    @cached_property
    def line_starts(self) -> IntArray:
        return np.concatenate(([0], self.newlines + 1))

    @cached_property
    def line_ends(self) -> IntArray:
        return np.concatenate((self.newlines, [len(self.data)]))

    # -- positions and errors ---------------------------------------------------------

    def position(self, offset: int) -> Position:
        """1-based (line, column in characters) of byte ``offset``."""
        if "newlines" not in self.__dict__ and offset < _NEAR:
            index = self.data.count(b"\n", 0, offset)
            start = self.data.rfind(b"\n", 0, offset) + 1
        else:
            index = int(np.searchsorted(self.newlines, offset))
            start = int(self.line_starts[index])
        return index + 1, len(self.data[start:offset].decode("utf-8")) + 1

    def line_end(self, offset: int) -> int:
        return int(self.line_ends[np.searchsorted(self.newlines, offset)])

    def context(self, line: int) -> str:
        if not 1 <= line <= len(self.line_starts):
            return ""
        start, end = int(self.line_starts[line - 1]), int(self.line_ends[line - 1])
        return self.data[start:end].decode("utf-8").rstrip("\r")[:200]

    def error(self, message: str, at: Position) -> ParseError:
        return ParseError(
            message, line=at[0], column=at[1], source=self.source, context=self.context(at[0])
        )

    def unexpected(self, offset: int, expected: set[str]) -> ParseError:
        end = offset
        while end < len(self.data) and end - offset < 20 and not _IS_SPACE[self.data[end]]:
            end += 1
        word = self.data[offset:end].decode("utf-8", errors="replace")
        shown = repr(word) if word.isprintable() else ascii(word)
        words = describe_expected(expected, DESCRIBE)
        return self.error(f"expected {words}, found {shown}", self.position(offset))

    # -- what both paths share --------------------------------------------------------

    @cached_property
    def lines(self) -> _Lines:
        """Classify the lines holding an "other" byte (see :class:`_Lines`)."""
        other = np.flatnonzero(_IS_OTHER[self.arr])
        if not len(other):
            empty = np.empty(0, dtype=np.int64)
            return _Lines(np.empty(0, dtype=np.int8), empty, empty, None)
        line = np.searchsorted(self.newlines, other)
        first = np.ones(len(other), dtype=bool)
        first[1:] = line[1:] != line[:-1]
        firsts, first_line = other[first], line[first]
        starts, ends = self.line_starts[first_line], self.line_ends[first_line]
        # A line-level token is the first non-blank byte of its line.
        at_front = firsts == starts
        for k in np.flatnonzero(~at_front).tolist():
            at_front[k] = not self.data[starts[k] : firsts[k]].strip(_BLANK_BYTES)
        char = self.arr[firsts]
        kinds = np.full(len(firsts), _BAD, dtype=np.int8)
        kinds[at_front & (char == ord("c"))] = _COMMENT
        kinds[at_front & (char == ord("p"))] = _HEADER_LINE
        kinds[at_front & (char == ord("%"))] = _PERCENT
        # "Other" bytes explained: all of a comment or header line, and the "%" itself.
        owner_kind = kinds[np.cumsum(first) - 1]
        explained = (owner_kind == _COMMENT) | (owner_kind == _HEADER_LINE)
        explained |= first & (owner_kind == _PERCENT)
        unexplained = other[~explained]
        bad = int(unexplained[0]) if len(unexplained) else None
        return _Lines(kinds, firsts, ends, bad)

    @cached_property
    def runs(self) -> tuple[IntArray, IntArray]:
        """Start and end offsets of the numbers: maximal runs of digits and minus signs
        outside comment and header lines (well-formed or not)."""
        is_token = _CLASS[self.arr] >= DIGIT
        edges = np.diff(is_token.view(np.int8), prepend=np.int8(0), append=np.int8(0))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        cut_from, cut_to = self.lines.cuts
        if len(cut_from) and len(starts):
            inside = np.searchsorted(cut_from, starts, side="right") - 1
            dropped = (inside >= 0) & (starts < cut_to[np.maximum(inside, 0)])
            starts, ends = starts[~dropped], ends[~dropped]
        return starts, ends

    def text_of(self, token: int) -> str:
        """The text of number ``token`` (an index into :attr:`runs`)."""
        starts, ends = self.runs
        return self.data[starts[token] : ends[token]].decode("ascii")

    def value(self, token: int) -> int:
        """The value of number ``token`` (an index into :attr:`runs`).

        A malformed run (``1-2``, ``-``) is an error reported at its start; it counts
        as a literal here, which no caller relies on.
        """
        starts, ends = self.runs
        return _value(self.data[starts[token] : ends[token]])

    def finish(
        self, values: IntArray, header: int, header_end: int, comments: list[tuple[int, int]]
    ) -> Formula:
        """Build the clause arrays from the numbers before the trailer; run the shared checks.

        ``values`` are those numbers, the last one 0; ``header`` and ``header_end`` bound
        the header line, ``comments`` the comment lines that may name variables. Positions
        come from :attr:`runs`, computed only if an error needs them.
        """
        num_vars, num_clauses = header_numbers(self.data[header:header_end].decode("utf-8"))
        zero = values == 0
        terminators = np.flatnonzero(zero)
        offsets = np.zeros(len(terminators) + 1, dtype=np.int64)
        offsets[1:] = terminators
        offsets[1:] -= np.arange(len(terminators))

        @cache
        def literal_tokens() -> IntArray:
            return np.flatnonzero(values)

        def token_at(token: int) -> Position:
            return self.position(int(self.runs[0][token]))

        def clause_at(i: int) -> Position:
            return token_at(int(terminators[i - 1]) + 1 if i else 0)

        declarations = [
            (self.position(start), self.data[start:end].decode("utf-8")) for start, end in comments
        ]
        parts = DimacsParts(
            num_vars=num_vars,
            num_clauses=num_clauses,
            header_at=self.position(header),
            literals=values[~zero],
            offsets=offsets,
            declarations=declarations,
            literal_at=lambda k: token_at(int(literal_tokens()[k])),
            literal_text=lambda k: self.text_of(int(literal_tokens()[k])),
            clause_at=clause_at,
            context=self.context,
        )
        return assemble(parts, source=self.source)

    def comments_naming(self) -> list[tuple[int, int]]:
        """Byte ranges of the comment lines that hold ``var`` (the general paths)."""
        kinds = self.lines.kinds
        ranges = zip(
            self.lines.firsts[kinds == _COMMENT].tolist(),
            self.lines.ends[kinds == _COMMENT].tolist(),
            strict=True,
        )
        return [(start, end) for start, end in ranges if b"var" in self.data[start:end]]

    @cached_property
    def prologue(self) -> tuple[list[tuple[int, int]], int, int] | None:
        """How a plain file opens: the comment lines that may name variables and the
        header's bounds, or ``None`` unless at most a few hundred comment lines come
        before a well-formed header.

        Before the header, each line is blank or a comment (blanks, then ``c``); the
        header's line starts, after blanks, with ``p``. One regular expression finds
        that opening (:data:`_OPENING`); the comment lines are looked at one by one
        only if ``var`` occurs before the header.
        """
        data = self.data
        opening = _OPENING.match(data)
        if opening is None:
            return None
        first, end = opening.span("header")
        lines = data.count(b"\n", 0, first)
        if lines >= _PROLOGUE_LINES or not HEADER.fullmatch(data[first:end].decode("utf-8")):
            return None
        comments: list[tuple[int, int]] = []
        if b"var" in data[:first]:
            start = 0
            for _ in range(lines):
                stop = data.find(b"\n", start)
                lead = start + len(data[start:stop]) - len(data[start:stop].lstrip(_BLANK_BYTES))
                if data[lead : lead + 1] == b"c" and b"var" in data[lead:stop]:
                    comments.append((lead, stop))
                start = stop + 1
        return comments, first, end

    # -- the small path ---------------------------------------------------------------

    def small(self) -> Formula | None:
        """:meth:`quick` for a small text without the trailer, its numbers read by ``int``.

        Over the body's bytes (digits, minus signs, blanks) ``int`` accepts exactly the
        grammar's numbers, ``-?[0-9]+``, with their values, so the numbers handed to
        :meth:`finish` are the quick path's, and so are the formula and the errors.
        ``None`` (the next path decides) for a text above :data:`SMALL_BYTES`, one that
        is not plain or has the trailer, a token ``int`` refuses (``1-2``, ``--1``) and
        the numbers the quick path declines (an open last clause, one beyond int64).
        """
        if len(self.data) > SMALL_BYTES or self.prologue is None:
            return None
        comments, header, header_end = self.prologue
        numbers = _int_numbers(self.data[header_end:])
        if numbers is None:
            return None
        if not any(DECLARATION.fullmatch(self.data[a:b].decode("utf-8")) for a, b in comments):
            formula = self.plain(numbers, header, header_end)
            if formula is not None:
                return formula
        return self.finish(np.array(numbers, dtype=np.int64), header, header_end, comments)

    def plain(self, numbers: list[int], header: int, header_end: int) -> Formula | None:
        """The formula of the small path's ``numbers`` (the last one 0), built in Python.

        For a text without a comment line that names a variable (a ``c var`` line; other
        lines holding ``var`` name none): the header within
        :data:`~twosat_formal.io.dimacs.MAX_VARIABLES`, every literal within its
        variables and its clause count met make the formula :meth:`finish` would
        build (its checks all pass); anything else is ``None``, and :meth:`finish`
        reports it.
        """
        num_vars, num_clauses = header_numbers(self.data[header:header_end].decode("utf-8"))
        literals = [number for number in numbers if number]
        if (
            num_vars > MAX_VARIABLES
            or len(numbers) - len(literals) != num_clauses
            or (literals and (max(literals) > num_vars or min(literals) < -num_vars))
        ):
            return None
        offsets, count = [0], 0
        for number in numbers:
            if number:
                count += 1
            else:
                offsets.append(count)
        return Formula.from_arrays(literals, offsets, num_vars)

    # -- the quick path ---------------------------------------------------------------

    def quick(self) -> Formula | None:
        """The formula of a plain file, or ``None`` if it is not plain.

        Plain: at most a few hundred comment lines, then the header, then nothing but
        numbers and blanks, and perhaps the ``%`` trailer.
        """
        if self.prologue is None:
            return None
        comments, header, header_end = self.prologue
        body = self.data[header_end:]
        if body.translate(None, _NUMBER_BYTES):
            body = self.without_trailer(body)  # type: ignore[assignment]
            if body is None:
                return None
        if not _minus_signs_start_numbers(body):
            return None
        try:
            values = _numbers(body)
        except (ValueError, DeprecationWarning):
            return None
        if len(values) and (
            values[-1] != 0 or np.any((values == _INT64.max) | (values == _INT64.min))
        ):
            return None
        return self.finish(values, header, header_end, comments)

    @staticmethod
    def without_trailer(body: bytes) -> bytes | None:
        """``body`` up to a well-formed ``%`` trailer, if that is its only non-number."""
        if body.translate(None, _NUMBER_BYTES) != b"%":
            return None
        percent = body.rfind(b"%")
        if body[body.rfind(b"\n", 0, percent) + 1 : percent].strip(_BLANK_BYTES):
            return None
        tokens = body[percent + 1 :].split()
        if len(tokens) > 1 or (tokens and not _ZERO.fullmatch(tokens[0])):
            return None
        return body[:percent]

    # -- the fast path ----------------------------------------------------------------

    def fast(self) -> Formula | None:
        """The formula of a well-formed file, or ``None`` if anything looks unusual."""
        layout = self.fast_layout()
        if layout is None:
            return None
        values = self.fast_values(*layout)
        if values is None:
            return None
        header = layout[0]
        return self.finish(values, header, self.line_end(header), self.comments_naming())

    def fast_layout(self) -> tuple[int, int | None, IntArray, IntArray] | None:
        """The header's offset, the trailer's (``%``) and the cuts (comments and the
        trailer's ``%``) of a text laid out as the fast path expects, or ``None``."""
        lines = self.lines
        headers, percents = lines.of(_HEADER_LINE), lines.of(_PERCENT)
        if lines.bad is not None or len(headers) != 1 or len(percents) > 1:
            return None
        header = int(headers[0])
        if not HEADER.fullmatch(self.data[header : self.line_end(header)].decode("utf-8")):
            return None
        percent = int(percents[0]) if len(percents) else None
        cut_from, cut_to = lines.cuts
        if percent is not None:
            if percent < header:
                return None  # the trailer before the header
            at = int(np.searchsorted(cut_from, percent))
            cut_from = np.insert(cut_from, at, percent)
            cut_to = np.insert(cut_to, at, percent + 1)
        if not self.minus_signs_start_numbers(cut_from, cut_to):
            return None
        return header, percent, cut_from, cut_to

    def fast_values(
        self, header: int, percent: int | None, cut_from: IntArray, cut_to: IntArray
    ) -> IntArray | None:
        """The numbers of the body, read by numpy from the text between the cuts, or
        ``None`` if a number comes before the header, the trailer holds more than one
        ``0``, the last clause is open or a number is too large to trust numpy with."""
        # The text between the cuts, in three parts: before the header, up to the
        # trailer, after the trailer.
        keep_from = np.concatenate(([0], cut_to)).tolist()
        keep_to = np.concatenate((cut_from, [len(self.data)])).tolist()
        pieces = [self.data[a:b] for a, b in zip(keep_from, keep_to, strict=True)]
        split_header = int(np.searchsorted(cut_from, header)) + 1
        split_percent = (
            len(pieces) if percent is None else int(np.searchsorted(cut_from, percent)) + 1
        )
        if b"".join(pieces[:split_header]).strip(_SPACE_BYTES):
            return None  # a number before the header
        try:
            values = _numbers(b" ".join(pieces[split_header:split_percent]))
            trailer = _numbers(b" ".join(pieces[split_percent:]))
        except (ValueError, DeprecationWarning):
            return None
        return values if _trusted(values, trailer) else None

    def minus_signs_start_numbers(self, cut_from: IntArray, cut_to: IntArray) -> bool:
        """Whether every minus sign outside the cuts follows a blank and precedes a digit."""
        minus = np.flatnonzero(self.arr == ord("-"))
        if len(cut_from) and len(minus):
            inside = np.searchsorted(cut_from, minus, side="right") - 1
            minus = minus[~((inside >= 0) & (minus < cut_to[np.maximum(inside, 0)]))]
        if not len(minus):
            return True
        if minus[0] == 0 or minus[-1] == len(self.data) - 1:
            return False
        before = _CLASS[self.arr[minus - 1]]
        after = _CLASS[self.arr[minus + 1]]
        return bool(np.all((before <= NEWLINE) & (after == DIGIT)))

    # -- the thorough path ------------------------------------------------------------

    def thorough(self) -> Formula:
        """The formula, or the first error in the text, found the careful way."""
        lines = self.lines
        starts = self.runs[0]
        headers, percents = lines.of(_HEADER_LINE), lines.of(_PERCENT)
        candidates: list[tuple[int, ParseError]] = []
        for offset in (lines.bad, self.first_malformed_run()):
            if offset is not None:
                expected = self.expected_at(offset, headers, percents)
                candidates.append((offset, self.unexpected(offset, expected)))
        values = self.values()
        candidates.extend(self.order_errors(values, headers, percents))
        if candidates:
            raise min(candidates, key=lambda item: item[0])[1]
        count = int(np.searchsorted(starts, percents[0])) if len(percents) else len(starts)
        header = int(headers[0])
        return self.finish(values[:count], header, self.line_end(header), self.comments_naming())

    def first_malformed_run(self) -> int | None:
        """Offset of the first run of digits and minus signs that is not ``-?[0-9]+``."""
        starts, ends = self.runs
        minus = np.flatnonzero(self.arr == ord("-"))
        if not len(minus) or not len(starts):
            return None
        run = np.searchsorted(starts, minus, side="right") - 1
        inside = (run >= 0) & (minus < ends[np.maximum(run, 0)])
        minus, run = minus[inside], run[inside]
        after = _CLASS[self.arr[np.minimum(minus + 1, len(self.arr) - 1)]]
        good = (minus == starts[run]) & (minus + 1 < len(self.arr)) & (after == DIGIT)
        bad = run[~good]
        return int(starts[bad[0]]) if len(bad) else None

    def values(self) -> IntArray:
        """The value of every run (garbage for malformed runs, which are errors anyway)."""
        starts, ends = self.runs
        if not len(starts):
            return np.empty(0, dtype=np.int64)
        negative = self.arr[starts] == ord("-")
        first_digit = starts + negative
        length = ends - first_digit
        width = min(int(length.max()), _SAFE_DIGITS)
        padded = np.concatenate((self.arr, np.zeros(width, dtype=np.uint8)))
        values = np.zeros(len(starts), dtype=np.int64)
        for column in range(width):
            digit = padded[first_digit + column].astype(np.int64) - ord("0")
            active = length > column
            np.multiply(values, 10, out=values, where=active)
            np.add(values, digit, out=values, where=active)
        for k in np.flatnonzero(length > _SAFE_DIGITS).tolist():
            values[k] = _value(self.data[first_digit[k] : ends[k]])
        np.negative(values, out=values, where=negative)
        return values

    def expected_at(self, offset: int, headers: IntArray, percents: IntArray) -> set[str]:
        """The terminals the grammar accepts at ``offset``, given a correct text before it."""
        if not len(headers) or headers[0] >= offset:
            return {"HEADER"}
        starts = self.runs[0]
        tokens_before = int(np.searchsorted(starts, offset))
        if len(percents) and percents[0] < offset:
            after = tokens_before - int(np.searchsorted(starts, percents[0]))
            return {"ZERO", "$END"} if after == 0 else {"$END"}
        if tokens_before and self.value(tokens_before - 1) != 0:
            return {"LITERAL", "ZERO"}
        return {"LITERAL", "ZERO", "PERCENT", "$END"}

    def order_errors(
        self, values: IntArray, headers: IntArray, percents: IntArray
    ) -> list[tuple[int, ParseError]]:
        """Errors in the order of tokens: header first, clauses closed, trailer last."""
        firsts = [int(a[0]) for a in (self.runs[0], headers, percents) if len(a)]
        if not firsts:
            message = f"expected {DESCRIBE['HEADER']}, found the end of the input"
            return [(len(self.data) + 1, self.error(message, (1, 1)))]
        first = min(firsts)
        if not len(headers) or headers[0] != first:
            return [(first, self.unexpected(first, {"HEADER"}))]
        found: list[tuple[int, ParseError]] = []
        header = int(headers[0])
        if not HEADER.fullmatch(self.data[header : self.line_end(header)].decode("utf-8")):
            found.append((header, self.unexpected(header, {"HEADER"})))
        if len(headers) > 1:
            second = int(headers[1])
            found.append(
                (second, self.unexpected(second, self.expected_at(second, headers, percents)))
            )
        if len(percents):
            return found + self.trailer_errors(values, headers, percents)
        return found + self.open_end(values)

    def trailer_errors(
        self, values: IntArray, headers: IntArray, percents: IntArray
    ) -> list[tuple[int, ParseError]]:
        """Errors around the ``%`` trailer: a clause open before it, more than one ``0``
        after it, a second trailer."""
        starts = self.runs[0]
        expected: list[tuple[int, set[str]]] = []
        percent = int(percents[0])
        k = int(np.searchsorted(starts, percent))
        if k and values[k - 1] != 0:
            expected.append((percent, {"LITERAL", "ZERO"}))
        if len(starts) > k and values[k] != 0:
            expected.append((int(starts[k]), {"ZERO", "$END"}))
        elif len(starts) > k + 1:
            expected.append((int(starts[k + 1]), {"$END"}))
        if len(percents) > 1:
            second = int(percents[1])
            expected.append((second, self.expected_at(second, headers, percents)))
        return [(offset, self.unexpected(offset, wanted)) for offset, wanted in expected]

    def open_end(self, values: IntArray) -> list[tuple[int, ParseError]]:
        """The error of a text that ends inside a clause (none if it does not).

        The parser meets the end of the input inside a clause; it reports the position
        of the last token, and only if nothing went wrong before.
        """
        if not len(values) or values[-1] == 0:
            return []
        expected = describe_expected({"LITERAL", "ZERO"}, DESCRIBE)
        message = f"expected {expected}, found the end of the input"
        return [(len(self.data) + 1, self.error(message, self.position(int(self.runs[0][-1]))))]
