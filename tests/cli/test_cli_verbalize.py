"""``twosat-formal verbalize``, ``backparse`` and ``templates`` through the entry point."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.support.cli import input_file, run
from twosat_formal.core.formula import Formula
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.solve import solve
from twosat_formal.verbalize import TEMPLATES, check_roundtrip
from twosat_formal.verbalize.prompts import prompt_id, read_prompts

DSL = "a | ~b\nb | c\n~c\n"
FORMULA = Formula.from_named([["a", "~b"], ["b", "c"], ["~c"]])


@pytest.fixture
def formula_file(tmp_path: Path) -> Path:
    return input_file(tmp_path, "f.dsl", DSL)


def _instance(name: str, formula: Formula) -> Instance:
    return Instance(
        id=name,
        family="test",
        params={},
        seed=0,
        formula=formula,
        label="SAT",
        certificate=solve(formula).to_json(formula),
        structure={},
        provenance={},
    )


def test_verbalize_formula_prints_the_prompt(
    formula_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["verbalize", str(formula_file), "--template", "room", "--seed", "3"], capsys
    )
    assert code == 0, err
    assert out.startswith("A building has lighting rules:\n")
    assert out.endswith('- "The answer is: No" (if no valid assignment exists)\n')
    assert out.count(" (or both).") == 2
    assert "room 1 is" in out or "room 2 is" in out


def test_verbalize_then_backparse_gives_the_formula_back(
    formula_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["verbalize", str(formula_file), "--template", "logic"], capsys)
    assert code == 0
    text_file = tmp_path / "prompt.txt"
    text_file.write_text(out, encoding="utf-8")
    code, dsl, err = run(["backparse", str(text_file)], capsys)
    assert code == 0, err
    lines = dsl.strip().splitlines()
    assert len(lines) == 3
    # the same clause shapes, names now the entities
    assert [line.count("|") for line in lines] == [1, 1, 0]
    code, dimacs, err = run(["backparse", str(text_file), "-t", "logic", "--to", "dimacs"], capsys)
    assert code == 0, err
    body = [line for line in dimacs.splitlines() if not line.startswith("c")]
    assert body[0] == "p cnf 3 3"


def test_backparse_reads_stdin(
    formula_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, text, _ = run(["verbalize", str(formula_file), "--template", "door"], capsys)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, dsl, err = run(["backparse", "-"], capsys)
    assert code == 0, err
    assert "door_" in dsl


def test_verbalize_all_templates_to_records(
    formula_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "p.jsonl"
    code, out, err = run(
        [
            "verbalize",
            str(formula_file),
            "--template",
            "all",
            "--seed",
            "5",
            "--out",
            str(out_file),
        ],
        capsys,
    )
    assert code == 0, err
    assert out == ""
    assert f"wrote {len(TEMPLATES.names())} prompts" in err
    records = list(read_prompts(out_file))
    assert [r.template for r in records] == TEMPLATES.names()
    assert len({r.instance_id for r in records}) == 1
    for record in records:
        assert record.seed == 5
        assert record.roundtrip is not None and record.roundtrip["result"] == "proved"
        assert check_roundtrip(record, FORMULA)["result"] == "proved"


def test_verbalize_all_prints_each_prompt(
    formula_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["verbalize", str(formula_file), "--template", "all"], capsys)
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("# template: ")]
    assert headers == [f"# template: {name}" for name in TEMPLATES.names()]


def test_verbalize_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.jsonl"
    second = Formula([[1, 2], [-1, -2], [1, -2]])
    write_instances([_instance("i-1", FORMULA), _instance("i-2", second)], data)
    code, out, err = run(["verbalize", str(data), "--template", "all", "--seed", "2"], capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    count = len(TEMPLATES.names())
    assert len(records) == 2 * count
    assert [(r["instance_id"], r["template"]) for r in records[: count + 1]][-2:] == [
        ("i-1", "dual-story"),
        ("i-2", "logic"),
    ]
    assert records[0]["id"] == prompt_id("i-1", "logic", 2)
    # a dataset without the .jsonl suffix is recognised by its first character
    renamed = tmp_path / "data.txt"
    renamed.write_text(data.read_text(encoding="utf-8"), encoding="utf-8")
    code, out2, _ = run(["verbalize", str(renamed), "--template", "team"], capsys)
    assert code == 0
    assert [json.loads(line)["template"] for line in out2.splitlines()] == ["team", "team"]


def test_verbalize_reads_a_dataset_or_a_formula_from_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data.jsonl"
    write_instances([_instance("i-1", FORMULA), _instance("i-2", FORMULA)], data)
    monkeypatch.setattr("sys.stdin", io.StringIO(data.read_text(encoding="utf-8")))
    code, out, err = run(["verbalize", "-", "--template", "room"], capsys)
    assert code == 0, err
    from_file = run(["verbalize", str(data), "--template", "room"], capsys)[1]

    def key(text: str) -> list[tuple[str, str]]:  # all but the measured proof time
        return [(r["id"], r["text"]) for r in map(json.loads, text.splitlines())]

    assert key(out) == key(from_file) and len(key(out)) == 2
    monkeypatch.setattr("sys.stdin", io.StringIO("a | ~b\nb\n"))
    code, out, err = run(["verbalize", "-", "--template", "logic"], capsys)
    assert code == 0, err
    assert out.startswith("Consider these logical relationships:\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["verbalize", "{f}", "--template", "story"], "unknown template 'story'"),
        (["verbalize", "{f}", "--template", "logic", "--seed", "x"], "seed"),
        (["verbalize", "{missing}", "--template", "logic"], "no such file"),
        (["backparse", "{f}"], "does not open with the preamble"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(
    argv: list[str],
    message: str,
    formula_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = [a.format(f=formula_file, missing=tmp_path / "nope.dsl") for a in argv]
    code, _, err = run(args, capsys)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_backparse_error_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(
        "A building has lighting rules:\nroom 1 is lit.\nroom 2 is purple.\n\n"
        "Can all the lighting rules be satisfied simultaneously?\n",
        encoding="utf-8",
    )
    code, _, err = run(["backparse", str(path)], capsys)
    assert code == 2
    assert f"error: {path}:3:1:" in err


def test_templates_lists_every_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["templates"], capsys)
    assert code == 0
    for name, scheme in TEMPLATES.items():
        assert f"{name}  (true: {scheme.true_value}, false: {scheme.false_value}" in out
        assert scheme.preamble in out
    assert "Either A is false or B is true (or both)." in out
    code, out, _ = run(["templates", "--json"], capsys)
    rows = json.loads(out)
    assert [row["name"] for row in rows] == TEMPLATES.names()
    assert rows[3]["false_value"] == "doesn’t attend"


def test_help_mentions_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["verbalize", "--help"], capsys)
    assert code == 0
    for option in ("--template", "--seed", "--out"):
        assert option in out
    code, out, _ = run(["backparse", "--help"], capsys)
    assert "--to" in out and "dimacs" in out
