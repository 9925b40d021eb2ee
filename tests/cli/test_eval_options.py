"""``eval``'s option groups: a bad mode or executor is one located line, exit code 2,
before the store exists; the options of each group reach the run.

The endpoint group (``--base-url``, the per-model limits, ``--api-key-env``,
``--mode``), the sampling group (``--temperature`` ... ``--body``) and the retry group
(``--max-attempts``, ``--retry-errors``) are each one parameter of the command.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.support.cli import cli, error_lines
from twosat_formal.cli.edit_cmd import EditChoice
from twosat_formal.cli.eval_options import EndpointOptions, RetryOptions
from twosat_formal.cli.options import SamplingOptions
from twosat_formal.errors import ConfigError
from twosat_formal.make.edits.operators import PREMISE, category_of, default_operators
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    inst = generate("backbone", clauses=8, seed=3)
    made = prompt_record(inst.formula, "logic", instance_id=inst.id, seed=3)
    (folder / "dataset.jsonl").write_text(inst.to_json() + "\n", encoding="utf-8")
    (folder / "prompts.jsonl").write_text(json.dumps(made.to_record()) + "\n", encoding="utf-8")
    return folder


def eval_argv(inputs: Path, store: Path, *more: str) -> list[str]:
    return [
        "eval", str(inputs / "prompts.jsonl"), "--dataset", str(inputs / "dataset.jsonl"),
        "--store", str(store), "--no-progress", "-m", "ref/oracle", *more,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--mode", "bogus"], ["unknown mode 'bogus'"]),
        (["--mode", "bogus", "--executor", "elsewhere"], ["unknown mode 'bogus'"]),
        (["--executor", "elsewhere"], ["'elsewhere'", "local", "ray"]),
        (["--executor", "elsewhere", "--temperature", "-1"], ["'elsewhere'"]),
    ],
)
def test_a_bad_mode_or_executor_is_one_line_before_the_store(
    options: list[str],
    words: list[str],
    inputs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(capsys, *eval_argv(inputs, store, *options))
    assert code == 2, (code, out, err)
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in out + err
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert not store.exists()


def test_the_groups_options_reach_the_run(
    inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "runs.sqlite"
    options = ["--temperature", "0.25", "--seed", "7", "--body", "top_k=20", "--rpm", "600"]
    code, out, err = cli(capsys, *eval_argv(inputs, store, *options, "--json"))
    assert code == 0, err
    assert json.loads(out)["done"] == 1
    with sqlite3.connect(store) as db:
        (info,) = db.execute("SELECT info FROM runs").fetchone()
        (params,) = db.execute("SELECT params FROM results").fetchone()
    run = json.loads(info)
    assert run["limits"]["ref/oracle"]["rpm"] == 600.0
    assert run["params"] == params
    sent = json.loads(params)
    assert (sent["temperature"], sent["seed"], sent["extra_body"]) == (0.25, 7, {"top_k": 20})
    assert (sent["top_p"], sent["max_tokens"]) == (None, 32768)


def test_the_groups_build_what_the_runner_takes() -> None:
    assert EndpointOptions(model_concurrency=2, tpm=10.0).limits().concurrency == 2
    assert RetryOptions().policy().max_attempts == 6
    params = SamplingOptions(top_p=0.5, reasoning_effort="low").params(64)
    assert (params.max_tokens, params.top_p, params.reasoning_effort) == (64, 0.5, "low")
    with pytest.raises(ConfigError, match="unknown mode"):
        EndpointOptions(mode="rest")


@pytest.mark.parametrize("ops", [None, ["converse"], ["drop", "converse"]])
@pytest.mark.parametrize("premise", [False, True])
def test_edit_choice_keeps_the_named_edits_then_adds_the_premise_ones(
    ops: list[str] | None, premise: bool
) -> None:
    chosen = EditChoice(ops=ops, premise_edits=premise).operators()
    named = list(ops) if ops else list(default_operators())
    assert chosen[: len(named)] == named
    assert len(set(chosen)) == len(chosen)
    added = chosen[len(named) :]
    if premise:
        assert {"drop", "insert"} <= set(chosen)
        premise_edits = [n for n in default_operators(premise=True) if category_of(n) == PREMISE]
        assert added == [n for n in premise_edits if n not in named]  # not the operator edits
    else:
        assert added == []
