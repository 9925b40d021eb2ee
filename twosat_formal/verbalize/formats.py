"""The formal formats: templates whose clauses are written in a notation, not sentences.

Four templates join the six schemes of App. G.1 in :data:`~twosat_formal.verbalize.TEMPLATES`
(the wording of each is in ``docs/verbalization.md``):

``math``
    The formula as a conjunction, one clause in parentheses per line, each line but
    the last closed by ``∧``: ``(x₁ ∨ ¬x₂) ∧``. Every literal is printed by sympy's
    pretty printer (``x₁``, ``¬x₁``) and read back by sympy's parser.
``math-latex``
    The same in LaTeX: ``(x_{1} \\lor \\neg x_{2}) \\land``, literals printed by sympy's
    LaTeX printer.
``dimacs``
    The formula as a DIMACS block (``p cnf N M``, one ``... 0`` line per clause),
    written as :mod:`twosat_formal.io.dimacs` writes clauses and read back by its
    parser; variable ``k`` is the entity ``xk``.
``dual-story``
    Each clause told as the combination it forbids, its negation as a conjunction:
    ``(A ∨ ¬B)`` is ``Taster 1 dislikes: chewy A + crunchy B.``

The clause order and the literal order within a clause are kept (sympy's ``And`` and
``Or`` sort and merge their arguments, so the structure between the literals is
written and read here, literal by literal through sympy). Every line must render back
to exactly itself, so a text parses only if the renderer could have produced it, and
a text that does not gets a :class:`~twosat_formal.errors.ParseError` naming its line.
Unlike the sentence schemes, a format is read line by line, as it was laid out.

Examples
--------
>>> math = FORMATS["math"]
>>> math.sentences([[1, -2], [2]], ["x1", "x2"])
['(x₁ ∨ ¬x₂) ∧', '(x₂)']
>>> math.parse_sentence("(x₁ ∨ ¬x₂)")
[('x1', True), ('x2', False)]
>>> FORMATS["dual-story"].sentences([[1, -2]], ["A", "B"])
['Taster 1 dislikes: chewy A + crunchy B.']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, ClassVar

from twosat_formal._util.recent import TEXTS
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, ParseError, SentenceError
from twosat_formal.verbalize.entities import EntityNumbers
from twosat_formal.verbalize.schemes import TEMPLATES, Scheme, _scheme, rule_head

__all__ = ["FORMATS", "Format"]

#: What :meth:`Format.read` returns: scheme name, clauses, entities in order, lines.
Read = tuple[str, list[list[int]], list[str], list[int]]

_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
#: A literal as sympy's parser is given it: nothing but a negation and a symbol name.
_SYMPY_LITERAL = re.compile(r"~?x[1-9][0-9]*\Z")
#: The opening of a numbered rule's line, and a numbered DIMACS block's comment.
_RULE_HEAD = re.compile(r"[0-9]+\. ")
_RULE_COMMENT = re.compile(r"c rule [0-9]+\Z")


@lru_cache(maxsize=1 << 16)
def _sympy_print(entity: str, positive: bool, latex: bool) -> str:
    """The literal ``entity`` / ``¬entity`` as sympy prints it (pretty Unicode or LaTeX).

    >>> _sympy_print("x12", False, False), _sympy_print("x3", True, True)
    ('¬x₁₂', 'x_{3}')
    """
    from sympy import Not, Symbol, pretty
    from sympy import latex as to_latex

    expr = Symbol(entity) if positive else Not(Symbol(entity))
    return to_latex(expr) if latex else pretty(expr, use_unicode=True)


@lru_cache(maxsize=1)
def _sympy_names() -> dict[str, object]:
    """The names sympy's parser evaluates a literal among, built once per process.

    Exactly the namespace ``parse_expr`` builds on every call when given none (about
    four fifths of its time): ``from sympy import *``, the built-in functions, and
    sympy's ``Max`` and ``Min`` as ``max`` and ``min``.

    >>> _sympy_names()["Not"].__name__, _sympy_names()["max"].__name__
    ('Not', 'Max')
    """
    import builtins
    import types

    from sympy import Max, Min

    names: dict[str, object] = {}
    exec("from sympy import *", names)  # a fixed text: sympy's own namespace
    names.update(
        (name, value)
        for name, value in vars(builtins).items()
        if isinstance(value, types.BuiltinFunctionType)
    )
    names["max"], names["min"] = Max, Min
    return names


@lru_cache(maxsize=1 << 16)
def _sympy_read(token: str, latex: bool) -> tuple[str, bool]:
    """The inverse of :func:`_sympy_print`: sympy's parser reads the literal.

    The token's notation is first written in sympy's input syntax (``¬`` → ``~``,
    subscript digits → digits; ``\\neg `` → ``~``, ``x_{12}`` → ``x12``); only a token
    that then is a negation sign and a symbol name reaches the parser, and the literal
    read must print back to exactly ``token``.

    >>> _sympy_read("¬x₁₂", False), _sympy_read("\\\\neg x_{4}", True)
    (('x12', False), ('x4', False))
    """
    from sympy import Not, Symbol
    from sympy.parsing.sympy_parser import parse_expr

    if latex:
        plain = token.replace("\\neg ", "~", 1).replace("_{", "", 1).replace("}", "", 1)
    else:
        plain = token.replace("¬", "~", 1).translate(_SUBSCRIPTS)
    if not _SYMPY_LITERAL.match(plain):
        raise SentenceError(f"{token!r} is not a literal")
    expr = parse_expr(plain, global_dict=_sympy_names(), evaluate=False)
    positive = not isinstance(expr, Not)
    symbol = expr if positive else expr.args[0]
    if not isinstance(symbol, Symbol):
        raise SentenceError(f"{token!r} is not a literal")
    entity = symbol.name
    if _sympy_print(entity, positive, latex) != token:
        raise SentenceError(f"{token!r} is not written as sympy prints it")
    return entity, positive


@dataclass(frozen=True)
class Format(Scheme):
    """A template written in a notation: one clause per line, read line by line.

    The fields are a :class:`~twosat_formal.verbalize.schemes.Scheme`'s (the phrase
    fields give :meth:`literal`, the words a reasoner uses for one literal); a format
    renders its lines with :meth:`sentences` and reads a text with :meth:`read`.
    """

    #: The line of the body (the lines between preamble and blank line) that is the
    #: first rule's, or that numbers it.
    first_rule: ClassVar[int] = 0

    def sentence(self, literals: Sequence[tuple[str, bool]]) -> str:
        """One clause in this notation, given as ``(entity, positive)`` pairs."""
        if not literals:
            raise ConfigError(
                "an empty clause has no verbalization", parameter="clause", valid="1+ literals"
            )
        return self._clause(literals)

    def _clause(self, literals: Sequence[tuple[str, bool]]) -> str:
        raise NotImplementedError

    def sentences(self, clauses: Sequence[Sequence[int]], entities: Sequence[str]) -> list[str]:
        """The lines of the formula, ``entities[v - 1]`` naming variable ``v``."""
        return [
            self.sentence([(entities[abs(x) - 1], x > 0) for x in clause]) for clause in clauses
        ]

    @property
    def clause_lines(self) -> None:
        """No line pattern: a format is read by :meth:`read`."""
        return None

    def _parse_sentence(self, sentence: str) -> tuple[tuple[str, bool], ...]:
        """A reasoner's sentence: one clause as :meth:`sentence` writes it, or one literal
        as :meth:`literal` writes it (a unit clause, an assignment), with or without a
        closing period. The prompt's own lines are read by :meth:`read`, exactly."""
        text = sentence.strip()
        try:
            return _strict_clause(self, text)
        except SentenceError as err:
            if not text.endswith("."):
                raise
            first = err
        try:
            return _strict_clause(self, text[:-1])
        except SentenceError:
            pass
        try:
            return (self.parse_literal(text[:-1]),)
        except SentenceError:
            raise first from None

    def parse_literal(self, phrase: str) -> tuple[str, bool]:
        """The inverse of :meth:`literal`: ``X is <value>`` unless a format says otherwise.

        >>> FORMATS["dual-story"].parse_literal("B is chewy")
        ('B', False)
        """
        entity, _, value = phrase.rpartition(" is ")
        if value not in (self.true_value, self.false_value) or not self.entities.is_entity(entity):
            raise SentenceError(f"{phrase!r} is not a {self.name} literal")
        return entity, value == self.true_value

    def _read_clause(self, text: str) -> list[tuple[str, bool]]:
        raise NotImplementedError

    def read_lines(self, lines: Sequence[str]) -> list[list[tuple[str, bool]]]:
        """The clauses of the body lines, each as ``(entity, positive)`` pairs.

        Raises :class:`_LineError` with the index of the line at fault.
        """
        found = []
        for i, line in enumerate(lines):
            text = self._clause_text(i, line, last=i == len(lines) - 1)
            try:
                found.append(list(_strict_clause(self, text)))
            except SentenceError as err:
                raise _LineError(i, str(err)) from None
        return found

    def _clause_text(self, i: int, line: str, *, last: bool) -> str:
        """The clause written on body line ``i``: the line without the :attr:`join` that
        closes every line but the last (:class:`_LineError` where it is missing)."""
        closing = " " + self.join if self.join and not last else ""
        if closing and not line.endswith(closing):
            raise _LineError(i, f"a clause line but the last ends with {self.join!r}")
        return line[: len(line) - len(closing)]

    @property
    def join(self) -> str:
        """What closes every clause line but the last (``""``: nothing)."""
        return ""

    def read(
        self,
        text: str,
        entities: Sequence[str] | None,
        source: str | None,
        numbered: bool | None = None,
    ) -> Read:
        """Read a verbalization in this format (a full prompt: what follows is ignored).

        Returns the scheme name, the clauses over variables numbered in order of first
        appearance (or as ``entities`` numbers them), that order, and the line of each
        clause. ``numbered``: the rules carry their numbers (:meth:`numbered`), as a
        prompt that names rules writes them (``True``), or carry none (``False``), or
        either, as the first rule line shows (``None``).

        Raises
        ------
        ParseError
            A missing preamble or question, a line that is not a clause of this format,
            a rule without its number (or out of order) where the rules are numbered,
            an entity outside the naming or ``entities``; the error names the line,
            and ``source`` when given.

        >>> lines = ["Consider this propositional formula:", "(¬x₂ ∨ x₁) ∧", "(x₂)", ""]
        >>> FORMATS["math"].read("\\n".join([*lines, _MATH_QUESTION]), None, None)
        ('math', [[-1, 2], [1]], ['x2', 'x1'], [2, 3])
        """
        try:
            return self._read(text, entities, source, numbered)
        except ParseError as err:
            if err.source is None and source is not None:
                line, column, context = err.line, err.column, err.context
                raise ParseError(
                    err.message, line=line, column=column, source=source, context=context
                ) from None
            raise

    def _read(
        self, text: str, entities: Sequence[str] | None, source: str | None, numbered: bool | None
    ) -> Read:
        lines = text.split("\n")
        body = self._body(lines, source)
        numbered = self._numbered(body, numbered, lines, source)
        # where[i]: the line of the body that line i of the body without numbers was
        body, where = self.unnumbered(body) if numbered else (body, list(range(len(body))))
        try:
            pairs, first = self.read_body(body)
        except ParseError as err:
            at = (err.line or 2) - 2
            if not numbered or not 0 <= at < len(where):
                raise
            line = where[at] + 2  # the line in the text, numbers and all
            raise _line_error(err.message, line, lines, source, column=err.column) from None
        numbers = EntityNumbers(entities)
        clauses = []
        for i, clause in enumerate(pairs):
            try:
                clauses.append(numbers.clause(clause))
            except KeyError as err:
                message = f"unknown entity {err.args[0]!r}"
                raise _line_error(message, first + i + 2, lines, source) from None
        return (
            self.name,
            clauses,
            numbers.order,
            [where[first + i] + 2 for i in range(len(clauses))],
        )

    def _body(self, lines: Sequence[str], source: str | None) -> list[str]:
        """The lines between the preamble and the blank line before the question."""
        if lines[0] != self.preamble:
            message = f"expected the {self.name} preamble {self.preamble!r}"
            raise _line_error(message, 1, lines, source)
        try:
            end = lines.index(self.question, 1)
        except ValueError:
            message = f"the final question {self.question!r} is missing"
            raise _line_error(message, len(lines), lines, source) from None
        if end < 2 or lines[end - 1] != "":
            raise _line_error(
                "a blank line comes before the final question", end + 1, lines, source
            )
        return list(lines[1 : end - 1])

    def _numbered(
        self, body: Sequence[str], numbered: bool | None, lines: Sequence[str], source: str | None
    ) -> bool:
        """Whether the rules are numbered: as asked, or as the first rule line shows."""
        shown = self.numbers_shown(body)
        if shown and numbered is False:
            message = "a rule number where the rules are not numbered"
            raise _line_error(message, self.first_rule + 2, lines, source)
        return shown if numbered is None else numbered

    def numbers_shown(self, body: Sequence[str]) -> bool:
        """Whether the first rule line of ``body`` is numbered (by any number).

        >>> FORMATS["math"].numbers_shown(["2. (x₁)"]), FORMATS["dimacs"].numbers_shown(["p"])
        (True, False)
        """
        at = self.first_rule
        return len(body) > at and self.marked.match(body[at]) is not None

    @property
    def marked(self) -> re.Pattern[str]:
        """What opens a numbered rule's line (or its numbering line), any number."""
        return _RULE_HEAD

    def mark(self, number: int) -> str:
        """What numbers rule ``number`` (:func:`~twosat_formal.verbalize.schemes.rule_head`).

        >>> FORMATS["math"].mark(2), FORMATS["dimacs"].mark(2)
        ('2. ', 'c rule 2')
        """
        return rule_head(number)

    def unnumbered(self, body: Sequence[str]) -> tuple[list[str], list[int]]:
        """The body lines without the rule numbers :meth:`numbered` writes, and the index
        in ``body`` of each line kept.

        Raises :class:`~twosat_formal.errors.ParseError` at the first line that does
        not open with the number it must have (one after the line before's).

        >>> FORMATS["math"].unnumbered(["1. (x₁) ∧", "2. (¬x₁)"])
        (['(x₁) ∧', '(¬x₁)'], [0, 1])
        """
        found = []
        for i, line in enumerate(body):
            head = self.mark(i + 1)
            if not line.startswith(head):
                raise _numbering_error(i + 1, head, i + 2, line)
            found.append(line[len(head) :])
        return found, list(range(len(body)))

    def read_body(self, body: Sequence[str]) -> tuple[list[list[tuple[str, bool]]], int]:
        """The clauses of the lines between preamble and blank line, and the index of the
        first clause line among them."""
        try:
            return self.read_lines(body), 0
        except _LineError as err:
            message, line, context = err.message, err.index + 2, body[err.index]
        raise ParseError(message, line=line, column=1, context=context)


def _line_error(
    message: str, line: int, lines: Sequence[str], source: str | None, column: int | None = 1
) -> ParseError:
    """The error at ``line`` (1-based) of the text split into ``lines``."""
    context = lines[line - 1] if line <= len(lines) else None
    return ParseError(message, line=line, column=column, source=source, context=context)


def _numbering_error(rule: int, head: str, line: int, context: str) -> ParseError:
    """The error of a rule line without the number ``head`` it must open with."""
    found = context[: len(head)]
    return ParseError(
        f"rule {rule} opens with {found!r} instead of its number {head!r}",
        line=line,
        column=1,
        context=context,
    )


def rule_comment(number: int) -> str:
    """The comment that numbers the next clause line of a numbered DIMACS block.

    >>> rule_comment(3)
    'c rule 3'
    """
    return f"c rule {number}"


class _LineError(Exception):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


@lru_cache(maxsize=TEXTS)  # keyed by clause texts: bounded small
def _strict_clause(scheme: Format, text: str) -> tuple[tuple[str, bool], ...]:
    """The clause written ``text``, which must be exactly ``scheme``'s :meth:`~Format.sentence`
    of it; remembered (a pure function of format and text)."""
    literals = scheme._read_clause(text)
    if scheme.sentence(literals) != text:
        raise SentenceError(f"the clause is not written as the {scheme.name} format writes it")
    return tuple(literals)


@dataclass(frozen=True)
class MathFormat(Format):
    """``math`` and ``math-latex``: a conjunction of parenthesized disjunctions."""

    latex: bool = False

    @property
    def join(self) -> str:
        return "\\land" if self.latex else "∧"

    @property
    def disjunction(self) -> str:
        """The disjunction sign between two literals, with its spaces."""
        return " \\lor " if self.latex else " ∨ "

    def literal(self, entity: str, positive: bool) -> str:
        """The literal as sympy prints it.

        >>> FORMATS["math"].literal("x2", False)
        '¬x₂'
        """
        return _sympy_print(entity, positive, self.latex)

    def parse_literal(self, phrase: str) -> tuple[str, bool]:
        """The inverse of :meth:`literal`, through sympy's parser.

        >>> FORMATS["math"].parse_literal("¬x₂")
        ('x2', False)
        """
        entity, positive = _sympy_read(phrase, self.latex)
        if not self.entities.is_entity(entity):
            raise SentenceError(f"unknown entity {entity!r}", entity=entity)
        return entity, positive

    def _clause(self, literals: Sequence[tuple[str, bool]]) -> str:
        return "(" + self.disjunction.join(self.literal(e, p) for e, p in literals) + ")"

    def sentences(self, clauses: Sequence[Sequence[int]], entities: Sequence[str]) -> list[str]:
        lines = super().sentences(clauses, entities)
        return [line + " " + self.join for line in lines[:-1]] + lines[-1:]

    def _read_clause(self, text: str) -> list[tuple[str, bool]]:
        if not (text.startswith("(") and text.endswith(")")):
            raise SentenceError("a clause is written in parentheses")
        return [self.parse_literal(token) for token in text[1:-1].split(self.disjunction)]


def _block(formula: Formula) -> list[str]:
    """The lines of the DIMACS block of ``formula``: its header, then its clauses as
    :func:`~twosat_formal.io.dimacs.write_dimacs` writes them.

    >>> _block(Formula([[2, -1]]))
    ['p cnf 2 1', '2 -1 0']
    """
    from twosat_formal.io.dimacs import _clause_lines

    header = f"p cnf {formula.num_vars} {formula.num_clauses}"
    return [header, *_clause_lines(formula).splitlines()]


@dataclass(frozen=True)
class DimacsFormat(Format):
    """``dimacs``: the header ``p cnf N M`` and one clause line per clause."""

    first_rule: ClassVar[int] = 1

    def mark(self, number: int) -> str:
        return rule_comment(number)

    @property
    def marked(self) -> re.Pattern[str]:
        return _RULE_COMMENT

    def number(self, entity: str, positive: bool) -> str:
        """The literal's DIMACS number (:meth:`literal` is its phrase, ``x12 is false``).

        >>> FORMATS["dimacs"].number("x12", False), FORMATS["dimacs"].literal("x12", False)
        ('-12', 'x12 is false')
        """
        number = str(self.entities.index(entity) + 1)
        return number if positive else "-" + number

    def _clause(self, literals: Sequence[tuple[str, bool]]) -> str:
        return " ".join(self.number(e, p) for e, p in literals) + " 0"

    def sentences(self, clauses: Sequence[Sequence[int]], entities: Sequence[str]) -> list[str]:
        """The header and the clause lines, as the DIMACS writer writes clauses.

        >>> FORMATS["dimacs"].sentences([[1, -2]], ["x2", "x1"])
        ['p cnf 2 1', '2 -1 0']
        """
        if any(not clause for clause in clauses):
            raise ConfigError(
                "an empty clause has no verbalization", parameter="clause", valid="1+ literals"
            )
        numbers = [self.entities.index(entity) + 1 for entity in entities]
        mapped = [[numbers[x - 1] if x > 0 else -numbers[-x - 1] for x in c] for c in clauses]
        return _block(Formula(mapped, num_vars=max(numbers, default=0)))

    def numbered(self, lines: Sequence[str]) -> list[str]:
        """The block with a comment ``c rule N`` before the line of clause ``N`` (a clause
        line has no room for its number: the comment keeps the block valid DIMACS).

        >>> FORMATS["dimacs"].numbered(["p cnf 2 2", "1 -2 0", "2 0"])
        ['p cnf 2 2', 'c rule 1', '1 -2 0', 'c rule 2', '2 0']
        """
        found = list(lines[:1])
        for k, line in enumerate(lines[1:], 1):
            found += [self.mark(k), line]
        return found

    def unnumbered(self, body: Sequence[str]) -> tuple[list[str], list[int]]:
        """The block without the ``c rule N`` comments, each of which must come right
        before the line of clause ``N``.

        >>> FORMATS["dimacs"].unnumbered(["p cnf 1 2", "c rule 1", "1 0", "c rule 2", "-1 0"])
        (['p cnf 1 2', '1 0', '-1 0'], [0, 2, 4])
        """
        found, where = list(body[:1]), [0] if body else []
        for k, at in enumerate(range(1, len(body), 2), 1):
            head = self.mark(k)
            if body[at] != head:
                raise _numbering_error(k, head, at + 2, body[at])
            if at + 1 >= len(body):
                raise ParseError(
                    f"rule {k} has no clause line after its comment {head!r}",
                    line=at + 2,
                    column=1,
                    context=body[at],
                )
            found.append(body[at + 1])
            where.append(at + 1)
        return found, where

    def _read_clause(self, text: str) -> list[tuple[str, bool]]:
        words = text.split(" ")
        if len(words) < 2 or words[-1] != "0":
            raise SentenceError("a clause line is its literals and 0")
        found = []
        for word in words[:-1]:
            entity = "x" + word.lstrip("-")
            if not self.entities.is_entity(entity):
                raise SentenceError(f"{word!r} is not a literal", entity=entity)
            found.append((entity, not word.startswith("-")))
        return found

    def read_body(self, body: Sequence[str]) -> tuple[list[list[tuple[str, bool]]], int]:
        """The DIMACS block read as a DIMACS file is
        (:func:`~twosat_formal.io.detect.parse_formula`), then written back: it must be the
        block the renderer writes."""
        from twosat_formal.io.detect import parse_formula

        block = "\n".join(body)
        try:
            formula = parse_formula(block + "\n", format="dimacs")
        except ParseError as err:
            line = (err.line or 1) + 1
            message = f"the DIMACS block: {err.message}"
            raise ParseError(message, line=line, column=err.column, context=err.context) from None
        if any(not clause for clause in formula.clauses):
            raise ParseError("the DIMACS block holds an empty clause", line=2, column=1)
        _check_rewritten(_block(formula), body)
        # variable k is the entity xk (no list of every variable: the header may be large)
        pairs = [[(f"x{abs(x)}", x > 0) for x in clause] for clause in formula.clauses]
        return pairs, 1


def _check_rewritten(rendered: Sequence[str], body: Sequence[str]) -> None:
    """Raise :class:`ParseError` at the first line where ``body`` is not the DIMACS
    block ``rendered`` as the renderer writes it."""
    if list(rendered) == list(body):
        return
    lines = enumerate(zip(rendered, body, strict=False))
    i = next((i for i, (a, b) in lines if a != b), min(len(rendered), len(body)))
    raise ParseError(
        "the DIMACS block is not written as the dimacs format writes it "
        "(the header, then one clause per line, single spaces)",
        line=i + 2,
        column=1,
        context=body[i] if i < len(body) else None,
    )


@dataclass(frozen=True)
class DualStoryFormat(Format):
    """``dual-story``: every clause as the combination it forbids, numbered."""

    def _clause(self, literals: Sequence[tuple[str, bool]]) -> str:
        # the forbidden combination is the clause's negation: each literal made false
        words = (f"{self.false_value if p else self.true_value} {e}" for e, p in literals)
        return " + ".join(words) + "."

    def sentences(self, clauses: Sequence[Sequence[int]], entities: Sequence[str]) -> list[str]:
        lines = super().sentences(clauses, entities)
        return [self._head(i) + line for i, line in enumerate(lines, 1)]

    def _head(self, number: int) -> str:
        """What opens the line of taster ``number``."""
        return f"{self.prefix}{number} dislikes: "

    def _read_clause(self, text: str) -> list[tuple[str, bool]]:
        if not text.endswith("."):
            raise SentenceError("a forbidden combination ends with a period")
        found = []
        for part in text[:-1].split(" + "):
            value, _, entity = part.partition(" ")
            if value not in (self.true_value, self.false_value):
                raise SentenceError(f"{part!r} is not {self.true_value} or {self.false_value} X")
            if not self.entities.is_entity(entity):
                raise SentenceError(f"unknown entity {entity!r}", entity=entity)
            found.append((entity, value == self.false_value))
        return found

    def _clause_text(self, i: int, line: str, *, last: bool) -> str:
        head = self._head(i + 1)
        if not line.startswith(head):
            raise _LineError(i, f"line {i + 1} of the rules opens with {head!r}")
        return line[len(head) :]


def _fields(
    name: str, values: tuple[str, str], naming: str, preamble: str, question: str, prefix: str = ""
) -> dict[str, Any]:
    """A format's scheme fields: literals ``X is <value>``, no sentence remarks."""
    phrases = ("{e} is " + values[0], "{e} is " + values[1])
    return asdict(_scheme(name, values, naming, preamble, question, phrases, prefix, ""))


_MATH_QUESTION = (
    "Is there an assignment of truth values to the variables that makes the formula true?"
)

#: The four formats, by name, registered here in :data:`~twosat_formal.verbalize.TEMPLATES`
#: after the six schemes (every module of the package imports this one through
#: :mod:`twosat_formal.verbalize.backparse`).
FORMATS: dict[str, Format] = {
    "math": MathFormat(
        **_fields(
            "math",
            ("true", "false"),
            "symbols",
            "Consider this propositional formula:",
            _MATH_QUESTION,
        )
    ),
    "math-latex": MathFormat(
        **_fields(
            "math-latex",
            ("true", "false"),
            "symbols",
            "Consider this propositional formula, written in LaTeX:",
            _MATH_QUESTION,
        ),
        latex=True,
    ),
    "dimacs": DimacsFormat(
        **_fields(
            "dimacs",
            ("true", "false"),
            "symbols",
            "Consider this CNF formula in DIMACS format (variable k is named xk):",
            "Is there an assignment of truth values to the variables that satisfies every clause?",
        )
    ),
    "dual-story": DualStoryFormat(
        **_fields(
            "dual-story",
            ("crunchy", "chewy"),
            "letters",
            "A baker makes every cookie either crunchy or chewy. Each taster dislikes "
            "one combination, and no taster may be served it:",
            "Can the baker make the cookies so that no taster is served a combination "
            "they dislike?",
            prefix="Taster ",
        )
    ),
}


for _name, _format in FORMATS.items():
    TEMPLATES.add(_name, _format)
