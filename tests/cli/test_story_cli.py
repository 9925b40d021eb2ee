"""``twosat-formal verbalize --story`` and ``story-stats`` through the entry point."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import input_file, run
from tests.support.story import StoryScript, StoryServer
from twosat_formal.core.formula import Formula
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.solve import solve
from twosat_formal.verbalize.story import THEMES, check_story_record, read_stories

DSL = "a | ~b\nb | c\n~c\n"
FORMULA = Formula.from_named([["a", "~b"], ["b", "c"], ["~c"]])
SPEC = "openai/scripted-writer"


def cert(formula: Formula) -> dict[str, object]:
    """The solver's certificate of ``formula``, as an instance record holds it."""
    return dict(solve(formula).to_json(formula))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StoryServer]:
    spy = THEMES.get("spy")
    entities = {spy.entity(i) for i in range(len(spy.vocabulary))}
    script = StoryScript({e: spy.describe(e) for e in entities}, {(1, 0): "wrong-polarity"})
    started = StoryServer(script)
    with started:
        monkeypatch.setenv("OPENAI_BASE_URL", started.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        yield started


@pytest.fixture
def formula_file(tmp_path: Path) -> Path:
    return input_file(tmp_path, "f.dsl", DSL)


def test_story_of_a_formula_file_prints_its_prompt(
    server: StoryServer, formula_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "calls.sqlite"
    argv = [
        "verbalize",
        str(formula_file),
        "--story",
        "spy",
        "--model",
        SPEC,
        "--store",
        str(store),
    ]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.startswith("Fog rolled over the estate as the guests gathered.\n\n")
    assert "Think step by step.\n\nIf a valid assignment exists, provide it as JSON\n" in out
    assert "It is certain that " in out
    assert "first-attempt validation 50.0% (paper 95.4%), fallback 0.0% (paper 3.3%)" in err
    assert store.is_file()
    requests = len(server.log)
    code, again, err = run(argv, capsys)
    assert code == 0 and again == out and len(server.log) == requests
    assert "0 model calls made" in err


def test_story_records_and_their_statistics(
    server: StoryServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "data.jsonl"
    formulas = {"i1": FORMULA, "i2": Formula.from_named([["p", "q"], ["~p", "r"]])}
    write_instances(
        [Instance(k, "test", {}, 0, f, "SAT", cert(f), {}, {}) for k, f in formulas.items()],
        dataset,
    )
    out_path = tmp_path / "stories.jsonl"
    store = tmp_path / "calls.sqlite"
    argv = ["verbalize", str(dataset), "--story", "spy", "-m", SPEC, "--seed", "2"]
    code, out, err = run([*argv, "--store", str(store), "--out", str(out_path)], capsys)
    assert code == 0, err
    assert out == "" and f"wrote 2 stories to {out_path}" in err
    records = list(read_stories(out_path))
    assert [r.instance_id for r in records] == ["i1", "i2"]
    for record in records:
        assert record.seed == 2 and record.theme == "spy" and record.model == SPEC
        assert check_story_record(record, formulas[record.instance_id])["result"] == "validated"
    code, out, err = run([*argv, "--store", str(store)], capsys)
    assert code == 0, err
    assert [json.loads(line)["id"] for line in out.splitlines()] == [r.id for r in records]

    code, out, err = run(["story-stats", str(out_path), "--json"], capsys)
    assert code == 0, err
    stats = json.loads(out)
    assert (stats["llm_clauses"], stats["first_attempt"], stats["fallbacks"]) == (4, 2, 0)
    assert stats["first_attempt_rate"] == 0.5 and stats["paper_first_attempt_rate"] == 0.954
    code, out, err = run(["story-stats", str(out_path)], capsys)
    assert code == 0, err
    assert "| first-attempt validation rate | 50.0% | 95.4% |" in out
    assert out.startswith("2 stories, 5 clauses (4 through validation, 1 direct), 6 attempts")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--story", "spy"], "needs both --story THEME and --model SPEC"),
        (["--model", SPEC], "needs both --story THEME and --model SPEC"),
        (["--story", "spy", "--model", SPEC, "--template", "room"], "exclude each other"),
        (["--story", "pirate", "--model", SPEC], "unknown story theme 'pirate'"),
        (["--story", "spy", "--model", "gpt-4o"], "unknown model spec 'gpt-4o'"),
        ([], "give --template NAME"),
    ],
)
def test_story_option_errors(
    formula_file: Path,
    tmp_path: Path,
    extra: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "calls.sqlite"
    code, out, err = run(["verbalize", str(formula_file), "--store", str(store), *extra], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1


def test_story_stats_rejects_other_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "not-stories.jsonl"
    path.write_text('{"schema_version": 1, "kind": "prompt"}\n', encoding="utf-8")
    code, _, err = run(["story-stats", str(path)], capsys)
    assert code == 2 and "not-stories.jsonl:1" in err and "kind" in err
