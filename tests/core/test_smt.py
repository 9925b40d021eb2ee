"""The SMT-LIB text of clause lists: Z3 reads each as exactly its clauses' truth table."""

from __future__ import annotations

import itertools

import pytest
import z3
from hypothesis import given, settings

from tests.support.brute import holds
from tests.support.formula_strategies import TRUTH_TABLE_CNFS
from twosat_formal.core.smt import declarations, smt_cnf, smt_literal


def _z3_value(clauses: list[list[int]], bits: tuple[bool, ...]) -> bool:
    """Z3's value of ``smt_cnf(clauses)`` under ``bits``, read from the text alone."""
    ctx = z3.Context()
    solver = z3.Solver(ctx=ctx)
    fixed = " ".join(smt_literal(v if b else -v) for v, b in enumerate(bits, 1))
    solver.from_string(declarations(0, len(bits)) + f"(assert (and {fixed} {smt_cnf(clauses)}))")
    return solver.check() == z3.sat


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(TRUTH_TABLE_CNFS)
def test_the_text_has_the_clauses_truth_table(clauses: list[list[int]]) -> None:
    for bits in itertools.product((False, True), repeat=4):
        assert _z3_value(clauses, bits) == holds(clauses, bits)


def test_declarations_add_only_the_missing_variables() -> None:
    assert declarations(0, 0) == "" and declarations(2, 1) == ""
    assert declarations(1, 3) == "(declare-const v2 Bool)(declare-const v3 Bool)"
