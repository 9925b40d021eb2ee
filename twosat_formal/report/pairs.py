"""Pair metrics of minimal twins: pair accuracy and pair consistency.

A twin row (its instance has ``twin_of``) is paired with the row of its source under
the same model, template and sample. Over the pairs:

* **pair accuracy**: the share of pairs whose two decisions are both right;
* **pair consistency**: the share of pairs whose decision changes between source and
  twin (the labels are opposite, so a reader that follows the one changed clause
  changes its answer). A missing decision on either side is inconsistent.

Both are given per model, overall, per family and per template. The renderings and
samples of one formula are not independent trials: each share is computed per source
formula first (over its pairs), then averaged over the formulas, with the Wilson score
interval (or the interval the report asks for: ``method``) over the ``n`` formulas
(:func:`~twosat_formal.report.metrics.mean_ci`; the pairs are its ``n_obs``), as every
other metric of the report is.

Examples
--------
>>> rows = [
...     {"instance_id": "s", "model": "m", "template": "logic", "sample": 0,
...      "family": "backbone", "decision": "SAT", "decision_correct": True},
...     {"instance_id": "t", "twin_of": "s", "model": "m", "template": "logic",
...      "sample": 0, "family": "backbone", "decision": "SAT", "decision_correct": False},
... ]
>>> pairs, unpaired = pair_rows(rows)
>>> pairs[0]["accurate"], pairs[0]["consistent"], unpaired
(False, False, 0)
>>> [(s.group, s.accuracy.mean, s.consistency.mean) for s in pair_summaries(rows)]
[('all', 0.0, 0.0), ('backbone', 0.0, 0.0), ('logic', 0.0, 0.0)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.sections.format import format_ci, interval_name, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.report.metrics import (
    CI_METHOD,
    CONFIDENCE,
    Estimate,
    aggregate,
    mean_ci,
    rows_by_model,
)

__all__ = [
    "PairSummary",
    "clustered",
    "has_twins",
    "pair_rows",
    "pair_summaries",
    "wilson",
    "write_pairs",
]

Row = Mapping[str, Any]


def wilson(successes: int, n: int, *, confidence: float = CONFIDENCE) -> Estimate:
    """The share ``successes / n`` with its Wilson score interval (:func:`mean_ci` of
    ``successes`` ones and ``n - successes`` zeros).

    >>> e = wilson(8, 10)
    >>> e.mean, round(e.low, 4), round(e.high, 4)
    (0.8, 0.4902, 0.9433)
    >>> wilson(0, 0).mean is None
    True
    >>> wilson(0, 3).low, wilson(3, 3).high
    (0.0, 1.0)
    """
    return mean_ci([1.0] * successes + [0.0] * (n - successes), confidence=confidence)


def clustered(
    items: Sequence[Mapping[str, Any]],
    field: str,
    cluster: str,
    *,
    confidence: float = CONFIDENCE,
    method: str = CI_METHOD,
    seed: int = 0,
) -> Estimate:
    """The share of ``items`` whose ``field`` is true, computed per ``cluster`` (a
    formula) first and averaged over the clusters, with the Wilson interval over the
    clusters (``n``: clusters, ``n_obs``: items), or the ``method`` interval of
    :func:`mean_ci` drawn with ``seed`` (:func:`~twosat_formal.report.metrics.aggregate`).

    >>> items = [{"f": "a", "ok": True}] * 9 + [{"f": "b", "ok": False}]
    >>> e = clustered(items, "ok", "f")
    >>> e.mean, e.n, e.n_obs
    (0.5, 2, 10)
    """
    return aggregate(
        items,
        lambda item: 1.0 if item[field] else 0.0,
        key=cluster,
        confidence=confidence,
        method=method,
        seed=seed,
    )


def _key(row: Row, instance_id: object) -> tuple[Hashable, ...]:
    return (instance_id, row.get("model"), row.get("template"), row.get("sample"))


def has_twins(rows: Iterable[Row]) -> bool:
    """Whether any row is the row of a twin."""
    return any(row.get("twin_of") for row in rows)


def pair_rows(rows: Iterable[Row]) -> tuple[list[dict[str, Any]], int]:
    """Each twin row with its source's row, and how many twin rows found no source row.

    Every pair is a dict with ``model``, ``template``, ``family``, ``sample``,
    ``source_id``, ``twin_id``, both decisions, ``accurate`` and ``consistent``.
    """
    data = list(rows)
    by_key = {_key(r, r.get("instance_id")): r for r in data if not r.get("twin_of")}
    out: list[dict[str, Any]] = []
    unpaired = 0
    for twin in data:
        source_id = twin.get("twin_of")
        if not source_id:
            continue
        source = by_key.get(_key(twin, source_id))
        if source is None:
            unpaired += 1
            continue
        a, b = source.get("decision"), twin.get("decision")
        out.append(
            {
                "model": twin.get("model"),
                "template": twin.get("template"),
                "family": twin.get("family") or source.get("family"),
                "sample": twin.get("sample"),
                "source_id": source_id,
                "twin_id": twin.get("instance_id"),
                "source_decision": a,
                "twin_decision": b,
                "accurate": bool(source.get("decision_correct"))
                and bool(twin.get("decision_correct")),
                "consistent": a is not None and b is not None and a != b,
            }
        )
    return out, unpaired


@dataclass(frozen=True)
class PairSummary:
    """Pair accuracy and consistency of one model over one group of pairs.

    ``by`` is ``"all"``, ``"family"`` or ``"template"``; ``group`` the family or
    template name (``"all"`` for every pair).
    """

    model: str
    by: str
    group: str
    pairs: int
    accuracy: Estimate
    consistency: Estimate

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict."""
        return fields_json(
            self, rename={"accuracy": "pair_accuracy", "consistency": "pair_consistency"}
        )


def pair_summaries(
    rows: Iterable[Row],
    models: Sequence[str] = (),
    *,
    confidence: float = CONFIDENCE,
    method: str = CI_METHOD,
    seed: int = 0,
) -> list[PairSummary]:
    """Per model (in ``models`` order, then by appearance): all pairs, per family, per
    template; intervals by ``method`` (:func:`mean_ci`, drawn with ``seed``)."""
    pairs, _ = pair_rows(rows)
    out: list[PairSummary] = []
    for model, mine in rows_by_model(pairs, models):
        groups: list[tuple[str, str, list[Row]]] = [("all", "all", mine)]
        for by in ("family", "template"):
            for name in dict.fromkeys(str(p[by]) for p in mine):
                groups.append((by, name, [p for p in mine if str(p[by]) == name]))
        for by, name, members in groups:

            def est(field: str, members: list[Row] = members) -> Estimate:
                return clustered(
                    members, field, "source_id", confidence=confidence, method=method, seed=seed
                )

            out.append(
                PairSummary(model, by, name, len(members), est("accurate"), est("consistent"))
            )
    return out


def write_pairs(content: ReportContent) -> list[Block]:
    summaries = content.pairs or []
    if not summaries:
        return [Paragraph("No twin has an evaluated source in this run.")]
    rows = [
        plain_cells(
            s.model,
            "all" if s.by == "all" else f"{s.by}: {s.group}",
            str(s.pairs),
            format_ci(s.accuracy),
            format_ci(s.consistency),
        )
        for s in summaries
    ]
    return [
        Paragraph(
            "Each twin differs from its source in one clause and has the opposite label. "
            "Pair accuracy: both decisions right. Pair consistency: the decision changes "
            "between source and twin. Shares of pairs (model, template, sample), per source "
            "formula first, then averaged over the formulas, with 95% "
            f"{interval_name([s.accuracy for s in summaries])} intervals across them."
        ),
        Table(["model", "group", "pairs", "pair accuracy (%)", "pair consistency (%)"], rows),
    ]
