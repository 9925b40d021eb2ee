"""Tests of the formula model: construction, views, names, semantics, immutability.

Semantics are checked against a plain-Python evaluator written here, independent of the
numpy code in :mod:`twosat_formal.core.formula`.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import (
    Clause,
    Formula,
    Literal,
    default_name,
    is_valid_name,
)
from twosat_formal.errors import ConfigError, NotTwoCNFError, TwoSatFormalError
from twosat_formal.io import parse_formula


@st.composite
def cnfs(draw: st.DrawFn, max_vars: int = 6, max_width: int = 4) -> tuple[int, list[list[int]]]:
    """A variable count and clauses over it (any widths, the empty clause included)."""
    n = draw(st.integers(0, max_vars))
    if n == 0:
        return 0, draw(st.lists(st.just([]), max_size=2))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(literal, max_size=max_width), max_size=10))
    return n, clauses


def brute_value(clauses: list[list[int]], values: tuple[bool, ...]) -> list[bool]:
    """Per clause, whether some literal is true: the textbook definition."""
    return [any(values[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in clauses]


# -- literals and clauses -------------------------------------------------------------


def test_literal_basics() -> None:
    lit = Literal(-4)
    assert (lit.var, lit.positive, int(-lit)) == (4, False, 4)
    assert Literal.of(3, positive=False) == -3
    assert repr(Literal(2)) == "Literal(2)"
    with pytest.raises(ConfigError):
        Literal(0)


def test_clause_basics() -> None:
    clause = Clause([3, -1, 3])
    assert clause.width == 3
    assert clause.variables == (3, 1, 3)
    assert not clause.is_tautology
    assert clause == (3, -1, 3)
    assert Clause([2, -2]).is_tautology
    assert Clause().width == 0
    with pytest.raises(ConfigError):
        Clause([1, 0])


def test_names_helpers() -> None:
    assert default_name(12) == "x12"
    assert is_valid_name("_a1") and is_valid_name("x")
    for bad in ("", "1a", "a-b", "not", "or", "and", "vars", "a b", "é"):
        assert not is_valid_name(bad), bad


# -- construction ----------------------------------------------------------------------


def test_from_named_numbers_in_order_of_first_appearance() -> None:
    f = Formula.from_named([["~b", "a"], ["c", "!b"], ["-a"]], variables=["z"])
    assert f.names == ("z", "b", "a", "c")
    assert f.clauses == ((-2, 3), (4, -2), (-3,))
    assert f.num_vars == 4 and f.num_clauses == 3


def test_clause_order_and_duplicates_are_kept() -> None:
    f = Formula([[1, 2], [1, 2], [2, 1], [1, 1]])
    assert f.clauses == ((1, 2), (1, 2), (2, 1), (1, 1))
    assert len(f) == 4 and list(f) == list(f.clauses)


def test_unused_variables_are_allowed() -> None:
    f = Formula([[1]], num_vars=3)
    assert f.num_vars == 3 and f.used_variables == frozenset({1})
    assert f.names == ("x1", "x2", "x3")


@given(cnfs())
def test_constructors_agree(cnf: tuple[int, list[list[int]]]) -> None:
    n, clauses = cnf
    f = Formula(clauses, num_vars=n)
    flat = [lit for clause in clauses for lit in clause]
    offsets = np.cumsum([0, *map(len, clauses)])
    g = Formula.from_arrays(flat, offsets, n)
    assert f == g and hash(f) == hash(g)
    assert [list(c) for c in f.clauses] == clauses
    assert f.widths.tolist() == [len(c) for c in clauses]
    assert f.literals.tolist() == flat
    assert f.clause_of_literal.tolist() == [i for i, c in enumerate(clauses) for _ in c]
    for i, clause in enumerate(clauses):
        assert list(f.clause(i)) == clause
        assert list(f.clause(i - len(clauses))) == clause


def test_from_pairs() -> None:
    f = Formula.from_pairs(np.array([[1, -2], [2, 3]]))
    assert f.clauses == ((1, -2), (2, 3))
    assert Formula.from_pairs(np.empty((0, 2), dtype=np.int64)).num_clauses == 0


@pytest.mark.parametrize(
    ("build", "parameter"),
    [
        (lambda: Formula([[1, 0]]), "literal"),
        (lambda: Formula([[3]], num_vars=2), "num_vars"),
        (lambda: Formula([[1]], num_vars=1, names=["a", "b"]), "names"),
        (lambda: Formula([[1, 2]], names=["a", "a"]), "names"),
        (lambda: Formula([[1]], names=["not"]), "names"),
        (lambda: Formula([[1]], names=["2a"]), "names"),
        (lambda: Formula.from_arrays([1, 2], [0, 3]), "offsets"),
        (lambda: Formula.from_arrays([1, 2], [1, 2]), "offsets"),
        (lambda: Formula.from_arrays([1, 2], [0, 2, 1, 2]), "offsets"),
        # a fall whose difference overflows int64 (it wraps to a rise) is still a fall
        (lambda: Formula.from_arrays([1], [0, 2**63 - 1, -2, 1]), "offsets"),
        (lambda: Formula.from_arrays([[1, 2]], [0, 2]), "arrays"),
    ],
)
def test_invalid_construction_is_a_config_error(build: object, parameter: str) -> None:
    with pytest.raises(ConfigError) as info:
        build()  # type: ignore[operator]
    assert info.value.parameter == parameter
    assert isinstance(info.value, TwoSatFormalError) and isinstance(info.value, ValueError)


# -- 2-CNF views -----------------------------------------------------------------------


@given(cnfs(max_width=3))
def test_is_2cnf_and_pairs(cnf: tuple[int, list[list[int]]]) -> None:
    n, clauses = cnf
    f = Formula(clauses, num_vars=n)
    expected = all(1 <= len(c) <= 2 for c in clauses)
    assert f.is_2cnf is expected
    if expected:
        f.require_2cnf()
        assert f.pairs().tolist() == [[c[0], c[-1]] for c in clauses]
    else:
        bad = next(i for i, c in enumerate(clauses) if not 1 <= len(c) <= 2)
        with pytest.raises(NotTwoCNFError) as info:
            f.require_2cnf("solving")
        assert info.value.clause_index == bad
        assert f"clause {bad + 1}" in str(info.value) and "solving" in str(info.value)


# -- names ------------------------------------------------------------------------------


def test_default_names_are_normalised() -> None:
    f = Formula([[1, -2]], names=["x1", "x2"])
    g = Formula([[1, -2]])
    assert f == g and f.has_default_names
    assert f.literal_name(-2) == "~x2" and f.var("x2") == 2


def test_names_lookup_and_errors() -> None:
    f = Formula([[1, -2]], names=["rain", "x1"])
    assert not f.has_default_names
    assert f.name(2) == "x1" and f.var("rain") == 1
    assert f.literal_name(-1) == "~rain"
    with pytest.raises(ConfigError):
        f.var("x2")
    with pytest.raises(ConfigError):
        f.name(3)


def test_with_names_and_with_clauses() -> None:
    f = Formula([[1, -2]], names=["a", "b"])
    g = f.with_names(None)
    assert g.has_default_names and g.same_clauses(f) and g != f
    h = f.with_clauses([[2], [-1, 2]])
    assert h.names == ("a", "b") and h.clauses == ((2,), (-1, 2))


@given(cnfs(max_vars=5), st.sampled_from(["{}", "rain_{}", "x{}"]))
def test_clause_text_reads_back_through_the_dsl(
    cnf: tuple[int, list[list[int]]], pattern: str
) -> None:
    n, clauses = cnf
    names = [pattern.format(i + 1) for i in range(n)] if pattern != "{}" else None
    f = Formula(clauses, num_vars=n, names=names)
    for clause in f.clauses:
        text = f.clause_text(clause)
        if not clause:
            assert text == ""
            continue
        back = parse_formula(text, format="dsl")
        assert [(back.name(abs(lit)), lit > 0) for lit in back.clauses[0]] == [
            (f.name(abs(lit)), lit > 0) for lit in clause
        ]


# -- semantics ---------------------------------------------------------------------------


@given(cnfs(max_vars=5), st.data())
def test_evaluate_matches_brute_force(
    cnf: tuple[int, list[list[int]]], data: st.DataObject
) -> None:
    n, clauses = cnf
    f = Formula(clauses, num_vars=n)
    for values in itertools.product((False, True), repeat=n):
        truth = brute_value(clauses, values)
        assert f.satisfied_mask(values).tolist() == truth
        assert f.falsified_clauses(values) == [i for i, t in enumerate(truth) if not t]
        assert f.evaluate(values) is all(truth)
        assert f.evaluate({v + 1: b for v, b in enumerate(values)}) is all(truth)
        assert f.evaluate(dict(zip(f.names, values, strict=True))) is all(truth)


def test_partial_assignment_makes_nothing_true() -> None:
    f = Formula([[1, 2], [-3]])
    assert f.satisfied_mask({1: True}).tolist() == [True, False]
    assert f.satisfied_mask([]).tolist() == [False, False]
    assert Formula().evaluate([]) is True
    assert Formula([[]], num_vars=1).evaluate([True]) is False


def test_bad_assignments() -> None:
    f = Formula([[1, 2]])
    with pytest.raises(ConfigError):
        f.evaluate({3: True})
    with pytest.raises(ConfigError):
        f.evaluate([True, True, True])
    with pytest.raises(ConfigError):
        f.evaluate({"y": True})


# -- selection, equality, immutability ----------------------------------------------------


@given(cnfs(), st.data())
def test_select_is_list_indexing(cnf: tuple[int, list[list[int]]], data: st.DataObject) -> None:
    n, clauses = cnf
    f = Formula(clauses, num_vars=n, names=[f"v{i}" for i in range(n)])
    index = data.draw(st.lists(st.integers(0, len(clauses) - 1), max_size=12)) if clauses else []
    g = f.select(index)
    assert [list(c) for c in g.clauses] == [clauses[i] for i in index]
    assert g.names == f.names and g.num_vars == n


def test_select_out_of_range() -> None:
    with pytest.raises(ConfigError):
        Formula([[1]]).select([1])
    with pytest.raises(ConfigError):
        Formula([[1]]).select([-1])


def test_equality_and_hash() -> None:
    a = Formula([[1, 2]], num_vars=3)
    assert a == Formula([[1, 2]], num_vars=3)
    assert a != Formula([[1, 2]], num_vars=2)
    assert a != Formula([[2, 1]], num_vars=3)
    assert a != Formula([[1, 2]], num_vars=3, names=["a", "b", "c"])
    assert a != "not a formula"
    assert len({a, Formula([[1, 2]], num_vars=3)}) == 1


def test_formula_is_immutable() -> None:
    f = Formula([[1, 2]])
    with pytest.raises(AttributeError):
        f.num_vars = 5
    with pytest.raises(AttributeError):
        del f.num_vars
    with pytest.raises(ValueError):
        f.literals[0] = 3
    with pytest.raises(ValueError):
        f.offsets[0] = 1


def test_caller_arrays_are_copied() -> None:
    pairs = np.array([[1, 2], [-1, -2]])
    f = Formula.from_pairs(pairs)
    before = hash(f)
    pairs[0, 0] = 2  # the caller's array stays writable and the formula does not change
    assert f.clauses == ((1, 2), (-1, -2)) and hash(f) == before
    lits = np.array([1, -2])
    Formula.from_arrays(lits, [0, 2])
    assert lits.flags.writeable


@given(cnfs())
def test_pickle_roundtrip(cnf: tuple[int, list[list[int]]]) -> None:
    n, clauses = cnf
    f = Formula(clauses, num_vars=n, names=[f"n{i}" for i in range(n)])
    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.names == f.names
    assert not g.literals.flags.writeable


def test_repr_shows_clauses() -> None:
    f = Formula.from_named([["a", "~b"]] * 8)
    assert repr(f).startswith("<Formula 2 vars, 8 clauses: (a | ~b) & ")
    assert repr(f).endswith("& ...>")


# -- a sparse name table ---------------------------------------------------------------------


def test_a_mapping_of_some_names_is_the_same_formula_as_the_whole_table() -> None:
    dense = Formula([[1, -3]], num_vars=4, names=["a", "x2", "c", "x4"])
    sparse = Formula([[1, -3]], num_vars=4, names={3: "c", 1: "a", 2: "x2"})
    assert sparse == dense and hash(sparse) == hash(dense)
    assert sparse.names == dense.names == ("a", "x2", "c", "x4")
    assert sparse.named == dense.named == {1: "a", 3: "c"}
    assert sparse.literal_names([1, -3, 2]) == dense.literal_names([1, -3, 2]) == ["a", "~c", "x2"]
    assert sparse.name(4) == "x4" and not sparse.has_default_names
    assert sparse != Formula([[1, -3]], num_vars=4, names={1: "a", 3: "d"})
    assert Formula([[1]], names={1: "x1"}).has_default_names
    assert pickle.loads(pickle.dumps(sparse)) == dense
    for other in (sparse.select([0, 0]), sparse.with_clauses([[2]])):
        assert other.named == {1: "a", 3: "c"}


def test_a_mapping_keeps_no_table_of_the_variable_count() -> None:
    big = Formula.from_arrays([1], [0, 1], 10_000_000, {1: "a"})
    assert big.named == {1: "a"} and big.name(10_000_000) == "x10000000"
    assert "_names" not in vars(big)  # the whole table is built only when asked for
    assert big.literal_names([-1, 9]) == ["~a", "x9"]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({5: "a"}, "variable 5 is not in 1..3"),
        ({0: "a"}, "variable 0 is not in 1..3"),
        ({1: "not"}, "invalid variable name"),
        ({1: "a", 2: "a"}, "'a' is used twice"),
        ({1: "x2"}, "'x2' is used twice"),  # the default name of variable 2
    ],
)
def test_a_mapping_of_names_is_checked(names: dict[int, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Formula([[1]], num_vars=3, names=names)


def test_a_default_name_may_move_when_its_variable_is_named_too() -> None:
    f = Formula([[1, 2]], names={1: "x2", 2: "x1"})
    assert f.names == ("x2", "x1") and f.named == {1: "x2", 2: "x1"}
    assert Formula([[1]], num_vars=3, names={1: "x5"}).named == {1: "x5"}


@given(st.lists(st.sampled_from(["a", "b", "c", "x1", "x2", "x3", "x4"]), max_size=4, unique=True))
def test_a_sparse_and_a_dense_table_agree_or_both_refuse(names: list[str]) -> None:
    n = len(names)
    clauses = [[v] for v in range(1, n + 1)]
    try:
        dense = Formula(clauses, num_vars=n, names=names)
    except ConfigError:
        with pytest.raises(ConfigError):
            Formula(clauses, num_vars=n, names=dict(enumerate(names, 1)))
        return
    for table in (dict(enumerate(names, 1)), dense.named):
        sparse = Formula(clauses, num_vars=n, names=table)
        assert sparse == dense and hash(sparse) == hash(dense)
        assert sparse.names == dense.names and sparse.named == dense.named
        assert sparse.literal_names([-v for v in range(1, n + 1)]) == dense.literal_names(
            [-v for v in range(1, n + 1)]
        )
