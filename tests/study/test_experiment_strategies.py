"""``run-experiment edits --strategy cot --strategy sample-k``: strategies compared per
model on the edit metrics, checked against a recomputation written here (votes
included) from ``results.jsonl`` and ``dataset.jsonl``."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.study.test_experiment_edits import by_hand, check_report_json, read
from twosat_formal.cli import main

MODELS = ["ref/oracle", "ref/coin"]
#: As given on the command line, and as recorded (``sample-k`` is ``sample-k:5``).
GIVEN = ["cot", "sample-k"]
STRATEGIES = ["cot", "sample-k:5"]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("edits") / "run"
    argv = ["run-experiment", "edits", "--formulas", "1", "--template", "logic"]
    argv += [a for m in MODELS for a in ("--model", m)]
    argv += [a for s in GIVEN for a in ("--strategy", s)]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(folder), "--no-progress"])
    assert exit_info.value.code in (0, None)
    return folder


def voted_by_hand(rows: Sequence[Mapping[str, Any]], k: int) -> list[dict[str, Any]]:
    """Majority votes of ``k`` consecutive samples; the first sample of the winning
    decision stands for the vote, a tie is no decision and wrong."""
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for row in rows:
        key = (row["model"], row["instance_id"], row["template"], row["sample"] // k)
        groups.setdefault(key, []).append(row)
    out = []
    for key, samples in groups.items():
        samples = sorted(samples, key=lambda r: r["sample"])
        counts = Counter(r["decision"] for r in samples if r["decision"] is not None)
        top = counts.most_common()
        if len(top) > 1 and top[0][1] == top[1][1]:
            out.append(
                {**samples[0], "decision": None, "decision_correct": False, "sample": key[3]}
            )
        else:
            won = next(r for r in samples if not top or r["decision"] == top[0][0])
            out.append({**won, "sample": key[3]})
    return out


def test_strategies_are_recorded_and_counted(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["strategies"] == STRATEGIES
    prompts = manifest["counts"]["prompts"]
    assert manifest["counts"]["requests"] == prompts * len(MODELS) * (1 + 5)
    # prompts of one text are asked once: the copies count as already stored
    evaluation = manifest["evaluation"]
    assert evaluation["planned"] == manifest["counts"]["requests"]
    assert evaluation["done"] + evaluation["skipped"] == evaluation["planned"]
    rows = read(run_dir, "results.jsonl")
    assert Counter((r["model"], r["strategy"]) for r in rows) == {
        (m, s): prompts * n for m in MODELS for s, n in (("cot", 1), ("sample-k:5", 5))
    }


def test_the_report_compares_strategies_per_model_on_the_edit_metrics(run_dir: Path) -> None:
    dataset = {r["id"]: r for r in read(run_dir, "dataset.jsonl")}
    rows = [
        {**row, "transforms": dataset[row["instance_id"]]["transforms"]}
        for row in read(run_dir, "results.jsonl")
    ]
    arms: list[dict[str, Any]] = []
    for model in MODELS:
        mine = [r for r in rows if r["model"] == model]
        arms += [{**r, "model": f"{model} [cot]"} for r in mine if r["strategy"] == "cot"]
        voted = voted_by_hand([r for r in mine if r["strategy"] == "sample-k:5"], 5)
        arms += [{**r, "model": f"{model} [sample-k:5]"} for r in voted]
    labels = {i: r["label"] for i, r in dataset.items()}
    expected = by_hand(arms, labels)
    assert set(expected) == {f"{m} [{s}]" for m in MODELS for s in STRATEGIES}
    data = json.loads((run_dir / "report.json").read_text())
    check_report_json(data, expected)
    md = (run_dir / "report.md").read_text()
    for arm in expected:
        assert f"| {arm} |" in md
    # the strategy section: answers (votes), accuracy and ties per model and strategy
    assert "## Reasoning strategies and reasoning quality" in md
    reported = {(s["model"], s["strategy"]): s for s in data["strategies"]}
    assert set(reported) == {(m, s) for m in MODELS for s in STRATEGIES}
    for model in MODELS:
        for strategy in STRATEGIES:
            mine = [r for r in arms if r["model"] == f"{model} [{strategy}]"]
            got = reported[(model, strategy)]
            assert got["rows"] == len(mine) == len(dataset)
            right = sum(bool(r["decision_correct"]) for r in mine)
            assert got["accuracy"] == pytest.approx(right / len(mine))
            if strategy == "cot":
                assert got["ties"] is None
            else:
                ties = sum(1 for r in mine if r["decision"] is None and not r["decision_correct"])
                assert got["ties"] == ties
