"""The compiled DIMACS recogniser (``io/_dimacs.pyx``) on its own: values and positions.

The reader's outcomes are held to the grammar's Lark parser in ``test_io_dimacs.py``;
here the recogniser's arrays are checked against Python's own reading of the same
bytes: each number's value (clamped as :func:`~twosat_formal.io.dimacs.number_value`
clamps it, whatever its digits) and, where an error needs them, the offsets of each
literal and of each clause's first token.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.io.test_io_dimacs import layouts
from twosat_formal.io._dimacs import recognise
from twosat_formal.io.dimacs import number_value

_NUMBER = re.compile(rb"-?[0-9]+")


@given(st.integers(-(10**40), 10**40), st.integers(0, 30), st.booleans())
@example(2**62 - 1, 0, False)
@example(2**62, 0, False)
@example(2**62 + 1, 0, True)
@example(10**19 - 1, 0, False)
@example(10**19, 0, False)
@example(2**64 + 5, 0, False)
@example(-(2**63), 3, False)
def test_a_number_s_value_is_python_s_clamped(value: int, zeros: int, minus_zero: bool) -> None:
    """Any number, with leading zeros, reads as Python's ``int`` clamped; ``-0`` is 0."""
    sign = "-" if value < 0 or (value == 0 and minus_zero) else ""
    token = sign + "0" * zeros + str(abs(value))
    text = f"p cnf 1 1\n{token} 0\n".encode()
    literals, offsets, _, _, _, failure = recognise(text)
    assert failure is None
    expected = number_value(token)
    if expected == 0:  # two empty clauses
        assert literals.tolist() == [] and offsets.tolist() == [0, 0, 0]
    else:
        assert literals.tolist() == [expected] and offsets.tolist() == [0, 1]


@pytest.mark.slow
@settings(max_examples=200)
@given(layouts())
def test_positions_point_at_each_literal_and_each_clause_s_first_token(text: str) -> None:
    """With ``positions``, the offsets read back each literal and each clause's first
    token; the rest of the reading is the same as without them."""
    data = text.encode()
    plain = recognise(data)
    literals, offsets, header, declarations, starts, failure = recognise(data, True)
    assert plain[4] is None
    assert np.array_equal(plain[0], literals) and np.array_equal(plain[1], offsets)
    assert (plain[2], plain[3], plain[5]) == (header, declarations, failure)
    assert starts is not None
    literal_starts, clause_starts = starts
    if failure is not None:
        return
    assert len(literal_starts) == len(literals) and len(clause_starts) == len(offsets) - 1
    for start, value in zip(literal_starts.tolist(), literals.tolist(), strict=True):
        match = _NUMBER.match(data, start)
        assert match is not None and number_value(match[0]) == value
        assert start == 0 or data[start - 1 : start] in b" \t\n\r\f\v"
    for i, start in enumerate(clause_starts.tolist()):
        first, end = int(offsets[i]), int(offsets[i + 1])
        if first < end:  # the clause's first literal
            assert start == literal_starts[first]
        else:  # an empty clause: its 0
            match = _NUMBER.match(data, start)
            assert match is not None and number_value(match[0]) == 0
