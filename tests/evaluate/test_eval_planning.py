"""Lazy planning: what is still to ask is found a batch at a time, in SQL.

The plan (prompts x models x samples) is never built whole and the stored keys are
never loaded: the memory a resumed run spends on planning stays flat when the plan
grows tenfold. Measured with tracemalloc around the real runner.
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.base import SamplingParams
from twosat_formal.evaluate.run import EvalItem, run_eval
from twosat_formal.evaluate.run.runner import PLAN_BATCH
from twosat_formal.evaluate.scoring import error_judgement
from twosat_formal.evaluate.store import ResultRow, RunStore, prompt_hash

SPEC = "ref/coin"


def fill(store: RunStore, items: list[EvalItem], samples: int, *, every: int = 1) -> int:
    """Store a result for every ``every``-th sample of each item, as the runner keys it."""
    params = SamplingParams().key()
    stored = 0
    for item in items:
        sha = prompt_hash(item.prompt.text)
        for sample in range(0, samples, every):
            row = ResultRow(
                SPEC,
                "local",
                sha,
                item.prompt.id,
                params,
                sample,
                error_judgement(item.label, "stored before"),
            )
            stored += store.put(row, commit=False)
    store.commit()
    return stored


def resume_peak(tmp_path: Path, items: list[EvalItem], samples: int) -> tuple[int, int]:
    """(skipped, peak bytes) of a run whose every request is stored already."""
    with RunStore(tmp_path / f"runs-{samples}.sqlite") as store:
        fill(store, items, samples)
        model = load_model(SPEC)
        tracemalloc.start()
        try:
            summary = asyncio.run(run_eval([model], items, store, samples=samples))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert summary.done == 0 and summary.planned == len(items) * samples
    return summary.skipped, peak


@pytest.mark.slow
def test_planning_memory_does_not_grow_with_the_plan(tmp_path: Path) -> None:
    items = make_items(4, seed=2)
    small, big = 500, 5_000  # 2,000 and 20,000 requests
    skipped_small, peak_small = resume_peak(tmp_path, items, small)
    skipped_big, peak_big = resume_peak(tmp_path, items, big)
    assert (skipped_small, skipped_big) == (4 * small, 4 * big)
    assert peak_big <= 1.5 * peak_small, (peak_small, peak_big)


def test_only_the_requests_not_stored_are_asked(tmp_path: Path) -> None:
    items = make_items(3, seed=4)
    samples = PLAN_BATCH  # plan batches split across items
    with RunStore(tmp_path / "runs.sqlite") as store:
        stored = fill(store, items, samples, every=3)
        summary = asyncio.run(run_eval([load_model(SPEC)], items, store, samples=samples))
        assert summary.skipped == stored
        assert summary.done == 3 * samples - stored
        assert store.count() == 3 * samples
        again = asyncio.run(run_eval([load_model(SPEC)], items, store, samples=samples))
    assert (again.skipped, again.done) == (3 * samples, 0)


@pytest.mark.parametrize(
    ("samples", "k"),
    [(1, 10**20), (1, MAX_SIZE + 1), (MAX_SIZE // 2 + 1, 2), (4_000_000, 3)],
)
def test_a_plan_of_more_samples_per_prompt_than_the_bound_is_refused_before_anything(
    samples: int, k: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--samples`` is bounded, and so is what ``sample-k:K`` multiplies it into: a plan
    of ``samples x K`` samples per prompt above the bound is one line and exit code 2,
    with no store made (it would otherwise plan for ever)."""
    prompts, dataset = write_inputs(tmp_path, make_items(2, seed=6))
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(dataset), "--store", str(store),
        "--samples", str(samples), "--strategy", f"sample-k:{k}", "--no-progress",
        # a model that cannot be reached: a plan that were not refused ends at once
        "-m", "openai/m", "--base-url", "http://127.0.0.1:9/v1",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err, (out, err)
    assert f"must be at most {MAX_SIZE} per prompt and model, got {samples} x {k}" in err
    assert not store.exists()


def test_prompts_of_one_text_are_one_request_asked_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tiny instances are often one formula, so their prompts are one text: one request
    (one key) per model and sample. The server is asked each text once per sample, the
    summary's counts add up (nothing left, nothing said to be another run's), and every
    prompt has its row in the export."""
    data, prompts, store = tmp_path / "d.jsonl", tmp_path / "p.jsonl", tmp_path / "runs.sqlite"
    for make in (
        ("generate", "implication-cycle", "--clauses", "3", "--count", "30", "-o", str(data)),
        ("verbalize", str(data), "-t", "logic", "-o", str(prompts)),
    ):
        assert cli(capsys, *make, "--no-progress")[0] == 0
    texts = [json.loads(line)["text"] for line in prompts.read_text().splitlines()]
    assert len(set(texts)) < len(texts)  # the case at hand: texts repeat
    args = [
        "eval", str(prompts), "--dataset", str(data), "-m", "openai/m", "--store", str(store),
        "--samples", "2", "--no-progress", "--json",
    ]  # fmt: skip
    with FaultServer(default_answer="The answer is: No") as server:
        for run in range(2):  # the first run asks, the second finds it all stored
            code, out, err = cli(capsys, *args, "--base-url", server.url)
            assert code == 0, (out, err)
            summary = json.loads(out)
            done = 0 if run else 2 * len(set(texts))
            assert (summary["planned"], summary["done"]) == (2 * len(texts), done)
            assert summary["skipped"] == 2 * len(texts) - done
            assert summary["remaining"] == summary["leased"] == 0
        assert Counter(server.prompts()) == {text: 2 for text in set(texts)}
    with RunStore(store, readonly=True) as stored:
        rows = list(stored.export_rows())
    assert sorted((r["prompt_id"], r["sample"]) for r in rows) == sorted(
        (json.loads(line)["id"], sample)
        for line in prompts.read_text().splitlines()
        for sample in (0, 1)
    )
