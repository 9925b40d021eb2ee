"""``twosat-formal edit``: datasets and formula files in, edited datasets out; errors exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import input_file, run
from tests.support.edits import records
from twosat_formal.core.formula import Formula
from twosat_formal.io.instance import write_instances
from twosat_formal.make.edits import edit_steps, root_instance


@pytest.fixture
def formula_file(tmp_path: Path) -> Path:
    return input_file(tmp_path, "f.cnf", "p cnf 3 4\n1 2 0\n-1 2 0\n-2 3 0\n3 -1 0\n")


def test_cumulative_on_a_formula_file(
    formula_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["edit", str(formula_file), "--mode", "cumulative", "-k", "2"], capsys)
    assert code == 0
    found = records(out)
    base = found[0]
    assert base.family == "file" and base.base_id is None
    assert [len(edit_steps(r.transforms)) for r in found[1:]] == [1, 2][: len(found) - 1]
    assert all(r.label == base.label for r in found)
    assert err.startswith(f"wrote {len(found)} records: 1 instance,")


def test_individual_on_a_dataset_with_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.jsonl"
    bases = [root_instance(Formula([[1], [-1]])), root_instance(Formula([[1, 2], [-1, 2]]))]
    write_instances(bases, data)
    out = tmp_path / "edited.jsonl"
    argv = [
        "edit",
        str(data),
        "--mode",
        "individual",
        "--keep",
        "changing",
        "--max-edits",
        "2",
        "--seed",
        "3",
        "--no-base",
        "--out",
        str(out),
    ]
    code, stdout, err = run(argv, capsys)
    assert code == 0 and stdout == ""
    found = records(out.read_text(encoding="utf-8"))
    assert found and all(r.base_id in {b.id for b in bases} for r in found)
    labels = {b.id: b.label for b in bases}
    assert all(r.label != labels[r.base_id or ""] for r in found)
    assert f"to {out}" in err and "label-changing edit" in err
    # the same seed gives the same bytes
    again = tmp_path / "again.jsonl"
    argv[-1] = str(again)
    assert run(argv, capsys)[0] == 0
    assert again.read_bytes() == out.read_bytes()


def test_op_restricts_the_edits(formula_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["edit", str(formula_file), "--mode", "individual", "--op", "split", "--op", "drop"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    operators = {s["operator"] for r in records(out) for s in edit_steps(r.transforms)}
    assert operators and operators <= {"split", "drop"}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--mode", "cumulative", "--keep", "changing"], "error: cumulative edits are"),
        (["--mode", "individual", "--op", "swap"], "error: unknown edit 'swap'"),
    ],
)
def test_user_errors_exit_2(
    formula_file: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, _, err = run(["edit", str(formula_file), *extra], capsys)
    assert code == 2 and err.startswith(message) and "Traceback" not in err


def test_missing_file_and_bad_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["edit", str(tmp_path / "nope.cnf"), "--mode", "individual"], capsys)
    assert code == 2 and "no such file" in err
    code, _, _ = run(["edit", str(tmp_path / "nope.cnf"), "--mode", "sideways"], capsys)
    assert code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n', encoding="utf-8")
    code, _, err = run(["edit", str(bad), "--mode", "individual"], capsys)
    assert code == 2 and "missing field" in err
