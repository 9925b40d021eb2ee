"""The pruned rule walk of ``compare_record`` classifies every path as ``field_class`` does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.fieldclass import FIELD_CLASSES, _class_of, _descend, compare_record, field_class

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
