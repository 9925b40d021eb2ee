"""The item browser's data and the page's anchors, as invariants over Hypothesis input.

Every answer becomes one item with the filter values the page offers, each prompt is
kept once and only when asked, a claim points at its own sentence of the answer, and
every heading gets a distinct ``id`` that a link can name.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.report.blocks import Browser, Heading, Paragraph
from twosat_formal.report.items import browser_data
from twosat_formal.report.page import BROWSER_ID, anchor_ids, render_html

FAILURES = st.sampled_from([None, "correct", "wrong-decision", "no-answer", "truncated"])


@st.composite
def answers(draw: st.DrawFn) -> tuple[list[dict[str, Any]], dict[str, str], list[dict[str, Any]]]:
    """Result rows, the prompts' texts (some missing) and trace rows for some answers."""
    rows, traces = [], []
    prompts = {}
    for i in range(draw(st.integers(0, 12))):
        prompt = f"p{draw(st.integers(0, 5))}"
        if draw(st.booleans()):
            prompts[prompt] = draw(st.text(max_size=30))
        response = draw(st.text(min_size=0, max_size=40))
        row = {
            "prompt_id": prompt, "instance_id": f"i{i % 4}", "model": f"m{i % 3}",
            "sample": i, "template": draw(st.sampled_from(["logic", "door", None])),
            "label": draw(st.sampled_from(["SAT", "UNSAT"])),
            "decision": draw(st.sampled_from(["SAT", "UNSAT", None])),
            "failure": draw(FAILURES), "response": response,
        }  # fmt: skip
        rows.append(row)
        if response and draw(st.booleans()):
            start = draw(st.integers(0, len(response) - 1))
            end = draw(st.integers(start + 1, len(response)))
            traces.append(
                {"prompt_id": prompt, "model": row["model"], "sample": i,
                 "claims": [{"text": response[start:end], "kind": "supported",
                             "span": [start, end]}]}
            )  # fmt: skip
    return rows, prompts, traces


@given(answers())
def test_every_answer_is_one_item_and_each_asked_prompt_is_kept_once(
    data: tuple[list[dict[str, Any]], dict[str, str], list[dict[str, Any]]],
) -> None:
    rows, prompts, traces = data
    families = {"i0": "backbone", "i1": "mono-bridge"}
    out = browser_data(rows, prompts, families=families, traces=traces)
    items = out["items"]
    assert len(items) == len(rows)
    asked = {row["prompt_id"] for row in rows}
    assert out["prompts"] == {k: v for k, v in prompts.items() if k in asked}
    for row, item in zip(rows, items, strict=True):
        assert item["model"] == row["model"] and item["prompt"] == row["prompt_id"]
        assert item["failure"] == (row["failure"] or "correct")
        assert item["family"] == families.get(row["instance_id"], "unknown")
        assert item["template"] == (row["template"] or "unknown")
        assert item["answer"] == row["response"]
        assert item["judgement"].startswith(item["failure"] + ": decided ")
        for kind, start, end in item["claims"]:
            assert kind == "supported" and 0 <= start < end <= len(item["answer"])
    claimed = {(t["prompt_id"], t["model"], t["sample"]): t for t in traces}
    for row, item in zip(rows, items, strict=True):
        trace = claimed.get((row["prompt_id"], row["model"], row["sample"]))
        texts = [item["answer"][s:e] for _, s, e in item["claims"]]
        assert texts == ([c["text"] for c in trace["claims"]] if trace else [])


@given(st.lists(st.text(max_size=12), max_size=12))
def test_every_heading_gets_a_distinct_id_a_link_can_name(titles: list[str]) -> None:
    ids = anchor_ids(titles)
    assert len(ids) == len(titles) == len(set(ids))
    assert BROWSER_ID not in ids
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=6))
def test_the_contents_link_every_section_heading(titles: list[str]) -> None:
    blocks = [Heading("R", 1), *[Heading(t, 2) for t in titles], Paragraph("x")]
    page = render_html(blocks)
    links = re.findall(r'<a href="#([^"]+)">', page)
    ids = re.findall(r'<h2 id="([^"]+)">', page)
    assert links == ids == anchor_ids(titles)


def test_the_browser_data_cannot_close_its_script_element() -> None:
    rows = [{"prompt_id": "p", "instance_id": "i", "model": "m", "sample": 0,
             "response": "</script><script>alert(1)</script>", "failure": None}]  # fmt: skip
    page = render_html(
        [Heading("R", 1), Heading("Item browser", 2), Browser(1)],
        browser=browser_data(rows, {"p": "</SCRIPT> <!--<script> & -->"}),
    )
    payload = page.split('id="item-data">', 1)[1].split("</script>", 1)[0]
    data = json.loads(payload)
    assert data["items"][0]["answer"] == rows[0]["response"]
    assert data["prompts"]["p"] == "</SCRIPT> <!--<script> & -->"
    assert "<" not in payload and page.count("<script") == 2
