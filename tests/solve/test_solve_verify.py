"""The solver's own certificate check against a reference written here on Python lists.

``verify`` checks a model or a contradiction cycle with numpy arrays, one path for every
size; on every certificate, right or wrong, of drawn formulas small and large, it must
give the verdict and the message of the reference checkers below, which read the
clauses one by one.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.formula_strategies import formulas, small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError
from twosat_formal.solve import solve, verify
from twosat_formal.solve.result import SolveResult

WHO = "the scc backend's"
NAMES = st.sampled_from([f"v{i}" for i in range(12)])


def outcome(formula: Formula, result: SolveResult) -> str | None:
    """``None`` if ``verify`` passes the result, else its message."""
    try:
        assert verify(formula, result).checked
    except CertificateError as exc:
        return str(exc)
    return None


def rows(formula: Formula) -> list[list[int]]:
    """The clauses as lists, read from the flat literals one clause at a time."""
    flat, bounds = formula.literals.tolist(), formula.offsets.tolist()
    return [flat[bounds[i] : bounds[i + 1]] for i in range(formula.num_clauses)]


def reference_model(formula: Formula, model: list[bool]) -> str | None:
    """The model check on lists: its size, then the first clause with no true literal."""
    if len(model) != formula.num_vars:
        return f"{WHO} model has {len(model)} values for {formula.num_vars} variables"
    for number, clause in enumerate(rows(formula), 1):
        if not any(model[abs(lit) - 1] == (lit > 0) for lit in clause):
            return f"{WHO} model falsifies clause {number}"
    return None


def reference_cycle(formula: Formula, cycle: list[int]) -> str | None:
    """The cycle check on lists: a walk of the formula's literals, a literal with its
    negation, then each step ``a -> b`` (``b`` after the last is the first) the
    implication of a clause ``(~a | b)`` or ``(b | ~a)`` of two literals, or of the unit
    clause ``(b)`` when ``~a`` is ``b``."""
    n = formula.num_vars
    if len(cycle) < 2 or not all(1 <= abs(lit) <= n for lit in cycle):
        return f"{WHO} cycle is not a walk of at least 2 literals"
    if not any(-lit in cycle for lit in cycle):
        return f"{WHO} cycle has no literal together with its negation"
    clauses = [clause for clause in rows(formula) if 1 <= len(clause) <= 2]
    for step, source in enumerate(cycle):
        target = cycle[(step + 1) % len(cycle)]
        implied = [-source, target] in clauses or [target, -source] in clauses
        if not implied and not (-source == target and [target] in clauses):
            return (
                f"{WHO} cycle step {step + 1} ({source} -> {target}) is not an implication "
                "of any clause"
            )
    return None


@st.composite
def large_formulas(draw: st.DrawFn) -> Formula:
    """Formulas of a few hundred clauses of 0 to 3 literals (mostly two), drawn from a
    seed: large enough for every array of the check to hold hundreds of entries."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    n = draw(st.integers(1, 60))
    widths = [0, 1, 2, 2, 2, 2, 3] if draw(st.booleans()) else [1, 2, 2, 2]
    clauses = [
        [rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.choice(widths))]
        for _ in range(draw(st.integers(100, 400)))
    ]
    return Formula(clauses, num_vars=n)


def drawn_cycle(data: st.DataObject, formula: Formula) -> list[int]:
    """A walk to check: drawn literals, or a path along the formula's own implications,
    or the solver's cycle with one literal dropped, negated or moved."""
    n = formula.num_vars
    kind = data.draw(st.sampled_from(["any", "implications", "solver"]))
    if kind == "any":
        return data.draw(st.lists(st.integers(-n - 1, n + 1), max_size=8))
    if kind == "implications":  # a walk that often holds up to its last step
        # the first and last literals of each clause: a wider clause's are no implication
        ends = [(c[0], c[-1]) for c in rows(formula) if c]
        if not ends:
            return []
        walk = [-data.draw(st.sampled_from(ends))[0]]
        for _ in range(data.draw(st.integers(1, 12))):
            nexts = [b if a == -walk[-1] else a for a, b in ends if -walk[-1] in (a, b)]
            if not nexts:
                break
            walk.append(data.draw(st.sampled_from(nexts)))
        return walk
    result = solve(formula) if formula.is_2cnf else None
    if result is None or result.cycle is None:
        return data.draw(st.lists(st.integers(-n, n), min_size=2, max_size=4))
    cycle = list(result.cycle)
    at = data.draw(st.integers(0, len(cycle) - 1))
    change = data.draw(st.sampled_from(["none", "drop", "negate", "move"]))
    if change == "drop":
        del cycle[at]
    elif change == "negate":
        cycle[at] = -cycle[at]
    elif change == "move":
        cycle.insert(data.draw(st.integers(0, len(cycle))), cycle.pop(at))
    return cycle


ANY_FORMULA = formulas(NAMES, max_vars=6, max_width=3) | large_formulas()


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(ANY_FORMULA, st.data())
def test_model_check_is_the_reference(f: Formula, data: st.DataObject) -> None:
    size = data.draw(st.sampled_from([f.num_vars, f.num_vars, f.num_vars, f.num_vars + 1]))
    model = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
    result = SolveResult("SAT", model=tuple(model))
    assert outcome(f, result) == reference_model(f, model)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(ANY_FORMULA, st.data())
def test_solver_models_pass(f: Formula, data: st.DataObject) -> None:
    if not f.is_2cnf:
        return
    result = solve(f, check=False)
    if result.model is not None:
        assert outcome(f, result) is None
        assert reference_model(f, list(result.model)) is None


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(ANY_FORMULA | small_2cnf(max_clauses=12), st.data())
def test_cycle_check_is_the_reference(f: Formula, data: st.DataObject) -> None:
    """Drawn walks, walks along the clauses, the solver's own cycles of unsat 2-CNFs,
    and those cycles with one literal dropped, negated or moved."""
    cycle = drawn_cycle(data, f)
    result = SolveResult("UNSAT", cycle=tuple(cycle))
    assert outcome(f, result) == reference_cycle(f, cycle)


def test_each_failure_is_named() -> None:
    f = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    assert verify(f, solve(f)).checked

    def cycle(*lits: int) -> str | None:
        return outcome(f, SolveResult("UNSAT", cycle=lits))

    assert cycle(1) == f"{WHO} cycle is not a walk of at least 2 literals"
    assert cycle(1, 3) == f"{WHO} cycle is not a walk of at least 2 literals"
    assert cycle(1, 0) == f"{WHO} cycle is not a walk of at least 2 literals"
    assert cycle(1, 2) == f"{WHO} cycle has no literal together with its negation"
    assert cycle(1, 2, -1) == f"{WHO} cycle step 3 (-1 -> 1) is not an implication of any clause"
    g = Formula([[1, 2], [3]])
    bad = SolveResult("SAT", model=(False, False, True))
    assert outcome(g, bad) == f"{WHO} model falsifies clause 1"
    assert outcome(g, SolveResult("SAT", model=(True,))) == (
        f"{WHO} model has 1 values for 3 variables"
    )
    # a unit clause (2) is the implication -2 -> 2 of the walk 2, -2
    assert outcome(Formula([[2], [-2]]), SolveResult("UNSAT", cycle=(2, -2))) is None
