"""docs/architecture.md says what the code says: layers, modules, public API.

The contract (``[tool.importlinter]`` in ``pyproject.toml``) lists the layers from the
top down; the page lists them from the bottom up, a row possibly joining neighbouring
layers of the contract (``evaluate, certify``). Each row must be the union of
consecutive contract layers, in order, every module once. The page's table of modules
is what ``scripts/layout.py`` writes from the code; its list of public names is
``twosat_formal.__all__``, and its list of plug-in registries is every ``Registry`` the
package makes.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import twosat_formal
from twosat_formal._util.registry import Registry

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
LAYOUT = ROOT / "scripts" / "layout.py"


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


def load_layout() -> ModuleType:
    """``scripts/layout.py`` as a module."""
    spec = importlib.util.spec_from_file_location("layout_script", LAYOUT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def between(name: str) -> str:
    """The page's text between ``<!-- NAME: begin -->`` and ``<!-- NAME: end -->``."""
    text = PAGE.read_text(encoding="utf-8")
    return text.split(f"<!-- {name}: begin -->", 1)[1].split(f"<!-- {name}: end -->", 1)[0]


def test_the_module_table_is_what_the_script_writes() -> None:
    layout = load_layout()
    page = PAGE.read_text(encoding="utf-8")
    assert layout.render(page, layout.module_table()) == page, "run python scripts/layout.py"


def test_the_module_table_names_every_module_once() -> None:
    layout = load_layout()
    names = re.findall(r"^\| `([\w.]+)` \|", layout.module_table(), re.M)
    modules = {
        layout.module_name(p, ROOT / "twosat_formal")
        for p in (ROOT / "twosat_formal").rglob("*.py")
        if "__pycache__" not in p.parts and p != ROOT / "twosat_formal" / "__init__.py"
    }
    assert len(names) == len(set(names)) and set(names) == modules


def test_the_layout_script_refuses_a_page_without_markers_and_a_module_without_docstring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    layout = load_layout()
    page = tmp_path / "page.md"
    page.write_text("# no markers\n", encoding="utf-8")
    assert layout.main(["--page", str(page)]) == 2
    assert "modules: begin" in capsys.readouterr().err
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text('"""The package."""\n', encoding="utf-8")
    (package / "bare.py").write_text("x = 1\n", encoding="utf-8")
    page.write_text(f"a\n{layout.BEGIN}\n{layout.END}\n", encoding="utf-8")
    assert layout.main(["--page", str(page), "--package", str(package)]) == 2
    assert "pkg/bare.py: the module has no docstring" in capsys.readouterr().err
    (package / "bare.py").write_text('"""Bare | piped."""\n', encoding="utf-8")
    assert layout.main(["--page", str(page), "--package", str(package), "--check"]) == 1
    assert layout.main(["--page", str(page), "--package", str(package)]) == 0
    assert "| `pkg.bare` | Bare \\| piped. |" in page.read_text(encoding="utf-8")
    assert layout.main(["--page", str(page), "--package", str(package), "--check"]) == 0


def test_the_documented_public_names_are_all_of_the_package() -> None:
    documented = re.findall(r"`(\w+)`", between("public"))
    assert len(documented) == len(set(documented))
    assert sorted(documented) == sorted(twosat_formal.__all__)
    for name in documented:
        getattr(twosat_formal, name)


def registries_made() -> set[str]:
    """``module.NAME`` of every module-level ``NAME = Registry(...)`` of the package."""
    found = set()
    for path in (ROOT / "twosat_formal").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value: ast.expr | None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign):
                targets, value = [node.target], node.value
            else:
                continue
            if not (isinstance(value, ast.Call) and getattr(value.func, "id", "") == "Registry"):
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found |= {f"{module}.{t.id}" for t in targets if isinstance(t, ast.Name)}
    return found


def resolve(path: str) -> object:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_the_documented_registries_are_every_registry_of_the_package() -> None:
    documented = re.findall(r"`(twosat_formal\.[\w.]+)`", between("registries"))
    assert documented and len(documented) == len(set(documented))
    objects = [resolve(path) for path in documented]
    assert all(isinstance(obj, Registry) for obj in objects)
    made = [resolve(path) for path in sorted(registries_made())]
    assert {id(obj) for obj in objects} == {id(obj) for obj in made}
    assert len(made) == len(objects)
