"""What each operator does to the clauses, its parameters, and its determinism."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.params import value_of
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.make.perturb import OPERATORS
from twosat_formal.make.perturb.operator import Param, interleave


def clause_bag(f: Formula) -> Counter[tuple[int, ...]]:
    return Counter(tuple(c) for c in f.clauses)


def names_of(f: Formula) -> list[list[str]]:
    return [[f.literal_name(x) for x in c] for c in f.clauses]


BASE = Formula.from_named([["a", "b"], ["~a", "c"], ["~b", "~c"], ["c", "d"], ["~d", "a"]])


def test_registry_lists_the_six_operators_in_order() -> None:
    assert OPERATORS.names() == ["reorder", "rename", "flip", "filler", "duplicate", "bridge-move"]
    with pytest.raises(UnknownNameError, match="unknown operator 'shuffle'"):
        OPERATORS.get("shuffle")


# -- reorder ---------------------------------------------------------------------------------


def test_reorder_named_orders() -> None:
    op = OPERATORS.get("reorder")
    rev, t = op.apply(BASE, order="reversed")
    assert names_of(rev) == names_of(BASE)[::-1]
    assert t.relation == "equivalent"
    same, _ = op.apply(BASE, order="construction")
    assert same == BASE
    shuffled, ts = op.apply(BASE, seed=11)
    assert clause_bag(shuffled) == clause_bag(BASE)
    assert [BASE.clauses[i] for i in ts.clause_permutation] == list(shuffled.clauses)
    assert ts.params == {"order": None, "permutation": None}


def test_reorder_explicit_permutation_and_errors() -> None:
    op = OPERATORS.get("reorder")
    new, t = op.apply(BASE, permutation=[4, 3, 2, 1, 0])
    assert names_of(new) == names_of(BASE)[::-1]
    assert t.clause_permutation == (4, 3, 2, 1, 0)
    with pytest.raises(ConfigError, match="not a permutation"):
        op.apply(BASE, permutation=[0, 0, 1, 2, 3])
    with pytest.raises(ConfigError, match="explicit' needs a permutation"):
        op.apply(BASE, order="explicit")
    with pytest.raises(ConfigError, match="given with order 'reversed'"):
        op.apply(BASE, order="reversed", permutation=[0, 1, 2, 3, 4])


@settings(max_examples=30)
@given(st.integers(0, 2**32))
def test_shuffles_are_uniform_enough_and_seeded(seed: int) -> None:
    op = OPERATORS.get("reorder")
    a, _ = op.apply(BASE, seed=seed)
    b, _ = op.apply(BASE, seed=seed)
    assert a == b


def test_shuffled_orders_vary_with_the_seed() -> None:
    op = OPERATORS.get("reorder")
    perms = {op.apply(BASE, seed=s)[1].clause_permutation for s in range(40)}
    assert len(perms) > 20


# -- rename / flip ---------------------------------------------------------------------------


def test_rename_permutes_existing_names() -> None:
    new, t = OPERATORS.get("rename").apply(BASE, seed=5)
    assert new.names == BASE.names
    (lmap,) = t.literal_map
    assert sorted(lmap) == [1, 2, 3, 4]
    # clause i of the result is clause i of the base, each literal sent through the map
    for old, cur in zip(BASE.clauses, new.clauses, strict=True):
        assert [lmap[abs(x) - 1] * (1 if x > 0 else -1) for x in old] == list(cur)


def test_rename_fresh_names_avoid_the_base_names() -> None:
    base = Formula.from_named([["v1", "y1"], ["~v2", "v1"]])
    new, t = OPERATORS.get("rename").apply(base, seed=1, names="fresh")
    assert new.names == ("z1", "z2", "z3")
    assert t.params["prefix"] is None
    new2, _ = OPERATORS.get("rename").apply(base, names="fresh", prefix="door")
    assert new2.names == ("door1", "door2", "door3")
    with pytest.raises(ConfigError, match="clash"):
        OPERATORS.get("rename").apply(base, names="fresh", prefix="v")
    with pytest.raises(ConfigError, match="valid variable names"):
        OPERATORS.get("rename").apply(base, names="fresh", prefix="9")


def test_rename_without_shuffle_or_flip_is_the_identity_map() -> None:
    new, t = OPERATORS.get("rename").apply(BASE, shuffle=False)
    assert new == BASE
    assert t.literal_map == ((1, 2, 3, 4),)
    flipped, tf = OPERATORS.get("rename").apply(BASE, shuffle=False, flip=1.0)
    assert tf.literal_map == ((-1, -2, -3, -4),)
    assert [[-x for x in c] for c in BASE.clauses] == [list(c) for c in flipped.clauses]


def test_flip_named_variables() -> None:
    new, t = OPERATORS.get("flip").apply(BASE, variables=["a", "d"])
    assert t.literal_map == ((-1, 2, 3, -4),)
    assert names_of(new) == [["~a", "b"], ["a", "c"], ["~b", "~c"], ["c", "~d"], ["d", "~a"]]
    with pytest.raises(ConfigError, match="no variable is called 'zz'"):
        OPERATORS.get("flip").apply(BASE, variables="a,zz")


def test_flip_fraction_flips_that_many_variables() -> None:
    f = Formula([[v, v + 1] for v in range(1, 20)])
    for fraction, expected in ((0.0, 0), (0.5, 10), (1.0, 20)):
        _, t = OPERATORS.get("flip").apply(f, seed=3, fraction=fraction)
        assert sum(1 for x in t.literal_map[0] if x < 0) == expected


# -- filler ------------------------------------------------------------------------------------


def test_filler_over_fresh_variables_matches_density() -> None:
    base = Formula([[v, v % 30 + 1] for v in range(1, 31)] * 2 + [[1, 2]] * 15)  # 30 vars, 75 cl.
    new, t = OPERATORS.get("filler").apply(base, seed=2)
    assert t.params["count"] is None
    assert len(t.added_clauses) == 25  # a third of 75, as in the paper's (75, r=25)
    assert t.fresh_vars == tuple(range(31, 41))  # 25 * 30 / 75 = 10 fresh variables
    assert new.num_vars == 40
    assert new.clauses[:75] == base.clauses
    assert all(abs(x) > 30 for c in new.clauses[75:] for x in c)
    assert all(len({abs(x) for x in c}) == 2 for c in t.added_clauses)
    value = {abs(w): w > 0 for w in t.witness}
    assert all(any(value[abs(x)] == (x > 0) for x in c) for c in t.added_clauses)


def test_filler_placement() -> None:
    op = OPERATORS.get("filler")
    start, t = op.apply(BASE, seed=1, count=3, placement="start")
    assert start.clauses[3:] == BASE.clauses
    assert t.clause_permutation == (5, 6, 7, 0, 1, 2, 3, 4)
    mixed, tm = op.apply(BASE, seed=1, count=3, placement="interleave")
    base_positions = [tm.clause_permutation.index(i) for i in range(5)]
    assert base_positions == sorted(base_positions)
    assert [mixed.clauses[p] for p in base_positions] == list(BASE.clauses)


def test_filler_names_fresh_variables_in_a_named_formula() -> None:
    base = Formula.from_named([["f1", "g"], ["~f1", "~g"]])
    new, t = OPERATORS.get("filler").apply(base, seed=0, count=2, variables=3)
    assert new.names == ("f1", "g", "g1", "g2", "g3")
    assert t.names == new.names


def test_filler_over_existing_variables_of_an_unsat_base() -> None:
    base = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]], num_vars=3)
    new, t = OPERATORS.get("filler").apply(base, seed=9, count=6, over="existing")
    assert t.relation == "label-preserving-monotone"
    assert new.num_vars == 3 and t.fresh_vars == ()
    assert all(len({abs(x) for x in c}) == 2 for c in t.added_clauses)  # never a tautology
    assert all(abs(x) in (1, 2) for c in t.added_clauses for x in c)  # variables in use
    with pytest.raises(ConfigError, match="at least two variables"):
        OPERATORS.get("filler").apply(Formula([[1], [-1]]), over="existing")
    with pytest.raises(ConfigError, match="'variables' counts fresh"):
        OPERATORS.get("filler").apply(base, over="existing", variables=3)


# -- duplicate ------------------------------------------------------------------------------------


def test_duplicate_grouped_is_base_then_renamed_copy() -> None:
    base = Formula([[1, -2], [2, 3]])
    new, t = OPERATORS.get("duplicate").apply(base, copies=3)
    assert [list(c) for c in new.clauses] == [[1, -2], [2, 3], [4, -5], [5, 6], [7, -8], [8, 9]]
    assert t.literal_map == ((1, 2, 3), (4, 5, 6), (7, 8, 9))
    assert new.has_default_names


def test_duplicate_interleaved_keeps_each_copy_in_order() -> None:
    new, t = OPERATORS.get("duplicate").apply(BASE, seed=4, layout="interleaved", permute=True)
    for copy, lmap in enumerate(t.literal_map):
        positions = [t.image_of_clause(i, copy) for i in range(BASE.num_clauses)]
        assert positions == sorted(positions)
        expected = [[lmap[abs(x) - 1] * (1 if x > 0 else -1) for x in c] for c in BASE.clauses]
        assert [list(new.clauses[p]) for p in positions] == expected
    assert sorted(abs(x) for m in t.literal_map for x in m) == list(range(1, 9))
    assert new.names[:4] == BASE.names
    assert set(new.names[4:]) == {"a_2", "b_2", "c_2", "d_2"}


def test_duplicate_of_a_duplicate_gets_unused_names() -> None:
    once, _ = OPERATORS.get("duplicate").apply(BASE)
    twice, _ = OPERATORS.get("duplicate").apply(once)
    assert len(set(twice.names)) == 16
    assert "a_c2" in twice.names


def test_duplicate_needs_two_copies() -> None:
    with pytest.raises(ConfigError, match="parameter 'copies'"):
        OPERATORS.get("duplicate").apply(BASE, copies=1)


# -- bridge-move --------------------------------------------------------------------------------


def test_bridge_move_positions() -> None:
    op = OPERATORS.get("bridge-move")
    for position in range(5):
        new, _ = op.apply(BASE, clause=2, position=position)
        assert new.clauses[position] == BASE.clauses[2]
        rest = [c for i, c in enumerate(new.clauses) if i != position]
        assert rest == [c for i, c in enumerate(BASE.clauses) if i != 2]
    last, _ = op.apply(BASE, clause=0, relative=1.0)
    assert last.clauses[-1] == BASE.clauses[0]
    drawn = {op.apply(BASE, seed=s, clause=1)[1].clause_permutation.index(1) for s in range(30)}
    assert drawn == set(range(5))


def test_bridge_move_errors() -> None:
    op = OPERATORS.get("bridge-move")
    with pytest.raises(ConfigError, match="needs the clause to move"):
        op.apply(BASE)
    with pytest.raises(ConfigError, match="clause 5 is out of range"):
        op.apply(BASE, clause=5)
    with pytest.raises(ConfigError, match="position 9 is out of range"):
        op.apply(BASE, clause=1, position=9)
    with pytest.raises(ConfigError, match="not both"):
        op.apply(BASE, clause=1, position=1, relative=0.5)


# -- parameters ----------------------------------------------------------------------------------


def test_parameters_are_checked_and_converted() -> None:
    op = OPERATORS.get("filler")
    assert op.resolve({"count": "4", "placement": "start"})["count"] == 4
    with pytest.raises(ConfigError, match="no parameter 'size'") as err:
        op.resolve({"size": 3})
    assert err.value.valid == "count, over, variables, placement, prefix"
    with pytest.raises(ConfigError, match="invalid value 'lots'"):
        op.resolve({"count": "lots"})
    with pytest.raises(ConfigError, match="invalid value -1") as err:
        op.resolve({"count": -1})
    assert err.value.valid == "0 <= int"
    with pytest.raises(ConfigError, match="invalid value 'middle'"):
        op.resolve({"placement": "middle"})
    with pytest.raises(ConfigError, match="seed must be an int"):
        op.apply(BASE, seed="3")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("bool", "yes", True),
        ("bool", "false", False),
        ("float", "0.25", 0.25),
        ("ints", "3, 1,2", [3, 1, 2]),
        ("ints", [1, "2"], [1, 2]),
        ("strs", ["a", "b"], ["a", "b"]),
        ("str", "none", None),
    ],
)
def test_param_kinds(kind: str, text: object, value: object) -> None:
    assert value_of(Param("p", kind, None, "help"), text) == value


@pytest.mark.parametrize(
    ("kind", "text"),
    [("bool", "maybe"), ("int", True), ("int", 1.5), ("float", "x"), ("ints", 3), ("str", 3)],
)
def test_param_kinds_reject(kind: str, text: object) -> None:
    with pytest.raises(ConfigError):
        value_of(Param("p", kind, 0, "help"), text)


def test_a_parameter_without_a_none_default_refuses_none() -> None:
    with pytest.raises(ConfigError):
        value_of(Param("copies", "int", 2, "help"), None)


@settings(max_examples=40)
@given(st.lists(st.integers(0, 5), max_size=4), st.integers(0, 2**32))
def test_interleave_is_a_merge_that_keeps_order(lengths: list[int], seed: int) -> None:
    merged = interleave(lengths, random.Random(seed))
    assert sorted(merged) == [(k, i) for k, n in enumerate(lengths) for i in range(n)]
    for k in range(len(lengths)):
        assert [i for s, i in merged if s == k] == list(range(lengths[k]))


@given(m=st.integers(1, 6), beyond=st.integers(0, 3))
def test_bridge_move_refuses_a_clause_or_position_beyond_the_clauses(m: int, beyond: int) -> None:
    formula = Formula([[i, i + 1] for i in range(1, m + 1)])
    move = OPERATORS.get("bridge-move")
    for name in ("clause", "position"):
        params = {"clause": 0, "position": 0, name: m + beyond}
        with pytest.raises(ConfigError) as err:
            move.apply(formula, seed=1, **params)
        assert err.value.parameter == name
        assert str(err.value).startswith(f"{name} {m + beyond} is out of range for {m} clauses")
        assert err.value.valid == f"0..{m - 1}"
