"""Trace metrics: how often an answer's reasoning states a rule the formula does not give.

Rows are those of :func:`twosat_formal.evaluate.diagnostics.trace.trace_rows` (one per stored
answer to a template prompt), with the instance's ``family``. Per model and family:

* the **unsupported-claim rate**: per formula, unsupported claims over the claims read
  in its answers; averaged over the formulas (the claims of one answer, and the answers
  to one formula's renderings, are not independent trials), with the Wilson interval
  (or the interval the report asks for: ``method``) over the formulas that have claims
  (``n``; ``n_obs`` counts the claims);
* the same rate among the *correct* answers (failure kind ``correct``) and among the
  wrong ones, which shows whether wrong answers rest on hallucinated rules;
* the mean coverage (share of sentences read as claims).

Examples
--------
>>> rows = [
...     {"instance_id": "a", "model": "m", "family": "f", "failure": "correct",
...      "coverage": 1.0,
...      "counts": {"clause": 3, "entailed": 1, "contradicted": 0, "unsupported": 0}},
...     {"instance_id": "b", "model": "m", "family": "f", "failure": "wrong-decision",
...      "coverage": 0.5,
...      "counts": {"clause": 1, "entailed": 0, "contradicted": 1, "unsupported": 2}},
... ]
>>> (s,) = trace_summaries(rows)
>>> s.claims, s.unsupported.mean, s.unsupported.n, s.correct.mean, s.wrong.mean, s.coverage
(8, 0.25, 2, 0.0, 0.5, 0.75)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block
from twosat_formal.report.sections.format import (
    captioned,
    format_ci,
    format_pct,
    interval_name,
    plain_cells,
)

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.report.metrics import CI_METHOD, Estimate, formula_unit, mean_ci, rows_by_model

__all__ = ["TraceSummary", "trace_summaries", "write_traces"]


@dataclass(frozen=True)
class TraceSummary:
    """The trace metrics of one model on one family (``"all"``: every family)."""

    model: str
    family: str
    answers: int
    claims: int
    unsupported: Estimate
    correct: Estimate
    wrong: Estimate
    coverage: float | None

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict."""
        return fields_json(
            self,
            rename={
                "unsupported": "unsupported_rate",
                "correct": "unsupported_rate_correct",
                "wrong": "unsupported_rate_wrong",
            },
        )


def _rate(rows: Sequence[Mapping[str, Any]], *, method: str, seed: int) -> tuple[Estimate, int]:
    per: dict[Any, list[int]] = {}
    for row in rows:
        counts = per.setdefault(formula_unit(row), [0, 0])
        counts[0] += int(row["counts"].get("unsupported", 0))
        counts[1] += int(sum(row["counts"].values()))
    claims = sum(c for _, c in per.values())
    shares = [u / c for u, c in per.values() if c]
    return mean_ci(shares, n_obs=claims, method=method, seed=seed), claims


def _trace_summary(
    model: str, family: str, members: list[Mapping[str, Any]], *, method: str, seed: int
) -> TraceSummary:
    """The summary of one model's trace rows on one family (or ``all``)."""
    rate, claims = _rate(members, method=method, seed=seed)
    correct, _ = _rate(
        [r for r in members if r.get("failure") == "correct"], method=method, seed=seed
    )
    wrong, _ = _rate(
        [r for r in members if r.get("failure") != "correct"], method=method, seed=seed
    )
    covered = [float(r["coverage"]) for r in members if r.get("coverage") is not None]
    coverage = sum(covered) / len(covered) if covered else None
    return TraceSummary(model, family, len(members), claims, rate, correct, wrong, coverage)


def trace_summaries(
    rows: Iterable[Mapping[str, Any]],
    models: Sequence[str] = (),
    *,
    method: str = CI_METHOD,
    seed: int = 0,
) -> list[TraceSummary]:
    """Per model (``models`` first, then by appearance): every family, then each family;
    intervals by ``method`` (:func:`~twosat_formal.report.metrics.mean_ci`, drawn with
    ``seed``)."""
    data = list(rows)
    out: list[TraceSummary] = []
    for model, mine in rows_by_model(data, models):
        families = list(dict.fromkeys(str(r.get("family")) for r in mine))
        groups = [("all", mine)] if len(families) > 1 else []
        groups += [(f, [r for r in mine if str(r.get("family")) == f]) for f in families]
        out.extend(
            _trace_summary(model, family, members, method=method, seed=seed)
            for family, members in groups
        )
    return out


def write_traces(content: ReportContent) -> list[Block]:
    summaries = content.traces or []
    rows = [
        plain_cells(
            s.model,
            s.family,
            str(s.answers),
            str(s.claims),
            format_pct(s.coverage),
            format_ci(s.unsupported),
            format_ci(s.correct),
            format_ci(s.wrong),
        )
        for s in summaries
    ]
    return captioned(
        "Claims read from each answer's reasoning (template clause sentences, "
        "conditionals, assignments; `twosat-formal trace`) and checked against the "
        "formula. Unsupported: a claim that neither follows from the formula nor is "
        "refuted by it. Rates per formula (unsupported claims over the claims of its "
        "answers), averaged over the formulas with claims, with 95% "
        f"{interval_name([s.unsupported for s in summaries])} intervals across them, for all "
        "answers, the correct ones and the wrong ones; coverage: the mean share of an "
        "answer's sentences read as claims.",
        [
            "model",
            "family",
            "answers",
            "claims",
            "coverage (%)",
            "unsupported (%)",
            "unsupported, correct answers (%)",
            "unsupported, wrong answers (%)",
        ],
        rows,
    )
