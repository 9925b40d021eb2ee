"""The JSON view of a result dataclass: its fields in declaration order.

Metrics and report rows are frozen dataclasses whose ``to_json`` lists their fields
(renamed where the published key differs), then some derived properties; a field whose
value has a ``to_json`` method (an :class:`~twosat_formal.report.stats.Estimate`, say)
is written through it, and so is each item of a list, tuple or dict. :func:`fields_json`
is that one rule.

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Hits:
...     rows: int
...     hits: int
...
...     @property
...     def rate(self) -> float:
...         return self.hits / self.rows
>>> fields_json(Hits(4, 1), rename={"hits": "correct"}, then=("rate",))
{'rows': 4, 'correct': 1, 'rate': 0.25}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from typing import Any

__all__ = ["fields_json"]


def _json_value(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _json_value(item) for key, item in value.items()}
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


def fields_json(
    obj: Any,
    *,
    rename: Mapping[str, str] | None = None,
    then: Sequence[str] = (),
    skip: Collection[str] = (),
) -> dict[str, Any]:
    """The fields of dataclass ``obj`` in declaration order, then the attributes ``then``.

    A field is written under its name, or under ``rename[name]``; the fields named in
    ``skip`` are left out. A value with a ``to_json`` method is replaced by its result,
    lists and tuples become lists and dicts new dicts, their items converted alike.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Point:
    ...     x: int
    ...     y: tuple[int, ...]
    ...     note: str = ""
    >>> fields_json(Point(1, (2, 3)), skip=("note",))
    {'x': 1, 'y': [2, 3]}
    """
    names = rename or {}
    out = {
        names.get(f.name, f.name): _json_value(getattr(obj, f.name))
        for f in dataclasses.fields(obj)
        if f.name not in skip
    }
    for name in then:
        out[name] = _json_value(getattr(obj, name))
    return out
