"""`report --bootstrap`: every interval of the report is the bootstrap's, the side run's,
the question types', the twins' and the traces' too, and the captions name it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from twosat_formal.report import build_report
from twosat_formal.study.bench import diagnostics_spec
from twosat_formal.study.experiments.runner import run_experiment


@pytest.fixture(scope="module")
def side_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with twins, chains, every question type and reasoning traces."""
    folder = tmp_path_factory.mktemp("interval") / "run"
    spec = diagnostics_spec(templates=["logic"], max_clauses=10)
    run_experiment(spec, ["ref/oracle", "ref/coin"], out_dir=folder, make_report=False)
    return folder


def estimates(value: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every estimate (a dict with ``mean`` and ``method``) of ``report.json``, with its
    top-level key."""
    if isinstance(value, dict):
        if "mean" in value and "method" in value:
            yield where, value
        for key, item in value.items():
            yield from estimates(item, where or key)
    elif isinstance(value, list):
        for item in value:
            yield from estimates(item, where)


@pytest.mark.slow
@pytest.mark.parametrize(("method", "name"), [("bootstrap", "percentile-bootstrap"), ("t", "t")])
def test_every_interval_follows_the_method_asked(
    side_run: Path, tmp_path: Path, method: str, name: str
) -> None:
    out = tmp_path / "report"
    build_report(side_run, out, method=method, seed=3, diagnostics=side_run)
    data = json.loads((out / "report.json").read_text())
    found = list(estimates(data))
    sections = {where for where, _ in found}
    assert {"questions", "diagnostics", "pairs", "traces", "summaries"} <= sections
    assert {e["method"] for _, e in found} == {method}, sorted(
        {(where, e["method"]) for where, e in found if e["method"] != method}
    )
    text = (out / "report.md").read_text()
    assert "Wilson" not in text
    assert f"95% {name} intervals" in text
    svg = (out / "figures" / "question-types.svg").read_text()
    assert f"95% {name} intervals" in svg and "Wilson" not in svg


@pytest.mark.slow
def test_the_wilson_default_is_unchanged(side_run: Path, tmp_path: Path) -> None:
    build_report(side_run, tmp_path / "a", diagnostics=side_run)
    data = json.loads((tmp_path / "a" / "report.json").read_text())
    assert {e["method"] for _, e in estimates(data)} == {"wilson"}
    assert "percentile-bootstrap" not in (tmp_path / "a" / "report.md").read_text()


@pytest.mark.parametrize(
    ("method", "full", "short"),
    [("wilson", "Wilson score", "Wilson"), ("t", "t-based", "t"),
     ("bootstrap", "percentile-bootstrap", "percentile-bootstrap")],
)  # fmt: skip
def test_the_summary_and_the_captions_name_the_method_from_one_table(
    method: str, full: str, short: str
) -> None:
    """The summary names the method in full, the other captions short, both from the
    method the estimates carry."""
    from twosat_formal.report.content import compute_content
    from twosat_formal.report.render import render_markdown
    from twosat_formal.report.sections.format import interval_name
    from twosat_formal.report.sections.summary import write_summary

    rows = [
        {"instance_id": f"i{i}", "model": "m", "label": "UNSAT", "decision": "UNSAT",
         "decision_correct": i % 2 == 0, "failure": "correct" if i % 2 == 0 else
         "wrong-decision", "family": "backbone", "template": "logic", "num_clauses": 10}
        for i in range(4)
    ]  # fmt: skip
    content = compute_content(rows, method=method, seed=1)
    assert f"with 95% {full} confidence intervals" in render_markdown(write_summary(content))
    estimates = [content.summaries[0].accuracy]
    assert interval_name(estimates) == short and interval_name(estimates, full=True) == full
