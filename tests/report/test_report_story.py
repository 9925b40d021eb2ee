"""The report's "LLM story verbalizer" section: validation rates beside the paper's, and
accuracy by story theme; reports without stories stay exactly as they were.

Story records come from the story verbalizer talking to the scripted loopback server of
:mod:`story_support`; answers to story prompts are written by hand here. Expected
rates are counted from the records' clues in this file.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import check_svg, first_model
from tests.support.report import result_row
from tests.support.story import story_record
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models.base import Response, SamplingParams
from twosat_formal.evaluate.run import EvalItem, StoryPrompt, run_eval, story_counts
from twosat_formal.evaluate.store import RunStore
from twosat_formal.io.instance import Instance
from twosat_formal.report import build_report, content_to_json
from twosat_formal.report.blocks import Heading
from twosat_formal.report.content import compute_content
from twosat_formal.report.render import EDIT_SECTIONS, SECTIONS, STORY_SECTION, layout
from twosat_formal.report.sections.stories import combine_story_counts
from twosat_formal.verbalize.story import THEMES, StoryRecord, story_statistics, write_stories
from twosat_formal.verbalize.story.generator import StoryItem

FORMULAS = {
    "heist-sat": Formula.from_named([["a", "~b"], ["b", "c"], ["~c", "d"]]),
    "heist-unsat": Formula.from_named([["x", "y"], ["~x", "y"], ["x", "~y"], ["~x", "~y"]]),
    "detective-sat": Formula.from_named([["p", "q"], ["~p", "r"], ["~q", "~r"], ["p", "r"]]),
}
# detective: clause 1 validates on its second attempt, clause 3 falls back
KINDS: dict[str, dict[tuple[int, int], str]] = {
    "heist-sat": {},
    "heist-unsat": {},
    "detective-sat": {
        (1, 0): "wrong-polarity",
        (3, 0): "wrong-entity",
        (3, 1): "garble-entities",
        (3, 2): "wrong-polarity",
    },
}


def brute_model(formula: Formula) -> dict[str, bool] | None:
    bits = first_model(formula.clauses, formula.num_vars)
    return None if bits is None else dict(zip(formula.names, bits, strict=True))


def tell(key: str) -> StoryRecord:
    theme = key.split("-")[0]
    formula = FORMULAS[key]
    label = "SAT" if brute_model(formula) is not None else "UNSAT"
    return story_record(StoryItem(key, formula, label), theme, KINDS[key], seed=2)


STORIES = {key: tell(key) for key in FORMULAS}


def counted(records: Sequence[StoryRecord]) -> tuple[int, int, int]:
    """(validated-loop clauses, accepted on attempt 1, fallbacks), from the clues."""
    llm = [c for r in records for c in r.clues if c.mode == "llm"]
    first = sum(1 for c in llm if c.attempts[0].outcome == "valid")
    return len(llm), first, sum(1 for c in llm if c.text != c.attempts[-1].text)


def answer(record: StoryRecord, formula: Formula, *, right: bool) -> str:
    """A hand-written answer: the true one, or the opposite decision."""
    model = brute_model(formula)
    if (model is None) == right:
        return "The clues contradict each other.\n\nThe answer is: No"
    values = model or dict.fromkeys(formula.names, True)
    witness = {}
    for entity, variable in record.entities.items():
        true, false = THEMES.get(record.theme).describe(entity)
        witness[entity] = true if values[variable] else false
    return json.dumps(witness, indent=2) + "\n\nThe answer is: Yes"


class ByHand:
    """A fake model: right on heist stories, wrong on detective ones."""

    spec, endpoint = "test/by-hand", "local"

    def __init__(self, answers: Mapping[str, str]) -> None:
        self.answers = answers

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        return Response(self.answers[prompt], "stop")

    async def aclose(self) -> None:
        pass


def items() -> list[EvalItem]:
    out = []
    for key, formula in FORMULAS.items():
        label = "SAT" if brute_model(formula) is not None else "UNSAT"
        instance = Instance(key, "backbone", {}, 0, formula, label, {}, {}, {})
        out.append(
            EvalItem(StoryPrompt.from_story(STORIES[key]), formula, label, instance.to_record())
        )
    return out


def evaluate_into(store_path: Path, times: int = 1) -> None:
    answers = {
        STORIES[k].text: answer(STORIES[k], f, right=k.startswith("heist"))
        for k, f in FORMULAS.items()
    }
    with RunStore(store_path) as store:
        for _ in range(times):
            asyncio.run(run_eval([ByHand(answers)], items(), store))


def section_text(markdown: str) -> str:
    start = markdown.index(f"## {STORY_SECTION}\n")
    end = markdown.index("\n## ", start + 3)
    return markdown[start:end]


# -- reports with stories ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("story-report")
    evaluate_into(folder / "runs.sqlite", times=2)  # the second run asks nothing again
    build_report(folder / "runs.sqlite", folder / "out")
    return folder / "out"


def test_the_section_shows_our_rates_beside_the_papers(report_dir: Path) -> None:
    text = section_text((report_dir / "report.md").read_text(encoding="utf-8"))
    llm, first, fallbacks = counted(list(STORIES.values()))
    assert (llm, first, fallbacks) == (11, 9, 1)  # the scripted kinds, counted by hand
    assert (
        f"| first-attempt validation rate | {100 * first / llm:.1f} ({first}/{llm}) | 95.4 |"
        in (text)
    )
    assert f"| fallback rate | {100 * fallbacks / llm:.1f} ({fallbacks}/{llm}) | 3.3 |" in text
    assert "3 stories, 11 clauses (11 through validation, 0 written directly)" in text
    # per theme: detective 3 of 4 on the first attempt and one fallback, heist all first
    assert "| detective | 1 | 4 | 50.0 (2/4) | 25.0 (1/4) |" in text
    assert "| heist | 2 | 7 | 100.0 (7/7) | 0.0 (0/7) |" in text
    assert "Note: 9.1% of the clauses that went through validation use the fallback" in text


def test_accuracy_by_theme_in_the_report_and_its_json(report_dir: Path) -> None:
    text = section_text((report_dir / "report.md").read_text(encoding="utf-8"))
    # Wilson score intervals: not empty at 0 % and 100 %, even for one formula
    assert (
        "| test/by-hand | detective | 1 | 0.0 [0.0, 79.3] (n=1) | — | 0.0 [0.0, 79.3] (n=1) |"
        in (text)
    )
    assert (
        "| test/by-hand | heist | 2 | 100.0 [34.2, 100.0] (n=2) | 100.0 [20.7, 100.0] (n=1) |"
        in (text)
    )
    data = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    stories = data["stories"]
    assert stories["themes"] == ["detective", "heist"]
    assert stories["paper_first_attempt_rate"] == 0.954 and stories["paper_fallback_rate"] == 0.033
    assert stories["statistics"]["first_attempt_rate"] == pytest.approx(9 / 11)
    assert stories["statistics"]["stories"] == 3  # two runs, each story counted once
    cells = stories["accuracy_by_theme"]["test/by-hand"]
    assert cells["heist"]["success"]["mean"] == 1.0 and cells["detective"]["success"]["mean"] == 0.0
    assert cells["heist"]["samples"] == 2
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    assert f">{STORY_SECTION}</h2>" in html


def test_the_figure_9_panel_is_drawn(report_dir: Path) -> None:
    figure = report_dir / "figures" / "accuracy-by-story-theme.svg"
    check_svg(figure)
    assert "accuracy-by-story-theme.svg" in (report_dir / "report.md").read_text(encoding="utf-8")


def test_the_story_section_comes_after_the_templates_and_before_the_edits() -> None:
    rows = [
        {
            "instance_id": "i",
            "model": "m",
            "template": "story:spy",
            "sample": 0,
            "label": "UNSAT",
            "decision": "UNSAT",
            "decision_correct": True,
            "witness_valid": None,
            "failure": "correct",
            "truncated": False,
            "family": "backbone",
            "num_clauses": 4,
        }
    ]
    content = compute_content(rows)
    assert content.stories is not None and content.stories.statistics is None
    content.edits = []
    titles = [b.text for b in layout(content, []) if isinstance(b, Heading) and b.level == 2]
    at = SECTIONS.index("Verbalization templates (§5.5)") + 1
    expected = list(SECTIONS)
    expected.insert(at, STORY_SECTION)
    robustness = expected.index("Robustness") + 1
    expected[robustness:robustness] = EDIT_SECTIONS
    assert titles == expected
    markdown = "\n".join(
        b.text for b in layout(content, []) if not isinstance(b, Heading) and hasattr(b, "text")
    )
    assert "No story records found, so no validation rates" in markdown


def test_a_folder_with_story_records_and_no_story_answers(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    RunStore(folder / "results.sqlite").close()
    write_stories([STORIES["heist-sat"], STORIES["heist-unsat"]], folder / "stories.jsonl")
    build_report(folder, tmp_path / "out")
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    text = section_text(markdown)
    assert "| first-attempt validation rate | 100.0 (7/7) | 95.4 |" in text
    assert "| fallback rate | 0.0 (0/7) | 3.3 |" in text
    assert "No answers to story prompts in this run." in text
    assert "Note:" not in text  # no more fallbacks than the paper: nothing to warn about
    assert not (tmp_path / "out" / "figures" / "accuracy-by-story-theme.svg").exists()


# -- reports without stories -------------------------------------------------------------------


def test_a_report_without_stories_is_unchanged(tmp_path: Path) -> None:
    rows = [
        result_row(
            instance_id=f"i{j}",
            model="ref/oracle",
            template="logic",
            sample=0,
            family="backbone",
            num_clauses=20,
        )
        for j in range(3)
    ]
    content = compute_content(rows)
    assert content.stories is None
    titles = [b.text for b in layout(content, []) if isinstance(b, Heading) and b.level == 2]
    assert titles == list(SECTIONS)
    assert "stories" not in content_to_json(content, [])
    assert compute_content(rows, stories={}).stories is None
    # a store of template answers only
    store_path = tmp_path / "runs.sqlite"
    RunStore(store_path).close()
    build_report(store_path, tmp_path / "out")
    assert STORY_SECTION not in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "stories" not in json.loads((tmp_path / "out" / "report.json").read_text())


# -- counts add up ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(STORIES)), max_size=6))
def test_counts_of_distinct_stories_add_up_to_their_statistics(keys: list[str]) -> None:
    records = [STORIES[k] for k in keys]
    distinct = list({r.id: r for r in records}.values())
    combined = combine_story_counts(story_counts(records).values())
    assert combined == story_statistics(distinct)
    llm, first, fallbacks = counted(distinct)
    assert (combined.llm_clauses, combined.first_attempt, combined.fallbacks) == (
        llm,
        first,
        fallbacks,
    )


def test_bad_counts_in_a_run_info_are_ignored_not_fatal() -> None:
    entry: dict[str, Any] = {"theme": "spy", "stories": 1, "llm_clauses": "many", "outcomes": 3}
    stats = combine_story_counts([entry])
    assert (stats.stories, stats.llm_clauses, stats.first_attempt_rate) == (1, 0, None)
