"""What every located parse error must show: where it is, what it says, the line it quotes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from twosat_formal.errors import ParseError

__all__ = ["assert_parse_error"]


def assert_parse_error(
    read: Callable[..., object],
    text: str,
    source: str,
    line: int,
    column: int,
    words: Sequence[str],
) -> ParseError:
    """Check that ``read(text, source=source)`` fails at ``line``:``column`` of ``source``.

    The error's one line starts ``source:line:column:``, its message says each of
    ``words``, and it quotes the offending line of ``text`` (cut at 200 characters).
    Returns the error for further checks.
    """
    with pytest.raises(ParseError) as info:
        read(text, source=source)
    err = info.value
    assert (err.line, err.column, err.source) == (line, column, source)
    assert str(err).startswith(f"{source}:{line}:{column}: ")
    for word in words:
        assert word in err.message, (word, err.message)
    assert err.context == text.split("\n")[line - 1][:200]
    return err
