"""The ``K`` a stored ``sample-k:K`` strategy key gives (:func:`sample_k`), for any key."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.evaluate.run.votes import sample_k


@given(st.text(max_size=5))
def test_a_strategy_key_gives_its_k_in_decimal_digits_or_none(count: str) -> None:
    """A key read from a store (any text: a store may come from elsewhere) never raises;
    ``K`` is read only from decimal digits (``²`` passes ``str.isdigit`` but is none)."""
    expected = int(count) if count.isdecimal() and int(count) >= 1 else None
    assert sample_k(f"sample-k:{count}") == expected
    assert sample_k(count) is None or count.startswith("sample-k:")


def test_a_superscript_digit_is_no_k() -> None:
    assert (sample_k("sample-k:\u00b2"), sample_k("sample-k:12")) == (None, 12)
