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

Each section is written by its own module (:mod:`twosat_formal.report.sections`, and
:mod:`~twosat_formal.report.pairs`, :mod:`~twosat_formal.report.traces`,
:mod:`~twosat_formal.report.strategies`, :mod:`~twosat_formal.report.diagnostics` and
:mod:`~twosat_formal.report.questions` for the diagnostics); this module holds their
titles, the table of their writers in order, and the Markdown writer.

Every p-value is shown with its test and ``n``. The HTML file embeds the figures as
data URIs, so it can be sent alone; the Markdown file links them.

Examples
--------
>>> from twosat_formal.report.content import compute_content
>>> blocks = layout(compute_content([]), [])
>>> [b.text for b in blocks if isinstance(b, Heading) and b.level == 2][1:3]
['Table 1: decision accuracy and witness validity', 'Strict and lenient answer reading']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal.report.blocks import Block, Browser, Heading, Image, Paragraph, Table
from twosat_formal.report.diagnostics import write_diagnostics
from twosat_formal.report.files import REPORT_HTML, REPORT_MD
from twosat_formal.report.page import render_html
from twosat_formal.report.pairs import write_pairs
from twosat_formal.report.questions import write_questions
from twosat_formal.report.sections.duplication import write_duplication_tests
from twosat_formal.report.sections.edits import (
    write_edit_flips,
    write_edit_individual,
    write_edit_normalized,
    write_edit_operators,
    write_edit_proof_lengths,
    write_edit_retention,
)
from twosat_formal.report.sections.failures import write_failures
from twosat_formal.report.sections.figures import write_figures
from twosat_formal.report.sections.fillers import write_filler_tests
from twosat_formal.report.sections.knobs import write_knob_tests
from twosat_formal.report.sections.order import write_order_tests
from twosat_formal.report.sections.provenance import write_provenance
from twosat_formal.report.sections.readings import write_readings
from twosat_formal.report.sections.robustness import write_robustness
from twosat_formal.report.sections.satbias import write_sat_bias
from twosat_formal.report.sections.stories import write_stories
from twosat_formal.report.sections.summary import write_summary
from twosat_formal.report.sections.table1 import write_table1
from twosat_formal.report.sections.templates import write_templates
from twosat_formal.report.sections.truncation import write_truncation
from twosat_formal.report.strategies import write_strategies
from twosat_formal.report.traces import write_traces

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = [
    "BROWSER_SECTION",
    "DIAGNOSTICS_SECTION",
    "EDIT_SECTIONS",
    "PAIRS_SECTION",
    "SECTIONS",
    "STORY_SECTION",
    "STRATEGIES_SECTION",
    "TRACES_SECTION",
    "layout",
    "render_markdown",
    "write_report",
]

#: Each second-level section, in order, and what writes it from the content ("Figures"
#: is written from the figures drawn, :func:`write_figures`); every report has all of them.
_WRITERS: tuple[tuple[str, Callable[[ReportContent], list[Block]] | None], ...] = (
    ("Summary", write_summary),
    ("Table 1: decision accuracy and witness validity", write_table1),
    ("Strict and lenient answer reading", write_readings),
    ("Truncation (App. I)", write_truncation),
    ("SAT-prediction bias on UNSAT instances (App. J)", write_sat_bias),
    ("Knob tests across levels (Table 6, App. K)", write_knob_tests),
    ("Clause order: construction vs shuffled (§5.3)", write_order_tests),
    ("Filler clauses (§5.2)", write_filler_tests),
    ("Duplicated clauses (§5.4)", write_duplication_tests),
    ("Verbalization templates (§5.5)", write_templates),
    ("Failure kinds", write_failures),
    ("Robustness", write_robustness),
    ("Figures", None),
    ("Provenance", write_provenance),
)
#: Titles of the second-level sections, in order; every report has all of them.
SECTIONS = tuple(title for title, _ in _WRITERS)


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


#: The sections of :data:`EDIT_SECTIONS` and what writes each.
_EDIT_WRITERS: tuple[tuple[str, Callable[[ReportContent], list[Block]]], ...] = tuple(
    zip(
        EDIT_SECTIONS,
        (
            write_edit_normalized,
            write_edit_flips,
            write_edit_retention,
            write_edit_individual,
            write_edit_operators,
            write_edit_proof_lengths,
        ),
        strict=True,
    )
)


#: The sections shown before "Figures" when the content has their part: title, the
#: content's attribute and what writes the section.
_OPTIONAL_SECTIONS: tuple[tuple[str, str, Callable[[ReportContent], list[Block]]], ...] = (
    (PAIRS_SECTION, "pairs", write_pairs),
    (TRACES_SECTION, "traces", write_traces),
    (STRATEGIES_SECTION, "strategies", write_strategies),
    (DIAGNOSTICS_SECTION, "diagnostics", write_diagnostics),
    (QUESTIONS_SECTION, "questions", write_questions),
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
    figures: Sequence[Image],
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
    sections = [
        (title, write_figures(figures, absent) if write is None else write(content))
        for title, write in _WRITERS
    ]
    if content.stories is not None:
        _insert(
            sections, "Verbalization templates (§5.5)", [(STORY_SECTION, write_stories(content))], 1
        )
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
    figures: Sequence[Image],
    out_dir: Path,
    *,
    absent: Sequence[str] = (),
    browser: dict[str, Any] | None = None,
) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` into ``out_dir``; returns both paths.

    ``absent``: a line per figure not drawn; ``browser``: the item browser's data
    (:func:`twosat_formal.report.items.browser_data`), which adds its section.

    >>> import tempfile, pathlib
    >>> from twosat_formal.report.content import compute_content
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
