"""Certificate checkers that share no code with the solvers.

They read only the formula's clauses (as plain Python lists) and the certificate:
a model is checked clause by clause; a contradiction cycle is checked step by step,
each step ``a -> b`` needing a clause ``(-a | b)`` (in either order; a unit clause
``(b)`` gives the step ``-b -> b``); an empty-clause certificate needs that clause to
be empty. Every failure raises :class:`~twosat_formal.errors.CertificateError` that
says what is wrong, naming literals as the DSL writes them.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"]])
>>> check_cycle(f, [1, 2, -1, -2])
>>> try:
...     check_cycle(f, [1, -1])
... except CertificateError as err:
...     print(err)
step 1 of the cycle, a -> ~a, is not an implication: no clause (~a | ~a)
>>> check_model(f, [True, True])
Traceback (most recent call last):
...
twosat_formal.errors.CertificateError: the model falsifies clause 4: (~a | ~b)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError

__all__ = ["check_certificate_json", "check_cycle", "check_model", "check_result"]


def _clause_text(formula: Formula, lits: Sequence[int]) -> str:
    return f"({formula.clause_text(lits)})"


def _is_bool(value: object) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def check_model(formula: Formula, model: Sequence[bool]) -> None:
    """Check that ``model`` (value of variable ``v`` at index ``v - 1``) satisfies every clause.

    Raises
    ------
    CertificateError
        If the model has the wrong length, holds a non-bool, or falsifies a clause
        (the first one is named, 1-based).

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> check_model(Formula([[1, -2]]), (False, False))
    >>> check_model(Formula([[1, -2]]), (False,))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.CertificateError: the model has 1 values for 2 variables
    """
    values = list(model)
    if len(values) != formula.num_vars:
        raise CertificateError(
            f"the model has {len(values)} values for {formula.num_vars} variables"
        )
    for var, value in enumerate(values, 1):
        if not _is_bool(value):
            raise CertificateError(f"the value of {formula.name(var)} is {value!r}, not a bool")
    # truth[v] for literal v, truth[-v] for -v (negative indices count from the end)
    truth = [False, *(bool(v) for v in values), *(not bool(v) for v in reversed(values))]
    lits = formula.literals.tolist()
    bounds = formula.offsets.tolist()
    for index, (lo, hi) in enumerate(pairwise(bounds)):
        for lit in lits[lo:hi]:
            if truth[lit]:
                break
        else:
            raise CertificateError(
                f"the model falsifies clause {index + 1}: {_clause_text(formula, lits[lo:hi])}"
            )


def check_cycle(formula: Formula, cycle: Sequence[int]) -> None:
    """Check a contradiction cycle: a closed walk through some ``x`` and ``-x``.

    Every step ``a -> b``, the last one back to the first literal included, must be
    an implication of a clause of width one or two: ``(-a | b)`` or ``(b | -a)``, or
    the unit clause ``(b)`` when ``a == -b``. Wider clauses give no implication, so a
    cycle also certifies a general CNF whose short clauses are UNSAT on their own.

    Raises
    ------
    CertificateError
        If the cycle is too short, names an unknown variable, misses every pair
        ``x``/``-x``, or has a step no clause implies.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> check_cycle(Formula([[1], [-1]]), (1, -1))
    >>> check_cycle(Formula([[1], [-1]]), (1, 1))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.CertificateError: the cycle does not contain a literal and its negation
    """
    walk = list(cycle)
    _check_walk(formula, walk)
    steps = [*pairwise(walk), (walk[-1], walk[0])]
    found = _short_clauses(formula, {_step_clause(a, b) for a, b in steps})
    for number, (a, b) in enumerate(steps, 1):
        if _step_clause(a, b) not in found:
            raise CertificateError(
                f"step {number} of the cycle, {formula.literal_name(a)} -> "
                f"{formula.literal_name(b)}, is not an implication: no clause "
                f"{_clause_text(formula, [-a, b])}"
            )


def _check_walk(formula: Formula, walk: list[int]) -> None:
    """The cycle's literals are literals of ``formula``, some ``x`` and ``-x`` among them."""
    if len(walk) < 2:
        raise CertificateError(f"a contradiction cycle needs at least 2 literals, got {len(walk)}")
    for lit in walk:
        if isinstance(lit, bool) or not isinstance(lit, int) or lit == 0:
            raise CertificateError(f"the cycle holds {lit!r}, not a non-zero literal")
        if abs(lit) > formula.num_vars:
            raise CertificateError(
                f"the cycle names variable {abs(lit)}; the formula has {formula.num_vars}"
            )
    present = set(walk)
    if not any(-lit in present for lit in present):
        raise CertificateError("the cycle does not contain a literal and its negation")


def _step_clause(a: int, b: int) -> tuple[int, int]:
    """The clause a step ``a -> b`` needs, as a sorted pair of literals."""
    return (min(-a, b), max(-a, b))


def _short_clauses(formula: Formula, wanted: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Those of ``wanted`` that are clauses of width two (or one, as ``(p, p)``)."""
    found: set[tuple[int, int]] = set()
    lits = formula.literals.tolist()
    for lo, hi in pairwise(formula.offsets.tolist()):
        if 1 <= hi - lo <= 2:
            p, q = lits[lo], lits[hi - 1]  # p == q for a unit clause
            key = (min(p, q), max(p, q))
            if key in wanted:
                found.add(key)
    return found


def _check_empty_clause(formula: Formula, index: object) -> None:
    if isinstance(index, bool) or not isinstance(index, int):
        raise CertificateError(f"the empty-clause index {index!r} is not an int")
    if not 0 <= index < formula.num_clauses:
        raise CertificateError(
            f"the empty-clause index {index} is not in 0..{formula.num_clauses - 1}"
        )
    bounds = formula.offsets
    if int(bounds[index + 1]) != int(bounds[index]):
        raise CertificateError(f"clause {index + 1} is not empty")


def check_result(formula: Formula, result: Any) -> None:
    """Check the certificate of a :class:`~twosat_formal.solve.result.SolveResult`.

    Raises
    ------
    CertificateError
        If the certificate is missing or wrong.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> from twosat_formal.solve.result import SolveResult
    >>> check_result(Formula([[1]]), SolveResult("SAT", model=(True,)))
    """
    if result.status == "SAT":
        if result.model is None:
            raise CertificateError("a SAT result without a model")
        check_model(formula, result.model)
    elif result.status == "UNSAT":
        if result.cycle is not None:
            check_cycle(formula, result.cycle)
        elif result.empty_clause is not None:
            _check_empty_clause(formula, result.empty_clause)
        else:
            raise CertificateError("an UNSAT result without a cycle or an empty clause")
    else:
        raise CertificateError(f"unknown status {result.status!r}")


def _literal_of(index: Mapping[str, int], text: object) -> int:
    if not isinstance(text, str) or not text:
        raise CertificateError(f"the cycle holds {text!r}, not a literal name")
    negative = text[0] in "~-!¬"
    name = text[1:] if negative else text
    if name not in index:
        raise CertificateError(f"the cycle names {name!r}, which is not a variable")
    return -index[name] if negative else index[name]


def check_certificate_json(formula: Formula, obj: Mapping[str, Any]) -> None:
    """Re-check a stored certificate: the object that ``SolveResult.to_json`` gives.

    A SAT object needs ``model`` with exactly one bool per variable name; an UNSAT
    object needs ``cycle`` (literal names such as ``"x3"``, ``"~x7"``) or
    ``empty_clause`` (a clause index).

    Raises
    ------
    CertificateError
        If the object is malformed or its certificate does not hold.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula.from_named([["a"], ["~a", "b"]])
    >>> check_certificate_json(f, {"status": "SAT", "model": {"a": True, "b": True}})
    >>> check_certificate_json(f, {"status": "SAT", "model": {"a": True}})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.CertificateError: the model has no value for b
    """
    if not isinstance(obj, Mapping):
        from twosat_formal.core.jsonread import (
            json_type_name,
        )  # imported on this error's path alone: solve does not need it

        raise CertificateError(f"a certificate is a JSON object, not {json_type_name(obj)}")
    status = obj.get("status")
    if status == "SAT":
        _check_model_json(formula, obj.get("model"))
    elif status == "UNSAT":
        _check_unsat_json(formula, obj)
    else:
        raise CertificateError(f"the certificate's status is {status!r}, not SAT or UNSAT")


def _check_model_json(formula: Formula, model: object) -> None:
    """Check a model object ``{name: bool}`` over exactly the formula's variables."""
    if not isinstance(model, Mapping):
        raise CertificateError("a SAT certificate needs a model object {name: bool}")
    names = formula.names
    missing = [n for n in names if n not in model]
    if missing:
        raise CertificateError(f"the model has no value for {missing[0]}")
    if len(model) != len(names):
        extra = sorted(set(model) - set(names))
        raise CertificateError(f"the model names {extra[0]!r}, which is not a variable")
    check_model(formula, [model[n] for n in names])


def _check_unsat_json(formula: Formula, obj: Mapping[str, Any]) -> None:
    """Check the cycle of literal names, or the empty-clause index, of an UNSAT object."""
    if "cycle" in obj:
        cycle = obj["cycle"]
        if not isinstance(cycle, list):
            raise CertificateError("the cycle is a list of literal names")
        index = {n: v for v, n in enumerate(formula.names, 1)}
        check_cycle(formula, [_literal_of(index, text) for text in cycle])
    elif "empty_clause" in obj:
        _check_empty_clause(formula, obj["empty_clause"])
    else:
        raise CertificateError("an UNSAT certificate needs a cycle or an empty_clause")
