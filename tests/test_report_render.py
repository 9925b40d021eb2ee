"""Reports from hand-made rows: every section, every figure a valid SVG, right numbers."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from brute import check_svg
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.report import ReportData, build_report, write_content
from twosat_formal.report.render import SECTIONS, format_p, layout, render_markdown
from twosat_formal.report.sections import compute_content
from twosat_formal.scoring import Judgement
from twosat_formal.store import PromptRow, ResultRow, RunStore

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
    assert "—" in ic_line  # no witness on UNSAT rows


def test_tests_carry_name_and_n(report_dir: Path) -> None:
    data = json.loads((report_dir / "report.json").read_text())
    friedman = data["friedman"]
    assert len(friedman) == 1
    # blocks are model x template (matched across levels), not formula replicates
    assert friedman[0]["test"] == "Friedman" and friedman[0]["n"] == 4  # 2 models x 2
    assert friedman[0]["p_value"] < 0.05 and friedman[0]["p_adjusted"] is not None
    assert [t["test"] for t in data["order_tests"]] == ["paired t-test"]
    assert data["order_tests"][0]["n"] == 8
    assert len(data["filler_tests"]) == 2
    kinds = {t["test"] for t in data["duplication_tests"]}
    assert kinds == {"independent t-test (Student)", "paired t-test"}
    md = (report_dir / "report.md").read_text()
    section = md.split("## Friedman")[1].split("## Clause order")[0]
    assert "| Friedman | 4 |" in section
    assert "model × template" in section
    assert format_p(friedman[0]["p_value"]) in section


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
