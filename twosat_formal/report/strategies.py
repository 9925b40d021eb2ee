"""The report's comparison of reasoning strategies: one line per model and strategy.

Rows are the report's arms (:func:`~twosat_formal.report.arms.strategy_arms`: a
``sample-k`` arm's rows are votes). Per model spec and strategy:

* ``rows``: answers (votes for ``sample-k``) and ``accuracy``, the share correct;
* ``ties``: votes tied between decisions (``sample-k`` only, else ``None``), counted
  apart from the votes that decided;
* ``formalized`` and ``formalized_exact``: ``symbolic-cot`` answers with a readable
  formalization, and those whose rules are exactly the instance's (else ``None``);
* ``quality``: the mean of each exact reasoning-quality coding over the arm's trace
  rows (:mod:`twosat_formal.evaluate.diagnostics.quality`; every sample of a ``sample-k`` arm),
  each over the answers where it is defined.

Examples
--------
>>> rows = [{"model_spec": "m", "strategy": "sample-k:3", "decision_correct": True,
...          "vote_tie": False}, {"model_spec": "m", "strategy": "sample-k:3",
...          "decision_correct": False, "vote_tie": True}]
>>> (s,) = strategy_summaries(rows, [])
>>> s.arm, s.rows, s.accuracy, s.ties
('m [sample-k:3]', 2, 0.5, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.evaluate.diagnostics.quality import DIMENSIONS as QUALITY_DIMENSIONS
from twosat_formal.report.blocks import Block
from twosat_formal.report.sections.format import captioned, format_pct, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.evaluate.diagnostics.quality import DIMENSIONS
from twosat_formal.report.arms import arm_name

__all__ = ["StrategySummary", "has_strategies", "strategy_summaries", "write_strategies"]


@dataclass(frozen=True)
class StrategySummary:
    """One model under one strategy."""

    model: str
    strategy: str
    arm: str
    rows: int
    accuracy: float | None
    ties: int | None = None
    formalized: int | None = None
    formalized_exact: int | None = None
    quality: dict[str, float | None] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict."""
        return fields_json(self)


def has_strategies(rows: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any row was asked under a strategy other than ``direct``."""
    return any((r.get("strategy") or "direct") != "direct" for r in rows)


def _formalization(row: Mapping[str, Any]) -> Mapping[str, Any] | None:
    value = row.get("formalization")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, Mapping) else None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _key(record: Mapping[str, Any], model: object) -> tuple[str, str]:
    """A (model spec, strategy) key; no strategy is ``direct``."""
    return str(model), str(record.get("strategy") or "direct")


def _codings(traces: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], list[Mapping[str, Any]]]:
    """The quality codings of the trace rows, by model spec and strategy."""
    codings: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for trace in traces:
        quality = trace.get("quality")
        if isinstance(quality, Mapping):
            codings.setdefault(_key(trace, trace.get("model")), []).append(quality)
    return codings


def _formalized(members: list[Mapping[str, Any]]) -> tuple[int, int]:
    """How many answers have a readable formalization, and how many an exact one."""
    forms = [_formalization(r) for r in members]
    found = sum(1 for f in forms if f and f.get("found") and f.get("error") is None)
    return found, sum(1 for f in forms if f and f.get("exact"))


def _summary(
    spec: str, strategy: str, members: list[Mapping[str, Any]], coded: list[Mapping[str, Any]]
) -> StrategySummary:
    """The summary of one model's answers under one strategy (``members``: at least one)."""
    right = sum(bool(r.get("decision_correct")) for r in members)
    ties = None
    if strategy.startswith("sample-k"):
        ties = sum(bool(r.get("vote_tie")) for r in members)
    formalized, exact = _formalized(members) if strategy == "symbolic-cot" else (None, None)
    return StrategySummary(
        model=spec,
        strategy=strategy,
        arm=arm_name(spec, strategy),
        rows=len(members),
        accuracy=right / len(members),
        ties=ties,
        formalized=formalized,
        formalized_exact=exact,
        quality={
            name: _mean([float(q[name]) for q in coded if q.get(name) is not None])
            for name in DIMENSIONS
        },
    )


def strategy_summaries(
    rows: Iterable[Mapping[str, Any]], traces: Iterable[Mapping[str, Any]]
) -> list[StrategySummary]:
    """One :class:`StrategySummary` per model and strategy, in order of appearance."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(_key(row, row.get("model_spec") or row.get("model")), []).append(row)
    codings = _codings(traces)
    return [
        _summary(spec, strategy, members, codings.get((spec, strategy), []))
        for (spec, strategy), members in groups.items()
    ]


def _count(value: int | None) -> str:
    return "—" if value is None else str(value)


def write_strategies(content: ReportContent) -> list[Block]:
    rows = [
        plain_cells(
            s.model,
            s.strategy,
            str(s.rows),
            format_pct(s.accuracy),
            _count(s.ties),
            "—" if s.formalized is None else f"{s.formalized_exact} of {s.formalized}",
            *(format_pct(s.quality.get(name)) for name in QUALITY_DIMENSIONS),
        )
        for s in content.strategies or []
    ]
    return captioned(
        "Each model under each reasoning strategy (`--strategy`; every other table shows "
        "a strategy other than direct as the arm `model [strategy]`). Rows: answers, or "
        "votes of sample-k (majority of K samples; ties counted apart, not correct). "
        "Formalized: symbolic-cot answers whose FORMULAS block is exactly the instance's "
        "rules, of those with a readable block. The four reasoning-quality codings are "
        "exact (`twosat-formal trace`): means over the answers where each is defined.",
        [
            "model",
            "strategy",
            "rows",
            "accuracy (%)",
            "ties",
            "formalized exactly",
            "premise fidelity (%)",
            "inference validity (%)",
            "answer completion (%)",
            "answer alignment (%)",
        ],
        rows,
    )
