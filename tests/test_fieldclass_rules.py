"""The pruned rule walk of ``compare_record`` classifies every path as ``field_class`` does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.fieldclass import FIELD_CLASSES, _class_of, _descend, field_class

PARTS = sorted({p for rules in FIELD_CLASSES.values() for pat, _ in rules for p in pat} - {"*"})
KEYS = st.one_of(st.sampled_from(PARTS), st.integers(0, 3), st.sampled_from(["x", "0", "id"]))


@given(kind=st.sampled_from(sorted(FIELD_CLASSES)), path=st.lists(KEYS, min_size=1, max_size=8))
def test_descending_the_rules_gives_the_class_of_every_path(kind: str, path: list) -> None:
    rules = FIELD_CLASSES[kind]
    for depth, key in enumerate(path):
        rules = _descend(rules, depth, key)
        assert _class_of(rules, depth + 1) == field_class(kind, path[: depth + 1])
