#!/usr/bin/env python
"""The package's long functions and its share of complex blocks.

Prints every function (method, nested function) longer than the line limit, counted
from its ``def`` to its last line, docstring included (the AST's ``lineno`` to
``end_lineno``), then the share of blocks whose cyclomatic complexity ranks C or worse
(radon's ranks: A 1-5, B 6-10, C 11-20, D 21-30, E 31-40, F over 40), over the blocks
``radon cc`` counts (classes, functions and methods), and those blocks.

Usage::

    python scripts/complexity.py                     # the whole package
    python scripts/complexity.py twosat_formal/cli   # one folder or file
    python scripts/complexity.py --check             # exit 1 past the limits

``--check`` exits with 1 when a function is over ``--max-lines`` (80) or the share is
over ``--max-share`` (3 %).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Block:
    """One function or class of a module.

    Attributes
    ----------
    path : str
        The module's path, relative to the repository root where it lies inside it.
    line : int
        The line of its ``def`` or ``class``.
    name : str
        Its qualified name (``Class.method``).
    size : int
        Its lines (lines) or its cyclomatic complexity (complexity).
    """

    path: str
    line: int
    name: str
    size: int


def python_files(paths: list[Path]) -> list[Path]:
    """Every ``.py`` file of *paths* (files and folders), sorted."""
    found: set[Path] = set()
    for path in paths:
        found.update(path.rglob("*.py") if path.is_dir() else [path])
    return sorted(found)


def shown(path: Path) -> str:
    """*path* relative to the repository root where it lies inside it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def long_functions(path: Path, source: str, limit: int) -> list[Block]:
    """The functions of *source* over *limit* lines, ``def`` to last line."""
    found: list[Block] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                lines = (child.end_lineno or child.lineno) - child.lineno + 1
                if not isinstance(child, ast.ClassDef) and lines > limit:
                    found.append(Block(shown(path), child.lineno, name, lines))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source, filename=str(path)), "")
    return found


def complexity_blocks(path: Path, source: str) -> list[Block]:
    """Every block ``radon cc`` counts in *source*: classes, their methods, functions."""
    blocks: list[Block] = []
    for block in cc_visit(source):  # the functions, each class, then its methods
        name = (
            f"{block.classname}.{block.name}" if getattr(block, "is_method", False) else block.name
        )
        blocks.append(Block(shown(path), block.lineno, name, block.complexity))
    return blocks


def main(argv: list[str] | None = None) -> int:
    """Print the long functions and the complex blocks; the exit code of ``--check``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "twosat_formal"])
    parser.add_argument("--max-lines", type=int, default=80)
    parser.add_argument("--max-share", type=float, default=3.0, help="percent")
    parser.add_argument("--check", action="store_true", help="exit 1 past the limits")
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.paths if not path.exists()]
    if missing:
        parser.error(f"no such file or folder: {', '.join(missing)}")
    long: list[Block] = []
    blocks: list[Block] = []
    for path in python_files(args.paths):
        source = path.read_text(encoding="utf-8")
        try:
            compile(source, str(path), "exec", ast.PyCF_ONLY_AST)
        except SyntaxError as err:
            parser.error(f"{path}:{err.lineno}:{(err.offset or 0)}: {err.msg}")
        long.extend(long_functions(path, source, args.max_lines))
        blocks.extend(complexity_blocks(path, source))
    complex_blocks = [b for b in blocks if cc_rank(b.size) >= "C"]
    print(f"functions over {args.max_lines} lines: {len(long)}")
    for block in sorted(long, key=lambda b: -b.size):
        print(f"  {block.size:4d} lines  {block.path}:{block.line} {block.name}")
    share = 100.0 * len(complex_blocks) / len(blocks) if blocks else 0.0
    print(
        f"blocks of complexity C or worse: {len(complex_blocks)} of {len(blocks)} ({share:.1f} %)"
    )
    for block in sorted(complex_blocks, key=lambda b: -b.size):
        rank = cc_rank(block.size)
        print(f"  {rank} {block.size:3d}  {block.path}:{block.line} {block.name}")
    over = bool(long) or share > args.max_share
    return 1 if args.check and over else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the reader stopped early (`| head`): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
