"""``score`` and ``batch prepare``: answers produced elsewhere judged as ``eval`` judges them."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.integrations import cli, make_dataset
from tests.support.jsonl import read_jsonl, write_jsonl
from twosat_formal.evaluate.columns import export_columns
from twosat_formal.evaluate.models.base import Response, SamplingParams
from twosat_formal.evaluate.models.openai_compat import request_body
from twosat_formal.evaluate.run import EvalItem, load_items, run_eval
from twosat_formal.evaluate.store import RunStore
from twosat_formal.integrations.answers import custom_id, read_answers
from twosat_formal.integrations.batch import batch_requests
from twosat_formal.integrations.rescore import score_answers

#: What a judgement is: the columns that must agree between ``eval`` and ``score``.
VERDICT = (
    "label",
    "failure",
    "decision",
    "decision_correct",
    "witness_valid",
    "witness_reason",
    "truncated",
    "lenient_failure",
    "lenient_decision",
    "lenient_decision_correct",
    "lenient_witness_valid",
)

MODELS = ("ref/oracle", "ref/coin", "ref/sat-biased", "ref/bounded?budget=6")


def verdicts(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, int], tuple[Any, ...]]:
    out = {}
    for row in rows:
        key = (row["model"], row["prompt_id"], row["sample"])
        assert key not in out
        out[key] = tuple(row[c] for c in VERDICT)
    return out


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    """A dataset, its prompts, and a run store of eval with four reference models."""
    folder = tmp_path_factory.mktemp("eval")
    dataset, prompts, _ = make_dataset(folder, per_family=2)
    store = folder / "runs.sqlite"
    from twosat_formal.cli import main

    argv = ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store)]
    argv += ["--samples", "2", "--no-progress", "--json"]
    for model in MODELS:
        argv += ["-m", model]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 0
    results = folder / "results.jsonl"
    with pytest.raises(SystemExit) as stopped:
        main(["results", str(store), "--out", str(results)])
    assert stopped.value.code == 0
    return dataset, prompts, store, results


@pytest.mark.slow
def test_score_of_results_rows_reproduces_the_stored_judgements(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, evaluated: tuple[Path, Path, Path, Path]
) -> None:
    dataset, prompts, store, results = evaluated
    out, new_store = tmp_path / "scored.jsonl", tmp_path / "again.sqlite"
    argv = [str(results), "--prompts", str(prompts), "--dataset", str(dataset)]
    code, stdout, err = cli(capsys, "score", *argv, "--out", str(out), "--store", str(new_store))
    assert code == 0, err
    with RunStore(store, readonly=True) as original:
        expected = verdicts(original.results())
    scored = read_jsonl(out)
    assert list(scored[0]) == list(export_columns())
    assert scored == read_jsonl(results)  # the rows of `results`, byte for byte
    assert len(expected) == len(prompts.read_text().splitlines()) * len(MODELS) * 2
    assert verdicts(scored) == expected
    kinds = {row["failure"] for row in scored}
    assert "correct" in kinds and len(kinds) > 1  # the comparison covers more than one kind
    with RunStore(new_store, readonly=True) as again:
        assert verdicts(again.results()) == expected
        assert len(list(again.instances())) == len(dataset.read_text().splitlines())
        assert {r["endpoint"] for r in again.results()} == {"external"}
    assert f"scored     {len(expected)} answers" in stdout
    # scoring the same answers into the same store again adds nothing
    code, stdout, _ = cli(capsys, "score", *argv, "--out", str(out), "--store", str(new_store))
    assert code == 0 and "(0 new results)" in stdout
    # the store of score is one report reads
    code, _, err = cli(capsys, "report", str(new_store), "--out", str(tmp_path / "report"))
    assert code == 0, err


def batch_output(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the Batch API returns for requests whose answers are ``rows`` (results rows)."""
    lines = []
    for i, row in enumerate(rows):
        body = {
            "id": f"chatcmpl-{i}",
            "object": "chat.completion",
            "model": "served-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": row["response"]},
                    "finish_reason": row["finish_reason"],
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
        }
        lines.append(
            {
                "id": f"batch_req_{i}",
                "custom_id": custom_id(row["prompt_id"], row["sample"]),
                "response": {"status_code": 200, "request_id": f"r{i}", "body": body},
                "error": None,
            }
        )
    return lines


def test_batch_output_file_scores_like_eval(
    tmp_path: Path, evaluated: tuple[Path, Path, Path, Path]
) -> None:
    dataset, prompts, store, results = evaluated
    rows = [r for r in read_jsonl(results) if r["model"] == "ref/coin"]
    path = write_jsonl(tmp_path / "batch_output.jsonl", batch_output(rows))
    items = load_items(prompts, dataset=dataset)
    scored = list(score_answers(read_answers(path, model="ref/coin"), items))
    with RunStore(store, readonly=True) as original:
        expected = {k: v for k, v in verdicts(original.results()).items() if k[0] == "ref/coin"}
    assert verdicts(scored) == expected
    assert {r["completion_tokens"] for r in scored} == {7}
    # without --model, the served model's name is used
    assert {a.model for a in read_answers(path)} == {"openai/served-model"}


def test_batch_errors_become_error_judgements(tmp_path: Path) -> None:
    dataset, prompts, records = make_dataset(tmp_path)
    failed = [
        {"custom_id": records[0].id, "response": None, "error": {"code": "e1", "message": "gone"}},
        {
            "custom_id": custom_id(records[1].id, 1),
            "response": {"status_code": 429, "body": {"error": {"message": "slow down"}}},
            "error": None,
        },
    ]
    path = write_jsonl(tmp_path / "out.jsonl", failed)
    answers = read_answers(path, model="gpt-x")  # no line names the batch's model
    scored = list(score_answers(answers, load_items(prompts, dataset=dataset)))
    assert sorted((r["failure"], r["error"], r["sample"]) for r in scored) == [
        ("error", "HTTP 429: slow down", 1),
        ("error", "e1: gone", 0),
    ]
    assert all(r["decision_correct"] is False for r in scored)


def test_batch_prepare_writes_one_request_per_prompt_and_sample(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, prompts, records = make_dataset(tmp_path)
    out = tmp_path / "requests.jsonl"
    argv = ["batch", "prepare", str(prompts), "--model", "gpt-x", "--out", str(out)]
    code, _, err = cli(capsys, *argv, "--samples", "2", "--seed", "7", "--max-tokens", "99")
    assert code == 0, err
    rows = read_jsonl(out)
    assert len(rows) == 2 * len(records)
    assert len({r["custom_id"] for r in rows}) == len(rows)
    params = SamplingParams(max_tokens=99, seed=7)
    for row, (record, sample) in zip(rows, [(r, s) for r in records for s in (0, 1)], strict=True):
        assert row["custom_id"] == custom_id(record.id, sample)
        assert row["method"] == "POST" and row["url"] == "/v1/chat/completions"
        assert row["body"] == request_body("chat", "gpt-x", record.text, params, sample)
        assert row["body"]["messages"][0]["content"] == record.text
    assert rows[1]["body"]["seed"] == 8
    code, _, err = cli(capsys, "batch", "prepare", str(prompts), "-m", "m", "--out", str(out),
                       "--mode", "completion")  # fmt: skip
    assert code == 0 and read_jsonl(out)[0]["url"] == "/v1/completions"
    code, _, err = cli(capsys, "batch", "prepare", str(prompts), "-m", "m", "--out",
                       str(tmp_path / "x.jsonl"), "--mode", "fax")  # fmt: skip
    assert code == 2 and "unknown mode 'fax'" in err and not (tmp_path / "x.jsonl").exists()


def test_score_refuses_bad_answers_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset, prompts, records = make_dataset(tmp_path)
    out = tmp_path / "scored.jsonl"
    cases = {
        "unknown.jsonl": (
            [{"prompt_id": "nope", "response": "x"}],
            "unknown.jsonl:1: an answer to prompt 'nope', which is not among the prompts",
        ),
        "twice.jsonl": (
            [{"prompt_id": records[0].id, "response": "x"}] * 2,
            "twice.jsonl:2: model 'external' answered prompt",
        ),
        "shape.jsonl": ([{"prompt_id": records[0].id, "response": 3}], "shape.jsonl:1: field"),
        "list.jsonl": ([[1, 2]], "list.jsonl:1: an answer line must be a JSON object"),
    }
    for name, (rows, message) in cases.items():
        path = write_jsonl(tmp_path / name, rows)
        argv = [str(path), "--prompts", str(prompts), "--dataset", str(dataset), "-o", str(out)]
        code, _, err = cli(capsys, "score", *argv)
        assert code == 2, name
        assert message in err and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err and not out.exists()


# -- the round trip as a property: any answer text, any finish reason -------------------------

PIECES = st.sampled_from(
    [
        "The answer is: Yes",
        "The answer is: No",
        "**The answer is: yes**.",
        "so the answer is no, because",
        "Answer: Yes",
        "\\boxed{No}",
        "The answer is: Yes/No",
        "{broken json",
        '{"answer": "Yes"}',
        "Let me think step by step.",
        "",
    ]
)


class _Replay:
    """A model that answers each prompt with a drawn text and finish reason."""

    spec, endpoint = "test/replay", "local"

    def __init__(self, answers: Mapping[str, Response]) -> None:
        self.answers = answers

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        return self.answers[prompt]

    async def aclose(self) -> None:
        pass


def _witness(item: EvalItem, flip: int, wrong_word: bool) -> str:
    from twosat_formal.solve import solve

    result = solve(item.formula)
    model = result.model if result.status == "SAT" else None
    prompt = item.prompt
    values = {}
    for i, (entity, var) in enumerate(prompt.entities.items()):
        truth = bool(model[item.formula.var(var) - 1]) if model is not None else bool(i % 2)
        truth ^= i == flip
        word = prompt.true_value if truth else prompt.false_value  # type: ignore[union-attr]
        values[entity] = word.upper() if wrong_word and i == 0 else word
    return json.dumps(values)


@pytest.fixture(scope="module")
def small_items(tmp_path_factory: pytest.TempPathFactory) -> list[EvalItem]:
    folder = tmp_path_factory.mktemp("items")
    dataset, prompts, _ = make_dataset(folder)
    return load_items(prompts, dataset=dataset)


@settings(max_examples=25)
@given(data=st.data())
def test_round_trip_property(small_items: list[EvalItem], data: st.DataObject) -> None:
    answers: dict[str, Response] = {}
    for item in small_items:
        parts = data.draw(st.lists(PIECES, max_size=3))
        if data.draw(st.booleans()):
            flip = data.draw(st.integers(-1, 3))
            parts.insert(0, _witness(item, flip, data.draw(st.booleans())))
        finish = data.draw(st.sampled_from(["stop", "length", None]))
        answers[item.prompt.text] = Response("\n".join(parts), finish)
    with tempfile.TemporaryDirectory() as tmp, RunStore(Path(tmp) / "r.sqlite") as store:
        asyncio.run(run_eval([_Replay(answers)], small_items, store))
        expected = verdicts(store.results())
        rows = list(store.results())
    lines = [
        {
            "prompt_id": r["prompt_id"],
            "response": r["response"],
            "finish_reason": r["finish_reason"],
            "model": r["model"],
            "sample": r["sample"],
        }
        for r in rows
    ]
    with tempfile.TemporaryDirectory() as tmp:
        plain = write_jsonl(Path(tmp) / "plain.jsonl", lines)
        batch = write_jsonl(Path(tmp) / "batch.jsonl", batch_output(rows))
        assert verdicts(score_answers(read_answers(plain), small_items)) == expected
        assert verdicts(score_answers(read_answers(batch, model="test/replay"), small_items)) == (
            expected
        )


def test_batch_requests_checks_its_arguments_at_once() -> None:
    from twosat_formal.errors import ConfigError

    with pytest.raises(ConfigError, match="samples"):
        batch_requests([], "m", SamplingParams(), samples=0)
