"""The formula DSL: a reader (Lark grammar ``grammar/formula.lark``) and a canonical printer.

The DSL is meant for people (``docs/dsl.md`` has the full description):

* variables are identifiers ``[A-Za-z_][A-Za-z0-9_]*`` other than the keywords
  ``not``, ``or``, ``and`` and ``vars``;
* negation is ``~x``, ``!x``, ``¬x`` or ``not x`` (repeated negations cancel out);
* disjunction is ``|``, ``∨`` or ``or``; clauses are separated by newlines, ``&``,
  ``∧`` or ``and``, and may be parenthesised; ``()`` is the empty clause;
* ``A -> B`` (``→``) and ``A <-> B`` (``↔``), between two disjunctions, are sugar:
  ``A -> B`` gives one clause ``~a | B`` per literal ``a`` of ``A``, and ``A <-> B``
  gives those clauses followed by one clause ``~b | A`` per literal ``b`` of ``B``. So
  ``a -> b`` is the clause ``~a | b``, and ``a <-> b`` is ``~a | b`` then ``~b | a``.
  ``|`` binds tighter than the arrows, which bind tighter than ``&``; a clause holds at
  most one arrow;
* ``#`` starts a comment; a line ``vars: a, b, c`` (commas optional) declares variables.

Variables are numbered in their order of first appearance in the text, a ``vars:`` line
counting as an appearance. :func:`write_dsl` prints one clause per line and starts with
a ``vars:`` line listing every variable whenever that order would not reproduce the
formula's numbering (or some variable occurs in no clause), so ``parse_dsl(write_dsl(F))
== F`` for every formula ``F``, names and numbering included.

Examples
--------
>>> f = parse_dsl("rain -> wet   # sugar for ~rain | wet\\n¬wet ∨ umbrella\\n")
>>> f.names, f.clauses
(('rain', 'wet', 'umbrella'), (Clause(-1, 2), Clause(-2, 3)))
>>> print(write_dsl(f), end="")
~rain | wet
~wet | umbrella
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedToken

from twosat_formal.errors import ParseError, raises
from twosat_formal.formula import KEYWORDS, Formula
from twosat_formal.io._parsing import check_text, error_at, lark_parser, translate

__all__ = ["DESCRIBE", "parse_dsl", "write_dsl"]

_ARROWS = frozenset({"ARROW", "RIGHTARROW", "DOUBLEARROW", "LEFTRIGHTARROW"})
_NEGATION = "a negation (~, !, ¬ or not)"
#: How error messages name the grammar's terminals.
DESCRIBE: dict[str, str] = {
    "NAME": "a variable name",
    "TILDE": _NEGATION,
    "BANG": _NEGATION,
    "NEG": _NEGATION,
    "NOT": _NEGATION,
    "LPAR": '"("',
    "RPAR": '")"',
    "BAR": '"|"',
    "VEE": '"|"',
    "OR": '"|"',
    "AMP": '"&"',
    "WEDGE": '"&"',
    "AND": '"&"',
    "ARROW": '"->"',
    "RIGHTARROW": '"->"',
    "DOUBLEARROW": '"<->"',
    "LEFTRIGHTARROW": '"<->"',
    "VARS": '"vars:"',
    "COLON": '":"',
    "COMMA": '","',
    "_NEWLINE": "the end of the line",
    "$END": "the end of the input",
}


@raises(ParseError)
def parse_dsl(text: str, *, source: str | None = None) -> Formula:
    """Parse DSL ``text`` into a Formula (empty text is the empty formula).

    Parameters
    ----------
    text:
        Clauses in the DSL (see the module documentation and ``docs/dsl.md``).
    source:
        A file name for error messages.

    Returns
    -------
    Formula
        Variables numbered in order of first appearance (``vars:`` lines included),
        clauses in text order with the arrows expanded.

    Examples
    --------
    >>> parse_dsl("(a or not b) and (b <-> c)").clauses
    (Clause(1, -2), Clause(-2, 3), Clause(-3, 2))
    >>> parse_dsl("vars: a, b\\nb").names
    ('a', 'b')
    >>> parse_dsl("a | | b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ParseError: 1:5: expected a variable name or a negation ..., found '|'
    """
    check_text(text, source=source)
    padded = text + "\n"
    try:
        tree = lark_parser("formula.lark").parse(padded)
    except LarkError as exc:
        error = translate(exc, padded, source=source, describe=DESCRIBE)
        if isinstance(exc, UnexpectedToken) and exc.token.type in _ARROWS:
            error = ParseError(
                error.message + " (a clause holds at most one arrow: write (a -> b) & (b -> c))",
                line=error.line,
                column=error.column,
                source=error.source,
                context=error.context,
            )
        raise error from None
    return _Builder(padded, source).build(tree)


class _Builder:
    """Numbers the variables in text order and expands the clauses of one parse tree."""

    def __init__(self, text: str, source: str | None) -> None:
        self.text = text
        self.source = source
        self.index: dict[str, int] = {}
        self.rows: list[list[int]] = []

    def build(self, tree: Tree[Token]) -> Formula:
        for line in tree.children:
            if not isinstance(line, Tree):
                continue
            if line.data == "declaration":
                for token in line.children:
                    if isinstance(token, Token) and token.type == "NAME":
                        self.var(token)
            else:
                for item in line.children:
                    if isinstance(item, Tree):
                        self.clause(item)
        return Formula(self.rows, num_vars=len(self.index), names=list(self.index))

    def var(self, token: Token) -> int:
        name = str(token)
        if name in KEYWORDS:
            raise error_at(
                f"expected a variable name, found the keyword {name!r}",
                self.text,
                token.start_pos,
                source=self.source,
            )
        if name not in self.index:
            self.index[name] = len(self.index) + 1
        return self.index[name]

    def literals(self, disjunction: Tree[Token]) -> list[int]:
        found = []
        for literal in disjunction.children:
            if not isinstance(literal, Tree):
                continue
            tokens = [tok for tok in literal.children if isinstance(tok, Token)]
            var = self.var(tokens[-1])
            found.append(-var if (len(tokens) - 1) % 2 else var)
        return found

    def clause(self, item: Tree[Token]) -> None:
        if item.data == "empty":
            self.rows.append([])
            return
        sides = [self.literals(child) for child in item.children if isinstance(child, Tree)]
        if item.data == "disjunction_clause":
            self.rows.append(sides[0])
            return
        left, right = sides
        self.rows.extend([-a, *right] for a in left)
        if item.data == "equivalence":
            self.rows.extend([-b, *left] for b in right)


def write_dsl(formula: Formula) -> str:
    """The canonical DSL text of ``formula``: one clause per line, ``a | ~b``.

    A first line ``vars: ...`` lists every variable, in order, when the order of first
    appearance in the clauses would not reproduce the numbering (or some variable is in
    no clause). The empty clause prints as ``()``; the empty formula as ``""``.

    Examples
    --------
    >>> f = Formula.from_named([["b", "~a"], ["a"]], variables=["a", "b", "c"])
    >>> print(write_dsl(f), end="")
    vars: a, b, c
    b | ~a
    a
    >>> write_dsl(Formula())
    ''
    """
    names = formula.names
    lines = ["vars: " + ", ".join(names)] if _needs_declaration(formula) else []
    flat = formula.literals.tolist()
    bounds = formula.offsets.tolist()
    for start, end in pairwise(bounds):
        if start == end:
            lines.append("()")
        else:
            lines.append(
                " | ".join(
                    names[lit - 1] if lit > 0 else "~" + names[-lit - 1] for lit in flat[start:end]
                )
            )
    return "".join(line + "\n" for line in lines)


def _needs_declaration(formula: Formula) -> bool:
    """Whether first appearance in the clauses would number the variables differently."""
    if formula.num_vars == 0:
        return False
    variables, first = np.unique(np.abs(formula.literals), return_index=True)
    if len(variables) != formula.num_vars:
        return True
    in_order = variables[np.argsort(first)]
    return not np.array_equal(in_order, np.arange(1, formula.num_vars + 1))
