"""Solver backends behind one interface: ``backend(formula) -> SolveResult``.

* ``scc``: the own linear-time 2-SAT solver, strong components of the implication
  graph in compiled code (:mod:`twosat_formal.solve.scc`); it refuses clauses of
  width 0 or above 2 with :class:`~twosat_formal.errors.NotTwoCNFError`.
* ``pysat``: CaDiCaL 1.9.5 through python-sat; solves any CNF.
* ``z3``: Z3 (``SolverFor("QF_BV")``, which decides a pure Boolean CNF faster than
  its finite-domain ``QF_FD`` solver); solves any CNF. Each formula is solved in a
  context of its own, so the model is the same whatever the process solved before.

:func:`decide` gives only the label (``"SAT"`` or ``"UNSAT"``), for callers that
compare labels (``certify``'s agreement checks): PySAT's and Z3's answer without the
contradiction cycle that :func:`solve_pysat` and :func:`solve_z3` read off the graph,
and Z3 reusing one solver per process (``push``/``pop``; the label, unlike the model,
does not depend on what that solver decided before). Its ``pysat`` label is MiniSat
2.2's (:data:`DECIDE_PYSAT_SOLVER`): a complete solver's label is the formula's, and
MiniSat starts in about a third of CaDiCaL's time on a formula of a few dozen clauses.

The external solvers give a model for SAT. For UNSAT they give no certificate, so the
contradiction cycle is read off the implication graph of the clauses of width one
and two; a 2-CNF that a backend calls UNSAT without such a cycle is a disagreement
(:class:`~twosat_formal.errors.SolverDisagreementError`). A formula with an empty
clause is UNSAT, certified by the index of that clause. Every result says whether the
formula was a general (non-2) CNF. Results come back unchecked; the caller
(:func:`twosat_formal.solve.solve`) checks them.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> BACKENDS.names()
['scc', 'pysat', 'z3']
>>> f = Formula([[1, 2], [-1], [-2]])
>>> [BACKENDS.get(name)(f).status for name in BACKENDS]
['UNSAT', 'UNSAT', 'UNSAT']
>>> BACKENDS.get("pysat")(Formula([[1, 2, 3], [-1]])).general_cnf
True
>>> [decide(f, name) for name in BACKENDS]
['UNSAT', 'UNSAT', 'UNSAT']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np

from twosat_formal._util.per_process import Z3_USES, PerProcess
from twosat_formal._util.registry import Registry
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ProofError, SolverDisagreementError
from twosat_formal.solve.result import SolveResult
from twosat_formal.solve.scc import solve_scc

__all__ = [
    "BACKENDS",
    "DECIDE_PYSAT_SOLVER",
    "PYSAT_SOLVER",
    "Backend",
    "decide",
    "solve_pysat",
    "solve_scc",
    "solve_z3",
]

#: A backend decides a formula and returns an unchecked result.
Backend = Callable[[Formula], SolveResult]

#: The registry of solver backends, by name.
BACKENDS: Registry[Backend] = Registry("solver backend")

#: The python-sat solver name of CaDiCaL 1.9.5.
PYSAT_SOLVER = "cadical195"

#: The python-sat solver :func:`decide` asks for the ``pysat`` label: MiniSat 2.2.
DECIDE_PYSAT_SOLVER = "minisat22"


BACKENDS.register("scc")(solve_scc)


def _clause_lists(formula: Formula) -> list[list[int]]:
    lits = formula.literals.tolist()
    return [lits[lo:hi] for lo, hi in pairwise(formula.offsets.tolist())]


def _empty_clause(formula: Formula) -> int | None:
    """The index of the first empty clause, if any (a 2-CNF has none: the cached
    :attr:`~twosat_formal.core.formula.Formula.is_2cnf` answers without another array pass)."""
    if formula.is_2cnf:
        return None
    empty = np.flatnonzero(formula.widths == 0)
    return int(empty[0]) if empty.size else None


def _unsat_result(formula: Formula, backend: str) -> SolveResult:
    """An UNSAT result with the best certificate the clauses allow."""
    general = not formula.is_2cnf
    empty = _empty_clause(formula)
    if empty is not None:
        return SolveResult("UNSAT", backend=backend, general_cnf=True, empty_clause=empty)
    short = formula if not general else formula.select(np.flatnonzero(formula.widths <= 2))
    own = solve_scc(short)
    if own.cycle is not None:
        return SolveResult("UNSAT", cycle=own.cycle, backend=backend, general_cnf=general)
    if not general:
        raise SolverDisagreementError(
            f"the {backend} backend finds this 2-CNF UNSAT, but no variable shares a "
            "strong component with its negation"
        )
    return SolveResult("UNSAT", backend=backend, general_cnf=True)


def _model_from_literals(num_vars: int, literals: list[int]) -> tuple[bool, ...]:
    values = np.zeros(num_vars, dtype=np.bool_)
    arr = np.asarray(literals, dtype=np.int64)
    positive = arr[(arr > 0) & (arr <= num_vars)]
    values[positive - 1] = True
    return tuple(values.tolist())


@BACKENDS.register("pysat")
def solve_pysat(formula: Formula) -> SolveResult:
    """Decide any CNF with CaDiCaL 1.9.5 (python-sat).

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> solve_pysat(Formula([[1, 2, 3], [-1], [-2]])).model
    (False, False, True)
    """
    if _empty_clause(formula) is not None:
        return _unsat_result(formula, "pysat")
    satisfiable, model = _run_pysat(formula, want_model=True)
    if not satisfiable:
        return _unsat_result(formula, "pysat")
    return SolveResult(
        "SAT",
        model=_model_from_literals(formula.num_vars, model or []),
        backend="pysat",
        general_cnf=not formula.is_2cnf,
    )


@BACKENDS.register("z3")
def solve_z3(formula: Formula) -> SolveResult:
    """Decide any CNF with Z3 (``SolverFor("QF_BV")``, quantifier-free).

    The formula is solved in a new context, so its model does not depend on what the
    process solved before (a reused solver keeps what it learnt and can find another
    model); :func:`decide` reuses one solver where only the label is wanted.

    Raises
    ------
    ProofError
        If Z3 answers ``unknown``.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> solve_z3(Formula([[1, -2], [2]])).model
    (True, True)
    """
    import z3

    if _empty_clause(formula) is not None:
        return _unsat_result(formula, "z3")
    solver = z3.SolverFor("QF_BV", ctx=z3.Context())
    answer = _run_z3(solver, formula)
    if answer == "UNSAT":
        return _unsat_result(formula, "z3")
    values = np.zeros(formula.num_vars, dtype=np.bool_)
    for match in re.finditer(_Z3_TRUE, solver.model().sexpr()):
        var = int(match.group(1))
        if 1 <= var <= formula.num_vars:
            values[var - 1] = True
    return SolveResult(
        "SAT", model=tuple(values.tolist()), backend="z3", general_cnf=not formula.is_2cnf
    )


def decide(formula: Formula, backend: str = "scc") -> str:
    """The label of ``formula`` by ``backend``, ``"SAT"`` or ``"UNSAT"``, without a certificate.

    The same label as :func:`twosat_formal.solve.solve`'s (a property test compares
    them; like it, ``scc`` hands a formula that is not a 2-CNF to PySAT), in less
    time: PySAT and Z3 do not look for a contradiction cycle, PySAT's label is
    MiniSat 2.2's (:data:`DECIDE_PYSAT_SOLVER`, quicker to start than CaDiCaL), and Z3
    decides between ``push`` and ``pop`` on one solver per process. The ``scc``
    backend gives its full result's status; a formula with an empty clause is UNSAT.

    Raises
    ------
    UnknownNameError
        For an unknown backend.
    ProofError
        If Z3 answers ``unknown``.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> decide(Formula([[1, 2], [-1], [-2]]), "z3"), decide(Formula([[1, 2, 3]]), "pysat")
    ('UNSAT', 'SAT')
    """
    run = BACKENDS.get(backend)
    if backend == "scc" and not formula.is_2cnf:
        backend = "pysat"
    elif backend not in ("pysat", "z3"):
        return run(formula).status
    if _empty_clause(formula) is not None:
        return "UNSAT"
    if backend == "pysat":
        satisfiable = _run_pysat(formula, want_model=False, name=DECIDE_PYSAT_SOLVER)[0]
        return "SAT" if satisfiable else "UNSAT"
    solver = _z3_solver()
    solver.push()
    try:
        return _run_z3(solver, formula)
    finally:
        solver.pop()


def _run_pysat(
    formula: Formula, *, want_model: bool, name: str = PYSAT_SOLVER
) -> tuple[bool, list[int] | None]:
    """The answer of the python-sat solver ``name`` (CaDiCaL unless named) on
    ``formula``, and its model when asked and satisfiable."""
    from pysat.solvers import Solver

    with Solver(name=name, bootstrap_with=_clause_lists(formula)) as solver:
        satisfiable = bool(solver.solve())
        model = solver.get_model() if satisfiable and want_model else None
    return satisfiable, model


def _run_z3(solver: Any, formula: Formula) -> str:
    """Assert ``formula`` in ``solver`` and check it: ``"SAT"`` or ``"UNSAT"``.

    Raises
    ------
    ProofError
        If Z3 answers ``unknown``.
    """
    import z3

    if formula.num_clauses:
        solver.from_string(_dimacs(formula))
    answer = solver.check()
    if answer == z3.unsat:
        return "UNSAT"
    if answer != z3.sat:
        raise ProofError(f"z3 answered {answer}: {solver.reason_unknown()}")
    return "SAT"


#: A true variable in Z3's text of a model of a DIMACS problem (variable ``v`` is ``k!v``);
#: compiled (and cached by :mod:`re`) on first use, not when a solve without Z3 starts.
_Z3_TRUE = r"\(define-fun k!(\d+) \(\) Bool\s+true\)"


def _new_z3_solver() -> Any:
    """A Z3 ``QF_BV`` solver in a context of its own, for :func:`decide`.

    One serves a process's calls (:data:`_z3_solver`, made again every
    :data:`~twosat_formal._util.per_process.Z3_USES` calls): each formula is decided
    between ``push`` and ``pop``, so one leaves no assertion behind for the next, and
    no new solver is made per formula (about 5 ms less a call). What the solver learnt
    before can change the model it finds, never the label, so :func:`solve_z3` does
    not use it.
    """
    import z3

    return z3.SolverFor("QF_BV", ctx=z3.Context())


#: This process's solver for :func:`decide` (a fresh one in a forked child).
_z3_solver: PerProcess[Any] = PerProcess(_new_z3_solver, uses=Z3_USES)


def _dimacs(formula: Formula) -> str:
    """The formula as DIMACS text (Z3's reader names variable ``v`` ``k!v``)."""
    lines = [f"p cnf {formula.num_vars} {formula.num_clauses}"]
    if formula.is_2cnf and len(formula.literals) == 2 * formula.num_clauses:  # pairs only
        pairs = iter(formula.literals.tolist())
        lines.extend(map("{} {} 0".format, pairs, pairs))
    else:
        lines.extend(" ".join([*map(str, c), "0"]) for c in _clause_lists(formula))
    return "\n".join(lines) + "\n"
