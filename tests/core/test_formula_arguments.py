"""Formula, Clause and Literal refuse arguments of the wrong type with the family's
:class:`ArgumentTypeError` (or a :class:`ConfigError` for a value out of range), never
a bare TypeError or ValueError, and never read a str, a bool or a float as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Clause, Formula, Literal
from twosat_formal.errors import ArgumentTypeError, ConfigError

# mypy: disable-error-code="arg-type, list-item, dict-item, index"

#: Items that are no literal: a literal is an int (a NumPy integer too), not a bool.
NOT_LITERALS = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.binary(max_size=3),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.integers(), st.integers(), max_size=1),
)
#: Values that are no clause (nor clause list): a str, bytes, a mapping, a non-iterable.
NOT_CLAUSES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(min_size=1, max_size=3),
    st.binary(min_size=1, max_size=3),
    st.dictionaries(st.integers(1, 3), st.integers(1, 3), min_size=1, max_size=2),
)
LITERALS = st.integers(-20, 20).filter(bool)


@given(st.lists(LITERALS, max_size=3), st.integers(0, 3), NOT_LITERALS)
def test_a_literal_that_is_no_int_is_refused_wherever_it_stands(
    literals: list[int], at: int, bad: object
) -> None:
    row = [*literals[:at], bad, *literals[at:]]
    for build in (lambda: Formula([[1], row]), lambda: Clause(row), lambda: Literal(bad)):
        with pytest.raises(ArgumentTypeError) as caught:
            build()
        assert caught.value.parameter == "literal"
        assert type(bad).__name__ in str(caught.value)


@given(NOT_CLAUSES)
def test_a_clause_or_clause_list_that_is_no_iterable_of_literals_is_refused(bad: object) -> None:
    for build in (lambda: Formula(bad), lambda: Formula([[1], bad]), lambda: Clause(bad)):
        with pytest.raises(ArgumentTypeError) as caught:
            build()
        assert caught.value.parameter in {"clauses", "clause"}


@given(st.lists(st.lists(LITERALS, max_size=3), max_size=4))
def test_ints_of_any_kind_build_the_same_formula(rows: list[list[int]]) -> None:
    """Python ints, NumPy integers and a generator give the same clauses."""
    plain = Formula(rows)
    numpy = Formula([np.array(row, dtype=np.int32) for row in rows])
    lazy = Formula(iter(row) for row in rows)
    assert plain.clauses == numpy.clauses == lazy.clauses
    assert [list(clause) for clause in plain.clauses] == rows


@pytest.mark.parametrize("value", [2**63, -(2**63), 10**30])
def test_a_literal_past_64_bits_is_a_config_error(value: int) -> None:
    with pytest.raises(ConfigError, match="64-bit"):
        Formula([[1, value]])


@pytest.mark.parametrize("num_vars", [True, 2.0, "3", math.nan])
def test_num_vars_must_be_an_int(num_vars: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Formula([[1]], num_vars=num_vars)
    assert caught.value.parameter == "num_vars"


@given(st.one_of(NOT_CLAUSES, st.lists(NOT_CLAUSES, min_size=1, max_size=2)))
def test_from_named_refuses_what_is_no_clause_list_of_names(bad: object) -> None:
    """A str is neither a clause list nor a clause (``"ab"`` is not ``a | b``)."""
    with pytest.raises(ArgumentTypeError):
        Formula.from_named(bad)


@given(NOT_CLAUSES, NOT_LITERALS.filter(lambda value: not isinstance(value, str)))
def test_from_named_refuses_names_that_are_no_str(bad: object, name: object) -> None:
    with pytest.raises(ArgumentTypeError):
        Formula.from_named([["a"]], variables=bad)
    with pytest.raises(ArgumentTypeError):
        Formula.from_named([["a"]], variables=[name])
    with pytest.raises(ArgumentTypeError):
        Formula.from_named([["a", name]])


@pytest.mark.parametrize("assignment", [None, "ab", b"\x01", 3, 1.5])
def test_evaluate_refuses_an_assignment_that_is_no_mapping_or_sequence(
    assignment: object,
) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Formula([[1, 2]]).evaluate(assignment)
    assert caught.value.parameter == "assignment"


@pytest.mark.parametrize("key", [None, 1.0, True])
def test_evaluate_refuses_a_variable_key_that_is_no_int_or_name(key: object) -> None:
    with pytest.raises(ArgumentTypeError):
        Formula([[1, 2]]).evaluate({key: True})


@pytest.mark.parametrize("num_vars", [-1, -5, -(2**40)])
def test_a_negative_num_vars_is_refused(num_vars: int) -> None:
    """-5 gave a message about a literal 0 beyond the -5 declared variables."""
    with pytest.raises(ConfigError) as caught:
        Formula([], num_vars=num_vars)
    assert caught.value.parameter == "num_vars"
    assert "literal" not in str(caught.value)


@pytest.mark.parametrize(
    "names", [5, "ab", b"ab", [True], ["a", 3], {"a": 1}, {True: "a"}, {1: b"a"}, {1.0: "a"}]
)
def test_names_of_the_wrong_type_are_refused(names: object) -> None:
    """``"ab"`` named the variables a and b; ``[True]`` named one ``True``."""
    with pytest.raises(ArgumentTypeError) as caught:
        Formula([[1]], names=names)
    assert caught.value.parameter == "names"


def test_names_of_the_right_types_are_kept() -> None:
    assert Formula([[1, -2]], names=("a", "b")).names == ("a", "b")
    assert Formula([[1, -2]], names={2: "b"}).names == ("x1", "b")


@given(
    st.one_of(
        st.lists(st.floats(allow_nan=True), min_size=1, max_size=4),
        st.lists(st.booleans(), min_size=1, max_size=4),
        st.text(min_size=1, max_size=4),
        st.none(),
    )
)
def test_from_arrays_and_from_pairs_refuse_what_is_no_int_array(values: object) -> None:
    """A float was truncated (1.5 -> 1); ``None`` and a str were bare TypeError/ValueError."""
    with pytest.raises(ArgumentTypeError) as caught:
        Formula.from_arrays(values, [0, 1])
    assert caught.value.parameter == "lits"
    with pytest.raises(ArgumentTypeError):
        Formula.from_arrays([1], values)
    with pytest.raises(ArgumentTypeError):
        Formula.from_pairs(values)


@given(st.lists(LITERALS, max_size=9))
def test_from_pairs_takes_an_even_number_of_literals(literals: list[int]) -> None:
    if len(literals) % 2:
        with pytest.raises(ConfigError):
            Formula.from_pairs(literals)
    else:
        pairs = Formula.from_pairs(literals).clauses
        assert [lit for clause in pairs for lit in clause] == literals


@pytest.mark.parametrize("num_vars", [10**7 + 1, 2**40, 2**62])
def test_require_size_refuses_a_formula_of_too_many_variables(num_vars: int) -> None:
    """The formula itself may declare them (its names cost only those it has)."""
    formula = Formula([[1]], num_vars=num_vars)
    with pytest.raises(ConfigError) as caught:
        formula.require_size("solve")
    assert caught.value.parameter == "num_vars" and "solve" in str(caught.value)
    Formula([[1]], num_vars=10**7).require_size()
