"""The formats end to end: generate → verbalize → certify → eval with reference reasoners.

The prompts of ``math``, ``math-latex``, ``dimacs`` and ``dual-story`` certify, a tampered
one fails ``certify`` naming its record, and the reference reasoners read them as the
same formulas as the ``logic`` prompts of the same instances: the oracle is right on
every one, and the deterministic reasoners fail exactly where they fail on ``logic``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.verbalize.test_verbalize_formats import FLIPS
from twosat_formal.evaluate.store import RunStore
from twosat_formal.verbalize import FORMATS

NAMES = list(FORMATS)


def tamper(name: str, text: str) -> str:
    """``text`` with the first literal of its first clause line negated."""
    lines = text.split("\n")
    row = 2 if name == "dimacs" else 1  # the DIMACS header holds no literal
    pattern, flip = FLIPS[name]
    spot = re.search(pattern, lines[row])
    assert spot is not None
    lines[row] = lines[row][: spot.start()] + flip(spot.group()) + lines[row][spot.end() :]
    return "\n".join(lines)


def make_inputs(capsys: pytest.CaptureFixture[str], folder: Path, *extra: str) -> tuple[Path, Path]:
    """A dataset of SAT and UNSAT instances and its prompts in the formats and ``logic``
    (``extra``: more options of ``verbalize``)."""
    parts = []
    for family, seed in (("backbone", 1), ("implication-cycle", 2), ("equivalence-core", 3)):
        out = folder / f"{family}.jsonl"
        argv = ["generate", family, "--clauses", "9", "--count", "2", "--seed", str(seed)]
        code, _, err = cli(capsys, *argv, "-o", str(out), "--no-progress")
        assert code == 0, err
        parts.append(out.read_text(encoding="utf-8"))
    dataset = folder / "d.jsonl"
    dataset.write_text("".join(parts), encoding="utf-8")
    texts = []
    for name in [*NAMES, "logic"]:
        out = folder / f"p-{name}.jsonl"
        argv = ["verbalize", str(dataset), "--template", name, "-o", str(out), *extra]
        code, _, err = cli(capsys, *argv)
        assert code == 0, err
        texts.append(out.read_text(encoding="utf-8"))
    prompts = folder / "p.jsonl"
    prompts.write_text("".join(texts), encoding="utf-8")
    return dataset, prompts


def test_format_prompts_certify_and_tampered_ones_fail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset, prompts = make_inputs(capsys, tmp_path)
    code, out, err = cli(capsys, "certify", str(dataset), str(prompts))
    assert code == 0, out + err
    records = [json.loads(line) for line in prompts.read_text(encoding="utf-8").splitlines()]
    assert {r["template"] for r in records} == {*NAMES, "logic"}
    for name in NAMES:
        index = next(i for i, r in enumerate(records) if r["template"] == name)
        bad = [dict(r) for r in records]
        bad[index]["text"] = tamper(name, records[index]["text"])
        path = tmp_path / f"bad-{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in bad), encoding="utf-8")
        code, out, err = cli(capsys, "certify", str(dataset), str(path))
        assert code == 1, out + err
        assert f"{path.name}:{index + 1} {records[index]['id']}" in out
        assert "failed records │" in out and "FAIL" in out


def test_reference_reasoners_read_the_formats_as_the_logic_prompts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset, prompts = make_inputs(capsys, tmp_path)
    store = tmp_path / "runs.sqlite"
    models = ["ref/oracle", "ref/sat-biased", "ref/bounded?budget=4", "ref/coin"]
    argv = ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store)]
    argv += [arg for model in models for arg in ("-m", model)]
    code, out, err = cli(capsys, *argv, "--no-progress", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["done"] == summary["planned"] == 4 * 6 * (len(NAMES) + 1)
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.export_rows())
    outcome = {(r["model"], r["template"], r["instance_id"]): r["failure"] for r in rows}
    labels = {r["label"] for r in rows}
    assert labels == {"SAT", "UNSAT"}
    for (model, template, instance), failure in outcome.items():
        if model == "ref/oracle":
            assert failure == "correct", (template, instance)
        elif model != "ref/coin":  # coin draws from the prompt text: no template agrees
            assert failure == outcome[(model, "logic", instance)], (model, template, instance)
    # the biased reasoners do fail somewhere, so the agreement above is not vacuous
    assert any(f != "correct" for (m, t, _), f in outcome.items() if m == "ref/sat-biased")


def test_the_oracle_chains_are_valid_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset, prompts = make_inputs(capsys, tmp_path, "--ask-cycle")
    store = tmp_path / "runs.sqlite"
    argv = ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store)]
    code, _, err = cli(capsys, *argv, "-m", "ref/oracle", "--no-progress")
    assert code == 0, err
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.export_rows())
    unsat = [r for r in rows if r["label"] == "UNSAT"]
    assert {r["template"] for r in unsat} == {*NAMES, "logic"}
    assert all(r["failure"] == "correct" and r["cycle_valid"] is True for r in unsat)


@pytest.mark.slow
def test_the_verbalization_experiment_reports_the_formats(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "exp"
    argv = ["run-experiment", "verbalization", "--formulas", "1", "--out", str(out)]
    argv += ["--model", "ref/oracle", "--model", "ref/sat-biased"]
    argv += [arg for name in NAMES for arg in ("--template", name)]
    code, _, err = cli(capsys, *argv)
    assert code == 0, err
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert sorted(report["templates"]) == sorted(NAMES)
    table = report["template_table"]
    assert all(table["ref/oracle"][name]["mean"] == 1.0 for name in NAMES)
    assert all(table["ref/sat-biased"][name]["mean"] < 1.0 for name in NAMES)
    assert "| model | " in (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("line", "message"),
    [("(x₂ ∨ x3)", "3:1: 'x3' is not written as sympy prints it"), ("(x₂ ∨ x₃)", "")],
)
def test_backparse_of_a_format_text_on_the_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, line: str, message: str
) -> None:
    text = "Consider this propositional formula:\n(x₁ ∨ ¬x₂) ∧\n" + line + "\n\n"
    text += "Is there an assignment of truth values to the variables that makes the formula true?\n"
    path = tmp_path / "p.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = cli(capsys, "backparse", str(path))
    if message:
        assert code == 2 and err == f"error: {path}:{message}\n" and out == ""
    else:
        assert code == 0 and out == "x1 | ~x2\nx2 | x3\n", err
