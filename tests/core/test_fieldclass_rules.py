"""The pruned rule walk of ``compare_record`` classifies every path as ``field_class`` does."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core import fieldclass
from twosat_formal.core.fieldclass import (
    FIELD_CLASSES,
    Comparison,
    _class_of,
    _descend,
    _walk,
    compare_record,
    field_class,
)

PARTS = sorted({p for rules in FIELD_CLASSES.values() for pat, _ in rules for p in pat} - {"*"})
KEYS = st.one_of(st.sampled_from(PARTS), st.integers(0, 3), st.sampled_from(["x", "0", "id"]))


@given(kind=st.sampled_from(sorted(FIELD_CLASSES)), path=st.lists(KEYS, min_size=1, max_size=8))
def test_descending_the_rules_gives_the_class_of_every_path(kind: str, path: list) -> None:
    rules = FIELD_CLASSES[kind]
    for depth, key in enumerate(path):
        rules = _descend(rules, depth, key)
        cls, here = _class_of(rules, depth + 1), path[: depth + 1]
        if cls is None:  # parted: a rule listed first gives some field below another class
            below = [p for p, k in rules if len(p) > depth + 1 and k != field_class(kind, here)]
            assert below, (kind, here)
        else:
            assert cls == field_class(kind, here)


def test_a_story_provenance_is_parted_by_its_tool_version() -> None:
    rules = _descend(FIELD_CLASSES["story"], 0, "provenance")
    assert _class_of(rules, 1) is None
    assert field_class("story", ["provenance"]) == "attested"
    assert _class_of(_descend(rules, 1, "tool_version"), 2) == "re-derived"
    assert _class_of(_descend(rules, 1, "endpoint"), 2) == "attested"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.text("ab", max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("xyz", max_size=2), inner),
    max_leaves=12,
)


def _strictly_equal(a: object, b: object) -> bool:
    """JSON equality with types and key order: 1, 1.0 and True all differ."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_strictly_equal, a, b))
    return a == b


@given(_JSON, _JSON)
def test_a_re_derived_subtree_differs_exactly_when_its_values_differ(a: object, b: object) -> None:
    # "formula" is re-derived below: no rule is left, so the JSON-text fast path runs.
    stored, expected = {"formula": a}, {"formula": b}
    differs = bool(compare_record("instance", stored, expected).differences)
    assert differs == (not _strictly_equal(a, b))
    assert not compare_record("instance", stored, {"formula": a}).differences


def test_types_and_key_order_still_differ_below_re_derived_fields() -> None:
    for a, b in [(1, 1.0), (True, 1), ({"x": 1, "y": 2}, {"y": 2, "x": 1}), ([1], [1, 1])]:
        result = compare_record("instance", {"formula": [a]}, {"formula": [b]})
        assert result.differences, (a, b)


# -- one text per record when the two are the same: it decides as the walk does ----------------

_TIMING = st.one_of(
    st.floats(0, 2),
    st.integers(0, 3),
    st.sampled_from([-1.0, float("inf"), float("nan"), True, "0.5", None, [], {}]),
)


@st.composite
def _records(draw: st.DrawFn) -> dict:
    """A record with timings where the rules of every kind put them, and other fields."""
    step = st.fixed_dictionaries(
        {"operator": _JSON},
        optional={"proof": st.fixed_dictionaries({"result": _JSON}, optional={"seconds": _TIMING})},
    )
    record = draw(st.dictionaries(st.sampled_from(["id", "dimacs", "label"]), _JSON, max_size=3))
    if draw(st.booleans()):
        record["transforms"] = draw(st.lists(step, max_size=3))
    if draw(st.booleans()):
        record["roundtrip"] = draw(
            st.fixed_dictionaries({"z3": _JSON}, optional={"time_s": _TIMING})
        )
    return record


def _variant(draw: st.DrawFn, record: object) -> object:
    """``record`` again, with at most one change somewhere (a value, a type, a timing)."""
    if isinstance(record, dict):
        out = dict(record)
        if out and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(out)))
            out[key] = _variant(draw, out[key])
        elif out and draw(st.booleans()):
            out = dict(reversed(list(out.items())))
        elif out and draw(st.booleans()):
            del out[draw(st.sampled_from(sorted(out)))]
        return out
    if isinstance(record, list):
        if record and draw(st.booleans()):
            i = draw(st.integers(0, len(record) - 1))
            return [*record[:i], _variant(draw, record[i]), *record[i + 1 :]]
        if record and draw(st.booleans()):
            return record[1:]
        return tuple(record) if draw(st.booleans()) else list(record)
    return draw(st.one_of(st.just(record), _JSON, _TIMING))


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[dict, object]:
    record = draw(_records())
    again = copy.deepcopy(record) if draw(st.booleans()) else _variant(draw, record)
    return record, again


@pytest.mark.slow
@given(kind=st.sampled_from(sorted(FIELD_CLASSES)), pair=_pairs())
def test_the_one_text_comparison_decides_and_counts_as_the_walk(
    kind: str, pair: tuple[dict, object]
) -> None:
    stored, expected = pair
    walked = Comparison()
    _walk(stored, expected, [], walked, FIELD_CLASSES[kind])
    result = compare_record(kind, stored, expected)
    assert result.differences == walked.differences
    assert result.counts == walked.counts


def test_records_that_re_derive_are_compared_as_one_text() -> None:
    stored = {"id": "a", "transforms": [{"op": [1, {}], "proof": {"seconds": 0.5}}]}
    again = {"id": "a", "transforms": [{"op": [1, {}], "proof": {"seconds": 9}}]}
    assert fieldclass._same(stored, again, FIELD_CLASSES["instance"]) == {
        "re-derived": 3,
        "measured": 1,
        "attested": 0,
    }
    for other in ({"id": "b"}, {"transforms": [], "id": "a"}, {"id": ("a",)}):
        assert fieldclass._same(stored, {**again, **other}, FIELD_CLASSES["instance"]) is None
    longer = {"id": "a", "transforms": [*again["transforms"], {}]}
    for fewer in ({"id": "a"}, {"transforms": again["transforms"]}, longer):
        assert fieldclass._same(stored, fewer, FIELD_CLASSES["instance"]) is None
        assert fieldclass._same(fewer, stored, FIELD_CLASSES["instance"]) is None
    bad = {"id": "a", "transforms": [{"op": [1, {}], "proof": {"seconds": -1}}]}
    assert fieldclass._same(bad, again, FIELD_CLASSES["instance"]) is None
    assert fieldclass._same(stored, again, FIELD_CLASSES["story"]) is None


def _recursive_count(value: object) -> int:
    """The fields of a value counted with recursion: the oracle of ``_leaves``."""
    if isinstance(value, dict):
        return sum(map(_recursive_count, value.values())) or 1
    if isinstance(value, list | tuple):
        return sum(map(_recursive_count, value)) or 1
    return 1


@pytest.mark.slow
@given(
    st.recursive(
        _JSON,
        lambda inner: st.tuples(inner, inner) | st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=8,
    )
)
def test_the_fields_are_counted_without_recursion_as_with_it(value: object) -> None:
    assert fieldclass._leaves(value) == _recursive_count(value)


def test_a_number_in_an_attested_field_is_attested_not_a_timing() -> None:
    stored, again = {"intro": 0.5, "id": "s"}, {"intro": 0.25, "id": "s"}
    result = compare_record("story", stored, again)
    assert result.differences == []
    assert result.counts == {"re-derived": 1, "measured": 0, "attested": 1}


# -- the same bytes in marshal format 2 stand for the same JSON text --------------------------

_ODD = st.sampled_from([float("nan"), float("inf"), -0.0, 0.0, 1, 1.0, True, None, b"x"])
_VALUES = st.recursive(
    _JSON | _ODD,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text("xyz", max_size=2) | st.integers(0, 1), inner, max_size=3)
    ),
    max_leaves=10,
)


def _same_by_text(stored: object, expected: object, rules: tuple) -> dict[str, int] | None:
    """``_same`` as it compared before the marshal bytes: the two JSON texts alone."""
    timings: list[object] = []
    try:
        right = fieldclass._with_timings(stored, expected, rules, 0, timings)
        if fieldclass._exact(stored) != fieldclass._exact(right):
            return None
    except (fieldclass._Walk, TypeError, ValueError):
        return None
    if not all(map(fieldclass._timing, timings)):
        return None
    fields = fieldclass._leaves(stored)
    return {"re-derived": fields - len(timings), "measured": len(timings), "attested": 0}


@pytest.mark.slow
@given(kind=st.sampled_from(["instance", "prompt"]), pair=_pairs(), value=_VALUES)
def test_the_marshal_bytes_decide_as_the_json_texts(kind: str, pair: tuple, value: object) -> None:
    stored, expected = pair
    rules = FIELD_CLASSES[kind]
    assert fieldclass._same(stored, expected, rules) == _same_by_text(stored, expected, rules)
    for other in (value, copy.deepcopy(value)):
        pair = ({"id": "a", "formula": value}, {"id": "a", "formula": other})
        assert fieldclass._same(*pair, rules) == _same_by_text(*pair, rules)


def test_plain_fields_refuse_what_json_cannot_encode() -> None:
    for value in ([1.5, float("nan")], {"a": float("inf")}, {1: 2}, [b"x"], ({"a": {2}},)):
        assert fieldclass._plain_fields(value) is None, value
    assert fieldclass._plain_fields({"a": [1, 2.5, None, True, "x", [], {}]}) == 7
    assert fieldclass._plain_fields(3) == 1 and fieldclass._plain_fields(float("nan")) is None
