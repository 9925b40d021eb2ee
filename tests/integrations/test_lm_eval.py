"""lm-evaluation-harness, as its users run it: the exported group, offline."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.support.integrations import cli, installed, make_dataset, run_installed

pytest.importorskip("lm_eval")

from twosat_formal.integrations.exports import export_dataset
from twosat_formal.integrations.rows import judge_row
from twosat_formal.integrations.task_files import task_identifier
from twosat_formal.io.instance import write_instances
from twosat_formal.verbalize import prompt_record
from twosat_formal.verbalize.prompts import write_prompts


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("lm-inputs")
    dataset, prompts, _ = make_dataset(folder, per_family=3)
    return dataset, prompts


def lm_eval(folder: Path, tasks: Path, *extra: str) -> tuple[dict[str, Any], Path]:
    """``lm_eval --model dummy --tasks twosat --include_path TASKS ...``: results, folder."""
    out = folder / "out"
    argv = [installed("lm_eval"), "--model", "dummy", "--tasks", "twosat", "--include_path",
            str(tasks), "--output_path", str(out), "--log_samples", *extra]  # fmt: skip
    run_installed(argv, folder)
    (summary,) = list(out.rglob("results_*.json"))
    return json.loads(summary.read_text(encoding="utf-8")), summary.parent


def hf_default_max_length() -> int:
    """lm-eval's context for a model whose config and tokenizer name none (the HF
    backend's ``resolve_max_length`` default)."""
    from lm_eval.models.utils import DEFAULT_MAX_LENGTH

    return int(DEFAULT_MAX_LENGTH)


def test_the_default_budget_fits_lm_eval_hf_backend(
    tmp_path: Path, inputs: tuple[Path, Path]
) -> None:
    # HFLM asserts max_length - max_gen_toks > 0 (its default max_length when a model's
    # config names none); 32k-context models and smaller ones then run the task
    files = export_dataset(list(inputs), "lm-eval", tmp_path / "lm", certify=False)
    budgets = set()
    for path in files:
        if path.suffix == ".yaml":
            budgets.update(int(b) for b in re.findall(r"max_gen_toks: (\d+)", path.read_text()))
    assert budgets and max(budgets) < hf_default_max_length() <= 32768


@pytest.mark.slow
def test_the_group_runs_with_per_family_subtasks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path]
) -> None:
    dataset, prompts = inputs
    tasks = tmp_path / "lm"
    code, _, err = cli(capsys, "export", str(dataset), str(prompts), "--to", "lm-eval",
                       "-o", str(tasks), "--max-gen-toks", "77")  # fmt: skip
    assert code == 0, err
    results, out = lm_eval(tmp_path, tasks)
    rows = [json.loads(line) for line in (tasks / "twosat.jsonl").read_text().splitlines()]
    families = sorted({row["family"] for row in rows})
    subtasks = {f"twosat_{task_identifier(family)}": family for family in families}
    assert set(results["group_subtasks"]["twosat"]) == set(subtasks)
    for task in subtasks:
        assert results["configs"][task]["generation_kwargs"]["max_gen_toks"] == 77
    # every sample judged again here; the metrics are the means lm-eval reports
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for samples in out.glob("samples_*.jsonl"):
        for line in samples.read_text(encoding="utf-8").splitlines():
            sample = json.loads(line)
            task = samples.name[len("samples_") :].rsplit("_", 1)[0]
            judgement = judge_row(sample["doc"], sample["resps"][0][0])
            values[task]["strict_accuracy"].append(float(judgement.correct))
            if judgement.witness_valid is not None:
                values[task]["witness_validity"].append(float(judgement.witness_valid))
    for task, family in subtasks.items():
        found = results["results"][task]
        assert found["strict_accuracy,none"] == pytest.approx(
            sum(values[task]["strict_accuracy"]) / len(values[task]["strict_accuracy"])
        )
        sat = [row for row in rows if row["family"] == family and row["label"] == "SAT"]
        # witness validity is a mean over SAT prompts only: N/A (absent) without any
        assert ("witness_validity,none" in found) == bool(sat)
    group = results["results"]["twosat"]
    assert "strict_accuracy,none" in group and "witness_validity,none" not in group
    assert group["sample_count"]["strict_accuracy,none"] == len(rows)
    # the logged samples go to `score`, which names the model as the results do
    scored = tmp_path / "scored.jsonl"
    sample_files = sorted(str(p) for p in out.glob("samples_*.jsonl"))
    code, _, err = cli(capsys, "score", sample_files[0], "--prompts", str(prompts),
                       "--dataset", str(dataset), "-o", str(scored))  # fmt: skip
    assert code == 0, err
    models = {json.loads(line)["model"] for line in scored.read_text().splitlines()}
    assert models == {results["model_name"]}


@pytest.mark.slow
def test_witness_validity_is_na_without_sat_prompts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from twosat_formal.make.generators import generate

    unsat = [
        inst
        for seed in range(40)
        for inst in [generate("implication-cycle", clauses=8, seed=seed)]
        if inst.label == "UNSAT"
    ][:3]
    assert unsat
    dataset, prompts = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
    write_instances(unsat, dataset)
    write_prompts([prompt_record(i.formula, "logic", instance_id=i.id) for i in unsat], prompts)
    tasks = tmp_path / "lm"
    code, _, err = cli(capsys, "export", str(dataset), str(prompts), "--to", "lm-eval",
                       "-o", str(tasks))  # fmt: skip
    assert code == 0, err
    results, _ = lm_eval(tmp_path, tasks, "--gen_kwargs", "max_gen_toks=33")
    for name, found in results["results"].items():
        assert "witness_validity,none" not in found, name  # N/A, not 0
        assert found["strict_accuracy,none"] == 0.0  # the dummy model answers "lol"
    for config in results["configs"].values():
        assert config["generation_kwargs"]["max_gen_toks"] == 33  # raised at run time
