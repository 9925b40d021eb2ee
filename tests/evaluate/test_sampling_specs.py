"""Token budgets and sampling: the paper's 32,768 default, per-model spec options,
experiment specs per model, and the CLI options of eval, bench and run-experiment.

Requests go through the real CLI to a loopback OpenAI-compatible server that records
the sampling fields of every request body.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models import parse_spec as parse_model_spec
from twosat_formal.evaluate.models.base import (
    DEFAULT_MAX_TOKENS,
    SamplingParams,
    sampling_for,
    sampling_options,
)
from twosat_formal.evaluate.run import EvalItem
from twosat_formal.evaluate.store import RunStore
from twosat_formal.study.experiments.spec import load_spec, parse_spec


def test_the_default_budget_is_the_papers() -> None:
    assert DEFAULT_MAX_TOKENS == 32768
    assert SamplingParams().max_tokens == 32768


@pytest.mark.parametrize(
    "spec",
    [
        "ref/oracle?max_tokens=16384&temperature=0.8",
        "ref/bounded?budget=5&max_tokens=16384&temperature=0.8",
        "openai/phi-4-reasoning?max_tokens=16384&temperature=0.8",
        "openai/phi-4-reasoning?mode=completion&temperature=0.8&max_tokens=16384",
        "llamacpp/gemma3-270m?n_ctx=4096&max_tokens=16384&temperature=0.8",
    ],
)
def test_every_kind_takes_sampling_options_in_its_spec(spec: str) -> None:
    parse_model_spec(spec)  # accepted by every kind
    params = sampling_for(spec, SamplingParams(max_tokens=10, top_p=0.5))
    assert (params.max_tokens, params.temperature, params.top_p) == (16384, 0.8, 0.5)


@pytest.mark.parametrize(
    "spec",
    [
        "openai/m?max_tokens=0",
        "openai/m?max_tokens=1.5",
        "openai/m?max_tokens=",
        "openai/m?temperature=-1",
        "openai/m?temperature=nan",
        "openai/m?top_p=0",
        "openai/m?top_p=1.5",
        "ref/oracle?seed=-3",
        "ref/coin?temperature=inf",
    ],
)
def test_bad_sampling_options_are_refused_when_loading(spec: str) -> None:
    with pytest.raises(ConfigError):
        load_model(spec, base_url="http://127.0.0.1:9/v1")


def test_sampling_options_are_typed() -> None:
    assert sampling_options({"seed": "7", "temperature": "0"}) == {"temperature": 0.0, "seed": 7}


def eval_against(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    server: FaultServer,
    items: list[EvalItem],
    *options: str,
) -> tuple[int, str, Path]:
    """Run ``eval`` of ``items`` against ``server`` with ``options``, without a progress
    bar; its exit code, its stderr and the run store's path."""
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    code, _, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(dataset), "--base-url", server.url,
        "--store", str(store), "--no-progress", *options,
    )  # fmt: skip
    return code, err, store


def test_eval_sends_each_models_own_budget(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with FaultServer(answer=lambda prompt: "The answer is: No", lifetime_s=60) as server:
        code, err, store = eval_against(
            capsys, tmp_path, server, make_items(3, seed=2),
            "--model", "openai/big", "--model", "openai/phi?max_tokens=16384&temperature=0.8",
            "--timeout", "30",
        )  # fmt: skip
        log = list(server.log)
    assert code == 0, err
    sent = {(e.prompt, json.dumps(e.sampling, sort_keys=True)) for e in log}
    budgets = sorted({json.loads(s)["max_tokens"] for _, s in sent})
    assert budgets == [16384, 32768]
    assert all(
        (json.loads(s).get("temperature") == 0.8) == (json.loads(s)["max_tokens"] == 16384)
        for _, s in sent
    )
    with RunStore(store, readonly=True) as run_store:
        stored = {(r["model"], json.loads(r["params"])["max_tokens"]) for r in run_store.results()}
    assert stored == {("openai/big", 32768), ("openai/phi?max_tokens=16384&temperature=0.8", 16384)}


@pytest.mark.slow
def test_eval_timeout_bounds_a_request(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    items = make_items(1, seed=3)
    with FaultServer(plan=["slow"] * 50, slow_s=5.0, lifetime_s=60) as server:
        code, err, store = eval_against(
            capsys, tmp_path, server, items,
            "--model", "openai/m", "--timeout", "1", "--max-attempts", "1",
        )  # fmt: skip
    assert code == 3, err  # every request of the model failed
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.results())
    assert [r["failure"] for r in rows] == ["error"] * len(items)
    assert all("time" in str(r["error"]).lower() for r in rows), rows[0]["error"]


def test_help_shows_the_budget_options(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("eval", "bench", "run-experiment"):
        code, out, _ = cli(capsys, command, "--help")
        assert code == 0
        assert "--max-tokens" in out and "--timeout" in out and "--concurrency" in out
    code, out, _ = cli(capsys, "bench", "--help")
    assert "--seed" in out and "32768" in out


def spec_with(sampling: object) -> dict[str, object]:
    return {
        "name": "x",
        "title": "x",
        "kind": "grid",
        "formulas": 1,
        "templates": ["logic"],
        "cells": [{"family": "backbone", "clauses": [10]}],
        "sampling": sampling,
    }


def test_experiment_specs_set_budgets_per_model() -> None:
    spec = parse_spec(
        spec_with(
            {
                "max_tokens": 32768,
                "models": {"openai/phi-4-reasoning": {"max_tokens": 16384, "temperature": 0.8}},
            }
        )
    )
    assert spec.model_spec("openai/phi-4-reasoning") == (
        "openai/phi-4-reasoning?max_tokens=16384&temperature=0.8"
    )
    assert spec.model_spec("openai/phi-4-reasoning?max_tokens=100") == (
        "openai/phi-4-reasoning?max_tokens=100&temperature=0.8"
    )
    assert spec.model_spec("openai/other") == "openai/other"
    for bad in (
        {"max_token": 5},
        {"max_tokens": 0},
        {"models": {"openai/m": {"budget": 5}}},
        {"models": {"openai/m": {"top_p": 2}}},
        {"models": ["openai/m"]},
    ):
        with pytest.raises(RecordError):
            parse_spec(spec_with(bad))


def test_shipped_specs_use_the_papers_budgets() -> None:
    for name in ("table1", "sweep", "fillers", "order", "duplication"):
        spec = load_spec(name)
        assert spec.sampling.get("max_tokens", DEFAULT_MAX_TOKENS) == 32768


@pytest.mark.slow
def test_bench_passes_its_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_dir = tmp_path / "bench"
    code, _, err = cli(
        capsys,
        "bench",
        "--formulas",
        "1",
        "--template",
        "logic",
        "--max-clauses",
        "10",
        "--max-tokens",
        "1234",
        "--concurrency",
        "3",
        "--timeout",
        "20",
        "--seed",
        "11",
        "--out",
        str(out_dir),
        "--no-progress",
    )
    assert code == 0, err
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["sampling"]["max_tokens"] == 1234
    assert manifest["seed"] == 11
