"""Propositional expressions to 2-CNF clauses, with sympy, and the Z3 proof of each.

:func:`convert` turns an :class:`~twosat_formal.core.propositional.Expr` into clauses of named
literals with sympy's ``to_cnf(..., simplify=True)`` (a minimal product of prime
implicates). It keeps the result when every clause has at most two literals; a function
that some 2-CNF expresses has only such prime implicates, so a line is refused exactly
when no 2-CNF is equivalent to it. :func:`prove_equivalent` asks Z3 whether the
expression and its clauses differ under some assignment, reading the expression tree
itself, not sympy's: a conversion is kept only with that proof.

Clauses come in a fixed order that depends on the expression alone: the variables are
ranked by first appearance in it, a clause's literals by their variable's rank, and the
clauses by the ranks of their literals (positive before negative).

>>> from twosat_formal.core.propositional import parse_expression
>>> convert(parse_expression("~(rain & cold) & (a <-> b)"))
(('~rain', '~cold'), ('a', '~b'), ('~a', 'b'))
>>> convert(parse_expression("a | b | c"))
Traceback (most recent call last):
...
twosat_formal.errors.NotTwoCNFError: not 2-SAT: it needs the clause a | b | c of 3 literals
>>> prove_equivalent(parse_expression("a -> b"), [("~a", "b")])
'z3:equivalence'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from twosat_formal._util.per_process import PerProcess
from twosat_formal.core.propositional import Expr
from twosat_formal.errors import ConfigError, NotTwoCNFError, ProofError

__all__ = [
    "MAX_VARIABLES",
    "NamedClause",
    "convert",
    "direct_clauses",
    "from_sympy",
    "prove_equivalent",
    "simplest_cnf",
    "to_sympy",
]

#: The most distinct variables one converted expression may hold: sympy's bound for
#: simplifying a Boolean function (its truth table has ``2 ** 8`` rows).
MAX_VARIABLES = 8
#: A clause as named literals: ``"a"`` or ``"~a"``.
NamedClause = tuple[str, ...]
_SYMPY_OPS = {
    "And": "and",
    "Or": "or",
    "Not": "not",
    "Xor": "xor",
    "Implies": "implies",
    "Equivalent": "iff",
    "Nand": "nand",
    "Nor": "nor",
}


def to_sympy(expr: Expr) -> Any:
    """The sympy Boolean expression of ``expr`` (variables as ``Symbol(name)``).

    >>> from twosat_formal.core.propositional import parse_expression
    >>> to_sympy(parse_expression("a -> ~b"))
    Implies(a, ~b)
    """
    import sympy
    from sympy.logic import boolalg

    if expr.op == "var":
        return sympy.Symbol(str(expr.name))
    if expr.op == "false":
        return sympy.false
    args = [to_sympy(arg) for arg in expr.args]
    ops = {v: k for k, v in _SYMPY_OPS.items()}
    return getattr(boolalg, ops[expr.op])(*args)


def from_sympy(value: Any) -> Expr:
    """The :class:`Expr` of a sympy Boolean expression over symbols.

    Raises
    ------
    ConfigError
        For anything but ``Symbol``, ``true``, ``false`` and the Boolean operators.

    >>> import sympy
    >>> a, b = sympy.symbols("a b")
    >>> from_sympy(a & ~b).render()
    '(a & ~b)'
    """
    import sympy

    if value is sympy.true:
        return Expr("not", (Expr("false"),))
    if value is sympy.false:
        return Expr("false")
    if isinstance(value, sympy.Symbol):
        return Expr("var", name=value.name)
    op = _SYMPY_OPS.get(type(value).__name__)
    if op is None or not isinstance(value, sympy.logic.boolalg.BooleanFunction):
        raise ConfigError(
            f"not a propositional expression over symbols: {value!r}", parameter="expression"
        )
    return Expr(op, tuple(from_sympy(arg) for arg in value.args))


def convert(expr: Expr) -> tuple[NamedClause, ...]:
    """The clauses of a 2-CNF equivalent to ``expr`` (see the module documentation).

    An empty clause ``()`` stands for a false expression; no clause for a true one.

    Raises
    ------
    ConfigError
        When ``expr`` holds more than :data:`MAX_VARIABLES` distinct variables.
    NotTwoCNFError
        When no 2-CNF is equivalent to ``expr``; the message shows the shortest clause
        of three literals or more that its simplest CNF needs.
    """
    clauses = simplest_cnf(expr)
    wide = [c for c in clauses if len(c) > 2]
    if wide:
        smallest = min(wide, key=len)
        raise NotTwoCNFError(
            f"not 2-SAT: it needs the clause {' | '.join(smallest)} of {len(smallest)} literals"
        )
    return clauses


def simplest_cnf(expr: Expr) -> tuple[NamedClause, ...]:
    """The clauses of sympy's simplest CNF of ``expr``, of any width, in the fixed order.

    Raises
    ------
    ConfigError
        When ``expr`` holds more than :data:`MAX_VARIABLES` distinct variables.

    Examples
    --------
    >>> from twosat_formal.core.propositional import parse_expression
    >>> simplest_cnf(parse_expression("~(a -> (b | c))"))
    (('a',), ('~b',), ('~c',))
    """
    import sympy
    from sympy.logic.boolalg import to_cnf

    order = expr.variables()
    if len(order) > MAX_VARIABLES:
        raise ConfigError(
            f"a formula line holds at most {MAX_VARIABLES} variables, this one "
            f"{len(order)}: split it into lines",
            parameter="expression",
        )
    # sympy returns a CNF of literals as it is: a tautological clause is dropped below
    cnf = to_cnf(to_sympy(expr), simplify=True)
    if cnf is sympy.true:
        return ()
    if cnf is sympy.false:
        return ((),)
    return _ordered_clauses(cnf.args if isinstance(cnf, sympy.And) else (cnf,), order)


def _ordered_clauses(parts: Sequence[Any], order: Sequence[str]) -> tuple[NamedClause, ...]:
    """The clauses of sympy's CNF but the tautologies, each and all in the fixed order
    (the variables in ``order``, a positive literal before its negation)."""
    rank = {name: i for i, name in enumerate(order)}
    keyed = sorted(
        keys for keys in (_clause_keys(part, rank) for part in parts) if keys is not None
    )
    return tuple(tuple(("~" if sign else "") + order[var] for var, sign in keys) for keys in keyed)


def _clause_keys(part: Any, rank: dict[str, int]) -> list[tuple[int, int]] | None:
    """A clause of sympy's CNF as sorted ``(variable rank, negated)`` pairs; ``None`` for
    a tautology (a variable and its negation)."""
    import sympy

    lits = part.args if isinstance(part, sympy.Or) else (part,)
    keys = sorted(
        (rank[lit.args[0].name], 1) if isinstance(lit, sympy.Not) else (rank[lit.name], 0)
        for lit in lits
    )
    if any((var, 1 - sign) in keys for var, sign in keys):
        return None
    return keys


def _make_session() -> tuple[Any, Any]:
    import z3

    ctx = z3.Context()
    return ctx, z3.SolverFor("QF_FD", ctx=ctx)


#: One Z3 context and solver per process (made again in a forked child); each proof
#: runs between push and pop.
_session = PerProcess(_make_session)


def prove_equivalent(expr: Expr, clauses: Sequence[NamedClause]) -> str:
    """Prove with Z3 that ``expr`` and the conjunction of ``clauses`` are equivalent.

    Returns
    -------
    str
        The proof's name, ``"z3:equivalence"``.

    Raises
    ------
    ProofError
        With a counterexample when they differ, or when Z3 answers ``unknown``.
    """
    import z3

    ctx, solver = _session()
    names: dict[str, Any] = {}

    def var(name: str) -> Any:
        if name not in names:
            names[name] = z3.Bool(name, ctx)
        return names[name]

    def term(node: Expr) -> Any:
        if node.op == "var":
            return var(str(node.name))
        if node.op == "false":
            return z3.BoolVal(False, ctx)
        args = [term(arg) for arg in node.args]
        if node.op == "not":
            return z3.Not(args[0], ctx)
        if node.op in ("and", "nand"):
            both = z3.And(*args)
            return z3.Not(both, ctx) if node.op == "nand" else both
        if node.op in ("or", "nor"):
            either = z3.Or(*args)
            return z3.Not(either, ctx) if node.op == "nor" else either
        if node.op == "xor":
            parity = args[0]
            for arg in args[1:]:
                parity = z3.Xor(parity, arg, ctx)
            return parity
        if node.op == "implies":
            return z3.Implies(args[0], args[1], ctx)
        return args[0] == args[1]

    def literal(text: str) -> Any:
        return z3.Not(var(text[1:]), ctx) if text.startswith("~") else var(text)

    left = term(expr)
    right = z3.And(
        [z3.Or([literal(lit) for lit in clause] or [z3.BoolVal(False, ctx)]) for clause in clauses]
        or [z3.BoolVal(True, ctx)]
    )
    solver.push()
    try:
        solver.add(z3.Xor(left, right, ctx))
        answer = solver.check()
        if answer == z3.unsat:
            return "z3:equivalence"
        if answer != z3.sat:
            raise ProofError(f"Z3 answered unknown ({solver.reason_unknown()})")
        model = solver.model()
        counterexample = {name: bool(z3.is_true(model.eval(v, True))) for name, v in names.items()}
    finally:
        solver.pop()
    raise ProofError(
        "the clauses are not equivalent to the expression", counterexample=counterexample
    )


def direct_clauses(expr: Expr) -> tuple[NamedClause, ...] | None:
    """The clauses of an expression that is already a 2-CNF, as they stand (else ``None``).

    >>> from twosat_formal.core.propositional import parse_expression
    >>> direct_clauses(parse_expression("(b | ~a) & c")), direct_clauses(parse_expression("a -> b"))
    ((('b', '~a'), ('c',)), None)
    """

    def literal(node: Expr) -> str | None:
        if node.op == "var":
            return str(node.name)
        if node.op == "not" and node.args[0].op == "var":
            return "~" + str(node.args[0].name)
        return None

    def clause(node: Expr) -> NamedClause | None:
        if node.op == "false":
            return ()
        parts = node.args if node.op == "or" else (node,)
        lits = [literal(part) for part in parts]
        if len(lits) > 2 or None in lits:
            return None
        return tuple(str(lit) for lit in lits)

    if expr.op == "not" and expr.args[0].op == "false":  # sympy's true
        return ()
    found = [clause(part) for part in (expr.args if expr.op == "and" else (expr,))]
    if any(c is None for c in found):
        return None
    return tuple(c for c in found if c is not None)
