"""The independent certificate checkers accept exactly the valid certificates.

Each property compares the checker's verdict with a reference written here from the
definitions (a clause is satisfied by some true literal; a step ``a -> b`` is an
edge iff some clause of width one or two is ``(-a | b)``), on honest certificates
from the solver and on tampered ones: a flipped value, a dropped step, a reversed
step, a replaced literal.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from types import SimpleNamespace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError
from twosat_formal.solve import (
    SolveResult,
    check_certificate_json,
    check_cycle,
    check_model,
    check_result,
    solve,
)


def model_ok(formula: Formula, model: Sequence[bool]) -> bool:
    return all(any(model[abs(lit) - 1] == (lit > 0) for lit in c) for c in formula.clauses)


def edges(formula: Formula) -> set[tuple[int, int]]:
    out = set()
    for c in formula.clauses:
        if len(c) == 2:
            out |= {(-c[0], c[1]), (-c[1], c[0])}
        elif len(c) == 1:
            out.add((-c[0], c[0]))
    return out


def cycle_ok(formula: Formula, cycle: Sequence[int]) -> bool:
    if len(cycle) < 2 or any(lit == 0 or abs(lit) > formula.num_vars for lit in cycle):
        return False
    if not any(-lit in cycle for lit in cycle):
        return False
    e = edges(formula)
    return all((a, b) in e for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True))


def accepts(check: object, formula: Formula, certificate: object) -> bool:
    try:
        check(formula, certificate)  # type: ignore[operator]
    except CertificateError:
        return False
    return True


@st.composite
def formulas(draw: st.DrawFn, max_vars: int = 7, ratio: float = 1.5) -> Formula:
    n = draw(st.integers(1, max_vars))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(
        st.lists(st.lists(literal, min_size=1, max_size=2), min_size=1, max_size=int(ratio * n) + 2)
    )
    return Formula(clauses, num_vars=n)


@st.composite
def unsat_formulas(draw: st.DrawFn) -> Formula:
    formula = draw(formulas(ratio=3.0))
    assume(not solve(formula).is_sat)
    return formula


# -- models --------------------------------------------------------------------------------


@settings(max_examples=200)
@given(formulas(), st.data())
def test_model_checker_matches_the_definition(formula: Formula, data: st.DataObject) -> None:
    model = data.draw(st.lists(st.booleans(), min_size=formula.num_vars, max_size=formula.num_vars))
    assert accepts(check_model, formula, model) == model_ok(formula, model)


@pytest.mark.slow
@settings(max_examples=200)
@given(formulas(), st.data())
def test_flipped_value_is_rejected_iff_a_clause_breaks(
    formula: Formula, data: st.DataObject
) -> None:
    result = solve(formula)
    assume(result.is_sat)
    assert result.model is not None
    check_model(formula, result.model)
    var = data.draw(st.integers(1, formula.num_vars))
    tampered = list(result.model)
    tampered[var - 1] = not tampered[var - 1]
    assert accepts(check_model, formula, tampered) == model_ok(formula, tampered)


def test_flipping_a_forced_value_is_always_rejected() -> None:
    formula = Formula([[1], [-1, 2], [-2, -3], [3, 4]])
    model = solve(formula).model
    assert model is not None
    for var in (1, 2, 3):
        tampered = list(model)
        tampered[var - 1] = not tampered[var - 1]
        with pytest.raises(CertificateError, match="falsifies clause"):
            check_model(formula, tampered)


def test_model_shape_and_types() -> None:
    formula = Formula([[1, 2]])
    with pytest.raises(CertificateError, match="1 values for 2 variables"):
        check_model(formula, [True])
    with pytest.raises(CertificateError, match="not a bool"):
        check_model(formula, [1, 0])  # type: ignore[list-item]
    check_model(Formula([]), [])
    with pytest.raises(CertificateError, match="falsifies clause 1"):
        check_model(Formula([[]]), [])


# -- cycles --------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=150)
@given(unsat_formulas(), st.data())
def test_tampered_cycles_are_judged_like_the_definition(
    formula: Formula, data: st.DataObject
) -> None:
    cycle = solve(formula).cycle
    assert cycle is not None
    check_cycle(formula, cycle)
    assert cycle_ok(formula, cycle)
    walk = list(cycle)
    i = data.draw(st.integers(0, len(walk) - 1))
    kind = data.draw(st.sampled_from(["drop", "reverse", "replace", "negate"]))
    if kind == "drop":
        walk.pop(i)
    elif kind == "reverse":
        j = (i + 1) % len(walk)
        walk[i], walk[j] = walk[j], walk[i]
    elif kind == "replace":
        other = data.draw(st.integers(1, formula.num_vars + 1))
        walk[i] = other * data.draw(st.sampled_from([1, -1]))
    else:
        walk[i] = -walk[i]
    assert accepts(check_cycle, formula, walk) == cycle_ok(formula, walk)


def chain(k: int) -> tuple[Formula, list[int]]:
    """A contradiction cycle with no chords: x1 -> x2 -> ... -> xk -> ~x1 -> x1."""
    clauses = [[-i, i + 1] for i in range(1, k)] + [[-k, -1], [1]]
    return Formula(clauses), [*range(1, k + 1), -1]


@pytest.mark.parametrize("k", [3, 4, 8])
def test_every_tampering_of_a_chordless_cycle_is_rejected(k: int) -> None:
    formula, cycle = chain(k)
    check_cycle(formula, cycle)
    for i in range(len(cycle)):
        dropped = cycle[:i] + cycle[i + 1 :]
        swapped = list(cycle)
        j = (i + 1) % len(cycle)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        replaced = list(cycle)
        replaced[i] = -replaced[i]
        for tampered in (dropped, swapped, replaced):
            with pytest.raises(CertificateError):
                check_cycle(formula, tampered)
    with pytest.raises(CertificateError):
        check_cycle(formula, list(reversed(cycle)))


def test_cycle_error_messages() -> None:
    formula = Formula.from_named([["a"], ["~a"]])
    with pytest.raises(CertificateError, match="at least 2 literals"):
        check_cycle(formula, [1])
    with pytest.raises(CertificateError, match="not a non-zero literal"):
        check_cycle(formula, [1, 0])
    with pytest.raises(CertificateError, match="names variable 5"):
        check_cycle(formula, [1, -5])
    with pytest.raises(CertificateError, match="a literal and its negation"):
        check_cycle(formula, [1, 1])
    with pytest.raises(CertificateError, match=r"step 1 of the cycle, ~a -> a"):
        check_cycle(Formula.from_named([["~a"], ["a", "b"]]), [-1, 1])
    check_cycle(formula, [-1, 1])


def test_wide_clauses_give_no_step() -> None:
    with pytest.raises(CertificateError, match="is not an implication"):
        check_cycle(Formula([[1, 1, 1], [-1]]), [1, -1])


# -- results and stored JSON ---------------------------------------------------------------


def test_check_result_needs_a_certificate() -> None:
    formula = Formula([[1], [-1]])
    with pytest.raises(CertificateError, match="without a cycle"):
        check_result(formula, SolveResult("UNSAT"))
    with pytest.raises(CertificateError, match="without a model"):
        check_result(formula, SolveResult("SAT"))
    with pytest.raises(CertificateError, match="is not empty"):
        check_result(formula, SolveResult("UNSAT", empty_clause=0))
    check_result(Formula([[1], []]), SolveResult("UNSAT", empty_clause=1))
    # the checker does not rely on SolveResult's own validation of the status
    unknown = SimpleNamespace(status="TIMEOUT", model=None, cycle=None, empty_clause=None)
    with pytest.raises(CertificateError, match="unknown status 'TIMEOUT'"):
        check_result(formula, unknown)


def test_stored_json_is_rechecked() -> None:
    formula = Formula.from_named([["a", "b"], ["~a"]])
    good = solve(formula).to_json(formula)
    check_certificate_json(formula, good)
    bad_cases = [
        ({**good, "model": {"a": True, "b": True}}, "falsifies clause 2"),
        ({**good, "model": {"a": False}}, "no value for b"),
        ({**good, "model": {"a": False, "b": True, "c": True}}, "'c', which is not"),
        ({**good, "model": {"a": False, "b": 1}}, "not a bool"),
        ({**good, "model": [False, True]}, "model object"),
        ({**good, "status": "MAYBE"}, "not SAT or UNSAT"),
        ({"status": "UNSAT"}, "needs a cycle or an empty_clause"),
        ({"status": "UNSAT", "cycle": ["a", "~a"]}, "is not an implication"),
        ({"status": "UNSAT", "cycle": ["a", "~zz"]}, "'zz', which is not a variable"),
        ({"status": "UNSAT", "cycle": "a ~a"}, "list of literal names"),
        ({"status": "UNSAT", "cycle": [1, -1]}, "holds 1, not a literal name"),
        ({"status": "UNSAT", "cycle": ["", "a"]}, "holds '', not a literal name"),
        ({"status": "UNSAT", "empty_clause": 0}, "is not empty"),
        ({"status": "UNSAT", "empty_clause": 9}, "not in 0..1"),
        ({"status": "UNSAT", "empty_clause": True}, "not an int"),
    ]
    for obj, message in bad_cases:
        with pytest.raises(CertificateError, match=message):
            check_certificate_json(formula, obj)
    with pytest.raises(CertificateError, match=r"^a certificate is a JSON object, not array$"):
        check_certificate_json(formula, ["SAT"])  # type: ignore[arg-type]


#: The JSON type a serialised value's first character shows (anything else is a number).
_FIRST_CHAR_TYPE = {"n": "null", "t": "boolean", "f": "boolean", '"': "string", "[": "array"}

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()


@settings(max_examples=200, deadline=None)
@given(_SCALARS | st.lists(_SCALARS, max_size=3))
def test_a_certificate_that_is_no_object_is_named_by_its_json_type(value: object) -> None:
    """The message names the JSON type the JSON text shows, never a Python type."""
    text = json.dumps(value)
    with pytest.raises(CertificateError) as caught:
        check_certificate_json(Formula([[1]]), json.loads(text))
    expected = _FIRST_CHAR_TYPE.get(text[0], "number")
    assert str(caught.value) == f"a certificate is a JSON object, not {expected}"


def test_json_cycle_round_trip_with_names() -> None:
    rng = random.Random(2)
    checked = 0
    while checked < 30:
        n = rng.randint(2, 6)
        clauses = [
            [rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(2)] for _ in range(3 * n)
        ]
        formula = Formula(clauses, num_vars=n).with_names([f"v_{i}" for i in range(n)])
        result = solve(formula)
        obj = result.to_json(formula)
        check_certificate_json(formula, obj)
        if not result.is_sat:
            assert all(name.lstrip("~").startswith("v_") for name in obj["cycle"])
            checked += 1
