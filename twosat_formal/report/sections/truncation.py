"""The "Truncation (App. I)" section: each model's token budget and truncated answers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from twosat_formal.core.model import SamplingParams
from twosat_formal.evaluate.models.base import sampling_for
from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.sections.format import NO_DATA, format_pct, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = ["budget_of", "sorted_budgets", "write_truncation"]


def sorted_budgets(
    budgets: Mapping[str, Sequence[int]], models: Sequence[str]
) -> dict[str, list[int]]:
    """Each model's distinct token budgets, in increasing order."""
    return {m: sorted({int(b) for b in budgets.get(m, [])}) for m in models}


def write_truncation(content: ReportContent) -> list[Block]:
    """The "Truncation (App. I)" section."""
    if not content.summaries:
        return [Paragraph(NO_DATA)]
    rows = [
        plain_cells(
            s.model,
            budget_of(s.model, content.budgets.get(s.model, []), content.manifest),
            f"{s.truncated}/{s.rows}",
            format_pct(s.truncated / s.rows if s.rows else None),
        )
        for s in content.summaries
    ]
    return [Table(["model", "max tokens", "truncated / samples", "truncation rate (%)"], rows)]


def _run_budget(manifest: dict[str, Any] | None) -> int | None:
    """The run's ``max_tokens`` from its manifest's sampling parameters (a positive
    integer), or ``None``."""
    sampling = (manifest or {}).get("sampling") or {}
    value = sampling.get("max_tokens") if isinstance(sampling, dict) else None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return None
    return value


def budget_of(model: str, stored: Sequence[int], manifest: dict[str, Any] | None) -> str:
    """A model's token budget: the ``max_tokens`` its stored requests were asked with
    (all of them, when they differ); without stored ones, the run's sampling parameters
    with the model spec's own options applied; ``—`` when neither says.

    >>> budget_of("ref/coin?max_tokens=16384", [16384], {"sampling": {"max_tokens": 32768}})
    '16384'
    >>> budget_of("ref/coin?max_tokens=16384", [], {"sampling": {"max_tokens": 32768}})
    '16384'
    >>> budget_of("ref/coin", [], {"sampling": {"max_tokens": 32768}})
    '32768'
    >>> budget_of("ref/coin", [512, 1024], None), budget_of("ref/coin", [], None)
    ('512, 1024', '—')
    """
    if stored:
        return ", ".join(str(b) for b in sorted(set(stored)))
    value = _run_budget(manifest)
    if value is None and "max_tokens" not in parse_qs(model.partition("?")[2]):
        return "—"
    base = SamplingParams() if value is None else SamplingParams(max_tokens=value)
    return str(sampling_for(model, base).max_tokens)
