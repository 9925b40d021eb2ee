"""Shared checks for the generator families' tests (no tests here)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError

__all__ = ["assert_rejects", "knob_settings"]


def knob_settings(
    *knobs: str, **others: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments of a family: each of ``knobs`` drawn from [0, 1], ``others`` as given.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(knob_settings("split", shuffle=st.booleans()), lambda s: True)
    {'split': 0.0, 'shuffle': False}
    """
    return st.fixed_dictionaries({**dict.fromkeys(knobs, st.floats(0, 1)), **others})


def assert_rejects(
    generate: Callable[..., Any],
    clauses: int | None,
    params: Mapping[str, object],
    parameter: str,
) -> ConfigError:
    """Assert that ``generate(random.Random(0), clauses, **params)`` raises a
    :class:`ConfigError` naming ``parameter``; return that error for further checks.

    Examples
    --------
    >>> from twosat_formal.make.generators.backbone import backbone
    >>> assert_rejects(backbone, 20, {"pi": 2}, "pi").parameter
    'pi'
    """
    with pytest.raises(ConfigError) as info:
        generate(random.Random(0), clauses, **params)
    assert info.value.parameter == parameter
    return info.value
