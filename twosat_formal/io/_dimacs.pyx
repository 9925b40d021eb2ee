# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The DIMACS recogniser: one pass over the bytes of a text, as ``grammar/dimacs.lark``.

:func:`recognise` walks UTF-8 bytes once, line by line, and does what Lark's LALR
parser does with the grammar's contextual lexer, reduced to five parser states (what
the grammar accepts next):

* ``HEADER`` (before the header): the header line;
* ``BETWEEN`` (after the header or a clause): a literal, ``0``, the ``%`` trailer or
  the end of the input;
* ``INSIDE`` (a clause is open): a literal or ``0``;
* ``TRAILER`` (after ``%``): ``0`` or the end of the input;
* ``DONE`` (after ``% 0``): the end of the input.

The grammar's terminals as its lexer finds them: a line whose first non-blank byte is
``c`` is a comment; one whose first non-blank byte is ``p`` must be a whole header
line; a ``%`` is the trailer only as a line's first non-blank byte; a number is a
maximal run of digits and minus signs that reads ``-?[0-9]+`` (``0`` when all its
digits are ``0``, else a literal); blanks and newlines separate tokens; anything else
is an error where it stands.

On the first deviation the walk stops and reports its offset and kind; Python builds
the message (``twosat_formal/io/dimacs.py``). The kind is what Lark reports there. Its
contextual lexer tries the terminals the state accepts (and the ignored ones: blanks,
newlines, comments); when none matches, it tries all the grammar's terminals at the
same place, and a match is an unexpected *token*, shown whole: a number (``3`` in
``3c``), or ``%`` where a line starts (not after blanks: the blanks were lexed first,
and ``%`` inside a line is no token). Otherwise they are unexpected *characters*, shown
as the text up to a space. A ``p`` shows the same either way (a misplaced header line
is a token, shown by its first word, ``p``), and the end of the input is located at
the last token the parser was given, a literal (line 1, column 1 if there is none).
"""

import numpy as np

cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memchr

cnp.import_array()

# The parser states (see the module's docstring).
cdef enum:
    HEADER = 0
    BETWEEN = 1
    INSIDE = 2
    TRAILER = 3
    DONE = 4

# The kinds of failure: characters that no terminal matches, a terminal that the state
# does not accept (its text is the token), the end of the input where more is wanted.
cdef enum:
    FAIL_CHARACTERS = 0
    FAIL_TOKEN = 1
    FAIL_END = 2
CHARACTERS, TOKEN, END = FAIL_CHARACTERS, FAIL_TOKEN, FAIL_END

# Values at least this large are stored as it (``twosat_formal.io.dimacs.clamp``).
cdef uint64_t CLAMP = (<uint64_t>1) << 62
# More significant digits than this make a number clamped without reading it.
cdef Py_ssize_t FIT_DIGITS = 19
# A number token read by _number: NOT_A_NUMBER (a run such as "1-2" or "-"), else its
# end offset; its value goes to value[0].
cdef Py_ssize_t NOT_A_NUMBER = -1


cdef inline bint _blank(unsigned char c) noexcept nogil:
    """The grammar's blanks: space, tab, form feed, carriage return, vertical tab."""
    return c == 32 or c == 9 or c == 11 or c == 12 or c == 13


cdef inline Py_ssize_t _line_end(const unsigned char* data, Py_ssize_t at, Py_ssize_t n) noexcept nogil:
    """Offset of the first newline from ``at``, or ``n``."""
    cdef const void* found = memchr(data + at, 10, n - at)
    return n if found == NULL else <Py_ssize_t>(<const unsigned char*>found - data)


cdef inline Py_ssize_t _skip_blanks(const unsigned char* data, Py_ssize_t at, Py_ssize_t n) noexcept nogil:
    while at < n and _blank(data[at]):
        at += 1
    return at


cdef inline bint _digit(unsigned char c) noexcept nogil:
    return 48 <= c <= 57


cdef inline Py_ssize_t _digits(const unsigned char* data, Py_ssize_t at, Py_ssize_t n) noexcept nogil:
    while at < n and _digit(data[at]):
        at += 1
    return at


cdef Py_ssize_t _header_end(const unsigned char* data, Py_ssize_t at, Py_ssize_t n) noexcept nogil:
    """The end of the header line whose ``p`` is at ``at``, or -1 if the line is not
    ``p<blanks>cnf<blanks><digits><blanks><digits>``, then blanks, then its end."""
    cdef Py_ssize_t i = _skip_blanks(data, at + 1, n), j
    cdef int k
    if i == at + 1 or i + 3 > n or data[i] != 99 or data[i + 1] != 110 or data[i + 2] != 102:
        return -1
    i += 3
    for k in range(2):  # blanks, then digits, twice
        j = _skip_blanks(data, i, n)
        if j == i:
            return -1
        i = _digits(data, j, n)
        if i == j:
            return -1
    i = _skip_blanks(data, i, n)
    return i if i == n or data[i] == 10 else -1


cdef bint _names_a_variable(const unsigned char* data, Py_ssize_t at, Py_ssize_t end) noexcept nogil:
    """Whether the comment whose ``c`` is at ``at`` may name a variable: ``c``, blanks,
    ``var`` and a blank (the rest is checked in Python)."""
    cdef Py_ssize_t i = _skip_blanks(data, at + 1, end)
    return (
        i > at + 1 and i + 4 <= end and data[i] == 118 and data[i + 1] == 97
        and data[i + 2] == 114 and _blank(data[i + 3])
    )


cdef Py_ssize_t _number(
    const unsigned char* data, Py_ssize_t at, Py_ssize_t n, int64_t* value
) noexcept nogil:
    """Read the run of digits and minus signs at ``at``: its end if it reads
    ``-?[0-9]+`` (its value, clamped, in ``value[0]``), else NOT_A_NUMBER."""
    cdef bint negative = data[at] == 45
    cdef Py_ssize_t start = at + negative, i, end
    cdef uint64_t v = 0
    i = start
    while i < n and data[i] == 48:
        i += 1
    end = _digits(data, i, n)
    if end == start or (end < n and data[end] == 45):
        return NOT_A_NUMBER
    if end - i > FIT_DIGITS:
        v = CLAMP
    else:
        while i < end:
            v = v * 10 + (data[i] - 48)
            i += 1
        if v > CLAMP:
            v = CLAMP
    value[0] = -<int64_t>v if negative else <int64_t>v
    return end


cdef struct Walk:
    const unsigned char* data
    Py_ssize_t n
    int state
    Py_ssize_t literals  # literals read
    Py_ssize_t clauses  # clauses closed
    int64_t* values  # the literals' values
    int64_t* offsets  # where each clause's literals end (offsets[0] = 0)
    int64_t* literal_starts  # each literal's offset (NULL: not recorded)
    int64_t* clause_starts  # each clause's first token's offset (NULL: not recorded)
    Py_ssize_t last  # offset of the last literal
    int failure  # -1, CHARACTERS, TOKEN or END
    Py_ssize_t at  # where the failure is (END: the last literal, -1 if none)
    Py_ssize_t end  # the end of the token that failed (TOKEN)


cdef inline Py_ssize_t _fail(Walk* w, int kind, Py_ssize_t at, Py_ssize_t end) noexcept nogil:
    w.failure = kind
    w.at = at
    w.end = end
    return -1


cdef inline bint _accept(Walk* w, int64_t value, Py_ssize_t at) noexcept nogil:
    """Take a number token (a literal, or 0 if ``value`` is 0) if the state accepts it."""
    if w.state == TRAILER and value == 0:
        w.state = DONE
        return True
    if w.state != BETWEEN and w.state != INSIDE:
        return False
    if w.state == BETWEEN and w.clause_starts != NULL:
        w.clause_starts[w.clauses] = at
    if value == 0:
        w.clauses += 1
        w.offsets[w.clauses] = w.literals
        w.state = BETWEEN
        return True
    if w.literal_starts != NULL:
        w.literal_starts[w.literals] = at
    w.values[w.literals] = value
    w.literals += 1
    w.last = at
    w.state = INSIDE
    return True


cdef Py_ssize_t _numbers(Walk* w, Py_ssize_t at) noexcept nogil:
    """Read the number tokens of a line from ``at``: the offset of the next line (or the
    end of the text), or -1 on a failure."""
    cdef int64_t value = 0
    cdef Py_ssize_t end
    cdef unsigned char c
    while True:
        at = _skip_blanks(w.data, at, w.n)
        if at == w.n:
            return at
        c = w.data[at]
        if c == 10:
            return at + 1
        if c != 45 and not _digit(c):
            return _fail(w, FAIL_CHARACTERS, at, at)
        end = _number(w.data, at, w.n, &value)
        if end == NOT_A_NUMBER:
            return _fail(w, FAIL_CHARACTERS, at, at)
        if not _accept(w, value, at):
            return _fail(w, FAIL_TOKEN, at, end)
        at = end


cdef tuple _walk(Walk* w, list declarations):
    """Walk the lines; return the header line's bounds, its line and the column of its
    ``p`` (all 0 if none), and append the comments that may name a variable."""
    cdef const unsigned char* data = w.data
    cdef Py_ssize_t at = 0, first, end, line = 1
    cdef Py_ssize_t header_start = 0, header_end = 0, header_line = 0, header_column = 0
    cdef unsigned char c
    while at < w.n and w.failure < 0:
        first = _skip_blanks(data, at, w.n)
        c = data[first] if first < w.n else 10
        if c == 99:  # c: a comment line
            end = _line_end(data, first, w.n)
            if _names_a_variable(data, first, end):
                declarations.append((line, first - at + 1, first, end))
            at = end + 1
        elif c == 112:  # p: the header line, or an error
            end = _header_end(data, first, w.n) if w.state == HEADER else -1
            if end < 0:
                _fail(w, FAIL_CHARACTERS, first, first)
                break
            header_start, header_end, header_line, header_column = at, end, line, first - at + 1
            w.state = BETWEEN
            at = end + 1
        elif c == 37:  # %: the trailer, or an error (a token only at the line's start)
            if w.state != BETWEEN:
                _fail(w, FAIL_TOKEN if first == at else FAIL_CHARACTERS, first, first + 1)
                break
            w.state = TRAILER
            at = _numbers(w, first + 1)
        else:
            at = _numbers(w, first)
        line += 1
    return header_start, header_end, header_line, header_column


def recognise(bytes text, bint positions=False):
    """Read DIMACS ``text`` (UTF-8 bytes) as the grammar does.

    Returns ``(literals, offsets, header, declarations, starts, failure)``: the
    literals' values (int64, clamped as ``twosat_formal.io.dimacs.clamp``) and each
    clause's end offset into them after a leading 0 (int64); ``header``:
    ``(start, end, line, column)`` of the header line (from its start, blanks
    included; ``column`` is its ``p``'s), ``None`` if none was read;
    ``declarations``: ``(line, column, start, end)`` of each comment line that may
    name a variable (from its ``c``); ``starts``: with ``positions``, the offsets of
    each literal and of each clause's first token, else ``None``; ``failure``:
    ``None``, or ``(kind, at, end, state)``: the first deviation (``CHARACTERS`` at
    ``at``; ``TOKEN``, the token ``text[at:end]``; ``END``, the end of the input,
    ``at`` the last literal or -1 if no token came) and the state that met it.
    Offsets are byte offsets; lines and columns are 1-based (the columns count bytes
    that are all blanks before them). The arrays are reserved at the most a text of
    this length can hold (a number and a separator per two bytes); only what is
    written takes memory.
    """
    cdef Walk w
    cdef Py_ssize_t n = len(text), capacity = n // 2 + 2
    values = np.empty(capacity, dtype=np.int64)
    offsets = np.empty(capacity + 1, dtype=np.int64)
    cdef int64_t[::1] values_view = values
    cdef int64_t[::1] offsets_view = offsets
    cdef int64_t[::1] literal_view, clause_view
    w.data = <const unsigned char*>(<char*>text)
    w.n = n
    w.state = HEADER
    w.literals = w.clauses = 0
    w.values = &values_view[0]
    w.offsets = &offsets_view[0]
    w.offsets[0] = 0
    w.literal_starts = w.clause_starts = NULL
    w.last = -1
    w.failure = -1
    w.at = w.end = 0
    if positions:
        literal_starts = np.empty(capacity, dtype=np.int64)
        clause_starts = np.empty(capacity, dtype=np.int64)
        literal_view, clause_view = literal_starts, clause_starts
        w.literal_starts = &literal_view[0]
        w.clause_starts = &clause_view[0]
    declarations = []
    header = _walk(&w, declarations)
    if w.failure < 0 and (w.state == HEADER or w.state == INSIDE):
        _fail(&w, FAIL_END, w.last, w.last)
    starts = (literal_starts[: w.literals], clause_starts[: w.clauses]) if positions else None
    return (
        values[: w.literals],
        offsets[: w.clauses + 1],
        header if header[2] else None,
        declarations,
        starts,
        None if w.failure < 0 else (w.failure, w.at, w.end, w.state),
    )
