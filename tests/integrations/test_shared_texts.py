"""Prompts with one text are one request through ``batch prepare`` and ``score``.

Small certified instances often verbalize alike: ``eval`` asks such a text once, and
the store gives its answer to every prompt with that text. A batch round trip must
do the same: one request per text, every prompt's row holds the answer to its own
text, and the summary counts what the rows say. Two different answers to one text
(an answer file made by hand, or a batch of an older version) are refused, naming
both prompts, with the line.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli
from tests.support.jsonl import read_jsonl, write_jsonl
from twosat_formal.integrations.answers import split_custom_id
from twosat_formal.io.instance import write_instances
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record
from twosat_formal.verbalize.prompts import PromptRecord, write_prompts


def shared_dataset(folder: Path) -> tuple[Path, Path, list[PromptRecord]]:
    """Tiny instances, SAT and UNSAT, whose prompts share texts (20 prompts, < 20 texts)."""
    instances = [
        generate(family, clauses=clauses, seed=seed)
        for family, clauses in (("implication-cycle", 3), ("equivalence-core", 2))
        for seed in range(10)
    ]
    prompts = [prompt_record(i.formula, "logic", instance_id=i.id, seed=0) for i in instances]
    dataset, prompt_file = folder / "dataset.jsonl", folder / "prompts.jsonl"
    write_instances(instances, dataset)
    write_prompts(prompts, prompt_file)
    return dataset, prompt_file, prompts


def reply(custom_id: str, content: str) -> dict[str, Any]:
    body = {"model": "m", "choices": [{"message": {"content": content}, "finish_reason": "stop"}]}
    return {"custom_id": custom_id, "response": {"status_code": 200, "body": body}, "error": None}


def score(
    capsys: pytest.CaptureFixture[str], folder: Path, lines: list[dict[str, Any]], *extra: str
) -> tuple[int, str, str]:
    """``score`` the reply ``lines`` (written to ``out.jsonl``) against the prompts and the
    dataset :func:`shared_dataset` wrote in ``folder``, into ``scored.jsonl``."""
    output = write_jsonl(folder / "out.jsonl", lines)
    return cli(
        capsys, "score", str(output), "--prompts", str(folder / "prompts.jsonl"),
        "--dataset", str(folder / "dataset.jsonl"), "--out", str(folder / "scored.jsonl"),
        *extra,
    )  # fmt: skip


def sharing_one_text(prompts: list[PromptRecord]) -> list[str]:
    """The ids of the first group of prompts that share one text (at least two)."""
    by_text: dict[str, list[str]] = {}
    for p in prompts:
        by_text.setdefault(p.text, []).append(p.id)
    return next(ids for ids in by_text.values() if len(ids) > 1)


def yes_no(index: int) -> str:
    return "The answer is: " + ("Yes" if index % 2 == 0 else "No")


def prepare(capsys: pytest.CaptureFixture[str], folder: Path, samples: int = 1) -> list[Any]:
    dataset, prompt_file, _ = shared_dataset(folder)
    requests = folder / "requests.jsonl"
    code, _, err = cli(
        capsys, "batch", "prepare", str(prompt_file), "--dataset", str(dataset),
        "--model", "gpt-x", "--out", str(requests), "--samples", str(samples),
    )  # fmt: skip
    assert code == 0, err
    return read_jsonl(requests)


def test_batch_prepare_writes_one_request_per_text_and_sample(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, _, prompts = shared_dataset(tmp_path)
    texts = {p.text for p in prompts}
    assert len(texts) < len(prompts)  # the case under test: shared texts
    rows = prepare(capsys, tmp_path, samples=2)
    asked = [(row["body"]["messages"][0]["content"], split_custom_id(row["custom_id"])[1])
             for row in rows]  # fmt: skip
    assert sorted(asked) == sorted((text, k) for text in texts for k in (0, 1))
    first: dict[str, str] = {}
    for p in prompts:
        first.setdefault(p.text, p.id)
    assert {split_custom_id(row["custom_id"])[0] for row in rows} == set(first.values())


def test_a_batch_round_trip_gives_each_prompt_its_texts_answer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = prepare(capsys, tmp_path)
    *_, prompts = shared_dataset(tmp_path)
    answers = {row["body"]["messages"][0]["content"]: yes_no(i) for i, row in enumerate(rows)}
    lines = [
        reply(row["custom_id"], answers[row["body"]["messages"][0]["content"]]) for row in rows
    ]
    code, out, err = score(capsys, tmp_path, lines, "--json")
    scored = tmp_path / "scored.jsonl"
    assert code == 0, err
    result = read_jsonl(scored)
    text_of = {p.id: p.text for p in prompts}
    assert sorted(r["prompt_id"] for r in result) == sorted(text_of)
    for row in result:  # each row holds the answer to its own prompt's text
        assert row["response"] == answers[text_of[row["prompt_id"]]], row["prompt_id"]
    summary = json.loads(out)
    assert summary["scored"] == len(result)
    assert summary["correct"] == sum(r["failure"] == "correct" for r in result)
    assert summary["failures"] == dict(sorted(Counter(r["failure"] for r in result).items()))


def test_different_answers_to_one_text_are_refused_naming_both_prompts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    *_, prompts = shared_dataset(tmp_path)
    group = sharing_one_text(prompts)
    first, second = group[:2]
    answer = {p.text: yes_no(i) for i, p in enumerate(prompts)}
    lines = [reply(p.id, answer[p.text]) for p in prompts]
    lines = [line for line in lines if line["custom_id"] not in group]
    lines += [reply(first, "The answer is: Yes"), reply(second, "The answer is: No")]
    code, _, err = score(capsys, tmp_path, lines)
    assert code == 2, err
    assert f"out.jsonl:{len(lines)}:" in err
    assert repr(first) in err and repr(second) in err
    assert "Traceback" not in err
    assert not (tmp_path / "scored.jsonl").exists()


def test_equal_answers_to_one_text_are_one_answer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    *_, prompts = shared_dataset(tmp_path)
    answer = {p.text: yes_no(i) for i, p in enumerate(prompts)}
    code, out, err = score(
        capsys, tmp_path, [reply(p.id, answer[p.text]) for p in prompts], "--json"
    )
    scored = tmp_path / "scored.jsonl"
    assert code == 0, err
    result = read_jsonl(scored)
    assert len(result) == len(prompts) == json.loads(out)["scored"]
    assert all(r["response"] == answer[p.text] for r, p in
               zip(sorted(result, key=lambda r: r["prompt_id"]),
                   sorted(prompts, key=lambda p: p.id), strict=True))  # fmt: skip


def test_a_second_answer_to_one_prompt_names_that_prompts_first_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    *_, prompts = shared_dataset(tmp_path)
    first, second = sharing_one_text(prompts)[:2]
    same = "The answer is: Yes"
    lines = [reply(first, same), reply(second, same), reply(second, same)]
    code, _, err = score(capsys, tmp_path, lines)
    assert code == 2, err
    assert f"out.jsonl:3: model 'openai/m' answered prompt {second!r} sample 0 twice" in err
    assert "(first at " in err and err.rstrip().endswith("out.jsonl:2)")
