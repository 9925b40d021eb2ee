"""Experiment specs, their expansion into conditions, and a small end-to-end run."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError, RecordError, UnknownNameError
from twosat_formal.make.generators import FAMILIES, derive_seed
from twosat_formal.make.generators.grids import grid_cells
from twosat_formal.make.generators.knobs import KNOB_GRIDS
from twosat_formal.study.experiments.design import difficulty_knobs, expand, inert_knobs
from twosat_formal.study.experiments.spec import ExperimentSpec, load_spec, parse_spec, spec_names

NAMES = [
    "duplication",
    "edits",
    "fillers",
    "order",
    "pairs",
    "questions",
    "story",
    "sweep",
    "table1",
    "table6",
    "verbalization",
]


def test_shipped_specs() -> None:
    assert spec_names() == NAMES
    for name in NAMES:
        spec = load_spec(name)
        assert spec.name == name and spec.formulas == 10
        assert spec.templates == ("logic", "letter", "team", "social", "room", "door")
        assert spec.paper and spec.description
        for cell in spec.cells:
            assert cell["family"] in FAMILIES


def test_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError):
        load_spec("table2")
    good = load_spec("order").to_json()
    for field in ("name", "title", "kind", "formulas", "templates", "cells"):
        broken = {k: v for k, v in good.items() if k != field}
        with pytest.raises(RecordError, match=field):
            parse_spec(broken)
    with pytest.raises(RecordError, match="kind"):
        parse_spec({**good, "kind": "party"})
    with pytest.raises(RecordError, match="knob_level"):
        parse_spec({**good, "knob_level": 2})
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({**good, "name": "mine", "formulas": 3}))
    assert load_spec(path).formulas == 3
    path.write_text("{not json")
    with pytest.raises(RecordError, match="invalid JSON"):
        load_spec(path)
    with pytest.raises(ConfigError):
        load_spec("table1").with_formulas(0)
    with pytest.raises(ConfigError):
        load_spec("table1").with_max_clauses(1)


def test_table1_matches_the_generators_grid() -> None:
    conditions = expand(load_spec("table1").with_formulas(2))
    cells = grid_cells("table1", count=2)
    assert len(conditions) == 2 * len(cells) == 44
    for cell, pair in zip(cells, zip(conditions[::2], conditions[1::2], strict=True), strict=True):
        dataset = cell.dataset(0)
        for replicate, condition in enumerate(pair):
            assert (condition.family, condition.clauses) == (cell.family, cell.clauses)
            assert condition.replicate == replicate
            assert condition.seed == dataset.item_seed(replicate)
            assert dict(condition.params) == dict(cell.params)
            assert condition.arm == "base" and not condition.steps


def test_sweep_sets_one_knob_and_keeps_fillers_off() -> None:
    conditions = expand(load_spec("sweep").with_formulas(1))
    by_family = Counter(c.family for c in conditions)
    grid = len(KNOB_GRIDS["paper-7"])
    assert by_family == {
        "implication-cycle": grid,
        "equivalence-core": grid,
        "backbone": 3 * grid,
        "mono-bridge": 3 * grid,
    }
    for c in conditions:
        params = dict(c.params)
        assert "filler_share" not in params
        assert set(params) == set(difficulty_knobs(c.family))
        assert c.knob in params and params[c.knob] == c.level
        assert all(v == 0.5 for k, v in params.items() if k != c.knob)
        assert c.clauses == (20 if c.family == "equivalence-core" else 75)
    # Same seeds as the generators' paper-7 grid.
    cells = grid_cells("paper-7", family="equivalence-core", count=1)
    ours = [c for c in conditions if c.family == "equivalence-core"]
    assert [c.seed for c in ours] == [cell.dataset(0).item_seed(0) for cell in cells]


def test_fillers_arms() -> None:
    spec = load_spec("fillers").with_formulas(1)
    conditions = expand(spec)
    inert = {(i["family"], i["knob"]) for i in inert_knobs(spec)}
    assert inert == {("implication-cycle", "core_ratio")}
    knobs = {
        cell["family"]: [
            k for k in difficulty_knobs(cell["family"]) if (cell["family"], k) not in inert
        ]
        for cell in spec.cells
    }
    # one knob at a time, the knobs that move something: knobs x 3 levels x 3 arms
    assert len(conditions) == sum(len(k) for k in knobs.values()) * 3 * 3
    for c in conditions:
        params = dict(c.params)
        assert c.knob in knobs[c.family] and params[c.knob] == c.level
        assert all(v == spec.knob_level for k, v in params.items() if k != c.knob)
    ec = [
        c
        for c in conditions
        if c.family == "equivalence-core" and c.level == 0.2 and c.knob == knobs[c.family][0]
    ]
    arms = {c.arm: c for c in ec}
    assert set(arms) == {"core", "filler", "total"}
    assert arms["core"].clauses == arms["filler"].clauses == 20
    assert arms["total"].clauses == 50
    assert arms["filler"].base_key == arms["core"].base_key  # the same formula plus fillers
    assert arms["filler"].steps == (("filler", (("count", 30), ("over", "fresh"))),)
    assert arms["total"].design_record("x")["clauses"] == 20  # named by the setting's core


def test_order_and_duplication_arms() -> None:
    order = expand(load_spec("order").with_formulas(1))
    assert len(order) == 16
    assert Counter(c.arm for c in order) == {"construction": 8, "shuffled": 8}
    for construction, shuffled in zip(order[::2], order[1::2], strict=True):
        assert construction.base_key == shuffled.base_key
        assert shuffled.shuffled and shuffled.steps[0][0] == "reorder"
    dup = expand(load_spec("duplication").with_formulas(1))
    records = [c.design_record(f"i{n}") for n, c in enumerate(dup)]
    assert sorted((r["arm"], r["shuffled"]) for r in records) == sorted(
        (arm, s) for arm in ("single", "grouped", "interleaved", "distinct") for s in (False, True)
    )
    assert {r["clauses"] for r in records} == {50}
    grouped = next(c for c in dup if c.arm == "grouped" and c.shuffled)
    assert [s[0] for s in grouped.steps] == ["duplicate", "reorder"]
    assert dict(grouped.steps[0][1]) == {"copies": 2, "layout": "grouped"}


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(NAMES), st.integers(1, 4))
def test_formulas_scale_conditions(name: str, formulas: int) -> None:
    one = expand(load_spec(name).with_formulas(1))
    many = expand(load_spec(name).with_formulas(formulas))
    assert len(many) == formulas * len(one)
    assert Counter(c.replicate for c in many) == dict.fromkeys(range(formulas), len(one))
    # Within a setting, replicates have distinct seeds derived from the setting.
    for setting in {c.setting for c in many}:
        seeds = {c.seed for c in many if c.setting == setting}
        assert len(seeds) == formulas
    # Every condition's seed is the derived seed of its replicate (checked for the first).
    first = many[0]
    assert first.seed == derive_seed(
        derive_seed(0, f"{first.family}/clauses={first.clauses}" + _suffix(first)), first.replicate
    )


def _suffix(condition: object) -> str:
    knob = getattr(condition, "knob", None)
    level = getattr(condition, "level", None)
    if knob is not None:
        return f"/{knob}={level:.4g}"
    if level is not None:
        return f"/level={level:.4g}"
    return ""


# -- small end-to-end runs -------------------------------------------------------------------

SMALL_MODELS = ["ref/oracle", "ref/coin"]


def small_spec(name: str, cells: list[dict[str, Any]], formulas: int = 2) -> ExperimentSpec:
    data = load_spec(name).to_json()
    data.update(name=f"{name}-small", formulas=formulas, templates=["logic"], cells=cells)
    return parse_spec(data)


def run_small(tmp_path: Path, name: str, cells: list[dict[str, Any]]) -> dict[str, Any]:
    from twosat_formal.study.experiments.runner import run_experiment

    spec = small_spec(name, cells)
    result = run_experiment(spec, SMALL_MODELS, out_dir=tmp_path / name)
    assert result.certified["ok"] and result.report is not None
    assert result.evaluation.done == result.prompts * len(SMALL_MODELS)
    data: dict[str, Any] = json.loads((tmp_path / name / "report.json").read_text())
    return data


@pytest.mark.slow
def test_sweep_run_gives_knob_tests_over_formulas(tmp_path: Path) -> None:
    data = run_small(
        tmp_path,
        "sweep",
        [
            {
                "family": "equivalence-core",
                "clauses": [8],
                "knobs": ["free_ratio"],
                "levels": [0.0, 0.5, 1.0],
            }
        ],
    )
    (test,) = data["knob_tests"]
    # the unit is the formula: two formulas at each of three levels
    assert test["test"] == "permutation test over formulas" and test["unit"] == "formula"
    assert test["n"] == 6 and test["levels"] == 3 and test["series"] == len(SMALL_MODELS)
    assert test["exact"] and test["arrangements"] == 90
    assert test["label"] == "equivalence-core · free_ratio · |C|=8"
    assert any("knobs-equivalence-core" in f for f in data["figures"])


@pytest.mark.slow
def test_fillers_run_pairs_filler_with_core(tmp_path: Path) -> None:
    data = run_small(
        tmp_path,
        "fillers",
        [
            {
                "family": "implication-cycle",
                "core": 6,
                "filler": 4,
                "total": 10,
                "levels": [0.2, 0.8],
                "knobs": ["split"],
            }
        ],
    )
    tests = data["filler_tests"]
    assert [t["label"] for t in tests] == [
        "implication-cycle: |C|=6, r=4 vs |C|=6",
        "implication-cycle: |C|=6, r=4 vs |C|=10",
    ]
    assert all(t["n"] == 2 * 2 and t["models"] == len(SMALL_MODELS) for t in tests)
    dataset = [json.loads(line) for line in (tmp_path / "fillers" / "dataset.jsonl").open()]
    fillers = [r for r in dataset if r["base_id"]]
    assert fillers and all(r["num_clauses"] == 10 for r in fillers)
    assert all(r["transforms"][0]["operator"] == "filler" for r in fillers)


@pytest.mark.slow
def test_duplication_run_has_both_kinds_of_test(tmp_path: Path) -> None:
    data = run_small(
        tmp_path,
        "duplication",
        [
            {
                "family": "backbone",
                "clauses": 10,
                "copies": 2,
                "distinct": 20,
                "layouts": ["grouped", "interleaved"],
                "shuffle": True,
            }
        ],
    )
    tests = data["duplication_tests"]
    kinds = Counter(t["test"] for t in tests)
    assert kinds == {"independent t-test (Student)": 5, "paired t-test": 4}
    dataset = [json.loads(line) for line in (tmp_path / "duplication" / "dataset.jsonl").open()]
    assert {r["num_clauses"] for r in dataset} == {10, 20}
    assert "figures/duplication.svg" in data["figures"]


def test_table6_is_the_three_point_grid_across_sizes() -> None:
    spec = load_spec("table6")
    conditions = expand(spec.with_formulas(1))
    assert {c.level for c in conditions} == {0.2, 0.5, 0.8}
    by_knob: dict[tuple[str, str | None], set[int]] = {}
    for c in conditions:
        by_knob.setdefault((c.family, c.knob), set()).add(c.clauses)
        params = dict(c.params)
        assert params[c.knob] == c.level
        assert all(v == 0.5 for k, v in params.items() if k != c.knob)
    assert by_knob[("implication-cycle", "split")] == {5, 10, 15, 20, 50, 75, 100}
    assert by_knob[("mono-bridge", "pos_ratio")] == {50, 75, 100, 150, 200}


@pytest.mark.slow
def test_table6_runs_end_to_end_with_overall_rows(tmp_path: Path) -> None:
    data = run_small(
        tmp_path,
        "table6",
        [
            {
                "family": "implication-cycle",
                "clauses": [5, 8],
                "knobs": ["split"],
                "grid": "paper-3",
            }
        ],
    )
    labels = [t["label"] for t in data["knob_tests"]]
    assert labels == [
        "implication-cycle · split · |C|=5",
        "implication-cycle · split · |C|=8",
        "implication-cycle · split · |C|=overall",
    ]
    assert all(t["p_adjusted"] is not None or t["p_value"] is None for t in data["knob_tests"])
    assert {t["family"] for t in data["knob_tests"]} == {"knob levels (all of Table 6)"}


@pytest.mark.slow
def test_the_manifest_names_each_model_as_the_store_and_report_do(tmp_path: Path) -> None:
    """A spec spelled otherwise than its canonical form (a leading zero, its default
    option) is named in the manifest by the name its answers are stored under."""
    from twosat_formal.evaluate.store import RunStore
    from twosat_formal.study.experiments.runner import run_experiment

    spec = small_spec("table1", [{"family": "backbone", "clauses": [6]}], formulas=1)
    run_experiment(spec, ["ref/bounded?budget=0050", "ref/bounded?budget=1000"], out_dir=tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    with RunStore(tmp_path / "results.sqlite", readonly=True) as store:
        stored = set(store.budgets())
    assert manifest["models"] == ["ref/bounded?budget=50", "ref/bounded"]
    assert set(manifest["models"]) == stored


@pytest.mark.slow
def test_table4_budget_is_each_models_own(tmp_path: Path) -> None:
    """A model whose spec sets its own budget shows that budget, not the run's."""
    from twosat_formal.evaluate.store import RunStore
    from twosat_formal.study.experiments.runner import run_experiment

    spec = small_spec("table1", [{"family": "backbone", "clauses": [6]}], formulas=1)
    models = ["ref/oracle", "ref/coin?max_tokens=16384"]
    run_experiment(spec, models, out_dir=tmp_path / "run", max_tokens=32768)
    with RunStore(tmp_path / "run" / "results.sqlite", readonly=True) as store:
        assert store.budgets() == {"ref/coin?max_tokens=16384": [16384], "ref/oracle": [32768]}
    md = (tmp_path / "run" / "report.md").read_text()
    table = md.split("## Truncation")[1].split("## ")[0]
    assert "| ref/coin?max_tokens=16384 | 16384 |" in table
    assert "| ref/oracle | 32768 |" in table


@pytest.mark.slow
def test_inert_knob_is_not_swept_and_the_report_says_so(tmp_path: Path) -> None:
    """implication-cycle's core_ratio sizes the variables of generator fillers; the
    fillers protocol adds its fillers by the filler operator, so it moves nothing."""
    data = run_small(
        tmp_path,
        "fillers",
        [
            {
                "family": "implication-cycle",
                "core": 6,
                "filler": 4,
                "total": 10,
                "levels": [0.2, 0.8],
            }
        ],
    )
    design = [json.loads(line) for line in (tmp_path / "fillers" / "design.jsonl").open()]
    assert {r["knob"] for r in design} == {"split"}
    manifest = json.loads((tmp_path / "fillers" / "manifest.json").read_text())
    assert manifest["inert_knobs"] == [
        {"family": "implication-cycle", "knob": "core_ratio", "clauses": [6, 10]}
    ]
    assert any("core_ratio is inert at |C| = 6, 10" in note for note in data["notes"])


def test_knob_moves_is_a_property_of_the_draw() -> None:
    """The same knob is inert without generator fillers and moves with them; an inert
    knob leaves every resolved size as it is."""
    from twosat_formal.make.generators import FAMILIES
    from twosat_formal.study.experiments.design import knob_moves

    levels = (0.2, 0.5, 0.8)
    plain = (("core_ratio", 0.5), ("split", 0.5))
    assert not knob_moves("implication-cycle", 30, plain, "core_ratio", levels)
    with_fillers = (*plain, ("filler_share", 0.4))
    assert knob_moves("implication-cycle", 30, with_fillers, "core_ratio", levels)
    family = FAMILIES.get("implication-cycle")
    sizes = [
        {
            k: v
            for k, v in family.resolve(30, {**dict(plain), "core_ratio": lvl}).items()
            if k != "core_ratio"
        }
        for lvl in levels
    ]
    assert sizes[0] == sizes[1] == sizes[2]
    for name in ("backbone", "mono-bridge", "equivalence-core"):
        for knob in [p.name for p in FAMILIES.get(name).knobs() if p.name != "filler_share"]:
            at = tuple(
                sorted(
                    (p.name, 0.5) for p in FAMILIES.get(name).knobs() if p.name != "filler_share"
                )
            )
            assert knob_moves(name, 40, at, knob, levels), (name, knob)
