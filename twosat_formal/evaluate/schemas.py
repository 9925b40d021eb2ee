"""The published JSON Schemas of every record kind (``docs/schema/*.json``).

:func:`schemas` builds them from the typed record models of
:mod:`twosat_formal.core.records` and, for the rows of ``twosat-formal results``, from the
export column registry (:func:`result_row_model`: one field per column, in export
order, each nullable). :func:`write_schemas` writes them as canonical JSON (sorted
keys, two-space indent, one trailing newline); :func:`stale_schemas` names the files
that differ from what the code would write, which is what CI checks
(``python -m twosat_formal.evaluate.schemas --check``).

Examples
--------
>>> sorted(schemas())
['instance', 'prompt', 'report', 'result-row', 'story']
>>> schemas()["result-row"]["properties"]["decision_correct"]["anyOf"]
[{'type': 'boolean'}, {'type': 'null'}]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from twosat_formal.core.records import RECORD_MODELS
from twosat_formal.evaluate.columns import COLUMNS

__all__ = ["SCHEMA_DIR", "result_row_model", "schema_text", "schemas", "stale_schemas"]

#: Where the schemas are published, relative to the repository root.
SCHEMA_DIR = Path("docs") / "schema"

_KINDS: dict[str, type] = {"string": str, "int": int, "float": float, "bool": bool}


def result_row_model() -> type[BaseModel]:
    """A model of one export row: the registered columns, in order, each nullable."""
    fields: dict[str, Any] = {
        column.name: (_KINDS[column.kind] | None, Field(description=column.doc))
        for column in (COLUMNS.get(name) for name in COLUMNS.names())
    }
    return create_model(
        "ResultRow",
        __config__=ConfigDict(extra="forbid", frozen=True),
        __doc__="One row of `twosat-formal results` (JSON Lines, CSV or Parquet).",
        **fields,
    )


def schemas() -> dict[str, dict[str, Any]]:
    """Every published schema, by file name (without ``.json``): the record models,
    the result row, and ``report`` (``report.json``,
    :mod:`twosat_formal.evaluate.report_schema`)."""
    from twosat_formal.evaluate.report_schema import report_schema

    models = {**RECORD_MODELS, "result-row": result_row_model()}
    out = {}
    for name, model in sorted(models.items()):
        schema = model.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[name] = schema
    out["report"] = report_schema()
    return dict(sorted(out.items()))


def schema_text(schema: dict[str, Any]) -> str:
    """The canonical text of a schema file."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(folder: str | os.PathLike[str]) -> list[Path]:
    """Write every schema into ``folder``; return the paths written."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = target / f"{name}.json"
        path.write_text(schema_text(schema), encoding="utf-8")
        written.append(path)
    return written


def stale_schemas(folder: str | os.PathLike[str]) -> list[str]:
    """The schema files of ``folder`` that are missing or differ from :func:`schemas`."""
    target = Path(folder)
    stale = []
    for name, schema in schemas().items():
        path = target / f"{name}.json"
        if not path.is_file() or path.read_text(encoding="utf-8") != schema_text(schema):
            stale.append(str(path))
    return stale


def main(argv: list[str] | None = None) -> int:
    """``python -m twosat_formal.evaluate.schemas [--check] [FOLDER]``: write or check the
    schemas."""
    parser = argparse.ArgumentParser(prog="python -m twosat_formal.evaluate.schemas")
    parser.add_argument("folder", nargs="?", default=str(SCHEMA_DIR))
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_schemas(args.folder)
        for name in stale:
            print(
                f"stale schema: {name} (run python -m twosat_formal.evaluate.schemas)",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for written in write_schemas(args.folder):
        print(f"wrote {written}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
