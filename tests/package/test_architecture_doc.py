"""docs/architecture.md's table of layers says what the import-linter contract says.

The contract (``[tool.importlinter]`` in ``pyproject.toml``) lists the layers from the
top down; the page lists them from the bottom up, a row possibly joining neighbouring
layers of the contract (``study``: ``report``, ``experiments``, ``bench``). Each row
must be the union of consecutive contract layers, in order, every module once.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def contract_layers() -> list[set[str]]:
    """The layers of the ``layers`` contract, from the bottom up."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [{name.strip() for name in layer.split(":")} for layer in contract["layers"]][::-1]


def page_rows() -> list[set[str]]:
    """The module sets of the page's table of layers, from the bottom up."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    return [
        {name.rstrip("/") for name in re.findall(r"`([a-z_/]+)`", row.split("|")[2])}
        for row in rows
    ]


def test_the_page_lists_every_layer_of_the_contract_in_order() -> None:
    layers = contract_layers()
    rows = page_rows()
    assert rows, "no table of layers found"
    position = 0
    for row in rows:
        joined: set[str] = set()
        while position < len(layers) and joined | layers[position] <= row:
            joined |= layers[position]
            position += 1
        assert joined == row, (row, layers[position : position + 2])
    assert position == len(layers), layers[position:]


def test_the_docs_index_links_every_page() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    linked = set(re.findall(r"\]\(([a-z_-]+\.md)", index))
    assert pages <= linked, sorted(pages - linked)
