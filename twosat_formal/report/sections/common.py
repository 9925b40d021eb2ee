"""What the sections' computations share: the family order, the series types
(:data:`Curves`, :data:`Bars`), a Table 1 :class:`Cell`, the tests a row is put to
(plain, edited, swept, a story) and an estimate's curve against |C|."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.run import STORY_TEMPLATE_PREFIX
from twosat_formal.make.edits import metrics as edit_metrics
from twosat_formal.report.metrics import Estimate, Row, aggregate, group_rows

__all__ = [
    "FAMILY_ORDER",
    "UNIT_KEY",
    "Bars",
    "Cell",
    "Curves",
    "by_family",
    "cell_of",
    "clauses_of",
    "estimate_curve",
    "family_key",
    "first_seen",
    "is_edited",
    "is_plain",
    "is_swept",
    "label_of",
    "reference_template",
    "story_theme",
]

#: The paper's order of generator families (others follow alphabetically).
FAMILY_ORDER = ("implication-cycle", "equivalence-core", "backbone", "mono-bridge", "symmetry")


#: Series name → points ``(x, estimate)`` in increasing x.
Curves = dict[str, list[tuple[float, Estimate]]]


#: Group → bar name → estimate.
Bars = dict[str, dict[str, Estimate]]


#: The units an estimate averages over: a model's formulas.
UNIT_KEY = ("model", "formula")


@dataclass(frozen=True)
class Cell:
    """One Table 1 cell: decision accuracy, (SAT only) witness validity and (UNSAT rows
    whose prompt asked for a contradiction chain only) the chain witness."""

    sat: Estimate
    wit: Estimate | None
    cyc: Estimate | None = None
    #: The distinct templates and sample indices the cell's answers come from (a
    #: cell with fewer than the most of its row averages fewer renderings).
    templates: int = 0
    samples: int = 0


def family_key(name: str) -> tuple[int, str]:
    """The sort key of a family: the paper's order (:data:`FAMILY_ORDER`), then by name."""
    return (FAMILY_ORDER.index(name), "") if name in FAMILY_ORDER else (len(FAMILY_ORDER), name)


def by_family(rows: Iterable[Row]) -> list[tuple[str, list[Row]]]:
    """The rows of each family (its name as text), families in the report's order.

    >>> [(f, len(r)) for f, r in by_family([{"family": "zeta"}, {"family": "backbone"}])]
    [('backbone', 1), ('zeta', 1)]
    """
    groups = group_rows(rows, ["family"])
    return [(str(k[0]), groups[k]) for k in sorted(groups, key=lambda k: family_key(str(k[0])))]


def first_seen(values: Iterable[Any]) -> list[Any]:
    """The distinct values other than ``None``, in order of first appearance."""
    seen: dict[Any, None] = {}
    for value in values:
        if value is not None:
            seen.setdefault(value, None)
    return list(seen)


def clauses_of(row: Row) -> int:
    """The clause count that names a row's setting (``clauses``, else ``num_clauses``)."""
    value = row.get("clauses")
    if value is None:
        value = row.get("num_clauses")
    if value is None:
        raise ConfigError(
            f"row of instance {row.get('instance_id')!r} has no clause count",
            parameter="num_clauses",
        )
    return int(value)


def is_edited(row: Row) -> bool:
    """Whether the row's instance was made by symbolic edits."""
    return bool(row.get("transforms")) and edit_metrics.edit_info(row) is not None


def is_plain(row: Row) -> bool:
    """A row of the plain grid: no swept knob, the unperturbed arm (if any), no edit, a
    template verbalization (story rows have their own section)."""
    return (
        row.get("knob") is None
        and row.get("arm") in (None, "base", "construction")
        and not is_edited(row)
        and story_theme(row) is None
    )


def is_swept(row: Row) -> bool:
    """A row of a knob sweep: a knob and level, and no comparison arm (the fillers
    protocol also varies one knob at a time, but compares its arms, not its levels)."""
    return (
        row.get("knob") is not None
        and row.get("level") is not None
        and row.get("arm") in (None, "base")
    )


def label_of(rows: Sequence[Row]) -> str:
    """The label the rows share (the Table 1 row's ``label`` column)."""
    labels = {str(row.get("label")) for row in rows}
    return labels.pop() if len(labels) == 1 else "mixed"


def cell_of(mine: Sequence[Row], *, method: str, seed: int) -> Cell:
    """One model's Table 1 cell from its answers in the cell (at least one)."""
    sat = aggregate(mine, "accuracy", method=method, seed=seed)
    wit = aggregate(mine, "witness", method=method, seed=seed)
    cyc = aggregate(mine, "chain_witness", method=method, seed=seed)
    return Cell(
        sat,
        wit if wit.n else None,
        cyc if cyc.n else None,
        len({r.get("template") for r in mine}),
        len({r.get("sample") for r in mine}),
    )


def reference_template(rows: Sequence[Row]) -> str:
    """The template the verbalization flip rate compares the others against."""
    templates = first_seen(r.get("template") for r in rows)
    return "logic" if "logic" in templates or not templates else str(templates[0])


def estimate_curve(
    rows: Sequence[Row],
    x_of: str,
    *,
    method: str,
    seed: int,
    key: Sequence[str] = UNIT_KEY,
    metric: str = "success",
) -> list[tuple[float, Estimate]]:
    """An estimate of ``metric`` at each value of ``x``, in increasing ``x``."""
    points: dict[float, list[Row]] = {}
    for row in rows:
        x = clauses_of(row) if x_of == "clauses" else row.get(x_of)
        if x is None:
            continue
        points.setdefault(float(x), []).append(row)
    return [
        (x, aggregate(points[x], metric, key=key, method=method, seed=seed)) for x in sorted(points)
    ]


def story_theme(row: Row) -> str | None:
    """The story theme of a row of a story prompt, ``None`` for any other row.

    >>> story_theme({"template": "story:spy"}), story_theme({"template": "logic"})
    ('spy', None)
    """
    template = row.get("template")
    if isinstance(template, str) and template.startswith(STORY_TEMPLATE_PREFIX):
        return template[len(STORY_TEMPLATE_PREFIX) :]
    return None
