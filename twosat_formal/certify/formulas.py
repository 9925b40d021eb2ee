"""The formulas of instance records, read once for the prompts and stories that name them.

An instance record's ``record`` check reads its formula; the prompts and stories of
that instance, which usually come after all the instances, find it by their
instance's line (the SHA-256 of its bytes, :func:`remember` and
:func:`instance_formula`) instead of reading the record again. Only a formula that was
read is kept, and only for an instance that some prompt or story of the dataset names
(the index knows which: :attr:`~twosat_formal.certify.checker.Task.verbalized`), so the
instances no record asks for (edits, fillers, roots) do not push out those that are
asked for. A prompt that comes before its instance reads the formula from the record
(:class:`FormulaByRecord`, by the record object; :func:`formula_of`, by its text).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from functools import lru_cache
from typing import Any

from twosat_formal._util.recent import Recent
from twosat_formal.certify.checker import Task
from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonread import loads
from twosat_formal.errors import ConfigError

__all__ = ["FormulaByRecord", "formula_of", "instance_formula", "remember"]

#: The formulas of the last verbalized instances read, by the SHA-256 of their line:
#: as many as a dataset's verbalized instances, typically (a few MB at most).
_formulas_by_line: Recent[bytes, Formula] = Recent(512)


def remember(task: Task, formula: Formula) -> None:
    """Keep the formula of the instance record of ``task`` for its prompts and stories
    (only when some prompt or story names it, and it was read from a file)."""
    if task.key is not None and task.verbalized:
        _formulas_by_line.put(task.key, formula)


def instance_formula(task: Task, instance_id: str) -> Formula:
    """The formula of the instance of the prompt or story record of ``task``.

    Raises
    ------
    ConfigError
        If the dataset does not hold the instance.
    """
    if task.instance is None:
        raise ConfigError(f"its instance {instance_id} is not in the dataset")
    key = task.instance_key
    found = None if key is None else _formulas_by_line.get(key)
    if found is None:
        found = _instance_formulas.get(task.instance)
        if key is not None:
            _formulas_by_line.put(key, found)
    return found


def _record_formula(record: Any) -> Formula:
    """The formula of the instance record ``record``, read once per text (:func:`formula_of`)."""
    from twosat_formal.io.instance import Instance

    try:
        text = json.dumps(record, allow_nan=False)
    except (TypeError, ValueError):
        return Instance.from_record(record).formula
    return formula_of(text)


class FormulaByRecord:
    """The formulas of the last instance records asked for, by the record object itself.

    The prompts and stories of one instance come together and, read in one process,
    share one record object (:func:`~twosat_formal.certify.index.reference`), so its
    formula is found without writing the record as text again. An entry holds its
    record, so no other object can take its ``id`` while it is kept; the records are
    never changed.
    """

    def __init__(self, size: int) -> None:
        self.recent: Recent[int, tuple[Any, Formula]] = Recent(size)

    @property
    def entries(self) -> OrderedDict[int, tuple[Any, Formula]]:
        """The entries kept, least recently used first."""
        return self.recent.entries

    def get(self, record: Any) -> Formula:
        """The formula of ``record`` (raises as reading the record does)."""
        entry = self.recent.get(id(record))
        if entry is not None and entry[0] is record:
            return entry[1]
        formula = _record_formula(record)
        self.recent.put(id(record), (record, formula))
        return formula

    def cache_clear(self) -> None:
        """Forget every entry."""
        self.recent.cache_clear()


_instance_formulas = FormulaByRecord(64)


@lru_cache(maxsize=64)
def formula_of(text: str) -> Formula:
    """The formula of the instance record ``text`` (JSON), read once per process.

    The prompts and stories of one instance usually come together; a pure function of
    the record's text, so a prompt is checked against exactly its instance's formula.
    """
    from twosat_formal.io.instance import Instance

    return Instance.from_record(loads(text, source="<record>")).formula
