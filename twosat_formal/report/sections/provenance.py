"""The "Provenance" section: the manifest's fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.sections.format import plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["write_provenance"]


def write_provenance(content: ReportContent) -> list[Block]:
    """The "Provenance" section."""
    manifest = content.manifest
    if not manifest:
        return [Paragraph("No manifest found next to the results.")]
    rows = []
    for key in (
        "experiment",
        "tool_version",
        "git_revision",
        "created",
        "seed",
        "formulas",
        "models",
        "sampling",
        "solver_versions",
    ):
        if key in manifest:
            rows.append(plain_cells(key, _compact(manifest[key])))
    return [Table(["field", "value"], rows)]


def _compact(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_compact(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_compact(v) for v in value)
    return "—" if value is None else str(value)
