"""The study commands through the CLI entry point: report, experiments, run-experiment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.brute import check_svg
from tests.support.cli import run
from twosat_formal.report.render import SECTIONS
from twosat_formal.study.experiments.spec import load_spec, spec_names


def test_experiments_lists_every_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["experiments"], capsys)
    assert code == 0
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert names == spec_names()  # the shipped protocols, listed in tests/study/test_experiments.py
    assert "§5.3" in out and "10 formulas per setting x 6 templates" in out
    assert "Figure 9" in out and "x 6 templates + 3 story themes" in out


def test_user_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["report", str(tmp_path / "missing"), "--out", str(tmp_path)], capsys)
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    code, _, err = run(
        ["run-experiment", "table9", "--model", "ref/oracle", "--out", str(tmp_path)], capsys
    )
    assert code == 2 and "unknown experiment 'table9'" in err
    code, _, err = run(
        [
            "run-experiment",
            "order",
            "--model",
            "ref/none",
            "--formulas",
            "1",
            "--template",
            "logic",
            "--out",
            str(tmp_path / "x"),
            "--no-progress",
        ],
        capsys,
    )
    assert code == 2 and err.startswith("error: ")
    not_a_store = tmp_path / "plain.sqlite"
    not_a_store.write_text("hello")
    code, _, err = run(["report", str(not_a_store), "--out", str(tmp_path / "r")], capsys)
    assert code == 2 and "not a run store" in err


@pytest.mark.slow
def test_run_experiment_then_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = load_spec("order").to_json()
    spec.update(
        name="order-small",
        formulas=2,
        templates=["logic"],
        cells=[{"family": "backbone", "clauses": [12]}],
    )
    spec_path = tmp_path / "order-small.json"
    spec_path.write_text(json.dumps(spec))
    folder = tmp_path / "run"
    code, out, err = run(
        [
            "run-experiment",
            str(spec_path),
            "--model",
            "ref/oracle",
            "--model",
            "ref/coin",
            "--out",
            str(folder),
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0, err
    assert "experiment order-small" in out and "instances  4, prompts 4" in out
    assert "generate" in err and "certify" in err  # stage messages go to stderr
    design = [json.loads(line) for line in (folder / "design.jsonl").read_text().splitlines()]
    assert sorted(d["arm"] for d in design) == ["construction"] * 2 + ["shuffled"] * 2
    data = json.loads((folder / "report.json").read_text())
    (order_test,) = data["order_tests"]
    # the unit is the formula (2 of them), each averaged over the 2 models
    assert order_test["test"] == "paired t-test" and order_test["n"] == 2
    assert order_test["unit"] == "formula" and order_test["models"] == 2
    for summary in data["summaries"]:
        assert summary["flips"]["pairs"] == 2  # each shuffled formula against its base

    report_dir = tmp_path / "again"
    code, out, _ = run(["report", str(folder), "--out", str(report_dir), "--bootstrap"], capsys)
    assert code == 0 and "report.md" in out
    md = (report_dir / "report.md").read_text()
    for title in SECTIONS:
        assert f"## {title}" in md
    assert "| paired t-test | 2 formulas |" in md
    again = json.loads((report_dir / "report.json").read_text())
    assert again["summaries"][0]["accuracy"]["method"] == "bootstrap"
    check_svg(report_dir / "figures" / "order.svg")
