"""The JSON view of a result dataclass: its fields in declaration order.

Metrics and report rows are frozen dataclasses whose ``to_json`` lists their fields
(renamed where the published key differs), then some derived properties; a field whose
value has a ``to_json`` method (an :class:`~twosat_formal.report.stats.Estimate`, say)
is written through it. :func:`fields_json` is that one rule.

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
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["fields_json"]


def _json_value(value: Any) -> Any:
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


def fields_json(
    obj: Any, *, rename: Mapping[str, str] | None = None, then: Sequence[str] = ()
) -> dict[str, Any]:
    """The fields of dataclass ``obj`` in declaration order, then the attributes ``then``.

    Parameters
    ----------
    obj:
        A dataclass instance.
    rename:
        JSON keys of fields whose key is not the field name.
    then:
        Attributes (typically properties) written after the fields, under their names.

    Returns
    -------
    dict:
        A JSON-ready dict; a value with a ``to_json`` method is replaced by its result.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Point:
    ...     x: int
    ...     y: int
    >>> fields_json(Point(1, 2))
    {'x': 1, 'y': 2}
    """
    names = rename or {}
    out = {
        names.get(f.name, f.name): _json_value(getattr(obj, f.name))
        for f in dataclasses.fields(obj)
    }
    for name in then:
        out[name] = _json_value(getattr(obj, name))
    return out
