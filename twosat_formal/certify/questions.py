"""The reference answers re-derived for ``certify``, on a path apart from
:mod:`twosat_formal.solve.questions.reference`.

Every answer here comes from PySAT's CDCL solver (Glucose 4), never from the
project's implication-graph code:

* ``forced``: one model, then one solver call per variable with the opposite of its
  value assumed; the variable is forced exactly when that call is unsatisfiable;
* ``entails``: one solver call with ``A`` and ``¬B`` assumed; Yes exactly when it is
  unsatisfiable. A Yes reference's chain is checked step by step, each step against
  the clause that gives it (:func:`~twosat_formal.evaluate.diagnostics.chains.check_chain`).

The ``core`` reference is written by PySAT's OptUx, so its re-derivation takes the
project's own SCC solver instead: the stored core must be unsatisfiable and lose that
with any one rule removed (:func:`core_verdict`), and its size must be the minimum that
an implicit-hitting-set search of its own finds (:func:`own_minimum_core_size`: minimum
hitting sets of the correction sets found so far, by RC2, each checked by the SCC
solver and grown to a maximal satisfiable set when it is satisfiable).

The ``repair`` and ``maxsat`` references are written by PySAT's RC2 (core-guided, with
totalizers); ``certify`` re-derives the optimum with the Fu–Malik algorithm
(:func:`fu_malik_cost`, PySAT's ``FM``), and checks a ``repair`` set with the SCC
solver: the other rules satisfiable, and unsatisfiable again with any one of the set
put back (:func:`repair_verdict`).

:func:`recheck_reference` returns the reference as it should be; ``certify`` compares
it with the stored one, so a tampered reference fails.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula([[1], [-1, 2], [3, 4]])
>>> solver_forced(f)
[1, 2]
>>> solver_entails(f, -3, 4), solver_entails(f, 3, 4)
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pysat.solvers import Solver

from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError, RecordError
from twosat_formal.solve.questions import rule_numbers

__all__ = [
    "core_verdict",
    "fu_malik_cost",
    "own_minimum_core_size",
    "recheck_reference",
    "repair_verdict",
    "solver_entails",
    "solver_forced",
]

_SOLVER = "glucose4"


def _clauses(formula: Formula) -> list[list[int]]:
    return [[int(lit) for lit in clause] for clause in formula.clauses]


def solver_forced(formula: Formula) -> list[int]:
    """The literals true in every model, by variable: one PySAT call per variable.

    Raises
    ------
    CertificateError
        The formula is unsatisfiable (it has no forced values to ask for).
    """
    with Solver(name=_SOLVER, bootstrap_with=_clauses(formula)) as solver:
        if not solver.solve():
            raise CertificateError("the formula is unsatisfiable: no forced values to ask")
        model = {abs(lit): lit for lit in solver.get_model() or []}
        occurring = sorted({abs(int(lit)) for clause in formula.clauses for lit in clause})
        return [model[v] for v in occurring if not solver.solve(assumptions=[-model[v]])]


def solver_entails(formula: Formula, a: int, b: int) -> bool:
    """Whether ``formula ∧ a ∧ ¬b`` is unsatisfiable, by one PySAT call."""
    with Solver(name=_SOLVER, bootstrap_with=_clauses(formula)) as solver:
        return not solver.solve(assumptions=[a, -b])


def _own_sat(formula: Formula, indices: Sequence[int]) -> bool:
    """Whether the clauses at ``indices`` are satisfiable, by the project's SCC solver."""
    from twosat_formal.solve import solve

    return solve(formula.select(list(indices)), check=False).status == "SAT"


def core_verdict(formula: Formula, indices: Sequence[int]) -> str | None:
    """Why the clauses at ``indices`` (0-based) are not a minimal unsatisfiable set, or
    ``None`` when they are (the SCC solver: one call, then one per rule left out).

    >>> f = Formula([[1], [-1], [2], [1, 2]])
    >>> core_verdict(f, [0, 1]), core_verdict(f, [0, 1, 2]), core_verdict(f, [0])
    (None, 'not minimal: it stays unsatisfiable without rule 3', 'satisfiable')
    """
    if _own_sat(formula, indices):
        return "satisfiable"
    for i in indices:
        if not _own_sat(formula, [j for j in indices if j != i]):
            return f"not minimal: it stays unsatisfiable without rule {i + 1}"
    return None


def own_minimum_core_size(formula: Formula) -> int:
    """The size of a smallest unsatisfiable set of clauses: implicit hitting sets.

    Each round takes a minimum hitting set of the correction sets found so far (RC2
    over one selector per clause); an unsatisfiable one is a smallest core (any core
    hits every correction set); a satisfiable one is grown, clause by clause, to a
    maximal satisfiable set, whose complement is a new correction set. Satisfiability
    is the SCC solver's.

    >>> own_minimum_core_size(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3], [-3]]))
    2
    """
    m = formula.num_clauses
    if _own_sat(formula, range(m)):
        raise CertificateError("the formula is satisfiable: no unsatisfiable core to ask for")
    corrections: list[list[int]] = []
    while True:
        hitting = _minimum_hitting_set(corrections, m)
        if not _own_sat(formula, hitting):
            return len(hitting)
        corrections.append(_correction_set(formula, hitting))


def _minimum_hitting_set(corrections: Sequence[Sequence[int]], m: int) -> list[int]:
    """A smallest set of clause indices ``0..m-1`` that hits every correction set (RC2)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    wcnf = WCNF()
    for correction in corrections:
        wcnf.append([i + 1 for i in correction])
    for i in range(m):
        wcnf.append([-(i + 1)], weight=1)
    with RC2(wcnf) as rc2:
        model = rc2.compute() or []
    return [lit - 1 for lit in model if 0 < lit <= m]


def _correction_set(formula: Formula, satisfiable: Sequence[int]) -> list[int]:
    """The complement of a maximal satisfiable set grown from the ``satisfiable`` clause
    indices, clause by clause in index order."""
    m = formula.num_clauses
    kept = set(satisfiable)
    for i in range(m):
        if i not in kept and _own_sat(formula, sorted(kept | {i})):
            kept.add(i)
    return [i for i in range(m) if i not in kept]


def fu_malik_cost(formula: Formula) -> int:
    """The fewest clauses an assignment must falsify, by the Fu–Malik algorithm.

    >>> fu_malik_cost(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3], [-3]]))
    2
    """
    from pysat.examples.fm import FM
    from pysat.formula import WCNF

    wcnf = WCNF()
    for clause in _clauses(formula):
        wcnf.append(clause, weight=1)
    fm = FM(wcnf, verbose=0)
    try:
        fm.compute()
        return int(fm.cost)
    finally:
        fm.delete()


def repair_verdict(formula: Formula, indices: Sequence[int]) -> str | None:
    """Why dropping the clauses at ``indices`` (0-based) is not a minimal repair, or
    ``None`` when it is (the SCC solver).

    >>> f = Formula([[1], [-1], [2]])
    >>> repair_verdict(f, [0]), repair_verdict(f, [2]), repair_verdict(f, [0, 2])
    (None, 'the other rules still cannot all hold', 'not minimal: rule 3 can be kept')
    """
    dropped = set(indices)
    rest = [i for i in range(formula.num_clauses) if i not in dropped]
    if not _own_sat(formula, rest):
        return "the other rules still cannot all hold"
    for i in sorted(dropped):
        if _own_sat(formula, sorted([*rest, i])):
            return f"not minimal: rule {i + 1} can be kept"
    return None


def _rule_numbers(reference: Any, key: str, m: int) -> list[int]:
    if not isinstance(reference, Mapping):
        raise RecordError("field 'reference' must be an object")
    numbers = reference.get(key)
    if not rule_numbers(numbers, m):
        raise RecordError(f"field 'reference.{key}' must list distinct rule numbers 1..{m}")
    return numbers


def _literal(obj: Any, entities: Mapping[str, int], values: tuple[str, str], what: str) -> int:
    """The literal of a one-pair ``{entity: value}`` object of the stored reference."""
    if not (isinstance(obj, Mapping) and len(obj) == 1):
        raise RecordError(f"field 'reference.{what}' must be one {{entity: value}} pair")
    ((entity, value),) = obj.items()
    if entity not in entities or value not in values:
        raise RecordError(f"field 'reference.{what}' names no entity value of the prompt")
    return entities[entity] if value == values[0] else -entities[entity]


def _word(lit: int, entity_names: Sequence[str], values: tuple[str, str]) -> dict[str, str]:
    """The one-pair ``{entity: value}`` object of literal ``lit``."""
    return {entity_names[abs(lit) - 1]: values[0] if lit > 0 else values[1]}


def _recheck_forced(
    formula: Formula, reference: Any, entity_names: Sequence[str], values: tuple[str, str]
) -> dict[str, Any]:
    """The ``forced`` reference: every forced entity with its value (the SCC solver)."""
    forced: dict[str, str] = {}
    for lit in solver_forced(formula):
        forced.update(_word(lit, entity_names, values))
    return {"forced": forced}


@dataclass(frozen=True)
class _RuleSet:
    """The re-derivation of a ``core`` or ``repair`` reference (its ``kind``): the
    stored rules, checked minimal by ``verdict`` and as few as ``optimum``; ``wrong_size``
    words the error of another size (the size given, then the optimum)."""

    kind: str
    verdict: Callable[[Formula, Sequence[int]], str | None]
    optimum: Callable[[Formula], int]
    wrong_size: str

    def __call__(
        self, formula: Formula, reference: Any, entity_names: Sequence[str], values: Any
    ) -> dict[str, Any]:
        numbers = _rule_numbers(reference, self.kind, formula.num_clauses)
        why = self.verdict(formula, [n - 1 for n in numbers])
        if why is not None:
            raise CertificateError(f"the reference {self.kind} is not a minimal {self.kind}: {why}")
        optimum = self.optimum(formula)
        if len(numbers) != optimum:
            raise CertificateError(self.wrong_size.format(len(numbers), optimum))
        return {self.kind: numbers, "size": optimum}


def _recheck_maxsat(
    formula: Formula, reference: Any, entity_names: Sequence[str], values: tuple[str, str]
) -> dict[str, Any]:
    """The ``maxsat`` reference: the most rules an assignment satisfies (Fu–Malik)."""
    m = formula.num_clauses
    return {"satisfied": m - fu_malik_cost(formula), "rules": m}


def _recheck_entails(
    formula: Formula, reference: Any, entity_names: Sequence[str], values: tuple[str, str]
) -> dict[str, Any]:
    """The ``entails`` reference: the stored question, its answer and a Yes's chain."""
    from twosat_formal.evaluate.diagnostics.chains import check_chain

    if not isinstance(reference, Mapping):
        raise RecordError("field 'reference' must be an object")
    numbers = {name: v for v, name in enumerate(entity_names, 1)}
    a = _literal(reference.get("if"), numbers, values, "if")
    b = _literal(reference.get("then"), numbers, values, "then")
    out: dict[str, Any] = {
        "if": _word(a, entity_names, values),
        "then": _word(b, entity_names, values),
    }
    yes = solver_entails(formula, a, b)
    out["answer"] = "Yes" if yes else "No"
    if yes:
        chain = reference.get("chain")
        verdict = check_chain(chain, numbers, dict.fromkeys(numbers, values), formula, ends=(a, b))
        if not verdict.valid:
            raise CertificateError(f"the reference chain is not a chain of rules: {verdict.reason}")
        out["chain"] = chain
    return out


_RECHECKS: dict[str, Callable[[Formula, Any, Sequence[str], tuple[str, str]], dict[str, Any]]] = {
    "forced": _recheck_forced,
    "repair": _RuleSet(
        "repair",
        repair_verdict,
        fu_malik_cost,
        "the reference repair drops {} rules; the fewest is {}",
    ),
    "maxsat": _recheck_maxsat,
    "core": _RuleSet(
        "core",
        core_verdict,
        own_minimum_core_size,
        "the reference core has {} rules; the smallest has {}",
    ),
    "entails": _recheck_entails,
}
"""How the reference answer of each question type but the decision is derived again,
keyed by :data:`~twosat_formal.solve.questions.ASKED`."""


def recheck_reference(
    kind: str,
    formula: Formula,
    reference: Any,
    entity_names: Sequence[str],
    true_value: str,
    false_value: str,
) -> dict[str, Any]:
    """The reference answer of a ``kind`` prompt, derived again by PySAT.

    Parameters
    ----------
    kind:
        ``forced``, ``entails``, ``core``, ``repair`` or ``maxsat``.
    formula:
        The instance's formula.
    reference:
        The stored reference: an ``entails`` question is read from its ``if`` and
        ``then`` (the prompt's text, re-rendered and compared apart, asks the same);
        its chain is kept when it checks.
    entity_names:
        The entity of each variable (variable ``v`` at index ``v - 1``).
    true_value, false_value:
        The prompt's value words.

    Raises
    ------
    RecordError
        The stored reference is not an object of the expected shape.
    CertificateError
        A Yes reference whose chain does not lead from ``if`` to ``then`` step by step.
    """
    recheck = _RECHECKS.get(kind)
    if recheck is None:
        raise RecordError(f"question type {kind!r} has no reference answer")
    return recheck(formula, reference, entity_names, (true_value, false_value))
