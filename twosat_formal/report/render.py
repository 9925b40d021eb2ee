"""Render a report as Markdown (``report.md``) and HTML (``report.html``).

The report is first laid out as a list of blocks (headings, paragraphs, tables and
images, :func:`layout`), then written in both formats from that one layout, so both
files always hold the same sections:

1. Summary (per model: accuracies, witness validity, SAT bias, truncation, robustness)
2. Table 1 (rows generator × |C|, columns model × {Sat., Wit.}, and Wit. (UNSAT) when
   some prompt asked for a contradiction chain; best in bold, second in italics), then
   the strict and lenient answer readings side by side
3. Truncation (App. I) and SAT-prediction bias on UNSAT instances (App. J)
4. Knob tests across levels (permutation tests over formulas), Benjamini–Hochberg over
   all of them together, as Table 6 reads (App. K)
5. Clause order, fillers and duplication tests (§5.2–5.4)
6. Verbalization templates (§5.5), then, for a run with story records or answers to
   story prompts only, the :data:`STORY_SECTION` (first-attempt validation and
   fallback rates beside the paper's, stories against templates per model, success by
   story theme)
7. Failure kinds
8. Robustness, then, for a run with symbolically edited instances only, the edit
   sections (:data:`EDIT_SECTIONS`: normalized accuracy and flip rate per cumulative
   level, original-answer retention); then, when they apply, the diagnostics
   (:data:`PAIRS_SECTION`: pair accuracy and consistency of minimal twins;
   :data:`TRACES_SECTION`: unsupported claims of the trace checker against correctness;
   :data:`DIAGNOSTICS_SECTION`: the bench's twins-and-chains side run)
9. Figures (and a line for each figure the run has no data for), the item browser
   (:data:`BROWSER_SECTION`, when the report has the answers) and provenance

Every p-value is shown with its test and ``n``. The HTML file embeds the figures as
data URIs, so it can be sent alone; the Markdown file links them.

Examples
--------
>>> from twosat_formal.report.sections import compute_content
>>> blocks = layout(compute_content([]), [])
>>> [b.text for b in blocks if isinstance(b, Heading) and b.level == 2][1:3]
['Table 1: decision accuracy and witness validity', 'Strict and lenient answer reading']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

from twosat_formal.core.model import SamplingParams
from twosat_formal.evaluate.diagnostics.quality import DIMENSIONS as QUALITY_DIMENSIONS
from twosat_formal.evaluate.models.base import sampling_for
from twosat_formal.make.edits.metrics import FlipRate as EditFlipRate
from twosat_formal.make.edits.metrics import IndividualAccuracy, NormalizedAccuracy, Retention
from twosat_formal.report.blocks import Block, Browser, Heading, Image, Paragraph, Table
from twosat_formal.report.files import REPORT_HTML, REPORT_MD
from twosat_formal.report.metrics import Estimate, FlipRate
from twosat_formal.report.page import render_html
from twosat_formal.report.plots import Figure
from twosat_formal.report.questions import FIGURE_CAPTION, FIGURE_TITLE
from twosat_formal.report.sections import (
    KNOB_FAMILY,
    EditSummary,
    ReportContent,
    StorySection,
    Table1Row,
)
from twosat_formal.report.stats import TestResult
from twosat_formal.verbalize.story.statistics import PAPER_FALLBACK_RATE, PAPER_FIRST_ATTEMPT_RATE

__all__ = [
    "BROWSER_SECTION",
    "DIAGNOSTICS_SECTION",
    "EDIT_SECTIONS",
    "PAIRS_SECTION",
    "SECTIONS",
    "STORY_SECTION",
    "STRATEGIES_SECTION",
    "TRACES_SECTION",
    "format_ci",
    "format_p",
    "format_pct",
    "layout",
    "render_html",
    "render_markdown",
    "write_report",
]

#: Titles of the second-level sections, in order; every report has all of them.
SECTIONS = (
    "Summary",
    "Table 1: decision accuracy and witness validity",
    "Strict and lenient answer reading",
    "Truncation (App. I)",
    "SAT-prediction bias on UNSAT instances (App. J)",
    "Knob tests across levels (Table 6, App. K)",
    "Clause order: construction vs shuffled (§5.3)",
    "Filler clauses (§5.2)",
    "Duplicated clauses (§5.4)",
    "Verbalization templates (§5.5)",
    "Failure kinds",
    "Robustness",
    "Figures",
    "Provenance",
)

#: Titles of the sections of symbolic-edit metrics, shown after "Robustness" when the
#: run has edited instances (a report without them has exactly :data:`SECTIONS`).
EDIT_SECTIONS = (
    "Symbolic edits: normalized accuracy",
    "Symbolic edits: flip rate",
    "Symbolic edits: original-answer retention",
    "Symbolic edits: individual edits",
    "Symbolic edits: per operator",
    "Symbolic edits: proof length and prediction flips",
)

#: Title of the section of minimal twins, shown after "Robustness" (and the edit
#: sections) when the run has twin instances.
PAIRS_SECTION = "Minimal twins: pair accuracy and consistency"

#: Title of the section of the trace checker, shown before "Figures" when the run has
#: answers to template prompts.
TRACES_SECTION = "Reasoning traces: unsupported claims"
#: The section comparing reasoning strategies (a run with a strategy other than ``direct``).
STRATEGIES_SECTION = "Reasoning strategies and reasoning quality"

#: Title of the section of question types other than the decision.
QUESTIONS_SECTION = "Question types"

#: Title of the bench's diagnostics section (twins and chains of a small side run).
DIAGNOSTICS_SECTION = "Diagnostics: minimal twins and contradiction chains"

#: Title of the section of the LLM story verbalizer, shown after "Verbalization
#: templates (§5.5)" when the run has story records or answers to story prompts.
STORY_SECTION = "LLM story verbalizer"

#: Title of the item browser's section (every answer with its prompt, judgement and
#: trace claims; interactive in ``report.html``), shown before "Provenance" when the
#: report has the answers.
BROWSER_SECTION = "Item browser"

_NO_DATA = "No data for this section in this run."

#: What the "edits" column of the edit tables means.
_CATEGORY_NOTE = (
    "Edits: operator (an edit of a clause's logic) or premise (a chain that drops or "
    "inserts a clause; off unless asked for), reported apart."
)


def _plain(*texts: str) -> list[tuple[str, str]]:
    """Table cells without a style.

    >>> _plain("a", "b")
    [('a', ''), ('b', '')]
    """
    return [(text, "") for text in texts]


def _captioned(
    caption: str, headers: Sequence[str], rows: list[list[tuple[str, str]]]
) -> list[Block]:
    """A section's usual shape: a caption paragraph above one table.

    >>> _captioned("Counts.", ["model", "n"], [_plain("m", "3")])[0]
    Paragraph(text='Counts.')
    """
    return [Paragraph(caption), Table(list(headers), rows)]


def format_pct(value: float | None, digits: int = 1) -> str:
    """A share as a percentage, ``—`` when undefined.

    >>> format_pct(0.8333), format_pct(None)
    ('83.3', '—')
    """
    if value is None or math.isnan(value):
        return "—"
    return f"{100.0 * value:.{digits}f}"


def format_p(value: float | None) -> str:
    """A p-value in the paper's style (``3.363e-03``), ``—`` when undefined.

    >>> format_p(0.003363), format_p(float("nan"))
    ('3.363e-03', '—')
    """
    if value is None or math.isnan(value):
        return "—"
    return f"{value:.3e}"


def format_ci(estimate: Estimate) -> str:
    """An estimate as a percentage with its interval and its number of units.

    >>> format_ci(Estimate(0.5, 0.25, 0.75, n=4)), format_ci(Estimate(0.5, None, None, n=1))
    ('50.0 [25.0, 75.0] (n=4)', '50.0 (n=1)')
    """
    if estimate.mean is None:
        return "—"
    if estimate.low is None or estimate.high is None:
        return f"{format_pct(estimate.mean)} (n={estimate.n})"
    return (
        f"{format_pct(estimate.mean)} [{format_pct(max(0.0, estimate.low))}, "
        f"{format_pct(min(1.0, estimate.high))}] (n={estimate.n})"
    )


def _flip(flips: FlipRate) -> str:
    if not flips.pairs:
        return "—"
    return f"{format_pct(flips.rate)} ({flips.flips}/{flips.pairs})"


def _ranked(values: Sequence[float | None]) -> list[str]:
    """Styles for a row of values: the best in bold, the second best in italics, each
    only when one value alone holds that place (a tie is not a best: a row where two
    models share the top value, or every model has 0 %, has no bold).

    Rows with fewer than two values get no styling.

    >>> _ranked([0.5, 1.0, None, 0.75, 0.9])
    ['', 'b', '', '', 'i']
    >>> _ranked([0.5, 1.0, None, 0.75, 1.0])
    ['', '', '', '', '']
    >>> _ranked([0.0, 0.0, 0.0])
    ['', '', '']
    >>> _ranked([0.9, 0.5, 0.5])
    ['b', '', '']
    """
    present = sorted((round(v, 9) for v in values if v is not None), reverse=True)
    if len(present) < 2 or present[0] == present[1]:
        return [""] * len(values)
    places = {present[0]: "b"}
    if len(present) == 2 or present[1] != present[2]:
        places[present[1]] = "i"
    return ["" if v is None else places.get(round(v, 9), "") for v in values]


def _method(content: ReportContent) -> str:
    """The name of the interval method the content's estimates use."""
    for summary in content.summaries:
        return {"wilson": "Wilson score", "t": "t-based", "bootstrap": "percentile-bootstrap"}.get(
            summary.accuracy.method, summary.accuracy.method
        )
    return "Wilson score"


def _summary(content: ReportContent) -> list[Block]:
    notes: list[Block] = [Paragraph(f"Note: {note}.") for note in content.notes]
    if not content.summaries:
        return [Paragraph(_NO_DATA), *notes]
    headers = [
        "model",
        "rows",
        "Sat. (all)",
        "Sat. (SAT)",
        "Sat. (UNSAT)",
        "Wit. (SAT)",
        "SAT pred. on UNSAT",
        "truncated",
        "consistency",
        "flip rate (perturbed)",
        "flip rate (templates)",
    ]
    rows = [
        _plain(
            s.model,
            str(s.rows),
            format_ci(s.accuracy),
            format_ci(s.accuracy_sat),
            format_ci(s.accuracy_unsat),
            format_ci(s.witness),
            format_ci(s.sat_prediction),
            format_ci(s.truncation),
            format_ci(s.consistency),
            _flip(s.flips),
            _flip(s.verbal_flips),
        )
        for s in content.summaries
    ]
    return [
        Paragraph(
            f"{content.rows} scored samples over {len(content.families)} generator families, "
            f"{len(content.models)} models and {len(content.templates)} templates. Percentages "
            "are averaged per base formula first (its perturbed variants, twins and edits "
            f"count as the same formula), then across formulas, with 95% {_method(content)} "
            "confidence intervals within [0, 100]; n is the number of formulas. Truncated "
            "and unparsable "
            "answers count as incorrect."
        ),
        Table(headers, rows),
        *notes,
    ]


def _readings(content: ReportContent) -> list[Block]:
    if not content.summaries:
        return [Paragraph(_NO_DATA)]
    headers = [
        "model",
        "Sat. (strict)",
        "Sat. (lenient)",
        "success (strict)",
        "success (lenient)",
        "rows the lenient reading judges differently",
    ]
    rows = [
        _plain(
            s.model,
            format_ci(s.accuracy),
            format_ci(s.lenient_accuracy),
            format_ci(s.success),
            format_ci(s.lenient_success),
            f"{s.forgiven} of {s.rows}",
        )
        for s in content.summaries
    ]
    return _captioned(
        "Every answer is read twice (docs/evaluation.md): strictly, the final line "
        '"The answer is: Yes|No" as the prompt asks for it (the headline metric), and '
        "leniently (an answer inside a sentence, Answer:, \\boxed{}, a forgiving JSON "
        "reader). Decision accuracy (Sat.) and success (right decision, and a valid "
        "witness on SAT instances) under each reading; the gap is format failure, not "
        "reasoning failure.",
        headers,
        rows,
    )


#: A Table 1 value that does not apply (witness validity on an UNSAT row, the chain
#: witness where no prompt asked for a chain); a missing one (no answers) is ``—``.
NOT_APPLICABLE = "n/a"
#: Marks a cell averaged over fewer templates or samples than its row's others.
PARTIAL_MARK = "†"


def _table1_means(row: Table1Row, models: Sequence[str], part: str) -> list[float | None]:
    """Each model's mean of one Table 1 estimate (``sat``, ``wit`` or ``cyc``) in ``row``."""
    estimates = [getattr(row.cells[m], part) if m in row.cells else None for m in models]
    return [None if e is None else e.mean for e in estimates]


def _table1_cell(row: Table1Row, model: str, value: float | None) -> str:
    """A Table 1 value: ``—`` with no answers, n/a where it does not apply, else a
    percentage (marked when the cell averages fewer templates or samples)."""
    if model not in row.cells:
        return "—"
    if value is None:
        return NOT_APPLICABLE
    return format_pct(value) + (f" {PARTIAL_MARK}" if row.partial(model) else "")


def _table1_row(
    row: Table1Row, models: Sequence[str], parts: Sequence[str]
) -> list[tuple[str, str]]:
    """One Table 1 row: its generator and size, then each model's parts, ranked."""
    means = [_table1_means(row, models, part) for part in parts]
    styles = [_ranked(values) for values in means]
    cells: list[tuple[str, str]] = [(row.family, ""), (str(row.clauses), "")]
    for i, model in enumerate(models):
        cells.extend(
            (_table1_cell(row, model, values[i]), ranks[i])
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


def _table1(content: ReportContent) -> list[Block]:
    if not content.table1:
        return [Paragraph(_NO_DATA)]
    models = content.models
    chains = any(c.cyc is not None for r in content.table1 for c in r.cells.values())
    parts = ("sat", "wit", "cyc") if chains else ("sat", "wit")
    names = {"sat": "Sat.", "wit": "Wit.", "cyc": "Wit. (UNSAT)"}
    headers = ["generator", "|C|"] + [f"{m} {names[part]}" for m in models for part in parts]
    rows = [_table1_row(row, models, parts) for row in content.table1]
    partial = any(row.partial(m) for row in content.table1 for m in models)
    return _captioned(_table1_caption(content, chains, partial), headers, rows)


def _truncation(content: ReportContent) -> list[Block]:
    if not content.summaries:
        return [Paragraph(_NO_DATA)]
    rows = [
        _plain(
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


def _sat_bias(content: ReportContent) -> list[Block]:
    if not content.sat_bias_by_family:
        return [Paragraph("No UNSAT instances in this run.")]
    models = content.models
    rows = []
    for family, by_model in content.sat_bias_by_family.items():
        rows.append(
            [(family, "")]
            + [(format_ci(by_model[m]) if m in by_model else "—", "") for m in models]
        )
    overall = [("all UNSAT", "")] + [(format_ci(s.sat_prediction), "") for s in content.summaries]
    rows.append(overall)
    return _captioned(
        "Share of samples on UNSAT instances where the model answered SAT (%).",
        ["generator", *models],
        rows,
    )


def _statistic(value: float) -> str:
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}"


def _significant(p: float | None) -> bool:
    """Bold marks a Benjamini–Hochberg adjusted p below .05 (the paper's Table 6)."""
    return p is not None and not math.isnan(p) and p < 0.05


def _tests(results: Sequence[TestResult], *, empty: str = _NO_DATA) -> list[Block]:
    if not results:
        return [Paragraph(empty)]
    rows = [
        [
            *_plain(
                r.label,
                r.test,
                _units(r),
                _statistic(r.statistic),
                "—" if r.df is None or math.isnan(r.df) else f"{r.df:.4g}",
                format_p(r.p_value),
            ),
            (format_p(r.p_adjusted), "b" if _significant(r.p_adjusted) else ""),
            (r.note, ""),
        ]
        for r in results
    ]
    return [Table(["comparison", "test", "n", "statistic", "df", "p", "p (BH)", "note"], rows)]


def _units(result: TestResult) -> str:
    """``n`` with the unit it counts when the test names one (``18 formulas``).

    >>> _units(TestResult("t", 18, 1.0, 0.5, extra=(("unit", "formula"),)))
    '18 formulas'
    """
    unit = dict(result.extra).get("unit")
    if not unit:
        return str(result.n)
    return f"{result.n} {unit}" + ("" if result.n == 1 else "s")


@dataclass(frozen=True)
class _TestSection:
    """A section of significance tests: what they compare, then their table.

    ``empty`` stands for the table when a run has no such comparison.
    """

    intro: str
    empty: str

    def blocks(self, results: Sequence[TestResult]) -> list[Block]:
        return [Paragraph(self.intro), *_tests(results, empty=self.empty)]


_KNOBS = _TestSection(
    "Permutation tests across knob levels (Table 6). Each level draws its own formulas, "
    "so the unit is the formula: its success is averaged over its templates and samples "
    "under each model, and the knob levels are exchanged between the formulas of one "
    "size (a formula keeps its answers under every model together; every arrangement "
    "when there are at most 9,999, else 9,999 random ones). The statistic is the "
    "between-level sum of squares over formulas, summed over models; n counts the "
    f"formulas the p-value rests on. Benjamini–Hochberg over one family, {KNOB_FAMILY}; "
    "adjusted p < .05 in bold.",
    empty="No knob sweep in this run.",
)
_ORDER = _TestSection(
    "Paired t-tests over formulas: the same formula in its construction order and "
    "shuffled, each formula's success averaged over its templates, samples and models; "
    "Benjamini–Hochberg over the order tests.",
    empty="No clause-order comparison in this run.",
)
_FILLERS = _TestSection(
    "Paired t-tests over formulas (success averaged over templates, samples and "
    "models): core plus filler clauses against the same core alone (fixed core) and "
    "against a larger core (matched total clauses); Benjamini–Hochberg over the filler "
    "tests.",
    empty="No filler comparison in this run.",
)
_DUPLICATION = _TestSection(
    "Independent t-tests between layouts and paired t-tests between each layout and "
    "its shuffled version, formulas as units (success averaged over templates, samples "
    "and models); Benjamini–Hochberg over the duplication tests.",
    empty="No duplication comparison in this run.",
)


def _templates(content: ReportContent) -> list[Block]:
    if not content.template_table or not content.templates:
        return [Paragraph(_NO_DATA)]
    rows = []
    for model, by_template in content.template_table.items():
        values = [by_template[t].mean if t in by_template else None for t in content.templates]
        styles = _ranked(values)
        rows.append(
            [(model, "")] + [(format_pct(v), s) for v, s in zip(values, styles, strict=True)]
        )
    return _captioned(
        "Success (%) per template: the decision on UNSAT, a valid witness on SAT.",
        ["model", *content.templates],
        rows,
    )


def _failures(content: ReportContent) -> list[Block]:
    if not content.summaries:
        return [Paragraph(_NO_DATA)]
    kinds = content.failure_kinds
    rows = [
        [(s.model, "")] + [(str(s.failures.get(k, 0)), "") for k in kinds] + [(str(s.rows), "")]
        for s in content.summaries
    ]
    return _captioned(
        "Samples per failure kind; every kind but `correct` counts as incorrect.",
        ["model", *kinds, "total"],
        rows,
    )


def _robustness(content: ReportContent) -> list[Block]:
    if not content.summaries:
        return [Paragraph(_NO_DATA)]
    rows = [
        _plain(
            s.model,
            _flip(s.flips),
            str(s.flips.broken),
            str(s.flips.fixed),
            _flip(s.verbal_flips),
            format_ci(s.consistency),
        )
        for s in content.summaries
    ]
    return _captioned(
        "Flip rate: share of (base, variant) pairs of the same model, template and "
        "sample whose correctness changed, in either direction (unchanged pairs stay in "
        "the denominator); for templates, each verbalization against the `logic` one. "
        "Consistency: share of a formula's answers that give its most common decision.",
        [
            "model",
            "flip rate (perturbed)",
            "broken",
            "fixed",
            "flip rate (templates)",
            "decision consistency (%)",
        ],
        rows,
    )


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _count_rate(count: int, total: int, rate: float | None) -> str:
    return "—" if not total else f"{format_pct(rate)} ({count}/{total})"


#: The columns of :func:`_retention_cells`, in both tables of retention.
_RETENTION_HEADERS = ("label-changing samples", "original answer kept (%)", "new label (%)")


def _retention_cells(retention: Retention) -> list[tuple[str, str]]:
    """The cells under :data:`_RETENTION_HEADERS`: samples, retained and new-label shares."""
    return _plain(
        str(retention.rows),
        _count_rate(retention.retained, retention.rows, retention.rate),
        _count_rate(retention.correct, retention.rows, retention.accuracy),
    )


_Item = TypeVar("_Item")


def _edit_rows(
    content: ReportContent,
    items: Callable[[EditSummary], Iterable[_Item]],
    cells: Callable[[_Item], Sequence[str]],
) -> list[list[tuple[str, str]]]:
    """Rows of an edit table: a summary's model and edits category, then ``cells`` of
    each of its ``items`` (one row each), over every edit summary of the content."""
    return [_plain(s.model, s.category, *cells(i)) for s in content.edits or [] for i in items(s)]


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
        _count_rate(f.flips, f.pairs, f.rate),
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


def _edit_normalized(content: ReportContent) -> list[Block]:
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


def _edit_flips(content: ReportContent) -> list[Block]:
    rows = _edit_rows(content, lambda s: s.flips, _edit_flip_cells)
    if not rows:
        return [Paragraph("No cumulative edits in this run.")]
    return _captioned(
        "Share of records whose correctness differs between the baseline and level k, "
        "in either direction (broken: correct to incorrect, fixed: incorrect to "
        "correct); unchanged records, fallbacks included, stay in the denominator.",
        ["model", "edits", "k", "records", "edited", "broken", "fixed", "flip rate (%)"],
        rows,
    )


def _edit_proof_lengths(content: ReportContent) -> list[Block]:
    from twosat_formal.report.pairs import wilson

    edited, changed = content.edit_proof_lengths
    count = Paragraph(
        f"{changed} of {edited} edited records have a proof length that differs from "
        "their origin's (proof length: the shortest contradiction cycle of an UNSAT "
        "formula, the longest shortest chain forcing a backbone literal of a SAT one)."
    )
    rows = [
        _plain(
            s.model,
            s.category,
            f"{p.change:+d}",
            str(p.pairs),
            str(p.flips),
            format_ci(wilson(p.flips, p.pairs)),
        )
        for s in content.edits or []
        for p in s.proof_lengths
    ]
    if not rows:
        return [count, Paragraph("No edited answers whose records carry proof lengths.")]
    return [
        count,
        *_captioned(
            "Each edited answer paired with the answer to its origin (same model, template "
            "and sample), by the change in proof length from the origin to the edited "
            "record (LogicEdit, Appendix F); a prediction flip is a pair whose two "
            "decisions differ. Flip rate with its 95% Wilson interval.",
            ["model", "edits", "proof length change", "pairs", "flips", "flip rate (%)"],
            rows,
        ),
    ]


def _edit_retention(content: ReportContent) -> list[Block]:
    summaries = [s for s in content.edits or [] if s.retention.rows]
    if not summaries:
        return [Paragraph("No label-changing edits in this run.")]
    rows = [[*_plain(s.model, s.category), *_retention_cells(s.retention)] for s in summaries]
    return _captioned(
        "On label-changing edits: the share of answers that keep the origin's label "
        "(right before the edit, wrong after it), and the share that give the new "
        "label. A missing or unparsable answer retains nothing and counts as incorrect, "
        "so with two labels retention = 1 - accuracy - unparsable.",
        ["model", "edits", *_RETENTION_HEADERS],
        rows,
    )


def _edit_individual(content: ReportContent) -> list[Block]:
    rows = _edit_rows(content, lambda s: s.individual, _individual_cells)
    if not rows:
        return [Paragraph("No individual edits in this run.")]
    return _captioned(
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
        _plain(
            s.model,
            s.category,
            o.operator,
            str(n.level),
            str(n.records),
            format_pct(n.baseline_accuracy),
            format_pct(n.accuracy),
            _ratio(n.value),
            _count_rate(f.flips, f.pairs, f.rate),
        )
        for s in content.edits or []
        for o in s.operators
        for n, f in zip(o.normalized, o.flips, strict=True)
        if n.records
    ]


def _operator_retention(content: ReportContent) -> list[list[tuple[str, str]]]:
    """A row per model, edits category and operator with retained rows."""
    return [
        [*_plain(s.model, s.category, o.operator), *_retention_cells(o.retention)]
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


def _edit_operators(content: ReportContent) -> list[Block]:
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


def _pairs(content: ReportContent) -> list[Block]:
    summaries = content.pairs or []
    if not summaries:
        return [Paragraph("No twin has an evaluated source in this run.")]
    rows = [
        _plain(
            s.model,
            "all" if s.by == "all" else f"{s.by}: {s.group}",
            str(s.pairs),
            format_ci(s.accuracy),
            format_ci(s.consistency),
        )
        for s in summaries
    ]
    return [
        Paragraph(
            "Each twin differs from its source in one clause and has the opposite label. "
            "Pair accuracy: both decisions right. Pair consistency: the decision changes "
            "between source and twin. Shares of pairs (model, template, sample) with "
            "95% Wilson intervals."
        ),
        Table(["model", "group", "pairs", "pair accuracy (%)", "pair consistency (%)"], rows),
    ]


def _diagnostics(content: ReportContent) -> list[Block]:
    rows = [
        _plain(
            r.model,
            str(r.pairs),
            format_ci(r.pair_accuracy),
            format_ci(r.pair_consistency),
            str(r.chains_asked),
            format_ci(r.chain_witness),
        )
        for r in content.diagnostics or []
    ]
    return _captioned(
        "A small side run (`diagnostics/` beside this report: the `pairs` experiment, "
        "prompts that ask for a contradiction chain). Twins: each formula and its twin, "
        "one clause apart with the opposite label; pair accuracy: both decisions right; "
        "pair consistency: the decision changes. Wit. (UNSAT): the answer is No and its "
        "contradiction chain is valid, over the UNSAT answers. 95% Wilson intervals; "
        "see docs/diagnostics.md.",
        [
            "model",
            "pairs",
            "pair accuracy (%)",
            "pair consistency (%)",
            "UNSAT answers",
            "Wit. (UNSAT) (%)",
        ],
        rows,
    )


def _count(value: int | None) -> str:
    return "—" if value is None else str(value)


def _strategies(content: ReportContent) -> list[Block]:
    rows = [
        _plain(
            s.model,
            s.strategy,
            str(s.rows),
            format_pct(s.accuracy),
            _count(s.ties),
            "—" if s.formalized is None else f"{s.formalized_exact} of {s.formalized}",
            *(format_pct(s.quality.get(name)) for name in QUALITY_DIMENSIONS),
        )
        for s in content.strategies or []
    ]
    return _captioned(
        "Each model under each reasoning strategy (`--strategy`; every other table shows "
        "a strategy other than direct as the arm `model [strategy]`). Rows: answers, or "
        "votes of sample-k (majority of K samples; ties counted apart, not correct). "
        "Formalized: symbolic-cot answers whose FORMULAS block is exactly the instance's "
        "rules, of those with a readable block. The four reasoning-quality codings are "
        "exact (`twosat-formal trace`): means over the answers where each is defined.",
        [
            "model",
            "strategy",
            "rows",
            "accuracy (%)",
            "ties",
            "formalized exactly",
            "premise fidelity (%)",
            "inference validity (%)",
            "answer completion (%)",
            "answer alignment (%)",
        ],
        rows,
    )


def _questions(content: ReportContent) -> list[Block]:
    rows = [
        _plain(
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
    blocks = _captioned(
        "Each formula asked more than its decision (`verbalize --ask`; see "
        'docs/verbalization.md, "Question types"): per model, question type and family, '
        "the share of right answers (strict and lenient readings, 95% Wilson intervals "
        "over the answers), the mean partial credit (a `forced` answer's recall; a `core` "
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
        blocks.append(Image(Path(content.questions_figure), FIGURE_TITLE, FIGURE_CAPTION))
    return blocks


def _traces(content: ReportContent) -> list[Block]:
    summaries = content.traces or []
    rows = [
        _plain(
            s.model,
            s.family,
            str(s.answers),
            str(s.claims),
            format_pct(s.coverage),
            format_ci(s.unsupported),
            format_ci(s.correct),
            format_ci(s.wrong),
        )
        for s in summaries
    ]
    return _captioned(
        "Claims read from each answer's reasoning (template clause sentences, "
        "conditionals, assignments; `twosat-formal trace`) and checked against the "
        "formula. Unsupported: a claim that neither follows from the formula nor is "
        "refuted by it. Rates pooled over claims with 95% Wilson intervals, for all "
        "answers, the correct ones and the wrong ones; coverage: the mean share of an "
        "answer's sentences read as claims.",
        [
            "model",
            "family",
            "answers",
            "claims",
            "coverage (%)",
            "unsupported (%)",
            "unsupported, correct answers (%)",
            "unsupported, wrong answers (%)",
        ],
        rows,
    )


def _story_rates(section: StorySection) -> list[Block]:
    stats = section.statistics
    if stats is None:
        return [
            Paragraph(
                "No story records found, so no validation rates: `eval` keeps the counts of "
                "the story prompts it asks in the run store, and an experiment folder may "
                "hold them in `stories.jsonl`."
            )
        ]
    blocks: list[Block] = [
        Paragraph(
            f"{stats.stories} stories, {stats.clauses} clauses ({stats.llm_clauses} through "
            f"validation, {stats.direct} written directly), {stats.attempts} clue attempts. "
            "Rates are over the clauses that went through validation; paper: §4."
        ),
        Table(
            ["statistic", "ours (%)", "paper (%)"],
            [
                [
                    ("first-attempt validation rate", ""),
                    (
                        _count_rate(
                            stats.first_attempt, stats.llm_clauses, stats.first_attempt_rate
                        ),
                        "",
                    ),
                    (format_pct(PAPER_FIRST_ATTEMPT_RATE), ""),
                ],
                _plain(
                    "fallback rate",
                    _count_rate(stats.fallbacks, stats.llm_clauses, stats.fallback_rate),
                    format_pct(PAPER_FALLBACK_RATE),
                ),
            ],
        ),
    ]
    if len(section.by_theme) > 1:
        blocks.append(
            Table(
                [
                    "theme",
                    "stories",
                    "clauses through validation",
                    "first attempt (%)",
                    "fallback (%)",
                ],
                [
                    _plain(
                        theme,
                        str(t.stories),
                        str(t.llm_clauses),
                        _count_rate(t.first_attempt, t.llm_clauses, t.first_attempt_rate),
                        _count_rate(t.fallbacks, t.llm_clauses, t.fallback_rate),
                    )
                    for theme, t in section.by_theme.items()
                ],
            )
        )
    rate = stats.fallback_rate
    if rate is not None and rate > PAPER_FALLBACK_RATE:
        blocks.append(
            Paragraph(
                f"Note: {format_pct(rate)}% of the clauses that went through validation "
                f"use the fallback sentence, against {format_pct(PAPER_FALLBACK_RATE)}% in "
                "the paper: their clues failed the model's own validation three times. A "
                "story made mostly of fallback sentences is close to a template "
                "verbalization in a narrative frame, so read its accuracy together with "
                "this rate."
            )
        )
    return blocks


def _story_accuracy(section: StorySection) -> list[Block]:
    rows = [
        _plain(
            model,
            theme,
            str(cell.samples),
            format_ci(cell.success),
            format_ci(cell.accuracy_unsat),
            format_ci(cell.witness),
        )
        for model, by_theme in section.cells.items()
        for theme, cell in by_theme.items()
    ]
    if not rows:
        return [Paragraph("No answers to story prompts in this run.")]
    return _captioned(
        "Accuracy by story theme (Figure 9): success (the decision on UNSAT, a valid "
        "witness on SAT) and its two parts, per model and theme, with 95% confidence "
        "intervals across formulas. A story witness maps each entity to its own true "
        "or false description. These rows also count in the sections above, as the "
        "verbalizations `story:<theme>`.",
        ["model", "theme", "samples", "success (%)", "Sat. (UNSAT) (%)", "Wit. (SAT) (%)"],
        rows,
    )


def _story_versus(section: StorySection) -> list[Block]:
    if not section.versus:
        return []
    themes = [t for t in section.themes if any(t in v.themes for v in section.versus.values())]
    rows = []
    for model, versus in section.versus.items():
        drop = versus.drop
        rows.append(
            [
                *_plain(
                    model,
                    format_ci(versus.template),
                ),
                *((format_ci(versus.themes[t]) if t in versus.themes else "—", "") for t in themes),
                *_plain(
                    format_ci(versus.story),
                    "—" if drop is None else f"{100 * drop:+.1f}",
                ),
            ]
        )
    return _captioned(
        "Stories against templates (Figure 9 beside Figure 8): success (the decision on "
        "UNSAT, a valid witness on SAT) of each model on the formulas told as stories, "
        "under their template verbalizations (all templates pooled) and under each story "
        "theme, averaged per formula, with 95% confidence intervals across formulas. The "
        "paper finds stories about 25 points below templates at comparable sizes (§5.5), "
        "detective hardest, then spy, then heist.",
        [
            "model",
            "templates (%)",
            *(f"story: {t} (%)" for t in themes),
            "all stories (%)",
            "stories - templates (points)",
        ],
        rows,
    )


def _stories(content: ReportContent) -> list[Block]:
    section = content.stories
    if section is None:
        return [Paragraph(_NO_DATA)]
    return [
        Paragraph(
            "A model tells each formula as a story, one clue per clause; two more calls read "
            "each clue back, a clue that does not give back its clause is written again up to "
            "three times, and then the programmatic fallback sentence takes its place."
        ),
        *_story_rates(section),
        *_story_versus(section),
        *_story_accuracy(section),
    ]


def _figures(figures: Sequence[Figure], absent: Sequence[str] = ()) -> list[Block]:
    """The figures, then one line for each figure the run has no data for."""
    blocks: list[Block] = [Image(f.path, f.title, f.caption) for f in figures]
    if not figures:
        blocks.append(Paragraph("No figures for this run."))
    if absent:
        blocks.append(Paragraph("Not drawn (no data): " + " ".join(absent)))
    return blocks


def _provenance(content: ReportContent) -> list[Block]:
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
            rows.append([(key, ""), (_compact(manifest[key]), "")])
    return [Table(["field", "value"], rows)]


def _compact(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_compact(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_compact(v) for v in value)
    return "—" if value is None else str(value)


#: The sections of :data:`EDIT_SECTIONS` and what writes each.
_EDIT_WRITERS: tuple[tuple[str, Callable[[ReportContent], list[Block]]], ...] = tuple(
    zip(
        EDIT_SECTIONS,
        (
            _edit_normalized,
            _edit_flips,
            _edit_retention,
            _edit_individual,
            _edit_operators,
            _edit_proof_lengths,
        ),
        strict=True,
    )
)
#: The sections shown before "Figures" when the content has their part: title, the
#: content's attribute and what writes the section.
_OPTIONAL_SECTIONS: tuple[tuple[str, str, Callable[[ReportContent], list[Block]]], ...] = (
    (PAIRS_SECTION, "pairs", _pairs),
    (TRACES_SECTION, "traces", _traces),
    (STRATEGIES_SECTION, "strategies", _strategies),
    (DIAGNOSTICS_SECTION, "diagnostics", _diagnostics),
    (QUESTIONS_SECTION, "questions", _questions),
)


def _insert(
    sections: list[tuple[str, list[Block]]],
    anchor: str,
    more: list[tuple[str, list[Block]]],
    after: int = 0,
) -> None:
    """Insert ``more`` before the section ``anchor`` (after it with ``after=1``)."""
    at = [title for title, _ in sections].index(anchor) + after
    sections[at:at] = more


def layout(
    content: ReportContent,
    figures: Sequence[Figure],
    *,
    absent: Sequence[str] = (),
    answers: int | None = None,
) -> list[Block]:
    """The report as a list of blocks, every section of :data:`SECTIONS` included.

    ``absent`` holds a line for each figure not drawn for want of data; with
    ``answers`` (how many answers the item browser holds) the :data:`BROWSER_SECTION`
    comes before "Provenance".

    The :data:`STORY_SECTION` follows "Verbalization templates (§5.5)" when ``content``
    has story statistics or results; the sections of :data:`EDIT_SECTIONS` follow
    "Robustness" when it has edit metrics.
    """
    parts = [
        _summary(content),
        _table1(content),
        _readings(content),
        _truncation(content),
        _sat_bias(content),
        _KNOBS.blocks(content.knob_tests),
        _ORDER.blocks(content.order_tests),
        _FILLERS.blocks(content.filler_tests),
        _DUPLICATION.blocks(content.duplication_tests),
        _templates(content),
        _failures(content),
        _robustness(content),
        _figures(figures, absent),
        _provenance(content),
    ]
    sections = list(zip(SECTIONS, parts, strict=True))
    if content.stories is not None:
        _insert(sections, "Verbalization templates (§5.5)", [(STORY_SECTION, _stories(content))], 1)
    if content.edits is not None:
        _insert(sections, "Robustness", [(t, write(content)) for t, write in _EDIT_WRITERS], 1)
    optional = [
        (title, write(content))
        for title, attribute, write in _OPTIONAL_SECTIONS
        if getattr(content, attribute) is not None
    ]
    _insert(sections, "Figures", optional)
    if answers is not None:
        _insert(sections, "Provenance", [(BROWSER_SECTION, [Browser(answers)])])
    blocks: list[Block] = [Heading(content.title, 1)]
    for title, body in sections:
        blocks.append(Heading(title, 2))
        blocks.extend(body)
    return blocks


def _md_cell(text: str, style: str) -> str:
    text = text.replace("|", "\\|")
    if not text or style == "":
        return text
    return f"**{text}**" if style == "b" else f"*{text}*"


def _md_table(block: Table) -> list[str]:
    rows = ["| " + " | ".join(_md_cell(t, s) for t, s in row) + " |" for row in block.rows]
    return [
        "| " + " | ".join(h.replace("|", "\\|") for h in block.headers) + " |",
        "|" + "|".join("---" for _ in block.headers) + "|",
        *rows,
        "",
    ]


def _md_figure(block: Image) -> list[str]:
    return [
        f"![{block.title}]({block.path.as_posix()})",
        "",
        f"*{block.title}.* {block.caption}",
        "",
    ]


#: How each kind of block is written in Markdown, as lines (any other block is a figure).
_MARKDOWN: dict[type, Callable[[Any], list[str]]] = {
    Heading: lambda block: ["#" * block.level + " " + block.text, ""],
    Paragraph: lambda block: [block.text, ""],
    Table: _md_table,
    Browser: lambda block: [
        f"The {block.answers} answers, with their prompts, judgements and trace "
        "claims, can be browsed and filtered in report.html.",
        "",
    ],
}


def render_markdown(blocks: Sequence[Block]) -> str:
    """The blocks as GitHub-flavoured Markdown.

    >>> print(render_markdown([Heading("R", 1), Table(["a"], [[("1", "b")]])]).strip())
    # R
    <BLANKLINE>
    | a |
    |---|
    | **1** |
    """
    return "\n".join(
        line for block in blocks for line in _MARKDOWN.get(type(block), _md_figure)(block)
    )


def write_report(
    content: ReportContent,
    figures: Sequence[Figure],
    out_dir: Path,
    *,
    absent: Sequence[str] = (),
    browser: dict[str, Any] | None = None,
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` into ``out_dir``; returns both paths.

    ``absent``: a line per figure not drawn; ``browser``: the item browser's data
    (:func:`twosat_formal.report.items.browser_data`), which adds its section.

    >>> import tempfile, pathlib
    >>> from twosat_formal.report.sections import compute_content
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     md, page = write_report(compute_content([]), [], pathlib.Path(tmp))
    ...     md.name, page.name, "## Failure kinds" in md.read_text()
    ('report.md', 'report.html', True)
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    answers = None if browser is None else len(browser.get("items") or ())
    blocks = layout(content, figures, absent=absent, answers=answers)
    md = out_dir / REPORT_MD
    page = out_dir / REPORT_HTML
    md.write_text(render_markdown(blocks), encoding="utf-8")
    page.write_text(render_html(blocks, out_dir, browser), encoding="utf-8")
    return md, page
