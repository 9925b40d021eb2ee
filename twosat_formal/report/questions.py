"""The question-types section of a report: accuracy per question type, family and model.

A run whose prompts ask more than the decision (``verbalize --ask``, the ``questions``
experiment) has rows of several ``question_type`` values. The report's other sections
read the decision rows alone; this section gives, per model, question type and family,
the answers, the strict and lenient accuracy (each formula's share of right answers
over its renderings and samples, averaged over the formulas, with the 95 % Wilson
interval over the formulas, or the interval the report asks for, as every other metric
of the report),
the mean partial credit (a ``forced`` answer's recall; a ``core`` or ``repair``
answer's size ratio, over the minimal ones; a ``maxsat`` answer's share of the
optimum), and the decision accuracy of the same
formulas (the decision rows of the instances asked that type).

Examples
--------
>>> rows = [
...     {"instance_id": "a", "model": "m", "family": "f", "question_type": "forced",
...      "decision_correct": True, "lenient_decision_correct": True, "recall": 1.0},
...     {"instance_id": "a", "model": "m", "family": "f", "question_type": "decision",
...      "decision_correct": False, "lenient_decision_correct": False},
... ]
>>> (row,) = question_rows(rows)
>>> row.question_type, row.accuracy.mean, row.partial_credit, row.decision_accuracy.mean
('forced', 1.0, 1.0, 0.0)
>>> asked_types(rows), len(decision_rows(rows))
(['forced'], 1)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from twosat_formal.report.blocks import Block, Image
from twosat_formal.report.sections.format import captioned, format_ci, interval_name, plain_cells

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.report.metrics import CI_METHOD, Estimate, aggregate, rows_by_model

__all__ = [
    "QUESTIONS_FIGURE",
    "QuestionRow",
    "asked_types",
    "decision_rows",
    "draw_questions_figure",
    "question_board",
    "question_rows",
    "write_questions",
]

#: The figure of accuracy per question type and model, relative to the report folder.
QUESTIONS_FIGURE = "figures/question-types.svg"
#: Its title.
FIGURE_TITLE = "Accuracy per question type and model"


def figure_caption(interval: str = "Wilson") -> str:
    """The caption of :data:`QUESTIONS_FIGURE`, its intervals named ``interval``."""
    return (
        "Strict and lenient accuracy of each model on each question type, over every family "
        f"(the decision among them); bars: 95% {interval} intervals across base formulas."
    )


def _type(row: Mapping[str, Any]) -> str:
    return str(row.get("question_type") or "decision")


def decision_rows(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows of decision prompts (with or without a chain): what the other sections read."""
    return [row for row in rows if _type(row) == "decision"]


def asked_types(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The question types other than the decision that the rows answer, in type order."""
    from twosat_formal.solve.questions import QUESTION_TYPES

    present = {_type(row) for row in rows}
    return [t for t in QUESTION_TYPES if t in present and t not in ("decision", "chain")]


@dataclass(frozen=True)
class QuestionRow:
    """One model's answers to one question type on one family."""

    model: str
    question_type: str
    family: str
    answers: int
    accuracy: Estimate
    lenient_accuracy: Estimate
    partial_credit: float | None
    decision_accuracy: Estimate

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON-ready dict."""
        return fields_json(self)


def _share(
    rows: Sequence[Mapping[str, Any]], column: str, method: str = CI_METHOD, seed: int = 0
) -> Estimate:
    """The share of ``rows`` whose ``column`` is true, computed per base formula first
    (:func:`~twosat_formal.report.metrics.formula_unit`: its renderings, samples and
    twin are one unit) and averaged over the formulas, with the Wilson interval over the
    formulas (``n``: formulas, ``n_obs``: answers), or the ``method`` interval of
    :func:`~twosat_formal.report.metrics.mean_ci` drawn with ``seed``
    (:func:`~twosat_formal.report.metrics.aggregate`).

    >>> rows = [{"instance_id": "a", "ok": True}] * 5 + [{"instance_id": "b", "ok": False}]
    >>> e = _share(rows, "ok")
    >>> e.mean, e.n, e.n_obs
    (0.5, 2, 6)
    """
    return aggregate(rows, lambda r: 1.0 if r.get(column) else 0.0, method=method, seed=seed)


def _question_row(
    model: str,
    kind: str,
    family: str,
    these: list[Mapping[str, Any]],
    mine: list[Mapping[str, Any]],
    *,
    method: str,
    seed: int,
) -> QuestionRow:
    """The row of ``these`` answers (one type, one family) among all of a model's."""
    ids = {r.get("instance_id") for r in these}
    decided = [r for r in mine if _type(r) == "decision" and r.get("instance_id") in ids]
    key = {"forced": "recall"}.get(kind, "size_ratio")
    credits = [float(r[key]) for r in these if r.get(key) is not None]
    return QuestionRow(
        model=model,
        question_type=kind,
        family=family,
        answers=len(these),
        accuracy=_share(these, "decision_correct", method, seed),
        lenient_accuracy=_share(these, "lenient_decision_correct", method, seed),
        partial_credit=sum(credits) / len(credits) if credits else None,
        decision_accuracy=_share(decided, "decision_correct", method, seed),
    )


def question_rows(
    rows: Iterable[Mapping[str, Any]],
    models: Sequence[str] = (),
    *,
    method: str = CI_METHOD,
    seed: int = 0,
) -> list[QuestionRow]:
    """One :class:`QuestionRow` per model, asked type and family (models in ``models``
    order first, then by appearance; types in their order; families sorted); intervals
    by ``method`` (:func:`~twosat_formal.report.metrics.mean_ci`, drawn with ``seed``)."""
    out = []
    for model, mine in rows_by_model(rows, models):
        for kind in asked_types(mine):
            asked = [r for r in mine if _type(r) == kind]
            for family in sorted({str(r.get("family")) for r in asked}):
                these = [r for r in asked if str(r.get("family")) == family]
                out.append(
                    _question_row(model, kind, family, these, mine, method=method, seed=seed)
                )
    return out


def question_board(
    rows: Iterable[Mapping[str, Any]],
    models: Sequence[str] = (),
    *,
    method: str = CI_METHOD,
    seed: int = 0,
) -> dict[str, dict[str, Estimate]]:
    """Strict and lenient accuracy per model and question type (over every family), the
    decision among them: the rows of :data:`QUESTIONS_FIGURE`.

    >>> rows = [{"model": "m", "question_type": "core", "decision_correct": True,
    ...          "lenient_decision_correct": True}]
    >>> board = question_board(rows)
    >>> list(board), board["m · core"]["strict"].mean
    (['m · core'], 1.0)
    """
    from twosat_formal.solve.questions import QUESTION_TYPES

    out: dict[str, dict[str, Estimate]] = {}
    for model, mine in rows_by_model(rows, models):
        present = {_type(r) for r in mine}
        for kind in (t for t in QUESTION_TYPES if t in present):
            these = [r for r in mine if _type(r) == kind]
            out[f"{model} · {kind}"] = {
                "strict": _share(these, "decision_correct", method, seed),
                "lenient": _share(these, "lenient_decision_correct", method, seed),
            }
    return out


def draw_questions_figure(
    rows: Iterable[Mapping[str, Any]],
    out_dir: Any,
    models: Sequence[str] = (),
    *,
    method: str = CI_METHOD,
    seed: int = 0,
) -> str:
    """Draw :data:`QUESTIONS_FIGURE` under ``out_dir`` (intervals by ``method``); return
    its relative path."""
    from pathlib import Path

    from twosat_formal.report import charts
    from twosat_formal.report.plots import title_svg

    path = Path(out_dir) / QUESTIONS_FIGURE
    path.parent.mkdir(parents=True, exist_ok=True)
    board = question_board(rows, models, method=method, seed=seed)
    charts.interval_dots(board, path, xlabel="accuracy (%)")
    estimates = [e for pair in board.values() for e in pair.values()]
    title_svg(path, FIGURE_TITLE, figure_caption(interval_name(estimates)))
    return QUESTIONS_FIGURE


def write_questions(content: ReportContent) -> list[Block]:
    interval = interval_name([r.accuracy for r in content.questions or []])
    rows = [
        plain_cells(
            r.model,
            r.question_type,
            r.family,
            str(r.answers),
            format_ci(r.accuracy),
            format_ci(r.lenient_accuracy),
            "—" if r.partial_credit is None else f"{100 * r.partial_credit:.1f}",
            format_ci(r.decision_accuracy),
        )
        for r in content.questions or []
    ]
    blocks = captioned(
        "Each formula asked more than its decision (`verbalize --ask`; see "
        'docs/verbalization.md, "Question types"): per model, question type and family, '
        "the share of right answers (strict and lenient readings; each formula's share "
        "over its renderings and samples, averaged over the base formulas, with 95% "
        f"{interval} intervals across them: n counts formulas), the mean partial credit "
        "(a `forced` answer's recall; a `core` "
        "or `repair` answer's smallest size over its size, among minimal ones; a `maxsat` "
        "answer's rules satisfied over the optimum), and the decision accuracy of the same "
        "formulas. The other sections read the decision prompts alone.",
        [
            "model",
            "question",
            "family",
            "answers",
            "accuracy (%)",
            "lenient (%)",
            "partial credit (%)",
            "decision, same formulas (%)",
        ],
        rows,
    )
    if content.questions_figure is not None:
        caption = figure_caption(interval)
        blocks.append(Image(Path(content.questions_figure), FIGURE_TITLE, caption))
    return blocks
