"""The Transform record: JSON round trip, rebuilding, and shape checks."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.make.perturb import OPERATORS, Proof, Transform

BASE = Formula([[1, 2], [-1, 3], [2, -3], [3]])

OPERATOR_CALLS = [
    ("reorder", {}),
    ("reorder", {"order": "reversed"}),
    ("rename", {"names": "fresh", "flip": 0.5}),
    ("flip", {"fraction": 0.7}),
    ("filler", {"count": 3, "placement": "interleave"}),
    ("duplicate", {"copies": 3, "layout": "interleaved", "permute": True}),
    ("bridge-move", {"clause": 3}),
]


@settings(max_examples=40)
@given(st.sampled_from(OPERATOR_CALLS), st.integers(0, 2**40))
def test_json_round_trip_and_rebuild(call: tuple[str, dict[str, object]], seed: int) -> None:
    name, params = call
    new, t = OPERATORS.get(name).apply(BASE, seed=seed, **params)
    text = json.dumps(t.to_json())
    back = Transform.from_json(json.loads(text))
    assert back == t
    assert back.proof == t.proof
    assert back.rebuild(BASE) == new
    assert json.dumps(back.to_json()) == text


def test_json_layout() -> None:
    _, t = OPERATORS.get("filler").apply(BASE, seed=1, count=1)
    obj = t.to_json()
    assert list(obj) == [
        "operator",
        "params",
        "seed",
        "relation",
        "literal_map",
        "clause_permutation",
        "added_clauses",
        "fresh_vars",
        "witness",
        "num_vars",
        "names",
        "proof",
    ]
    assert obj["literal_map"] == [[1, 2, 3]]
    assert obj["fresh_vars"] == [4, 5]
    assert obj["proof"]["method"] == "z3:conservative-extension+witness"
    assert obj["proof"]["result"] == "proved"
    assert "proof" not in t.to_json(with_proof=False)


def test_proof_is_not_part_of_equality() -> None:
    _, t = OPERATORS.get("reorder").apply(BASE, seed=1)
    assert t == t.with_proof(Proof("other", "proved", 9.0))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda o: o.pop("witness"), "missing field 'witness'"),
        (lambda o: o.update(seed="1"), "'seed' must be an int"),
        (lambda o: o.update(num_vars=True), "'num_vars' must be an int"),
        (lambda o: o.update(params=[1]), "'params' must be an object, not array"),
        (
            lambda o: o.update(literal_map=[[1, "2", 3]]),
            r"'literal_map\[0\]\[1\]' must be an integer",
        ),
        (lambda o: o.update(literal_map=5), "'literal_map' must be a list, not number"),
        (lambda o: o.update(clause_permutation=[0.5]), "must be an integer, not number"),
        (lambda o: o.update(names=[1, 2, 3]), r"'names\[0\]' must be a string"),
        (lambda o: o.update(relation="similar"), "unknown relation 'similar'"),
        (lambda o: o.update(operator=3), "'operator' must be a string, not number"),
        (lambda o: o.update(proof={"method": "m"}), "missing field 'proof.result'"),
        (lambda o: o.update(proof={"method": "m", "result": "r", "seconds": "1"}), "a number"),
    ],
)
def test_from_json_rejects_malformed_transforms(change: object, message: str) -> None:
    _, t = OPERATORS.get("reorder").apply(BASE, seed=1)
    obj = t.to_json()
    change(obj)  # type: ignore[operator]
    with pytest.raises(RecordError, match=message):
        Transform.from_json(obj)


def test_from_json_needs_an_object() -> None:
    with pytest.raises(RecordError, match="must be a JSON object"):
        Transform.from_json([])  # type: ignore[arg-type]


def make(**changes: object) -> Transform:
    fields: dict[str, object] = {
        "operator": "reorder",
        "params": {},
        "seed": 0,
        "relation": "equivalent",
        "literal_map": ((1, 2, 3),),
        "clause_permutation": (0, 1, 2, 3),
        "num_vars": 3,
    }
    fields.update(changes)
    return Transform(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"literal_map": ((1, 2),)}, "2 entries for 3 base variables"),
        ({"literal_map": ((1, 2, 4),)}, "outside 1..3"),
        ({"literal_map": ()}, "at least one literal map"),
        ({"clause_permutation": (0, 1, 2)}, "not a permutation of the 4 source"),
        ({"clause_permutation": (0, 1, 2, 2)}, "not a permutation"),
        ({"added_clauses": ((1, 9),), "clause_permutation": (0, 1, 2, 3, 4)}, "added_clauses"),
        ({"fresh_vars": (4,)}, "fresh_vars names a variable"),
        ({"witness": (-7,)}, "witness names a variable"),
        ({"names": ("a", "b")}, "2 names for 3 variables"),
        ({"num_vars": -1}, "cannot be negative"),
    ],
)
def test_check_shape(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make(**changes).rebuild(BASE)


def test_rebuild_applies_maps_added_clauses_and_permutation() -> None:
    t = make(
        operator="filler",
        relation="conservative-extension",
        literal_map=((-2, 1, 3),),
        added_clauses=((4, -5),),
        clause_permutation=(4, 0, 1, 2, 3),
        fresh_vars=(4, 5),
        witness=(4, 5),
        num_vars=5,
        names=("a", "b", "c", "d", "e"),
    )
    new = t.rebuild(BASE)
    assert [list(c) for c in new.clauses] == [[4, -5], [-2, 1], [2, 3], [1, -3], [3]]
    assert new.names == ("a", "b", "c", "d", "e")


def test_image_of_clause() -> None:
    _, t = OPERATORS.get("duplicate").apply(BASE, seed=3, layout="interleaved")
    images = {t.image_of_clause(i, c) for c in range(2) for i in range(4)}
    assert images == set(range(8))
    with pytest.raises(ConfigError, match="not in the result"):
        t.image_of_clause(4)
    with pytest.raises(ConfigError, match="not in the result"):
        t.image_of_clause(0, copy=2)


def test_params_must_be_json() -> None:
    with pytest.raises(ConfigError, match="JSON values"):
        make(params={"x": object()})


_PARAM_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text("ab\udc80", max_size=2),
)


@given(
    st.dictionaries(
        st.text("xyz", max_size=2),
        st.one_of(_PARAM_VALUES, st.lists(_PARAM_VALUES, max_size=2), st.tuples(_PARAM_VALUES)),
        max_size=4,
    )
)
def test_canonical_params_are_what_their_json_text_gives_back(params: dict) -> None:
    from twosat_formal.make.perturb.transform import canonical_params

    expected = json.loads(json.dumps(params, sort_keys=True))
    got = canonical_params(params)
    assert repr(got) == repr(expected)  # keys in order, values with their types (nan too)
    assert got is not params and repr(canonical_params(got)) == repr(got)


def _rebuilt_by_lists(t: Transform, base: Formula) -> Formula:
    """The result on Python lists: the source clauses (every map's copy, then the added
    clauses), taken in permutation order."""
    sources = [
        [lmap[lit - 1] if lit > 0 else -lmap[-lit - 1] for lit in clause]
        for lmap in t.literal_map
        for clause in base.clauses
    ]
    sources += map(list, t.added_clauses)
    return Formula([sources[i] for i in t.clause_permutation], t.num_vars, t.names)


@settings(max_examples=60)
@given(st.sampled_from(OPERATOR_CALLS), st.integers(0, 2**40), st.booleans())
def test_rebuild_takes_the_source_clauses_in_permutation_order(
    call: tuple[str, dict[str, object]], seed: int, named: bool
) -> None:
    name, params = call
    base = Formula.from_named([["a", "b"], ["~a", "c"], ["b", "~c"], ["c"]]) if named else BASE
    _, t = OPERATORS.get(name).apply(base, seed=seed, **params)
    expected = _rebuilt_by_lists(t, base)
    again = t.rebuild(base)
    assert again == expected and again.names == expected.names
    assert again.clauses == expected.clauses and again.num_vars == expected.num_vars
    assert np.array_equal(again.literals, expected.literals)
    assert np.array_equal(again.offsets, expected.offsets)


@st.composite
def drawn_transforms(draw: st.DrawFn) -> tuple[Formula, Transform]:
    """A base (3 to 12 clauses, or 100 to 500 drawn from a seed) and a transform of it with
    1 to 3 copies, any literal maps, added clauses and any permutation of the sources."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    n = draw(st.integers(1, 40))
    size = draw(st.sampled_from([rng.randint(3, 12), rng.randint(100, 500)]))
    clauses = [
        [rng.choice((1, -1)) * rng.randint(1, n) for _ in range(rng.choice([0, 1, 2, 2, 3]))]
        for _ in range(size)
    ]
    base = Formula(clauses, num_vars=n)
    copies = draw(st.integers(1, 3))
    num_vars = n * copies + draw(st.integers(0, 3))

    def literal() -> int:
        return rng.choice((1, -1)) * rng.randint(1, num_vars)

    maps = tuple(tuple(literal() for _ in range(n)) for _ in range(copies))
    added = tuple(
        tuple(literal() for _ in range(rng.randint(0, 3))) for _ in range(draw(st.integers(0, 5)))
    )
    perm = list(range(copies * size + len(added)))
    rng.shuffle(perm)
    names = tuple(f"v{i}" for i in range(num_vars)) if draw(st.booleans()) else None
    relation = "equisatisfiable-copy-product" if copies > 1 else "equivalent-under-map"
    t = Transform("drawn", {}, 0, relation, maps, tuple(perm), num_vars, added, names=names)
    return base, t


@settings(max_examples=150, deadline=None)
@given(drawn_transforms())
def test_rebuild_of_drawn_transforms_is_the_list_reference(
    drawn: tuple[Formula, Transform],
) -> None:
    base, t = drawn
    expected = _rebuilt_by_lists(t, base)
    again = t.rebuild(base)
    assert again == expected and again.names == expected.names
    assert again.clauses == expected.clauses and again.num_vars == expected.num_vars
    assert np.array_equal(again.offsets, expected.offsets)
