#!/usr/bin/env python
"""Mutation testing of the proof and certificate checkers: every verdict-changing mutant dies.

Each mutant changes one thing in one checked module (a comparison flipped, ``and``
swapped with ``or``, a ``not`` dropped, a ``raise`` turned into ``pass``, a small integer
moved by one); the module's tests then run against a copy of the repository holding
the mutant. A mutant is *killed* when the tests fail. A survivor is printed with its
line; the script exits with 1 if any survives.

Usage::

    python scripts/mutate.py                       # every target, every mutant
    python scripts/mutate.py --target proofs --limit 40 --seed 1
    python scripts/mutate.py --list                # the mutants, without running them

A line that ends with ``# no-mutate`` is left alone (for code that cannot change a
verdict, such as timing).
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: module -> the tests that must kill its mutants
TARGETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "proofs": (
        "twosat_formal/make/perturb/proofs.py",
        (
            "tests/make/test_proof_bugs.py",
            "tests/make/test_perturb_proofs.py",
            "tests/verbalize/test_z3_reuse.py",
        ),
    ),
    "check": (
        "twosat_formal/solve/check.py",
        ("tests/solve/test_check.py",),
    ),
    "fieldclass": (
        "twosat_formal/core/fieldclass.py",
        (
            "tests/core/test_fieldclass_rules.py",
            "tests/certify/test_certify_tamper.py",
            "tests/certify/test_certify_rederive.py",
        ),
    ),
}

_SWAP_COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    """One change: where, what, and the mutated source."""

    line: int
    what: str
    source: str


def _skipped(lines: list[str], node: ast.AST) -> bool:
    line = getattr(node, "lineno", 0)
    return line == 0 or lines[line - 1].rstrip().endswith("# no-mutate")


def _in_docstring_or_message(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    parent = parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.JoinedStr):
            return True
        parent = parents.get(parent)
    return False


def mutants(path: Path) -> Iterator[Mutant]:
    """Every mutant of the module at ``path``, in source order."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    nodes = sorted(
        (n for n in ast.walk(tree) if hasattr(n, "lineno")),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for index, node in enumerate(nodes):
        if _skipped(lines, node) or _in_docstring_or_message(node, parents):
            continue
        changes: list[tuple[str, callable]] = []  # type: ignore[valid-type]
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _SWAP_COMPARE:
                    new = _SWAP_COMPARE[type(op)]

                    def apply(n: ast.Compare, k: int = k, new: type = new) -> None:
                        n.ops[k] = new()

                    changes.append((f"{type(op).__name__} -> {new.__name__}", apply))
        elif isinstance(node, ast.BoolOp):
            other = ast.Or if isinstance(node.op, ast.And) else ast.And

            def apply(n: ast.BoolOp, other: type = other) -> None:
                n.op = other()

            changes.append((f"{type(node.op).__name__} -> {other.__name__}", apply))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            changes.append(("drop not", None))
        elif isinstance(node, ast.Raise):
            changes.append(("raise -> pass", None))
        elif (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and 0 <= node.value <= 8
            and not isinstance(parents.get(node), ast.Subscript | ast.keyword)
        ):

            def apply(n: ast.Constant) -> None:
                n.value = n.value + 1

            changes.append((f"{node.value} -> {node.value + 1}", apply))
        for what, apply in changes:
            copy = ast.parse(text)
            target = sorted(
                (n for n in ast.walk(copy) if hasattr(n, "lineno")),
                key=lambda n: (n.lineno, n.col_offset),
            )[index]
            if what == "drop not":
                _replace(copy, target, target.operand)
            elif what == "raise -> pass":
                _replace(copy, target, ast.Pass())
            else:
                apply(target)
            ast.fix_missing_locations(copy)
            yield Mutant(node.lineno, what, ast.unparse(copy))


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[value.index(old)] = new
                return


def _copy_repo(folder: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in files:
        source = ROOT / name
        if source.is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)


def line_set(text: str | None) -> frozenset[int] | None:
    """The lines ``--lines`` names (``120,131-140``), or ``None`` for all.

    >>> sorted(line_set("3,7-9"))
    [3, 7, 8, 9]
    """
    if text is None:
        return None
    lines: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        lines.update(range(int(low), int(high or low) + 1))
    return frozenset(lines)


def run(
    target: str,
    *,
    limit: int | None,
    seed: int,
    timeout: int,
    lines: frozenset[int] | None = None,
) -> list[Mutant]:
    """Run the mutants of one target (of ``lines`` only, when given); the survivors."""
    module, tests = TARGETS[target]
    found = [m for m in mutants(ROOT / module) if lines is None or m.line in lines]
    if limit is not None and limit < len(found):
        found = sorted(random.Random(seed).sample(found, limit), key=lambda m: m.line)
    survivors: list[Mutant] = []
    with tempfile.TemporaryDirectory(prefix="twosat-mutants-") as tmp:
        folder = Path(tmp)
        _copy_repo(folder)
        env = {**os.environ, "PYTHONPATH": str(folder)}
        command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
        for number, mutant in enumerate(found, 1):
            (folder / module).write_text(mutant.source, encoding="utf-8")
            try:
                done = subprocess.run(
                    command, cwd=folder, env=env, capture_output=True, timeout=timeout, check=False
                )
                killed = done.returncode != 0
            except subprocess.TimeoutExpired:
                killed = True  # a mutant that hangs the tests is caught too
            status = "killed" if killed else "SURVIVED"
            print(f"[{number}/{len(found)}] {module}:{mutant.line} {mutant.what}: {status}")
            if not killed:
                survivors.append(mutant)
    return survivors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=sorted(TARGETS), action="append")
    parser.add_argument("--limit", type=int, help="run a seeded sample of this many mutants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per mutant")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument(
        "--lines", help="only the mutants of these lines, e.g. 120,131-140 (one --target)"
    )
    args = parser.parse_args(argv)
    targets = args.target or sorted(TARGETS)
    lines = line_set(args.lines)
    if args.list:
        for target in targets:
            module = TARGETS[target][0]
            for mutant in mutants(ROOT / module):
                if lines is None or mutant.line in lines:
                    print(f"{module}:{mutant.line} {mutant.what}")
        return 0
    survivors = []
    for target in targets:
        survivors += [
            (TARGETS[target][0], m)
            for m in run(
                target, limit=args.limit, seed=args.seed, timeout=args.timeout, lines=lines
            )
        ]
    print(f"{len(survivors)} survivors")
    for module, mutant in survivors:
        print(f"SURVIVED {module}:{mutant.line} {mutant.what}")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
