"""The solver's own certificate check against the independent checker.

``verify`` checks a model or a contradiction cycle with numpy arrays;
:func:`~twosat_formal.solve.check.check_model` and
:func:`~twosat_formal.solve.check.check_cycle` share no code with it and must give
the same verdict on every certificate, right or wrong.
"""

from __future__ import annotations

import numpy as np
from formula_strategies import formulas, small_2cnf
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import CertificateError
from twosat_formal.formula import Formula
from twosat_formal.solve import (
    _verify_cycle,
    _verify_model,
    check_cycle,
    check_model,
    solve,
    verify,
)
from twosat_formal.solve.result import SolveResult

WHO = "the scc backend's"
NAMES = st.sampled_from([f"v{i}" for i in range(12)])


def outcome(check: object, *args: object) -> str | None:
    """``None`` if the check passes, else its message."""
    try:
        check(*args)  # type: ignore[operator]
    except CertificateError as exc:
        return str(exc)
    return None


@settings(max_examples=300)
@given(formulas(NAMES, max_vars=6, max_width=3), st.data())
def test_model_verdicts_agree_with_the_checker(f: Formula, data: st.DataObject) -> None:
    values = data.draw(st.lists(st.booleans(), min_size=f.num_vars, max_size=f.num_vars))
    ours = outcome(_verify_model, f, np.array(values, dtype=np.bool_), WHO)
    assert (ours is None) == (outcome(check_model, f, values) is None)


@settings(max_examples=400)
@given(formulas(NAMES, max_vars=6, max_width=3), small_2cnf(max_clauses=12), st.data())
def test_cycle_verdicts_agree_with_the_checker(f: Formula, g: Formula, data: st.DataObject) -> None:
    """Random walks, the solver's own cycles of unsat 2-CNFs, and those cycles with one
    literal dropped, negated or moved."""
    n = f.num_vars
    cycle = data.draw(st.lists(st.integers(-n - 1, n + 1), max_size=8))
    ours = outcome(_verify_cycle, f, np.array(cycle, dtype=np.int64), WHO)
    assert (ours is None) == (outcome(check_cycle, f, cycle) is None)
    result = solve(g)
    if result.cycle is None:
        return
    cycle = list(result.cycle)
    at = data.draw(st.integers(0, len(cycle) - 1))
    change = data.draw(st.sampled_from(["none", "drop", "negate", "move"]))
    if change == "drop":
        del cycle[at]
    elif change == "negate":
        cycle[at] = -cycle[at]
    elif change == "move":
        cycle.insert(data.draw(st.integers(0, len(cycle))), cycle.pop(at))
    ours = outcome(_verify_cycle, g, np.array(cycle, dtype=np.int64), WHO)
    assert (ours is None) == (outcome(check_cycle, g, cycle) is None)
    if change == "none":
        assert ours is None


def test_verify_names_each_failure() -> None:
    f = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    assert verify(f, solve(f)).checked
    assert outcome(_verify_cycle, f, np.array([1]), WHO) == (
        f"{WHO} cycle is not a walk of at least 2 literals"
    )
    assert outcome(_verify_cycle, f, np.array([1, 2]), WHO) == (
        f"{WHO} cycle has no literal together with its negation"
    )
    assert outcome(_verify_cycle, f, np.array([1, 2, -1]), WHO) == (
        f"{WHO} cycle step 3 (-1 -> 1) is not an implication of any clause"
    )
    g = Formula([[1, 2], [3]])
    bad = SolveResult("SAT", model=(False, False, True))
    assert outcome(verify, g, bad) == f"{WHO} model falsifies clause 1"
