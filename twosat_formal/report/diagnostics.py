"""The short diagnostics section of the ``bench`` report: twins and chains at a glance.

The bench runs a small ``pairs`` experiment whose prompts ask for contradiction chains
(``ask_cycle``) beside its main grid; per model, this section gives

* the twin pairs, pair accuracy and pair consistency (:mod:`twosat_formal.report.pairs`);
* the UNSAT answers whose prompt asked for a chain, and **Wit. (UNSAT)**: the share of
  them that say No with a valid chain (``cycle_valid``), per formula first and then over
  the formulas, with the Wilson interval over the formulas (or the interval the report
  asks for: ``method``).

Examples
--------
>>> rows = [
...     {"instance_id": "s", "model": "m", "template": "logic", "sample": 0, "family": "f",
...      "label": "UNSAT", "decision": "UNSAT", "decision_correct": True,
...      "cycle_valid": True, "cycle_reason": None},
...     {"instance_id": "t", "twin_of": "s", "model": "m", "template": "logic", "sample": 0,
...      "family": "f", "label": "SAT", "decision": "SAT", "decision_correct": True,
...      "cycle_valid": None, "cycle_reason": None},
... ]
>>> (row,) = diagnostic_rows(rows)
>>> row.pairs, row.pair_accuracy.mean, row.chains_asked, row.chain_witness.mean
(1, 1.0, 1, 1.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block
from twosat_formal.report.sections.format import captioned, format_ci, interval_name, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.report.metrics import (
    CI_METHOD,
    METRICS,
    Estimate,
    aggregate,
    mean_ci,
    rows_by_model,
)
from twosat_formal.report.pairs import PairSummary, pair_summaries

__all__ = ["DiagnosticRow", "diagnostic_rows", "write_diagnostics"]


@dataclass(frozen=True)
class DiagnosticRow:
    """Twins and chains of one model."""

    model: str
    pairs: int
    pair_accuracy: Estimate
    pair_consistency: Estimate
    chains_asked: int
    chain_witness: Estimate

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON-ready dict."""
        return fields_json(self, rename={"chain_witness": "wit_unsat"})


def _pair_columns(pairs: PairSummary | None, method: str) -> tuple[int, Estimate, Estimate]:
    """Pairs, pair accuracy and pair consistency of a model (none without twins)."""
    if pairs is None:
        return 0, mean_ci([], method=method), mean_ci([], method=method)
    return pairs.pairs, pairs.accuracy, pairs.consistency


def diagnostic_rows(
    rows: Iterable[Mapping[str, Any]],
    models: Sequence[str] = (),
    *,
    method: str = CI_METHOD,
    seed: int = 0,
) -> list[DiagnosticRow]:
    """One :class:`DiagnosticRow` per model (``models`` first, then by appearance);
    intervals by ``method`` (:func:`~twosat_formal.report.metrics.mean_ci`, drawn with
    ``seed``)."""
    data = list(rows)
    by_model = rows_by_model(data, models)
    order = [model for model, _ in by_model]
    summaries = pair_summaries(data, order, method=method, seed=seed)
    overall = {s.model: s for s in summaries if s.by == "all"}
    chain = METRICS["chain_witness"]
    out = []
    for model, mine in by_model:
        asked = [v for v in (chain(r) for r in mine) if v is not None]
        out.append(
            DiagnosticRow(
                model,
                *_pair_columns(overall.get(model), method),
                len(asked),
                aggregate(mine, "chain_witness", method=method, seed=seed),
            )
        )
    return out


def write_diagnostics(content: ReportContent) -> list[Block]:
    rows = [
        plain_cells(
            r.model,
            str(r.pairs),
            format_ci(r.pair_accuracy),
            format_ci(r.pair_consistency),
            str(r.chains_asked),
            format_ci(r.chain_witness),
        )
        for r in content.diagnostics or []
    ]
    return captioned(
        "A small side run (`diagnostics/` beside this report: the `pairs` experiment, "
        "prompts that ask for a contradiction chain). Twins: each formula and its twin, "
        "one clause apart with the opposite label; pair accuracy: both decisions right; "
        "pair consistency: the decision changes. Wit. (UNSAT): the answer is No and its "
        "contradiction chain is valid, over the UNSAT answers. 95% "
        f"{interval_name([r.pair_accuracy for r in content.diagnostics or []])} intervals; "
        "see docs/diagnostics.md.",
        [
            "model",
            "pairs",
            "pair accuracy (%)",
            "pair consistency (%)",
            "UNSAT answers",
            "Wit. (UNSAT) (%)",
        ],
        rows,
    )
