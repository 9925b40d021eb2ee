"""The columns of ``twosat-formal results``: one registry, one entry per column.

A column is a name, a type and a function of the *joined row*: every column of the
store's ``results`` table (``r.*``: ``decision``, ``witness_reason``, ``error``, the
lenient columns, and any column a later schema adds), plus what the store knows about
the prompt and its instance, under the names of :data:`JOINED`. Adding a column to the
export is one :func:`add_column` call (or one entry in :data:`BUILTIN_COLUMNS`); the
JSON Lines, CSV and Parquet writers and ``results`` follow the registry, in order.
A new column also changes the published schema of a result row: regenerate
``docs/schema/`` with ``python -m twosat_formal.evaluate.schemas`` (CI checks it is current).

Examples
--------
>>> export_columns()[:6]
('instance_id', 'prompt_id', 'family', 'clauses', 'params', 'template')
>>> COLUMNS.get("decision_correct").value({"decision_correct": 1})
True
>>> COLUMNS.get("params").value({"instance_params": '{"beta":0.8}'})
'{"beta":0.8}'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from twosat_formal._util.registry import Registry
from twosat_formal.errors import ConfigError

__all__ = [
    "BUILTIN_COLUMNS",
    "COLUMNS",
    "JOINED",
    "ExportColumn",
    "add_column",
    "column_list",
    "export_columns",
    "pick_columns",
    "sources_of",
]

Kind = Literal["string", "int", "float", "bool"]

#: Names a joined row carries besides the ``results`` table's own columns: what each is,
#: and the SQL over the run store's ``prompts p`` and ``instances i`` that reads it.
JOINED = {
    "prompt_instance_id": ("the id of the instance the prompt verbalizes", "p.instance_id"),
    "prompt_template": ("the prompt's template", "p.template"),
    "stored_prompt_id": (
        "the stored prompt's id (null when the prompt is not stored)",
        "p.prompt_id",
    ),
    "instance_family": ("the instance's generator family", "i.family"),
    "instance_num_clauses": ("the instance's clause count", "i.num_clauses"),
    "instance_num_vars": ("the instance's variable count", "i.num_vars"),
    "instance_params": (
        "the instance's generator knobs, canonical JSON text",
        "json_extract(i.record, '$.params')",
    ),
}


@dataclass(frozen=True)
class ExportColumn:
    """One column of the export: ``name``, its ``kind`` (the Parquet type) and how its
    value is read from a joined row; ``doc`` is what docs/evaluation.md says of it.

    ``reads`` names the entries of the joined row that ``value`` reads, so that a
    reader asking for a few columns has the store read only those (the built-in
    columns know theirs; a column that declares none makes the store read them all).
    """

    name: str
    kind: Kind
    value: Callable[[Mapping[str, Any]], Any]
    doc: str
    reads: frozenset[str] | None = None

    def sources(self) -> frozenset[str] | None:
        """The entries of the joined row the value reads: ``reads`` (``None``: not
        declared, so all).

        >>> sorted(COLUMNS.get("prompt_id").sources())
        ['prompt_id', 'stored_prompt_id']
        >>> ExportColumn("n", "int", lambda row: 1, "one").sources() is None
        True
        """
        return self.reads


def _stored(
    name: str, kind: Kind, doc: str, *keys: str, default: str | None = None
) -> ExportColumn:
    """The column ``name`` that is an entry of the joined row: the first of ``keys``
    (by default ``name``) that is not null; a ``bool`` column reads it as a flag, and a
    ``default`` stands for a null or empty entry; the column reads those ``keys``."""
    keys = keys or (name,)
    return ExportColumn(name, kind, _reader(keys, kind, default), doc, frozenset(keys))


def _reader(
    keys: tuple[str, ...], kind: Kind, default: str | None
) -> Callable[[Mapping[str, Any]], Any]:
    """The reader of :func:`_stored`, made once per column (it runs once per row)."""
    key = keys[0]
    read: Callable[[Mapping[str, Any]], Any]
    if len(keys) > 1:

        def read(row: Mapping[str, Any]) -> Any:
            return next((row[k] for k in keys if row.get(k) is not None), None)

    elif kind == "bool":

        def read(row: Mapping[str, Any]) -> bool | None:
            value = row.get(key)
            return None if value is None else bool(value)

    elif default is not None:

        def read(row: Mapping[str, Any]) -> Any:
            return row.get(key) or default

    else:

        def read(row: Mapping[str, Any]) -> Any:
            return row.get(key)

    return read


#: The built-in columns, in export order: name, kind, what docs/evaluation.md says of
#: it, and the joined-row entries it reads when they are not its name.
BUILTIN_COLUMNS: tuple[ExportColumn, ...] = (
    _stored("instance_id", "string", "the instance's id", "prompt_instance_id"),
    _stored("prompt_id", "string", "the prompt's id", "stored_prompt_id", "prompt_id"),
    _stored("family", "string", "generator family", "instance_family"),
    _stored("clauses", "int", "clauses of the formula", "instance_num_clauses"),
    _stored("params", "string", "generator knobs (JSON object text)", "instance_params"),
    _stored("template", "string", "verbalization template", "prompt_template"),
    _stored("model", "string", "model spec"),
    _stored("sample", "int", "sample index"),
    _stored("label", "string", "`SAT` or `UNSAT`"),
    _stored("decision", "string", "`SAT`, `UNSAT` or null"),
    _stored("decision_correct", "bool", "decision = label"),
    _stored("witness_valid", "bool", "null on UNSAT"),
    _stored("witness_reason", "string", "why a witness is not valid"),
    _stored("failure", "string", "failure kind (strict reading)"),
    _stored("lenient_failure", "string", "lenient reading"),
    _stored("lenient_decision", "string", "lenient reading"),
    _stored("lenient_decision_correct", "bool", "lenient"),
    _stored("lenient_witness_valid", "bool", "lenient"),
    _stored("error", "string", "why the request failed"),
    _stored("finish_reason", "string", "`stop`, `length`..."),
    _stored("truncated", "bool", "finish reason `length`"),
    _stored("prompt_tokens", "int", "as the server counted"),
    _stored("completion_tokens", "int", "as counted"),
    _stored("latency_s", "float", "seconds of the request"),
    _stored("response", "string", "the answer text"),
    _stored(
        "cycle_valid",
        "bool",
        "the contradiction chain is valid (`--ask-cycle` prompts, UNSAT instances)",
    ),
    _stored("cycle_reason", "string", "why the chain fails, or `no-chain`"),
    _stored(
        "reasoning",
        "string",
        "the reasoning the server sent beside the answer (`reasoning_content`), never scored",
    ),
    _stored(
        "strategy",
        "string",
        "reasoning strategy (`direct`, `cot`, `symbolic-cot`, `sample-k:K`)",
        default="direct",
    ),
    _stored(
        "formalization",
        "string",
        "what a `symbolic-cot` answer formalized, checked against the instance (JSON)",
    ),
    _stored(
        "question_type",
        "string",
        "the question asked: `decision` (with or without a chain), `forced`, `entails`, `core`, "
        "`repair` or `maxsat`",
        default="decision",
    ),
    _stored("precision", "float", "a `forced` answer's precision (partial credit)"),
    _stored("recall", "float", "a `forced` answer's recall (partial credit)"),
    _stored(
        "chain_valid",
        "bool",
        "an `entails` answer's chain from A to B is valid (on a right Yes)",
    ),
    _stored("chain_reason", "string", "why that chain fails, or `no-chain`"),
    _stored(
        "core_reason",
        "string",
        "why a `core` (`repair`) answer is not a minimal unsatisfiable set of rules (set of "
        "rules to drop); null when it is",
    ),
    _stored(
        "size_ratio",
        "float",
        "partial credit: a minimal `core` or `repair` answer's smallest size over its size; "
        "a `maxsat` answer's rules satisfied over the optimum",
    ),
)

#: Every export column by name, in export order.
COLUMNS: Registry[ExportColumn] = Registry("export column")
for _column in BUILTIN_COLUMNS:
    COLUMNS.add(_column.name, _column)


def add_column(column: ExportColumn) -> ExportColumn:
    """Register ``column`` at the end of the export (a name may be registered once).

    >>> column = ExportColumn("demo_length", "int",
    ...                       lambda row: len(row.get("response") or ""), "answer length")
    >>> "demo_length" in COLUMNS
    False
    """
    COLUMNS.add(column.name, column)
    return column


def export_columns() -> tuple[str, ...]:
    """The names of the export columns, in order."""
    return tuple(COLUMNS.names())


def column_list(text: str) -> list[str]:
    """The column names of a comma-separated list (``--columns``), each stripped.

    Raises :class:`~twosat_formal.errors.ConfigError` on a list that names no column
    (``''``, ``' , '``), on an empty name between commas and on a name given twice;
    :func:`pick_columns` then checks each name.

    >>> column_list(" model , decision")
    ['model', 'decision']
    >>> column_list("")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: --columns names no column: give one or more export \
column names, separated by commas
    >>> column_list("model,,decision")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: --columns 'model,,decision' has an empty column \
name (name 2 of 3)
    """
    names = [name.strip() for name in text.split(",")]
    if not any(names):
        raise _columns_error(
            "--columns names no column: give one or more export column names, separated by commas"
        )
    for index, name in enumerate(names, 1):
        if not name:
            raise _columns_error(
                f"--columns {text!r} has an empty column name (name {index} of {len(names)})"
            )
        if name in names[: index - 1]:
            raise _columns_error(f"--columns {text!r} names column {name!r} twice")
    return names


def _columns_error(message: str) -> ConfigError:
    return ConfigError(message, parameter="columns", valid=", ".join(export_columns()))


def pick_columns(names: Sequence[str] | None) -> tuple[str, ...]:
    """The export columns named in ``names`` (all of them for ``None``), in export order.

    Raises :class:`~twosat_formal.errors.ConfigError` on a name that is not a column
    (an empty name among them), and on an empty selection (a file of empty rows is
    never what was meant).

    >>> pick_columns(["decision", "model"])
    ('model', 'decision')
    >>> pick_columns(["answer"])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: no export column 'answer' (see `twosat-formal results --help`)
    >>> pick_columns([])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: no export column is named: give one or more
    >>> pick_columns(["model", ""])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: an export column name is empty
    """
    if names is None:
        return export_columns()
    if not names:
        raise _columns_error("no export column is named: give one or more")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise _columns_error("an export column name is empty")
        if name not in COLUMNS:
            raise _columns_error(f"no export column {name!r} (see `twosat-formal results --help`)")
    wanted = set(names)
    return tuple(name for name in export_columns() if name in wanted)


def sources_of(names: Iterable[str]) -> frozenset[str] | None:
    """The joined-row entries the columns ``names`` read (``None``: every entry).

    >>> sorted(sources_of(["model", "decision_correct"]))
    ['decision_correct', 'model']
    """
    needed: set[str] = set()
    for name in names:
        sources = COLUMNS.get(name).sources()
        if sources is None:
            return None
        needed |= sources
    return frozenset(needed)
