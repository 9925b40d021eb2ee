#!/usr/bin/env python
"""The table of the package's modules in docs/architecture.md, written from the code.

Each module of ``twosat_formal/`` (every ``.py`` file, a folder's ``__init__.py``
standing for the folder) gets one row: its dotted name and the summary of its
docstring (its first line, or its first paragraph where the summary wraps), read with
:mod:`ast` (nothing is imported). The rows are grouped by folder, the folders in the
order of the layers from the bottom up (``[tool.importlinter]`` in ``pyproject.toml``);
the table replaces what lies between the page's two markers.

Usage::

    python scripts/layout.py            # rewrite the table in docs/architecture.md
    python scripts/layout.py --check    # exit 1 when the page is not current

A page without both markers, or a module without a docstring, is an error: one line on
stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "twosat_formal"
PAGE = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- modules: begin (written by scripts/layout.py; do not edit by hand) -->"
END = "<!-- modules: end -->"


class LayoutError(Exception):
    """A page without its markers, or a module without a docstring."""


def module_name(path: Path, package: Path) -> str:
    """The dotted name of the module at ``path`` inside ``package``.

    >>> module_name(Path("pkg/core/formula.py"), Path("pkg"))
    'pkg.core.formula'
    >>> module_name(Path("pkg/core/__init__.py"), Path("pkg"))
    'pkg.core'
    """
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def summary(source: str, where: str) -> str:
    """The summary of a module's docstring: its first paragraph on one line.

    >>> summary("'''One line.\\n\\nMore.'''", "m")
    'One line.'
    >>> summary("'''A summary that\\nwraps.\\n'''", "m")
    'A summary that wraps.'
    """
    doc = ast.get_docstring(ast.parse(source, filename=where))
    if not doc or not doc.strip():
        raise LayoutError(f"{where}: the module has no docstring")
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in first.splitlines())


def layer_order(pyproject: Path) -> list[str]:
    """The top-level names of the package, layer by layer from the bottom up."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    order: list[str] = []
    for layer in reversed(contract["layers"]):
        order.extend(name.strip() for name in layer.split(":"))
    return order


def top_name(path: Path, package: Path) -> str:
    """The top-level module or folder of ``package`` that ``path`` belongs to."""
    relative = path.relative_to(package)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def module_table(package: Path = PACKAGE, pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The Markdown table of every module of ``package``, in the layers' order.

    Parameters
    ----------
    package : Path
        The package's folder.
    pyproject : Path
        The ``pyproject.toml`` whose ``layers`` contract orders the folders.

    Returns
    -------
    str
        The table, its lines ending in newlines.
    """
    order = {name: i for i, name in enumerate(layer_order(pyproject))}
    files = [p for p in package.rglob("*.py") if "__pycache__" not in p.parts]
    files = [p for p in files if p != package / "__init__.py"]

    def key(path: Path) -> tuple[int, str]:
        return (order.get(top_name(path, package), len(order)), module_name(path, package))

    lines = ["| module | what it holds |", "|---|---|"]
    for path in sorted(files, key=key):
        where = str(path.relative_to(package.parent))
        text = summary(path.read_text(encoding="utf-8"), where).replace("|", "\\|")
        lines.append(f"| `{module_name(path, package)}` | {text} |")
    return "\n".join(lines) + "\n"


def render(page: str, table: str) -> str:
    """``page`` with the text between its markers replaced by ``table``.

    >>> render("a\\n" + BEGIN + "\\nold\\n" + END + "\\nb\\n", "| new |\\n")  # doctest: +ELLIPSIS
    'a\\n<!-- modules: begin ... -->\\n| new |\\n<!-- modules: end -->\\nb\\n'
    """
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise LayoutError(f"the page must hold the line {BEGIN!r} once, then {END!r} once")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the page's table, or with ``--check`` compare it; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when not current")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page (docs/architecture.md)")
    parser.add_argument("--package", type=Path, default=PACKAGE, help="the package's folder")
    args = parser.parse_args(argv)
    try:
        page = args.page.read_text(encoding="utf-8")
        new = render(page, module_table(args.package))
    except (LayoutError, OSError, SyntaxError) as error:
        print(f"layout: {error}", file=sys.stderr)
        return 2
    if args.check:
        if new != page:
            print(f"{args.page}: the module table is not current; run scripts/layout.py")
            return 1
        return 0
    if new != page:
        args.page.write_text(new, encoding="utf-8")
        print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
