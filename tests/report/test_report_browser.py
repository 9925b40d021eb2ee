"""The HTML report opened in headless Chromium (Debian's package; `.ci/run` installs it).

A real run (three reference models on two families and two templates) is reported, and
the page is loaded from disk with the network out of reach: no console error, every
link of the contents resolves, every figure loads, the filters of the item browser show
exactly the answers the run store holds for each choice, an opened item shows its
prompt, answer, judgement and trace claims, print styles hide the controls, and a
screenshot 1280 px wide is not blank.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Browser, chromium_path
from tests.support.brute import check_png
from tests.support.cli import run_ok
from twosat_formal.evaluate.diagnostics.trace import trace_rows
from twosat_formal.report.render import SECTIONS

MODELS = ("ref/oracle", "ref/coin", "ref/bounded")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of three reference models, a report of it, and the exported result rows."""
    chromium_path()
    folder = tmp_path_factory.mktemp("browser")
    parts = []
    for family, clauses in (("backbone", "8"), ("implication-cycle", "12")):
        part = folder / f"{family}.jsonl"
        run_ok("generate", family, "--clauses", clauses, "--count", "3", "-o", str(part))
        parts.append(part.read_text())
    data = folder / "data.jsonl"
    data.write_text("".join(parts))
    lines = []
    for template in ("logic", "letter"):
        part = folder / f"p-{template}.jsonl"
        run_ok("verbalize", str(data), "-t", template, "-o", str(part))
        lines.append(part.read_text())
    (folder / "prompts.jsonl").write_text("".join(lines))
    store = folder / "runs.sqlite"
    models = [arg for model in MODELS for arg in ("-m", model)]
    run_ok("eval", str(folder / "prompts.jsonl"), "--dataset", str(data), *models,
        "--store", str(store), "--no-progress")  # fmt: skip
    run_ok("results", str(store), "-o", str(folder / "rows.jsonl"))
    run_ok("report", str(store), "-o", str(folder / "out"))
    return folder


@pytest.fixture(scope="module")
def page(run_dir: Path) -> Iterator[Browser]:
    browser = Browser(width=1280, height=900)
    try:
        browser.open(run_dir / "out" / "report.html")
        yield browser
    finally:
        browser.close()


def exported(run_dir: Path) -> list[dict[str, Any]]:
    """The run's answers as `twosat-formal results` exports them, with their family."""
    families = {}
    for line in (run_dir / "data.jsonl").read_text().splitlines():
        record = json.loads(line)
        families[record["id"]] = record["family"]
    rows = [json.loads(line) for line in (run_dir / "rows.jsonl").read_text().splitlines()]
    for row in rows:
        row["family"] = families[row["instance_id"]]
    return rows


def choose(page: Browser, **choice: str) -> tuple[int, int, list[dict[str, str]]]:
    """Set the filters (others to all) as a user would; the matching count, the total and
    the data attributes of every item shown."""
    script = (
        "(() => { for (const key of ['model', 'family', 'template', 'failure']) {"
        "  const select = document.getElementById('filter-' + key);"
        f"  select.value = ({json.dumps(choice)})[key] || '';"
        "  select.dispatchEvent(new Event('change')); }"
        " const shown = [...document.querySelectorAll('#item-list details.item')]"
        "   .map(d => ({...d.dataset}));"
        " return [document.getElementById('item-count').textContent, shown]; })()"
    )
    text, shown = page.evaluate(script)
    matching, _, total = text.split(" ")[:3]
    return int(matching), int(total), shown


def test_the_page_loads_without_console_errors_and_every_anchor_resolves(
    page: Browser,
) -> None:
    assert page.errors == []
    broken = page.evaluate(
        "[...document.querySelectorAll('a[href^=\"#\"]')]"
        ".map(a => decodeURIComponent(a.getAttribute('href').slice(1)))"
        ".filter(id => !document.getElementById(id))"
    )
    assert broken == []
    contents = page.evaluate("[...document.querySelectorAll('nav.toc a')].map(a => a.textContent)")
    headings = page.evaluate("[...document.querySelectorAll('h2')].map(h => h.textContent)")
    assert contents == headings and set(SECTIONS) <= set(headings)
    assert "Item browser" in headings
    images = page.evaluate(
        "[...document.images].map(i => [i.complete && i.naturalWidth > 0, i.alt, "
        "i.src.startsWith('data:image/svg+xml')])"
    )
    assert len(images) >= 5
    assert all(ok and alt and svg for ok, alt, svg in images), images


def test_the_filters_show_exactly_the_answers_of_each_choice(page: Browser, run_dir: Path) -> None:
    rows = exported(run_dir)
    matching, total, shown = choose(page)
    assert matching == total == len(rows)
    assert len(shown) == min(50, len(rows))
    for key, column in (("model", "model"), ("family", "family"), ("template", "template")):
        for value in sorted({str(r[column]) for r in rows}):
            matching, total, shown = choose(page, **{key: value})
            expected = sum(1 for r in rows if str(r[column]) == value)
            assert (matching, total) == (expected, len(rows)), (key, value)
            assert 0 < len(shown) <= 50 and all(item[key] == value for item in shown)
    for model in MODELS:
        for failure in sorted({r["failure"] or "correct" for r in rows}):
            matching, _, shown = choose(page, model=model, failure=failure)
            expected = [
                r for r in rows if r["model"] == model and (r["failure"] or "correct") == failure
            ]
            assert matching == len(expected) == len(shown) or len(shown) == 50
            assert all(item["model"] == model and item["failure"] == failure for item in shown)
    assert choose(page)[0] == len(rows)


def test_an_opened_item_shows_prompt_answer_judgement_and_claims(
    page: Browser, run_dir: Path
) -> None:
    prompts = {}
    for line in (run_dir / "prompts.jsonl").read_text().splitlines():
        record = json.loads(line)
        prompts[record["id"]] = record["text"]
    traces = [t for t in trace_rows(run_dir / "runs.sqlite") if t["claims"]]
    assert traces, "the reference reasoners state claims a trace can be checked on"
    trace = traces[0]
    choose(page, model=trace["model"], template=trace["template"])
    opened = page.evaluate(
        "(async () => { const items = [...document.querySelectorAll('#item-list details.item')];"
        " const item = items.find(d => d.querySelector('summary').textContent"
        f"   .includes({json.dumps(trace['instance_id'])}));"
        " const opened = new Promise(done => item.addEventListener('toggle', done, {once: true}));"
        " item.querySelector('summary').click();"
        " await opened;"
        " return {judgement: item.querySelector('.judgement').textContent,"
        "  texts: [...item.querySelectorAll('pre')].map(p => p.textContent),"
        "  claims: [...item.querySelectorAll('ul.claims li')].map(l => l.textContent)}; })()"
    )
    prompt, answer = opened["texts"]
    assert prompt == prompts[trace["prompt_id"]]
    assert answer.strip()
    failure = trace["failure"] or "correct"
    assert opened["judgement"].startswith(f"Judgement: {failure}: decided ")
    assert opened["claims"] == [f"{c['kind']}: {c['text']}" for c in trace["claims"]]
    assert page.errors == []


def test_print_styles_hide_the_controls(page: Browser) -> None:
    hidden = "getComputedStyle(document.querySelector('{}')).display"
    page.call("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        assert page.evaluate(hidden.format("nav.toc")) == "none"
        assert page.evaluate(hidden.format(".filters")) == "none"
    finally:
        page.call("Emulation.setEmulatedMedia", {"media": ""})
    assert page.evaluate(hidden.format("nav.toc")) != "none"


def test_a_screenshot_1280_wide_is_not_blank(page: Browser, tmp_path: Path) -> None:
    import matplotlib.image

    shot = tmp_path / "page.png"
    shot.write_bytes(page.screenshot())
    width, _ = check_png(shot)
    assert width == 1280
    pixels = matplotlib.image.imread(io.BytesIO(shot.read_bytes()), format="png")[..., :3]
    ink = (pixels.sum(axis=2) < 2.9).mean()  # share of pixels that are not (near) white
    assert ink > 0.02
    assert len({tuple(p) for p in pixels.reshape(-1, 3)[::97].round(2).tolist()}) > 10
