"""Proof queries asked as one (``Z3Session.deferred``): unsat exactly when each one is."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_equivalent, holds
from tests.support.formula_strategies import TRUTH_TABLE_CNFS
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ProofError
from twosat_formal.make.perturb import OPERATORS, apply_chain, prove
from twosat_formal.make.perturb.proofs import Z3Session


def _satisfiable(clauses: list[list[int]]) -> bool:
    return any(holds(clauses, bits) for bits in product((False, True), repeat=4))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    st.lists(TRUTH_TABLE_CNFS, max_size=4),
    st.lists(st.tuples(TRUTH_TABLE_CNFS, TRUTH_TABLE_CNFS), max_size=2),
)
def test_the_one_query_fails_exactly_when_some_query_would(
    models: list[list[list[int]]], pairs: list[tuple[list[list[int]], list[list[int]]]]
) -> None:
    session = Z3Session()
    expected = all(not _satisfiable(q) for q in models) and all(
        brute_equivalent(a, b, 4) for a, b in pairs
    )
    try:
        with session.deferred():
            assert all(session.model_of(q) is None for q in models)
            assert all(session.equivalent(a, b) for a, b in pairs)
    except ProofError as err:
        assert not expected and "do not all come back unsat" in str(err)
    else:
        assert expected
    assert session.pending is None


def test_an_inner_block_joins_the_outer_one() -> None:
    session = Z3Session()
    with pytest.raises(ProofError, match="do not all"), session.deferred():
        with session.deferred():
            assert session.model_of([[1]]) is None  # satisfiable: kept, not asked
        assert session.pending == ["(and v1 true)"]
    assert session.pending is None


def test_a_failure_inside_the_block_leaves_the_session_asking_each_query() -> None:
    session = Z3Session()
    with pytest.raises(RuntimeError), session.deferred():
        session.equivalent([[1]], [[1, 2]])
        raise RuntimeError
    assert session.pending is None and session.equivalent([[1]], [[1, 2]]) is False


def test_a_chain_proven_in_one_query_is_the_chain_proven_step_by_step() -> None:
    from twosat_formal.make.perturb import proofs

    base = Formula([[1, 2], [-2, 3], [-3, -1], [2, 4]])
    steps = ["reorder", "rename", "flip", "duplicate", "filler"]
    session = proofs.session()
    asked = session.seconds
    with session.deferred():
        result, chain = apply_chain(base, steps, seed=5)
    assert session.seconds > asked  # the one query was asked
    again, chain_again = apply_chain(base, steps, seed=5)
    assert again == result
    strip = [t.to_json(with_proof=False) for t in chain.steps]
    assert strip == [t.to_json(with_proof=False) for t in chain_again.steps]
    # each step's relation holds when asked alone, as the one query said
    current = base
    for t in chain_again.steps:
        after = t.rebuild(current)
        assert prove(current, after, t).result == "proved"
        current = after


def test_a_wrong_step_is_caught_by_the_one_query() -> None:
    from twosat_formal.make.perturb import proofs

    base = Formula([[1, 2], [-1, 2]])
    _, t = OPERATORS.get("reorder").apply(base, seed=1)
    session = proofs.session()
    with pytest.raises(ProofError, match="do not all"), session.deferred():
        prove(base, Formula([[1, 2], [1, -2]]), t)  # not equivalent: kept, then refuted
