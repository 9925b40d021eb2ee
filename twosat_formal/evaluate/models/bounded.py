"""A server's reply bytes, read and decoded within bounds.

What a server sends is read by rules that no reply can stretch:

* at most :data:`MAX_REPLY_BYTES` bytes of body, counted after decompression: a
  ``gzip`` or ``deflate`` body (the only encodings asked for) is inflated here, a
  bounded slice at a time, so that a compression bomb stops at the bound and never
  fills memory; any other ``Content-Encoding`` is refused;
* JSON nested at most :data:`MAX_REPLY_DEPTH` levels deep, checked on the bytes
  before they are decoded (Python's decoder would otherwise recurse to its limit);
* text without lone surrogates (``"\\ud800"`` decodes to a Python string that no
  UTF-8 store, file or terminal can hold);
* JSON as the project's one JSON reader (:func:`twosat_formal.core.jsonread.loads`)
  reads it: an object with a key twice (``"content"`` twice: which copy is the
  answer?), ``NaN`` or a number beyond a double is a malformed reply, not a guess.

Each rule that a reply breaks raises :class:`~twosat_formal.errors.EvaluationError`,
the failure of that one request (stored as such by ``eval``), never a crash.

Examples
--------
>>> json_depth(b'{"a": [1, {"b": "[[[["}]}')
3
>>> load_reply(b'[' * 100 + b']' * 100)
Traceback (most recent call last):
...
twosat_formal.errors.EvaluationError: malformed reply: JSON nested 100 levels deep \
(at most 64)
>>> check_text("fine", "the answer text")
'fine'
"""

from __future__ import annotations

import re
import zlib
from collections.abc import AsyncIterator, Iterable

import numpy as np

from twosat_formal.core.jsonread import loads
from twosat_formal.errors import EvaluationError, RecordError

__all__ = [
    "ACCEPT_ENCODING",
    "MAX_REPLY_BYTES",
    "MAX_REPLY_DEPTH",
    "check_text",
    "inflate",
    "json_depth",
    "load_reply",
    "read_body",
]

#: The most bytes of one reply body that are read (after decompression): 16 MiB, some
#: hundred times a 32,768-token answer.
MAX_REPLY_BYTES = 16 * 1024 * 1024
#: The deepest JSON nesting of a reply that is decoded (an OpenAI reply is 4 deep).
MAX_REPLY_DEPTH = 64
#: The content encodings asked for (``Accept-Encoding``), the ones :func:`inflate` reads.
ACCEPT_ENCODING = "gzip, deflate"
#: The source :func:`load_reply` names to the JSON reader (its errors drop it).
_REPLY = "reply"

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_KEEP = frozenset(b"[]{}")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _KEEP)
#: zlib's window bits that accept a gzip or a zlib header alike.
_GZIP_OR_ZLIB = 32 + zlib.MAX_WBITS
_SLICE = 1 << 16


def _size(size: int) -> str:
    mib = size / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else f"{size} bytes"


def json_depth(raw: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text ``raw`` (strings skipped).

    Linear in ``len(raw)`` and recursion-free, so that it is safe on any bytes.

    >>> json_depth(b'"[{"'), json_depth(b"[[], [[]]]"), json_depth(b"7")
    (0, 3, 0)
    """
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def load_reply(raw: bytes, max_depth: int = MAX_REPLY_DEPTH) -> object:
    """``raw`` decoded as JSON by the project's one reader, refused when it is not JSON,
    nests too deep or breaks that reader's rules (a key twice in one object).

    Raises :class:`~twosat_formal.errors.EvaluationError` for a body that is not UTF-8
    JSON, nests deeper than ``max_depth`` or is refused by
    :func:`twosat_formal.core.jsonread.loads`.

    >>> load_reply(b'{"choices": []}')
    {'choices': []}
    >>> load_reply(b"<html>")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: malformed reply: the body is not JSON ('<html>')
    >>> load_reply(b'{"content": "Yes", "content": "No"}')
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: malformed reply: the key 'content' appears twice \
in one object
    """
    depth = json_depth(raw)
    if depth > max_depth:
        raise EvaluationError(
            f"malformed reply: JSON nested {depth} levels deep (at most {max_depth})"
        )
    try:
        return loads(raw.decode("utf-8"), source=_REPLY)
    except UnicodeError:  # strict UTF-8 holds no surrogate: none reaches the reader
        reason = "invalid JSON"
    except RecordError as exc:
        reason = str(exc).partition(": ")[2]
    if reason.startswith("invalid JSON"):
        preview = check_text(raw[:80].decode("utf-8", "replace"), "", strict=False)
        reason = f"the body is not JSON ({preview!r})"
    raise EvaluationError(f"malformed reply: {reason}")


def check_text(text: str, what: str, *, strict: bool = True) -> str:
    """``text`` when it encodes as UTF-8; a lone surrogate refused (``strict``) or escaped.

    >>> check_text("a\\ud800b", "x", strict=False)
    'a\\\\ud800b'
    >>> check_text("a\\ud800b", "the answer text")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: malformed reply: the answer text holds a lone \
surrogate ('\\\\ud800' at character 1)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        if not strict:
            return text.encode("utf-8", "backslashreplace").decode("utf-8")
        bad = text[exc.start].encode("utf-8", "backslashreplace").decode("ascii")
        raise EvaluationError(
            f"malformed reply: {what} holds a lone surrogate ({bad!r} at character {exc.start})"
        ) from None
    return text


def inflate(chunks: Iterable[bytes], limit: int) -> bytes:
    """The gzip or zlib stream ``chunks`` decompressed, at most ``limit`` bytes of it.

    The input is fed a slice at a time and each slice inflated into bounded pieces,
    so that the work is linear and memory holds at most ``limit`` bytes plus one
    slice. Raises :class:`~twosat_formal.errors.EvaluationError` once the output would
    pass ``limit``, or when the stream is corrupt, cut short or followed by more data.

    >>> inflate([zlib.compress(b"x" * 10)], 100)
    b'xxxxxxxxxx'
    >>> inflate([zlib.compress(b"x" * 1000)], 100)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: reply too large: more than 100 bytes decompressed
    """
    out: list[bytes] = []
    size = 0
    stream = zlib.decompressobj(_GZIP_OR_ZLIB)
    try:
        for chunk in chunks:
            for start in range(0, len(chunk), _SLICE):
                pending = chunk[start : start + _SLICE]
                while pending:
                    if stream.eof:
                        raise EvaluationError(
                            "malformed reply: data after the end of the compressed body"
                        )
                    piece = stream.decompress(pending, limit - size + 1)
                    size += len(piece)
                    if size > limit:
                        raise EvaluationError(
                            f"reply too large: more than {_size(limit)} decompressed"
                        )
                    out.append(piece)
                    pending = stream.unconsumed_tail
        tail = stream.flush()
        if size + len(tail) > limit:
            raise EvaluationError(f"reply too large: more than {_size(limit)} decompressed")
        out.append(tail)
    except zlib.error as exc:
        raise EvaluationError(f"malformed reply: the compressed body is corrupt ({exc})") from None
    if stream.unused_data:
        raise EvaluationError("malformed reply: data after the end of the compressed body")
    if not stream.eof:
        raise EvaluationError("malformed reply: the compressed body is cut short")
    return b"".join(out)


async def read_body(
    chunks: AsyncIterator[bytes], encoding: str | None, limit: int = MAX_REPLY_BYTES
) -> bytes:
    """The body that ``chunks`` stream, decoded from ``encoding``, of at most ``limit`` bytes.

    ``chunks`` are the raw (still compressed) bytes; the compressed size is bounded by
    ``limit`` as well. Raises :class:`~twosat_formal.errors.EvaluationError` for a
    larger body or an encoding other than ``identity``, ``gzip`` and ``deflate``.
    """
    coding = (encoding or "identity").strip().lower()
    if coding not in ("identity", "", "gzip", "x-gzip", "deflate"):
        shown = check_text(coding, "", strict=False)
        raise EvaluationError(
            f"malformed reply: unsupported Content-Encoding {shown!r} (asked for {ACCEPT_ENCODING})"
        )
    raw: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise EvaluationError(f"reply too large: more than {_size(limit)}")
        raw.append(chunk)
    if coding in ("identity", ""):
        return b"".join(raw)
    return inflate(raw, limit)
