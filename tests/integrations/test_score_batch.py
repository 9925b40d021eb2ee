"""``score`` of a Batch API output file never changes who got what right.

``eval`` asks a real loopback server (right, wrong, truncated, failed and malformed
replies); the same answers, written as the Batch API writes them (chat completions, a
Responses API body, error lines before and after the answers), are scored by ``score``:
the rows and the summary must be ``eval``'s.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import make_items, oracle_answer, write_inputs
from tests.support.faultserver import FaultServer
from tests.support.jsonl import read_jsonl, write_jsonl
from twosat_formal.cli import main
from twosat_formal.errors import RecordError
from twosat_formal.integrations.answers import custom_id, read_answer_stream, read_answers

#: The columns of a judgement (and of the answer it judged) that must agree.
SAME = (
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
    "response",
    "finish_reason",
)
#: What the server does with each prompt, by item index (beyond the end: a right answer).
PLAN = ("right", "wrong", "length", "500", "malformed", "responses", "right", "500")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def keyed(rows: list[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(r["model"], r["prompt_id"], r["sample"]): r for r in rows}


def wrong_answer(label: str) -> str:
    return "I checked it.\nThe answer is: " + ("No" if label == "SAT" else "Yes")


def batch_line(index: int, kind: str, row: dict[str, Any]) -> dict[str, Any]:
    """The Batch API output line of one request whose ``eval`` result is ``row``."""
    cid = custom_id(row["prompt_id"], row["sample"])
    if kind == "500":
        if index % 2:  # both forms of a failed request: an error object, an HTTP status
            return {"custom_id": cid, "response": None, "error": {"code": "server_error"}}
        status = {"status_code": 500, "body": {"error": {"message": "server error"}}}
        return {"custom_id": cid, "response": status, "error": None}
    if kind == "malformed":
        body: dict[str, Any] = {"model": "m", "choices": [{"message": "not an object"}]}
    elif kind == "responses":
        body = {
            "object": "response",
            "model": "m",
            "status": "completed",
            "output": [
                {"type": "reasoning", "summary": []},
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": row["response"]}],
                },
            ],
            "usage": {"input_tokens": 10, "output_tokens": 3},
        }
    else:
        choice = {"index": 0, "message": {"role": "assistant", "content": row["response"]}}
        body = {"model": "m", "choices": [{**choice, "finish_reason": row["finish_reason"]}]}
    reply = {"status_code": 200, "request_id": f"req-{index}", "body": body}
    return {"id": f"batch_req_{index}", "custom_id": cid, "response": reply, "error": None}


@pytest.mark.slow
def test_a_batch_output_scores_exactly_as_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = make_items(len(PLAN), seed=5)
    prompts, dataset = write_inputs(tmp_path, items)
    kinds = {item.prompt.text: kind for item, kind in zip(items, PLAN, strict=True)}
    answers = {
        item.prompt.text: wrong_answer(item.label)
        if kinds[item.prompt.text] == "wrong"
        else oracle_answer(item)
        for item in items
    }
    faults = {"length": "length", "500": "500", "malformed": "malformed"}
    store = tmp_path / "eval.sqlite"
    with FaultServer(plan=lambda p, a: faults.get(kinds[p], "ok"), answer=answers) as server:
        code, out, err = run(
            capsys, "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
            "--base-url", server.url, "--store", str(store), "--no-progress",
            "--max-attempts", "1", "--json",
        )  # fmt: skip
    assert code == 0, err
    eval_summary = json.loads(out)
    code, _, err = run(capsys, "results", str(store), "--out", str(tmp_path / "eval.jsonl"))
    assert code == 0, err
    expected = keyed(read_jsonl(tmp_path / "eval.jsonl"))
    by_prompt = {item.prompt.id: kind for item, kind in zip(items, PLAN, strict=True)}
    lines = [
        batch_line(index, by_prompt[row["prompt_id"]], row)
        for index, row in enumerate(expected.values())
    ]
    lines.sort(key=lambda line: line["error"] is None)  # failed requests first
    batch = write_jsonl(tmp_path / "batch_output.jsonl", lines)

    scored_path = tmp_path / "scored.jsonl"
    code, out, err = run(
        capsys, "score", str(batch), "--prompts", str(prompts), "--dataset", str(dataset),
        "--out", str(scored_path), "--store", str(tmp_path / "score.sqlite"), "--json",
    )  # fmt: skip
    assert code == 0, err
    score_summary = json.loads(out)
    scored = keyed(read_jsonl(scored_path))
    assert scored.keys() == expected.keys()  # one model, openai/m: no phantom model
    assert {key[0] for key in scored} == {"openai/m"}
    for key, row in expected.items():
        assert {c: scored[key][c] for c in SAME} == {c: row[c] for c in SAME}, key
        assert (scored[key]["error"] is None) == (row["error"] is None), key
    kinds_seen = Counter(row["failure"] for row in expected.values())
    assert kinds_seen["error"] == 3 and kinds_seen["correct"] >= 3 and kinds_seen["truncated"] == 1
    assert score_summary["failures"] == eval_summary["failures"] == dict(sorted(kinds_seen.items()))
    assert score_summary["correct"] == kinds_seen["correct"]
    assert score_summary["accuracy"] == kinds_seen["correct"] / len(PLAN)
    reports = []
    for name in ("eval", "score"):
        folder = tmp_path / f"report-{name}"
        code, _, err = run(capsys, "report", str(tmp_path / f"{name}.sqlite"), "--out", str(folder))
        assert code == 0, err
        reports.append(json.loads((folder / "report.json").read_text(encoding="utf-8")))
    # the same report, one model; but for the budget, which eval's store knows from the
    # requests it sent and score's cannot know (the batch's requests were sent elsewhere)
    assert reports[0].pop("budgets") == {"openai/m": [32768]}
    assert reports[1].pop("budgets") == {"openai/m": []}
    assert reports[0] == reports[1]
    malformed = next(r for r in scored.values() if by_prompt[r["prompt_id"]] == "malformed")
    line = 1 + next(i for i, x in enumerate(lines) if x["custom_id"] == malformed["prompt_id"])
    assert malformed["error"].startswith(f"line {line}: malformed reply")


def _error_line(cid: str) -> dict[str, Any]:
    return {"custom_id": cid, "response": None, "error": {"code": "e", "message": "gone"}}


def _answer_line(cid: str, model: str) -> dict[str, Any]:
    body = {"model": model, "choices": [{"message": {"content": "The answer is: No"}}]}
    return {"custom_id": cid, "response": {"status_code": 200, "body": body}, "error": None}


def test_failed_requests_take_the_batch_model_or_ask_for_one(tmp_path: Path) -> None:
    one = write_jsonl(tmp_path / "one.jsonl", [_error_line("a"), _answer_line("b", "gpt-x")])
    assert [(a.prompt_id, a.model, a.error) for a in read_answers(one)] == [
        ("b", "openai/gpt-x", None),
        ("a", "openai/gpt-x", "e: gone"),
    ]
    assert {a.model for a in read_answers(one, model="mine")} == {"mine"}
    failed = write_jsonl(tmp_path / "failed.jsonl", [_error_line("a")])
    with pytest.raises(RecordError, match=r"failed.jsonl:1: .*no line of the file names a model"):
        list(read_answers(failed))
    assert [a.model for a in read_answers(failed, model="mine")] == ["mine"]
    two = write_jsonl(
        tmp_path / "two.jsonl",
        [_answer_line("a", "x"), _answer_line("b", "y"), _error_line("c")],
    )
    with pytest.raises(RecordError, match=r"two.jsonl:3: .*several: openai/x \(line 1\)"):
        list(read_answers(two))


def test_a_file_that_is_not_json_lines_still_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = make_items(2)
    prompts, dataset = write_inputs(tmp_path, items)
    bad = tmp_path / "batch.json"
    bad.write_text(json.dumps([_answer_line(items[0].prompt.id, "m")], indent=2) + "\n")
    out = tmp_path / "scored.jsonl"
    code, _, err = run(
        capsys, "score", str(bad), "--prompts", str(prompts), "--dataset", str(dataset),
        "--out", str(out),
    )  # fmt: skip
    assert code == 2 and "batch.json:1: invalid JSON" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    failed = write_jsonl(tmp_path / "failed.jsonl", [_error_line(items[0].prompt.id)])
    code, _, err = run(
        capsys, "score", str(failed), "--prompts", str(prompts), "--dataset", str(dataset),
        "--out", str(out),
    )  # fmt: skip
    assert code == 2 and "give the model with --model" in err and not out.exists()


@pytest.mark.parametrize("kind", ["missing", "directory", "empty"])
def test_an_answers_file_that_cannot_be_read_leaves_no_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A refused answers file (missing, a directory, empty) exits 2 naming it, and
    ``--store`` leaves no store behind, as for a bad line (the store is made before
    the answers are read)."""
    items = make_items(2)
    prompts, dataset = write_inputs(tmp_path, items)
    answers = tmp_path / "batch_output.jsonl"
    if kind == "directory":
        answers.mkdir()
    elif kind == "empty":
        answers.write_bytes(b"")
    store, out = tmp_path / "runs.sqlite", tmp_path / "scored.jsonl"
    code, _, err = run(
        capsys, "score", str(answers), "--prompts", str(prompts), "--dataset", str(dataset),
        "--out", str(out), "--store", str(store),
    )  # fmt: skip
    assert code == 2 and f"{answers}:" in err and "Traceback" not in err
    assert not out.exists()
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("runs.sqlite"))
    assert left == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"custom_id": 7}, "field 'custom_id' must be a string, not number"),
        # another service's batch results (Anthropic's ``result``): no Batch API line
        (
            {"custom_id": "p", "result": {"type": "succeeded", "message": {"content": []}}},
            "field 'response' must be an object (or null with an 'error')",
        ),
        ({"custom_id": "p", "response": None, "error": None}, "field 'response' must be"),
        ({"custom_id": "p", "response": "No"}, "field 'response' must be an object"),
        (
            {"prompt_id": "p", "response": "No", "sample": "1"},
            "field 'sample' must be an integer, not string",
        ),
        ({"doc": {"id": None}, "resps": [["No"]]}, "field 'doc.id' must be a string, not null"),
    ],
)
def test_a_bad_answer_field_exits_2_with_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: dict[str, Any], message: str
) -> None:
    items = make_items(1)
    prompts, dataset = write_inputs(tmp_path, items)
    good = {"prompt_id": items[0].prompt.id, "response": "The answer is: Yes"}
    answers = write_jsonl(tmp_path / "answers.jsonl", [good, line])
    out = tmp_path / "scored.jsonl"
    code, _, err = run(
        capsys, "score", str(answers), "--prompts", str(prompts), "--dataset", str(dataset),
        "--out", str(out),
    )  # fmt: skip
    assert code == 2 and f"answers.jsonl:2: {message}" in err and "Traceback" not in err
    assert not out.exists()


@settings(max_examples=50, deadline=None)
@given(
    parts=st.lists(st.text(max_size=20), min_size=1, max_size=3),
    finish=st.sampled_from(["stop", "length"]),
    reasoning=st.one_of(st.none(), st.text(min_size=1, max_size=20)),
)
def test_a_responses_api_line_reads_as_the_chat_completion_line(
    parts: list[str], finish: str, reasoning: str | None
) -> None:
    text = "".join(parts)
    message: dict[str, Any] = {"content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    chat = {"model": "m", "choices": [{"message": message, "finish_reason": finish}]}
    output: list[dict[str, Any]] = []
    if reasoning is not None:
        output.append(
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}]}
        )
    content = [{"type": "output_text", "text": part} for part in parts]
    output.append({"type": "message", "role": "assistant", "content": content})
    responses: dict[str, Any] = {"object": "response", "model": "m", "output": output}
    if finish == "length":
        responses["status"] = "incomplete"
        responses["incomplete_details"] = {"reason": "max_output_tokens"}
    else:
        responses["status"] = "completed"
    lines = [
        {"custom_id": cid, "response": {"status_code": 200, "body": body}}
        for cid, body in (("a", chat), ("b", responses))
    ]
    stream = io.StringIO("\n".join(json.dumps(line) for line in lines))
    first, second = read_answer_stream(stream, "<mem>")
    assert first.response is not None and first.response == second.response
    assert first.response.text == text and first.response.reasoning == reasoning
    assert first.response.truncated == (finish == "length")


def test_a_key_twice_in_a_batch_line_is_refused_with_its_line(tmp_path: Path) -> None:
    """A reply whose ``content`` comes twice has no one answer: the line is refused."""
    good = json.dumps(_answer_line("a", "m"))
    twice = good.replace('"content": ', '"content": "The answer is: Yes", "content": ', 1)
    path = tmp_path / "batch.jsonl"
    path.write_text(good + "\n" + twice + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=r"batch.jsonl:2: the key 'content' appears twice"):
        list(read_answers(path))


def test_an_lm_eval_results_file_with_a_key_twice_is_refused(tmp_path: Path) -> None:
    from twosat_formal.integrations.answers import lm_eval_model_name

    folder = tmp_path / "org__model"
    folder.mkdir()
    samples = folder / "samples_twosat_2026-01-02T03-04-05.678901.jsonl"
    results = folder / "results_2026-01-02T03-04-05.678901.json"
    results.write_text('{"model_name": "org/a",\n "model_name": "org/b"}', encoding="utf-8")
    with pytest.raises(RecordError, match=r"results_.*\.json:2: the key 'model_name'"):
        lm_eval_model_name(samples)
    results.write_text('{"model_name": "org/a"}', encoding="utf-8")
    assert lm_eval_model_name(samples) == "org/a"
