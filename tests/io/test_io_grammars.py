"""The grammars of record are strict-clean: no regex collisions, no LALR conflicts.

The readers build their parsers without Lark's ``strict`` checks (they cost a quarter
of a second per process); this test runs those checks once, on every grammar file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lark import Lark

from twosat_formal.resources import grammar_text

GRAMMARS = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "grammar").glob("*.lark"))


def test_there_are_grammars() -> None:
    assert {"dimacs.lark", "formula.lark"} <= set(GRAMMARS)


@pytest.mark.parametrize("name", GRAMMARS)
def test_grammar_builds_in_strict_mode(name: str) -> None:
    parser = Lark(
        grammar_text(name), parser="lalr", lexer="contextual", strict=True, maybe_placeholders=False
    )
    assert parser.terminals


def test_reading_dimacs_never_builds_a_lark_parser(tmp_path: Path) -> None:
    """The grammar of record is the tests' oracle: the reader, valid text or not,
    builds no Lark parser."""
    from twosat_formal.errors import ParseError
    from twosat_formal.io import read_formula
    from twosat_formal.io._parsing import lark_parser

    path = tmp_path / "tiny.cnf"
    path.write_text("c five variables\np cnf 5 3\n1 -2 0\n2 -3 0\n4 5 0\n")
    lark_parser.cache_clear()
    assert read_formula(path).num_clauses == 3
    assert lark_parser.cache_info().currsize == 0
    path.write_text("p cnf 5 1\n1 -2 x 0\n")
    with pytest.raises(ParseError, match=r"2:6: expected a literal or 0, found 'x'"):
        read_formula(path)
    assert lark_parser.cache_info().currsize == 0
