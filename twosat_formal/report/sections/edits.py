"""The symbolic-edit sections (:data:`~twosat_formal.report.render.EDIT_SECTIONS`):
each model's metrics per cumulative level, retention, individual edits, per operator
and by change of proof length (:class:`EditSummary`), and their tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.make.edits import metrics as edit_metrics
from twosat_formal.make.edits.metrics import FlipRate as EditFlipRate
from twosat_formal.make.edits.metrics import IndividualAccuracy, NormalizedAccuracy, Retention
from twosat_formal.make.edits.proof_lengths import ProofLengthFlips, proof_length_flips
from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.metrics import CI_METHOD, Estimate, Row, group_rows, mean_ci
from twosat_formal.report.sections.common import Curves, is_edited
from twosat_formal.report.sections.format import (
    captioned,
    format_ci,
    format_count_rate,
    format_pct,
    interval_name,
    plain_cells,
)

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = [
    "EditSummary",
    "OperatorEdits",
    "edit_summaries",
    "origin_estimate",
    "write_edit_flips",
    "write_edit_individual",
    "write_edit_normalized",
    "write_edit_operators",
    "write_edit_proof_lengths",
    "write_edit_retention",
]

#: The keys of the edit metrics in ``report.json`` that differ from their field names.
_EDIT_KEYS = {
    "normalized": "normalized_accuracy",
    "flips": "flip_rate",
    "proof_lengths": "proof_length_flips",
}


@dataclass(frozen=True)
class OperatorEdits:
    """The cumulative metrics and retention of the edits whose last step is one operator.

    ``normalized[k - 1]`` and ``flips[k - 1]`` count only the records whose ``k``-th
    edit is ``operator`` (no fallbacks).
    """

    operator: str
    normalized: list[edit_metrics.NormalizedAccuracy]
    flips: list[edit_metrics.FlipRate]
    retention: edit_metrics.Retention

    def to_json(self) -> dict[str, Any]:
        """The metrics as a JSON-ready dict."""
        return fields_json(self, rename=_EDIT_KEYS)


@dataclass(frozen=True)
class EditSummary:
    """A model's symbolic-edit metrics of one category: each level ``k = 1..K``, retention.

    ``category`` is ``"operator"`` (edits of a clause's logic) or ``"premise"`` (chains
    with ``drop`` or ``insert``), reported apart. ``normalized[k - 1]`` and
    ``flips[k - 1]`` are the metrics at level ``k``; ``retention`` covers the
    label-changing edited rows of every mode.
    """

    model: str
    normalized: list[edit_metrics.NormalizedAccuracy]
    flips: list[edit_metrics.FlipRate]
    retention: edit_metrics.Retention
    #: Accuracy on individual edits: each class over every operator (``operator``
    #: ``None``), then each class per operator.
    individual: list[edit_metrics.IndividualAccuracy] = field(default_factory=list)
    category: str = "operator"
    #: The same metrics per operator (the last edit's), in operator order.
    operators: list[OperatorEdits] = field(default_factory=list)
    #: Pairs and prediction flips per change in proof length from the origin, by change.
    proof_lengths: list[ProofLengthFlips] = field(default_factory=list)
    #: The flip rate of each of :attr:`proof_lengths` with its interval
    #: (:func:`origin_estimate`; not written to JSON).
    proof_length_rates: list[Estimate] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The metrics as a JSON-ready dict.

        >>> EditSummary("m", [], [], edit_metrics.Retention(0, 0, 0)).to_json()["retention"]
        {'rows': 0, 'retained': 0, 'correct': 0, 'rate': None, 'accuracy': None}
        """
        return fields_json(self, rename=_EDIT_KEYS, skip=("proof_length_rates",))


def _operator_edits(mine: Sequence[Row], operator: str, category: str, top: int) -> OperatorEdits:
    which = {"operator": operator, "category": category}
    normalized = [edit_metrics.normalized_accuracy(mine, k, **which) for k in range(1, top + 1)]
    flips = [edit_metrics.flip_rate(mine, k, **which) for k in range(1, top + 1)]
    return OperatorEdits(operator, normalized, flips, edit_metrics.retention(mine, **which))


def _edit_summary(
    model: str,
    mine: Sequence[Row],
    category: str,
    normalized: list[edit_metrics.NormalizedAccuracy],
    top: int,
    *,
    method: str,
    seed: int,
) -> EditSummary:
    """The edit metrics of ``model``'s rows ``mine`` of one category, levels 1..``top``
    (``normalized``: its normalized accuracy at levels 0..``top``; the flip rates'
    intervals by ``method``, drawn with ``seed``)."""
    flips = [edit_metrics.flip_rate(mine, k, category=category) for k in range(1, top + 1)]
    names = edit_metrics.edit_operators(mine, mode="individual", category=category)
    individual = [
        edit_metrics.individual_accuracy(mine, kind, operator=operator, category=category)
        for operator in (None, *names)
        for kind in ("preserving", "changing")
    ]
    every = edit_metrics.edit_operators(mine, mode=None, category=category)
    lengths = proof_length_flips(mine, category=category)
    return EditSummary(
        model,
        normalized[1:],
        flips,
        edit_metrics.retention(mine, category=category),
        [i for i in individual if i.rows],
        category,
        [_operator_edits(mine, name, category, top) for name in every],
        lengths,
        [origin_estimate(p, method=method, seed=seed) for p in lengths],
    )


def edit_summaries(
    rows: Sequence[Row], models: Sequence[str], *, method: str = CI_METHOD, seed: int = 0
) -> tuple[list[EditSummary] | None, Curves]:
    """Edit metrics per model and category (levels 1..K, K the deepest level), and the curves.

    Operator edits and premise edits (chains with ``drop`` or ``insert``) are summarized
    apart, operator edits first. The curves hold each model's normalized accuracy at
    ``k = 0..K`` (``n``: the records of the level), premise chains as a curve of their
    own. The flip rates per change in proof length have intervals by ``method``
    (:func:`origin_estimate`, drawn with ``seed``). ``(None, {})`` when no row is edited.
    """
    rows = [r for r in rows if not r.get("twin_of")]  # twins have their own section
    if not any(is_edited(r) for r in rows):
        return None, {}
    top = edit_metrics.max_level(rows)
    categories = edit_metrics.edit_categories(rows)
    by_model = group_rows(rows, ["model"])
    summaries: list[EditSummary] = []
    curves: Curves = {}
    for category in categories:
        for model in models:
            mine = by_model.get((model,), [])
            normalized = [
                edit_metrics.normalized_accuracy(mine, k, category=category) for k in range(top + 1)
            ]
            summaries.append(
                _edit_summary(model, mine, category, normalized, top, method=method, seed=seed)
            )
            name = model if category == categories[0] else f"{model} ({category} edits)"
            curves[name] = [
                (float(n.level), Estimate(n.value, None, None, n.records, n.records))
                for n in normalized
            ]
    return summaries, curves


#: What the "edits" column of the edit tables means.
_CATEGORY_NOTE = (
    "Edits: operator (an edit of a clause's logic) or premise (a chain that drops or "
    "inserts a clause; off unless asked for), reported apart."
)


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


#: The columns of :func:`_retention_cells`, in both tables of retention.
_RETENTION_HEADERS = ("label-changing samples", "original answer kept (%)", "new label (%)")


def _retention_cells(retention: Retention) -> list[tuple[str, str]]:
    """The cells under :data:`_RETENTION_HEADERS`: samples, retained and new-label shares."""
    return plain_cells(
        str(retention.rows),
        format_count_rate(retention.retained, retention.rows, retention.rate),
        format_count_rate(retention.correct, retention.rows, retention.accuracy),
    )


_Item = TypeVar("_Item")


def _edit_rows(
    content: ReportContent,
    items: Callable[[EditSummary], Iterable[_Item]],
    cells: Callable[[_Item], Sequence[str]],
) -> list[list[tuple[str, str]]]:
    """Rows of an edit table: a summary's model and edits category, then ``cells`` of
    each of its ``items`` (one row each), over every edit summary of the content."""
    return [
        plain_cells(s.model, s.category, *cells(i)) for s in content.edits or [] for i in items(s)
    ]


def _normalized_cells(n: NormalizedAccuracy) -> tuple[str, ...]:
    return (
        str(n.level),
        str(n.records),
        str(n.edited),
        str(n.fallback),
        format_pct(n.baseline_accuracy),
        format_pct(n.accuracy),
        _ratio(n.value),
        format_pct(n.agreement),
    )


def _edit_flip_cells(f: EditFlipRate) -> tuple[str, ...]:
    return (
        str(f.level),
        str(f.pairs),
        str(f.edited),
        str(f.broken),
        str(f.fixed),
        format_count_rate(f.flips, f.pairs, f.rate),
    )


def _individual_cells(i: IndividualAccuracy) -> tuple[str, ...]:
    return (
        i.operator or "all operators",
        f"label-{i.kind}",
        str(i.questions),
        str(i.rows),
        format_pct(i.per_question),
        format_pct(i.pooled),
    )


def write_edit_normalized(content: ReportContent) -> list[Block]:
    """The section of normalized accuracy per cumulative edit level."""
    rows = _edit_rows(content, lambda s: s.normalized, _normalized_cells)
    if not rows:
        return [Paragraph("No cumulative edits in this run.")]
    blocks: list[Block] = [
        Paragraph(
            "Accuracy after k cumulative label-preserving edits divided by the baseline "
            "accuracy of the same records (not by level k - 1). A record without a valid "
            "k-th edit is evaluated through its baseline (the fallback), so every level "
            "counts the same records. Agreement: share of records whose decision at level k "
            "is the baseline decision. Records are (formula, template, sample) per model. "
            + _CATEGORY_NOTE
        ),
        Table(
            [
                "model",
                "edits",
                "k",
                "records",
                "edited",
                "at baseline",
                "baseline acc. (%)",
                "acc. at k (%)",
                "normalized acc.",
                "agreement (%)",
            ],
            rows,
        ),
    ]
    unpaired = sum(n.unpaired for s in content.edits or [] for n in s.normalized)
    if unpaired:
        blocks.append(
            Paragraph(f"Note: {unpaired} edited rows have no evaluated baseline; left out.")
        )
    return blocks


def write_edit_flips(content: ReportContent) -> list[Block]:
    """The section of flip rates per cumulative edit level."""
    rows = _edit_rows(content, lambda s: s.flips, _edit_flip_cells)
    if not rows:
        return [Paragraph("No cumulative edits in this run.")]
    return captioned(
        "Share of records whose correctness differs between the baseline and level k, "
        "in either direction (broken: correct to incorrect, fixed: incorrect to "
        "correct); unchanged records, fallbacks included, stay in the denominator.",
        ["model", "edits", "k", "records", "edited", "broken", "fixed", "flip rate (%)"],
        rows,
    )


def origin_estimate(flips: ProofLengthFlips, *, method: str = CI_METHOD, seed: int = 0) -> Estimate:
    """The flip rate of one change in proof length: each origin formula's share of flips
    averaged over the origins, with the Wilson interval across them (``n``: origins,
    ``n_obs``: pairs), or the ``method`` interval of
    :func:`~twosat_formal.report.metrics.mean_ci` drawn with ``seed``.

    >>> e = origin_estimate(ProofLengthFlips(1, pairs=4, flips=3, shares=(1.0, 0.5)))
    >>> e.mean, e.n, e.n_obs
    (0.75, 2, 4)
    """
    return mean_ci(list(flips.shares), n_obs=flips.pairs, method=method, seed=seed)


def write_edit_proof_lengths(content: ReportContent) -> list[Block]:
    """The section of prediction flips per change in proof length."""
    edited, changed = content.edit_proof_lengths
    count = Paragraph(
        f"{changed} of {edited} edited records have a proof length that differs from "
        "their origin's (proof length: the shortest contradiction cycle of an UNSAT "
        "formula, the longest shortest chain forcing a backbone literal of a SAT one)."
    )
    rows = [
        plain_cells(
            s.model,
            s.category,
            f"{p.change:+d}",
            str(p.pairs),
            str(p.flips),
            format_ci(rate),
        )
        for s in content.edits or []
        for p, rate in zip(s.proof_lengths, s.proof_length_rates, strict=True)
    ]
    interval = interval_name([rate for s in content.edits or [] for rate in s.proof_length_rates])
    if not rows:
        return [count, Paragraph("No edited answers whose records carry proof lengths.")]
    return [
        count,
        *captioned(
            "Each edited answer paired with the answer to its origin (same model, template "
            "and sample), by the change in proof length from the origin to the edited "
            "record (LogicEdit, Appendix F); a prediction flip is a pair whose two "
            "decisions differ. Flip rate: each origin formula's share of flips among its "
            f"pairs, averaged over the origins, with its 95% {interval} interval across them.",
            ["model", "edits", "proof length change", "pairs", "flips", "flip rate (%)"],
            rows,
        ),
    ]


def write_edit_retention(content: ReportContent) -> list[Block]:
    """The section of original-answer retention on label-changing edits."""
    summaries = [s for s in content.edits or [] if s.retention.rows]
    if not summaries:
        return [Paragraph("No label-changing edits in this run.")]
    rows = [[*plain_cells(s.model, s.category), *_retention_cells(s.retention)] for s in summaries]
    return captioned(
        "On label-changing edits: the share of answers that keep the origin's label "
        "(right before the edit, wrong after it), and the share that give the new "
        "label. A missing or unparsable answer retains nothing and counts as incorrect, "
        "so with two labels retention = 1 - accuracy - unparsable.",
        ["model", "edits", *_RETENTION_HEADERS],
        rows,
    )


def write_edit_individual(content: ReportContent) -> list[Block]:
    """The section of accuracy on individual edits."""
    rows = _edit_rows(content, lambda s: s.individual, _individual_cells)
    if not rows:
        return [Paragraph("No individual edits in this run.")]
    return captioned(
        "Accuracy on individual edits of each class, as the symbolic-edits paper (§5.2) "
        "defines it: averaged over the variants of a question (a base formula's record: "
        "model, template, sample), then over questions; the pooled share of correct "
        "edited rows beside it. Per operator below the class totals.",
        [
            "model",
            "edits",
            "operator",
            "edit class",
            "questions",
            "edited rows",
            "accuracy (%, per question)",
            "accuracy (%, pooled)",
        ],
        rows,
    )


def _operator_levels(content: ReportContent) -> list[list[tuple[str, str]]]:
    """A row per model, edits category, operator and level k with records edited at k."""
    return [
        plain_cells(
            s.model,
            s.category,
            o.operator,
            str(n.level),
            str(n.records),
            format_pct(n.baseline_accuracy),
            format_pct(n.accuracy),
            _ratio(n.value),
            format_count_rate(f.flips, f.pairs, f.rate),
        )
        for s in content.edits or []
        for o in s.operators
        for n, f in zip(o.normalized, o.flips, strict=True)
        if n.records
    ]


def _operator_retention(content: ReportContent) -> list[list[tuple[str, str]]]:
    """A row per model, edits category and operator with retained rows."""
    return [
        [*plain_cells(s.model, s.category, o.operator), *_retention_cells(o.retention)]
        for s in content.edits or []
        for o in s.operators
        if o.retention.rows
    ]


#: The headers of the per-operator tables: cumulative levels, then retention.
_OPERATOR_HEADERS = (
    [
        "model",
        "edits",
        "operator",
        "k",
        "records",
        "baseline acc. (%)",
        "acc. at k (%)",
        "normalized acc.",
        "flip rate (%)",
    ],
    ["model", "edits", "operator", *_RETENTION_HEADERS],
)


def write_edit_operators(content: ReportContent) -> list[Block]:
    """The section of the edit metrics per operator."""
    tables = (_operator_levels(content), _operator_retention(content))
    if not any(tables):
        return [Paragraph("No edited samples in this run.")]
    intro = Paragraph(
        "The cumulative metrics and retention of each operator (per-operator accuracy on "
        "individual edits is in the previous section). At level k a record counts under "
        "the operator of its k-th edit, and only records edited at k count (no "
        "fallbacks): baseline and level-k accuracy over those records, their ratio, and "
        "the flip rate. " + _CATEGORY_NOTE
    )
    return [
        intro,
        *(Table(h, rows) for h, rows in zip(_OPERATOR_HEADERS, tables, strict=True) if rows),
    ]
