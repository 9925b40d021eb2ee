"""``twosat-formal families`` and ``twosat-formal generate`` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run
from twosat_formal.make.generators import FAMILIES, Dataset, DatasetConfig


def test_families_lists_knobs_ranges_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["families"], capsys)
    assert code == 0
    for name, family in FAMILIES.items():
        assert name in out
        for p in family.params:
            assert p.name in out
    assert "split" in out and "a number in [0, 1]" in out and "default 0.5" in out
    code, out, _ = run(["families", "--json"], capsys)
    data = json.loads(out)
    assert [fam["name"] for fam in data] == FAMILIES.names()


def test_generate_to_stdout_matches_the_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "backbone", "--clauses", "20", "--count", "3", "--seed", "5"]
    code, out, _ = run([*argv, "--set", "beta=0.2", "--set", "pi=1"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 3
    config = DatasetConfig("backbone", clauses=20, params={"beta": "0.2", "pi": "1"})
    assert lines == [inst.to_json() for inst in Dataset(config, seed=5, size=3)]
    record = json.loads(lines[0])
    assert record["params"]["beta"] == 0.2 and record["structure"]["orientation"] == "+"


def test_generate_to_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "ic.jsonl"
    code, out, err = run(
        [
            "generate",
            "implication-cycle",
            "--clauses",
            "12",
            "--count",
            "4",
            "--out",
            str(out_file),
        ],
        capsys,
    )
    assert code == 0 and out == ""
    assert "wrote 4 instances" in err
    records = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    assert [r["label"] for r in records] == ["UNSAT"] * 4
    assert all(r["num_clauses"] == 12 for r in records)


def test_generate_grids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "table1.jsonl"
    code, _, _ = run(
        ["generate", "--grid", "table1", "--count", "1", "--out", str(out_file), "--no-progress"],
        capsys,
    )
    assert code == 0
    records = [json.loads(line) for line in out_file.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 22
    assert {r["family"] for r in records} == set(FAMILIES.names()) - {"symmetry"}
    code, out, _ = run(
        ["generate", "mono-bridge", "--grid", "paper-3", "--clauses", "20", "--count", "1"], capsys
    )
    assert code == 0 and len(out.splitlines()) == 9


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["generate", "triangle"], "unknown family 'triangle'"),
        (["generate"], "name a family"),
        (["generate", "backbone", "--set", "beta"], "KEY=VALUE"),
        (["generate", "backbone", "--set", "beta=1.5"], "'beta'"),
        (["generate", "backbone", "--set", "gamma=1"], "has no parameter 'gamma'"),
        (["generate", "implication-cycle", "--clauses", "5", "--set", "L=9"], "L=9"),
        (["generate", "--grid", "paper-9"], "unknown grid"),
    ],
)
def test_user_errors_exit_2_with_one_line(
    argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and fragment in err
    assert len(err.strip().splitlines()) == 1
