"""A registry refuses a name that is no str with :class:`ArgumentTypeError` (a dict or
a list was Python's 'unhashable type' TypeError, an int an unknown name)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal._util.registry import Registry
from twosat_formal.errors import ArgumentTypeError, UnknownNameError

# mypy: disable-error-code="arg-type"


def _registry() -> Registry[int]:
    registry: Registry[int] = Registry("widget")
    registry.add("one", 1)
    return registry


@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True),
        st.binary(max_size=2),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    )
)
def test_a_name_that_is_no_str_is_a_type_error(name: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        _registry().get(name)
    assert caught.value.parameter == "widget"


def test_a_str_name_is_looked_up() -> None:
    assert _registry().get("one") == 1
    with pytest.raises(UnknownNameError):
        _registry().get("two")
