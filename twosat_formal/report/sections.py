"""The content of a report, computed from joined result rows.

:func:`compute_content` turns rows (export columns joined with instance metadata and,
for experiment runs, the design record of each instance) into a
:class:`ReportContent`: the Table 1-style grid, per-model summaries, truncation and
SAT-bias tables, failure kinds, robustness, significance tests and the series the
figures draw. Nothing here draws or formats; :mod:`twosat_formal.report.plots` and
:mod:`twosat_formal.report.render` do.

Design fields a row may carry (written by :mod:`twosat_formal.study.experiments`):
``experiment`` (the spec's name), ``kind`` (``grid``, ``sweep``, ``fillers``,
``order``, ``duplication``; comparisons are found by kind), ``clauses`` (the clause
count that names the setting), ``replicate`` (formula index inside its setting),
``knob`` and ``level`` (sweeps), ``arm`` and ``arm_label`` (the condition of a
comparison: ``construction``/``shuffled``, ``filler``/``core``/
``total``, ``single``/``grouped``/``interleaved``/``distinct``,
``cumulative``/``individual`` for edited instances) and ``shuffled``.

Rows of symbolically edited instances (edit transforms in their ``transforms``) get
their own metrics (:class:`EditSummary`, computed with
:mod:`twosat_formal.make.edits.metrics`): normalized accuracy and flip rate at each
cumulative level, and original-answer retention on label-changing edits. They stay out
of the Table 1 grid, its curves and the perturbation flip rate; a run without edited
rows has no edit metrics (:attr:`ReportContent.edits` is ``None``).

Rows of story prompts (template ``story:<theme>``, see
:class:`twosat_formal.evaluate.run.StoryPrompt`) and the validation counts of story records
give the LLM story verbalizer's section (:class:`StorySection`): the first-attempt
validation rate and the fallback rate beside the paper's, and success by story theme
(Figure 9). Like the paper's Table 1, the Table 1 grid and its curves hold template
verbalizations only. A run with neither has no such section
(:attr:`ReportContent.stories` is ``None``).

Figures and tests use the paper's per-sample success: the right decision on UNSAT
instances, and a valid witness on SAT instances.

Examples
--------
>>> rows = [{"instance_id": f"i{j}", "model": "ref/oracle", "template": "logic",
...          "sample": 0, "family": "backbone", "num_clauses": 20, "label": "SAT",
...          "decision": "SAT", "decision_correct": True, "witness_valid": True,
...          "failure": "correct", "truncated": False} for j in range(3)]
>>> content = compute_content(rows)
>>> content.table1[0].family, content.table1[0].clauses
('backbone', 20)
>>> content.table1[0].cells["ref/oracle"].sat.mean
1.0
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.run import STORY_TEMPLATE_PREFIX
from twosat_formal.make.edits import metrics as edit_metrics
from twosat_formal.make.edits.proof_lengths import (
    ProofLengthFlips,
    changed_proof_lengths,
    proof_length_flips,
)
from twosat_formal.report.diagnostics import DiagnosticRow
from twosat_formal.report.metrics import (
    CI_METHOD,
    Estimate,
    FlipRate,
    Row,
    aggregate,
    decision_consistency,
    failure_breakdown,
    flip_rate,
    formula_unit,
    group_rows,
    per_formula,
    verbalization_flip_rate,
)
from twosat_formal.report.pairs import PairSummary, has_twins, pair_summaries
from twosat_formal.report.questions import QuestionRow
from twosat_formal.report.stats import (
    PERMUTATION_TEST,
    PERMUTATIONS,
    LevelUnit,
    TestResult,
    adjust_within_families,
    independent_t,
    paired_t,
    permutation_levels,
)
from twosat_formal.report.strategies import StrategySummary, has_strategies, strategy_summaries
from twosat_formal.report.traces import TraceSummary, trace_summaries
from twosat_formal.verbalize.story.replies import ATTEMPT_OUTCOMES
from twosat_formal.verbalize.story.statistics import (
    PAPER_FALLBACK_RATE,
    PAPER_FIRST_ATTEMPT_RATE,
    StoryStatistics,
)
from twosat_formal.verbalize.story.themes import THEMES

__all__ = [
    "FAMILY_ORDER",
    "KNOB_FAMILY",
    "Bars",
    "Cell",
    "Curves",
    "EditSummary",
    "ModelSummary",
    "OperatorEdits",
    "ReportContent",
    "StorySection",
    "StoryThemeCell",
    "StoryVersusTemplate",
    "Table1Row",
    "combine_story_counts",
    "compute_content",
    "experiments_of",
    "knob_settings",
    "knob_tests",
    "report_tests",
    "story_theme",
]

#: The paper's order of generator families (others follow alphabetically).
FAMILY_ORDER = ("implication-cycle", "equivalence-core", "backbone", "mono-bridge", "symmetry")

#: Series name → points ``(x, estimate)`` in increasing x.
Curves = dict[str, list[tuple[float, Estimate]]]
#: Group → bar name → estimate.
Bars = dict[str, dict[str, Estimate]]

_UNIT = ("model", "formula")
_DUPLICATION_ARMS = ("single", "grouped", "interleaved", "distinct")
_ORDER_ARMS = ("construction", "shuffled")
_FILLER_ARMS = ("filler", "core", "total")
_FILLER_ROLES = {"filler": "core + fillers", "core": "same core", "total": "matched total"}


@dataclass(frozen=True)
class Cell:
    """One Table 1 cell: decision accuracy, (SAT only) witness validity and (UNSAT rows
    whose prompt asked for a contradiction chain only) the chain witness."""

    sat: Estimate
    wit: Estimate | None
    cyc: Estimate | None = None
    #: The distinct templates and sample indices the cell's answers come from (a
    #: cell with fewer than the most of its row averages fewer renderings).
    templates: int = 0
    samples: int = 0


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


@dataclass(frozen=True)
class ModelSummary:
    """A model's headline numbers over every row of the run."""

    model: str
    rows: int
    accuracy: Estimate
    accuracy_sat: Estimate
    accuracy_unsat: Estimate
    witness: Estimate
    sat_prediction: Estimate
    truncation: Estimate
    truncated: int
    failures: dict[str, int]
    flips: FlipRate
    verbal_flips: FlipRate
    consistency: Estimate
    success: Estimate
    lenient_accuracy: Estimate
    lenient_success: Estimate
    #: Rows whose strict and lenient verdicts differ (format failures the lenient
    #: reading forgives).
    forgiven: int = 0


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

    def to_json(self) -> dict[str, Any]:
        """The metrics as a JSON-ready dict.

        >>> EditSummary("m", [], [], edit_metrics.Retention(0, 0, 0)).to_json()["retention"]
        {'rows': 0, 'retained': 0, 'correct': 0, 'rate': None, 'accuracy': None}
        """
        return fields_json(self, rename=_EDIT_KEYS)


@dataclass(frozen=True)
class StoryThemeCell:
    """A model's results under one story theme (Figure 9): success and its two parts."""

    samples: int
    success: Estimate
    accuracy_unsat: Estimate
    witness: Estimate


@dataclass(frozen=True)
class StoryVersusTemplate:
    """A model's success on the story prompts beside the template prompts of the same formulas.

    ``template`` pools every template verbalization of the formulas that were also told
    as stories, ``themes`` holds each theme's stories and ``story`` all of them; each
    averages per formula first. ``drop`` is ``story - template`` in points of success
    (the paper reports about -25 points at comparable sizes, §5.5).
    """

    template: Estimate
    themes: dict[str, Estimate]
    story: Estimate

    @property
    def drop(self) -> float | None:
        """Story success minus template success (``None`` when one of them is missing).

        >>> StoryVersusTemplate(Estimate(1.0, None, None, 1), {},
        ...                     Estimate(0.75, None, None, 1)).drop
        -0.25
        """
        if self.template.mean is None or self.story.mean is None:
            return None
        return self.story.mean - self.template.mean

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return fields_json(self, then=("drop",))


@dataclass(frozen=True)
class StorySection:
    """The LLM story verbalizer: validation statistics and results by theme.

    ``statistics`` covers every story record found (``None`` when none was found,
    only results), ``by_theme`` the same per theme; ``cells`` maps model → theme →
    :class:`StoryThemeCell` of the story rows; ``curves`` maps family → theme →
    success against |C| (pooled over models, Figure 9); ``versus`` maps model →
    :class:`StoryVersusTemplate` where the same formulas also have template answers.
    """

    statistics: StoryStatistics | None
    by_theme: dict[str, StoryStatistics]
    themes: list[str]
    results: int
    cells: dict[str, dict[str, StoryThemeCell]]
    curves: dict[str, Curves]
    versus: dict[str, StoryVersusTemplate] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view (``report.json``).

        >>> section = StorySection(None, {}, [], 0, {}, {})
        >>> section.to_json()["statistics"], section.to_json()["paper_fallback_rate"]
        (None, 0.033)
        """
        stats = None if self.statistics is None else self.statistics.to_json()
        return {
            "statistics": stats,
            "paper_first_attempt_rate": PAPER_FIRST_ATTEMPT_RATE,
            "paper_fallback_rate": PAPER_FALLBACK_RATE,
            "by_theme": {theme: st.to_json() for theme, st in self.by_theme.items()},
            "themes": list(self.themes),
            "results": self.results,
            "accuracy_by_theme": {
                model: {theme: fields_json(cell) for theme, cell in by_theme.items()}
                for model, by_theme in self.cells.items()
            },
            "story_vs_template": {model: v.to_json() for model, v in self.versus.items()},
        }


@dataclass
class ReportContent:
    """Everything a report shows, computed once from the rows."""

    title: str
    rows: int
    models: list[str]
    families: list[str]
    templates: list[str]
    summaries: list[ModelSummary]
    table1: list[Table1Row]
    sat_bias_by_family: dict[str, dict[str, Estimate]]
    failure_kinds: list[str]
    template_table: dict[str, dict[str, Estimate]]
    knob_tests: list[TestResult]
    order_tests: list[TestResult]
    filler_tests: list[TestResult]
    duplication_tests: list[TestResult]
    size_curves: dict[str, Curves]
    template_curves: dict[str, Curves]
    knob_curves: dict[str, dict[str, Curves]]
    order_bars: Bars
    filler_bars: Bars
    duplication_bars: Bars
    manifest: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    edits: list[EditSummary] | None = None
    edit_curves: Curves = field(default_factory=dict)
    #: ``(edited, changed)``: the edited records with a proof length, and those whose
    #: proof length differs from their origin's (:func:`changed_proof_lengths`).
    edit_proof_lengths: tuple[int, int] = (0, 0)
    stories: StorySection | None = None
    pairs: list[PairSummary] | None = None
    traces: list[TraceSummary] | None = None
    #: Per model and reasoning strategy (``None`` when every row is ``direct``).
    strategies: list[StrategySummary] | None = None
    diagnostics: list[DiagnosticRow] | None = None
    #: Accuracy per question type, family and model (:mod:`twosat_formal.report.questions`).
    questions: list[QuestionRow] | None = None
    #: The figure of accuracy per question type and model (relative path), when drawn.
    questions_figure: str | None = None
    #: Construction vs shuffled bars per family, then model (``order_bars`` pools models).
    order_model_bars: dict[str, Bars] = field(default_factory=dict)
    #: Curves against |C| per metric of :data:`SIZE_METRICS`, then family, then model.
    size_metric_curves: dict[str, dict[str, Curves]] = field(default_factory=dict)
    #: Captions derived from the rows: the knob settings of the plain grid and of the
    #: knobs a sweep does not vary, and the experiments behind the plain grid.
    grid_knobs: str = ""
    sweep_knobs: str = ""
    grid_experiments: list[str] = field(default_factory=list)
    #: The token budgets each model's stored requests were asked with (Table 4).
    budgets: dict[str, list[int]] = field(default_factory=dict)


def _family_key(name: str) -> tuple[int, str]:
    return (FAMILY_ORDER.index(name), "") if name in FAMILY_ORDER else (len(FAMILY_ORDER), name)


def _first_seen(values: Iterable[Any]) -> list[Any]:
    seen: dict[Any, None] = {}
    for value in values:
        if value is not None:
            seen.setdefault(value, None)
    return list(seen)


def _clauses(row: Row) -> int:
    value = row.get("clauses")
    if value is None:
        value = row.get("num_clauses")
    if value is None:
        raise ConfigError(
            f"row of instance {row.get('instance_id')!r} has no clause count",
            parameter="num_clauses",
        )
    return int(value)


def _is_edited(row: Row) -> bool:
    """Whether the row's instance was made by symbolic edits."""
    return bool(row.get("transforms")) and edit_metrics.edit_info(row) is not None


def _is_plain(row: Row) -> bool:
    """A row of the plain grid: no swept knob, the unperturbed arm (if any), no edit, a
    template verbalization (story rows have their own section)."""
    return (
        row.get("knob") is None
        and row.get("arm") in (None, "base", "construction")
        and not _is_edited(row)
        and story_theme(row) is None
    )


def _is_swept(row: Row) -> bool:
    """A row of a knob sweep: a knob and level, and no comparison arm (the fillers
    protocol also varies one knob at a time, but compares its arms, not its levels)."""
    return (
        row.get("knob") is not None
        and row.get("level") is not None
        and row.get("arm") in (None, "base")
    )


def _label_of(rows: Sequence[Row]) -> str:
    labels = {str(row.get("label")) for row in rows}
    return labels.pop() if len(labels) == 1 else "mixed"


def _cell(mine: Sequence[Row], *, method: str, seed: int) -> Cell:
    """One model's Table 1 cell from its answers in the cell (at least one)."""
    sat = aggregate(mine, "accuracy", method=method, seed=seed)
    wit = aggregate(mine, "witness", method=method, seed=seed)
    cyc = aggregate(mine, "chain_witness", method=method, seed=seed)
    return Cell(
        sat,
        wit if wit.n else None,
        cyc if cyc.n else None,
        len({r.get("template") for r in mine}),
        len({r.get("sample") for r in mine}),
    )


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
            cells[model] = _cell(mine, method=method, seed=seed)
    return Table1Row(family, clauses, _label_of(members), cells)


def _table1(
    rows: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> list[Table1Row]:
    groups = group_rows([r for r in rows if _is_plain(r)], ["family"])
    out: list[Table1Row] = []
    for (family,) in sorted(groups, key=lambda k: _family_key(str(k[0]))):
        by_size: dict[int, list[Row]] = {}
        for row in groups[(family,)]:
            by_size.setdefault(_clauses(row), []).append(row)
        out.extend(
            _table1_row(str(family), clauses, by_size[clauses], models, method=method, seed=seed)
            for clauses in sorted(by_size)
        )
    return out


def _summary(model: str, rows: Sequence[Row], *, method: str, seed: int) -> ModelSummary:
    def est(metric: str) -> Estimate:
        return aggregate(rows, metric, method=method, seed=seed)

    return ModelSummary(
        model=model,
        rows=len(rows),
        accuracy=est("accuracy"),
        accuracy_sat=est("accuracy_sat"),
        accuracy_unsat=est("accuracy_unsat"),
        witness=est("witness"),
        sat_prediction=est("sat_prediction"),
        truncation=est("truncation"),
        truncated=sum(1 for r in rows if r.get("truncated") or r.get("finish_reason") == "length"),
        failures=failure_breakdown(rows),
        flips=flip_rate([r for r in rows if not _is_edited(r)]),
        verbal_flips=verbalization_flip_rate(rows, reference=_reference_template(rows)),
        consistency=decision_consistency(rows, method=method, seed=seed),
        success=est("success"),
        lenient_accuracy=est("lenient_accuracy"),
        lenient_success=est("lenient_success"),
        forgiven=sum(
            1
            for r in rows
            if r.get("lenient_failure") is not None and r.get("lenient_failure") != r.get("failure")
        ),
    )


def _reference_template(rows: Sequence[Row]) -> str:
    templates = _first_seen(r.get("template") for r in rows)
    return "logic" if "logic" in templates or not templates else str(templates[0])


def _curve(
    rows: Sequence[Row],
    x_of: str,
    *,
    method: str,
    seed: int,
    key: Sequence[str] = _UNIT,
    metric: str = "success",
) -> list[tuple[float, Estimate]]:
    points: dict[float, list[Row]] = {}
    for row in rows:
        x = _clauses(row) if x_of == "clauses" else row.get(x_of)
        if x is None:
            continue
        points.setdefault(float(x), []).append(row)
    return [
        (x, aggregate(points[x], metric, key=key, method=method, seed=seed)) for x in sorted(points)
    ]


def _in_order(curves: Curves, order: Sequence[str]) -> Curves:
    """``curves`` with its series in ``order`` (series it does not name last)."""
    rank = {name: i for i, name in enumerate(order)}
    return dict(sorted(curves.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def _size_curves(
    rows: Sequence[Row],
    models: Sequence[str],
    *,
    method: str,
    seed: int,
    metric: str = "success",
) -> dict[str, Curves]:
    plain = [r for r in rows if _is_plain(r)]
    out: dict[str, Curves] = {}
    for (family,), members in sorted(
        group_rows(plain, ["family"]).items(), key=lambda kv: _family_key(str(kv[0][0]))
    ):
        curves = {
            str(model): _curve(mine, "clauses", method=method, seed=seed, metric=metric)
            for (model,), mine in group_rows(members, ["model"]).items()
        }
        curves = {  # a metric that applies to no row of a family draws nothing there
            name: points
            for name, points in curves.items()
            if any(estimate.mean is not None for _, estimate in points)
        }
        if curves:
            out[str(family)] = _in_order(curves, models)
    return out


#: The metrics drawn in separate panels against |C|: decision accuracy (every
#: instance) and witness validity (SAT instances).
SIZE_METRICS = ("accuracy", "witness")


def _number(value: float) -> str:
    return f"{value:.3g}"


def _knob_values(row: Row, *, exclude_swept: bool) -> list[tuple[str, float]]:
    """The numeric difficulty-knob values of one row's ``params`` (see
    :func:`knob_settings`); none for a row of no known family."""
    from twosat_formal.make.generators import FAMILIES

    family = row.get("family")
    if not isinstance(family, str) or family not in FAMILIES:
        return []
    params = row.get("params") or {}
    out: list[tuple[str, float]] = []
    for spec in FAMILIES.get(family).knobs():
        if spec.name == "filler_share" or (exclude_swept and spec.name == row.get("knob")):
            continue
        value = params.get(spec.name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out.append((spec.name, float(value)))
    return out


def knob_settings(rows: Iterable[Row], *, exclude_swept: bool = False) -> str:
    """The difficulty-knob settings of ``rows``, read from their instances' ``params``.

    Knobs are the family's knobs (:meth:`~twosat_formal.make.generators.Family.knobs`)
    but ``filler_share``; with ``exclude_swept`` a row's own swept ``knob`` is left
    out (the setting of the *other* knobs of a sweep).

    >>> rows = [{"family": "implication-cycle", "params": {"split": 0.8, "core_ratio": 0.8}}]
    >>> knob_settings(rows)
    'every difficulty knob at 0.8'
    >>> knob_settings(rows + [{"family": "implication-cycle",
    ...                        "params": {"split": 0.2, "core_ratio": 0.8}}])
    'difficulty knobs: core_ratio = 0.8, split 0.2–0.8'
    >>> knob_settings([{"family": "backbone", "params": {}}])
    'knob settings not recorded'
    """
    values: dict[str, set[float]] = {}
    for row in rows:
        for name, value in _knob_values(row, exclude_swept=exclude_swept):
            values.setdefault(name, set()).add(value)
    if not values:
        return "knob settings not recorded"
    every = set().union(*values.values())
    if len(every) == 1:
        return f"every difficulty knob at {_number(every.pop())}"
    parts = [
        f"{name} = {_number(next(iter(seen)))}"
        if len(seen) == 1
        else f"{name} {_number(min(seen))}–{_number(max(seen))}"
        for name, seen in sorted(values.items())
    ]
    return "difficulty knobs: " + ", ".join(parts)


def experiments_of(rows: Iterable[Row]) -> list[str]:
    """The experiments (design field ``experiment``) the rows come from, in order."""
    return [str(e) for e in _first_seen(r.get("experiment") for r in rows)]


def _template_curves(rows: Sequence[Row], *, method: str, seed: int) -> dict[str, Curves]:
    plain = [r for r in rows if _is_plain(r)]
    out: dict[str, Curves] = {}
    for (family,), members in sorted(
        group_rows(plain, ["family"]).items(), key=lambda kv: _family_key(str(kv[0][0]))
    ):
        out[str(family)] = {
            str(template): _curve(mine, "clauses", method=method, seed=seed)
            for (template,), mine in group_rows(members, ["template"]).items()
        }
    return out


def _knob_curves(
    rows: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> dict[str, dict[str, Curves]]:
    swept = [r for r in rows if _is_swept(r)]
    out: dict[str, dict[str, Curves]] = {}
    groups = group_rows(swept, ["family", "knob"])
    for family, knob in sorted(groups, key=lambda k: (_family_key(str(k[0])), str(k[1]))):
        members = groups[(family, knob)]
        for clauses in sorted({_clauses(r) for r in members}):
            at_size = [r for r in members if _clauses(r) == clauses]
            panel = out.setdefault(f"{family} |C|={clauses}", {})
            curves = {
                str(model): _curve(mine, "level", method=method, seed=seed)
                for (model,), mine in group_rows(at_size, ["model"]).items()
            }
            panel[str(knob)] = _in_order(curves, models)
    return out


def _unit_values(rows: Sequence[Row], fields: Sequence[str]) -> dict[Hashable, float]:
    """Per-formula success, keyed by the values of ``fields`` (a formula's identity)."""
    return per_formula(rows, "success", key=[*fields, "instance_id"])


def _drop_instance(values: dict[Hashable, float]) -> dict[tuple[Any, ...], float]:
    out: dict[tuple[Any, ...], float] = {}
    for key, value in values.items():
        assert isinstance(key, tuple)
        out[key[:-1]] = value
    return out


#: The Benjamini–Hochberg family of the knob tests: every test of Table 6 together
#: (every family, knob and size, and the ``overall`` tests), as the paper's table reads.
KNOB_FAMILY = "knob levels (all of Table 6)"


def _formula_units(rows: Sequence[Row]) -> list[LevelUnit]:
    """The formulas of a sweep as permutation units: ``(|C|, level, {model: success})``,
    each formula's success averaged over its templates and samples per model."""
    level_of: dict[Hashable, tuple[int, float]] = {}
    for row in rows:
        level_of.setdefault(formula_unit(row), (_clauses(row), float(row["level"])))
    values: dict[Hashable, dict[Hashable, float]] = {}
    for key, value in per_formula(rows, "success", key=["model", "formula"]).items():
        assert isinstance(key, tuple)
        model, formula = key
        values.setdefault(formula, {})[model] = value
    return [(level_of[f][0], level_of[f][1], v) for f, v in values.items()]


def knob_tests(
    rows: Sequence[Row], *, seed: int = 0, permutations: int = PERMUTATIONS
) -> list[TestResult]:
    """The knob tests of Table 6: does success differ between the levels of a knob?

    Each level draws its own formulas, so the formula is the unit: its success is
    averaged over its templates and samples under each model, and a permutation test
    (:func:`~twosat_formal.report.stats.permutation_levels`) exchanges knob levels
    between the formulas of one size (a formula keeps its answers under every model).
    One test per family × knob × |C|, and an ``overall`` test across sizes (levels
    exchanged within each size) when there are several; Benjamini–Hochberg over all of
    them together (:data:`KNOB_FAMILY`).

    >>> rows = [{"instance_id": f"{lvl}-{i}", "model": "m", "template": "logic",
    ...          "family": "backbone", "clauses": 10, "knob": "k", "level": lvl,
    ...          "label": "UNSAT", "decision_correct": lvl > 0.5}
    ...         for lvl in (0.0, 0.5, 1.0) for i in range(3)]
    >>> (t,) = knob_tests(rows)
    >>> t.n, round(t.p_value, 4), t.family == KNOB_FAMILY
    (9, 0.0357, True)
    """
    groups = group_rows([r for r in rows if _is_swept(r)], ["family", "knob"])
    results = [
        _knob_test(f"{family} · {knob} · |C|={scope}", scoped, seed, permutations)
        for family, knob in sorted(groups, key=lambda k: (_family_key(str(k[0])), str(k[1])))
        for scope, scoped in _knob_scopes(groups[(family, knob)])
    ]
    return adjust_within_families(results)


def _knob_scopes(members: Sequence[Row]) -> list[tuple[str, list[Row]]]:
    """The rows of each size of one family and knob, then all of them (``overall``)
    when there are several sizes."""
    sizes = sorted({_clauses(r) for r in members})
    scopes = [(str(c), [r for r in members if _clauses(r) == c]) for c in sizes]
    if len(sizes) > 1:
        scopes.append(("overall", list(members)))
    return scopes


def _knob_test(label: str, scoped: Sequence[Row], seed: int, permutations: int) -> TestResult:
    """The permutation test of one scope's knob levels (a note where it cannot run)."""
    units = _formula_units(scoped)
    try:
        return permutation_levels(
            units, permutations=permutations, seed=seed, label=label, family=KNOB_FAMILY
        )
    except ConfigError as exc:
        return _untestable(PERMUTATION_TEST, len(units), label, KNOB_FAMILY, exc)


#: The fields that name one formula across the arms of a paired design.
_UNIT_FIELDS = ("model", "clauses", "knob", "level", "replicate")


def _over_models(values: Mapping[tuple[Any, ...], float]) -> dict[tuple[Any, ...], float]:
    """``{(model, *formula): value}`` averaged over models: ``{formula: value}``."""
    sums: dict[tuple[Any, ...], list[float]] = {}
    for key, value in values.items():
        sums.setdefault(key[1:], []).append(value)
    return {k: sum(v) / len(v) for k, v in sums.items()}


def _formula_unit_note(result: TestResult, models: int) -> TestResult:
    """The result with its unit (the formula) and the models averaged in ``extra``."""
    return replace(result, extra=(*result.extra, ("unit", "formula"), ("models", models)))


def _paired(
    rows: Sequence[Row],
    arm_a: str,
    arm_b: str,
    *,
    shuffled_a: bool | None,
    shuffled_b: bool | None,
    label: str,
    family: str,
) -> list[TestResult]:
    """The paired t-test of two arms over their shared formulas (none when they share
    none). The unit is the formula: each model's success on it is averaged over its
    templates and samples, then over the models that answered it in both arms (models
    answering the same formula are not independent replicates)."""

    def side(arm: str, shuffled: bool | None) -> dict[tuple[Any, ...], float]:
        chosen = [
            r
            for r in rows
            if r.get("arm") == arm and (shuffled is None or bool(r.get("shuffled")) == shuffled)
        ]
        return _drop_instance(_unit_values(chosen, _UNIT_FIELDS))

    a, b = side(arm_a, shuffled_a), side(arm_b, shuffled_b)
    shared = {k: k for k in a if k in b}
    if not shared:
        return []
    ua = _over_models({k: a[k] for k in shared})
    ub = _over_models({k: b[k] for k in shared})
    keys = list(ua)
    models = len({k[0] for k in shared})
    try:
        result = paired_t([ua[k] for k in keys], [ub[k] for k in keys], label=label, family=family)
    except ConfigError as exc:
        result = _untestable("paired t-test", len(keys), label, family, exc)
    return [_formula_unit_note(result, models)]


def _independent(
    rows: Sequence[Row], arm_a: str, arm_b: str, *, label: str, family: str
) -> list[TestResult]:
    """Student's t-test of two unshuffled arms (none when one is empty), the formula as
    unit (its success averaged over templates, samples and models)."""

    def side(arm: str) -> dict[tuple[Any, ...], float]:
        chosen = [r for r in rows if r.get("arm") == arm and not r.get("shuffled")]
        return _drop_instance(_unit_values(chosen, _UNIT_FIELDS))

    per_a, per_b = side(arm_a), side(arm_b)
    a, b = list(_over_models(per_a).values()), list(_over_models(per_b).values())
    if not a or not b:
        return []
    models = len({k[0] for k in [*per_a, *per_b]})
    try:
        result = independent_t(a, b, label=label, family=family)
    except ConfigError as exc:
        result = _untestable("independent t-test (Student)", len(a) + len(b), label, family, exc)
    return [_formula_unit_note(result, models)]


def _arm_success(rows: Sequence[Row], arm: str, *, method: str, seed: int) -> Estimate:
    """The success rate of one arm's rows, formulas as units."""
    return aggregate(
        [r for r in rows if r.get("arm") == arm], "success", key=_UNIT, method=method, seed=seed
    )


def _untestable(test: str, n: int, label: str, family: str, exc: ConfigError) -> TestResult:
    """A row for a test the data cannot carry: no statistic, the reason as its note."""
    return TestResult(test, n, float("nan"), float("nan"), None, label, family, note=str(exc))


def _by_family(rows: Sequence[Row], kind: str) -> list[tuple[str, list[Row]]]:
    """Rows of experiments of ``kind`` (design field ``kind``, else ``experiment``)."""
    chosen = [r for r in rows if (r.get("kind") or r.get("experiment")) == kind]
    groups = group_rows(chosen, ["family"])
    return [(str(k[0]), groups[k]) for k in sorted(groups, key=lambda k: _family_key(str(k[0])))]


def _order_by_model(
    rows: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> dict[str, Bars]:
    """Construction vs shuffled per family, then per model (the order figure's panels)."""
    out: dict[str, Bars] = {}
    for family, members in _by_family(rows, "order"):
        by_model = group_rows(members, ["model"])
        bars: Bars = {}
        for model in [m for m in models if (m,) in by_model]:
            bars[str(model)] = {
                arm: _arm_success(by_model[(model,)], arm, method=method, seed=seed)
                for arm in _ORDER_ARMS
            }
        out[family] = bars
    return out


def _arm_names(rows: Sequence[Row], arms: Sequence[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for row in rows:
        arm = row.get("arm")
        if arm in arms:
            names.setdefault(str(arm), str(row.get("arm_label") or arm))
    return {arm: names[arm] for arm in arms if arm in names}


def _duplication_tests(
    family: str, members: Sequence[Row], names: Mapping[str, str]
) -> list[TestResult]:
    """The duplication tests of one family: single against each copy layout and each copy
    layout against distinct clauses (independent), each arm against itself shuffled
    (paired)."""
    tests: list[TestResult] = []
    pairs = [("single", other) for other in ("grouped", "interleaved", "distinct")]
    pairs += [(copy, "distinct") for copy in ("grouped", "interleaved")]
    for a, b in pairs:
        if a in names and b in names:
            tests += _independent(
                members,
                a,
                b,
                label=f"{family}: {names[a]} vs {names[b]}",
                family="duplication",
            )
    for arm, label in names.items():
        tests += _paired(
            members,
            arm,
            arm,
            shuffled_a=False,
            shuffled_b=True,
            label=f"{family}: {label} vs {label} shuffled",
            family="duplication",
        )
    return tests


def _duplication_bars(
    family: str, members: Sequence[Row], names: Mapping[str, str], *, method: str, seed: int
) -> tuple[str, dict[str, Estimate]]:
    """The success rate of each arm of one family, plain and shuffled (those with rows)."""
    group: dict[str, Estimate] = {}
    for arm, label in names.items():
        for shuffled in (False, True):
            chosen = [
                r for r in members if r.get("arm") == arm and bool(r.get("shuffled")) == shuffled
            ]
            if chosen:
                name = f"{label} shuffled" if shuffled else label
                group[name] = aggregate(chosen, "success", key=_UNIT, method=method, seed=seed)
    return family, group


def _order_tests(family: str, members: Sequence[Row], names: Mapping[str, str]) -> list[TestResult]:
    """Construction order against shuffled clauses on one family (paired)."""
    return _paired(
        members,
        "construction",
        "shuffled",
        shuffled_a=None,
        shuffled_b=None,
        label=f"{family}: construction vs shuffled",
        family="order",
    )


def _order_bars(
    family: str, members: Sequence[Row], names: Mapping[str, str], *, method: str, seed: int
) -> tuple[str, dict[str, Estimate]]:
    """The success rate of both orders of one family."""
    return family, {
        arm: _arm_success(members, arm, method=method, seed=seed) for arm in _ORDER_ARMS
    }


def _filler_tests(
    family: str, members: Sequence[Row], names: Mapping[str, str]
) -> list[TestResult]:
    """Core and fillers against the same core and against the matched total (paired)."""
    tests: list[TestResult] = []
    for other in ("core", "total"):
        if "filler" in names and other in names:
            tests += _paired(
                members,
                "filler",
                other,
                shuffled_a=None,
                shuffled_b=None,
                label=f"{family}: {names['filler']} vs {names[other]}",
                family="fillers",
            )
    return tests


def _filler_bars(
    family: str, members: Sequence[Row], names: Mapping[str, str], *, method: str, seed: int
) -> tuple[str, dict[str, Estimate]]:
    """The success rate of each filler arm of one family, grouped under its arms' names."""
    return f"{family}\n" + " / ".join(names.values()), {
        _FILLER_ROLES[arm]: _arm_success(members, arm, method=method, seed=seed) for arm in names
    }


#: The experiments that compare arms, by kind: their arms, the tests of one family and
#: the bars of one family (its group's name and each arm's success).
_ARM_EXPERIMENTS: dict[
    str,
    tuple[
        tuple[str, ...],
        Callable[..., list[TestResult]],
        Callable[..., tuple[str, dict[str, Estimate]]],
    ],
] = {
    "order": (_ORDER_ARMS, _order_tests, _order_bars),
    "fillers": (_FILLER_ARMS, _filler_tests, _filler_bars),
    "duplication": (_DUPLICATION_ARMS, _duplication_tests, _duplication_bars),
}


def _arm_comparison(
    rows: Sequence[Row], kind: str, *, method: str, seed: int, bars_too: bool = True
) -> tuple[list[TestResult], Bars]:
    """The tests (adjusted within the experiment) and bars of an experiment of
    :data:`_ARM_EXPERIMENTS`, family by family."""
    arms, tests_of, bars_of = _ARM_EXPERIMENTS[kind]
    tests: list[TestResult] = []
    bars: Bars = {}
    for family, members in _by_family(rows, kind):
        names = _arm_names(members, arms)
        tests += tests_of(family, members, names)
        if bars_too:
            group, bar = bars_of(family, members, names, method=method, seed=seed)
            bars[group] = bar
    return adjust_within_families(tests), bars


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
) -> EditSummary:
    """The edit metrics of ``model``'s rows ``mine`` of one category, levels 1..``top``
    (``normalized``: its normalized accuracy at levels 0..``top``)."""
    flips = [edit_metrics.flip_rate(mine, k, category=category) for k in range(1, top + 1)]
    names = edit_metrics.edit_operators(mine, mode="individual", category=category)
    individual = [
        edit_metrics.individual_accuracy(mine, kind, operator=operator, category=category)
        for operator in (None, *names)
        for kind in ("preserving", "changing")
    ]
    every = edit_metrics.edit_operators(mine, mode=None, category=category)
    return EditSummary(
        model,
        normalized[1:],
        flips,
        edit_metrics.retention(mine, category=category),
        [i for i in individual if i.rows],
        category,
        [_operator_edits(mine, name, category, top) for name in every],
        proof_length_flips(mine, category=category),
    )


def _edits(rows: Sequence[Row], models: Sequence[str]) -> tuple[list[EditSummary] | None, Curves]:
    """Edit metrics per model and category (levels 1..K, K the deepest level), and the curves.

    Operator edits and premise edits (chains with ``drop`` or ``insert``) are summarized
    apart, operator edits first. The curves hold each model's normalized accuracy at
    ``k = 0..K`` (``n``: the records of the level), premise chains as a curve of their
    own. ``(None, {})`` when no row is edited.
    """
    rows = [r for r in rows if not r.get("twin_of")]  # twins have their own section
    if not any(_is_edited(r) for r in rows):
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
            summaries.append(_edit_summary(model, mine, category, normalized, top))
            name = model if category == categories[0] else f"{model} ({category} edits)"
            curves[name] = [
                (float(n.level), Estimate(n.value, None, None, n.records, n.records))
                for n in normalized
            ]
    return summaries, curves


def story_theme(row: Row) -> str | None:
    """The story theme of a row of a story prompt, ``None`` for any other row.

    >>> story_theme({"template": "story:spy"}), story_theme({"template": "logic"})
    ('spy', None)
    """
    template = row.get("template")
    if isinstance(template, str) and template.startswith(STORY_TEMPLATE_PREFIX):
        return template[len(STORY_TEMPLATE_PREFIX) :]
    return None


_COUNT_FIELDS = tuple(f for f in StoryStatistics.__dataclass_fields__ if f != "outcomes")


def combine_story_counts(counts: Iterable[Mapping[str, Any]]) -> StoryStatistics:
    """The statistics of several stories from their counts (``story_counts`` entries).

    Counts of distinct stories add up: the result equals
    :func:`~twosat_formal.verbalize.story.story_statistics` of all their records.

    >>> a = {"stories": 1, "clauses": 2, "llm_clauses": 2, "first_attempt": 1,
    ...      "validated": 2, "fallbacks": 0, "direct": 0, "attempts": 3,
    ...      "outcomes": {"valid": 2, "wrong-polarity": 1}}
    >>> b = dict(a, first_attempt=2, attempts=2, outcomes={"valid": 2})
    >>> stats = combine_story_counts([a, b])
    >>> stats.first_attempt_rate, stats.fallback_rate, stats.outcomes["valid"]
    (0.75, 0.0, 4)
    """
    totals = dict.fromkeys(_COUNT_FIELDS, 0)
    outcomes: Counter[str] = Counter()
    for entry in counts:
        for name in _COUNT_FIELDS:
            value = entry.get(name, 0)
            totals[name] += int(value) if isinstance(value, int | float) else 0
        stored = entry.get("outcomes")
        if isinstance(stored, Mapping):
            outcomes.update({str(k): int(v) for k, v in stored.items() if isinstance(v, int)})
    every = dict.fromkeys(ATTEMPT_OUTCOMES, 0)
    every.update(outcomes)
    return StoryStatistics(outcomes=every, **totals)


def _theme_key(name: str) -> tuple[int, str]:
    order = THEMES.names()
    return (order.index(name), "") if name in order else (len(order), name)


def _story_cells(
    story_rows: Sequence[Row],
    models: Sequence[str],
    themes: Sequence[str],
    *,
    method: str,
    seed: int,
) -> dict[str, dict[str, StoryThemeCell]]:
    """Model → theme → its story results' success, UNSAT accuracy and witness rate (the
    themes and models without results left out)."""
    cells: dict[str, dict[str, StoryThemeCell]] = {}
    for model in models:
        mine = [r for r in story_rows if r.get("model") == model]
        by_theme: dict[str, StoryThemeCell] = {}
        for theme in themes:
            chosen = [r for r in mine if story_theme(r) == theme]
            if not chosen:
                continue

            def est(metric: str, chosen: list[Row] = chosen) -> Estimate:
                return aggregate(chosen, metric, method=method, seed=seed)

            by_theme[theme] = StoryThemeCell(
                len(chosen), est("success"), est("accuracy_unsat"), est("witness")
            )
        if by_theme:
            cells[model] = by_theme
    return cells


def _story_curves(
    story_rows: Sequence[Row], themes: Sequence[str], *, method: str, seed: int
) -> dict[str, Curves]:
    """Family → one success curve over the size per story theme (``story:THEME``)."""
    curves: dict[str, Curves] = {}
    groups = group_rows([r for r in story_rows if r.get("family")], ["family"])
    for (family,) in sorted(groups, key=lambda k: _family_key(str(k[0]))):
        members = groups[(family,)]
        curves[str(family)] = {
            f"{STORY_TEMPLATE_PREFIX}{theme}": _curve(
                [r for r in members if story_theme(r) == theme],
                "clauses",
                method=method,
                seed=seed,
            )
            for theme in themes
            if any(story_theme(r) == theme for r in members)
        }
    return curves


def _stories(
    rows: Sequence[Row],
    counts: Mapping[str, Mapping[str, Any]],
    models: Sequence[str],
    *,
    method: str,
    seed: int,
) -> StorySection | None:
    story_rows = [r for r in rows if story_theme(r) is not None]
    if not story_rows and not counts:
        return None
    by_theme_counts: dict[str, list[Mapping[str, Any]]] = {}
    for entry in counts.values():
        by_theme_counts.setdefault(str(entry.get("theme")), []).append(entry)
    result_themes = {str(story_theme(r)) for r in story_rows}
    themes = sorted(result_themes | set(by_theme_counts), key=_theme_key)
    return StorySection(
        versus=_story_versus_template(rows, story_rows, models, themes, method=method, seed=seed),
        statistics=combine_story_counts(counts.values()) if counts else None,
        by_theme={
            t: combine_story_counts(by_theme_counts[t]) for t in themes if t in by_theme_counts
        },
        themes=themes,
        results=len(story_rows),
        cells=_story_cells(story_rows, models, themes, method=method, seed=seed),
        curves=_story_curves(story_rows, themes, method=method, seed=seed),
    )


def _told_as_templates(rows: Sequence[Row], story_rows: Sequence[Row]) -> list[Row]:
    """The rows of template prompts of the formulas that ``story_rows`` tell as stories."""
    told = {r.get("instance_id") for r in story_rows}
    return [
        r
        for r in rows
        if r.get("instance_id") in told and story_theme(r) is None and r.get("template")
    ]


def _story_versus_template(
    rows: Sequence[Row],
    story_rows: Sequence[Row],
    models: Sequence[str],
    themes: Sequence[str],
    *,
    method: str,
    seed: int,
) -> dict[str, StoryVersusTemplate]:
    """Per model: stories beside the template prompts of the formulas told as stories."""
    templated = _told_as_templates(rows, story_rows)
    out: dict[str, StoryVersusTemplate] = {}
    for model in models:
        plain = [r for r in templated if r.get("model") == model]
        mine = [r for r in story_rows if r.get("model") == model]
        if plain and mine:
            out[model] = _story_versus(plain, mine, themes, method=method, seed=seed)
    return out


def _story_versus(
    plain: Sequence[Row], mine: Sequence[Row], themes: Sequence[str], *, method: str, seed: int
) -> StoryVersusTemplate:
    """One model's success on template prompts (``plain``) beside its stories (``mine``),
    in all and per theme (the themes it has stories of)."""

    def est(chosen: Sequence[Row]) -> Estimate:
        return aggregate(chosen, "success", method=method, seed=seed)

    return StoryVersusTemplate(
        template=est(plain),
        themes={
            theme: est([r for r in mine if story_theme(r) == theme])
            for theme in themes
            if any(story_theme(r) == theme for r in mine)
        },
        story=est(mine),
    )


def report_tests(
    rows: Sequence[Row], *, seed: int = 0, permutations: int = PERMUTATIONS
) -> dict[str, list[TestResult]]:
    """Every significance test a report prints, by its section's key in ``report.json``
    (``knob_tests``, ``order_tests``, ``filler_tests``, ``duplication_tests``), computed
    as :func:`compute_content` computes them.

    >>> report_tests([])["knob_tests"]
    []
    """

    def tests(kind: str) -> list[TestResult]:
        return _arm_comparison(rows, kind, method="wilson", seed=seed, bars_too=False)[0]

    return {
        "knob_tests": knob_tests(rows, seed=seed, permutations=permutations),
        "order_tests": tests("order"),
        "filler_tests": tests("fillers"),
        "duplication_tests": tests("duplication"),
    }


def _ordered_models(data: Sequence[Row], model_order: Sequence[str]) -> list[str]:
    """The models of ``data``: those ``model_order`` names in its order, then the rest
    in order of appearance."""
    present = [str(m) for m in _first_seen(r.get("model") for r in data)]
    return [m for m in model_order if m in present] + [m for m in present if m not in model_order]


def _sat_bias(data: Sequence[Row], *, method: str, seed: int) -> dict[str, dict[str, Estimate]]:
    """Family → model → the share of SAT predictions, families in the report's order
    (pairs without a prediction left out)."""
    sat_bias: dict[str, dict[str, Estimate]] = {}
    for (family, model), members in group_rows(data, ["family", "model"]).items():
        estimate = aggregate(members, "sat_prediction", method=method, seed=seed)
        if estimate.n:
            sat_bias.setdefault(str(family), {})[str(model)] = estimate
    return {f: sat_bias[f] for f in sorted(sat_bias, key=_family_key)}


def _template_table(
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


def _captions(data: Sequence[Row]) -> tuple[str, str, list[str]]:
    """What the captions name: the knob settings of the grid rows and of the swept rows
    (the swept knob left out), and the experiments of the grid rows."""
    plain = [r for r in data if _is_plain(r)]
    return (
        knob_settings(plain),
        knob_settings((r for r in data if _is_swept(r)), exclude_swept=True),
        experiments_of(plain),
    )


def _sorted_budgets(
    budgets: Mapping[str, Sequence[int]], models: Sequence[str]
) -> dict[str, list[int]]:
    """Each model's distinct token budgets, in increasing order."""
    return {m: sorted({int(b) for b in budgets.get(m, [])}) for m in models}


def _families(data: Sequence[Row]) -> list[str]:
    """The families of the rows, in the report's order."""
    return sorted({str(r.get("family")) for r in data if r.get("family")}, key=_family_key)


def _size_metric_curves(
    data: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> dict[str, dict[str, Curves]]:
    """Each metric of :data:`SIZE_METRICS` against |C|, per family and model."""
    return {
        metric: _size_curves(data, models, method=method, seed=seed, metric=metric)
        for metric in SIZE_METRICS
    }


def _optional_parts(
    data: Sequence[Row], models: Sequence[str], traces: Sequence[Mapping[str, Any]] | None
) -> dict[str, Any]:
    """The parts a run has only with twins, trace rows or strategies (else ``None``)."""
    return {
        "pairs": pair_summaries(data, models) if has_twins(data) else None,
        "traces": trace_summaries(traces, models) if traces else None,
        "strategies": strategy_summaries(data, traces or []) if has_strategies(data) else None,
    }


def compute_content(
    rows: Iterable[Row],
    *,
    title: str = "twosat-formal report",
    manifest: dict[str, Any] | None = None,
    method: str = CI_METHOD,
    seed: int = 0,
    model_order: Sequence[str] = (),
    stories: Mapping[str, Mapping[str, Any]] | None = None,
    traces: Sequence[Mapping[str, Any]] | None = None,
    budgets: Mapping[str, Sequence[int]] | None = None,
) -> ReportContent:
    """Compute every table, test and figure series of a report from joined rows.

    ``method`` is the confidence-interval method (``"wilson"``, ``"t"`` or
    ``"bootstrap"``, drawn with ``seed``). Models are shown in ``model_order`` (those
    it names), then in order of appearance. ``stories`` are the validation counts of
    story records by story id (:attr:`~twosat_formal.report.load.ReportData.stories`);
    ``traces`` the trace-checker rows (:attr:`~twosat_formal.report.load.ReportData.traces`);
    ``budgets`` the token budgets of each model's requests
    (:attr:`~twosat_formal.report.load.ReportData.budgets`).

    >>> compute_content([]).rows
    0
    """
    data = list(rows)
    models = _ordered_models(data, model_order)
    templates = [str(t) for t in _first_seen(r.get("template") for r in data)]
    by_model = group_rows(data, ["model"])
    summaries = [_summary(m, by_model[(m,)], method=method, seed=seed) for m in models]
    order_tests, order_bars = _arm_comparison(data, "order", method=method, seed=seed)
    filler_tests, filler_bars = _arm_comparison(data, "fillers", method=method, seed=seed)
    duplication_tests, duplication_bars = _arm_comparison(
        data, "duplication", method=method, seed=seed
    )
    edits, edit_curves = _edits(data, models)
    grid_knobs, sweep_knobs, grid_experiments = _captions(data)
    return ReportContent(
        title=title,
        rows=len(data),
        models=models,
        families=_families(data),
        templates=templates,
        summaries=summaries,
        table1=_table1(data, models, method=method, seed=seed),
        sat_bias_by_family=_sat_bias(data, method=method, seed=seed),
        failure_kinds=sorted({k for s in summaries for k in s.failures}),
        template_table=_template_table(by_model, models, templates, method=method, seed=seed),
        knob_tests=knob_tests(data, seed=seed),
        order_tests=order_tests,
        filler_tests=filler_tests,
        duplication_tests=duplication_tests,
        size_curves=_size_curves(data, models, method=method, seed=seed),
        size_metric_curves=_size_metric_curves(data, models, method=method, seed=seed),
        template_curves=_template_curves(data, method=method, seed=seed),
        knob_curves=_knob_curves(data, models, method=method, seed=seed),
        order_bars=order_bars,
        order_model_bars=_order_by_model(data, models, method=method, seed=seed),
        filler_bars=filler_bars,
        duplication_bars=duplication_bars,
        manifest=manifest,
        edits=edits,
        edit_curves=edit_curves,
        edit_proof_lengths=changed_proof_lengths(r for r in data if not r.get("twin_of")),
        stories=_stories(data, stories or {}, models, method=method, seed=seed),
        **_optional_parts(data, models, traces),
        grid_knobs=grid_knobs,
        sweep_knobs=sweep_knobs,
        grid_experiments=grid_experiments,
        budgets=_sorted_budgets(budgets or {}, models),
    )
