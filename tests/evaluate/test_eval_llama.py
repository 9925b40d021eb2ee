"""``eval`` end to end against llama.cpp's real server with the gemma3-270m model.

The model is a tiny base model, so the test checks the pipeline, never accuracy: the
server is started and stopped, every prompt gets exactly one stored result, truncation
is read from the server's real finish reason (``length`` at a small token budget), the
export carries it, and a second run asks nothing again. It needs the ``[local]`` extra
and is skipped only when ``llama_cpp`` cannot be imported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.llama import NEEDS_LLAMA, exported_rows, first_eval, last_summary, run_cli

pytestmark = NEEDS_LLAMA

SPEC = "llamacpp/gemma3-270m?n_ctx=2048"


@pytest.mark.slow
def test_eval_against_the_real_llama_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = first_eval(tmp_path, capsys, SPEC, (5, 6), mode="completion", max_tokens=4)
    argv, records, store, first = run.argv, run.records, run.store, run.summary
    assert (first["planned"], first["done"], first["skipped"]) == (2, 2, 0)
    assert first["failures"] == {"truncated": 2}

    out = tmp_path / "results.jsonl"
    rows = exported_rows(store, out)
    assert sorted(r["prompt_id"] for r in rows) == sorted(r.id for r in records)
    for row in rows:
        assert row["model"] == SPEC
        assert row["finish_reason"] == "length" and row["truncated"] is True
        assert row["failure"] == "truncated" and row["decision_correct"] is False
        assert row["completion_tokens"] == 4 and row["prompt_tokens"] > 0

    assert run_cli(argv) == 0  # resumed: everything is stored, nothing is asked again
    second = last_summary(capsys)
    assert (second["planned"], second["done"], second["skipped"]) == (2, 0, 2)
    assert len(exported_rows(store, out)) == len(records)
