"""A fast DIMACS reader: whole-file numpy passes instead of a token-by-token parser.

:func:`scan_dimacs` accepts exactly the language of ``grammar/dimacs.lark`` and returns
the same :class:`~twosat_formal.formula.Formula` as
:func:`~twosat_formal.io.dimacs.parse_dimacs`, or a :class:`ParseError` at the same
position; the tests check this on random and mutated files. Large files go through here.

How it works: every byte is classified (blank, newline, digit, minus, other) with one
table lookup. Lines holding an "other" byte are few in a CNF file (comments, the header,
the trailer, mistakes) and are sorted out one by one; the runs of digits and minus signs
outside them are the numbers, whose values come from a vectorised Horner scheme over
their digit columns. The grammar's ordering rules (header first, clauses ended by 0,
the trailer last) are then checked on the sequence of tokens, and the first deviation in
the text is reported, as the LALR parser would report it.

>>> scan_dimacs(b"c var 2 b\\np cnf 2 2\\n1 -2 0 2\\n0\\n").clauses
(Clause(1, -2), Clause(2))
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import numpy.typing as npt

from twosat_formal.errors import ParseError
from twosat_formal.formula import Formula
from twosat_formal.io._parsing import check_text, decode, describe_expected
from twosat_formal.io.dimacs import (
    _HEADER,
    DESCRIBE,
    DimacsParts,
    Position,
    assemble,
    clamp,
    header_numbers,
)

__all__ = ["scan_dimacs"]

BLANK, NEWLINE, OTHER, DIGIT, MINUS = 0, 1, 2, 3, 4
_CLASS = np.full(256, OTHER, dtype=np.uint8)
_CLASS[[ord(c) for c in " \t\f\r\v"]] = BLANK
_CLASS[ord("\n")] = NEWLINE
_CLASS[ord("0") : ord("9") + 1] = DIGIT
_CLASS[ord("-")] = MINUS

#: Digits that always fit an int64 in the vectorised value computation.
_SAFE_DIGITS = 18
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
    return _Scan(data, source).formula()


class _Scan:
    """One scan of one DIMACS text (``data`` is valid UTF-8 without a byte-order mark)."""

    def __init__(self, data: bytes, source: str | None) -> None:
        self.data = data
        self.source = source
        self.arr = np.frombuffer(data, dtype=np.uint8)
        self.cls = _CLASS[self.arr]
        self.newlines = np.flatnonzero(self.arr == ord("\n"))
        n = len(data)
        self.line_starts = np.concatenate(([0], self.newlines + 1))
        self.line_ends = np.concatenate((self.newlines, [n]))

    # -- positions and errors ---------------------------------------------------------

    @cached_property
    def text(self) -> str:
        return self.data.decode("utf-8")

    def position(self, offset: int) -> Position:
        """1-based (line, column in characters) of byte ``offset``."""
        index = int(np.searchsorted(self.newlines, offset))
        start = int(self.line_starts[index])
        return index + 1, len(self.data[start:offset].decode("utf-8")) + 1

    def context(self, line: int) -> str:
        if not 1 <= line <= len(self.line_starts):
            return ""
        start, end = int(self.line_starts[line - 1]), int(self.line_ends[line - 1])
        return self.data[start:end].decode("utf-8").rstrip("\r")[:200]

    def error(self, message: str, at: Position) -> ParseError:
        return ParseError(
            message, line=at[0], column=at[1], source=self.source, context=self.context(at[0])
        )

    def found(self, offset: int) -> str:
        end = offset
        while end < len(self.data) and end - offset < 20 and self.cls[end] > NEWLINE:
            end += 1
        word = self.data[offset:end].decode("utf-8", errors="replace")
        return repr(word) if word.isprintable() else ascii(word)

    def unexpected(self, offset: int, expected: set[str]) -> ParseError:
        words = describe_expected(expected, DESCRIBE)
        return self.error(f"expected {words}, found {self.found(offset)}", self.position(offset))

    # -- the scan ---------------------------------------------------------------------

    def formula(self) -> Formula:
        cls = self.cls
        runs = np.diff((cls >= DIGIT).view(np.int8), prepend=np.int8(0), append=np.int8(0))
        starts = np.flatnonzero(runs == 1)
        ends = np.flatnonzero(runs == -1)
        del runs

        kinds, firsts, line_ends, bad_other = self.special_lines(starts)
        removed = (kinds == _COMMENT) | (kinds == _HEADER_LINE)
        cut_from, cut_to = firsts[removed], line_ends[removed]
        if len(cut_from) and len(starts):
            inside = np.searchsorted(cut_from, starts, side="right") - 1
            dropped = (inside >= 0) & (starts < cut_to[np.maximum(inside, 0)])
            starts, ends = starts[~dropped], ends[~dropped]
        headers = firsts[kinds == _HEADER_LINE]
        percents = firsts[kinds == _PERCENT]

        candidates: list[tuple[int, ParseError]] = []
        if bad_other is not None:
            candidates.append((bad_other, self.unexpected_here(bad_other, starts, headers, percents)))
        bad_run = self.first_malformed_run(starts, ends)
        if bad_run is not None:
            candidates.append(
                (bad_run, self.unexpected_here(bad_run, starts, headers, percents))
            )
        values = self.values(starts, ends)
        candidates.extend(self.order_errors(starts, values, headers, percents))
        if candidates:
            raise min(candidates, key=lambda item: item[0])[1]
        return self.finish(starts, ends, values, headers, percents, kinds, firsts, line_ends)

    def special_lines(
        self, starts: IntArray
    ) -> tuple[npt.NDArray[np.int8], IntArray, IntArray, int | None]:
        """Classify the lines holding an "other" byte.

        Returns the kind of each such line (comment, header, percent, bad), the offset of
        its first "other" byte, the offset of its end, and the first "other" byte that no
        comment, header or trailer explains (``None`` if there is none).
        """
        other = np.flatnonzero(self.cls == OTHER)
        if not len(other):
            empty = np.empty(0, dtype=np.int64)
            return np.empty(0, dtype=np.int8), empty, empty, None
        line = np.searchsorted(self.newlines, other)
        first = np.ones(len(other), dtype=bool)
        first[1:] = line[1:] != line[:-1]
        firsts, first_line = other[first], line[first]
        line_starts, line_ends = self.line_starts[first_line], self.line_ends[first_line]
        # A line-level token must be the first non-blank byte of its line: no number
        # may start between the line's start and the "other" byte.
        at_front = np.searchsorted(starts, line_starts) == np.searchsorted(starts, firsts)
        char = self.arr[firsts]
        kinds = np.full(len(firsts), _BAD, dtype=np.int8)
        kinds[at_front & (char == ord("c"))] = _COMMENT
        kinds[at_front & (char == ord("p"))] = _HEADER_LINE
        kinds[at_front & (char == ord("%"))] = _PERCENT
        # "Other" bytes explained: all of a comment or header line, and the "%" itself.
        owner = np.cumsum(first) - 1
        owner_kind = kinds[owner]
        explained = (owner_kind == _COMMENT) | (owner_kind == _HEADER_LINE)
        explained |= first & (owner_kind == _PERCENT)
        unexplained = other[~explained]
        bad = int(unexplained[0]) if len(unexplained) else None
        return kinds, firsts, line_ends, bad

    def first_malformed_run(self, starts: IntArray, ends: IntArray) -> int | None:
        """Offset of the first run of digits and minus signs that is not ``-?[0-9]+``."""
        minus = np.flatnonzero(self.cls == MINUS)
        if not len(minus) or not len(starts):
            return None
        run = np.searchsorted(starts, minus, side="right") - 1
        inside = (run >= 0) & (minus < ends[np.maximum(run, 0)])
        minus, run = minus[inside], run[inside]
        after = np.minimum(minus + 1, len(self.cls) - 1)
        good = (minus == starts[run]) & (minus + 1 < len(self.cls)) & (self.cls[after] == DIGIT)
        bad = run[~good]
        return int(starts[bad[0]]) if len(bad) else None

    def values(self, starts: IntArray, ends: IntArray) -> IntArray:
        """The value of every run (garbage for malformed runs, which are errors anyway)."""
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
            values[k] = clamp(int(self.data[first_digit[k] : ends[k]]))
        np.negative(values, out=values, where=negative)
        return values

    def unexpected_here(
        self, offset: int, starts: IntArray, headers: IntArray, percents: IntArray
    ) -> ParseError:
        """The error for a token the lexer cannot read at ``offset``."""
        return self.unexpected(offset, self.expected_at(offset, starts, headers, percents))

    def expected_at(
        self, offset: int, starts: IntArray, headers: IntArray, percents: IntArray
    ) -> set[str]:
        """The terminals the grammar accepts at ``offset``, given a correct text before it."""
        if not len(headers) or headers[0] >= offset:
            return {"HEADER"}
        tokens_before = int(np.searchsorted(starts, offset))
        if len(percents) and percents[0] < offset:
            after = tokens_before - int(np.searchsorted(starts, percents[0]))
            return {"ZERO", "$END"} if after == 0 else {"$END"}
        if tokens_before and not self._is_zero(int(starts[tokens_before - 1])):
            return {"LITERAL", "ZERO"}
        return {"LITERAL", "ZERO", "PERCENT", "$END"}

    def _is_zero(self, offset: int) -> bool:
        """Whether the (well-formed) number at ``offset`` is 0."""
        end = offset
        while end < len(self.data) and self.cls[end] >= DIGIT:
            end += 1
        return int(self.data[offset:end]) == 0

    def order_errors(
        self, starts: IntArray, values: IntArray, headers: IntArray, percents: IntArray
    ) -> list[tuple[int, ParseError]]:
        """Errors in the order of tokens: header first, clauses closed, trailer last."""
        found: list[tuple[int, ParseError]] = []

        def complain(offset: int, expected: set[str]) -> None:
            found.append((offset, self.unexpected(offset, expected)))

        firsts = [int(a[0]) for a in (starts, headers, percents) if len(a)]
        if not firsts:
            found.append((0, self.error(f"expected {DESCRIBE['HEADER']}, found the end of the input", (1, 1))))
            return found
        first = min(firsts)
        if not len(headers) or headers[0] != first:
            complain(first, {"HEADER"})
            return found
        header = int(headers[0])
        line_end = int(self.line_ends[np.searchsorted(self.newlines, header)])
        if not _HEADER.fullmatch(self.data[header:line_end].decode("utf-8")):
            complain(header, {"HEADER"})
        if len(headers) > 1:
            second = int(headers[1])
            complain(second, self.expected_at(second, starts, headers, percents))
        if len(percents):
            percent = int(percents[0])
            k = int(np.searchsorted(starts, percent))
            if k and values[k - 1] != 0:
                complain(percent, {"LITERAL", "ZERO"})
            if len(starts) > k:
                if values[k] != 0:
                    complain(int(starts[k]), {"ZERO", "$END"})
                elif len(starts) > k + 1:
                    complain(int(starts[k + 1]), {"$END"})
            if len(percents) > 1:
                second = int(percents[1])
                complain(second, self.expected_at(second, starts, headers, percents))
        elif len(values) and values[-1] != 0 and not found:
            last = int(starts[-1])
            found.append(
                (
                    len(self.data) + 1,
                    self.error(
                        f"expected {describe_expected({'LITERAL', 'ZERO'}, DESCRIBE)}, "
                        "found the end of the input",
                        self.position(last),
                    ),
                )
            )
        return found

    def finish(
        self,
        starts: IntArray,
        ends: IntArray,
        values: IntArray,
        headers: IntArray,
        percents: IntArray,
        kinds: npt.NDArray[np.int8],
        firsts: IntArray,
        line_ends: IntArray,
    ) -> Formula:
        """Build the clause arrays and hand them to the shared checks."""
        header = int(headers[0])
        header_end = int(self.line_ends[np.searchsorted(self.newlines, header)])
        num_vars, num_clauses = header_numbers(self.data[header:header_end].decode("utf-8"))
        count = int(np.searchsorted(starts, percents[0])) if len(percents) else len(starts)
        body = values[:count]
        zero = body == 0
        terminators = np.flatnonzero(zero)
        literal_tokens = np.flatnonzero(~zero)
        lits = body[literal_tokens]
        offsets = np.concatenate(([0], terminators - np.arange(len(terminators))))

        def literal_at(k: int) -> Position:
            return self.position(int(starts[literal_tokens[k]]))

        def literal_text(k: int) -> str:
            token = literal_tokens[k]
            return self.data[starts[token] : ends[token]].decode("ascii")

        def clause_at(i: int) -> Position:
            token = int(terminators[i - 1]) + 1 if i else 0
            return self.position(int(starts[token]))

        comments = firsts[kinds == _COMMENT]
        comment_ends = line_ends[kinds == _COMMENT]
        declarations: list[tuple[Position, str]] = []
        for start, end in zip(comments.tolist(), comment_ends.tolist(), strict=True):
            line = self.data[start:end]
            if b"var" in line:
                declarations.append((self.position(start), line.decode("utf-8")))
        parts = DimacsParts(
            num_vars=num_vars,
            num_clauses=num_clauses,
            header_at=self.position(header),
            literals=lits,
            offsets=offsets.astype(np.int64),
            declarations=declarations,
            literal_at=literal_at,
            literal_text=literal_text,
            clause_at=clause_at,
            context=self.context,
        )
        return assemble(parts, source=self.source)
