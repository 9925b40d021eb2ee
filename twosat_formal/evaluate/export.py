"""Export a run store: one row per sample, as JSON Lines, CSV or Parquet.

The columns are those of the registry :data:`~twosat_formal.evaluate.columns.COLUMNS`, in its
order (:func:`~twosat_formal.evaluate.columns.export_columns`): ids, the instance's ``family``,
``clauses`` and ``params`` (its knobs, as JSON text), ``template``, ``model``,
``sample``, ``label``, the strict and lenient judgements (``decision``,
``decision_correct``, ``witness_valid``, ``witness_reason``, ``failure``,
``lenient_*``), ``error``, ``finish_reason``, ``truncated``, token counts, latency and
``response``. ``decision`` is ``SAT``, ``UNSAT`` or null; ``witness_valid`` is null
on UNSAT instances.

The format follows the file's suffix: ``.jsonl`` (nulls as ``null``), ``.csv`` (nulls
as empty cells, booleans as ``true``/``false``) or ``.parquet`` (typed columns; needs
``pyarrow``). A file is written beside its target and renamed into place, so a
reader never sees half an export.

Examples
--------
>>> import io
>>> rows = [{"instance_id": "i1", "sample": 0, "truncated": False, "decision": None}]
>>> buffer = io.StringIO()
>>> write_csv(rows, buffer)
1
>>> print(buffer.getvalue().splitlines()[1][:40])
i1,,,,,,,0,,,,,,,,,,,,,false,,,,,,,,,,,,
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import IO, Any

from twosat_formal._util.atomic import atomic_path
from twosat_formal.errors import ConfigError, EvaluationError
from twosat_formal.evaluate.columns import COLUMNS, export_columns, pick_columns
from twosat_formal.evaluate.store import RunStore

__all__ = [
    "FORMATS",
    "export_results",
    "format_of",
    "write_csv",
    "write_jsonl",
    "write_parquet",
]

#: File suffix → format name.
FORMATS: dict[str, str] = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}

_BATCH = 10_000


def format_of(path: str | os.PathLike[str]) -> str:
    """The export format of ``path``, from its suffix.

    >>> format_of("runs.CSV"), format_of("out/r.parquet")
    ('csv', 'parquet')
    >>> format_of("r.xlsx")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: cannot export to 'r.xlsx': use .jsonl, .csv or .parquet
    """
    suffix = Path(path).suffix.lower()
    try:
        return FORMATS[suffix]
    except KeyError:
        raise ConfigError(
            f"cannot export to {str(path)!r}: use .jsonl, .csv or .parquet",
            parameter="out",
            valid=".jsonl, .csv, .parquet",
        ) from None


def _ordered(row: Mapping[str, Any], columns: Sequence[str]) -> dict[str, Any]:
    return {column: row.get(column) for column in columns}


def write_jsonl(
    rows: Iterable[Mapping[str, Any]], stream: IO[str], columns: Sequence[str] | None = None
) -> int:
    """Write rows as JSON Lines (``columns``, default the export columns, in order);
    return how many.

    >>> import io
    >>> buffer = io.StringIO()
    >>> write_jsonl([{"model": "ref/coin", "decision": None}], buffer)
    1
    >>> json.loads(buffer.getvalue())["decision"] is None
    True
    """
    names = export_columns() if columns is None else tuple(columns)
    count = 0
    for row in rows:
        stream.write(json.dumps(_ordered(row, names), ensure_ascii=False) + "\n")
        count += 1
    return count


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def write_csv(
    rows: Iterable[Mapping[str, Any]], stream: IO[str], columns: Sequence[str] | None = None
) -> int:
    """Write rows as CSV with a header line (``columns``, default the export columns);
    return how many rows.

    >>> import io
    >>> buffer = io.StringIO()
    >>> write_csv([{"model": "ref/coin", "truncated": True}], buffer)
    1
    >>> buffer.getvalue().splitlines()[0].split(",")[:4]
    ['instance_id', 'prompt_id', 'family', 'clauses']
    """
    writer = csv.writer(stream, lineterminator="\n")
    names = export_columns() if columns is None else tuple(columns)
    writer.writerow(names)
    count = 0
    for row in rows:
        writer.writerow([_cell(value) for value in _ordered(row, names).values()])
        count += 1
    return count


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise EvaluationError(
            "Parquet export needs pyarrow: pip install pyarrow "
            "(or export to .jsonl or .csv instead)"
        ) from None
    return pyarrow


def _schema(pa: Any, columns: Sequence[str]) -> Any:
    types = {"string": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    return pa.schema([(name, types[COLUMNS.get(name).kind]) for name in columns])


def write_parquet(
    rows: Iterable[Mapping[str, Any]],
    path: str | os.PathLike[str],
    columns: Sequence[str] | None = None,
) -> int:
    """Write rows to a Parquet file with typed, nullable columns (``columns``, default
    the export columns); return how many.

    Raises :class:`~twosat_formal.errors.EvaluationError` when pyarrow is missing.

    >>> import tempfile, pyarrow.parquet as pq
    >>> path = Path(tempfile.mkdtemp()) / "r.parquet"
    >>> write_parquet([{"model": "ref/coin", "sample": 2, "witness_valid": None}], path)
    1
    >>> pq.read_table(path).column("sample").to_pylist()
    [2]
    """
    pa = _pyarrow()
    names = export_columns() if columns is None else tuple(columns)
    schema = _schema(pa, names)
    count = 0
    iterator: Iterator[Mapping[str, Any]] = iter(rows)
    with pa.parquet.ParquetWriter(str(path), schema) as writer:
        while batch := [_ordered(row, names) for row in islice(iterator, _BATCH)]:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            count += len(batch)
    return count


def export_results(
    store: RunStore,
    out: str | os.PathLike[str] | None = None,
    *,
    stream: IO[str] | None = None,
    columns: Sequence[str] | None = None,
) -> int:
    """Write every sample of ``store`` to ``out`` (format by suffix) or, with no
    ``out``, as JSON Lines to ``stream``; return the number of rows.

    ``columns`` names the export columns to write (all of them for ``None``), in
    export order; the store reads only what they are made of, so an export without
    ``response`` never loads an answer's text
    (:meth:`~twosat_formal.evaluate.store.RunStore.export_rows`).

    Examples
    --------
    >>> import io, tempfile
    >>> with RunStore(Path(tempfile.mkdtemp()) / "runs.sqlite") as store:
    ...     export_results(store, stream=io.StringIO())
    0
    """
    names = pick_columns(columns)
    rows = store.export_rows(columns=names)
    if out is None:
        if stream is None:
            raise ConfigError("give a file or a stream to export to", parameter="out")
        return write_jsonl(rows, stream, names)
    target = Path(out)
    kind = format_of(target)
    with atomic_path(target) as partial:
        if kind == "parquet":
            count = write_parquet(rows, partial, names)
        else:
            with open(partial, "w", encoding="utf-8", newline="") as handle:
                write = write_jsonl if kind == "jsonl" else write_csv
                count = write(rows, handle, names)
    return count
