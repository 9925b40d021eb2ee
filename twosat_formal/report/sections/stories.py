"""The "LLM story verbalizer" section (:class:`StorySection`): validation rates beside
the paper's, stories against templates, success by story theme."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.evaluate.run import STORY_TEMPLATE_PREFIX
from twosat_formal.report.blocks import Block, Paragraph, Table
from twosat_formal.report.metrics import Estimate, Row, aggregate
from twosat_formal.report.sections.common import Curves, by_family, estimate_curve, story_theme
from twosat_formal.report.sections.format import (
    NO_DATA,
    captioned,
    format_ci,
    format_count_rate,
    format_pct,
    plain_cells,
)
from twosat_formal.verbalize.story.replies import ATTEMPT_OUTCOMES
from twosat_formal.verbalize.story.statistics import (
    PAPER_FALLBACK_RATE,
    PAPER_FIRST_ATTEMPT_RATE,
    StoryStatistics,
)
from twosat_formal.verbalize.story.themes import THEMES

if TYPE_CHECKING:
    from twosat_formal.report.content import ReportContent

__all__ = [
    "StorySection",
    "StoryThemeCell",
    "StoryVersusTemplate",
    "combine_story_counts",
    "story_section",
    "write_stories",
]


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
    for family, members in by_family(r for r in story_rows if r.get("family")):
        curves[family] = {
            f"{STORY_TEMPLATE_PREFIX}{theme}": estimate_curve(
                [r for r in members if story_theme(r) == theme],
                "clauses",
                method=method,
                seed=seed,
            )
            for theme in themes
            if any(story_theme(r) == theme for r in members)
        }
    return curves


def story_section(
    rows: Sequence[Row],
    counts: Mapping[str, Mapping[str, Any]],
    models: Sequence[str],
    *,
    method: str,
    seed: int,
) -> StorySection | None:
    """The LLM story verbalizer's section, or ``None`` without stories."""
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
                plain_cells(
                    "first-attempt validation rate",
                    format_count_rate(
                        stats.first_attempt, stats.llm_clauses, stats.first_attempt_rate
                    ),
                    format_pct(PAPER_FIRST_ATTEMPT_RATE),
                ),
                plain_cells(
                    "fallback rate",
                    format_count_rate(stats.fallbacks, stats.llm_clauses, stats.fallback_rate),
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
                    plain_cells(
                        theme,
                        str(t.stories),
                        str(t.llm_clauses),
                        format_count_rate(t.first_attempt, t.llm_clauses, t.first_attempt_rate),
                        format_count_rate(t.fallbacks, t.llm_clauses, t.fallback_rate),
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
        plain_cells(
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
    return captioned(
        "Accuracy by story theme (Figure 9): success (the decision on UNSAT, a valid "
        "witness on SAT) and its two parts, per model and theme, with 95% confidence "
        "intervals across formulas. A story witness maps each entity to its own true "
        "or false description. These rows also count in the sections above, as the "
        "verbalizations `story:<theme>`.",
        ["model", "theme", "samples", "success (%)", "Sat. (UNSAT) (%)", "Wit. (SAT) (%)"],
        rows,
    )


def _story_versus_blocks(section: StorySection) -> list[Block]:
    if not section.versus:
        return []
    themes = [t for t in section.themes if any(t in v.themes for v in section.versus.values())]
    rows = []
    for model, versus in section.versus.items():
        drop = versus.drop
        rows.append(
            plain_cells(
                model,
                format_ci(versus.template),
                *(format_ci(versus.themes[t]) if t in versus.themes else "—" for t in themes),
                format_ci(versus.story),
                "—" if drop is None else f"{100 * drop:+.1f}",
            )
        )
    return captioned(
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


def write_stories(content: ReportContent) -> list[Block]:
    """The "LLM story verbalizer" section."""
    section = content.stories
    if section is None:
        return [Paragraph(NO_DATA)]
    return [
        Paragraph(
            "A model tells each formula as a story, one clue per clause; two more calls read "
            "each clue back, a clue that does not give back its clause is written again up to "
            "three times, and then the programmatic fallback sentence takes its place."
        ),
        *_story_rates(section),
        *_story_versus_blocks(section),
        *_story_accuracy(section),
    ]
