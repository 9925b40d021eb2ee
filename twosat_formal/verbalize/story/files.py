"""Story records as JSON Lines: read lazily, written one record a line."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from twosat_formal.io.jsonl import read_json_lines, write_lines
from twosat_formal.verbalize.story.record import StoryRecord

__all__ = ["read_stories", "write_stories"]


def read_stories(path: str | Path) -> Iterator[StoryRecord]:
    """The story records of a JSON Lines file (``"-"``: stdin), lazily; blank lines skipped.

    Raises :class:`RecordError` with the line number on the first bad line.
    """
    for line in read_json_lines(path):
        yield StoryRecord.from_record(line.value, line=line.number, source=line.source)


def write_stories(records: Iterable[StoryRecord], path_or_stream: str | Path | IO[str]) -> int:
    """Write story records as JSON Lines (``"-"``: stdout); returns how many.

    >>> import io
    >>> buf = io.StringIO()
    >>> from twosat_formal.verbalize.story.record import bind_id
    >>> rec = bind_id(StoryRecord.create(instance_id="i", theme="spy", model="m", seed=0,
    ...     entities={}, intro="I.", clues=(), story="I.", text="T", recovered=()))
    >>> write_stories([rec], buf)
    1
    >>> from twosat_formal.io.jsonl import read_stream
    >>> lines = read_stream(io.StringIO(buf.getvalue()), "<mem>")
    >>> [StoryRecord.from_record(line.value) == rec for line in lines]
    [True]
    """
    return write_lines((record.to_json() for record in records), path_or_stream)
