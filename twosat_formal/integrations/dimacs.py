"""``export --to dimacs``: one ``.cnf`` per instance, and ``index.csv``.

Each file is the instance's DIMACS (provenance comments, ``c var`` name lines, the
``p cnf`` header, one clause per line) with two more comment lines before the header:
``c label: SAT`` (or ``UNSAT``) and ``c certificate: ...`` (the solver's model or
contradiction cycle, as JSON). Any DIMACS reader reads it (PySAT's
``CNF(from_file=...)`` among them). ``index.csv`` lists ``file, instance_id, family,
label, num_vars, num_clauses, seed, base_id, transforms, params`` in input order.

Examples
--------
>>> from twosat_formal.make.generators import generate
>>> text = cnf_text(generate("implication-cycle", clauses=4, seed=1))
>>> [line for line in text.splitlines() if line.startswith(("c label", "p cnf"))]
['c label: UNSAT', 'p cnf 3 4']
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from twosat_formal.integrations.exports import Bundle, ExportOptions
from twosat_formal.integrations.rows import transforms_summary
from twosat_formal.io.instance import Instance

__all__ = ["INDEX_COLUMNS", "cnf_text", "write"]

#: The columns of ``index.csv``, in order.
INDEX_COLUMNS = (
    "file",
    "instance_id",
    "family",
    "label",
    "num_vars",
    "num_clauses",
    "seed",
    "base_id",
    "transforms",
    "params",
)


def cnf_text(instance: Instance) -> str:
    """The instance's DIMACS with ``c label:`` and ``c certificate:`` lines before ``p cnf``."""
    certificate = json.dumps(instance.certificate, sort_keys=True, ensure_ascii=True)
    extra = f"c label: {instance.label}\nc certificate: {certificate}\n"
    head, found, body = instance.dimacs.partition("\np cnf ")
    if not found:  # the header is the first line
        return extra + instance.dimacs
    return f"{head}\n{extra}p cnf {body}"


def _file_name(instance_id: str, taken: set[str]) -> str:
    """The file of an instance: its id with each character but letters, digits, ``-``,
    ``_`` and ``.`` as ``_``; an id that gives a name already ``taken`` (``x/y`` after
    ``x_y``, or ``X_Y`` where a file system ignores case) gets ``.2``, ``.3``... before
    ``.cnf``, so that no instance's file replaces another's. The name is added to
    ``taken`` (in lower case).

    >>> taken = set()
    >>> [_file_name(key, taken) for key in ("x_y", "x/y", "X~Y", "x_y.2")]
    ['x_y.cnf', 'x_y.2.cnf', 'X_Y.3.cnf', 'x_y.2.2.cnf']
    """
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in instance_id)
    name, number = f"{safe}.cnf", 1
    while name.lower() in taken:
        number += 1
        name = f"{safe}.{number}.cnf"
    taken.add(name.lower())
    return name


def write(bundle: Bundle, folder: Path, options: ExportOptions) -> list[Path]:
    """Write one ``.cnf`` per instance of ``bundle`` and ``index.csv`` into ``folder``."""
    files: list[Path] = []
    taken: set[str] = set()
    index = folder / "index.csv"
    with open(index, "w", encoding="utf-8", newline="") as handle:
        table = csv.writer(handle, lineterminator="\n")
        table.writerow(INDEX_COLUMNS)
        for instance in bundle.instances:
            path = folder / _file_name(instance.id, taken)
            path.write_text(cnf_text(instance), encoding="utf-8")
            files.append(path)
            table.writerow(
                [
                    path.name,
                    instance.id,
                    instance.family,
                    instance.label,
                    instance.formula.num_vars,
                    instance.formula.num_clauses,
                    instance.seed,
                    instance.base_id or "",
                    json.dumps(transforms_summary(instance.transforms)),
                    json.dumps(instance.params, sort_keys=True, separators=(",", ":")),
                ]
            )
    return [*files, index]
