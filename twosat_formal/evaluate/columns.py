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
    "export_columns",
    "pick_columns",
    "sources_of",
]

Kind = Literal["string", "int", "float", "bool"]

#: Names a joined row carries besides the ``results`` table's own columns.
JOINED = {
    "prompt_instance_id": "the id of the instance the prompt verbalizes",
    "prompt_template": "the prompt's template",
    "stored_prompt_id": "the stored prompt's id (null when the prompt is not stored)",
    "instance_family": "the instance's generator family",
    "instance_num_clauses": "the instance's clause count",
    "instance_num_vars": "the instance's variable count",
    "instance_params": "the instance's generator knobs, canonical JSON text",
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
        """The entries of the joined row the value reads (``None``: not known, so all).

        They are ``reads`` when given, else those of a built-in reader.

        >>> sorted(COLUMNS.get("prompt_id").sources())
        ['prompt_id', 'stored_prompt_id']
        >>> ExportColumn("n", "int", lambda row: 1, "one").sources() is None
        True
        """
        if self.reads is not None:
            return self.reads
        return self.value.keys if isinstance(self.value, _Reader) else None


@dataclass(frozen=True)
class _Reader:
    """A column value that reads the entries ``keys`` of a joined row."""

    keys: frozenset[str]
    read: Callable[[Mapping[str, Any]], Any]

    def __call__(self, row: Mapping[str, Any]) -> Any:
        return self.read(row)


def _field(key: str) -> _Reader:
    return _Reader(frozenset({key}), lambda row: row.get(key))


def _flag(key: str) -> _Reader:
    def read(row: Mapping[str, Any]) -> bool | None:
        value = row.get(key)
        return None if value is None else bool(value)

    return _Reader(frozenset({key}), read)


def _either(first: str, second: str) -> _Reader:
    return _Reader(
        frozenset({first, second}),
        lambda row: row.get(first) if row.get(first) is not None else row.get(second),
    )


#: The built-in columns, in export order.
BUILTIN_COLUMNS: tuple[ExportColumn, ...] = (
    ExportColumn("instance_id", "string", _field("prompt_instance_id"), "the instance's id"),
    ExportColumn(
        "prompt_id", "string", _either("stored_prompt_id", "prompt_id"), "the prompt's id"
    ),
    ExportColumn("family", "string", _field("instance_family"), "generator family"),
    ExportColumn("clauses", "int", _field("instance_num_clauses"), "clauses of the formula"),
    ExportColumn(
        "params", "string", _field("instance_params"), "generator knobs (JSON object text)"
    ),
    ExportColumn("template", "string", _field("prompt_template"), "verbalization template"),
    ExportColumn("model", "string", _field("model"), "model spec"),
    ExportColumn("sample", "int", _field("sample"), "sample index"),
    ExportColumn("label", "string", _field("label"), "`SAT` or `UNSAT`"),
    ExportColumn("decision", "string", _field("decision"), "`SAT`, `UNSAT` or null"),
    ExportColumn("decision_correct", "bool", _flag("decision_correct"), "decision = label"),
    ExportColumn("witness_valid", "bool", _flag("witness_valid"), "null on UNSAT"),
    ExportColumn(
        "witness_reason", "string", _field("witness_reason"), "why a witness is not valid"
    ),
    ExportColumn("failure", "string", _field("failure"), "failure kind (strict reading)"),
    ExportColumn("lenient_failure", "string", _field("lenient_failure"), "lenient reading"),
    ExportColumn("lenient_decision", "string", _field("lenient_decision"), "lenient reading"),
    ExportColumn("lenient_decision_correct", "bool", _flag("lenient_decision_correct"), "lenient"),
    ExportColumn("lenient_witness_valid", "bool", _flag("lenient_witness_valid"), "lenient"),
    ExportColumn("error", "string", _field("error"), "why the request failed"),
    ExportColumn("finish_reason", "string", _field("finish_reason"), "`stop`, `length`..."),
    ExportColumn("truncated", "bool", _flag("truncated"), "finish reason `length`"),
    ExportColumn("prompt_tokens", "int", _field("prompt_tokens"), "as the server counted"),
    ExportColumn("completion_tokens", "int", _field("completion_tokens"), "as counted"),
    ExportColumn("latency_s", "float", _field("latency_s"), "seconds of the request"),
    ExportColumn("response", "string", _field("response"), "the answer text"),
    ExportColumn(
        "cycle_valid",
        "bool",
        _flag("cycle_valid"),
        "the contradiction chain is valid (`--ask-cycle` prompts, UNSAT instances)",
    ),
    ExportColumn(
        "cycle_reason", "string", _field("cycle_reason"), "why the chain fails, or `no-chain`"
    ),
    ExportColumn(
        "reasoning",
        "string",
        _field("reasoning"),
        "the reasoning the server sent beside the answer (`reasoning_content`), never scored",
    ),
    ExportColumn(
        "strategy",
        "string",
        _Reader(frozenset({"strategy"}), lambda row: row.get("strategy") or "direct"),
        "reasoning strategy (`direct`, `cot`, `symbolic-cot`, `sample-k:K`)",
    ),
    ExportColumn(
        "formalization",
        "string",
        _field("formalization"),
        "what a `symbolic-cot` answer formalized, checked against the instance (JSON)",
    ),
    ExportColumn(
        "question_type",
        "string",
        _Reader(frozenset({"question_type"}), lambda row: row.get("question_type") or "decision"),
        "the question asked: `decision` (with or without a chain), `forced`, `entails`, `core`, "
        "`repair` or `maxsat`",
    ),
    ExportColumn(
        "precision", "float", _field("precision"), "a `forced` answer's precision (partial credit)"
    ),
    ExportColumn(
        "recall", "float", _field("recall"), "a `forced` answer's recall (partial credit)"
    ),
    ExportColumn(
        "chain_valid",
        "bool",
        _flag("chain_valid"),
        "an `entails` answer's chain from A to B is valid (on a right Yes)",
    ),
    ExportColumn(
        "chain_reason", "string", _field("chain_reason"), "why that chain fails, or `no-chain`"
    ),
    ExportColumn(
        "core_reason",
        "string",
        _field("core_reason"),
        "why a `core` (`repair`) answer is not a minimal unsatisfiable set of rules (set of "
        "rules to drop); null when it is",
    ),
    ExportColumn(
        "size_ratio",
        "float",
        _field("size_ratio"),
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


def pick_columns(names: Sequence[str] | None) -> tuple[str, ...]:
    """The export columns named in ``names`` (all of them for ``None``), in export order.

    Raises :class:`~twosat_formal.errors.ConfigError` on a name that is not a column,
    and on an empty selection (a file of empty rows is never what was meant).

    >>> pick_columns(["decision", "model"])
    ('model', 'decision')
    >>> pick_columns(["answer"])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: no export column 'answer' (see `twosat-formal results --help`)
    >>> pick_columns([])
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: no export column named
    """
    if names is None:
        return export_columns()
    if not names:
        raise ConfigError(
            "no export column named", parameter="columns", valid=", ".join(export_columns())
        )
    for name in names:
        if name not in COLUMNS:
            raise ConfigError(
                f"no export column {name!r} (see `twosat-formal results --help`)",
                parameter="columns",
                valid=", ".join(export_columns()),
            )
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
