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
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NamedTuple

from twosat_formal.core.jsonread import loads
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.io.inputs import bounded_lines, check_input, read_bounded

__all__ = [
    "JsonLine",
    "RawLine",
    "first_char",
    "is_dataset",
    "json_line",
    "parse_line",
    "parse_raw",
    "raw_lines",
    "read_json_file",
    "read_json_lines",
    "read_stream",
    "read_text",
    "refuse_empty",
    "refuse_shared_stdin",
    "rereadable",
    "rereadable_or_none",
    "source_name",
    "stdin_input",
    "write_lines",
]

#: Characters that some readers take for line breaks; escaped inside JSON strings.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


#: The copies of standard input that :func:`rereadable` holds, and the name their
#: errors give (``<stdin>``, never the temporary path).
_COPIES: dict[str, str] = {}


def source_name(path: str | os.PathLike[str]) -> str:
    """The name a reader's errors give for ``path``: ``<stdin>`` for a copy of standard
    input that :func:`rereadable` made, else the path as given.

    >>> source_name("data.jsonl")
    'data.jsonl'
    """
    return _COPIES.get(os.fspath(path), os.fspath(path))


def _named(path: str | os.PathLike[str], source: str | None) -> str:
    """The name a reader's errors give: ``source`` when given, else :func:`source_name`."""
    return source if source is not None else source_name(path)


class JsonLine(NamedTuple):
    """One parsed line: where it came from and its JSON value.

    With ``strict=False`` a line that is not JSON has a :class:`RecordError` as value.
    """

    source: str
    number: int
    value: Any


class RawLine(NamedTuple):
    """One non-blank line, not yet parsed: small to send to a worker, which parses it."""

    source: str
    number: int
    text: str


def parse_raw(line: RawLine) -> JsonLine:
    """The JSON value of a raw line; :class:`RecordError` with its position if not JSON.

    >>> parse_raw(RawLine("f.jsonl", 3, '{"a": 1}')).value
    {'a': 1}
    """
    return JsonLine(line.source, line.number, parse_line(line.text, line.source, line.number))


def parse_line(text: str, source: str, number: int) -> Any:
    """The JSON value of one line of a JSON Lines file: the rule every line reader applies.

    A line ends at ``\\n`` (a ``\\r`` just before it is allowed); any other carriage
    return is refused, since readers that also break lines at ``\\r`` would see
    another record. The text is read by :func:`twosat_formal.core.jsonread.loads`.

    >>> parse_line('{"a": 1}' + chr(13) + chr(10), "f.jsonl", 2)
    {'a': 1}
    >>> parse_line('{"a":' + chr(13) + ' 1}', "f.jsonl", 2)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: f.jsonl:2: a carriage return (\\r) inside the line: ...
    """
    body = text[:-1] if text.endswith("\n") else text
    if body.endswith("\r"):
        body = body[:-1]
    if "\r" in body:
        raise RecordError(
            "a carriage return (\\r) inside the line: a record is one line ended by \\n",
            line=number,
            source=source,
        )
    return loads(body, source=source, line=number)


#: What a zero-byte input is told (one rule for every command).
EMPTY_INPUT = "the file is empty (0 bytes): expected a formula or a dataset"


def refuse_empty(path: str | Path, name: str) -> None:
    """A :class:`RecordError` naming ``name`` unless ``path`` is a regular file with bytes.

    One rule for every command: a zero-byte formula file, dataset or answer file is
    an error, never an empty input; a named pipe, a device (``/dev/zero``), a socket
    or a directory is refused before it is opened (an input may be read twice, and a
    device never ends): give a file, or ``-`` where the command reads stdin.

    >>> refuse_empty("/dev/zero", "/dev/zero")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: /dev/zero: is a character device, not a regular file: \
give a file, or '-' where the command reads stdin
    """
    if check_input(path, name, RecordError).st_size == 0:
        raise RecordError(EMPTY_INPUT, source=name)


def _not_text(exc: UnicodeDecodeError, name: str, line: int | None) -> RecordError:
    """The error of bytes that are not UTF-8: at a byte of line ``line``, or of the file."""
    where = f"byte {exc.start}" if line is None else f"byte {exc.start} of the line"
    return RecordError(f"input is not UTF-8 text ({where})", line=line, source=name)


def _lines(stream: IO[str] | IO[bytes], name: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of a stream; bytes that are not UTF-8 name the file and line.

    A binary stream is split at ``\\n`` only, as every line reader splits it (a text
    stream opened with universal newlines would also split at ``\\r``). A line longer
    than :data:`~twosat_formal.io.inputs.MAX_LINE_CHARS` (a file with no line end, say) is
    a :class:`RecordError` (:func:`~twosat_formal.io.inputs.bounded_lines`).
    """
    number = 0
    lines: Iterator[str | bytes] = bounded_lines(stream, name, RecordError)  # type: ignore[misc]
    while True:
        try:
            item = next(lines)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            raise _not_text(exc, name, number + 1) from None
        number += 1
        if isinstance(item, bytes):
            try:
                text = item.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _not_text(exc, name, number) from None
        else:
            text = item
        if "\0" in text:
            raise RecordError(
                "binary data (a NUL character) where text was expected", line=number, source=name
            )
        yield number, text


def raw_lines(path: str | Path, *, source: str | None = None) -> Iterator[RawLine]:
    """The non-blank lines of a file, lazily, with their 1-based numbers.

    ``source`` is the name errors give (default: the path). A zero-byte file and bytes
    that are not UTF-8 text are :class:`RecordError`\\ s naming the file.
    """
    name = _named(path, source)
    refuse_empty(path, name)
    with open(path, "rb") as stream:
        for number, text in _lines(stream, name):
            if text.strip():
                yield RawLine(name, number, text)


def first_char(path: str | Path, *, source: str | None = None) -> str:
    """The first character of a file that is not white space (``""`` if none).

    Reads only as far as that character, so a large file costs nothing. A zero-byte
    file or one that is not UTF-8 text is a :class:`RecordError` naming ``source``
    (default: the path).
    """
    name = _named(path, source)
    refuse_empty(path, name)
    with open(path, encoding="utf-8") as stream:
        try:
            while chunk := stream.read(4096):
                stripped = chunk.lstrip()
                if stripped:
                    return stripped[0]
        except UnicodeDecodeError as exc:
            raise _not_text(exc, name, None) from None
    return ""


def is_dataset(path: str | Path, *, source: str | None = None) -> bool:
    """Whether an input is a dataset (JSON Lines records) rather than one formula file.

    This is the one test every command that takes "a dataset or a formula file" uses: a
    name ending in ``.jsonl``, or a first non-blank character ``{`` (DIMACS and the DSL
    never start with one). ``source`` is the name the user gave (``"<stdin>"`` for a
    copy of stdin, see :func:`rereadable`); a zero-byte or binary file that is not named
    ``.jsonl`` is a :class:`RecordError`.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     cnf, data = os.path.join(tmp, "f.cnf"), os.path.join(tmp, "d.txt")
    ...     _ = open(cnf, "w").write("p cnf 1 1\\n1 0\\n")
    ...     _ = open(data, "w").write('  {"id": "a"}\\n')
    ...     is_dataset(cnf), is_dataset(data), is_dataset(cnf, source="x.jsonl")
    (False, True, True)
    """
    name = _named(path, source)
    return name.endswith(".jsonl") or first_char(path, source=name) == "{"


def read_json_file(path: str | os.PathLike[str], *, source: str | None = None) -> Any:
    """The JSON value of a whole file (UTF-8), read by
    :func:`~twosat_formal.core.jsonread.loads` within the bounds of every input
    (:func:`~twosat_formal.io.inputs.read_bounded`: a regular file of at most
    :data:`~twosat_formal.io.inputs.MAX_TEXT_BYTES`, its size checked before it is read).

    A file that is not UTF-8 text is a :class:`RecordError` naming it, and so is a named
    pipe, a device or a directory.
    """
    name = _named(path, source)
    data = read_bounded(path, name, RecordError)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_text(exc, name, None) from None
    return loads(text, source=name)


def read_text(path: str | Path, *, source: str | None = None) -> str:
    """The whole text of a formula file; empty or binary input is refused naming the file.

    So is a file larger than :data:`~twosat_formal.io.inputs.MAX_TEXT_BYTES` (checked
    before it is read) and anything that is not a regular file (:func:`refuse_empty`).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     empty = os.path.join(tmp, "e.cnf")
    ...     _ = open(empty, "w").close()
    ...     read_text(empty, source="e.cnf")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.RecordError: e.cnf: the file is empty (0 bytes): expected a formula ...
    """
    from twosat_formal.io._parsing import decode

    name = _named(path, source)
    refuse_empty(path, name)
    data = read_bounded(path, name, RecordError)
    return decode(data, source=name)


def stdin_input() -> IO[bytes] | IO[str]:
    """Standard input as a reader takes it: as bytes where it has them (a replaced
    ``sys.stdin`` may not), zero bytes refused as a zero-byte file is (:func:`refuse_empty`).

    Raises
    ------
    RecordError
        Naming ``<stdin>``, when it holds no byte at all.
    """
    stream = _stdin()
    if _at_end(stream):
        raise RecordError(EMPTY_INPUT, source="<stdin>")
    return stream


def _stdin() -> IO[bytes] | IO[str]:
    """Standard input as bytes where it has them (a replaced ``sys.stdin`` may not)."""
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer if buffer is not None else sys.stdin


def _at_end(stream: IO[bytes] | IO[str]) -> bool:
    """Whether ``stream`` has nothing left to read, without consuming it: a buffered
    stream is peeked at (a pipe waits for its first byte or its end), a seekable one is
    read and sought back; another is taken to hold something."""
    peek = getattr(stream, "peek", None)
    if callable(peek):
        return not peek(1)
    if stream.seekable():
        where = stream.tell()
        ended = not stream.read(1)
        stream.seek(where)
        return ended
    return False


@contextmanager
def rereadable(path: str | Path) -> Iterator[tuple[Path, str]]:
    """A path that can be read more than once, and the name errors should give.

    A file is itself; ``"-"`` (stdin) is copied to a temporary file, in chunks, which
    is deleted afterwards: a stream is read twice without holding it in memory. While
    the copy exists, every reader of this module names it ``<stdin>`` in its errors
    (:func:`source_name`), whoever passes the path on.
    """
    if str(path) != "-":
        yield Path(path), str(path)
        return
    with tempfile.TemporaryDirectory(prefix="twosat-stdin-") as folder:
        copy = Path(folder) / "stdin"
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a replaced sys.stdin without bytes
            with open(copy, "w", encoding="utf-8", newline="") as text:
                shutil.copyfileobj(sys.stdin, text)
        else:
            with open(copy, "wb") as stream:  # the bytes as they came: no line end translated
                shutil.copyfileobj(buffer, stream)
        _COPIES[os.fspath(copy)] = "<stdin>"
        try:
            yield copy, "<stdin>"
        finally:
            del _COPIES[os.fspath(copy)]


@contextmanager
def rereadable_or_none(path: str | Path | None) -> Iterator[Path | None]:
    """:func:`rereadable`'s path for ``path`` (``"-"``: a copy of standard input), or
    ``None`` for none: an optional input (``--dataset``) that is read more than once."""
    if path is None:
        yield None
        return
    with rereadable(path) as (file, _):
        yield file


def refuse_shared_stdin(inputs: Mapping[str, str | os.PathLike[str] | None]) -> None:
    """Refuse ``"-"`` (standard input) given to more than one of a command's inputs
    (``inputs``: each parameter as its help names it, with its path or ``None``): the
    stream can be read once, so the second would read nothing.

    Raises
    ------
    ConfigError
        Naming the inputs that both read it.

    Examples
    --------
    >>> refuse_shared_stdin({"PROMPTS": "-", "--dataset": "d.jsonl"})
    >>> try:
    ...     refuse_shared_stdin({"PROMPTS": "-", "--dataset": "-"})
    ... except ConfigError as error:
    ...     print(error)
    PROMPTS and --dataset both read standard input (-): it is read once; give all but one a file
    """
    readers = [name for name, path in inputs.items() if path is not None and os.fspath(path) == "-"]
    if len(readers) > 1:
        raise ConfigError(
            f"{', '.join(readers[:-1])} and {readers[-1]} both read standard input (-): "
            "it is read once; give all but one a file",
            parameter=readers[-1].lstrip("-").lower(),
            valid="standard input for one input at most",
        )


def json_line(obj: Any) -> str:
    """One record as a JSON line (no trailing newline), safe for every line reader.

    >>> print(json_line({"a": "x" + chr(0x2028), "b": 1}))
    {"a": "x\\u2028", "b": 1}
    """
    text = _ENCODE(obj)
    # a search per character is far cheaper than translating a text without any
    if "\u2028" in text or "\u2029" in text or "\x85" in text:
        return text.translate(_LINE_BREAKS)
    return text


#: ``json.dumps(obj, ensure_ascii=False, allow_nan=False)``, its encoder made once.
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def read_stream(
    stream: IO[str] | IO[bytes], source: str, *, strict: bool = True
) -> Iterator[JsonLine]:
    """The JSON values of the non-blank lines of ``stream`` (read by :func:`parse_line`).

    Raises :class:`RecordError` with the line number for a line that is not JSON
    (``strict=False``: yields the error as the line's value instead). Give a binary
    stream: a text stream with universal newlines splits lines at ``\\r`` as well.
    """
    for number, text in _lines(stream, source):
        if not text.strip():
            continue
        try:
            value = parse_line(text, source, number)
        except RecordError as error:
            if strict:
                raise
            value = error
        yield JsonLine(source, number, value)


def read_json_lines(path: str | Path, *, strict: bool = True) -> Iterator[JsonLine]:
    """:func:`read_stream` over a file (``"-"``: stdin), lazily, read as bytes.

    A zero-byte input is refused (:func:`refuse_empty`), standard input too.
    """
    if str(path) == "-":
        yield from read_stream(stdin_input(), "<stdin>", strict=strict)
        return
    name = source_name(path)
    refuse_empty(path, name)
    with open(path, "rb") as stream:
        yield from read_stream(stream, name, strict=strict)


def write_lines(lines: Iterable[str], path_or_stream: str | Path | IO[str]) -> int:
    """Write JSON lines to a path (``"-"``: stdout) or a text stream; returns how many."""
    if isinstance(path_or_stream, str | Path):
        from twosat_formal._util.atomic import atomic_output

        # no partial file on failure; "-" is sys.stdout itself (atomic_output)
        with atomic_output(path_or_stream) as stream:
            return write_lines(lines, stream)
    count = 0
    for line in lines:
        path_or_stream.write(line + "\n")
        count += 1
    return count
