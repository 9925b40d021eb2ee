"""``twosat-formal perturb`` and ``twosat-formal operators`` through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import input_file, run
from twosat_formal.certify import certify_file
from twosat_formal.core.formula import Formula
from twosat_formal.io import parse_dimacs, write_dimacs
from twosat_formal.io.instance import Instance
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb import OPERATORS, Chain, replay


@pytest.fixture
def formula_file(tmp_path: Path) -> Path:
    return input_file(
        tmp_path, "f.cnf", write_dimacs(Formula.from_named([["a", "~b"], ["b", "c"], ["~c", "~a"]]))
    )


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    insts = [
        generate("mono-bridge", clauses=10, seed=1),
        generate("implication-cycle", clauses=8, seed=2),
    ]
    path.write_text("".join(i.to_json() + "\n" for i in insts))
    return path


def test_perturb_a_formula_file(formula_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["perturb", str(formula_file), "--op", "rename", "--op", "filler"]
    code, out, _ = run([*argv, "--set", "names=fresh", "--set", "count=2", "--seed", "4"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert len(out.strip().splitlines()) == 1
    base, result = parse_dimacs(doc["base_dimacs"]), parse_dimacs(doc["dimacs"])
    assert base.names == ("a", "b", "c")
    chain = Chain.from_json(doc["transforms"])
    assert [t.operator for t in chain.steps] == ["rename", "filler"]
    assert chain.steps[0].params["names"] == "fresh"
    assert chain.steps[1].params["count"] == 2
    assert replay(base, chain.steps) == result
    assert (doc["num_vars"], doc["num_clauses"]) == (result.num_vars, 5)
    # the same seed gives the same bytes; the document certifies
    code, again, _ = run([*argv, "--set", "names=fresh", "--set", "count=2", "--seed", "4"], capsys)
    assert json.loads(again)["transforms"][0]["literal_map"] == doc["transforms"][0]["literal_map"]
    assert json.loads(again)["dimacs"] == doc["dimacs"]


def test_perturb_document_certifies(
    formula_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "doc.json"
    code, _, err = run(
        ["perturb", str(formula_file), "--op", "duplicate", "--op", "flip", "--out", str(out_path)],
        capsys,
    )
    assert code == 0 and "wrote" in err
    report = certify_file(out_path)
    assert report.ok and report.kinds == {"document": 1}
    doc = json.loads(out_path.read_text())
    doc["transforms"][1]["literal_map"][0][0] *= -1
    out_path.write_text(json.dumps(doc) + "\n")
    report = certify_file(out_path)
    assert [f.check for f in report.failures] == ["transform[2]:flip"]


def test_perturb_a_dataset(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "out.jsonl"
    argv = ["perturb", str(dataset), "--op", "reorder", "--op", "bridge-move"]
    code, _, err = run([*argv, "--set", "bridge-move.position=0", "--out", str(out_path)], capsys)
    # the implication-cycle instance has no bridge: bridge-move needs a clause there
    assert code == 2
    assert "instance implication-cycle-" in err and "needs the clause to move" in err
    code, _, _ = run(
        ["perturb", str(dataset), "--op", "reorder", "--op", "filler", "--out", str(out_path)],
        capsys,
    )
    assert code == 0
    lines = out_path.read_text().splitlines()
    assert len(lines) == 4
    records = [json.loads(line) for line in lines]
    roots, derived = records[:2], records[2:]
    for root, child in zip(roots, derived, strict=True):
        assert child["base_id"] == root["id"] and child["id"] != root["id"]
        assert child["label"] == root["label"]
        assert [t["operator"] for t in child["transforms"]] == ["reorder", "filler"]
        assert child["structure"]["base"] == root["structure"]
        Instance.from_record(child)
    assert certify_file(out_path).ok


def test_bridge_follows_the_chain(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = dataset.read_text().splitlines()[0]
    only_bridge = tmp_path / "bridge.jsonl"
    only_bridge.write_text(first + "\n")
    out_path = tmp_path / "moved.jsonl"
    code, _, _ = run(
        [
            "perturb",
            str(only_bridge),
            "--op",
            "reorder",
            "--op",
            "bridge-move",
            "--set",
            "2.relative=1.0",
            "--no-base",
            "--out",
            str(out_path),
        ],
        capsys,
    )
    assert code == 0
    (line,) = out_path.read_text().splitlines()
    moved = Instance.from_record(json.loads(line))
    root = Instance.from_record(json.loads(first))
    bridge = root.formula.clauses[root.structure["bridge"]["index"]]
    assert moved.formula.clauses[-1] == bridge
    assert moved.structure["bridge"]["index"] == moved.formula.num_clauses - 1
    assert certify_file(out_path).ok  # the root is regenerated from family, params, seed


def test_perturb_errors(formula_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["perturb", str(formula_file), "--op", "scramble"], capsys)
    assert code == 2 and "unknown operator 'scramble'" in err
    code, _, err = run(
        ["perturb", str(formula_file), "--op", "reorder", "--set", "count=3"], capsys
    )
    assert code == 2 and "no operator of the chain has a parameter 'count'" in err
    code, _, err = run(["perturb", str(formula_file), "--op", "filler", "--set", "count=x"], capsys)
    assert code == 2 and "invalid value 'x' for parameter 'count'" in err
    code, _, err = run(
        ["perturb", str(formula_file), "--op", "reorder", "--set", "3.order=x"], capsys
    )
    assert code == 2 and "step 3 of 1" in err
    code, _, err = run(["perturb", str(formula_file) + ".none", "--op", "reorder"], capsys)
    assert code == 2 and "no such file" in err
    code, _, err = run(["perturb", str(formula_file)], capsys)
    assert code == 2 and "--op" in err


def test_perturb_reads_stdin(
    formula_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO(formula_file.read_text()))
    code, out, _ = run(["perturb", "-", "--op", "reorder", "--set", "order=reversed"], capsys)
    assert code == 0
    assert json.loads(out)["source"] == "<stdin>"


def test_operators_lists_every_operator(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["operators"], capsys)
    assert code == 0
    for name, op in OPERATORS.items():
        assert f"{name}  [{op.relation}]" in out
        for p in op.params:
            assert p.name in out
    code, out, _ = run(["operators", "--json"], capsys)
    data = json.loads(out)
    assert [d["name"] for d in data] == OPERATORS.names()
    filler = next(d for d in data if d["name"] == "filler")
    assert [p["name"] for p in filler["params"]] == [
        "count",
        "over",
        "variables",
        "placement",
        "prefix",
    ]


def test_help_texts(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("perturb", "operators", "certify"):
        code, out, _ = run([command, "--help"], capsys)
        assert code == 0
        assert "Usage" in out
    code, out, _ = run(["perturb", "--help"], capsys)
    assert "--op" in out and "--set" in out and "--seed" in out and "--out" in out
