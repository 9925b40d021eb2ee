"""Figures checked without a screenshot: file names, one colour per series, integer ticks,
and an HTML report that is valid and works offline.

The SVG twin of every figure keeps its text as text, so the test reads each legend
(label → colour) and each tick label straight from the files the report wrote.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support.brute import check_svg
from tests.support.cli import run_ok

SVG = "{http://www.w3.org/2000/svg}"
MODELS = ("ref/oracle", "ref/sat-biased", "ref/coin")
NEW_FIGURES = ("accuracy-vs-clauses", "sat_bias", "truncation", "failures")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of three reference models on two families, two sizes, two templates."""
    folder = tmp_path_factory.mktemp("report")
    parts = []
    for family in ("backbone", "implication-cycle"):
        for clauses in ("8", "13"):
            part = folder / f"{family}-{clauses}.jsonl"
            run_ok("generate", family, "--clauses", clauses, "--count", "2", "-o", str(part))
            parts.append(part.read_text())
    data = folder / "data.jsonl"
    data.write_text("".join(parts))
    prompts = folder / "prompts.jsonl"
    prompt_lines = []
    for template in ("logic", "door"):
        part = folder / f"p-{template}.jsonl"
        run_ok("verbalize", str(data), "-t", template, "-o", str(part))
        prompt_lines.append(part.read_text())
    prompts.write_text("".join(prompt_lines))
    store = folder / "runs.sqlite"
    models = [arg for model in MODELS for arg in ("-m", model)]
    run_ok("eval", str(prompts), "--dataset", str(data), *models, "--store", str(store),
        "--no-progress")  # fmt: skip
    run_ok("report", str(store), "-o", str(folder / "out"))
    return folder / "out"


def legend(svg: Path) -> dict[str, str]:
    """Label → colour of every entry of the figure's legend, read from the SVG."""
    root = ET.parse(svg).getroot()
    out: dict[str, str] = {}
    for group in root.iter(f"{SVG}g"):
        if not group.get("id", "").startswith("legend"):
            continue
        colour = None
        for element in group.iter():
            style = element.get("style", "")
            found = re.search(r"stroke: (#[0-9a-f]{6})", style) or re.search(
                r"fill: (#[0-9a-f]{6})", style
            )
            if found and element.tag != f"{SVG}text":
                colour = colour or found.group(1)
            if element.tag == f"{SVG}text" and element.text:
                assert colour is not None, f"{svg.name}: {element.text} has no swatch"
                out[element.text] = colour
                colour = None
    return out


def tick_labels(svg: Path, axis: str) -> list[str]:
    root = ET.parse(svg).getroot()
    labels = []
    for group in root.iter(f"{SVG}g"):
        if group.get("id", "").startswith(f"{axis}tick_"):
            labels += [t.text for t in group.iter(f"{SVG}text") if t.text]
    return labels


@pytest.mark.slow
def test_every_figure_is_one_titled_svg_with_the_names_that_say_which(report: Path) -> None:
    figures = report / "figures"
    assert {p.suffix for p in figures.iterdir()} == {".svg"}
    svgs = {p.stem for p in figures.glob("*.svg")}
    assert set(NEW_FIGURES) <= svgs
    for stem in svgs:
        assert check_svg(figures / f"{stem}.svg")


@pytest.mark.slow
def test_each_series_keeps_one_colour_across_every_figure(report: Path) -> None:
    seen: dict[str, set[str]] = {}
    legends = {svg.stem: legend(svg) for svg in (report / "figures").glob("*.svg")}
    for entries in legends.values():
        for label, colour in entries.items():
            seen.setdefault(label, set()).add(colour)
    assert {label: len(c) for label, c in seen.items()} == dict.fromkeys(seen, 1)
    models = {label: colour for label, colour in legends["sat_bias"].items()}
    assert set(models) == set(MODELS)
    assert len(set(models.values())) == len(MODELS)  # distinct models, distinct colours
    assert legends["accuracy-vs-clauses"] == legends["truncation"] == models


@pytest.mark.slow
def test_axes_that_count_have_whole_number_ticks(report: Path) -> None:
    for name in ("accuracy-vs-clauses", "accuracy-by-template"):
        labels = tick_labels(report / "figures" / f"{name}.svg", "x")
        assert labels and all(re.fullmatch(r"−?\d+", label) for label in labels), labels


@pytest.mark.slow
def test_decision_accuracy_and_witness_validity_are_separate_panels(report: Path) -> None:
    texts = [
        t.text or ""
        for t in ET.parse(report / "figures" / "accuracy-vs-clauses.svg").iter(f"{SVG}text")
    ]
    assert "backbone: decision accuracy" in texts and "backbone: witness validity" in texts
    assert "decision accuracy (%)" in texts and "witness validity (%)" in texts


class StrictHTML(HTMLParser):
    """Checks that every element is closed in order and nothing is loaded from afar."""

    VOID = frozenset(
        ("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr")
    )  # fmt: skip

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.tags: list[str] = []
        self.doctype = ""

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href") and value and re.match(r"(https?:)?//", value):
                self.errors.append(f"<{tag} {name}={value!r}> loads from the network")
            if tag == "img" and name == "src" and value and not value.startswith("data:"):
                self.errors.append(f"image {value!r} is not embedded")
            if tag == "script" and name == "src":
                self.errors.append(f"script {value!r} is loaded, not embedded")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.mark.slow
def test_the_html_report_is_valid_and_self_contained(report: Path) -> None:
    parser = StrictHTML()
    parser.feed((report / "report.html").read_text(encoding="utf-8"))
    parser.close()
    assert parser.doctype.lower() == "doctype html"
    assert parser.errors == [] and parser.stack == []
    assert parser.tags[:1] == ["html"] and parser.tags.count("body") == 1
    assert parser.tags.count("script") == 2  # the browser's data and its one inline script
    assert parser.tags.count("img") >= len(NEW_FIGURES)


@pytest.mark.slow
def test_the_order_figure_has_one_panel_per_family_and_a_group_per_model(
    tmp_path: Path,
) -> None:
    from twosat_formal.report.content import compute_content
    from twosat_formal.report.figspecs import FigureInput, render_figures

    rows = [
        {"instance_id": f"{family}-{base}-{arm}", "base_id": f"{family}-{base}",
         "family": family, "model": model, "experiment": "order", "arm": arm,
         "shuffled": arm == "shuffled", "label": "UNSAT", "decision": "UNSAT",
         "decision_correct": (base + len(model) + (arm == "shuffled")) % 2 == 0,
         "witness_valid": None, "failure": "correct", "truncated": False, "sample": 0,
         "template": "logic", "clauses": 10, "num_clauses": 10, "params": {}, "transforms": []}
        for family in ("backbone", "mono-bridge")
        for model in MODELS
        for base in range(3)
        for arm in ("construction", "shuffled")
    ]  # fmt: skip
    figures = render_figures(FigureInput(compute_content(rows)), tmp_path)[0]
    assert "order.svg" in [f.path.name for f in figures]
    svg = ET.parse(tmp_path / "figures" / "order.svg").getroot()
    titles = [t.text for t in svg.iter(f"{SVG}text")]
    assert "backbone" in titles and "mono-bridge" in titles
    assert tick_labels(tmp_path / "figures" / "order.svg", "x") == list(MODELS) * 2
    assert set(legend(tmp_path / "figures" / "order.svg")) == {"construction", "shuffled"}


def _legend_overflow(svg: Path) -> list[str]:
    """Legend labels whose text (measured in the font it is drawn in) leaves the page."""
    from matplotlib.textpath import TextPath

    root = ET.parse(svg).getroot()
    width = float(root.get("viewBox", "0 0 0 0").split()[2])
    height = float(root.get("viewBox", "0 0 0 0").split()[3])
    out = []
    for group in root.iter(f"{SVG}g"):
        if not group.get("id", "").startswith("legend"):
            continue
        for text in group.iter(f"{SVG}text"):
            size = float(re.search(r"font-size: ([0-9.]+)px", text.get("style", "")).group(1))  # type: ignore[union-attr]
            extent = TextPath((0, 0), text.text or "", size=size).get_extents()
            x, y = float(text.get("x", "0")), float(text.get("y", "0"))
            if x < 0 or x + extent.width > width or y > height or y - size < 0:
                out.append(text.text or "")
    return out


@pytest.mark.slow
def test_no_legend_is_clipped(tmp_path: Path) -> None:
    """Eight long series names under narrow panels: the saved page holds the legend."""
    from twosat_formal.report.metrics import Estimate
    from twosat_formal.report.plots import bar_groups, curve_panels

    names = [f"openai/a-rather-long-model-name-number-{i}?max_tokens=16384" for i in range(8)]
    point = Estimate(0.5, 0.4, 0.6, n=10)
    curve_panels({"p": {n: [(1.0, point), (2.0, point)] for n in names}}, tmp_path / "c.png",
                 xlabel="x", cols=1)  # fmt: skip
    bar_groups({"g": dict.fromkeys(names, point)}, tmp_path / "b.png")
    for svg in (tmp_path / "c.svg", tmp_path / "b.svg"):
        labels = legend(svg)
        assert set(labels) == set(names)
        assert len(set(labels.values())) == len(names)  # eight series, eight colours
        assert _legend_overflow(svg) == []


@pytest.mark.slow
def test_every_bar_of_a_figure_has_its_own_colour(tmp_path: Path) -> None:
    from tests.report.test_report_render import synthetic_rows
    from twosat_formal.report import write_content
    from twosat_formal.report.content import compute_content

    write_content(compute_content(synthetic_rows(), title="s"), tmp_path)
    for name in ("duplication", "fillers", "order"):
        labels = legend(tmp_path / "figures" / f"{name}.svg")
        assert len(set(labels.values())) == len(labels), (name, labels)
    assert len(legend(tmp_path / "figures" / "duplication.svg")) == 8
