"""Propositional expressions over named variables: the reader of the DSL's formula lines.

A DSL line that is not a plain clause line (``docs/dsl.md``) is read here into an
:class:`Expr` tree, which :mod:`twosat_formal.core.two_cnf` turns into clauses. The operators,
tightest first:

====================  =====================================  ==================
negation              ``~x  !x  ¬x  not x``                   prefix
exclusive or          ``a ^ b  a ⊕ b  a xor b``               left to right
disjunction           ``a | b  a ∨ b  a or b``                left to right
implication           ``a -> b  a → b``                       right to left
equivalence           ``a <-> b  a ↔ b``                      left to right
conjunction           ``a & b  a ∧ b  a and b``               left to right
====================  =====================================  ==================

Conjunction binds loosest, as between the clauses of a plain line, so that a line means
the same whichever reader reads it: ``a | b & c`` is ``(a | b) & c``. ``nand(a, b, ...)``,
``nor(a, b, ...)`` and ``xor(a, b, ...)`` (two arguments or more) are functions, ``()`` is
false, and parentheses group. ``xor``, ``nand`` and ``nor`` stay usable as variable names
(they are operators only where an operator can stand); ``not``, ``or``, ``and`` and
``vars`` are keywords.

A line is bounded (:data:`MAX_TOKENS` tokens, :data:`MAX_DEPTH` nested groups), so
that no line makes the reader, or the conversion after it, run for long.

Examples
--------
>>> e = parse_expression("~(rain & cold) -> umbrella")
>>> e.op, e.args[0].op, e.variables()
('implies', 'not', ('rain', 'cold', 'umbrella'))
>>> parse_expression("a | b & c").op
'and'
>>> parse_expression("nand(a, b) ^ c").render()
'xor(nand(a, b), c)'
>>> parse_expression("a -> -> b")
Traceback (most recent call last):
...
twosat_formal.errors.ParseError: 1:6: expected a variable name, a negation or "(", found '->'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from twosat_formal.errors import LineLimitError, ParseError

__all__ = ["FUNCTIONS", "MAX_DEPTH", "MAX_TOKENS", "Expr", "parse_expression"]

#: The most tokens one formula line may hold.
MAX_TOKENS = 256
#: The most groups (parentheses, function calls, negations) one formula line may nest.
MAX_DEPTH = 64
#: Function names: an operator over two arguments or more.
FUNCTIONS = frozenset({"nand", "nor", "xor"})
_KEYWORDS = {"not": "not", "or": "or", "and": "and", "vars": "vars"}
_SYMBOLS = {
    "~": "not",
    "!": "not",
    "¬": "not",
    "|": "or",
    "∨": "or",
    "&": "and",
    "∧": "and",
    "^": "xor",
    "⊕": "xor",
    "->": "implies",
    "→": "implies",
    "<->": "iff",
    "↔": "iff",
    "(": "(",
    ")": ")",
    ",": ",",
}
_TOKEN = re.compile(r"\s+|#.*|[A-Za-z_][A-Za-z0-9_]*|<->|->|[~!¬|∨&∧^⊕→↔(),]")
_OPERAND = 'a variable name, a negation or "("'


@dataclass(frozen=True)
class Expr:
    """One node of a propositional expression.

    Attributes
    ----------
    op:
        ``"var"``, ``"false"``, ``"not"``, ``"and"``, ``"or"``, ``"xor"``, ``"implies"``,
        ``"iff"``, ``"nand"`` or ``"nor"``.
    args:
        The operands (none for ``"var"`` and ``"false"``; two or more for the n-ary
        operators, exactly two for ``"implies"`` and ``"iff"``).
    name:
        The variable's name (``"var"`` only).
    """

    op: str
    args: tuple[Expr, ...] = ()
    name: str | None = None

    def variables(self) -> tuple[str, ...]:
        """The variable names, in order of first appearance (left to right).

        >>> parse_expression("b ^ (a | b)").variables()
        ('b', 'a')
        """
        return tuple(dict.fromkeys(self._names()))

    def _names(self) -> list[str]:
        found: list[str] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.op == "var":
                found.append(str(node.name))
            stack.extend(reversed(node.args))
        return found

    def evaluate(self, value: dict[str, bool]) -> bool:
        """The truth value under ``value`` (every variable given).

        >>> parse_expression("a -> b").evaluate({"a": True, "b": False})
        False
        """
        if self.op == "var":
            return value[str(self.name)]
        if self.op == "false":
            return False
        parts = [arg.evaluate(value) for arg in self.args]
        if self.op == "not":
            return not parts[0]
        if self.op in ("and", "nand"):
            return all(parts) != (self.op == "nand")
        if self.op in ("or", "nor"):
            return any(parts) != (self.op == "nor")
        if self.op == "xor":
            return sum(parts) % 2 == 1
        if self.op == "implies":
            return not parts[0] or parts[1]
        return parts[0] == parts[1]

    def render(self) -> str:
        """The expression with every operation in parentheses (for messages and tests).

        >>> parse_expression("~a | b -> c").render()
        '((~a | b) -> c)'
        """
        if self.op == "var":
            return str(self.name)
        if self.op == "false":
            return "()"
        if self.op == "not":
            return "~" + self.args[0].render()
        if self.op in FUNCTIONS:
            return f"{self.op}({', '.join(a.render() for a in self.args)})"
        sign = {"and": " & ", "or": " | ", "xor": " ^ ", "implies": " -> ", "iff": " <-> "}
        return "(" + sign[self.op].join(a.render() for a in self.args) + ")"


@dataclass(frozen=True)
class _Token:
    kind: str  # "name", a value of _SYMBOLS, a keyword, "bad" (no token) or "end"
    text: str
    column: int  # 1-based


def parse_expression(text: str, *, line: int = 1, source: str | None = None) -> Expr:
    """Read one line of propositional expression (see the module documentation).

    Parameters
    ----------
    text:
        The line, without its newline (a ``#`` comment is ignored).
    line:
        Its 1-based line number, for error positions.
    source:
        A file name for error messages.

    Raises
    ------
    ParseError
        At the line and column of the first token that cannot stand where it stands,
        or of the token that passes :data:`MAX_TOKENS` or :data:`MAX_DEPTH`.
    """
    return _Reader(text, line, source).read()


class _Reader:
    """A recursive-descent reader over the tokens of one line."""

    def __init__(self, text: str, line: int, source: str | None) -> None:
        self.text = text
        self.line = line
        self.source = source
        self.tokens = self._tokenize()
        self.at = 0
        self.depth = 0

    def error(self, message: str, column: int, kind: type[ParseError] = ParseError) -> ParseError:
        return kind(
            message, line=self.line, column=column, source=self.source, context=self.text[:200]
        )

    def _tokenize(self) -> list[_Token]:
        tokens: list[_Token] = []
        at = 0
        while at < len(self.text):
            match = _TOKEN.match(self.text, at)
            if match is None:  # refused where the reader reaches it, as the grammar does
                tokens.append(_Token("bad", self.text[at], at + 1))
                break
            word = match.group()
            if not word[0].isspace() and word[0] != "#":
                if len(tokens) == MAX_TOKENS:
                    raise self.error(f"a formula line holds at most {MAX_TOKENS} tokens", at + 1)
                if word in _SYMBOLS:
                    kind = _SYMBOLS[word]
                elif word in _KEYWORDS:
                    kind = _KEYWORDS[word]
                else:
                    kind = "name"
                tokens.append(_Token(kind, word, at + 1))
            at = match.end()
        tokens.append(_Token("end", "", len(self.text) + 1))
        return tokens

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def found(self, token: _Token) -> str:
        return "the end of the line" if token.kind == "end" else repr(token.text)

    def expect(self, kind: str, what: str) -> _Token:
        token = self.peek()
        if token.kind != kind:
            raise self.error(f"expected {what}, found {self.found(token)}", token.column)
        return self.take()

    def read(self) -> Expr:
        first = self.peek()
        if first.kind == "end":
            raise self.error(f"expected {_OPERAND}, found the end of the line", first.column)
        expr = self.conjunction()
        last = self.peek()
        if last.kind != "end":
            raise self.error(f"expected an operator, found {self.found(last)}", last.column)
        return expr

    def _chain(self, op: str, below: str) -> Expr:
        parts = [getattr(self, below)()]
        while self.peek().kind == op or (
            op == "xor" and self.peek().kind == "name" and self.peek().text == "xor"
        ):
            self.take()
            parts.append(getattr(self, below)())
        return parts[0] if len(parts) == 1 else Expr(op, tuple(parts))

    def conjunction(self) -> Expr:
        return self._chain("and", "equivalence")

    def equivalence(self) -> Expr:
        left = self.implication()
        while self.peek().kind == "iff":
            self.take()
            left = Expr("iff", (left, self.implication()))
        return left

    def implication(self) -> Expr:
        left = self.disjunction()
        if self.peek().kind != "implies":
            return left
        self.take()
        self.enter(self.peek())
        right = self.implication()
        self.depth -= 1
        return Expr("implies", (left, right))

    def disjunction(self) -> Expr:
        return self._chain("or", "exclusive")

    def exclusive(self) -> Expr:
        return self._chain("xor", "unary")

    def enter(self, token: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(
                f"a formula line nests at most {MAX_DEPTH} groups", token.column, LineLimitError
            )

    def unary(self) -> Expr:
        token = self.peek()
        if token.kind == "not":
            self.take()
            self.enter(token)
            inner = self.unary()
            self.depth -= 1
            return Expr("not", (inner,))
        return self.atom()

    def atom(self) -> Expr:
        token = self.take()
        if token.kind == "name":
            if token.text in FUNCTIONS and self.peek().kind == "(":
                return self.call(token)
            return Expr("var", name=token.text)
        if token.kind == "(":
            if self.peek().kind == ")":
                self.take()
                return Expr("false")
            self.enter(token)
            inner = self.conjunction()
            self.depth -= 1
            self.expect(")", 'an operator or ")"')
            return inner
        if token.kind == "vars":
            raise self.error("expected a variable name, found the keyword 'vars'", token.column)
        raise self.error(f"expected {_OPERAND}, found {self.found(token)}", token.column)

    def call(self, name: _Token) -> Expr:
        self.take()  # "("
        self.enter(name)
        args = [self.conjunction()]
        while self.peek().kind == ",":
            self.take()
            args.append(self.conjunction())
        self.depth -= 1
        closing = self.peek()
        if len(args) < 2 and closing.kind == ")":
            raise self.error(f"{name.text}() takes two arguments or more", closing.column)
        self.expect(")", 'an operator, "," or ")"')
        return Expr(name.text, tuple(args))
