"""What the captions name: the knob settings of the rows and the experiments behind them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from twosat_formal.report.metrics import Row
from twosat_formal.report.sections.common import first_seen, is_plain, is_swept

__all__ = ["captions", "experiments_of", "knob_settings"]


def _number(value: float) -> str:
    return f"{value:.3g}"


def _knob_values(row: Row, *, exclude_swept: bool) -> list[tuple[str, float]]:
    """The numeric difficulty-knob values of one row's ``params`` (see
    :func:`knob_settings`); none for a row of no known family."""
    from twosat_formal.make.generators import FAMILIES

    family = row.get("family")
    if not isinstance(family, str) or family not in FAMILIES:
        return []
    params = row.get("params") or {}
    out: list[tuple[str, float]] = []
    for spec in FAMILIES.get(family).knobs():
        if spec.name == "filler_share" or (exclude_swept and spec.name == row.get("knob")):
            continue
        value = params.get(spec.name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out.append((spec.name, float(value)))
    return out


def knob_settings(rows: Iterable[Row], *, exclude_swept: bool = False) -> str:
    """The difficulty-knob settings of ``rows``, read from their instances' ``params``.

    Knobs are the family's knobs (:meth:`~twosat_formal.make.generators.Family.knobs`)
    but ``filler_share``; with ``exclude_swept`` a row's own swept ``knob`` is left
    out (the setting of the *other* knobs of a sweep).

    >>> rows = [{"family": "implication-cycle", "params": {"split": 0.8, "core_ratio": 0.8}}]
    >>> knob_settings(rows)
    'every difficulty knob at 0.8'
    >>> knob_settings(rows + [{"family": "implication-cycle",
    ...                        "params": {"split": 0.2, "core_ratio": 0.8}}])
    'difficulty knobs: core_ratio = 0.8, split 0.2–0.8'
    >>> knob_settings([{"family": "backbone", "params": {}}])
    'knob settings not recorded'
    """
    values: dict[str, set[float]] = {}
    for row in rows:
        for name, value in _knob_values(row, exclude_swept=exclude_swept):
            values.setdefault(name, set()).add(value)
    if not values:
        return "knob settings not recorded"
    every = set().union(*values.values())
    if len(every) == 1:
        return f"every difficulty knob at {_number(every.pop())}"
    parts = [
        f"{name} = {_number(next(iter(seen)))}"
        if len(seen) == 1
        else f"{name} {_number(min(seen))}–{_number(max(seen))}"
        for name, seen in sorted(values.items())
    ]
    return "difficulty knobs: " + ", ".join(parts)


def experiments_of(rows: Iterable[Row]) -> list[str]:
    """The experiments (design field ``experiment``) the rows come from, in order."""
    return [str(e) for e in first_seen(r.get("experiment") for r in rows)]


def captions(data: Sequence[Row]) -> tuple[str, str, list[str]]:
    """What the captions name: the knob settings of the grid rows and of the swept rows
    (the swept knob left out), and the experiments of the grid rows."""
    plain = [r for r in data if is_plain(r)]
    return (
        knob_settings(plain),
        knob_settings((r for r in data if is_swept(r)), exclude_swept=True),
        experiments_of(plain),
    )
