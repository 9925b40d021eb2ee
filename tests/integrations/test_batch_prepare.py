"""``batch prepare`` writes requests the API accepts; reasoning-model fields in it and ``eval``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import answers_for, make_items, write_inputs
from tests.support.faultserver import FaultServer
from tests.support.integrations import cli, make_dataset
from tests.support.jsonl import read_jsonl
from twosat_formal.core.model import SamplingParams
from twosat_formal.errors import ConfigError
from twosat_formal.integrations.batch import batch_requests, part_paths, write_batch

#: What the OpenAI API takes as a model id (its own ids, fine-tunes, vLLM repo names).
API_MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]*")
#: The fields of a chat completions body this package may send.
CHAT_FIELDS = {
    "model",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "seed",
    "reasoning_effort",
}


def prepare(capsys: pytest.CaptureFixture[str], prompts: Path, *args: str) -> tuple[int, str]:
    code, _, err = cli(capsys, "batch", "prepare", str(prompts), *args)
    return code, err


def test_a_spec_writes_the_provider_id_and_its_options_into_the_body(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, prompts, records = make_dataset(tmp_path)
    out = tmp_path / "requests.jsonl"
    spec = "openai/gpt-4o-mini?max_tokens=100&temperature=0"
    code, err = prepare(capsys, prompts, "--model", spec, "--out", str(out), "--seed", "3")
    assert code == 0, err
    rows = read_jsonl(out)
    assert len(rows) == len(records)
    for row in rows:
        body = row["body"]
        assert body["model"] == "gpt-4o-mini" and API_MODEL_ID.fullmatch(body["model"])
        assert (body["max_tokens"], body["temperature"], body["seed"]) == (100, 0.0, 3)
        assert set(body) <= CHAT_FIELDS
    code, err = prepare(capsys, prompts, "-m", "openai/m?mode=completion", "--out", str(out))
    assert code == 0 and {r["url"] for r in read_jsonl(out)} == {"/v1/completions"}
    # a vLLM repo id is an id too
    code, err = prepare(capsys, prompts, "-m", "Qwen/Qwen3-0.6B", "--out", str(out))
    assert code == 0 and read_jsonl(out)[0]["body"]["model"] == "Qwen/Qwen3-0.6B"


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("gpt 4o", "model id 'gpt 4o' holds ' ', which the API refuses"),
        ("gpt-4o?max_tokens=5", "holds a '?': options go after an openai/ spec"),
        ("openai/gpt-4o?max_tokens=5?x", "option max_tokens='5?x' is not an integer"),
        ("openai/gpt\t4o", "holds '\\t'"),
        ("ref/oracle", "is not one"),
        ("openai/", "names no model"),
        ("openai/m?max_tokens=0", "max_tokens='0' is not an integer in [1, "),
        ("openai/m?reasoning_effort=extreme", "reasoning_effort='extreme' is not one of"),
    ],
)
def test_an_id_the_api_refuses_is_an_error_before_anything_is_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, model: str, message: str
) -> None:
    _, prompts, _ = make_dataset(tmp_path)
    out = tmp_path / "requests.jsonl"
    code, err = prepare(capsys, prompts, "--model", model, "--out", str(out))
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not list(tmp_path.glob("requests*"))


def test_reasoning_fields_and_extra_body_fields(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, prompts, _ = make_dataset(tmp_path)
    out = tmp_path / "requests.jsonl"
    fields = ["--max-completion-tokens", "900", "--reasoning-effort", "high"]
    fields += ["--body", "top_k=20", "--body", 'chat_template_kwargs={"enable_thinking": false}']
    code, err = prepare(capsys, prompts, "-m", "o3-mini", "--out", str(out), *fields)
    assert code == 0, err
    body = read_jsonl(out)[0]["body"]
    assert "max_tokens" not in body  # reasoning models refuse it
    assert body["max_completion_tokens"] == 900 and body["reasoning_effort"] == "high"
    assert body["top_k"] == 20 and body["chat_template_kwargs"] == {"enable_thinking": False}
    spec = "openai/o3-mini?reasoning_effort=low&max_completion_tokens=50"
    code, err = prepare(capsys, prompts, "-m", spec, "--out", str(out))
    assert code == 0, err
    body = read_jsonl(out)[0]["body"]
    assert (body["reasoning_effort"], body["max_completion_tokens"]) == ("low", 50)
    for bad, message in [
        (["--body", "model=x"], "the body field 'model' is set by its own option"),
        (["--body", "top_k"], "body field 'top_k' is not KEY=VALUE"),
        (["--body", "a=1", "--body", "a=2"], "parameter 'a' is set twice in --body"),
        (["--reasoning-effort", "extreme"], "reasoning_effort must be one of"),
    ]:
        code, err = prepare(capsys, prompts, "-m", "m", "--out", str(tmp_path / "x.jsonl"), *bad)
        assert code == 2 and message in err, err
        assert not (tmp_path / "x.jsonl").exists()


def test_eval_sends_the_same_reasoning_fields(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = make_items(3)
    prompts, dataset = write_inputs(tmp_path, items)
    fields = ["--max-completion-tokens", "900", "--reasoning-effort", "minimal"]
    fields += ["--body", "top_k=20", "--body", "chat_template_kwargs={}"]
    with FaultServer(answer=answers_for(items)) as server:
        code, _, err = cli(
            capsys, "eval", str(prompts), "--dataset", str(dataset), "--model", "openai/m",
            "--base-url", server.url, "--store", str(tmp_path / "s.sqlite"), "--no-progress",
            *fields,
        )  # fmt: skip
        bodies = [entry.body for entry in server.log]
    assert code == 0, err
    assert len(bodies) == len(items)
    for body in bodies:
        assert body is not None and "max_tokens" not in body
        assert body["max_completion_tokens"] == 900 and body["reasoning_effort"] == "minimal"
        assert body["top_k"] == 20 and body["chat_template_kwargs"] == {}
    # the same requests as batch prepare writes
    out = tmp_path / "requests.jsonl"
    code, err = prepare(capsys, prompts, "-m", "m", "--out", str(out), *fields)
    assert code == 0, err
    written = {json.dumps(r["body"], sort_keys=True) for r in read_jsonl(out)}
    assert written == {json.dumps(b, sort_keys=True) for b in bodies}


def test_the_store_key_of_plain_parameters_is_unchanged() -> None:
    assert SamplingParams(max_tokens=8, seed=1).key() == (
        '{"max_tokens":8,"seed":1,"temperature":null,"top_p":null}'
    )
    reasoning = SamplingParams(max_tokens=8, reasoning_effort="low").key()
    assert json.loads(reasoning)["reasoning_effort"] == "low"
    assert reasoning != SamplingParams(max_tokens=8).key()


def test_files_over_the_limits_are_split_into_numbered_parts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, prompts, records = make_dataset(tmp_path, per_family=2)
    whole = tmp_path / "whole.jsonl"
    code, err = prepare(capsys, prompts, "-m", "m", "--out", str(whole), "--samples", "2")
    assert code == 0 and "requests written to" in err
    lines = whole.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 * len(records) > 3
    out = tmp_path / "requests.jsonl"
    code, err = prepare(
        capsys, prompts, "-m", "m", "--out", str(out), "--samples", "2", "--max-requests", "3"
    )
    assert code == 0, err
    parts = part_paths(out, -(-len(lines) // 3))
    assert sorted(tmp_path.glob("requests*")) == sorted(parts) and not out.exists()
    got = [p.read_text(encoding="utf-8").splitlines() for p in parts]
    assert all(len(part) == 3 for part in got[:-1]) and 1 <= len(got[-1]) <= 3
    assert [line for part in got for line in part] == lines
    assert err.count("requests written to") == len(parts)
    limit = max(len(line.encode()) + 1 for line in lines) + 10
    by_size = tmp_path / "sized.jsonl"
    code, err = prepare(capsys, prompts, "-m", "m", "--out", str(by_size), "--samples", "2",
                        "--max-bytes", str(limit))  # fmt: skip
    assert code == 0, err
    sized = sorted(tmp_path.glob("sized.part*.jsonl"), key=lambda p: int(p.stem.split("part")[1]))
    assert len(sized) > 1 and all(p.stat().st_size <= limit for p in sized)
    assert [ln for p in sized for ln in p.read_text(encoding="utf-8").splitlines()] == lines


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 40), max_size=30),
    max_requests=st.integers(1, 8),
    max_bytes=st.integers(60, 200),
)
def test_write_batch_parts_keep_the_order_and_the_limits(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], max_requests: int, max_bytes: int
) -> None:
    folder = tmp_path_factory.mktemp("parts")
    rows = [{"custom_id": f"p{i}", "x": "a" * n} for i, n in enumerate(sizes)]
    encoded = [(json.dumps(row) + "\n").encode() for row in rows]
    if any(len(line) > max_bytes for line in encoded):
        with pytest.raises(ConfigError, match="more than a file may hold"):
            write_batch(rows, folder / "r.jsonl", max_requests=max_requests, max_bytes=max_bytes)
        assert list(folder.iterdir()) == []
        return
    files = write_batch(rows, folder / "r.jsonl", max_requests=max_requests, max_bytes=max_bytes)
    contents = [path.read_bytes() for path, _ in files]
    assert b"".join(contents) == b"".join(encoded)
    assert [n for _, n in files] == [c.count(b"\n") for c in contents]
    assert [p for p, _ in files] == part_paths(folder / "r.jsonl", len(files))
    assert sorted(folder.iterdir()) == sorted(p for p, _ in files)
    for index, content in enumerate(contents):
        assert content.count(b"\n") <= max_requests and len(content) <= max_bytes
        if index + 1 < len(contents):  # a part ends only where the next line would not fit
            following = encoded[sum(n for _, n in files[: index + 1])]
            full = content.count(b"\n") == max_requests
            assert full or len(content) + len(following) > max_bytes


def test_an_experiment_spec_sends_the_reasoning_fields_it_names() -> None:
    from twosat_formal.errors import RecordError
    from twosat_formal.study.experiments.runner import ExperimentConfig
    from twosat_formal.study.experiments.spec import load_spec, parse_spec

    good = load_spec("order").to_json()
    sampling = {"max_completion_tokens": 900, "reasoning_effort": "high"}
    spec = parse_spec({**good, "sampling": sampling})
    params = ExperimentConfig().sampling(spec)
    assert (params.max_completion_tokens, params.reasoning_effort) == (900, "high")
    with pytest.raises(RecordError, match="reasoning_effort='huge' is not one of"):
        parse_spec({**good, "sampling": {"reasoning_effort": "huge"}})


class Prompt(NamedTuple):
    """A prompt as a request line needs it."""

    id: str
    text: str


#: Values that are no count: flags, fractions, text, nothing, lists.
NOT_COUNTS = st.one_of(st.booleans(), st.floats(), st.text(max_size=3), st.none(), st.just([1]))


@given(
    name=st.sampled_from(["samples", "max_requests", "max_bytes"]),
    value=st.one_of(st.integers(-3, 3), NOT_COUNTS),
)
def test_counts_are_integers_of_at_least_one_refused_before_anything_is_made(
    tmp_path_factory: pytest.TempPathFactory, name: str, value: object
) -> None:
    out = tmp_path_factory.mktemp("limits") / "r.jsonl"
    prompts = [Prompt("p1", "Is A true?")]

    def run() -> object:
        if name == "samples":
            return list(batch_requests(prompts, "m", SamplingParams(), samples=value))  # type: ignore[arg-type]
        rows = batch_requests(prompts, "m", SamplingParams())
        return write_batch(rows, out, **{name: value})  # type: ignore[arg-type]

    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        if name == "max_bytes":
            value *= 1000  # room for the one request
        assert run()
        return
    with pytest.raises(ConfigError) as info:
        run()
    assert str(info.value) == f"{name} must be an integer >= 1, got {value!r}"
    assert (info.value.parameter, info.value.valid) == (name, "an integer >= 1")
    assert not out.exists()


@pytest.mark.parametrize("mode", ["fax", "", "Chat", None])
def test_a_mode_is_chat_or_completion(mode: object) -> None:
    with pytest.raises(ConfigError) as info:
        batch_requests([Prompt("p", "T")], "m", SamplingParams(), mode=mode)  # type: ignore[arg-type]
    assert str(info.value) == f"unknown mode {mode!r}"
    assert (info.value.parameter, info.value.valid) == ("mode", "chat or completion")
    for good in ("chat", "completion"):
        assert list(batch_requests([Prompt("p", "T")], "m", SamplingParams(), mode=good))


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("n=3", "body field 'n' = 3 cannot be honoured: only the first choice is scored"),
        ("n=0", "body field 'n' = 0 cannot be honoured"),
        ("n=1.0", "body field 'n' = 1.0 cannot be honoured"),
        ("stream=true", "body field 'stream' = true cannot be honoured"),
        ("stream=yes", "body field 'stream' = \"yes\" cannot be honoured"),
        ('stream_options={"include_usage": true}', "body field 'stream_options'"),
        ("echo=true", "body field 'echo' = true cannot be honoured"),
    ],
)
def test_body_fields_the_pipeline_cannot_honour_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, field: str, message: str
) -> None:
    """``n`` other than 1 (only the first choice is scored), a stream, an echo."""
    _, prompts, _ = make_dataset(tmp_path)
    out = tmp_path / "x.jsonl"
    code, err = prepare(capsys, prompts, "-m", "m", "--out", str(out), "--body", field)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert not out.exists()


def test_body_fields_at_the_value_the_pipeline_reads_are_sent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, prompts, _ = make_dataset(tmp_path)
    out = tmp_path / "x.jsonl"
    fields = ["--body", "n=1", "--body", "stream=false", "--body", "echo=false"]
    code, err = prepare(capsys, prompts, "-m", "m", "--out", str(out), *fields)
    assert code == 0, err
    body = read_jsonl(out)[0]["body"]
    assert (body["n"], body["stream"], body["echo"]) == (1, False, False)
