"""The "Table 1" section: decision accuracy and witness validity per family, clause
count and model (:class:`Table1Row`), best in bold and second in italics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Paragraph
from twosat_formal.report.metrics import Row
from twosat_formal.report.sections.common import (
    Cell,
    by_family,
    cell_of,
    clauses_of,
    is_plain,
    label_of,
)
from twosat_formal.report.sections.format import NO_DATA, captioned, format_pct, plain_cells, ranked

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["NOT_APPLICABLE", "PARTIAL_MARK", "Table1Row", "table1_rows", "write_table1"]


@dataclass(frozen=True)
class Table1Row:
    """One row of the Table 1-style grid: a family at a clause count."""

    family: str
    clauses: int
    label: str
    cells: dict[str, Cell]

    def partial(self, model: str) -> bool:
        """Whether ``model``'s cell averages fewer templates or samples than another
        cell of the row."""
        cell = self.cells.get(model)
        if cell is None:
            return False
        templates = max(c.templates for c in self.cells.values())
        samples = max(c.samples for c in self.cells.values())
        return cell.templates < templates or cell.samples < samples


def _table1_row(
    family: str,
    clauses: int,
    members: Sequence[Row],
    models: Sequence[str],
    *,
    method: str,
    seed: int,
) -> Table1Row:
    """The Table 1 row of one family at one clause count (models without answers left out)."""
    cells = {}
    for model in models:
        mine = [r for r in members if r.get("model") == model]
        if mine:
            cells[model] = cell_of(mine, method=method, seed=seed)
    return Table1Row(family, clauses, label_of(members), cells)


def table1_rows(
    rows: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> list[Table1Row]:
    """The Table 1 grid: a row per family and clause count of the grid rows."""
    out: list[Table1Row] = []
    for family, members in by_family(r for r in rows if is_plain(r)):
        by_size: dict[int, list[Row]] = {}
        for row in members:
            by_size.setdefault(clauses_of(row), []).append(row)
        out.extend(
            _table1_row(family, clauses, by_size[clauses], models, method=method, seed=seed)
            for clauses in sorted(by_size)
        )
    return out


#: A Table 1 value that does not apply (witness validity on an UNSAT row, the chain
#: witness where no prompt asked for a chain); a missing one (no answers) is ``—``.
NOT_APPLICABLE = "n/a"


#: Marks a cell averaged over fewer templates or samples than its row's others.
PARTIAL_MARK = "†"


def _table1_means(row: Table1Row, models: Sequence[str], part: str) -> list[float | None]:
    """Each model's mean of one Table 1 estimate (``sat``, ``wit`` or ``cyc``) in ``row``."""
    estimates = [getattr(row.cells[m], part) if m in row.cells else None for m in models]
    return [None if e is None else e.mean for e in estimates]


def _table1_cell(row: Table1Row, model: str, value: float | None, applies: bool) -> str:
    """A Table 1 value: n/a where it does not apply (to this model's answers, or to the
    row's when no answered cell of the row has it: witness validity on an UNSAT row),
    ``—`` with no answers, else a percentage (marked when the cell averages fewer
    templates or samples)."""
    if value is None and not applies:
        return NOT_APPLICABLE
    if model not in row.cells:
        return "—"
    if value is None:
        return NOT_APPLICABLE
    return format_pct(value) + (f" {PARTIAL_MARK}" if row.partial(model) else "")


def _table1_cells(
    row: Table1Row, models: Sequence[str], parts: Sequence[str]
) -> list[tuple[str, str]]:
    """One Table 1 row: its generator and size, then each model's parts, ranked."""
    means = [_table1_means(row, models, part) for part in parts]
    styles = [ranked(values) for values in means]
    cells = plain_cells(row.family, str(row.clauses))
    for i, model in enumerate(models):
        cells.extend(
            (_table1_cell(row, model, values[i], any(v is not None for v in values)), ranks[i])
            for values, ranks in zip(means, styles, strict=True)
        )
    return cells


def _table1_caption(content: ReportContent, chains: bool, partial: bool) -> str:
    """Table 1's caption: the chain column and the partial mark only where they appear."""
    counts = sorted({c.sat.n for r in content.table1 for c in r.cells.values()})
    return (
        "Satisfiability decision accuracy (Sat., %) and witness validity (Wit., %, SAT "
        "instances only"
        + (
            "; Wit. (UNSAT), %: the answer is No and its contradiction chain is valid, on "
            "UNSAT instances whose prompt asked for one"
            if chains
            else ""
        )
        + f"). Formulas per cell: {', '.join(map(str, counts))}; each formula "
        "averages its verbalizations and samples. Best in bold, second in italics (a "
        f"tie is neither). {NOT_APPLICABLE}: does not apply; —: no answers"
        + (
            f"; {PARTIAL_MARK}: averaged over fewer templates or samples than the row's other cells"
            if partial
            else ""
        )
        + "."
    )


def write_table1(content: ReportContent) -> list[Block]:
    """The "Table 1" section."""
    if not content.table1:
        return [Paragraph(NO_DATA)]
    models = content.models
    chains = any(c.cyc is not None for r in content.table1 for c in r.cells.values())
    parts = ("sat", "wit", "cyc") if chains else ("sat", "wit")
    names = {"sat": "Sat.", "wit": "Wit.", "cyc": "Wit. (UNSAT)"}
    headers = ["generator", "|C|"] + [f"{m} {names[part]}" for m in models for part in parts]
    rows = [_table1_cells(row, models, parts) for row in content.table1]
    partial = any(row.partial(m) for row in content.table1 for m in models)
    return captioned(_table1_caption(content, chains, partial), headers, rows)
