"""The "Verbalization templates (§5.5)" section: success per model and template."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph
from twosat_formal.report.metrics import Estimate, Row, aggregate
from twosat_formal.report.sections.format import NO_DATA, captioned, format_pct, ranked

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["template_table", "write_templates"]


def template_table(
    by_model: Mapping[tuple[Hashable, ...], Sequence[Row]],
    models: Sequence[str],
    templates: Sequence[str],
    *,
    method: str,
    seed: int,
) -> dict[str, dict[str, Estimate]]:
    """Model → template → the success rate of its prompts in that template."""
    table: dict[str, dict[str, Estimate]] = {}
    for model in models:
        mine = by_model[(model,)]
        table[model] = {
            template: aggregate(
                [r for r in mine if r.get("template") == template],
                "success",
                method=method,
                seed=seed,
            )
            for template in templates
        }
    return table


def write_templates(content: ReportContent) -> list[Block]:
    """The "Verbalization templates (§5.5)" section."""
    if not content.template_table or not content.templates:
        return [Paragraph(NO_DATA)]
    rows = []
    for model, by_template in content.template_table.items():
        values = [by_template[t].mean if t in by_template else None for t in content.templates]
        styles = ranked(values)
        rows.append(
            [(model, "")] + [(format_pct(v), s) for v, s in zip(values, styles, strict=True)]
        )
    return captioned(
        "Success (%) per template: the decision on UNSAT, a valid witness on SAT.",
        ["model", *content.templates],
        rows,
    )
