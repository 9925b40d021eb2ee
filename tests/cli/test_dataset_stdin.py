"""``--dataset -``: the instances read from standard input, end to end.

``eval``, ``score`` and ``batch prepare`` read the dataset twice (the items, then the
gate's ``certify`` checks), so standard input is copied once and both read the copy:
the command does what it does with the dataset as a file, and a failure of the gate
names ``<stdin>:LINE`` (never the temporary copy), whichever input came from stdin.
Standard input given to two inputs at once is refused: it can be read once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.cli import cli, error_lines, feed_stdin
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record

#: Each command with ``--dataset`` (D: the folder of inputs, O: the output folder).
COMMANDS: dict[str, list[str]] = {
    "eval": ["eval", "PROMPTS", "-m", "ref/oracle", "--store", "O/s.sqlite", "--no-progress",
             "--dataset", "DATASET"],
    "score": ["score", "D/answers.jsonl", "--prompts", "PROMPTS", "--out", "O/o.jsonl",
              "--dataset", "DATASET"],
    "batch prepare": ["batch", "prepare", "PROMPTS", "-m", "openai/m", "--out", "O/b.jsonl",
                      "--dataset", "DATASET"],
}  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two instances, their prompts and answers, and the files tampered with."""
    folder = tmp_path_factory.mktemp("inputs")
    instances = [generate("backbone", clauses=8, seed=seed) for seed in (1, 2)]
    records = [inst.to_record() for inst in instances]
    made = [prompt_record(inst.formula, "logic", instance_id=inst.id, seed=1) for inst in instances]
    prompts = [p.to_record() for p in made]
    answers = [{"prompt_id": p.id, "response": "The answer is: Yes"} for p in made]
    bad_data = [
        records[0],
        {**records[1], "label": "UNSAT" if records[1]["label"] == "SAT" else "SAT"},
    ]
    bad_prompts = [prompts[0], {**prompts[1], "text": prompts[1]["text"] + " "}]
    for name, rows in {
        "dataset": records, "prompts": prompts, "answers": answers,
        "bad-dataset": bad_data, "bad-prompts": bad_prompts,
    }.items():  # fmt: skip
        text = "".join(json.dumps(row) + "\n" for row in rows)
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    (folder / "blank.jsonl").write_text("\n\n", encoding="utf-8")  # no record
    return folder


def run_with_stdin(
    case: str,
    folder: Path,
    out: Path,
    prompts: str,
    dataset: str,
    stdin: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, str, str]:
    """Run ``case`` with its prompts and dataset (``-``: the file ``stdin`` on stdin)."""
    named = {"PROMPTS": prompts, "DATASET": dataset}
    argv = [
        named.get(w, w).replace("D/", f"{folder}/").replace("O/", f"{out}/") for w in COMMANDS[case]
    ]
    data = (folder / stdin).read_bytes() if stdin else b""
    feed_stdin(monkeypatch, data)
    return cli(capsys, *argv)


@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_a_dataset_from_stdin_works_as_the_file(
    case: str,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompts = str(folder / "prompts.jsonl")
    by_file, by_stdin = tmp_path / "file", tmp_path / "stdin"
    by_file.mkdir()
    by_stdin.mkdir()
    args = (capsys, monkeypatch)
    code, out, err = run_with_stdin(
        case, folder, by_file, prompts, str(folder / "dataset.jsonl"), "", *args
    )
    assert code == 0, err
    code, out2, err2 = run_with_stdin(case, folder, by_stdin, prompts, "-", "dataset.jsonl", *args)
    assert code == 0, err2
    verified = re.findall(r"\d+ records certified", out + err)
    assert verified  # the gate certified the dataset, read from stdin as from the file
    assert verified == re.findall(r"\d+ records certified", out2 + err2)
    assert sorted(p.name for p in by_file.iterdir()) == sorted(p.name for p in by_stdin.iterdir())
    if case != "eval":  # the rows and requests written are the same bytes
        (written,) = by_file.iterdir()
        assert (by_stdin / written.name).read_bytes() == written.read_bytes()


@pytest.mark.parametrize("case", sorted(COMMANDS))
@pytest.mark.parametrize("which", ["dataset", "prompts"])
def test_the_gate_names_stdin_whichever_input_it_is(
    case: str,
    which: str,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tampered record from stdin is refused at ``<stdin>:2``, nothing written."""
    prompts = "-" if which == "prompts" else str(folder / "prompts.jsonl")
    dataset = "-" if which == "dataset" else str(folder / "dataset.jsonl")
    stdin = f"bad-{which}.jsonl"
    code, out, err = run_with_stdin(
        case, folder, tmp_path, prompts, dataset, stdin, capsys, monkeypatch
    )
    assert code == 2, (out, err)
    assert err.startswith("error: certify refuses <stdin>:2 "), err
    assert "twosat-stdin" not in err + out and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


#: Commands that would read standard input twice.
TWICE = {
    "eval": ["eval", "-", "--dataset", "-", "-m", "ref/oracle", "--store", "O/s.sqlite"],
    "score prompts": ["score", "-", "--prompts", "-", "--out", "O/o.jsonl"],
    "score dataset": ["score", "D/answers.jsonl", "--prompts", "-", "--dataset", "-",
                      "--out", "O/o.jsonl"],
    "batch prepare": ["batch", "prepare", "-", "--dataset", "-", "-m", "openai/m",
                      "--out", "O/b.jsonl"],
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(TWICE))
def test_standard_input_for_two_inputs_is_refused(
    case: str,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = [w.replace("D/", f"{folder}/").replace("O/", f"{tmp_path}/") for w in TWICE[case]]
    data = (folder / "prompts.jsonl").read_bytes()
    feed_stdin(monkeypatch, data)
    code, out, err = cli(capsys, *argv)
    assert code == 2, (out, err)
    lines = error_lines(err)
    assert len(lines) == 1 and "both read standard input (-)" in lines[0], err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", sorted(COMMANDS))
@pytest.mark.parametrize("which", ["dataset", "prompts"])
def test_a_prompt_whose_instance_is_missing_names_stdin(
    case: str,
    which: str,
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dataset of blank lines lacks every instance: the error names ``<stdin>`` for
    the input read from it (the dataset, or the prompts beside an empty dataset file)."""
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    prompts = "-" if which == "prompts" else str(folder / "prompts.jsonl")
    dataset = "-" if which == "dataset" else str(blank)
    stdin = "prompts.jsonl" if which == "prompts" else "blank.jsonl"
    code, _, err = run_with_stdin(case, folder, out, prompts, dataset, stdin, capsys, monkeypatch)
    assert code == 2, err
    assert "verbalizes instance" in err and "twosat-stdin" not in err, err
    if which == "dataset":
        assert "which is not in <stdin>" in err
    else:
        assert err.startswith("error: <stdin>: prompt ")
    assert list(out.iterdir()) == []
