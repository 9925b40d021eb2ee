"""The content of a report, computed from joined result rows.

:func:`compute_content` turns rows (export columns joined with instance metadata and,
for experiment runs, the design record of each instance) into a
:class:`ReportContent`: the Table 1-style grid, per-model summaries, truncation and
SAT-bias tables, failure kinds, robustness, significance tests and the series the
figures draw, each part by its section's module of :mod:`twosat_formal.report.sections`.
Nothing here draws or formats; :mod:`twosat_formal.report.plots` and
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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from twosat_formal.make.edits.proof_lengths import changed_proof_lengths
from twosat_formal.report.diagnostics import DiagnosticRow
from twosat_formal.report.metrics import CI_METHOD, Estimate, Row, group_rows
from twosat_formal.report.metrics import model_order as ordered_models
from twosat_formal.report.pairs import PairSummary, has_twins, pair_summaries
from twosat_formal.report.questions import QuestionRow
from twosat_formal.report.sections.captions import captions
from twosat_formal.report.sections.common import Bars, Curves, family_key, first_seen
from twosat_formal.report.sections.comparisons import arm_comparison
from twosat_formal.report.sections.curves import (
    knob_curves,
    size_curves,
    size_metric_curves,
    template_curves,
)
from twosat_formal.report.sections.edits import EditSummary, edit_summaries
from twosat_formal.report.sections.knobs import knob_tests
from twosat_formal.report.sections.order import order_by_model
from twosat_formal.report.sections.satbias import sat_bias_by_family
from twosat_formal.report.sections.stories import StorySection, story_section
from twosat_formal.report.sections.summary import ModelSummary, model_summary
from twosat_formal.report.sections.table1 import Table1Row, table1_rows
from twosat_formal.report.sections.templates import template_table
from twosat_formal.report.sections.truncation import sorted_budgets
from twosat_formal.report.stats import PERMUTATIONS, TestResult
from twosat_formal.report.strategies import StrategySummary, has_strategies, strategy_summaries
from twosat_formal.report.traces import TraceSummary, trace_summaries

__all__ = ["ReportContent", "compute_content", "report_tests"]


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
        return arm_comparison(rows, kind, method="wilson", seed=seed, bars_too=False)[0]

    return {
        "knob_tests": knob_tests(rows, seed=seed, permutations=permutations),
        "order_tests": tests("order"),
        "filler_tests": tests("fillers"),
        "duplication_tests": tests("duplication"),
    }


def _families(data: Sequence[Row]) -> list[str]:
    """The families of the rows, in the report's order."""
    return sorted({str(r.get("family")) for r in data if r.get("family")}, key=family_key)


def _optional_parts(
    data: Sequence[Row],
    models: Sequence[str],
    traces: Sequence[Mapping[str, Any]] | None,
    *,
    method: str,
    seed: int,
) -> dict[str, Any]:
    """The parts a run has only with twins, trace rows or strategies (else ``None``);
    intervals by ``method``, drawn with ``seed``."""
    return {
        "pairs": pair_summaries(data, models, method=method, seed=seed)
        if has_twins(data)
        else None,
        "traces": trace_summaries(traces, models, method=method, seed=seed) if traces else None,
        "strategies": strategy_summaries(data, traces or []) if has_strategies(data) else None,
    }


def _models_and_templates(
    data: Sequence[Row], model_order: Sequence[str]
) -> tuple[list[str], list[str]]:
    """The report's models (``model_order`` first) and templates, in order of appearance."""
    models = ordered_models((r for r in data if r.get("model") is not None), model_order)
    return models, [str(t) for t in first_seen(r.get("template") for r in data)]


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
    models, templates = _models_and_templates(data, model_order)
    by_model = group_rows(data, ["model"])
    summaries = [model_summary(m, by_model[(m,)], method=method, seed=seed) for m in models]
    order_tests, order_bars = arm_comparison(data, "order", method=method, seed=seed)
    filler_tests, filler_bars = arm_comparison(data, "fillers", method=method, seed=seed)
    duplication_tests, duplication_bars = arm_comparison(
        data, "duplication", method=method, seed=seed
    )
    edits, edit_curves = edit_summaries(data, models, method=method, seed=seed)
    grid_knobs, sweep_knobs, grid_experiments = captions(data)
    return ReportContent(
        title=title,
        rows=len(data),
        models=models,
        families=_families(data),
        templates=templates,
        summaries=summaries,
        table1=table1_rows(data, models, method=method, seed=seed),
        sat_bias_by_family=sat_bias_by_family(data, method=method, seed=seed),
        failure_kinds=sorted({k for s in summaries for k in s.failures}),
        template_table=template_table(by_model, models, templates, method=method, seed=seed),
        knob_tests=knob_tests(data, seed=seed),
        order_tests=order_tests,
        filler_tests=filler_tests,
        duplication_tests=duplication_tests,
        size_curves=size_curves(data, models, method=method, seed=seed),
        size_metric_curves=size_metric_curves(data, models, method=method, seed=seed),
        template_curves=template_curves(data, method=method, seed=seed),
        knob_curves=knob_curves(data, models, method=method, seed=seed),
        order_bars=order_bars,
        order_model_bars=order_by_model(data, models, method=method, seed=seed),
        filler_bars=filler_bars,
        duplication_bars=duplication_bars,
        manifest=manifest,
        edits=edits,
        edit_curves=edit_curves,
        edit_proof_lengths=changed_proof_lengths(r for r in data if not r.get("twin_of")),
        stories=story_section(data, stories or {}, models, method=method, seed=seed),
        **_optional_parts(data, models, traces, method=method, seed=seed),
        grid_knobs=grid_knobs,
        sweep_knobs=sweep_knobs,
        grid_experiments=grid_experiments,
        budgets=sorted_budgets(budgets or {}, models),
    )
