"""Claims written as propositional formulas over the prompt's entities.

Reasoning often states a claim as a formula: ``A → (B ∧ ¬C)``, ``¬A ∨ B``,
``A = 1, B = 0``. :func:`read_formula_claim` reads such a sentence with the DSL's
expression reader (:mod:`twosat_formal.core.propositional`: ``~ ! ¬ not``, ``& ∧ and``,
``| ∨ or``, ``^ ⊕ xor``, ``-> →``, ``<-> ↔``, ``nand(...)``, ``nor(...)``, parentheses),
its names being entities of the prompt (case ignored); ``⇒`` and ``=>`` are read as
``->``, ``⇔`` and ``<=>`` as ``<->``. A list of assignments ``E = V`` or ``E: V``
(``V`` one of ``1``, ``0``, ``true``, ``false``, ``T``, ``F`` or the template's value
words), joined by commas, ``;`` or ``and``, is the conjunction of its literals.

A claim written in LaTeX, as the ``math-latex`` format writes its rules
(``x_{1} \\lor \\neg x_{2}``, ``x_1 \\rightarrow x_2``), is first written in the
expression reader's syntax by :func:`from_latex` and then read on the same path.

A sentence is a formula claim only when it holds an operator (a bare name is not a
claim), every name is an entity, and it stays within the expression reader's bounds.
:func:`claim_clauses` gives the clauses of sympy's simplest CNF of the claim and of its
negation (any width), which the trace checker judges with the solver.

>>> entities = {"a": 1, "b": 2, "c": 3}
>>> claim = read_formula_claim("A → (B ∧ ¬C)", entities, {})
>>> claim.render()
'(a -> (b & ~c))'
>>> claim_clauses(claim, entities)
(((-1, 2), (-1, -3)), ((1,), (-2, 3)))
>>> read_formula_claim("A = 1, B = 0", entities, {}).render()
'(a & ~b)'
>>> read_formula_claim("A is the answer", entities, {}) is None
True
>>> read_formula_claim("$a \\\\Rightarrow (b \\\\land \\\\neg c)$", entities, {}).render()
'(a -> (b & ~c))'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from twosat_formal.core.propositional import Expr, parse_expression
from twosat_formal.errors import ConfigError, ParseError
from twosat_formal.evaluate.scoring.answers import casefolded

__all__ = ["claim_clauses", "from_latex", "read_formula_claim", "renamed"]

_VALUES = {"1": True, "0": False, "true": True, "false": False, "t": True, "f": False}
_ASSIGNMENT = re.compile(r"^\s*(?P<e>[A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:)\s*(?P<v>[^,;=:]+?)\s*$")
_SEPARATORS = re.compile(r"\s*(?:,|;|\band\b)\s*", re.IGNORECASE)
_ALIASES = (("<=>", "<->"), ("⇔", "↔"), ("=>", "->"), ("⇒", "→"))

#: The LaTeX commands of a formula, by name (case ignored: ``\Rightarrow`` is
#: ``\rightarrow``), as the expression reader writes them; ``\left`` and ``\right``
#: only size the parenthesis after them, and the spacing commands are a space.
_LATEX = {
    **dict.fromkeys(("lor", "vee"), " | "),
    **dict.fromkeys(("land", "wedge"), " & "),
    **dict.fromkeys(("neg", "lnot"), " ~"),
    **dict.fromkeys(("rightarrow", "to", "implies", "longrightarrow"), " -> "),
    **dict.fromkeys(("leftrightarrow", "iff", "longleftrightarrow", "equiv"), " <-> "),
    **dict.fromkeys(("oplus", "veebar"), " ^ "),
    **dict.fromkeys(("left", "right"), ""),
    **dict.fromkeys((",", ";", ":", "!", " ", "quad", "qquad"), " "),
    **dict.fromkeys(("(", ")", "[", "]"), " "),
}
#: A LaTeX command: a backslash and a name (with the spaces that end it), or a
#: backslash and one sign.
_COMMAND = re.compile(r"\\(?:([A-Za-z]+) *|([,;:! ()\[\]]))")
#: A subscript of digits after a name: ``x_{12}``, ``x_1``.
_SUBSCRIPT = re.compile(r"(?<=[A-Za-z])_(?:\{([0-9]+)\}|([0-9]+))")


def read_formula_claim(
    text: str, entities: Mapping[str, int], values: Mapping[str, bool]
) -> Expr | None:
    """The expression a sentence claims, over entity names as ``entities`` spells them.

    Parameters
    ----------
    text:
        The sentence, without its final period.
    entities:
        The prompt's entity names, case-folded, with their variables.
    values:
        The template's value words, case-folded (``{"true": True, ...}``).

    Returns
    -------
    Expr or None
        ``None`` when the sentence is not a formula claim.
    """
    plain = from_latex(text)
    if plain is None:
        return None
    text = plain
    assigned = _assignments(text, entities, values)
    if assigned is not None:
        return assigned
    for alias, meaning in _ALIASES:
        text = text.replace(alias, meaning)
    try:
        expr = parse_expression(text)
    except ParseError:
        return None
    if expr.op == "var":
        return None
    folded = _folded(expr)
    if not all(name in entities for name in folded.variables()):
        return None
    return folded


def from_latex(text: str) -> str | None:
    """``text`` with its LaTeX written in the expression reader's syntax.

    Math delimiters (``$``, ``\\(`` ... ``\\)``) are dropped, a subscript of digits
    joins its name (``x_{12}`` and ``x_12`` are ``x12``), the commands of
    :data:`_LATEX` become their operators, an empty group ``{}`` (which ends a command's
    name) a space and any other braces parentheses. A text
    without LaTeX comes back as it is; one with a command that is not a formula's
    (``\\text``, ``\\forall``) is ``None``.

    >>> from_latex("(x_{1} \\\\lor \\\\neg x_{2}) \\\\land x_3")
    '(x1 | ~x2) & x3'
    >>> from_latex("A or B"), from_latex("\\\\forall x")
    ('A or B', None)
    """
    if "\\" not in text and "$" not in text and "_" not in text:
        return text
    text = _SUBSCRIPT.sub(lambda m: m.group(1) or m.group(2), text.replace("$", " "))
    unknown = False

    def command(match: re.Match[str]) -> str:
        nonlocal unknown
        found = _LATEX.get((match.group(1) or match.group(2)).casefold())
        if found is None:
            unknown = True
            return ""
        return found

    text = _COMMAND.sub(command, text)
    if unknown or "\\" in text:
        return None
    # an empty group only ends a command's name (``\\neg{}x``); any other groups
    return " ".join(text.replace("{}", " ").replace("{", "(").replace("}", ")").split())


def _folded(expr: Expr) -> Expr:
    """``expr`` with its names case-folded."""
    return renamed(expr, lambda name: name.casefold())


def renamed(expr: Expr, rename: Callable[[str], str]) -> Expr:
    """``expr`` with every variable name ``n`` replaced by ``rename(n)``.

    >>> renamed(read_formula_claim("~a | b", {"a": 1, "b": 2}, {}), str.upper).render()
    '(~A | B)'
    """
    if expr.op == "var":
        return Expr("var", name=rename(str(expr.name)))
    return Expr(expr.op, tuple(renamed(arg, rename) for arg in expr.args), expr.name)


def _assignments(text: str, entities: Mapping[str, int], values: Mapping[str, bool]) -> Expr | None:
    """``E = V, E = V, ...`` as the conjunction of its literals (``None`` if not that)."""
    parts = _SEPARATORS.split(text.strip())
    if len(parts) < 2 and "=" not in text:  # one "E: V" is the trace's own assignment form
        return None
    literals = []
    for part in parts:
        match = _ASSIGNMENT.match(part)
        if match is None:
            return None
        name, word = match.group("e").casefold(), casefolded(match.group("v"))
        value = _VALUES.get(word, values.get(word))
        if name not in entities or value is None:
            return None
        var = Expr("var", name=name)
        literals.append(var if value else Expr("not", (var,)))
    return literals[0] if len(literals) == 1 else Expr("and", tuple(literals))


def claim_clauses(
    expr: Expr, entities: Mapping[str, int]
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] | None:
    """The clauses (DIMACS ints) of the claim and of its negation, or ``None`` when the
    claim holds more variables than sympy simplifies (it is then not read)."""
    from twosat_formal.core.two_cnf import simplest_cnf

    def ints(clauses: tuple[tuple[str, ...], ...]) -> tuple[tuple[int, ...], ...]:
        return tuple(
            tuple(-entities[lit[1:]] if lit[0] == "~" else entities[lit] for lit in clause)
            for clause in clauses
        )

    try:
        return ints(simplest_cnf(expr)), ints(simplest_cnf(Expr("not", (expr,))))
    except ConfigError:
        return None
