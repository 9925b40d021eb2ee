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
* a line the clause grammar refuses is a *formula line*: any propositional expression
  (negated groups, ``^``/``xor``, ``nand(...)``, ``nor(...)``, nested arrows; see
  :mod:`twosat_formal.core.propositional`), converted to clauses by sympy
  (:mod:`twosat_formal.core.two_cnf`) when they are 2-SAT, each conversion proven by Z3 and
  returned by :func:`read_dsl` as a :class:`Conversion`;
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

from dataclasses import dataclass
from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
from lark import Token, Tree
from lark.exceptions import LarkError

from twosat_formal.core.formula import KEYWORDS, Formula
from twosat_formal.core.propositional import Expr, LineLimitError, parse_expression
from twosat_formal.core.two_cnf import convert, prove_equivalent
from twosat_formal.errors import (
    ConfigError,
    NotTwoCNFError,
    ParseError,
    ProofError,
    RecordError,
    raises,
)
from twosat_formal.io._parsing import check_text, error_at, lark_parser, translate

__all__ = [
    "DESCRIBE",
    "Conversion",
    "DslReading",
    "check_conversions",
    "parse_dsl",
    "read_dsl",
    "write_dsl",
]

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
        Clauses and formula lines in the DSL (see the module documentation and
        ``docs/dsl.md``).
    source:
        A file name for error messages.

    Returns
    -------
    Formula
        Variables numbered in order of first appearance (``vars:`` lines included),
        clauses in text order with the arrows expanded and formula lines converted.

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
    return read_dsl(text, source=source).formula


@dataclass(frozen=True)
class Conversion:
    """A formula line of a DSL text and the clauses it was converted to.

    Attributes
    ----------
    line:
        Its 1-based line number.
    text:
        The line as written, without its line end (``\n`` or ``\r\n``): a file
        gives the same record whichever line ends it has.
    start, stop:
        Its clauses are ``formula.clauses[start:stop]``.
    proof:
        The name of the Z3 proof that the line and its clauses are equivalent.
    """

    line: int
    text: str
    start: int
    stop: int
    proof: str

    def to_json(self) -> dict[str, Any]:
        """The conversion as a provenance entry (see :func:`check_conversions`)."""
        return {
            "line": self.line,
            "text": self.text,
            "clauses": [self.start, self.stop],
            "proof": self.proof,
        }


class DslReading(NamedTuple):
    """What :func:`read_dsl` read: the formula and its converted formula lines."""

    formula: Formula
    conversions: tuple[Conversion, ...]


@raises(ParseError)
def read_dsl(text: str, *, source: str | None = None) -> DslReading:
    """Parse DSL ``text``: the formula and the conversion of each formula line.

    Plain clause lines are read by the grammar of record; a line the grammar refuses is
    read as a propositional expression (:mod:`twosat_formal.core.propositional`), converted
    to clauses (:func:`~twosat_formal.core.two_cnf.convert`) and proven equivalent to them
    with Z3. When neither reader accepts a line, the error is that of the reader that
    read further into it (the grammar's on a tie), or the formula reader's when the line
    passes its bounds (:class:`~twosat_formal.core.propositional.LineLimitError`).

    Examples
    --------
    >>> reading = read_dsl("a -> b\\n~(b & c)")
    >>> reading.formula.clauses, reading.conversions[0].to_json()["clauses"]
    ((Clause(-1, 2), Clause(-2, -3)), [1, 2])
    """
    check_text(text, source=source)
    builder = _Builder(source)
    chunk, before = text + "\n", 0  # the text still to read, and the lines before it
    parser = lark_parser("formula.lark")
    while chunk:
        try:
            tree = parser.parse(chunk)
        except LarkError as exc:
            error = translate(exc, chunk, source=source, describe=DESCRIBE)
            row = error.line or 1
            begin = _line_start(chunk, row)
            end = chunk.find("\n", begin)
            line_text = chunk[begin:end].removesuffix("\r")  # a \r\n line end is no text
            try:
                expr = parse_expression(line_text, line=before + row, source=source)
            except ParseError as other:
                if isinstance(other, LineLimitError) or (other.column or 0) > (error.column or 0):
                    raise other from None
                raise _shifted(error, before) from None
            if begin:
                builder.add_tree(parser.parse(chunk[:begin]), chunk[:begin], before)
            builder.add_expression(expr, line_text, before + row)
            chunk, before = chunk[end + 1 :], before + row
            continue
        builder.add_tree(tree, chunk, before)
        break
    return builder.result()


def check_conversions(entries: object, formula: Formula) -> tuple[Conversion, ...]:
    """Re-derive the recorded conversions of a formula's DSL formula lines.

    Each entry (:meth:`Conversion.to_json`) is read again from its ``text``, converted,
    compared clause for clause (by name) with ``formula.clauses[start:stop]``, and
    proven again with Z3; the result is the conversions as they are derived now.

    Raises
    ------
    RecordError
        For entries of the wrong shape.
    ParseError, ProofError
        When a text no longer reads, or converts to other clauses than the formula's.

    Examples
    --------
    >>> reading = read_dsl("x\\nnand(x, y)")
    >>> entries = [c.to_json() for c in reading.conversions]
    >>> check_conversions(entries, reading.formula) == reading.conversions
    True
    >>> check_conversions([{**entries[0], "text": "nor(x, y)"}], reading.formula)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ProofError: formula line 2 converts to ~x, ~y, not to the record's ...
    """
    if not isinstance(entries, list):
        raise RecordError("provenance 'formula_lines' must be a list")
    return tuple(_check_conversion(entry, formula) for entry in entries)


def _check_conversion(entry: object, formula: Formula) -> Conversion:
    """One entry of :func:`check_conversions`, read, converted, compared and proven."""
    if not isinstance(entry, dict) or not _well_formed(entry, formula.num_clauses):
        raise RecordError(
            "each of provenance 'formula_lines' must be {line, text, clauses: [start, "
            f"stop] within the formula's {formula.num_clauses} clauses, proof}}"
        )
    line, text, (start, stop) = entry["line"], entry["text"], entry["clauses"]
    expr = parse_expression(text, line=line)
    try:
        clauses = convert(expr)
    except (NotTwoCNFError, ConfigError) as exc:
        raise ProofError(f"formula line {line}: {exc}") from None
    held = tuple(
        tuple(formula.literal_name(lit) for lit in clause) for clause in formula.clauses[start:stop]
    )
    if held != clauses:
        raise ProofError(
            f"formula line {line} converts to {_shown(clauses)}, not to the record's clauses "
            f"{start}..{stop}: {_shown(held)}"
        )
    return Conversion(line, text, start, stop, prove_equivalent(expr, clauses))


def _well_formed(entry: dict[str, Any], num_clauses: int) -> bool:
    """Whether ``entry`` is ``{line, text, clauses: [start, stop], proof}`` in bounds."""
    keys = {"line", "text", "clauses", "proof"}
    if set(entry) != keys or not isinstance(entry["line"], int):
        return False
    bounds = entry["clauses"]
    return (
        isinstance(entry["text"], str)
        and isinstance(bounds, list)
        and len(bounds) == 2
        and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
        and 0 <= bounds[0] <= bounds[1] <= num_clauses
    )


def _shown(clauses: tuple[tuple[str, ...], ...]) -> str:
    """Clauses as ``a | ~b, c`` (an empty clause as ``()``)."""
    return ", ".join(" | ".join(c) or "()" for c in clauses)


def _line_start(text: str, line: int) -> int:
    """The offset of the first character of 1-based ``line`` in ``text``."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start


def _shifted(error: ParseError, lines: int) -> ParseError:
    """``error`` with its line moved down by ``lines`` (a chunk's place in the text)."""
    if not lines or error.line is None:
        return error
    return ParseError(
        error.message,
        line=error.line + lines,
        column=error.column,
        source=error.source,
        context=error.context,
    )


class _Builder:
    """Numbers the variables in text order and expands the clauses of each line."""

    def __init__(self, source: str | None) -> None:
        self.source = source
        self.index: dict[str, int] = {}
        self.rows: list[list[int]] = []
        self.conversions: list[Conversion] = []

    def result(self) -> DslReading:
        formula = Formula(self.rows, num_vars=len(self.index), names=list(self.index))
        return DslReading(formula, tuple(self.conversions))

    def add_tree(self, tree: Tree[Token], text: str, before: int) -> None:
        """Add the lines of a parse ``tree`` of ``text``, which starts after line ``before``."""
        try:
            for line in tree.children:
                if not isinstance(line, Tree):
                    continue
                if line.data == "declaration":
                    for token in line.children:
                        if isinstance(token, Token) and token.type == "NAME":
                            self.var(token, text)
                else:
                    for item in line.children:
                        if isinstance(item, Tree):
                            self.clause(item, text)
        except ParseError as error:
            raise _shifted(error, before) from None

    def add_expression(self, expr: Expr, text: str, line: int) -> None:
        """Add the clauses of formula line number ``line``, converted and proven."""
        column = len(text) - len(text.lstrip()) + 1
        try:
            clauses = convert(expr)
        except (NotTwoCNFError, ConfigError) as exc:
            raise ParseError(
                str(exc), line=line, column=column, source=self.source, context=text[:200]
            ) from None
        for name in expr.variables():
            self.index.setdefault(name, len(self.index) + 1)
        start = len(self.rows)
        self.rows.extend(
            [-self.index[lit[1:]] if lit[0] == "~" else self.index[lit] for lit in clause]
            for clause in clauses
        )
        proof = prove_equivalent(expr, clauses)
        self.conversions.append(Conversion(line, text, start, len(self.rows), proof))

    def var(self, token: Token, text: str) -> int:
        name = str(token)
        if name in KEYWORDS:
            raise error_at(
                f"expected a variable name, found the keyword {name!r}",
                text,
                token.start_pos,
                source=self.source,
            )
        if name not in self.index:
            self.index[name] = len(self.index) + 1
        return self.index[name]

    def literals(self, disjunction: Tree[Token], text: str) -> list[int]:
        found = []
        for literal in disjunction.children:
            if not isinstance(literal, Tree):
                continue
            tokens = [tok for tok in literal.children if isinstance(tok, Token)]
            var = self.var(tokens[-1], text)
            found.append(-var if (len(tokens) - 1) % 2 else var)
        return found

    def clause(self, item: Tree[Token], text: str) -> None:
        if item.data == "empty":
            self.rows.append([])
            return
        sides = [self.literals(child, text) for child in item.children if isinstance(child, Tree)]
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
