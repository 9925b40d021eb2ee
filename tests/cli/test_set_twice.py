"""A ``KEY=VALUE`` parameter given twice is refused by every command, in one wording.

``generate --set``, ``perturb --set`` (however the two settings name the step),
``--body`` of ``eval`` and ``batch prepare``, and a model spec's ``?key=value``
options all read ``KEY=VALUE`` parameters; a key given twice is refused with
``parameter 'KEY' is set twice`` (exit 2, no traceback), never read last-copy-wins.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.cli import input_file, run
from tests.support.integrations import make_dataset
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.io import write_dimacs
from twosat_formal.make.perturb.chain import parse_steps

WORDING = "parameter {key!r} is set twice"


@pytest.fixture
def formula_file(tmp_path: Path) -> Path:
    formula = Formula.from_named([["a", "~b"], ["b", "c"], ["~c", "~a"]])
    return input_file(tmp_path, "f.cnf", write_dimacs(formula))


def refused(capsys: pytest.CaptureFixture[str], key: str, *argv: str) -> str:
    code, _, err = run(list(argv), capsys)
    assert code == 2, err
    assert WORDING.format(key=key) in err, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "settings",
    [
        ("count=1", "count=2"),
        ("count=1", "filler.count=2"),
        ("1.count=1", "filler.count=1"),
        (" count=1", "count =1"),
    ],
)
def test_perturb_refuses_a_steps_parameter_set_twice(
    formula_file: Path, capsys: pytest.CaptureFixture[str], settings: tuple[str, str]
) -> None:
    argv = ["perturb", str(formula_file), "--op", "filler"]
    for setting in settings:
        argv += ["--set", setting]
    err = refused(capsys, "count", *argv)
    assert "step 1 (filler)" in err


def test_a_setting_for_two_steps_of_one_operator_is_no_repeat(formula_file: Path) -> None:
    steps = parse_steps(["filler", "filler"], ["1.count=1", "2.count=2"])
    assert steps == [("filler", {"count": "1"}), ("filler", {"count": "2"})]
    with pytest.raises(ConfigError, match=r"'count' is set twice for step 2 \(filler\)"):
        parse_steps(["filler", "filler"], ["filler.count=1", "2.count=2"])


@given(st.lists(st.sampled_from(["count=1", "filler.count=2", "1.count=3"]), min_size=1))
def test_parse_steps_refuses_exactly_the_repeats(settings: list[str]) -> None:
    if len(settings) > 1:
        with pytest.raises(ConfigError, match="parameter 'count' is set twice"):
            parse_steps(["filler"], settings)
    else:
        assert parse_steps(["filler"], settings) == [("filler", {"count": settings[0][-1]})]


def test_generate_refuses_a_key_set_twice(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["generate", "backbone", "--clauses", "8", "--seed", "1"]
    refused(capsys, "split", *argv, "--set", "split=0.2", "--set", "split=0.3")


@pytest.mark.parametrize("command", ["eval", "batch"])
def test_body_refuses_a_key_set_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    _, prompts, _ = make_dataset(tmp_path)
    body = ["--body", "top_k=1", "--body", "top_k=2"]
    if command == "eval":
        argv = ["eval", str(prompts), "--model", "openai/m", "--base-url", "http://127.0.0.1:9"]
    else:
        argv = ["batch", "prepare", str(prompts), "--model", "m", "--out", str(tmp_path / "r")]
    refused(capsys, "top_k", *argv, *body)


def test_a_model_spec_refuses_an_option_set_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = input_file(tmp_path, "p.jsonl", "")
    err = refused(
        capsys, "budget", "eval", str(prompts), "--model", "ref/bounded?budget=3&budget=4"
    )
    assert "model spec 'ref/bounded?budget=3&budget=4'" in err
