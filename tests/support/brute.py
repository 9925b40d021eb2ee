"""Reference checks the tests share: brute-force satisfiability and a PNG check.

The brute-force helpers try every assignment; they share no code with the library's
solvers, so a test that compares the two compares independent answers. Clauses are
DIMACS-style integer literals over variables ``1..num_vars``.
"""

from __future__ import annotations

import itertools
import re
import struct
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from twosat_formal.core.formula import Formula

Clauses = Iterable[Sequence[int]]


def holds(clauses: Clauses, bits: Sequence[bool]) -> bool:
    """Whether the assignment ``bits`` (variable ``v`` is ``bits[v - 1]``) satisfies
    every clause."""
    return all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses)


def brute_equivalent(left: Clauses, right: Clauses, num_vars: int) -> bool:
    """Whether ``left`` and ``right`` have the same models over ``num_vars`` variables."""
    left, right = list(left), list(right)
    return all(
        holds(left, bits) == holds(right, bits)
        for bits in itertools.product((False, True), repeat=num_vars)
    )


def models(clauses: Clauses, num_vars: int) -> Iterator[tuple[bool, ...]]:
    """Every satisfying assignment, in lexicographic order (``False`` before ``True``)."""
    listed = [tuple(int(lit) for lit in clause) for clause in clauses]
    for bits in itertools.product((False, True), repeat=num_vars):
        if holds(listed, bits):
            yield bits


def first_model(clauses: Clauses, num_vars: int) -> tuple[bool, ...] | None:
    """The first satisfying assignment in lexicographic order, or ``None``."""
    return next(models(clauses, num_vars), None)


def brute_sat(clauses: Clauses, num_vars: int) -> bool:
    """Whether any assignment satisfies ``clauses``."""
    return first_model(clauses, num_vars) is not None


def brute_label(formula: Formula) -> str:
    """``"SAT"`` or ``"UNSAT"`` by trying every assignment of ``formula``."""
    return "SAT" if brute_sat(formula.clauses, formula.num_vars) else "UNSAT"


def brute_count(clauses: Clauses, num_vars: int) -> int:
    """The number of satisfying assignments."""
    return sum(1 for _ in models(clauses, num_vars))


def check_svg(path: Path, *, min_bytes: int = 1000) -> str:
    """Assert ``path`` is a whole SVG figure: XML with an ``svg`` root of positive size,
    a ``<title>`` first and something drawn; return the title."""
    import xml.etree.ElementTree as ET

    data = path.read_bytes()
    assert len(data) > min_bytes, f"{path} is suspiciously small"
    root = ET.fromstring(data)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg", f"{path} is not an SVG document"
    for side in ("width", "height"):
        assert float(re.sub(r"[a-z]+$", "", root.get(side, "0"))) > 0, f"{path} has no {side}"
    assert len(root) and root[0].tag == f"{ns}title" and root[0].text, f"{path} has no title"
    assert any(e.tag in (f"{ns}path", f"{ns}use") for e in root.iter()), f"{path} draws nothing"
    return root[0].text


def check_png(path: Path, *, min_side: int = 100, min_bytes: int = 1000) -> tuple[int, int]:
    """Assert ``path`` is a whole PNG (signature, IHDR first, IEND last); its width and height."""
    data = path.read_bytes()
    assert len(data) > min_bytes, f"{path} is suspiciously small"
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} lacks the PNG signature"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13, f"{path} does not start with an IHDR chunk"
    width, height = struct.unpack(">II", data[16:24])
    assert width > min_side and height > min_side, f"{path} is {width}x{height}"
    assert data[-8:-4] == b"IEND", f"{path} does not end with an IEND chunk"
    return width, height
