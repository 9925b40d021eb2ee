"""Input files, checked and read within bounds: the rules every reader shares.

An input is a regular file. A named pipe, a device (``/dev/zero`` never ends), a
socket or a directory is refused before it is opened, with a message that says what
it is and what to give instead (readers may read an input twice, which a pipe cannot
do; ``-`` copies stdin for them). A file read whole is read up to
:data:`MAX_TEXT_BYTES` and refused beyond, its size checked before any byte is read
(a 4 GB sparse file costs nothing); line readers bound each line by
:data:`MAX_LINE_CHARS` (:mod:`twosat_formal.io.jsonl`).

Examples
--------
>>> from twosat_formal.errors import RecordError
>>> check_input("/dev/zero", "/dev/zero", RecordError)
Traceback (most recent call last):
...
twosat_formal.errors.RecordError: /dev/zero: is a character device, not a regular file: \
give a file, or '-' where the command reads stdin
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from typing import IO, AnyStr, BinaryIO

__all__ = [
    "MAX_LINE_CHARS",
    "MAX_TEXT_BYTES",
    "bounded_lines",
    "check_input",
    "os_error_reason",
    "read_bounded",
    "read_stream_bounded",
    "special_kind",
]

#: The longest line a reader takes (a JSON Lines record, an answer line), in characters:
#: 64 Mi, some ten times the record of a 200,000-clause formula.
MAX_LINE_CHARS = 64 * 1024 * 1024
#: The largest file read whole (a DIMACS or DSL formula, stdin's formula), in bytes:
#: 256 MiB.
MAX_TEXT_BYTES = 256 * 1024 * 1024

#: The error a check raises: ``error(message, source=name)``.
ErrorType = Callable[..., Exception]

_SPECIAL = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


#: What a directory given as a file is told.
_DIRECTORY = "is a directory, not a file"
#: What an error of the file system says after the file's name, in every message.
_OS_REASONS: tuple[tuple[type[OSError], str], ...] = (
    (IsADirectoryError, _DIRECTORY),
    (FileNotFoundError, "no such file"),
    (PermissionError, "permission denied"),
)


def os_error_reason(exc: OSError) -> str | None:
    """What ``exc`` says after the file's name, for the errors every reader and the CLI
    word alike (a directory, a missing file, a permission); ``None`` for another.

    >>> os_error_reason(IsADirectoryError(21, "Is a directory", "d")), os_error_reason(OSError())
    ('is a directory, not a file', None)
    """
    return next((says for kind, says in _OS_REASONS if isinstance(exc, kind)), None)


def special_kind(info: os.stat_result) -> str | None:
    """What a path that is not a regular file is (``"a directory"``, ``"a named pipe
    (FIFO)"``...), from its ``stat``; ``None`` for a regular file.

    >>> import os
    >>> special_kind(os.stat("/dev/null")), special_kind(os.stat(__file__))
    ('a character device', None)
    """
    if stat.S_ISDIR(info.st_mode):
        return "a directory"
    return next((kind for test, kind in _SPECIAL if test(info.st_mode)), None)


def check_input(path: str | os.PathLike[str], name: str, error: ErrorType) -> os.stat_result:
    """The ``stat`` of ``path``; ``error`` naming ``name`` unless it is a regular file.

    ``error`` is the reader's error type, called as ``error(message, source=name)``
    (:class:`~twosat_formal.errors.ParseError`, :class:`~twosat_formal.errors.RecordError`).
    A missing file raises :class:`FileNotFoundError`, as ``os.stat`` does.
    """
    info = os.stat(path)
    kind = special_kind(info)
    if kind == "a directory":
        raise error(_DIRECTORY, source=name)
    if kind is not None:
        raise error(
            f"is {kind}, not a regular file: give a file, or '-' where the command reads stdin",
            source=name,
        )
    return info


def _too_large(error: ErrorType, name: str, limit: int) -> Exception:
    return error(f"the input is larger than {limit} bytes, the most it may have", source=name)


def read_stream_bounded(
    stream: BinaryIO, name: str, error: ErrorType, limit: int = MAX_TEXT_BYTES
) -> bytes:
    """At most ``limit`` bytes of ``stream`` (stdin), ``error`` if there are more.

    >>> import io
    >>> from twosat_formal.errors import ParseError
    >>> read_stream_bounded(io.BytesIO(b"12345"), "<stdin>", ParseError, limit=4)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: <stdin>: the input is larger than 4 bytes, the most it may have
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _too_large(error, name, limit)
    return data


def read_bounded(
    path: str | os.PathLike[str], name: str, error: ErrorType, limit: int = MAX_TEXT_BYTES
) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` (see :func:`check_input`).

    The size is checked before the file is opened, and the read stops one byte past
    ``limit`` (a file that grows meanwhile).
    """
    if check_input(path, name, error).st_size > limit:
        raise _too_large(error, name, limit)
    with open(path, "rb") as stream:
        return read_stream_bounded(stream, name, error, limit)


def bounded_lines(
    stream: IO[AnyStr], name: str, error: ErrorType, limit: int = MAX_LINE_CHARS
) -> Iterator[AnyStr]:
    """The lines of ``stream`` (text or bytes), ``error`` at a line longer than ``limit``.

    The line is refused once ``limit`` characters of it are read, so a file without
    line ends costs at most ``limit`` characters of memory. ``error`` is called as
    ``error(message, line=number, source=name)``.

    >>> import io
    >>> from twosat_formal.errors import RecordError
    >>> list(bounded_lines(io.BytesIO(b"ab\\ncd"), "f", RecordError, limit=3))
    [b'ab\\n', b'cd']
    >>> list(bounded_lines(io.StringIO("abcd\\n"), "f", RecordError, limit=3))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: f:1: the line is longer than 3 characters, the most \
a line may have (a file without line ends?)
    """
    number = 0
    while line := stream.readline(limit + 1):
        number += 1
        if len(line) > limit and line[-1:] not in ("\n", b"\n"):
            raise error(
                f"the line is longer than {limit} characters, the most a line may have "
                "(a file without line ends?)",
                line=number,
                source=name,
            )
        yield line
