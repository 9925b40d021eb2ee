"""The metrics of symbolic edits: normalized accuracy, flip rate, original-answer retention.

Pure functions over result rows. A *row* is one scored sample, a mapping with at least
``instance_id``, ``model``, ``template``, ``sample``, ``decision`` and
``decision_correct``, joined with its instance's ``transforms`` (as the report joins
them). A row whose transforms hold edit transforms is an *edited* row; the others are
*baseline* rows. An edited row is paired with the baseline row of its origin instance
under the same model, template and sample.

``normalized_accuracy(rows, k)``
    Accuracy after ``k`` cumulative edits, compared with the baseline's: every
    baseline record is evaluated at level ``k`` through its level-``k`` edit, or, when
    it has none, through itself (the fallback), so the record count is the same at
    every level. ``value`` is the level-``k`` accuracy divided by the baseline
    accuracy (not by level ``k - 1``); ``agreement`` is the share of records whose
    decision at level ``k`` is the baseline decision.
``flip_rate(rows, k)``
    The share of records whose correctness differs between the baseline and level
    ``k``; both directions count (``broken``: correct to incorrect, ``fixed``:
    incorrect to correct) and unchanged records, fallbacks included, stay in the
    denominator.
``retention(rows)``
    On label-changing edits: the share of rows whose decision is the origin's label,
    the answer that was right before the edit and is wrong after it. With binary
    labels it is ``1 - accuracy - unparsable`` (a decision that is neither label is
    missing).
``individual_accuracy(rows, kind)``
    Accuracy on individual edits of one class (``preserving`` or ``changing``), as
    §5.2 of the symbolic-edits paper defines it: averaged over the variants of a
    question (a base formula's record: model, template, sample), then over questions;
    the pooled accuracy over every edited row is kept beside it, and each can be
    computed per operator.

Every metric takes ``operator`` and ``category`` filters. ``category``
(``"operator"`` or ``"premise"``) keeps the edited rows whose chain is of that
category: a chain with a premise edit (``drop``, ``insert``) is a premise chain, any
other an operator chain; the other rows are left out as if never made (a cumulative
record then falls back to its baseline). ``operator`` keeps the edited rows whose last
edit is that operator, and the cumulative metrics then count only the records edited
at the level (no fallbacks): accuracy after ``k`` edits whose ``k``-th edit is that
operator.

A missing or unparsable answer counts as incorrect and retains nothing.

Examples
--------
>>> step = {"kind": "edit", "mode": "cumulative", "level": 1, "origin": "a",
...         "label_before": "SAT", "label_after": "SAT"}
>>> rows = [
...     {"instance_id": "a", "decision": "SAT", "decision_correct": True},
...     {"instance_id": "b", "decision": "SAT", "decision_correct": True},
...     {"instance_id": "a1", "transforms": [step], "decision": "UNSAT",
...      "decision_correct": False},
... ]
>>> normalized_accuracy(rows, 1).value
0.5
>>> flip_rate(rows, 1).to_json()["rate"]
0.5
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal._util.registry import check_choice
from twosat_formal.core.jsonfields import fields_json
from twosat_formal.core.jsonread import loads
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.make.checks import check_int
from twosat_formal.make.edits.classify import CHANGING, EDIT_KIND, PRESERVING
from twosat_formal.make.edits.operators import CATEGORIES, OPERATOR, PREMISE, category_of

__all__ = [
    "EditInfo",
    "FlipRate",
    "IndividualAccuracy",
    "NormalizedAccuracy",
    "Retention",
    "Row",
    "decision_of",
    "edit_categories",
    "edit_info",
    "edit_operators",
    "edited_rows",
    "flip_rate",
    "individual_accuracy",
    "level_pairs",
    "max_level",
    "normalized_accuracy",
    "question_key",
    "retention",
]

#: One scored sample joined with its instance's ``transforms``.
Row = Mapping[str, Any]


@dataclass(frozen=True)
class EditInfo:
    """What a row's edit transforms say: origin, level, mode, class, category and operator.

    Only the last chain counts: the edit steps that share the last step's origin.
    ``category`` is ``"premise"`` when a step of that chain is a premise edit,
    ``"operator"`` otherwise; ``operator`` is the last step's.
    """

    origin: str
    level: int
    mode: str
    kind: str
    origin_label: str
    label: str
    category: str = OPERATOR
    operator: str = ""

    def cumulative_at(self, level: int) -> bool:
        """Whether this is a cumulative edit at ``level`` (above 0: level 0 is no edit)."""
        return self.mode == "cumulative" and self.level == level and level > 0

    def matches(self, operator: str | None, category: str | None) -> bool:
        """Whether this edit passes the ``operator`` and ``category`` filters (``None``: any)."""
        return (operator is None or self.operator == operator) and (
            category is None or self.category == category
        )


def _transforms(row: Row) -> Sequence[Any]:
    value = row.get("transforms") or []
    if isinstance(value, str):
        try:
            value = loads(value, source="transforms")
        except RecordError:
            raise RecordError(f"row {row.get('instance_id')!r}: transforms are not JSON") from None
    if not isinstance(value, list | tuple):
        raise RecordError(f"row {row.get('instance_id')!r}: transforms must be a list")
    return value


def edit_info(row: Row) -> EditInfo | None:
    """The edit information of a row, or ``None`` for a baseline row.

    >>> edit_info({"instance_id": "x", "transforms": [{"operator": "reorder"}]}) is None
    True
    >>> step = {"kind": "edit", "mode": "individual", "level": 1, "origin": "o",
    ...         "label_before": "SAT", "label_after": "UNSAT"}
    >>> edit_info({"instance_id": "x", "transforms": [step]}).kind
    'changing'
    """
    found = _edit_chain(row)
    if found is None:
        return None
    origin, chain = found
    last = chain[-1]
    try:
        origin_label = str(chain[0]["label_before"]).upper()
        label = str(last["label_after"]).upper()
        mode = str(last["mode"])
    except KeyError as exc:
        raise RecordError(
            f"row {row.get('instance_id')!r}: an edit transform lacks {exc.args[0]!r}"
        ) from None
    if not isinstance(origin, str):
        raise RecordError(f"row {row.get('instance_id')!r}: an edit transform names no origin")
    kind = PRESERVING if label == origin_label else CHANGING
    premise = any(_step_category(row, t) == PREMISE for t in chain)
    category = PREMISE if premise else OPERATOR
    operator = str(last.get("operator"))
    return EditInfo(origin, len(chain), mode, kind, origin_label, label, category, operator)


def _edit_chain(row: Row) -> tuple[object, list[Mapping[str, Any]]] | None:
    """The origin of a row's last edit and its edit steps from that origin (``None``
    when the row has no edit step: a baseline)."""
    steps = [t for t in _transforms(row) if isinstance(t, Mapping) and t.get("kind") == EDIT_KIND]
    if not steps:
        return None
    origin = steps[-1].get("origin") or row.get("base_id")
    return origin, [t for t in steps if (t.get("origin") or row.get("base_id")) == origin]


def _step_category(row: Row, step: Mapping[str, Any]) -> str:
    """A step's recorded category, or (older records) its operator's; an unknown one edits."""
    value = step.get("category")
    if value is None:
        try:
            return category_of(str(step.get("operator")))
        except LookupError:
            return OPERATOR
    if value not in CATEGORIES:
        raise RecordError(
            f"row {row.get('instance_id')!r}: an edit's category must be one of "
            f"{', '.join(CATEGORIES)}, got {value!r}"
        )
    return str(value)


def edited_rows(
    rows: Iterable[Row],
    *,
    mode: str | None = None,
    kind: str | None = None,
    operator: str | None = None,
    category: str | None = None,
) -> Iterator[tuple[Row, EditInfo]]:
    """The edited rows of ``mode`` and ``kind`` that pass the ``operator`` and ``category``
    filters (``None``: any), each with its :class:`EditInfo`."""
    for row in rows:
        info = edit_info(row)
        if info is None or (mode is not None and info.mode != mode):
            continue
        if (kind is None or info.kind == kind) and info.matches(operator, category):
            yield row, info


def _check_filters(operator: str | None, category: str | None) -> None:
    if category is not None:
        check_choice(category, CATEGORIES, what="edit category", parameter="category")
    if operator is not None and not isinstance(operator, str):
        raise ConfigError(f"operator must be a name, got {operator!r}", parameter="operator")


def _correct(row: Row) -> bool:
    value = row.get("decision_correct")
    return value is True or (isinstance(value, int) and not isinstance(value, bool) and value == 1)


def decision_of(row: Row) -> str | None:
    """A row's decision in capitals (``None`` without one)."""
    value = row.get("decision")
    return None if value is None else str(value).upper()


def question_key(row: Row, instance_id: object) -> tuple[Hashable, ...]:
    """The question a row answers: ``instance_id``, model, template and sample."""
    return (instance_id, row.get("model"), row.get("template"), row.get("sample"))


def level_pairs(
    rows: Iterable[Row],
    level: int,
    *,
    operator: str | None = None,
    category: str | None = None,
) -> tuple[list[tuple[Row, Row, bool]], int]:
    """Each baseline row with the row evaluated for it at ``level`` (the fallback made explicit).

    Edited rows outside the ``operator`` and ``category`` filters are left out; with
    ``operator``, only baselines edited at ``level`` are paired (no fallbacks).

    Returns
    -------
    pairs, unpaired
        ``pairs`` holds ``(baseline, at_level, edited)`` for every baseline row:
        ``at_level`` is the row of its origin's level-``level`` cumulative edit, or the
        baseline row itself (``edited`` false) when there is none. ``unpaired`` counts
        level-``level`` rows whose baseline row is missing.

    Raises
    ------
    RecordError
        When two rows claim the same origin, level, model, template and sample.

    Examples
    --------
    >>> pairs, unpaired = level_pairs([{"instance_id": "a", "decision_correct": True}], 2)
    >>> [(b["instance_id"], v["instance_id"], e) for b, v, e in pairs], unpaired
    ([('a', 'a', False)], 0)
    """
    check_int(level, "level", minimum=0)
    _check_filters(operator, category)
    baselines: list[Row] = []
    at_level: dict[tuple[Hashable, ...], Row] = {}
    for row in rows:
        info = edit_info(row)
        if info is None:
            baselines.append(row)
        elif info.cumulative_at(level) and info.matches(operator, category):
            _add_at_level(at_level, row, info.origin, level)
    pairs: list[tuple[Row, Row, bool]] = []
    used = set()
    for base in baselines:
        key = question_key(base, base.get("instance_id"))
        variant = at_level.get(key)
        if variant is not None:
            used.add(key)
        elif operator is not None:
            continue
        pairs.append((base, variant if variant is not None else base, variant is not None))
    return pairs, len(at_level) - len(used)


def _add_at_level(
    at_level: dict[tuple[Hashable, ...], Row], row: Row, origin: str, level: int
) -> None:
    """File a level-``level`` row under its key; refuse a second row for the same key."""
    key = question_key(row, origin)
    if key in at_level:
        raise RecordError(
            f"two level-{level} rows for origin {origin!r} (model {key[1]!r}, "
            f"template {key[2]!r}, sample {key[3]!r}): "
            f"{at_level[key].get('instance_id')!r} and {row.get('instance_id')!r}"
        )
    at_level[key] = row


@dataclass(frozen=True)
class NormalizedAccuracy:
    """Accuracy at one cumulative level next to the baseline's, over the same records.

    >>> NormalizedAccuracy(2, 4, 3, 0.5, 0.75, 0.5).value
    0.6666666666666666
    """

    level: int
    records: int
    edited: int
    accuracy: float | None
    baseline_accuracy: float | None
    agreement: float | None
    unpaired: int = 0

    @property
    def value(self) -> float | None:
        """Level accuracy divided by baseline accuracy (``None`` if the baseline is 0)."""
        if self.accuracy is None or not self.baseline_accuracy:
            return None
        return self.accuracy / self.baseline_accuracy

    @property
    def fallback(self) -> int:
        """Records evaluated through their baseline at this level."""
        return self.records - self.edited

    def to_json(self) -> dict[str, Any]:
        """The metric as a JSON-ready dict."""
        return {**fields_json(self, then=("fallback",)), "normalized_accuracy": self.value}


def normalized_accuracy(
    rows: Iterable[Row],
    level: int,
    *,
    operator: str | None = None,
    category: str | None = None,
) -> NormalizedAccuracy:
    """Accuracy after ``level`` cumulative edits, normalized by the baseline accuracy.

    ``operator`` and ``category`` filter the edited rows (see :func:`level_pairs`).

    Examples
    --------
    >>> step = {"kind": "edit", "mode": "cumulative", "level": 1, "origin": "a",
    ...         "label_before": "UNSAT", "label_after": "UNSAT"}
    >>> rows = [{"instance_id": "a", "decision": "UNSAT", "decision_correct": True},
    ...         {"instance_id": "e", "transforms": [step], "decision": "UNSAT",
    ...          "decision_correct": True}]
    >>> result = normalized_accuracy(rows, 1)
    >>> result.value, result.edited, result.agreement
    (1.0, 1, 1.0)
    """
    pairs, unpaired = level_pairs(rows, level, operator=operator, category=category)
    n = len(pairs)
    if n == 0:
        return NormalizedAccuracy(level, 0, 0, None, None, None, unpaired)
    accuracy = sum(_correct(v) for _, v, _ in pairs) / n
    baseline = sum(_correct(b) for b, _, _ in pairs) / n
    agreement = sum(decision_of(b) == decision_of(v) for b, v, _ in pairs) / n
    edited = sum(e for _, _, e in pairs)
    return NormalizedAccuracy(level, n, edited, accuracy, baseline, agreement, unpaired)


@dataclass(frozen=True)
class FlipRate:
    """Records whose correctness changed between the baseline and one level.

    >>> FlipRate(1, pairs=4, broken=1, fixed=1, edited=3).rate
    0.5
    """

    level: int
    pairs: int
    broken: int
    fixed: int
    edited: int
    unpaired: int = 0

    @property
    def flips(self) -> int:
        """Changes of correctness in either direction."""
        return self.broken + self.fixed

    @property
    def rate(self) -> float | None:
        """``flips / pairs`` (unchanged records included), ``None`` without records."""
        return self.flips / self.pairs if self.pairs else None

    def to_json(self) -> dict[str, Any]:
        """The metric as a JSON-ready dict."""
        return fields_json(self, then=("flips", "rate"))


def flip_rate(
    rows: Iterable[Row],
    level: int,
    *,
    operator: str | None = None,
    category: str | None = None,
) -> FlipRate:
    """Flip rate between the baseline and ``level`` cumulative edits (fallbacks count).

    ``operator`` and ``category`` filter the edited rows (see :func:`level_pairs`).

    Examples
    --------
    >>> step = {"kind": "edit", "mode": "cumulative", "level": 1, "origin": "a",
    ...         "label_before": "SAT", "label_after": "SAT"}
    >>> rows = [{"instance_id": "a", "decision_correct": False},
    ...         {"instance_id": "b", "decision_correct": True},
    ...         {"instance_id": "e", "transforms": [step], "decision_correct": True}]
    >>> flip_rate(rows, 1).to_json()
    {'level': 1, 'pairs': 2, 'broken': 0, 'fixed': 1, 'edited': 1, 'unpaired': 0, 'flips': 1, \
'rate': 0.5}
    """
    pairs, unpaired = level_pairs(rows, level, operator=operator, category=category)
    broken = sum(1 for b, v, _ in pairs if _correct(b) and not _correct(v))
    fixed = sum(1 for b, v, _ in pairs if not _correct(b) and _correct(v))
    edited = sum(e for _, _, e in pairs)
    return FlipRate(level, len(pairs), broken, fixed, edited, unpaired)


@dataclass(frozen=True)
class Retention:
    """Answers on label-changing edits: how many keep the origin's (now wrong) label.

    >>> Retention(rows=4, retained=3, correct=1).rate
    0.75
    """

    rows: int
    retained: int
    correct: int

    @property
    def rate(self) -> float | None:
        """``retained / rows``, ``None`` without rows."""
        return self.retained / self.rows if self.rows else None

    @property
    def accuracy(self) -> float | None:
        """Share of rows that give the new label, ``None`` without rows."""
        return self.correct / self.rows if self.rows else None

    def to_json(self) -> dict[str, Any]:
        """The metric as a JSON-ready dict."""
        return fields_json(self, then=("rate", "accuracy"))


def retention(
    rows: Iterable[Row],
    *,
    mode: str | None = None,
    operator: str | None = None,
    category: str | None = None,
) -> Retention:
    """Original-answer retention on the label-changing edited rows (of ``mode``, if given).

    ``operator`` and ``category`` keep the rows whose last edit is that operator and
    whose chain is of that category.

    Examples
    --------
    >>> step = {"kind": "edit", "mode": "individual", "level": 1, "origin": "a",
    ...         "label_before": "SAT", "label_after": "UNSAT"}
    >>> rows = [{"instance_id": "e", "transforms": [step], "decision": "SAT",
    ...          "decision_correct": False},
    ...         {"instance_id": "f", "transforms": [step], "decision": None,
    ...          "decision_correct": False}]
    >>> retention(rows).to_json()
    {'rows': 2, 'retained': 1, 'correct': 0, 'rate': 0.5, 'accuracy': 0.0}
    """
    _check_filters(operator, category)
    total = retained = correct = 0
    edited = edited_rows(rows, mode=mode, kind=CHANGING, operator=operator, category=category)
    for row, info in edited:
        total += 1
        retained += decision_of(row) == info.origin_label
        correct += _correct(row)
    return Retention(total, retained, correct)


@dataclass(frozen=True)
class IndividualAccuracy:
    """Accuracy on individual edits of one class: per question, and pooled.

    ``per_question`` averages each question's variants first, then the questions
    (the paper's metric); ``pooled`` is the share of correct edited rows.

    >>> IndividualAccuracy("changing", None, 2, 5, 0.5, 0.6).to_json()["per_question"]
    0.5
    """

    kind: str
    operator: str | None
    questions: int
    rows: int
    per_question: float | None
    pooled: float | None

    def to_json(self) -> dict[str, Any]:
        """The metric as a JSON-ready dict."""
        return fields_json(self)


def individual_accuracy(
    rows: Iterable[Row],
    kind: str,
    *,
    operator: str | None = None,
    category: str | None = None,
) -> IndividualAccuracy:
    """Accuracy on the individual edits of ``kind`` (of one ``operator`` or ``category``).

    A question is a base formula's record (origin, model, template, sample); its
    variants are the individual edits of that class made from it.

    Examples
    --------
    >>> def edited(origin, right):
    ...     step = {"kind": "edit", "mode": "individual", "level": 1, "origin": origin,
    ...             "operator": "negate-literal", "label_before": "SAT",
    ...             "label_after": "UNSAT"}
    ...     return {"instance_id": f"{origin}-{right}", "transforms": [step],
    ...             "decision_correct": right}
    >>> rows = [edited("a", True), edited("a", False), edited("a", False),
    ...         edited("b", True), edited("b", True)]
    >>> result = individual_accuracy(rows, "changing")
    >>> round(result.per_question, 4), result.pooled, result.questions
    (0.6667, 0.6, 2)
    """
    check_choice(kind, (PRESERVING, CHANGING), what="edit class", parameter="kind")
    _check_filters(operator, category)
    questions: dict[tuple[Hashable, ...], list[bool]] = {}
    edited = edited_rows(rows, mode="individual", kind=kind, operator=operator, category=category)
    for row, info in edited:
        questions.setdefault(question_key(row, info.origin), []).append(_correct(row))
    total = sum(len(v) for v in questions.values())
    if not questions:
        return IndividualAccuracy(kind, operator, 0, 0, None, None)
    per_question = sum(sum(v) / len(v) for v in questions.values()) / len(questions)
    pooled = sum(sum(v) for v in questions.values()) / total
    return IndividualAccuracy(kind, operator, len(questions), total, per_question, pooled)


def edit_operators(
    rows: Iterable[Row], *, mode: str | None = "individual", category: str | None = None
) -> list[str]:
    """The last-step operators of the edited rows (of ``mode`` and ``category``), sorted.

    ``mode=None`` takes every mode.

    >>> step = {"kind": "edit", "mode": "cumulative", "level": 1, "origin": "a",
    ...         "operator": "insert", "label_before": "SAT", "label_after": "SAT"}
    >>> row = {"instance_id": "e", "transforms": [step]}
    >>> edit_operators([row]), edit_operators([row], mode=None, category="premise")
    ([], ['insert'])
    """
    return sorted({info.operator for _, info in edited_rows(rows, mode=mode, category=category)})


def edit_categories(rows: Iterable[Row]) -> list[str]:
    """The categories of the edited rows, operator edits first.

    >>> step = {"kind": "edit", "mode": "individual", "level": 1, "origin": "a",
    ...         "operator": "drop", "label_before": "SAT", "label_after": "SAT"}
    >>> edit_categories([{"instance_id": "e", "transforms": [step]}, {"instance_id": "a"}])
    ['premise']
    """
    found = {info.category for _, info in edited_rows(rows)}
    return [c for c in CATEGORIES if c in found]


def max_level(rows: Iterable[Row]) -> int:
    """The deepest cumulative level among the rows (0 when there is none).

    >>> max_level([{"instance_id": "a"}])
    0
    """
    return max((info.level for _, info in edited_rows(rows, mode="cumulative")), default=0)
