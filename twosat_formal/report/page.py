"""The report as one self-contained HTML page (``report.html``).

:func:`render_html` writes the laid-out blocks (:mod:`~twosat_formal.report.blocks`)
as a page that works offline and alone: a table of contents linking every section
(each heading has a stable ``id``), the figures embedded as SVG ``data:`` URIs (each
SVG has a ``<title>``), print styles (no contents list or filters on paper, no figure
or table split across pages), and, when the report has answers, the item browser: a
filter per model, family, template and failure kind over every answer, each showing
its prompt, answer, judgement and the trace checker's claims. The browser's data is
one JSON object in the page (a ``<script type="application/json">``), read by the
page's one script; nothing is loaded from the network.

Examples
--------
>>> from twosat_formal.report.blocks import Heading, Paragraph
>>> page = render_html([Heading("R", 1), Heading("A b", 2), Paragraph("a < b")])
>>> '<h2 id="a-b">A b</h2>' in page, '<a href="#a-b">A b</a>' in page, "a &lt; b" in page
(True, True, True)
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twosat_formal.report.blocks import Block, Browser, Heading, Paragraph, Table

__all__ = ["BROWSER_ID", "anchor_ids", "render_html", "slug"]

#: The ``id`` of the item browser's section.
BROWSER_ID = "answers"

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;
 line-height:1.4;color:#111}
table{border-collapse:collapse;margin:1em 0;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
figure{margin:1.5em 0}img{max-width:100%;height:auto}figcaption{font-size:0.9em;color:#333}
nav.toc{background:#f7f7f7;border:1px solid #ddd;padding:0.5em 1em;margin:1em 0}
nav.toc ol{margin:0.3em 0;padding-left:1.5em;columns:2}
.filters{display:flex;flex-wrap:wrap;gap:0.8em;align-items:end;margin:0.5em 0}
.filters label{display:flex;flex-direction:column;font-size:0.85em}
.item{border:1px solid #ddd;border-radius:4px;margin:0.4em 0;padding:0.3em 0.6em}
.item summary{cursor:pointer}
.item pre{white-space:pre-wrap;background:#fafafa;border:1px solid #eee;padding:0.5em;
 max-height:24em;overflow:auto;font-size:0.85em}
.kind-correct{color:#007a55}.kind-other{color:#b34700}
.claims li.supported{color:#007a55}.claims li.contradicted{color:#b00020}
.claims li.unsupported{color:#8a6d00}
@media print{
 body{max-width:none;margin:0;font-size:10pt}
 nav.toc,.filters,#item-more{display:none}
 h2{break-after:avoid}
 figure,table,.item{break-inside:avoid}
 a{color:inherit;text-decoration:none}
 img{max-width:100%}
}
"""

#: The item browser: builds the filters from the data, shows the matching answers (a
#: page at a time), and renders an answer's prompt, judgement and claims when opened.
_SCRIPT = """
(function () {
  "use strict";
  var source = document.getElementById("item-data");
  var root = document.getElementById("item-list");
  if (!source || !root) { return; }
  var data = JSON.parse(source.textContent);
  var keys = ["model", "family", "template", "failure"];
  var page = 50;
  var shown = page;
  var selects = {};
  keys.forEach(function (key) {
    var select = document.getElementById("filter-" + key);
    selects[key] = select;
    var values = [];
    data.items.forEach(function (item) {
      if (values.indexOf(item[key]) < 0) { values.push(item[key]); }
    });
    values.sort();
    values.forEach(function (value) {
      var option = document.createElement("option");
      option.value = value;
      option.textContent = value;
      select.appendChild(option);
    });
    select.addEventListener("change", function () { shown = page; update(); });
  });
  function matches(item) {
    return keys.every(function (key) {
      var want = selects[key].value;
      return want === "" || item[key] === want;
    });
  }
  function block(title, text) {
    var part = document.createElement("div");
    var heading = document.createElement("strong");
    heading.textContent = title;
    var body = document.createElement("pre");
    body.textContent = text;
    part.appendChild(heading);
    part.appendChild(body);
    return part;
  }
  function fill(details, item) {
    var judgement = document.createElement("p");
    judgement.className = "judgement";
    judgement.textContent = "Judgement: " + item.judgement;
    details.appendChild(judgement);
    details.appendChild(block("Prompt", data.prompts[item.prompt] || "(prompt not stored)"));
    details.appendChild(block("Answer", item.answer || "(no answer)"));
    var heading = document.createElement("strong");
    heading.textContent = "Trace claims (" + item.claims.length + ")";
    details.appendChild(heading);
    var list = document.createElement("ul");
    list.className = "claims";
    item.claims.forEach(function (claim) {
      var entry = document.createElement("li");
      entry.className = claim[0];
      entry.textContent = claim[0] + ": " + item.answer.slice(claim[1], claim[2]);
      list.appendChild(entry);
    });
    if (!item.claims.length) {
      var none = document.createElement("li");
      none.textContent = "none read";
      list.appendChild(none);
    }
    details.appendChild(list);
  }
  function card(item) {
    var details = document.createElement("details");
    details.className = "item";
    keys.forEach(function (key) { details.dataset[key] = item[key]; });
    var summary = document.createElement("summary");
    var kind = document.createElement("span");
    kind.className = item.failure === "correct" ? "kind-correct" : "kind-other";
    kind.textContent = item.failure;
    summary.appendChild(kind);
    summary.appendChild(document.createTextNode(
      " · " + item.model + " · " + item.family + " · " + item.template + " · " +
      item.instance + " (label " + item.label + ", decided " + (item.decision || "nothing") +
      ")"));
    details.appendChild(summary);
    details.addEventListener("toggle", function () {
      if (details.open && !details.dataset.filled) {
        details.dataset.filled = "1";
        fill(details, item);
      }
    });
    return details;
  }
  function update() {
    var hits = data.items.filter(matches);
    root.replaceChildren();
    hits.slice(0, shown).forEach(function (item) { root.appendChild(card(item)); });
    document.getElementById("item-count").textContent =
      hits.length + " of " + data.items.length + " answers match; " +
      Math.min(shown, hits.length) + " shown.";
    document.getElementById("item-more").hidden = hits.length <= shown;
  }
  document.getElementById("item-more").addEventListener("click", function () {
    shown += page;
    update();
  });
  update();
})();
"""


def slug(text: str) -> str:
    """``text`` in lower case, runs of other characters as one ``-``.

    >>> slug("Table 1: decision accuracy")
    'table-1-decision-accuracy'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def anchor_ids(titles: Sequence[str]) -> list[str]:
    """A distinct ``id`` for each heading title: its slug, numbered when repeated.

    >>> anchor_ids(["Summary", "Figures", "Summary", "§5.3!"])
    ['summary', 'figures', 'summary-2', '5-3']
    """
    seen: dict[str, int] = {BROWSER_ID: 1}
    out = []
    for title in titles:
        base = slug(title) or "section"
        count = seen.get(base, 0) + 1
        seen[base] = count
        out.append(base if count == 1 else f"{base}-{count}")
    return out


def _svg_uri(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f"data:image/svg+xml;base64,{data}"


def _table(block: Any) -> str:
    out = ["<table><thead><tr>"]
    out.extend(f"<th>{html.escape(h)}</th>" for h in block.headers)
    out.append("</tr></thead><tbody>")
    for row in block.rows:
        cells = []
        for text, style in row:
            body = html.escape(text)
            if style == "b":
                body = f"<strong>{body}</strong>"
            elif style == "i":
                body = f"<em>{body}</em>"
            cells.append(f"<td>{body}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _browser(data: dict[str, Any]) -> str:
    """The item browser's controls, list and data (the script comes once, at the end)."""
    filters = "".join(
        f'<label>{label}<select id="filter-{key}"><option value="">all</option></select></label>'
        for key, label in (
            ("model", "model"),
            ("family", "family"),
            ("template", "template"),
            ("failure", "failure kind"),
        )
    )
    # "<", ">" and "&" occur only inside JSON strings: escaped there, no text of the
    # run can end the script element or open a comment in it
    payload = (
        json.dumps(data, ensure_ascii=True, sort_keys=True)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    return (
        f'<div class="filters">{filters}</div>'
        '<p id="item-count"></p><div id="item-list"></div>'
        '<button type="button" id="item-more" hidden>show more</button>'
        f'<script type="application/json" id="item-data">{payload}</script>'
    )


@dataclass(frozen=True)
class _Page:
    """What a block's HTML depends on beyond the block: heading anchors, the table of
    contents (after the first title), the figures' folder and the browser's data."""

    ids: dict[int, str]
    toc: str
    base: Path | None
    browser: dict[str, Any] | None

    @property
    def browsable(self) -> bool:
        return bool(self.browser and self.browser.get("items"))


def _heading_html(block: Heading, page: _Page) -> str:
    anchor = f' id="{page.ids[id(block)]}"' if id(block) in page.ids else ""
    return f"<h{block.level}{anchor}>{html.escape(block.text)}</h{block.level}>"


def _browser_html(block: Browser, page: _Page) -> str:
    if page.browser is not None and page.browsable:
        return f'<div id="{BROWSER_ID}">{_browser(page.browser)}</div>'
    return f'<p id="{BROWSER_ID}">No answers to browse in this report.</p>'


def _figure_html(block: Any, page: _Page) -> str:
    src = block.path.as_posix()
    if page.base is not None and (page.base / block.path).is_file():
        src = _svg_uri(page.base / block.path)
    title = html.escape(block.title)
    return (
        f'<figure><img src="{html.escape(src)}" alt="{title}" title="{title}">'
        f"<figcaption><strong>{title}.</strong> {html.escape(block.caption)}</figcaption></figure>"
    )


def _contents(blocks: Sequence[Block]) -> tuple[dict[int, str], str]:
    """The anchor of each section heading (by block id) and the table of contents
    (empty without sections)."""
    headings = [b for b in blocks if isinstance(b, Heading) and b.level >= 2]
    ids = dict(zip(map(id, headings), anchor_ids([h.text for h in headings]), strict=True))
    items = "".join(
        f'<li><a href="#{ids[id(h)]}">{html.escape(h.text)}</a></li>'
        for h in headings
        if h.level == 2
    )
    if not items:
        return ids, ""
    return ids, (
        f'<nav class="toc" aria-label="contents"><strong>Contents</strong><ol>{items}</ol></nav>'
    )


#: How each kind of block is written (any other block is a figure).
_HTML: dict[type, Callable[[Any, _Page], str]] = {
    Heading: _heading_html,
    Paragraph: lambda block, page: f"<p>{html.escape(block.text)}</p>",
    Table: lambda block, page: _table(block),
    Browser: _browser_html,
}


def render_html(
    blocks: Sequence[Block], base: Path | None = None, browser: dict[str, Any] | None = None
) -> str:
    """The blocks as one self-contained HTML page.

    Figures are read from ``base`` (their SVG, else their PNG) and embedded. A
    :class:`~twosat_formal.report.blocks.Browser` block becomes the item browser over
    ``browser`` (:func:`twosat_formal.report.items.browser_data`); without ``browser``
    it says that the report has no answers to browse.
    """
    page = _Page(*_contents(blocks), base, browser)
    title = next((b.text for b in blocks if isinstance(b, Heading)), "report")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
    ]
    toc = page.toc
    for block in blocks:
        out.append(_HTML.get(type(block), _figure_html)(block, page))
        if toc and isinstance(block, Heading) and block.level == 1:
            out.append(toc)
            toc = ""
    if page.browsable and any(isinstance(b, Browser) for b in blocks):
        out.append(f"<script>{_SCRIPT}</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
