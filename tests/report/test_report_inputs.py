"""What a report refuses and accepts: checked flags, labels, levels, JSON Lines results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.report import result_row as row
from twosat_formal.cli import main
from twosat_formal.errors import RecordError
from twosat_formal.report import build_report
from twosat_formal.report.content import compute_content
from twosat_formal.report.metrics import check_row, join_instances
from twosat_formal.study.bench import run_bench

INSTANCES = {"a": {"id": "a", "label": "SAT", "family": "backbone", "num_clauses": 3}}


@pytest.mark.parametrize(
    "bad",
    [
        {"decision_correct": "NaN"},
        {"decision_correct": "true"},
        {"decision_correct": 2},
        {"decision_correct": 1.0},
        {"truncated": None},
        {"witness_valid": "NaN"},
        {"lenient_decision_correct": "yes"},
        {"failure": "wrong-decision"},  # with decision_correct true
        {"failure": "correct", "witness_valid": False},
        {"failure": "invalid-witness", "witness_valid": True},
        {"failure": "correct", "decision_correct": False},
    ],
)
def test_bad_rows_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(RecordError):
        check_row(row(**bad), 1)
    with pytest.raises(RecordError):
        join_instances([row(**bad)], INSTANCES)


def test_consistent_rows_pass() -> None:
    check_row(row())
    check_row(row(decision_correct=1, witness_valid=1, truncated=0))
    check_row(row(failure="invalid-witness", witness_valid=False))
    check_row(row(failure="truncated", decision_correct=False, truncated=True))
    check_row(row(label="UNSAT", decision="UNSAT", witness_valid=None))


def test_a_label_that_disagrees_with_the_dataset_is_refused() -> None:
    with pytest.raises(RecordError, match="certified dataset says 'SAT'"):
        join_instances([row(label="UNSAT", witness_valid=None)], INSTANCES)


@pytest.mark.parametrize("level", [float("nan"), float("inf"), "0.5", True])
def test_design_levels_must_be_finite_numbers(level: object) -> None:
    with pytest.raises(RecordError, match="level"):
        join_instances([row()], INSTANCES, design={"a": {"knob": "split", "level": level}})


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    run_bench(formulas=1, templates=["logic"], max_clauses=10, out_dir=out, make_report=False)
    return out


@pytest.mark.slow
def test_report_reads_the_json_lines_results_it_writes(bench_dir: Path, tmp_path: Path) -> None:
    from_store = json.loads(
        (build_report(bench_dir, tmp_path / "a").parent / "report.json").read_text()
    )
    from_jsonl = build_report(bench_dir / "results.jsonl", tmp_path / "b")
    data = json.loads((from_jsonl.parent / "report.json").read_text())
    assert data["table1"] == from_store["table1"]
    assert data["models"] == from_store["models"]
    assert data["summaries"] == from_store["summaries"]


def test_json_lines_without_their_dataset_are_refused_in_one_line(
    bench_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(bench_dir / "results.jsonl", alone / "results.jsonl")
    with pytest.raises(SystemExit) as info:
        main(["report", str(alone / "results.jsonl"), "--out", str(tmp_path / "r")])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "dataset.jsonl" in err and "run store" in err


@given(
    st.lists(st.sampled_from(["m1", "m2", "m3", None]), min_size=1, max_size=8),
    st.lists(st.sampled_from(["m1", "m2", "m4"]), unique=True, max_size=3),
)
def test_the_report_orders_models_as_asked_then_by_appearance(
    models: list[str | None], asked: list[str]
) -> None:
    rows = [row(model=m, family="backbone", num_clauses=3) for m in models]
    content = compute_content(rows, model_order=asked)
    seen = list(dict.fromkeys(m for m in models if m is not None))
    expected = [m for m in asked if m in seen] + [m for m in seen if m not in asked]
    assert content.models == expected
    assert [s.model for s in content.summaries] == expected


def _bad_results(bench_dir: Path, folder: Path, line: int, **change: object) -> Path:
    """The bench's results.jsonl beside its dataset, with a blank first line (so line
    numbers and row numbers differ) and ``change`` made to the row on ``line``."""
    folder.mkdir()
    shutil.copy(bench_dir / "dataset.jsonl", folder / "dataset.jsonl")
    rows = [json.loads(text) for text in (bench_dir / "results.jsonl").read_text().splitlines()]
    rows[line - 2].update(change)
    path = folder / "results.jsonl"
    path.write_text("\n" + "".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"decision_correct": "yes"}, "decision_correct is 'yes'"),
        ({"question_type": "foo"}, "question_type is 'foo', not one of decision, chain"),
        ({"question_type": 3}, "question_type is 3"),
        ({"failure": "correct", "decision_correct": False}, "failure 'correct' disagrees"),
    ],
)
def test_a_bad_result_row_is_named_by_its_file_and_line(
    bench_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: dict[str, object],
    says: str,
) -> None:
    path = _bad_results(bench_dir, tmp_path / "run", 4, **change)
    with pytest.raises(SystemExit) as info:
        main(["report", str(path), "--out", str(tmp_path / "r")])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"error: {path}:4: ") and says in err
