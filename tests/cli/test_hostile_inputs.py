"""Inputs a hostile user tries: one clear line, exit code 2, no traceback, no output left."""

from __future__ import annotations

import math
import resource
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from tests.support.cli import cli, error_lines, input_file
from twosat_formal.core.formula import Formula
from twosat_formal.core.model import SamplingParams
from twosat_formal.errors import ConfigError, NotTwoCNFError, ParseError
from twosat_formal.io import parse_dimacs, parse_dsl, write_dimacs
from twosat_formal.make.generators import generate

ROOT = Path(__file__).resolve().parents[2]


def one_line_error(code: int, out: str, err: str, *words: str) -> str:
    assert code == 2, (code, out, err)
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# -- the DSL: keywords are whole words -------------------------------------------------------


@pytest.mark.parametrize("text", ["a | b andy", "a orb", "a | b notx y"])
def test_a_keyword_is_never_split_off_a_name(text: str) -> None:
    with pytest.raises(ParseError):
        parse_dsl(text)


def test_names_that_start_with_a_keyword_are_names() -> None:
    f = parse_dsl("andy | orb\nnotx & vars_1 | ora")
    assert f.names == ("andy", "orb", "notx", "vars_1", "ora")
    assert parse_dsl("a or not b and c").num_clauses == 2


# -- DIMACS: limits before allocation ----------------------------------------------------------


def _limited() -> None:  # a child that may not grow past 1 GiB
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_a_huge_header_with_a_name_line_is_refused_before_allocation(tmp_path: Path) -> None:
    path = tmp_path / "h.cnf"
    path.write_text("c var 1 a\np cnf 1000000000000 1\n1 0\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "parse", str(path)],
        capture_output=True,
        text=True,
        preexec_fn=_limited,
        timeout=120,
        check=False,
    )
    one_line_error(done.returncode, done.stdout, done.stderr, "h.cnf:2:1", "exceed the limit")


def _parse_peak(text: str) -> tuple[Formula, int]:
    """The formula ``text`` reads as, and the peak of memory (bytes) reading it took."""
    parse_dimacs("p cnf 1 1\n1 0\n")  # imports and caches warmed up before measuring
    tracemalloc.start()
    try:
        formula = parse_dimacs(text)
        return formula, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "text",
    [
        "p cnf 9999999 1\n1 0\n",
        "c var 1 a\np cnf 9999999 1\n1 0\n",
        "c var 9999999 last\nc var 2 b\np cnf 9999999 2\n1 -9999999 0\n2 0\n",
    ],
    ids=["no-names", "one-name", "two-names"],
)
def test_a_header_just_under_the_limit_sizes_nothing(text: str) -> None:
    """A header of 9,999,999 variables (under the limit) in a tiny file: reading it
    takes memory for the text, not for the header's count (a name table of ten million
    entries would take hundreds of megabytes)."""
    formula, peak = _parse_peak(text)
    assert formula.num_vars == 9_999_999
    assert peak < 200_000, peak
    assert formula.named == {
        int(line.split()[2]): line.split()[3]
        for line in text.splitlines()
        if line.startswith("c var")
    }
    assert formula.name(1) == ("a" if "c var 1 a" in text else "x1")
    assert formula.name(5_000_000) == "x5000000"
    again, peak = _parse_peak(write_dimacs(formula))
    assert again == formula and peak < 200_000, peak


# -- numbers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1e309", "inf", "-inf", "nan"])
def test_non_finite_knobs_are_refused(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "generate", "backbone", "--set", f"beta={value}")
    one_line_error(code, out, err, "beta")


@pytest.mark.parametrize("setting", ["fraction", "flip"])
@pytest.mark.parametrize("value", ["1e309", "inf", "nan"])
def test_non_finite_operator_parameters_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, value: str
) -> None:
    path = tmp_path / "f.dsl"
    path.write_text("a | b\n~a | b\n", encoding="utf-8")
    op = "flip" if setting == "fraction" else "rename"
    out_file = tmp_path / "out.json"
    args = ["perturb", str(path), "--op", op, "--set", f"{setting}={value}", "--out", str(out_file)]
    code, out, err = cli(capsys, *args)
    one_line_error(code, out, err, setting)
    assert not out_file.exists()


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_non_finite_sampling_is_refused(value: float) -> None:
    with pytest.raises(ConfigError):
        SamplingParams(temperature=value)
    with pytest.raises(ConfigError):
        SamplingParams(top_p=value)


# -- zero-byte and binary input: one rule everywhere --------------------------------------------


def commands(path: Path, out: Path) -> dict[str, list[str]]:
    p = str(path)
    return {
        "perturb": ["perturb", p, "--op", "reorder", "--out", str(out)],
        "edit": ["edit", p, "--mode", "cumulative", "--out", str(out)],
        "verbalize": ["verbalize", p, "--template", "logic", "--out", str(out)],
        "certify": ["certify", p],
        "eval": ["eval", p, "-m", "ref/oracle", "--store", str(out), "--no-progress"],
        "parse": ["parse", p],
        "solve": ["solve", p],
        "backparse": ["backparse", p],
    }


@pytest.mark.parametrize("command", sorted(commands(Path("x"), Path("y"))))
@pytest.mark.parametrize(
    "content",
    [b"", b'\xff\xfe{\x00"\x00a\x00', '{"a": 1}'.encode("utf-16"), b"p cnf 1 1\n1 \x00 0\n"],
    ids=["zero-byte", "utf-16-json", "utf-16", "nul"],
)
def test_empty_or_binary_input_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, content: bytes
) -> None:
    path = tmp_path / "input.jsonl"
    path.write_bytes(content)
    out = tmp_path / "out.file"
    code, stdout, err = cli(capsys, *commands(path, out)[command])
    if command == "certify" and content:
        # certify reports a line that is not text as a failed record, naming the file
        assert code == 1 and "input.jsonl:1" in stdout and "Traceback" not in err
    else:
        one_line_error(code, stdout, err, "input.jsonl")
    assert not out.exists()


# -- generate refuses what certify would reject -------------------------------------------------


def test_a_symmetry_base_that_is_not_2cnf_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "three.cnf"
    base.write_text("p cnf 3 2\n1 2 3 0\n-1 2 0\n", encoding="utf-8")
    with pytest.raises(NotTwoCNFError, match="2-CNF"):
        generate("symmetry", clauses=8, seed=1, base_file=str(base))
    base.write_text("p cnf 2 2\n1 2 0\n0\n", encoding="utf-8")
    with pytest.raises(NotTwoCNFError, match="0 literals"):
        generate("symmetry", clauses=4, seed=1, base_file=str(base))


# -- no partial output ------------------------------------------------------------------------


def test_a_dataset_broken_at_line_3_leaves_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = [generate("backbone", clauses=8, seed=s).to_json() for s in range(2)]
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join([*good, "{broken", good[0]]) + "\n", encoding="utf-8")
    out = tmp_path / "prompts.jsonl"
    code, stdout, err = cli(capsys, "verbalize", str(data), "--template", "all", "--out", str(out))
    one_line_error(code, stdout, err, "d.jsonl:3")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl"]


def test_an_existing_output_survives_a_failed_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = input_file(tmp_path, "prompts.jsonl", "keep\n")
    data = input_file(
        tmp_path, "d.jsonl", generate("backbone", clauses=8, seed=1).to_json() + "\n{broken\n"
    )
    args = ["verbalize", str(data), "--template", "logic", "--out", str(out)]
    assert cli(capsys, *args)[0] == 2
    assert out.read_text(encoding="utf-8") == "keep\n"


def test_eval_with_an_unknown_model_creates_no_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inst = generate("backbone", clauses=8, seed=1)
    data = tmp_path / "d.jsonl"
    data.write_text(inst.to_json() + "\n", encoding="utf-8")
    prompts = tmp_path / "p.jsonl"
    assert cli(capsys, "verbalize", str(data), "-t", "logic", "--out", str(prompts))[0] == 0
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(capsys, "eval", str(prompts), "-m", "nosuch/model", "--store", str(store))
    one_line_error(code, out, err, "nosuch/model")
    assert not store.exists()


@pytest.mark.parametrize("command", ["verbalize", "perturb", "edit"])
def test_a_missing_input_leaves_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    out = tmp_path / "out.jsonl"
    missing = str(tmp_path / "missing.jsonl")
    extra = {
        "verbalize": ["--template", "logic"],
        "perturb": ["--op", "reorder"],
        "edit": ["--mode", "cumulative"],
    }[command]
    code, stdout, err = cli(capsys, command, missing, *extra, "--out", str(out))
    one_line_error(code, stdout, err, "missing.jsonl")
    assert not out.exists()
