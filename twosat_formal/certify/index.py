"""The one pass over a dataset: each line read and parsed once, and the index of its ids.

:class:`Index` reads the dataset's files a line at a time and has each line parsed
once (:func:`parse`, the strict JSON reader of every command) on the executor that
runs the checks (:func:`read_line`: on its workers, when it has some). What the checks
need of the line, its parsed value, is written to a spill file (a private temporary
file, marshalled (:func:`pack`), beside the SHA-256 of the line, its id and the ids it
refers to), never
held in memory; what the index keeps per record is where its id's entry is: the id and
one int, so memory does not grow with the records but by that (about 170 bytes a
record, ``tests/cli/test_memory_bound.py``). Then :meth:`Index.items` reads the entries
back in file order, each with the entries of the records it refers to (a derived
instance's root, a prompt's or story's instance, a twin's source), read back by their
place through a small cache since many records share one root. A worker
(:func:`task_of`) reads the parsed values back (:func:`unpack`): no line is parsed
twice, and no id is guessed.

Examples
--------
>>> import os, tempfile
>>> from twosat_formal.io.jsonl import json_line
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "d.jsonl")
...     with open(path, "w") as out:
...         for record in ({"id": "i"}, {"id": "p", "instance_id": "i"}):
...             _ = out.write(json_line(record) + "\\n")
...     with Index([path]) as index:
...         [(item.line, item.id, [e and e.id for e in item.found]) for item in index.items()]
[(1, 'i', [None, None, None]), (2, 'p', [None, 'i', None])]
"""

from __future__ import annotations

import hashlib
import marshal
import pickle
import struct
import tempfile
from collections.abc import Collection, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from twosat_formal._util.atomic import refuse_repeats
from twosat_formal._util.closing import Closing
from twosat_formal._util.executors import Executor, LocalExecutor
from twosat_formal._util.recent import Recent
from twosat_formal.certify.checker import Task
from twosat_formal.certify.results import CheckFailure, dataset_source
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.io.inputs import bounded_lines
from twosat_formal.io.jsonl import parse_line, refuse_empty, source_name

__all__ = [
    "REFERENCES",
    "Entry",
    "Index",
    "Item",
    "Line",
    "count_records",
    "parse",
    "read_line",
    "task_of",
]

#: The fields that name another record: a derived instance's root, a prompt's
#: instance, a twin's source (the order of :attr:`Entry.refs`).
REFERENCES = ("base_id", "instance_id", "twin_of")

#: Referenced entries kept in memory (by the reader, and parsed by each worker).
CACHE_SIZE = 256

#: Places in the spill file are below this (256 TiB): :class:`Index` packs a record's
#: file, place and line into one int.
OFFSETS = 1 << 48

#: An entry of the spill file opens with the lengths of its head and of its value.
_LENGTHS = struct.Struct("<II")


class Entry(NamedTuple):
    """One line as the index read it (an entry of the spill file)."""

    #: The number of its file among the dataset's, and its line there.
    number: int
    line: int
    #: The SHA-256 of the line's bytes (what ``--cache`` keys are made of).
    key: bytes
    #: The record's id (``None``: the line is no object with a string id).
    id: str | None
    #: The ids it refers to, in the order of :data:`REFERENCES` (``None``: none).
    refs: tuple[str | None, ...]
    #: The line's parsed value, or the :class:`RecordError` saying why it has none,
    #: packed (:func:`pack`).
    payload: bytes


class Item(NamedTuple):
    """One record as a worker receives it (:func:`task_of`)."""

    source: str
    line: int
    id: str | None
    key: bytes
    payload: bytes
    #: The entries of the records it refers to (``None``: no such record).
    found: tuple[Entry | None, ...]
    #: Whether a prompt or story of the dataset names the record as its instance.
    verbalized: bool = False


def parse(raw: bytes, number: int, path: str) -> Any:
    """The JSON value of one line, or a :class:`RecordError` saying why it has none."""
    try:
        return parse_line(raw.decode("utf-8"), path, number)
    except UnicodeDecodeError as exc:
        return RecordError(f"not UTF-8 text (byte {exc.start})", line=number, source=path)
    except RecordError as exc:
        return exc


def references(record: Any) -> tuple[str | None, ...]:
    """The ids ``record`` refers to (``None`` where a field is absent or not a string).

    >>> references({"id": "p", "instance_id": "i-1", "base_id": 3})
    (None, 'i-1', None)
    """
    if not isinstance(record, dict):
        return _NO_REFERENCES
    values = [record.get(key) for key in REFERENCES]
    return tuple([value if isinstance(value, str) else None for value in values])


_NO_REFERENCES = (None,) * len(REFERENCES)


def pack(value: Any) -> bytes:
    """A line's parsed value as bytes for the spill file, read back by :func:`unpack`.

    A JSON value (objects, arrays, strings, numbers, booleans, ``null``) is written by
    ``marshal``, which keeps exactly those types and the key order, about twice as
    fast as ``pickle`` both ways; a :class:`RecordError` (a line with no value) is
    pickled. A pickle opens with the byte ``0x80`` (its protocol), which opens no
    ``marshal`` text (``0x80`` is a flag on a type code, and no type code is 0).

    >>> [unpack(pack(v)) for v in ({"a": [1, 2.5, True, None]}, "x")]
    [{'a': [1, 2.5, True, None]}, 'x']
    >>> str(unpack(pack(RecordError("bad", line=3))))
    '3: bad'
    """
    if isinstance(value, RecordError):
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return marshal.dumps(value)


def unpack(payload: bytes) -> Any:
    """The value :func:`pack` wrote."""
    if payload[:1] == _PICKLED:
        return pickle.loads(payload)
    return marshal.loads(payload)


#: What every pickle (protocol 2 and above) opens with.
_PICKLED = b"\x80"


class Line(NamedTuple):
    """A line for :func:`read_line`: its file's number and path, its line, its bytes."""

    number: int
    line: int
    raw: bytes
    path: str


def read_line(item: Line) -> tuple[int, int, str | None, str | None, bytes]:
    """Parse one line: its file's number, its line, its id and instance id (``None``:
    none), and its entry's bytes in the spill file (the work the index hands out)."""
    value = parse(item.raw, item.line, item.path)
    key = value.get("id") if isinstance(value, dict) else None
    record_id = key if isinstance(key, str) else None
    refs = references(value)
    payload = pack(value)
    head = marshal.dumps(
        (item.number, item.line, hashlib.sha256(item.raw).digest(), record_id, refs)
    )
    data = _LENGTHS.pack(len(head), len(payload)) + head + payload
    return item.number, item.line, record_id, refs[1], data


def raw_lines(path: str, name: str | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of each non-blank line (bounded in length); errors name
    the file ``name`` (default: :func:`~twosat_formal.io.jsonl.source_name`)."""
    with open(path, "rb") as stream:
        lines = bounded_lines(stream, name or source_name(path), RecordError)
        for number, raw in enumerate(lines, 1):
            if raw.strip():
                yield number, raw


def refuse_empties(paths: Sequence[str]) -> None:
    """Refuse a file of zero bytes (one rule for every command)."""
    for path in paths:
        refuse_empty(path, source_name(path))


def count_records(paths: Sequence[str]) -> int:
    """The non-blank lines of the files (a quick count, nothing parsed)."""
    refuse_empties(paths)
    return sum(1 for path in paths for _ in raw_lines(path))


@lru_cache(maxsize=CACHE_SIZE)
def reference(payload: bytes) -> Any:
    """A referenced record, read back once per process (many records share one root)."""
    return unpack(payload)


def task_of(item: Item) -> Task:
    """The task of checking ``item``: its record and those it refers to, read back."""
    base, instance, twin = (None if e is None else reference(e.payload) for e in item.found)
    found = item.found[1]
    return Task(
        item.source,
        item.line,
        unpack(item.payload),
        base,
        instance,
        twin,
        instance_key=None if found is None else found.key,
        key=item.key,
        verbalized=item.verbalized,
    )


class Index(Closing):
    """Where the entry of each id is: ``id -> (file, place in the spill file, line)``.

    Built by one pass over the files (see the module); an id used again is a failure
    (:attr:`duplicates`), references resolve to its first record. ``only``: the
    records to check are those with these ids and every record they name, and so on
    (:attr:`wanted`); an id of ``only`` that no record has is a failure. Close the index
    (or use it as a context manager) to remove its spill file.

    Raises
    ------
    RecordError
        If a line is longer than a record may be.
    ConfigError
        If a file is empty or given twice, or the dataset is too large to index.
    """

    def __init__(
        self,
        paths: Sequence[str | Path],
        *,
        only: Collection[str] | None = None,
        runner: Executor | None = None,
    ):
        refuse_repeats(paths, noun="dataset", parameter="datasets")  # each record once
        #: The files read; :attr:`paths` are the names every message and result gives
        #: them (``<stdin>`` for a copy of standard input: :func:`source_name`).
        self.files = [str(p) for p in paths]
        self.paths = [source_name(p) for p in paths]
        #: Where each id's entry is, packed in one int (:meth:`place`): an int costs
        #: less than a tuple of three, and this dict is what grows with the records.
        self.where: dict[str, int] = {}
        self.duplicates: list[CheckFailure] = []
        self.records = 0
        self._files = max(1, len(self.paths))
        self._cache: Recent[int, Entry] = Recent(CACHE_SIZE)
        self._spill = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        try:
            self._end = self._read(LocalExecutor() if runner is None else runner)
        except BaseException:
            self.close()
            raise
        #: The ids of the records to check (``None``: every record).
        self.wanted: set[str] | None = None
        if only is not None:
            self._only(only)

    def _read(self, runner: Executor) -> int:
        """Read every line into the spill file, each parsed on ``runner``; the end of
        the spill file."""
        refuse_empties(self.files)
        lines = (
            Line(number, line, raw, self.paths[number])
            for number, path in enumerate(self.files)
            for line, raw in raw_lines(path, self.paths[number])
        )
        instances: set[str] = set()  # the ids that prompts and stories name as instance
        offset = 0
        for number, line, key, instance, data in runner.map(read_line, lines):
            self.records += 1
            self._spill.write(data)
            if instance is not None:
                instances.add(instance)
            if key is not None:
                self._file(key, number, line, self._pack(number, offset, line))
            offset += len(data)
        self._spill.flush()
        #: The spots (:meth:`spot`) of the records named as instances.
        self.verbalized = {self.spot(self.where[key]) for key in instances if key in self.where}
        return offset

    def _file(self, key: str, number: int, line: int, packed: int) -> None:
        """File the record of id ``key`` (line ``line`` of file ``number``) at ``packed``,
        or keep a failure if the id is taken."""
        first = self.where.setdefault(key, packed)
        if first == packed:
            return
        first_number, _, first_line = self.place(first)
        where = f"line {first_line} of {self.paths[first_number]}"
        message = f"the id is used again (first on {where})"
        self.duplicates.append(CheckFailure(key, line, "record", message, self.paths[number]))

    def _only(self, only: Collection[str]) -> None:
        wanted = self.wanted = self._named(only)
        self.duplicates = [d for d in self.duplicates if d.id in wanted]
        where = dataset_source(self.paths)
        self.duplicates += [  # an id asked for that no record has
            CheckFailure(key, None, "record", "no record has this id", where)
            for key in sorted(set(only) - set(self.where))
        ]
        self.records = sum(1 for key in wanted if key in self.where)

    def _pack(self, number: int, offset: int, line: int) -> int:
        """``(file number, place, line)`` as one int, read back by :meth:`place`."""
        if offset >= OFFSETS:
            raise ConfigError(f"{self.paths[number]}: a dataset over {OFFSETS} bytes is too large")
        return (line * self._files + number) * OFFSETS + offset

    def place(self, packed: int) -> tuple[int, int, int]:
        """``(file number, place, line)`` of a value of :attr:`where`.

        >>> index = Index.__new__(Index); index._files = 3
        >>> index.place(index._pack(2, 12345, 7))
        (2, 12345, 7)
        """
        rest, offset = divmod(packed, OFFSETS)
        line, number = divmod(rest, self._files)
        return number, offset, line

    @staticmethod
    def spot(packed: int) -> int:
        """The place in the spill file of a value of :attr:`where`."""
        return packed % OFFSETS

    def _named(self, ids: Collection[str]) -> set[str]:
        """``ids`` and the ids of every record they name, and those name, and so on."""
        found: set[str] = set()
        todo = list(ids)
        while todo:
            key = todo.pop()
            if key in found:
                continue
            found.add(key)
            entry = self.entry(key)
            if entry is not None:
                todo.extend(ref for ref in entry.refs if ref is not None)
        return found

    def _at(self, offset: int) -> tuple[Entry, int]:
        """The entry at ``offset`` of the spill file, and the offset of the next."""
        self._spill.seek(offset)
        lengths = self._spill.read(_LENGTHS.size)
        head_size, size = _LENGTHS.unpack(lengths)
        data = self._spill.read(head_size + size)
        number, line, key, record_id, refs = marshal.loads(data[:head_size])
        entry = Entry(number, line, key, record_id, refs, data[head_size:])
        return entry, offset + _LENGTHS.size + head_size + size

    def entry(self, key: str | None) -> Entry | None:
        """The entry of the record whose id is ``key`` (``None`` if no record has it)."""
        packed = None if key is None else self.where.get(key)
        if packed is None:
            return None
        found = self._cache.get(self.spot(packed))
        if found is None:
            found = self._at(self.spot(packed))[0]
            self._cache.put(self.spot(packed), found)
        return found

    def items(self) -> Iterator[Item]:
        """The records of every file in order, each with the entries it refers to (only
        those of the wanted ids, when the index was given some)."""
        offset = 0
        while offset < self._end:
            entry, after = self._at(offset)
            if self.wanted is None or entry.id in self.wanted:
                yield Item(
                    self.paths[entry.number],
                    entry.line,
                    entry.id,
                    entry.key,
                    entry.payload,
                    tuple(self.entry(ref) for ref in entry.refs),
                    offset in self.verbalized,
                )
            offset = after

    def close(self) -> None:
        """Remove the spill file."""
        self._spill.close()
