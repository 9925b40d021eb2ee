"""The ``story`` experiment (§5.5, Figure 9): stories beside templates, end to end.

The story model is scripted (:class:`story_support.ScriptedStoryModel` in process, the
loopback server of :mod:`story_support` through the command line): in every story,
clause 2 validates on its second attempt and clause 3 falls back. The rates expected
from that script are counted here from the formulas of ``dataset.jsonl``, read with
the standard library. The evaluated model is ``ref/oracle``, which reads a story
prompt literally; its answers are checked against a brute-force oracle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.brute import brute_label
from tests.support.cli import run
from tests.support.story import (
    MIXED_KINDS,
    ScriptedStoryModel,
    StoryScript,
    StoryServer,
    theme_descriptions,
)
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError, UnknownNameError
from twosat_formal.study.experiments.runner import ExperimentResult, run_experiment
from twosat_formal.study.experiments.spec import load_spec, parse_spec
from twosat_formal.verbalize.story import THEMES

SMALL = load_spec("story").with_max_clauses(10)  # implication-cycle and equivalence-core at 10


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def clauses_of(instance: dict[str, Any]) -> list[list[int]]:
    """The clauses of an instance record's DIMACS text, read without the library."""
    numbers = [
        int(token)
        for line in instance["dimacs"].splitlines()
        if line.strip() and line[0] not in "cp"
        for token in line.split()
    ]
    clauses, current = [], []
    for number in numbers:
        if number == 0:
            clauses.append(current)
            current = []
        else:
            current.append(number)
    return clauses


def expected_counts(clauses: list[list[int]]) -> dict[str, int]:
    """What MIXED_KINDS must give for one story of these clauses (1-based clause index)."""
    llm = [len(c) == 2 and abs(c[0]) != abs(c[1]) for c in clauses]
    second = len(llm) >= 2 and llm[1]
    third = len(llm) >= 3 and llm[2]
    return {
        "llm_clauses": sum(llm),
        "first_attempt": sum(llm) - second - third,
        "fallbacks": int(third),
        "attempts": sum(llm) + second + 2 * third,
    }


def story_experiment(folder: Path, writer: ScriptedStoryModel, **options: Any) -> ExperimentResult:
    """The small story experiment in ``folder``: two reference models, two templates,
    stories by ``writer``."""
    return run_experiment(
        SMALL,
        ["ref/oracle", "ref/sat-biased"],
        out_dir=folder,
        formulas=2,
        templates=["logic", "door"],
        story_model=writer,
        **options,
    )


@pytest.fixture(scope="module")
def story_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ScriptedStoryModel, Any]:
    folder = tmp_path_factory.mktemp("story")
    writer = ScriptedStoryModel(MIXED_KINDS)
    return folder, writer, story_experiment(folder, writer)


@pytest.mark.slow
def test_every_base_is_told_in_every_theme(story_run: tuple[Path, Any, Any]) -> None:
    folder, writer, result = story_run
    bases = lines(folder / "dataset.jsonl")
    stories = lines(folder / "stories.jsonl")
    assert len(bases) == 4 and writer.calls > 0
    expected = [(theme, b["id"]) for theme in ("detective", "spy", "heist") for b in bases]
    assert [(s["theme"], s["instance_id"]) for s in stories] == expected
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["counts"]["stories"] == 12 and manifest["files"]["stories"] == "stories.jsonl"
    assert manifest["counts"]["requests"] == (4 * 2 + 12) * 2
    assert manifest["certified"]["ok"] and manifest["certified"]["kinds"]["story"] == 12
    assert manifest["story"]["model"] == "test/scripted-writer"
    assert result.evaluation.done == (4 * 2 + 12) * 2


def test_rates_are_the_scripted_ones(story_run: tuple[Path, Any, Any]) -> None:
    folder, _, _ = story_run
    totals = dict.fromkeys(("llm_clauses", "first_attempt", "fallbacks", "attempts"), 0)
    for base in lines(folder / "dataset.jsonl"):
        clauses = clauses_of(base)
        assert len(clauses) == base["params"]["achieved_clauses"]
        for key, value in expected_counts(clauses).items():
            totals[key] += 3 * value  # the same script in each theme
    stats = json.loads((folder / "manifest.json").read_text())["story"]["statistics"]
    assert {k: stats[k] for k in totals} == totals
    assert 0 < stats["fallbacks"] < stats["first_attempt"]
    assert stats["paper_first_attempt_rate"] == 0.954 and stats["paper_fallback_rate"] == 0.033
    report = json.loads((folder / "report.json").read_text())["stories"]
    assert report["statistics"]["first_attempt"] == totals["first_attempt"]
    assert report["statistics"]["fallbacks"] == totals["fallbacks"]
    md = (folder / "report.md").read_text()
    rate = 100 * totals["first_attempt"] / totals["llm_clauses"]
    assert f"| first-attempt validation rate | {rate:.1f} " in md and "| 95.4 |" in md


def test_oracle_answers_every_story_right(story_run: tuple[Path, Any, Any]) -> None:
    folder, _, _ = story_run
    formulas = {b["id"]: clauses_of(b) for b in lines(folder / "dataset.jsonl")}
    stories = {s["id"]: s for s in lines(folder / "stories.jsonl")}
    rows = [r for r in lines(folder / "results.jsonl") if r["model"] == "ref/oracle"]
    story_rows = [r for r in rows if r["template"].startswith("story:")]
    assert len(story_rows) == 12 and len(rows) == 12 + 8
    for row in story_rows:
        clauses = formulas[row["instance_id"]]
        label = brute_label(Formula(clauses))
        assert row["label"] == label and row["decision"] == label
        assert row["failure"] == "correct"
        if label == "UNSAT":
            continue
        story = stories[row["prompt_id"]]
        theme = THEMES.get(story["theme"])
        answer = row["response"]
        witness = json.loads(answer[answer.index("{") : answer.rindex("}") + 1])
        value = {}
        for entity, name in story["entities"].items():
            true, false = theme.describe(entity)
            assert witness[entity] in (true, false)
            value[int(name.removeprefix("x"))] = witness[entity] == true
        assert all(any(value[abs(lit)] == (lit > 0) for lit in c) for c in clauses)


def test_report_sets_stories_beside_templates(story_run: tuple[Path, Any, Any]) -> None:
    folder, _, _ = story_run
    versus = json.loads((folder / "report.json").read_text())["stories"]["story_vs_template"]
    assert set(versus) == {"ref/oracle", "ref/sat-biased"}
    results = lines(folder / "results.jsonl")
    for model, entry in versus.items():
        mine = [r for r in results if r["model"] == model]
        plain = [r for r in mine if not r["template"].startswith("story:")]
        told = [r for r in mine if r["template"].startswith("story:")]
        assert entry["template"]["n"] == entry["story"]["n"] == 4
        assert entry["template"]["n_obs"] == len(plain) == 8 and entry["story"]["n_obs"] == 12
        assert set(entry["themes"]) == {"detective", "spy", "heist"}
        if model == "ref/oracle":
            assert entry["template"]["mean"] == entry["story"]["mean"] == 1.0
            assert entry["drop"] == 0.0
        assert len(told) == 12
    md = (folder / "report.md").read_text()
    head = "| model | templates (%) | story: detective (%) | story: spy (%) | story: heist (%) |"
    assert head in md and "| ref/oracle | 100.0 " in md


def test_a_rerun_asks_the_story_model_nothing(
    story_run: tuple[Path, Any, Any], tmp_path: Path
) -> None:
    folder, _, _ = story_run
    again = ScriptedStoryModel(MIXED_KINDS)
    before = (folder / "stories.jsonl").read_bytes()
    result = story_experiment(folder, again, make_report=False)
    assert again.calls == 0 and (folder / "stories.jsonl").read_bytes() == before
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["story"]["calls_made"] == 0 and manifest["story"]["calls_reused"] > 0
    assert manifest["certified"].get("reused") is True
    assert result.evaluation.skipped == result.evaluation.planned


def test_story_model_is_required_and_only_for_stories(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--story-model"):
        run_experiment(SMALL, ["ref/oracle"], out_dir=tmp_path)
    with pytest.raises(ConfigError, match="story experiment"):
        run_experiment("order", ["ref/oracle"], out_dir=tmp_path, story_model="ref/oracle")
    with pytest.raises(UnknownNameError):
        run_experiment(
            SMALL, ["ref/oracle"], out_dir=tmp_path, story_model="ref/oracle", themes=["noir"]
        )
    assert not (tmp_path / "dataset.jsonl").exists()
    good = SMALL.to_json()
    with pytest.raises(RecordError, match="themes"):
        parse_spec({**good, "themes": []})
    with pytest.raises(RecordError, match="themes"):
        parse_spec({**good, "themes": ["spy", "spy"]})
    with pytest.raises(RecordError, match="themes"):
        parse_spec({**load_spec("order").to_json(), "themes": ["spy"]})
    assert parse_spec({k: v for k, v in good.items() if k != "themes"}).themes == (
        "detective",
        "spy",
        "heist",
    )


@pytest.mark.slow
def test_cli_runs_a_story_spec_with_a_story_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {
        **SMALL.to_json(),
        "name": "story-small",
        "cells": [{"family": "implication-cycle", "clauses": [6]}],
    }
    path = tmp_path / "story-small.json"
    path.write_text(json.dumps(spec))
    script = StoryScript(theme_descriptions("heist"), dict(MIXED_KINDS))
    out = tmp_path / "run"
    with StoryServer(script) as server:
        argv = [
            "run-experiment",
            str(path),
            "--model",
            "ref/oracle",
            "--story-model",
            "openai/scripted-writer",
            "--base-url",
            server.url,
            "--theme",
            "heist",
            "--formulas",
            "2",
            "--template",
            "logic",
            "--out",
            str(out),
            "--no-progress",
            "--json",
        ]
        code, stdout, err = run(argv, capsys)
        served = len(server.log)
        turns = max(len(e.messages) for e in server.log)
    assert code == 0, err
    assert turns > 3  # the clue requests carry the conversation as chat messages
    assert served > 0 and any(kind == "wrong-polarity" for _, _, kind in script.seen)
    stories = lines(out / "stories.jsonl")
    assert [s["theme"] for s in stories] == ["heist", "heist"]
    assert {s["provenance"]["conversation"] for s in stories} == {"messages"}
    assert json.loads(stdout)["experiment"] == "story-small"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["story"]["model"] == "openai/scripted-writer"
    assert manifest["story"]["statistics"]["fallbacks"] == 2  # clause 3 of each story
    code, _, err = run(
        ["run-experiment", str(path), "--model", "ref/oracle", "--out", str(out)], capsys
    )
    assert code == 2 and err.startswith("error: ") and "--story-model" in err
    assert len(err.strip().splitlines()) == 1
