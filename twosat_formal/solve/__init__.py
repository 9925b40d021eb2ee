"""Certified 2-SAT: labels with models and contradiction cycles, and their checkers.

:func:`solve` decides a formula with one backend (``scc``, ``pysat``, ``z3``; see
:data:`BACKENDS`) and, by default, checks its certificate with vectorised numpy code
before returning it (``checked=True``). The default ``scc`` backend handles 2-CNF;
a formula with an empty clause or a clause wider than two goes to PySAT instead and
the result says so (``general_cnf=True``). :func:`decide` gives a backend's label alone,
without a certificate. :func:`solve_agreed` runs several backends
and raises :class:`~twosat_formal.errors.SolverDisagreementError` unless they agree.
:func:`check_model`, :func:`check_cycle` and :func:`check_certificate_json` are the
independent checkers (:mod:`twosat_formal.solve.check`), sharing no code with the
solvers.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"]])
>>> result = solve(f)
>>> result.status, result.checked
('UNSAT', True)
>>> result.to_json(f)
{'status': 'UNSAT', 'cycle': ['a', 'b', '~a', 'b'], 'backend': 'scc', 'checked': True}
>>> check_certificate_json(f, result.to_json(f))
>>> solve(Formula([[1, 2, 3]])).backend, solve(Formula([[1, 2, 3]])).general_cnf
('pysat', True)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError, ConfigError, SolverDisagreementError, raises
from twosat_formal.solve.backends import BACKENDS, Backend, decide
from twosat_formal.solve.check import (
    check_certificate_json,
    check_cycle,
    check_model,
    check_result,
)
from twosat_formal.solve.result import SolveResult, certificate_array

__all__ = [
    "BACKENDS",
    "Backend",
    "SolveResult",
    "check_certificate_json",
    "check_cycle",
    "check_model",
    "check_result",
    "decide",
    "solve",
    "solve_agreed",
    "verify",
]


def solve(formula: Formula, backend: str = "scc", *, check: bool = True) -> SolveResult:
    """Decide ``formula`` and return its label with a certificate.

    Parameters
    ----------
    formula:
        Any CNF. The ``scc`` backend handles 2-CNF; other formulas given to it go to
        PySAT (the result has ``backend="pysat"`` and ``general_cnf=True``).
    backend:
        A name in :data:`BACKENDS`: ``"scc"``, ``"pysat"`` or ``"z3"``.
    check:
        Verify the certificate before returning (``checked=True``). An UNSAT general
        CNF whose clauses of width one and two are satisfiable has no certificate and
        stays ``checked=False``.

    Raises
    ------
    UnknownNameError
        For an unknown backend.
    ConfigError
        A formula of more variables than :data:`~twosat_formal.core.formula.MAX_SIZE`.
    CertificateError
        If the backend's certificate does not hold (a solver bug).

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> solve(Formula([[1, -2], [2]]), "z3").model
    (True, True)
    >>> solve(Formula([[1], []])).empty_clause
    1
    """
    run = BACKENDS.get(backend)
    formula.require_size("solve")
    if backend == "scc" and not formula.is_2cnf:
        run = BACKENDS.get("pysat")
    result = run(formula)
    if check:
        result = verify(formula, result)
    return result


@raises(ConfigError, SolverDisagreementError)
def solve_agreed(formula: Formula, backends: Sequence[str] = ("scc", "pysat", "z3")) -> SolveResult:
    """Solve with every backend in ``backends``; return the first one's checked result.

    Each certificate is checked by :func:`solve`; the returned one is also checked
    by the independent checker (:func:`check_result`). No backends is a
    :class:`ConfigError`.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> solve_agreed(Formula([[1, 2], [-1, 2]])).status
    'SAT'
    """
    if not backends:
        raise ConfigError("solve_agreed needs at least one backend", parameter="backends")
    results = [solve(formula, name, check=True) for name in backends]
    labels = {name: r.status for name, r in zip(backends, results, strict=True)}
    if len(set(labels.values())) > 1:
        said = ", ".join(f"{name} {status}" for name, status in labels.items())
        raise SolverDisagreementError(f"the solver backends disagree: {said}")
    first = results[0]
    if first.has_certificate:
        check_result(formula, first)
    return first


@raises(CertificateError)
def verify(formula: Formula, result: SolveResult) -> SolveResult:
    """Check ``result``'s certificate with vectorised numpy code; mark it checked.

    An UNSAT result without a certificate (a general CNF) is returned unchanged.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> verify(Formula([[1]]), SolveResult("SAT", model=(True,))).checked
    True
    >>> verify(Formula([[1]]), SolveResult("SAT", model=(False,)))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.CertificateError: the scc backend's model falsifies clause 1
    """
    who = f"the {result.backend} backend's"
    if result.status == "SAT":
        if result.model is None:
            raise CertificateError(f"{who} SAT answer has no model")
        _verify_model(formula, certificate_array(result.model, np.bool_), who)
    elif result.cycle is not None:
        _verify_cycle(formula, certificate_array(result.cycle, np.int64), who)
    elif result.empty_clause is not None:
        index = result.empty_clause
        if not (0 <= index < formula.num_clauses and formula.widths[index] == 0):
            raise CertificateError(f"{who} empty clause {index} is not an empty clause")
    else:
        return result
    return dataclasses.replace(result, checked=True)


def _verify_model(formula: Formula, model: np.ndarray, who: str) -> None:
    """Raise :class:`CertificateError` naming the first clause that ``model`` falsifies."""
    if model.shape != (formula.num_vars,):
        raise CertificateError(
            f"{who} model has {model.size} values for {formula.num_vars} variables"
        )
    lits = formula.literals
    true = model[np.abs(lits) - 1] == (lits > 0)
    m = formula.num_clauses
    if lits.size == 2 * m and formula.is_2cnf:
        pairs = true.reshape(-1, 2)
        satisfied = pairs[:, 0] | pairs[:, 1]
    else:
        satisfied = np.bincount(formula.clause_of_literal, weights=true, minlength=m) > 0
    if not satisfied.all():
        bad = int(np.flatnonzero(~satisfied)[0])
        raise CertificateError(f"{who} model falsifies clause {bad + 1}")


def _verify_cycle(formula: Formula, cycle: np.ndarray, who: str) -> None:
    """Raise :class:`CertificateError` unless ``cycle`` is a contradiction cycle.

    It must be a walk of at least two literals of the formula, hold a literal and its
    negation, and each step ``a -> b`` must be the implication of a clause ``(~a | b)``
    of one or two literals (a unit clause ``(b)`` is ``(b | b)``); the first failing
    check is named, and the first failing step.
    """
    n = formula.num_vars
    variables = np.abs(cycle)
    if cycle.ndim != 1 or cycle.size < 2 or variables.min() < 1 or variables.max() > n:
        raise CertificateError(f"{who} cycle is not a walk of at least 2 literals")
    seen = np.zeros(2 * n + 1, dtype=np.bool_)  # seen[n + lit]: lit is on the walk
    seen[cycle + n] = True
    if not seen[n - cycle].any():
        raise CertificateError(f"{who} cycle has no literal together with its negation")
    widths, lits, offsets = formula.widths, formula.literals, formula.offsets
    short = (widths >= 1) & (widths <= 2)
    first, second = lits[offsets[:-1][short]], lits[offsets[1:][short] - 1]
    if 4 * cycle.size < first.size:
        # A step's clause is over the walk's literals and their negations: the other
        # clauses are left out before their keys are looked up (a short cycle in a
        # large formula: two look-ups a clause instead of a binary search).
        near = seen | seen[::-1]
        keep = near[first + n] & near[second + n]
        first, second = first[keep], second[keep]
    base = 2 * n + 1  # one int per unordered pair of literals in -n..n
    have = _pair_key(first, second, base)
    steps_to = np.concatenate((cycle[1:], cycle[:1]))
    step = _first_missing(_pair_key(-cycle, steps_to, base), have)
    if step >= 0:
        raise CertificateError(
            f"{who} cycle step {step + 1} ({int(cycle[step])} -> "
            f"{int(steps_to[step])}) is not an implication of any clause"
        )


def _pair_key(p: np.ndarray, q: np.ndarray, base: int) -> np.ndarray:
    """One int per unordered pair of literals (``base`` is above the spread of ``q``)."""
    return np.minimum(p, q) * base + np.maximum(p, q)


def _first_missing(needed: np.ndarray, have: np.ndarray) -> int:
    """The first place of ``needed`` holding a key not in ``have``, or -1."""
    wanted = np.sort(needed)
    if 4 * needed.size < have.size:  # a short walk: look each clause up among its keys
        # (a key needed twice is found at its first place in the sorted keys, both times)
        where = np.minimum(np.searchsorted(wanted, have), wanted.size - 1)
        found = np.zeros(wanted.size, dtype=np.bool_)
        found[where[wanted[where] == have]] = True
        ok = found[np.searchsorted(wanted, needed)]
    elif have.size == 0:
        return 0
    else:  # a long walk: look each step up among the clauses' keys, in sorted order
        have.sort()  # the caller's keys, made for this lookup alone
        # Sorted needles keep the binary searches in cache (a shuffled ring's million
        # steps: 0.04 against 0.45 s); the steps' own order only names a failing one.
        where = np.minimum(np.searchsorted(have, wanted), have.size - 1)
        if (have[where] == wanted).all():
            return -1
        ok = have[np.minimum(np.searchsorted(have, needed), have.size - 1)] == needed
    return -1 if ok.all() else int(np.flatnonzero(~ok)[0])
