"""Trace metrics: how often an answer's reasoning states a rule the formula does not give.

Rows are those of :func:`twosat_formal.diagnostics.trace.trace_rows` (one per stored
answer to a template prompt), with the instance's ``family``. Per model and family:

* the **unsupported-claim rate**: unsupported claims over all claims read, pooled over
  the answers, with a Wilson interval (:func:`twosat_formal.report.pairs.wilson`);
* the same rate among the *correct* answers (failure kind ``correct``) and among the
  wrong ones, which shows whether wrong answers rest on hallucinated rules;
* the mean coverage (share of sentences read as claims).

Examples
--------
>>> rows = [
...     {"model": "m", "family": "f", "failure": "correct", "coverage": 1.0,
...      "counts": {"clause": 3, "entailed": 1, "contradicted": 0, "unsupported": 0}},
...     {"model": "m", "family": "f", "failure": "wrong-decision", "coverage": 0.5,
...      "counts": {"clause": 1, "entailed": 0, "contradicted": 1, "unsupported": 2}},
... ]
>>> (s,) = trace_summaries(rows)
>>> s.claims, s.unsupported.mean, s.correct.mean, s.wrong.mean, s.coverage
(8, 0.25, 0.0, 0.5, 0.75)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.jsonfields import fields_json
from twosat_formal.report.metrics import Estimate, model_order
from twosat_formal.report.pairs import wilson

__all__ = ["TraceSummary", "trace_summaries"]


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


def _rate(rows: Sequence[Mapping[str, Any]]) -> tuple[Estimate, int]:
    claims = sum(sum(r["counts"].values()) for r in rows)
    unsupported = sum(r["counts"].get("unsupported", 0) for r in rows)
    return wilson(unsupported, claims), claims


def trace_summaries(
    rows: Iterable[Mapping[str, Any]], models: Sequence[str] = ()
) -> list[TraceSummary]:
    """Per model (``models`` first, then by appearance): every family, then each family."""
    data = list(rows)
    out = []
    for model in model_order(data, models):
        mine = [r for r in data if str(r["model"]) == model]
        families = list(dict.fromkeys(str(r.get("family")) for r in mine))
        groups = [("all", mine)] if len(families) > 1 else []
        groups += [(f, [r for r in mine if str(r.get("family")) == f]) for f in families]
        for family, members in groups:
            rate, claims = _rate(members)
            correct, _ = _rate([r for r in members if r.get("failure") == "correct"])
            wrong, _ = _rate([r for r in members if r.get("failure") != "correct"])
            covered = [float(r["coverage"]) for r in members if r.get("coverage") is not None]
            coverage = sum(covered) / len(covered) if covered else None
            out.append(
                TraceSummary(model, family, len(members), claims, rate, correct, wrong, coverage)
            )
    return out
