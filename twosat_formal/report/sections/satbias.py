"""The "SAT-prediction bias on UNSAT instances (App. J)" section: the share of SAT
answers on UNSAT instances per family and model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph
from twosat_formal.report.metrics import Estimate, Row, aggregate, group_rows
from twosat_formal.report.sections.common import family_key
from twosat_formal.report.sections.format import captioned, format_ci, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["sat_bias_by_family", "write_sat_bias"]


def sat_bias_by_family(
    data: Sequence[Row], *, method: str, seed: int
) -> dict[str, dict[str, Estimate]]:
    """Family → model → the share of SAT predictions, families in the report's order
    (pairs without a prediction left out)."""
    sat_bias: dict[str, dict[str, Estimate]] = {}
    for (family, model), members in group_rows(data, ["family", "model"]).items():
        estimate = aggregate(members, "sat_prediction", method=method, seed=seed)
        if estimate.n:
            sat_bias.setdefault(str(family), {})[str(model)] = estimate
    return {f: sat_bias[f] for f in sorted(sat_bias, key=family_key)}


def write_sat_bias(content: ReportContent) -> list[Block]:
    """The "SAT-prediction bias on UNSAT instances (App. J)" section."""
    if not content.sat_bias_by_family:
        return [Paragraph("No UNSAT instances in this run.")]
    models = content.models
    rows = [
        plain_cells(family, *(format_ci(by_model[m]) if m in by_model else "—" for m in models))
        for family, by_model in content.sat_bias_by_family.items()
    ]
    rows.append(plain_cells("all UNSAT", *(format_ci(s.sat_prediction) for s in content.summaries)))
    return captioned(
        "Share of samples on UNSAT instances where the model answered SAT (%).",
        ["generator", *models],
        rows,
    )
