"""The oracle of the DIMACS reader: the grammar of record, ``grammar/dimacs.lark``, run by Lark.

:func:`lark_dimacs` parses a text with Lark's LALR parser and contextual lexer, turns
Lark's errors into :class:`ParseError` (:func:`~twosat_formal.io._parsing.translate`)
and hands the tokens it found to the checks that need the whole file
(:func:`~twosat_formal.io.dimacs.assemble`). The tests hold the package's one reader,
:func:`~twosat_formal.io.dimacs.parse_dimacs`, to it: the same formula, or the same
error (line, column and message).

>>> lark_dimacs("c var 1 rain\\np cnf 2 2\\n1 -2 0\\n2 0\\n").names
('rain', 'x2')
"""

from __future__ import annotations

import re

import numpy as np
from lark import Token, Tree
from lark.exceptions import LarkError

from twosat_formal.core.formula import Formula
from twosat_formal.io._parsing import BLANKS, check_text, context_line, lark_parser, translate
from twosat_formal.io.dimacs import (
    DESCRIBE,
    DimacsParts,
    Position,
    assemble,
    header_numbers,
    number_value,
)

__all__ = ["declarations_in", "lark_dimacs"]

_BL = f"[{BLANKS}]"
#: Comment lines that may be declarations, as the grammar's COMMENT terminal finds them.
_DECLARATION_LINE = re.compile(rf"^{_BL}*(c{_BL}+var{_BL}[^\n]*)", re.MULTILINE)


def lark_dimacs(text: str, *, source: str | None = None) -> Formula:
    """Parse DIMACS CNF ``text`` with the Lark grammar ``grammar/dimacs.lark``.

    >>> lark_dimacs("p cnf 2 1\\n1 3 0\\n")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 2:3: literal 3 is beyond the header's 2 variables
    """
    check_text(text, source=source)
    try:
        tree = lark_parser("dimacs.lark").parse(text)
    except LarkError as exc:
        raise translate(exc, text, source=source, describe=DESCRIBE) from None
    header = tree.children[0]
    assert isinstance(header, Token)
    num_vars, num_clauses = header_numbers(str(header))
    indent = len(header) - len(header.lstrip(BLANKS))
    header_at = (header.line or 1, (header.column or 1) + indent)

    tokens, firsts, values, ends = _clause_tokens(tree)

    def at(tok: Token) -> Position:
        return (tok.line or 1, tok.column or 1)

    parts = DimacsParts(
        num_vars=num_vars,
        num_clauses=num_clauses,
        header_at=header_at,
        literals=np.array(values, dtype=np.int64),
        offsets=np.array(ends, dtype=np.int64),
        declarations=declarations_in(text),
        literal_at=lambda k: at(tokens[k]),
        literal_text=lambda k: str(tokens[k]),
        clause_at=lambda i: at(firsts[i]),
        context=lambda line: context_line(text, line),
    )
    return assemble(parts, source=source)


def _clause_tokens(tree: Tree[Token]) -> tuple[list[Token], list[Token], list[int], list[int]]:
    """The literal tokens of a parse tree's clauses, each clause's first token (its
    ``0`` when empty), the literals' values and the clauses' end offsets."""
    tokens: list[Token] = []
    firsts: list[Token] = []
    values: list[int] = []
    ends: list[int] = [0]
    for child in tree.children[1:]:
        if not isinstance(child, Tree) or child.data != "clause":
            continue
        clause = [tok for tok in child.children if isinstance(tok, Token)]
        firsts.append(clause[0])
        for tok in clause[:-1]:
            tokens.append(tok)
            values.append(number_value(str(tok)))
        ends.append(len(values))
    return tokens, firsts, values, ends


def declarations_in(text: str) -> list[tuple[Position, str]]:
    """The comment lines of ``text`` that may name a variable, with their positions.

    >>> declarations_in("c var 1 a\\np cnf 1 0\\n  c var 2 b")
    [((1, 1), 'c var 1 a'), ((3, 3), 'c var 2 b')]
    """
    found: list[tuple[Position, str]] = []
    line, last = 1, 0
    for match in _DECLARATION_LINE.finditer(text):
        start = match.start(1)
        line += text.count("\n", last, start)
        last = start
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        found.append(((line, column), match[1]))
    return found
