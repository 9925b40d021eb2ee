"""The ``edits`` experiment end to end, and the report's symbolic-edit sections.

The metrics a report shows are checked against a recomputation written here from the
stored rows (``results.jsonl`` joined with ``dataset.jsonl``), not with
:mod:`twosat_formal.make.edits.metrics`.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import check_svg
from twosat_formal.cli import main
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.io.instance import Instance
from twosat_formal.make.edits import edit_instances
from twosat_formal.make.generators import derive_seed
from twosat_formal.report.content import compute_content
from twosat_formal.report.render import (
    BROWSER_SECTION,
    EDIT_SECTIONS,
    SECTIONS,
    TRACES_SECTION,
    layout,
    render_markdown,
)
from twosat_formal.study.experiments.design import expand
from twosat_formal.study.experiments.spec import load_spec, parse_spec

MODELS = ["ref/oracle", "ref/coin"]

# -- the recomputation: plain Python over rows, independent of the code under test ----------


def edit_steps(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [t for t in row.get("transforms") or [] if t.get("kind") == "edit"]


def by_hand(rows: Sequence[Mapping[str, Any]], labels: Mapping[str, str]) -> dict[str, Any]:
    """Per model: normalized accuracy, flip rate (levels 1..K) and retention.

    ``labels`` maps every instance id to its label (the origin's label for retention).
    """
    deepest = max(
        (
            len(edit_steps(r))
            for r in rows
            if edit_steps(r) and edit_steps(r)[-1]["mode"] == "cumulative"
        ),
        default=0,
    )
    out: dict[str, Any] = {}
    for model in dict.fromkeys(r["model"] for r in rows):
        mine = [r for r in rows if r["model"] == model]
        bases = [r for r in mine if not edit_steps(r)]
        at: dict[tuple[Any, ...], Mapping[str, Any]] = {}
        for r in mine:
            steps = edit_steps(r)
            if steps and steps[-1]["mode"] == "cumulative":
                key = (steps[-1]["origin"], len(steps), r["template"], r["sample"])
                assert key not in at
                at[key] = r
        levels = []
        for k in range(1, deepest + 1):
            right_base = right_k = same = broken = fixed = edited = 0
            for b in bases:
                v = at.get((b["instance_id"], k, b["template"], b["sample"]))
                edited += v is not None
                v = v if v is not None else b
                right_base += bool(b["decision_correct"])
                right_k += bool(v["decision_correct"])
                same += b["decision"] == v["decision"]
                broken += bool(b["decision_correct"]) and not v["decision_correct"]
                fixed += not b["decision_correct"] and bool(v["decision_correct"])
            n = len(bases)
            levels.append(
                {
                    "level": k,
                    "records": n,
                    "edited": edited,
                    "accuracy": right_k / n,
                    "baseline_accuracy": right_base / n,
                    "normalized_accuracy": right_k / right_base if right_base else None,
                    "agreement": same / n,
                    "broken": broken,
                    "fixed": fixed,
                    "rate": (broken + fixed) / n,
                }
            )
        changing = [
            r
            for r in mine
            if edit_steps(r) and labels[r["instance_id"]] != labels[edit_steps(r)[-1]["origin"]]
        ]
        kept = sum(r["decision"] == labels[edit_steps(r)[-1]["origin"]] for r in changing)
        right = sum(bool(r["decision_correct"]) for r in changing)
        out[model] = {"levels": levels, "retention": (len(changing), kept, right)}
    return out


def check_report_json(data: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    reported = {m["model"]: m for m in data["edits"]["models"]}
    assert set(reported) == set(expected)
    for model, want in expected.items():
        got = reported[model]
        assert len(got["normalized_accuracy"]) == len(want["levels"])
        for norm, flips, level in zip(
            got["normalized_accuracy"], got["flip_rate"], want["levels"], strict=True
        ):
            for key in ("level", "records", "edited", "agreement", "accuracy"):
                assert norm[key] == pytest.approx(level[key]), (model, key)
            assert norm["baseline_accuracy"] == pytest.approx(level["baseline_accuracy"])
            assert norm["normalized_accuracy"] == pytest.approx(level["normalized_accuracy"])
            assert norm["fallback"] == level["records"] - level["edited"]
            assert (flips["pairs"], flips["broken"], flips["fixed"]) == (
                level["records"],
                level["broken"],
                level["fixed"],
            )
            assert flips["rate"] == pytest.approx(level["rate"])
        rows, kept, right = want["retention"]
        assert (got["retention"]["rows"], got["retention"]["retained"]) == (rows, kept)
        assert got["retention"]["correct"] == right


def h2(markdown: str) -> list[str]:
    return [line[3:] for line in markdown.splitlines() if line.startswith("## ")]


def with_edit_sections(*, traces: bool = False) -> list[str]:
    """Every section, the edit sections after "Robustness", and with ``traces`` the
    trace checker's section before "Figures" and the item browser before "Provenance"
    (a report of a run store whose answers are to template prompts)."""
    at = SECTIONS.index("Robustness") + 1
    titles = [*SECTIONS[:at], *EDIT_SECTIONS, *SECTIONS[at:]]
    if traces:
        titles.insert(titles.index("Figures"), TRACES_SECTION)
        titles.insert(titles.index("Provenance"), BROWSER_SECTION)
    return titles


# -- the spec -------------------------------------------------------------------------------


def test_edits_spec_expands_to_bases_with_an_edit_stage() -> None:
    spec = load_spec("edits")
    assert spec.kind == "edits"
    conditions = expand(spec.with_formulas(2))
    assert len(conditions) == 2 * sum(len(c["clauses"]) for c in spec.cells)
    for condition in conditions:
        assert condition.arm == "base" and not condition.steps
        stage = dict(condition.edits)
        assert stage["modes"] == ("cumulative", "individual")
        assert stage["max_edits"] >= 1 and stage["count"] >= 1 and stage["seed"] == spec.seed
        # The same formulas as a grid of the same cells: seeds named by family and size.
        name = f"{condition.family}/clauses={condition.clauses}"
        assert condition.seed == derive_seed(derive_seed(spec.seed, name), condition.replicate)
        record = condition.design_record("x")
        assert record["kind"] == "edits" and record["edits"]["modes"] == list(stage["modes"])
    # Experiments without edits keep their design records as they were.
    assert all("edits" not in c.design_record("x") for c in expand(load_spec("order")))


def test_edit_stage_errors() -> None:
    data = load_spec("edits").to_json()
    cell = {"family": "backbone", "clauses": [10]}
    cases: list[tuple[dict[str, Any], type[Exception]]] = [
        ({"modes": ["both"]}, ConfigError),
        ({"modes": []}, ConfigError),
        ({"order": "random"}, ConfigError),
        ({"max_edits": 0}, ConfigError),
        ({"count": "3"}, ConfigError),
        ({"operators": ["nope"]}, UnknownNameError),
    ]
    for bad, error in cases:
        spec = parse_spec({**data, "cells": [{**cell, **bad}]})
        with pytest.raises(error):
            expand(spec)


# -- end to end -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``run-experiment edits`` at one formula per setting and one template."""
    folder = tmp_path_factory.mktemp("edits") / "run"
    argv = ["run-experiment", "edits", "--formulas", "1", "--template", "logic"]
    argv += [a for m in MODELS for a in ("--model", m)]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(folder), "--no-progress"])
    assert exit_info.value.code in (0, None)
    return folder


def read(folder: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / name).read_text().splitlines() if line]


@pytest.mark.slow
def test_run_is_certified_and_reports_the_edit_sections(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["certified"]["ok"] and manifest["spec"]["kind"] == "edits"
    # prompts of one text (an edit that leaves the formula's text as it was) are asked
    # once: the copies count as already stored
    evaluation, requests = manifest["evaluation"], manifest["counts"]["prompts"] * len(MODELS)
    assert evaluation["planned"] == evaluation["done"] + evaluation["skipped"] == requests
    assert h2((run_dir / "report.md").read_text()) == with_edit_sections(traces=True)
    page = (run_dir / "report.html").read_text()
    for title in EDIT_SECTIONS:
        assert f">{title}</h2>" in page


def test_dataset_holds_cumulative_chains_and_both_classes(run_dir: Path) -> None:
    dataset = {r["id"]: r for r in read(run_dir, "dataset.jsonl")}
    design = {r["instance_id"]: r for r in read(run_dir, "design.jsonl")}
    assert set(design) == set(dataset)
    bases = [r for r in dataset.values() if not edit_steps(r)]
    assert len(bases) == sum(len(c["clauses"]) for c in load_spec("edits").cells)
    classes: Counter[str] = Counter()
    for record in dataset.values():
        steps = edit_steps(record)
        if not steps:
            assert design[record["id"]]["arm"] == "base"
            continue
        origin = dataset[steps[-1]["origin"]]
        assert record["base_id"] == origin["id"] and not edit_steps(origin)
        mode = steps[-1]["mode"]
        assert design[record["id"]]["arm"] == mode
        changed = record["label"] != origin["label"]
        if mode == "cumulative":
            assert not changed and [s["level"] for s in steps] == list(range(1, len(steps) + 1))
        else:
            assert len(steps) == 1
            classes["changing" if changed else "preserving"] += 1
    assert classes["changing"] > 0 and classes["preserving"] > 0
    # Chains are complete: level k exists only if level k - 1 does.
    levels = Counter(
        (edit_steps(r)[-1]["origin"], len(edit_steps(r)))
        for r in dataset.values()
        if edit_steps(r) and edit_steps(r)[-1]["mode"] == "cumulative"
    )
    for origin, level in levels:
        assert level == 1 or (origin, level - 1) in levels
    # The edits are those `twosat-formal edit --mode M --max-edits 3 --seed 0` makes.
    made = [Instance.from_record(b) for b in bases]
    ids = {
        r.id
        for mode in ("cumulative", "individual")
        for r in edit_instances(made, mode=mode, max_edits=3, seed=0, keep_base=False).records
    }
    assert ids == {i for i, r in dataset.items() if edit_steps(r)}


def clause_lines(text: str, clauses: int) -> list[str]:
    return text.split("\n")[1 : 1 + clauses]  # the logic template: one line per clause


def test_edited_prompts_keep_the_entity_map_and_change_only_the_splice(run_dir: Path) -> None:
    dataset = {r["id"]: r for r in read(run_dir, "dataset.jsonl")}
    prompts = {p["instance_id"]: p for p in read(run_dir, "prompts.jsonl")}
    by_chain = {
        (edit_steps(r)[-1]["origin"], len(edit_steps(r))): r
        for r in dataset.values()
        if edit_steps(r) and edit_steps(r)[-1]["mode"] == "cumulative"
    }
    checked = 0
    for record in dataset.values():
        steps = edit_steps(record)
        if not steps:
            continue
        origin = steps[-1]["origin"]
        if steps[-1]["mode"] == "cumulative" and len(steps) > 1:
            before = by_chain[(origin, len(steps) - 1)]  # the level the last edit applied to
        else:
            before = dataset[origin]
        old, new = prompts[before["id"]], prompts[record["id"]]
        assert new["entities"] == prompts[origin]["entities"] == old["entities"]
        assert new["roundtrip"]["result"] == "proved"
        old_lines = clause_lines(old["text"], before["num_clauses"])
        new_lines = clause_lines(new["text"], record["num_clauses"])
        step = steps[-1]
        at, gone, added = step["position"], len(step["before"]), len(step["after"])
        assert len(new_lines) == len(old_lines) - gone + added
        assert new_lines[:at] == old_lines[:at]
        assert new_lines[at + added :] == old_lines[at + gone :]
        assert new_lines[at : at + added] != old_lines[at : at + gone]
        checked += 1
    assert checked >= 10


def test_report_metrics_equal_a_hand_recomputation(run_dir: Path) -> None:
    dataset = {r["id"]: r for r in read(run_dir, "dataset.jsonl")}
    rows = [
        {**row, "transforms": dataset[row["instance_id"]]["transforms"]}
        for row in read(run_dir, "results.jsonl")
    ]
    assert Counter(r["model"] for r in rows) == dict.fromkeys(MODELS, len(dataset))
    labels = {i: r["label"] for i, r in dataset.items()}
    expected = by_hand(rows, labels)
    assert len(expected["ref/oracle"]["levels"]) == 3
    assert expected["ref/oracle"]["retention"][1] == 0  # the oracle follows the new label
    data = json.loads((run_dir / "report.json").read_text())
    check_report_json(data, expected)

    md = (run_dir / "report.md").read_text()
    section = md.split("## Symbolic edits: normalized accuracy")[1].split("## ")[0]
    for model, want in expected.items():
        for level in want["levels"]:
            value = level["normalized_accuracy"]
            shown = "—" if value is None else f"{value:.3f}"
            assert re.search(
                rf"\| {re.escape(model)} \| operator \| {level['level']} \|.*\| {shown} \|", section
            )
    figure = run_dir / "figures" / "edits-normalized-accuracy.svg"
    check_svg(figure)
    assert "figures/edits-normalized-accuracy.svg" in md
    assert "figures/edits-normalized-accuracy.svg" in data["figures"]


def test_edited_rows_stay_out_of_table1(run_dir: Path) -> None:
    data = json.loads((run_dir / "report.json").read_text())
    dataset = {r["id"]: r for r in read(run_dir, "dataset.jsonl")}
    sizes = {(r["family"], r["num_clauses"]) for r in dataset.values() if not edit_steps(r)}
    assert {(r["family"], r["clauses"]) for r in data["table1"]} == sizes
    for row in data["table1"]:
        for cell in row["cells"].values():
            assert cell["sat"]["n"] == 1  # the base formula, nothing edited
    for summary in data["summaries"]:
        assert summary["flips"]["pairs"] == 0  # edits are not perturbations


# -- reports on synthetic rows -----------------------------------------------------------------


def synthetic(seed: int, bases: int, reach: Sequence[int], changing: int) -> list[dict[str, Any]]:
    """Rows of bases, cumulative chains reaching ``reach[i]`` levels and changing edits."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []

    def add(
        instance: str, label: str, transforms: list[dict[str, Any]], model: str, t: str
    ) -> None:
        decision = rng.choice(["SAT", "UNSAT", None])
        rows.append(
            {
                "instance_id": instance,
                "model": model,
                "template": t,
                "sample": 0,
                "label": label,
                "decision": decision,
                "decision_correct": decision == label,
                "witness_valid": None,
                "failure": "correct" if decision == label else "wrong-decision",
                "truncated": False,
                "family": "backbone",
                "num_clauses": 10,
                "transforms": transforms,
            }
        )

    for model in ("m1", "m2"):
        for t in ("logic", "team"):
            for i in range(bases):
                base, label = f"b{i}", "SAT" if i % 2 else "UNSAT"
                add(base, label, [], model, t)
                chain: list[dict[str, Any]] = []
                for k in range(1, reach[i % len(reach)] + 1):
                    chain = [
                        *chain,
                        {
                            "kind": "edit",
                            "mode": "cumulative",
                            "level": k,
                            "origin": base,
                            "label_before": label,
                            "label_after": label,
                        },
                    ]
                    add(f"{base}~c{k}", label, chain, model, t)
                other = "UNSAT" if label == "SAT" else "SAT"
                for j in range(changing):
                    step = {
                        "kind": "edit",
                        "mode": "individual",
                        "level": 1,
                        "origin": base,
                        "label_before": label,
                        "label_after": other,
                    }
                    add(f"{base}~i{j}", other, [step], model, t)
    return rows


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(1, 5),
    st.lists(st.integers(0, 3), min_size=1, max_size=5),
    st.integers(0, 2),
)
def test_edit_sections_on_random_rows(
    seed: int, bases: int, reach: list[int], changing: int
) -> None:
    rows = synthetic(seed, bases, reach, changing)
    labels = {r["instance_id"]: r["label"] for r in rows}
    content = compute_content(rows)
    md = render_markdown(layout(content, []))
    edited = any(r["transforms"] for r in rows)
    assert (content.edits is not None) == edited
    assert h2(md) == (with_edit_sections() if edited else list(SECTIONS))
    if not edited:
        return
    from twosat_formal.report import content_to_json

    check_report_json(content_to_json(content, []), by_hand(rows, labels))
    # Table 1 sees the bases only.
    plain = compute_content([r for r in rows if not r["transforms"]])
    assert [(r.family, r.clauses, r.cells) for r in content.table1] == [
        (r.family, r.clauses, r.cells) for r in plain.table1
    ]


def test_a_report_without_edits_has_exactly_the_usual_sections(tmp_path: Path) -> None:
    from twosat_formal.report import write_content

    rows = [r for r in synthetic(1, 3, [2], 1) if not r["transforms"]]
    write_content(compute_content(rows), tmp_path)
    assert h2((tmp_path / "report.md").read_text()) == list(SECTIONS)
    data = json.loads((tmp_path / "report.json").read_text())
    assert "edits" not in data
    assert not any("edits" in f for f in data["figures"])
