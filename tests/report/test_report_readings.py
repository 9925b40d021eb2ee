"""The report shows the strict and the lenient answer readings side by side."""

from __future__ import annotations

from pathlib import Path

from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.scoring import PromptView, score
from twosat_formal.evaluate.store import EXPORT_COLUMNS, PromptRow, ResultRow, RunStore
from twosat_formal.report.content import compute_content
from twosat_formal.report.metrics import aggregate
from twosat_formal.report.render import SECTIONS, layout, render_markdown

FORMULA = Formula.from_named([["x1", "x2"]])
PROMPT = PromptView({"A": "x1", "B": "x2"}, "true", "false")
WITNESS = '{"A": "true", "B": "false"}\n'
# (answer text, strict failure, lenient failure) for a SAT instance
ANSWERS = [
    (WITNESS + "The answer is: Yes", "correct", "correct"),
    (WITNESS + "So the answer is yes, clearly.", "no-answer", "correct"),
    (WITNESS + "The answer is: Yes\nWait, B must be true.", "no-answer", "correct"),
    ("The answer is: No", "wrong-decision", "wrong-decision"),
]


def rows() -> list[dict[str, object]]:
    out = []
    for index, (text, strict, lenient) in enumerate(ANSWERS):
        judgement = score(Response(text), PROMPT, FORMULA, "SAT")
        assert (judgement.failure, judgement.lenient_failure) == (strict, lenient)
        out.append(
            {
                "instance_id": f"i{index}",
                "model": "m",
                "template": "logic",
                "sample": 0,
                "family": "backbone",
                "num_clauses": 1,
                **judgement.to_dict(),
            }
        )
    return out


def test_lenient_metrics_read_the_lenient_columns() -> None:
    data = rows()
    assert aggregate(data, "success").mean == 0.25
    assert aggregate(data, "lenient_success").mean == 0.75
    assert aggregate(data, "lenient_accuracy").mean == 0.75
    (summary,) = compute_content(data).summaries
    assert (summary.success.mean, summary.lenient_success.mean, summary.forgiven) == (
        0.25,
        0.75,
        2,
    )


def test_the_readings_section_shows_both(tmp_path: Path) -> None:
    store_path = tmp_path / "runs.sqlite"
    with RunStore(store_path) as store:
        run = store.start_run({})
        for index, (text, _, _) in enumerate(ANSWERS):
            judgement = score(Response(text), PROMPT, FORMULA, "SAT")
            prompt = PromptRow(f"p{index}", f"i{index}", "logic", "SAT", text + "?", {"A": "x1"})
            store.add_prompts([prompt])
            store.put(
                ResultRow(
                    model="m",
                    endpoint="",
                    prompt_hash=prompt.prompt_hash,
                    prompt_id=prompt.prompt_id,
                    params="{}",
                    sample=0,
                    run_id=run,
                    response=Response(text),
                    judgement=judgement,
                )
            )
    with RunStore(store_path, readonly=True) as store:
        exported = list(store.export_rows())
    assert all(tuple(row) == EXPORT_COLUMNS for row in exported)
    assert sum(row["lenient_decision_correct"] for row in exported) == 3
    assert sum(row["decision_correct"] for row in exported) == 1
    markdown = render_markdown(layout(compute_content(rows()), []))
    assert "## Strict and lenient answer reading" in markdown
    section = markdown.split("## Strict and lenient answer reading")[1].split("\n## ")[0]
    line = next(line for line in section.splitlines() if line.startswith("| m "))
    assert "25.0" in line and "75.0" in line and "2 of 4" in line
    assert "Strict and lenient answer reading" in SECTIONS
