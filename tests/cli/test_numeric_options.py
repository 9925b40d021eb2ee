"""Numbers out of range are one line on stderr and exit code 2: no traceback, no silent use.

Huge sizes (``--count``, ``--clauses``, ``--set n=``, an operator's ``count``),
non-finite or negative rates and time-outs, sampling parameters outside their range
and a base URL whose port is not a port, each given to the command that takes it.
``eval`` refuses them before it creates its store.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.cli import cli, error_lines
from twosat_formal._util.executors import MAX_JOBS
from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.core.model import MAX_SEED, MAX_TOKENS, SamplingParams
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record

HUGE = "99999999999999999999"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    inst = generate("backbone", clauses=8, seed=1)
    made = prompt_record(inst.formula, "logic", instance_id=inst.id, seed=1)
    (folder / "dataset.jsonl").write_text(inst.to_json() + "\n", encoding="utf-8")
    (folder / "prompts.jsonl").write_text(json.dumps(made.to_record()) + "\n", encoding="utf-8")
    return folder


GENERATE = {
    "--count": ["--count", HUGE],
    "--count just over": ["--count", str(MAX_SIZE + 1)],
    "--clauses": ["--clauses", HUGE],
    "--clauses just over": ["--clauses", str(MAX_SIZE + 1)],
    "--set n=": ["--set", f"n={HUGE}"],
    "--count 0": ["--count", "0"],
    "--jobs": ["--count", "2", "--jobs", HUGE],
    "--jobs just over": ["--count", "2", "--jobs", str(MAX_JOBS + 1)],
}

EVAL = {
    "--timeout 1e400": ["--timeout", "1e400"],
    "--timeout nan": ["--timeout", "nan"],
    "--tpm 1e400": ["--tpm", "1e400"],
    "--rpm 1e400": ["--rpm", "1e400"],
    "--rpm nan": ["--rpm", "nan"],
    "--temperature -1": ["--temperature", "-1"],
    "--temperature inf": ["--temperature", "inf"],
    "--top-p 2": ["--top-p", "2"],
    "--top-p 0": ["--top-p", "0"],
    "--seed -1": ["--seed", "-1"],
    "--seed huge": ["--seed", HUGE],
    "--max-tokens huge": ["--max-tokens", HUGE],
    "spec temperature": ["-m", "ref/oracle?temperature=-1"],
    "spec tpm": ["-m", "openai/m?tpm=1e400"],
    "port too large": ["-m", "openai/m", "--base-url", "http://127.0.0.1:99999/v1"],
    "port not a number": ["-m", "openai/m", "--base-url", "http://127.0.0.1:http/v1"],
    "port zero": ["-m", "openai/m", "--base-url", "http://127.0.0.1:0/v1"],
    "--samples huge": ["--samples", HUGE],
    "--samples just over": ["--samples", str(MAX_SIZE + 1)],
}


def one_line(code: int, out: str, err: str) -> None:
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err


@pytest.mark.parametrize("case", sorted(GENERATE))
def test_generate_refuses_an_absurd_size_in_one_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    one_line(*cli(capsys, "generate", "backbone", *GENERATE[case], "--out", str(out)))
    assert not out.exists()


def test_perturb_refuses_an_absurd_operator_count(
    inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    for count in (HUGE, str(MAX_SIZE + 1), "1e9"):
        argv = ["perturb", str(inputs / "dataset.jsonl"), "--op", "filler", "--set"]
        one_line(*cli(capsys, *argv, f"count={count}", "--out", str(out)))
        assert not out.exists()


@pytest.mark.parametrize("case", sorted(EVAL))
def test_eval_refuses_a_bad_number_in_one_line_before_the_store(
    case: str, inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = EVAL[case]
    model = [] if "-m" in argv else ["-m", "ref/oracle"]
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(
        capsys,
        "eval", str(inputs / "prompts.jsonl"), "--dataset", str(inputs / "dataset.jsonl"),
        "--store", str(store), "--no-progress", *model, *argv,
    )  # fmt: skip
    one_line(code, out, err)
    assert not store.exists()


@given(
    st.sampled_from(["max_tokens", "temperature", "top_p", "seed"]),
    st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True)),
)
def test_sampling_params_take_exactly_the_values_of_their_range(name: str, value: float) -> None:
    """The range of each parameter, written out here again, decides acceptance."""
    integer = name in ("max_tokens", "seed")
    finite = value == value and value not in (float("inf"), float("-inf"))
    valid = (
        finite
        and (not integer or isinstance(value, int))
        and {
            "max_tokens": lambda v: 1 <= v <= MAX_TOKENS,
            "temperature": lambda v: v >= 0,
            "top_p": lambda v: 0 < v <= 1,
            "seed": lambda v: 0 <= v <= MAX_SEED,
        }[name](value)
    )
    if valid:
        assert getattr(SamplingParams(**{name: value}), name) == value  # type: ignore[arg-type]
    else:
        with pytest.raises(ConfigError):
            SamplingParams(**{name: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("command", ["certify", "verbalize"])
def test_jobs_out_of_range_is_refused_even_where_no_worker_starts(
    command: str, inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["-t", "logic", "--out", str(tmp_path / "out.jsonl")] if command == "verbalize" else []
    for jobs in (HUGE, str(MAX_JOBS + 1), "0"):
        argv = [command, str(inputs / "dataset.jsonl"), "--jobs", jobs, *extra]
        one_line(*cli(capsys, *argv))
