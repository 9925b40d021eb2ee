"""``bench`` end to end, at a tiny size: files, certification, numbers, resume, CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pysat.solvers import Minisat22

from tests.support.brute import check_svg
from twosat_formal.certify import certify_files
from twosat_formal.cli import main
from twosat_formal.io.instance import read_instances
from twosat_formal.report.render import SECTIONS
from twosat_formal.study.bench import BENCH_MODELS, bench_spec, headline_table, run_bench
from twosat_formal.study.experiments.runner import ExperimentResult

TINY: dict[str, Any] = {"formulas": 1, "templates": ["logic", "team"], "max_clauses": 10}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> ExperimentResult:
    return run_bench(out_dir=tmp_path_factory.mktemp("bench") / "bench-report", **TINY)


@pytest.mark.slow
def test_bench_writes_every_artefact(bench: ExperimentResult) -> None:
    folder = bench.out_dir
    for name in (
        "report.md",
        "report.html",
        "report.json",
        "dataset.jsonl",
        "design.jsonl",
        "prompts.jsonl",
        "results.sqlite",
        "results.jsonl",
        "manifest.json",
    ):
        assert (folder / name).is_file(), name
    md = (folder / "report.md").read_text()
    for title in SECTIONS:
        assert f"## {title}" in md
    figures = sorted((folder / "figures").glob("*.svg"))
    assert figures
    for figure in figures:
        check_svg(figure)
    for figure in figures:
        assert f"figures/{figure.name}" in md


def test_bench_dataset_is_certified_and_labels_hold(bench: ExperimentResult) -> None:
    folder = bench.out_dir
    spec = bench_spec(**TINY)
    cells = sum(len(c["clauses"]) for c in spec.cells)
    instances = list(read_instances(folder / "dataset.jsonl"))
    assert len(instances) == cells == bench.instances
    prompts = read_jsonl(folder / "prompts.jsonl")
    assert len(prompts) == 2 * cells
    assert bench.certified["ok"] and bench.certified["records"] == 3 * cells
    assert certify_files([folder / "dataset.jsonl", folder / "prompts.jsonl"]).ok
    for instance in instances:  # labels re-checked by an independent solver
        with Minisat22(bootstrap_with=[list(c) for c in instance.formula.clauses]) as solver:
            assert solver.solve() == (instance.label == "SAT")


def test_bench_results_and_numbers(bench: ExperimentResult) -> None:
    folder = bench.out_dir
    rows = read_jsonl(folder / "results.jsonl")
    assert len(rows) == len(BENCH_MODELS) * bench.prompts
    assert {r["model"] for r in rows} == set(BENCH_MODELS)
    report = json.loads((folder / "report.json").read_text())
    summaries = {s["model"]: s for s in report["summaries"]}
    oracle = [r for r in rows if r["model"] == "ref/oracle"]
    assert all(r["failure"] == "correct" for r in oracle)
    assert summaries["ref/oracle"]["accuracy"]["mean"] == 1.0
    biased = [r for r in rows if r["model"] == "ref/sat-biased"]
    assert all(r["decision"] == "SAT" for r in biased)
    assert summaries["ref/sat-biased"]["sat_prediction"]["mean"] == 1.0
    assert summaries["ref/sat-biased"]["accuracy_unsat"]["mean"] == 0.0
    # One formula per cell: per-formula means equal the pooled share over its rows.
    for model, summary in summaries.items():
        mine = [r for r in rows if r["model"] == model]
        by_formula: dict[str, list[bool]] = {}
        for r in mine:
            by_formula.setdefault(r["instance_id"], []).append(bool(r["decision_correct"]))
        expected = sum(sum(v) / len(v) for v in by_formula.values()) / len(by_formula)
        assert summary["accuracy"]["mean"] == pytest.approx(expected)
        assert summary["accuracy"]["n"] == len(by_formula)
    families = {(r["family"], r["clauses"]) for r in report["table1"]}
    assert families == {(c["family"], n) for c in bench_spec(**TINY).cells for n in c["clauses"]}


def test_bench_manifest(bench: ExperimentResult) -> None:
    manifest = json.loads((bench.out_dir / "manifest.json").read_text())
    assert manifest["experiment"] == "table1"
    assert manifest["models"] == list(BENCH_MODELS)
    assert manifest["spec"]["formulas"] == 1 and manifest["seed"] == 0
    assert manifest["sampling"]["max_tokens"] == 32768 and manifest["sampling"]["samples"] == 1
    assert {"python-sat", "z3-solver", "twosat-formal"} <= set(manifest["solver_versions"])
    assert manifest["tool_version"]
    assert "git_revision" in manifest
    assert manifest["certified"]["ok"] is True
    # prompts of one text are asked once: the copies count as already stored
    evaluation = manifest["evaluation"]
    assert evaluation["planned"] == manifest["counts"]["requests"]
    assert evaluation["done"] + evaluation["skipped"] == evaluation["planned"]


@pytest.mark.slow
def test_bench_resumes_without_asking_again(bench: ExperimentResult) -> None:
    before = (bench.out_dir / "dataset.jsonl").read_bytes()
    again = run_bench(out_dir=bench.out_dir, **TINY)
    assert again.evaluation.done == 0
    assert again.evaluation.skipped == again.evaluation.planned == bench.evaluation.planned
    assert again.certified.get("reused") is True
    assert (bench.out_dir / "dataset.jsonl").read_bytes() == before
    rows = read_jsonl(bench.out_dir / "results.jsonl")
    assert len(rows) == len(BENCH_MODELS) * bench.prompts


def test_headline_table(bench: ExperimentResult) -> None:
    table = headline_table(bench.out_dir / "report.json")
    headers = [str(c.header) for c in table.columns]
    assert headers[:2] == ["generator", "|C|"]
    assert headers[2:4] == ["ref/oracle\nSat.", "ref/oracle\nWit."]
    assert table.row_count == sum(len(c["clauses"]) for c in bench_spec(**TINY).cells)


@pytest.mark.slow
def test_bench_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b"
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "bench",
                "--formulas",
                "1",
                "--max-clauses",
                "5",
                "--template",
                "logic",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
    assert exit_info.value.code == 0
    printed = capsys.readouterr().out
    assert "ref/oracle" in printed and "Sat." in printed and "implication-cycle" in printed
    assert f"report     {out / 'report.md'}" in printed
    assert (out / "report.html").is_file()
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--formulas", "1", "--full", "--out", str(out)])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_bench_reports_twins_and_chains_of_the_reference_reasoners(
    bench: ExperimentResult,
) -> None:
    from twosat_formal.report.render import DIAGNOSTICS_SECTION

    side = bench.out_dir / "diagnostics"
    records = read_jsonl(side / "dataset.jsonl")
    twins = [r for r in records if "twin_of" in r]
    assert twins and all(
        r["label"] != next(s["label"] for s in records if s["id"] == r["twin_of"]) for r in twins
    )
    prompts = read_jsonl(side / "prompts.jsonl")
    decisions = [p for p in prompts if "ask" not in p]  # the other question types beside
    assert decisions and all(p.get("ask_cycle") is True for p in decisions)
    assert {p["ask"] for p in prompts if "ask" in p} == {
        "forced",
        "entails",
        "core",
        "repair",
        "maxsat",
    }
    assert certify_files([side / "dataset.jsonl", side / "prompts.jsonl"]).ok
    assert f"## {DIAGNOSTICS_SECTION}" in (bench.out_dir / "report.md").read_text()
    rows = {
        r["model"]: r
        for r in json.loads((bench.out_dir / "report.json").read_text())["diagnostics"]
    }
    assert set(rows) == set(BENCH_MODELS)
    oracle = rows["ref/oracle"]
    assert oracle["pairs"] == len(twins) * 2  # two templates
    assert oracle["pair_accuracy"]["mean"] == 1.0 and oracle["pair_consistency"]["mean"] == 1.0
    assert oracle["wit_unsat"]["mean"] == 1.0
    assert rows["ref/sat-biased"]["wit_unsat"]["mean"] == 0.0
    # the bench shows the question types of the side run: the oracle answers every one
    questions = json.loads((bench.out_dir / "report.json").read_text())["questions"]
    assert {r["model"] for r in questions} == set(BENCH_MODELS)
    assert all(r["accuracy"]["mean"] == 1.0 for r in questions if r["model"] == "ref/oracle")
    assert "## Question types" in (bench.out_dir / "report.md").read_text()


@pytest.mark.slow
def test_report_of_a_bench_folder_is_the_report_bench_wrote(
    bench: ExperimentResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`report bench-report --out DIR` reads the side run in `diagnostics/` as `bench`
    did: the same report, the same report.json and the same figures, byte for byte."""
    with pytest.raises(SystemExit) as info:
        main(["report", str(bench.out_dir), "--out", str(tmp_path / "again")])
    assert info.value.code == 0
    capsys.readouterr()
    for name in ("report.md", "report.json"):
        assert (tmp_path / "again" / name).read_bytes() == (bench.out_dir / name).read_bytes()
    figures = sorted(p.name for p in (bench.out_dir / "figures").iterdir())
    assert figures == sorted(p.name for p in (tmp_path / "again" / "figures").iterdir())
    assert "question-types.svg" in figures and "pair-consistency.svg" in figures
    for name in figures:
        again = (tmp_path / "again" / "figures" / name).read_bytes()
        assert again == (bench.out_dir / "figures" / name).read_bytes()
