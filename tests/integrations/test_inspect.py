"""inspect, as its users run it: the installed task and reference models, offline."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.support.integrations import installed, make_dataset, run_installed

pytest.importorskip("inspect_ai")

from inspect_ai.log import EvalLog, read_eval_log

from twosat_formal.integrations.exports import export_dataset
from twosat_formal.integrations.rows import judge_row


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder with an exported inspect task (``inspect/twosat.jsonl``)."""
    work = tmp_path_factory.mktemp("inspect")
    dataset, prompts, _ = make_dataset(work, per_family=2)
    export_dataset([dataset, prompts], "inspect", work / "inspect")
    return work


def inspect_eval(folder: Path, *args: str) -> EvalLog:
    """``inspect eval ARGS`` in ``folder``; its one log."""
    logs = folder / "logs"
    for old in logs.glob("*.eval"):
        old.unlink()
    run_installed([installed("inspect"), "eval", *args, "--log-dir", "logs"], folder)
    (path,) = list(logs.glob("*.eval"))
    return read_eval_log(str(path))


def metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.results is not None
    return {s.name: {k: v.value for k, v in s.metrics.items()} for s in log.results.scores}


def rows(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "inspect" / "twosat.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("absolute", [False, True])
def test_the_installed_task_runs_with_the_oracle(folder: Path, absolute: bool) -> None:
    path = str(folder / "inspect" / "twosat.jsonl") if absolute else "inspect/twosat.jsonl"
    log = inspect_eval(folder, "twosat_formal/twosat", "-T", f"path={path}",
                       "--model", "twosat/oracle")  # fmt: skip
    assert log.status == "success" and log.eval.task == "twosat_formal/twosat"
    assert log.samples is not None and len(log.samples) == len(rows(folder))
    found = metrics(log)
    # the oracle is exact: every prompt right, every SAT witness valid
    assert found["strict"]["accuracy"] == 1.0 and found["witness"]["accuracy"] == 1.0
    for sample in log.samples:
        assert sample.scores is not None
        (score,) = sample.scores.values()
        assert score.metadata is not None and score.metadata["failure"] == "correct"


@pytest.mark.slow
def test_metrics_are_grouped_by_family_and_template(folder: Path) -> None:
    log = inspect_eval(folder, "twosat_formal/twosat", "-T", "path=inspect/twosat.jsonl",
                       "--model", "twosat/coin")  # fmt: skip
    assert log.samples is not None
    # each sample's answer judged again here, then averaged by group
    by: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for sample in log.samples:
        row = sample.metadata
        judgement = judge_row(row, sample.output.completion)
        values = {
            "strict": float(judgement.correct),
            "decision": float(judgement.decision_correct),
        }
        for metric, value in values.items():
            for key in ("family", "template"):
                by[(metric, key, row[key])].append(value)
    found = metrics(log)
    assert set(found) == {"strict", "lenient", "decision", "witness"}
    for (metric, key, group), values in by.items():
        name = next(n for n in found[metric] if n.endswith(f"{key}_{group}"))
        assert found[metric][name] == pytest.approx(sum(values) / len(values))
    groups = {(m, k) for m, k, _ in by}
    assert len(groups) == 4
    families = {r["family"] for r in rows(folder)}
    assert {n.rsplit("family_", 1)[1] for n in found["strict"] if "family_" in n} == families


@pytest.mark.slow
def test_the_reasoners_are_inspect_models(folder: Path) -> None:
    data = rows(folder)
    log = inspect_eval(folder, "twosat_formal/twosat", "-T", "path=inspect/twosat.jsonl",
                       "--model", "twosat/sat-biased", "--limit", "4")  # fmt: skip
    assert log.samples is not None and len(log.samples) == 4
    for sample in log.samples:
        assert sample.output.completion.rstrip().endswith("The answer is: Yes")
    log = inspect_eval(folder, "twosat_formal/twosat", "-T", "path=inspect/twosat.jsonl",
                       "--model", "twosat/bounded", "-M", "budget=1", "--limit", "2")  # fmt: skip
    assert log.status == "success" and log.eval.model == "twosat/bounded"
    done = run_installed([installed("inspect"), "eval", "twosat_formal/twosat", "-T",
                          "path=inspect/twosat.jsonl", "--model", "twosat/gpt", "--log-dir",
                          "logs"], folder, check=False)  # fmt: skip
    assert done.returncode != 0 and "unknown reference reasoner 'gpt'" in done.stdout + done.stderr
    assert len(data) >= 4


@pytest.mark.slow
def test_witness_is_not_a_number_without_sat_prompts(tmp_path: Path) -> None:
    import math

    from twosat_formal.io.instance import write_instances
    from twosat_formal.make.generators import generate
    from twosat_formal.verbalize import prompt_record
    from twosat_formal.verbalize.prompts import write_prompts

    found = (generate("implication-cycle", clauses=8, seed=s) for s in range(40))
    unsat = [inst for inst in found if inst.label == "UNSAT"][:2]
    dataset, prompts = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
    write_instances(unsat, dataset)
    write_prompts([prompt_record(i.formula, "logic", instance_id=i.id) for i in unsat], prompts)
    export_dataset([dataset, prompts], "inspect", tmp_path / "inspect")
    log = inspect_eval(tmp_path, "twosat_formal/twosat", "-T", "path=inspect/twosat.jsonl",
                       "--model", "twosat/oracle")  # fmt: skip
    found_metrics = metrics(log)
    assert found_metrics["strict"]["accuracy"] == 1.0
    assert math.isnan(found_metrics["witness"]["accuracy"])  # N/A, not 0


def test_a_missing_rows_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from twosat_formal.errors import ConfigError
    from twosat_formal.integrations.inspect import twosat

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=f"no rows file {tmp_path / 'rows.jsonl'}"):
        twosat("rows.jsonl")


#: Rows that are not the exported rows the scorer reads: (how, the message's end).
NOT_ROWS = {
    "a dataset record (no prompt)": (lambda row: row.pop("prompt"), "'prompt' must be a string"),
    "an id that is a number": (lambda row: row.update(id=7), "'id' must be a string"),
    "a label that is no label": (lambda row: row.update(label="MAYBE"), "'label' must be SAT"),
    "a formula that is not DIMACS": (lambda row: row.update(dimacs="p cnf x"), "p cnf"),
    "entities that are no map": (lambda row: row.update(entities="[1]"), "'entities' must map"),
    "not an object": (lambda row: row.clear(), "a JSON object, not list"),
}


@pytest.mark.parametrize("how", sorted(NOT_ROWS))
def test_a_line_that_is_no_row_is_named_before_any_sample(
    folder: Path, tmp_path: Path, how: str
) -> None:
    """``-T path=`` naming another file (a dataset, a hand-edited rows file) stops the
    task with its line and the fault, not a ``KeyError`` nor a failed score per sample."""
    from twosat_formal.errors import ConfigError
    from twosat_formal.integrations.inspect import read_samples, twosat

    rows = [
        json.loads(line)
        for line in (folder / "inspect" / "twosat.jsonl").read_text("utf-8").splitlines()
    ]
    assert len(read_samples(folder / "inspect" / "twosat.jsonl")) == len(rows)
    change, message = NOT_ROWS[how]
    change(rows[1])
    lines = [json.dumps(row) for row in rows]
    if not rows[1]:
        lines[1] = "[1, 2]"
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"rows\.jsonl:2: not a row of .*{re.escape(message)}"):
        twosat(str(path))


@pytest.mark.parametrize("budget", [0, -5, "abc", True, 2.5])
def test_a_budget_that_is_no_count_is_refused_as_export_refuses_it(
    folder: Path, budget: object
) -> None:
    """``-T max_tokens=0`` (or a negative, a word, a flag) is refused by the rule of
    ``export --max-tokens``, naming the option, before any sample is asked."""
    from twosat_formal.errors import ConfigError
    from twosat_formal.integrations.inspect import twosat

    with pytest.raises(ConfigError, match="max_tokens must be an integer >= 1"):
        twosat(str(folder / "inspect" / "twosat.jsonl"), max_tokens=budget)  # type: ignore[arg-type]
    assert twosat(str(folder / "inspect" / "twosat.jsonl"), max_tokens=1).config.max_tokens == 1
