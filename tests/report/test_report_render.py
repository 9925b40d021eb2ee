"""Reports from hand-made rows: every section, every figure a valid SVG, right numbers."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import check_svg
from twosat_formal.evaluate.scoring import Judgement
from twosat_formal.evaluate.store import PromptRow, ResultRow, RunStore
from twosat_formal.report import ReportData, build_report, write_content
from twosat_formal.report.content import compute_content
from twosat_formal.report.render import SECTIONS, layout, render_markdown
from twosat_formal.report.sections.format import format_p

MODELS = ("ref/good", "ref/poor")
TEMPLATES = ("logic", "team")


def make_row(
    rng: random.Random,
    instance: str,
    family: str,
    label: str,
    model: str,
    template: str,
    p_right: float,
    **design: Any,
) -> dict[str, Any]:
    right = rng.random() < p_right
    truncated = not right and rng.random() < 0.2
    decision = None if truncated else (label if right else ("SAT" if label == "UNSAT" else "UNSAT"))
    failure = "correct" if right else ("truncated" if truncated else "wrong-decision")
    return {
        "instance_id": instance,
        "prompt_id": f"{instance}:{template}",
        "template": template,
        "model": model,
        "sample": 0,
        "label": label,
        "decision": decision,
        "decision_correct": right,
        "witness_valid": (right if label == "SAT" else None),
        "failure": failure,
        "finish_reason": "length" if truncated else "stop",
        "truncated": truncated,
        "family": family,
        "num_clauses": design.get("clauses", 20),
        "params": {},
        "base_id": design.pop("base_id", None),
        **design,
    }


def synthetic_rows() -> list[dict[str, Any]]:
    rng = random.Random(2024)
    rows: list[dict[str, Any]] = []
    skill = {"ref/good": 0.9, "ref/poor": 0.4}

    def emit(instance: str, family: str, label: str, p: float, **design: Any) -> None:
        for model in MODELS:
            for template in TEMPLATES:
                rows.append(
                    make_row(
                        rng,
                        instance,
                        family,
                        label,
                        model,
                        template,
                        p * skill[model],
                        **dict(design),
                    )
                )

    def emit_arm(
        instance: str,
        p: float,
        experiment: str,
        clauses: int,
        r: int,
        arm: str,
        arm_label: str,
        **design: Any,
    ) -> None:
        """One arm of a backbone (SAT) experiment whose arms carry a label."""
        design.update(experiment=experiment, clauses=clauses, replicate=r)
        emit(instance, "backbone", "SAT", p, arm=arm, arm_label=arm_label, **design)

    for family, label, sizes in [
        ("implication-cycle", "UNSAT", (5, 20)),
        ("backbone", "SAT", (20, 50)),
    ]:
        for clauses in sizes:
            for r in range(4):
                emit(
                    f"t1-{family}-{clauses}-{r}",
                    family,
                    label,
                    1.2 - clauses / 100,
                    experiment="table1",
                    clauses=clauses,
                    replicate=r,
                    arm="base",
                )
    for level in (0.0, 0.5, 1.0):
        for r in range(6):
            emit(
                f"sw-{level}-{r}",
                "mono-bridge",
                "SAT",
                1.1 - 0.9 * level,
                experiment="sweep",
                clauses=75,
                replicate=r,
                knob="density",
                level=level,
                arm="base",
            )
    for r in range(4):
        base = f"or-{r}"
        emit(
            base,
            "backbone",
            "SAT",
            0.9,
            experiment="order",
            clauses=50,
            replicate=r,
            arm="construction",
        )
        emit(
            f"{base}-s",
            "backbone",
            "SAT",
            0.5,
            experiment="order",
            clauses=50,
            replicate=r,
            arm="shuffled",
            shuffled=True,
            base_id=base,
        )
        for arm, label_text, p in [
            ("filler", "75 + r=25", 0.6),
            ("core", "75", 0.8),
            ("total", "100", 0.5),
        ]:
            emit_arm(f"fi-{arm}-{r}", p, "fillers", 75, r, arm, label_text, level=0.5)
        for arm, label_text, p in [
            ("single", "50", 0.9),
            ("grouped", "50x2 grouped", 0.6),
            ("interleaved", "50x2 interleaved", 0.6),
            ("distinct", "100", 0.55),
        ]:
            for shuffled in (False, True):
                emit_arm(
                    f"du-{arm}-{shuffled}-{r}",
                    p - 0.2 * shuffled,
                    "duplication",
                    50,
                    r,
                    arm,
                    label_text,
                    shuffled=shuffled,
                )
    return rows


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    rows = synthetic_rows()
    content = compute_content(
        rows,
        title="synthetic",
        manifest={"experiment": "synthetic", "tool_version": "0", "sampling": {"max_tokens": 512}},
    )
    write_content(content, out, data=ReportData(out, rows))
    return out


@pytest.mark.slow
def test_every_section_in_both_formats(report_dir: Path) -> None:
    md = (report_dir / "report.md").read_text()
    page = (report_dir / "report.html").read_text()
    for title in SECTIONS:
        assert f"## {title}" in md
        assert f">{title}</h2>" in page.replace("&amp;", "&")
    assert "No data for this section" not in md
    assert "512" in md  # max tokens from the manifest, in the truncation table


def test_every_figure_is_a_valid_svg(report_dir: Path) -> None:
    md = (report_dir / "report.md").read_text()
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    names = {Path(p).name for p in linked}
    assert {
        "accuracy-vs-clauses.svg",
        "accuracy-by-template.svg",
        "order.svg",
        "fillers.svg",
        "duplication.svg",
    } <= names
    assert any(n.startswith("knobs-mono-bridge") for n in names)
    on_disk = sorted((report_dir / "figures").glob("*.svg"))
    assert {p.name for p in on_disk} == names
    for path in on_disk:
        check_svg(path)
    page = (report_dir / "report.html").read_text()
    assert page.count('src="data:image/svg+xml;base64,') == len(on_disk)


def test_table1_values_and_bold_best(report_dir: Path) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    rows = [r for r in data["table1"] if r["family"] == "backbone" and r["clauses"] == 20]
    assert len(rows) == 1
    cell = rows[0]["cells"]["ref/good"]
    assert cell["sat"]["n"] == 4 and cell["wit"]["n"] == 4
    md = (report_dir / "report.md").read_text()
    table = md.split("## Table 1")[1].split("## Truncation")[0]
    line = next(x for x in table.splitlines() if x.startswith("| backbone | 20 |"))
    assert line.count("**") >= 2  # the best Sat. of the row is bold
    ic_line = next(x for x in table.splitlines() if x.startswith("| implication-cycle | 5 |"))
    assert "| n/a |" in ic_line  # no witness on UNSAT rows: it does not apply


def test_tests_carry_name_and_n(report_dir: Path) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    (knob,) = data["knob_tests"]
    # the unit is the formula: 6 formulas at each of 3 levels, every model's answers
    # to a formula moving with it
    assert knob["test"] == "permutation test over formulas" and knob["n"] == 18
    assert knob["unit"] == "formula" and knob["levels"] == 3 and knob["series"] == 2
    assert knob["p_value"] < 0.05 and knob["p_adjusted"] is not None
    assert knob["family"] == "knob levels (all of Table 6)"
    assert [t["test"] for t in data["order_tests"]] == ["paired t-test"]
    assert data["order_tests"][0]["n"] == 4  # 4 formulas, both models averaged on each
    assert data["order_tests"][0]["unit"] == "formula"
    assert len(data["filler_tests"]) == 2
    kinds = {t["test"] for t in data["duplication_tests"]}
    assert kinds == {"independent t-test (Student)", "paired t-test"}
    md = (report_dir / "report.md").read_text()
    section = md.split("## Knob tests")[1].split("## Clause order")[0]
    assert "| permutation test over formulas | 18 formulas |" in section
    assert "knob levels (all of Table 6)" in section
    assert format_p(knob["p_value"]) in section


def test_flip_rate_from_order_variants(report_dir: Path) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    for summary in data["summaries"]:
        # Each order variant pairs with its base under the same model and template.
        assert summary["flips"]["pairs"] == 4 * len(TEMPLATES)
        assert summary["verbal_flips"]["pairs"] > 0


def test_empty_report_still_has_every_section(tmp_path: Path) -> None:
    write_content(compute_content([]), tmp_path)
    md = (tmp_path / "report.md").read_text()
    for title in SECTIONS:
        assert f"## {title}" in md
    assert not (tmp_path / "figures").exists() or not list((tmp_path / "figures").iterdir())


def _judgement(label: str, right: bool) -> Judgement:
    decision = label if right else ("UNSAT" if label == "SAT" else "SAT")
    return Judgement(
        failure="correct" if right else "wrong-decision",
        decision=decision,
        decision_correct=right,
        witness_valid=right if label == "SAT" else None,
        label=label,
    )


@pytest.mark.slow
def test_build_report_from_a_run_store(tmp_path: Path) -> None:
    store_path = tmp_path / "runs.sqlite"
    with RunStore(store_path) as store:
        for i, (family, label) in enumerate(
            [("backbone", "SAT"), ("backbone", "SAT"), ("implication-cycle", "UNSAT")]
        ):
            instance = {
                "id": f"i{i}",
                "family": family,
                "label": label,
                "num_vars": 4,
                "num_clauses": 10,
                "params": {},
            }
            store.add_instance(instance)
            for template in TEMPLATES:
                prompt = PromptRow(
                    f"p{i}{template}",
                    f"i{i}",
                    template,
                    label,
                    f"prompt {i} {template}",
                    {"A": "x1"},
                )
                store.add_prompts([prompt])
                store.put(
                    ResultRow(
                        "ref/x",
                        "local",
                        prompt.prompt_hash,
                        prompt.prompt_id,
                        "{}",
                        0,
                        _judgement(label, template == "logic"),
                    )
                )
    md_path = build_report(store_path, tmp_path / "out")
    md = md_path.read_text()
    for title in SECTIONS:
        assert f"## {title}" in md
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["rows"] == 6
    (summary,) = data["summaries"]
    assert summary["accuracy"]["mean"] == pytest.approx(0.5)
    assert summary["verbal_flips"]["rate"] == pytest.approx(1.0)
    for figure in data["figures"]:
        check_svg(tmp_path / "out" / figure)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["backbone", "implication-cycle", "mono-bridge"]),
            st.sampled_from([10, 20, 50]),
            st.integers(0, 3),
            st.sampled_from(MODELS),
            st.sampled_from(TEMPLATES),
            st.floats(0.0, 1.0),
        ),
        max_size=30,
    ),
    st.integers(0, 2**16),
)
def test_layout_invariants_on_random_rows(
    specs: list[tuple[str, int, int, str, str, float]], seed: int
) -> None:
    rng = random.Random(seed)
    rows = []
    for family, clauses, replicate, model, template, p in specs:
        label = "UNSAT" if family == "implication-cycle" else "SAT"
        instance = f"{family}-{clauses}-{replicate}"
        rows.append(make_row(rng, instance, family, label, model, template, p, clauses=clauses))
    content = compute_content(rows)
    md = render_markdown(layout(content, []))
    for title in SECTIONS:
        assert f"## {title}" in md
    cells = {(r["family"], r["clauses"]) for r in rows}
    assert {(t.family, t.clauses) for t in content.table1} == cells
    for row in content.table1:
        for cell in row.cells.values():
            assert cell.sat.mean is not None and 0.0 <= cell.sat.mean <= 1.0
            assert (cell.wit is None) == (row.family == "implication-cycle")
    assert sum(s.rows for s in content.summaries) == len(rows)
    assert sum(sum(s.failures.values()) for s in content.summaries) == len(rows)


def _table1_lines(rows: list[dict[str, Any]], tmp_path: Path) -> list[str]:
    write_content(compute_content(rows, title="t"), tmp_path)
    md = (tmp_path / "report.md").read_text()
    table = md.split("## Table 1")[1].split("## Strict")[0]
    return [x for x in table.splitlines() if x.startswith("| backbone |")]


@pytest.mark.slow
def test_ties_are_not_bolded(tmp_path: Path) -> None:
    rng = random.Random(0)
    rows = [
        make_row(rng, f"b{i}", "backbone", "SAT", model, "logic", 0.0, clauses=20)
        for model in MODELS
        for i in range(3)
    ]
    (line,) = _table1_lines(rows, tmp_path)
    assert "**" not in line and "*" not in line.replace("|", "")  # every model at 0 %
    best = [
        make_row(rng, f"b{i}", "backbone", "SAT", model, "logic", p, clauses=20)
        for model, p in (("ref/good", 1.0), ("ref/poor", 0.0))
        for i in range(3)
    ]
    (line,) = _table1_lines(best, tmp_path / "2")
    assert line.count("**100.0**") == 2  # Sat. and Wit. of the one best model


def test_missing_na_and_partial_cells_are_marked(tmp_path: Path) -> None:
    rng = random.Random(0)
    rows = []
    for i in range(2):
        for template in TEMPLATES:
            rows.append(make_row(rng, f"u{i}", "backbone", "UNSAT", "ref/good", template, 1.0))
        # ref/poor answered only one of the two templates
        rows.append(make_row(rng, f"u{i}", "backbone", "UNSAT", "ref/poor", "logic", 1.0))
    rows.append(make_row(rng, "s0", "mono-bridge", "SAT", "ref/good", "logic", 1.0))
    content = compute_content(rows, title="t")
    write_content(content, tmp_path)
    md = (tmp_path / "report.md").read_text()
    table = md.split("## Table 1")[1].split("## Strict")[0]
    (unsat,) = [x for x in table.splitlines() if x.startswith("| backbone |")]
    cells = [c.strip() for c in unsat.strip("|").split("|")]
    # ref/good: Sat., Wit.; ref/poor: Sat., Wit. -- witness does not apply on UNSAT
    assert cells[3] == "n/a" and cells[5] == "n/a"
    assert cells[4].endswith("†") and not cells[2].endswith("†")
    (missing,) = [x for x in table.splitlines() if x.startswith("| mono-bridge |")]
    assert [c.strip() for c in missing.strip("|").split("|")][4:6] == ["—", "—"]
    assert "n/a: does not apply; —: no answers; †: averaged over fewer templates" in table
    data = json.loads((tmp_path / "report.json").read_text())
    row = next(r for r in data["table1"] if r["family"] == "backbone")
    assert row["cells"]["ref/poor"]["partial"] and not row["cells"]["ref/good"]["partial"]
    assert (row["cells"]["ref/poor"]["templates"], row["cells"]["ref/good"]["templates"]) == (1, 2)


def _report_validator() -> Any:
    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "docs/schema/report.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def test_report_json_fits_its_schema_and_holds_every_table(report_dir: Path) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    errors = [f"{list(e.path)}: {e.message}" for e in _report_validator().iter_errors(data)]
    assert errors == []
    content = compute_content(synthetic_rows(), title="synthetic")
    # the tables and figures of the Markdown, number for number
    bias = content.sat_bias_by_family
    assert set(data["sat_bias_by_family"]) == set(bias)
    for family, by_model in bias.items():
        for model, estimate in by_model.items():
            assert data["sat_bias_by_family"][family][model]["mean"] == estimate.mean
    for model, by_template in content.template_table.items():
        for template, estimate in by_template.items():
            assert data["template_table"][model][template]["n"] == estimate.n
    curves = data["figure_data"]["size_curves"]
    for family, series in content.size_curves.items():
        for name, points in series.items():
            assert [(p["x"], p["mean"]) for p in curves[family][name]] == [
                (x, e.mean) for x, e in points
            ]
    bars = data["figure_data"]["duplication_bars"]
    assert {g: set(b) for g, b in bars.items()} == {
        g: set(b) for g, b in content.duplication_bars.items()
    }
    assert data["figure_data"]["knob_curves"]


def test_schema_rejects_a_report_missing_a_table(report_dir: Path) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    del data["template_table"]
    data["knob_tests"][0]["p_value"] = 1.5
    messages = {e.message for e in _report_validator().iter_errors(data)}
    assert "'template_table' is a required property" in messages
    assert any("1.5 is greater than the maximum of 1" in m for m in messages)


@pytest.mark.parametrize("experiment", ["table1", "order", "edits"])
def test_golden_reports_fit_the_schema(experiment: str) -> None:
    path = Path(__file__).parents[1] / "golden" / experiment / "report.json"
    data = json.loads(path.read_text())
    assert [e.message for e in _report_validator().iter_errors(data)] == []


@settings(max_examples=100)
@given(st.lists(st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.0])), max_size=6))
def test_bold_and_italics_only_for_a_place_held_alone(values: list[float | None]) -> None:
    from twosat_formal.report.sections.format import ranked

    styles = ranked(values)
    present = sorted((v for v in values if v is not None), reverse=True)
    for value, style in zip(values, styles, strict=True):
        if style == "b":
            assert value == present[0] and present.count(value) == 1 and len(present) > 1
        if style == "i":
            assert present.count(present[0]) == 1 and value == present[1]
            assert present.count(value) == 1
    if len(present) > 1 and present[0] > present[1]:
        assert styles.count("b") == 1


def test_a_model_without_answers_on_an_unsat_row_has_no_witness_to_miss(tmp_path: Path) -> None:
    """Witness validity does not apply to an UNSAT row, answered or not: a model with
    no answers there shows `—` for its decision and `n/a` for its witness, as the
    models that answered it do."""
    rng = random.Random(1)
    rows = [make_row(rng, "u0", "backbone", "UNSAT", "ref/good", "logic", 1.0)]
    rows += [
        make_row(rng, "s0", "mono-bridge", "SAT", model, "logic", 1.0)
        for model in ("ref/good", "ref/poor")
    ]
    write_content(compute_content(rows, title="t"), tmp_path)
    table = (tmp_path / "report.md").read_text().split("## Table 1")[1].split("## Strict")[0]
    (unsat,) = [x for x in table.splitlines() if x.startswith("| backbone |")]
    (sat,) = [x for x in table.splitlines() if x.startswith("| mono-bridge |")]
    assert [c.strip() for c in unsat.strip("|").split("|")][2:6] == ["100.0", "n/a", "—", "n/a"]
    assert "n/a" not in sat
