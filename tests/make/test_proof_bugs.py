"""Tests that fail under each plausible bug of the perturbation proofs.

Each builds a false claim that a specific, plausible mistake in
``twosat_formal.make.perturb.proofs`` would prove, and asserts the outcome: the proof is
refused, and (checked here without the prover) the claim really is false.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ProofError
from twosat_formal.make.perturb.proofs import Z3Session, prove
from twosat_formal.make.perturb.transform import Transform
from twosat_formal.solve import solve


def satisfies(clauses: list[list[int]], model: dict[int, bool]) -> bool:
    return all(any(model.get(abs(lit)) == (lit > 0) for lit in c) for c in clauses)


def test_an_equivalence_is_proven_both_ways() -> None:
    """Bug: checking ``base ⊨ result`` only. A reorder that drops a clause passes it."""
    base = Formula([[1, 2], [-1, 2], [-2, 3]])
    dropped = Formula([[-2, 3], [1, 2]], num_vars=3)  # clause (~1 | 2) is gone
    # the shape of a reorder of three clauses; the result is checked against the base
    t = Transform("reorder", {}, 0, "equivalent", ((1, 2, 3),), (2, 0, 1), 3)
    with pytest.raises(ProofError) as info:
        prove(base, dropped, t)
    example = info.value.counterexample
    assert example is not None  # Z3 found a model of the result that falsifies the base
    model = {dropped.var(name): value for name, value in example.items()}
    assert satisfies([list(c) for c in dropped.clauses], model)
    assert not satisfies([list(c) for c in base.clauses], model)


def test_the_entailment_that_a_one_way_check_would_skip_is_the_failing_one() -> None:
    z3 = Z3Session()
    base = [[1, 2], [-1, 2], [-2, 3]]
    dropped = [[-2, 3], [1, 2]]
    assert z3.entails(base, dropped) is None  # this direction holds
    assert z3.entails(dropped, base) is not None  # this one does not


def test_a_map_must_be_injective_on_variables_not_literals() -> None:
    """Bug: injectivity checked on literals. The map 1 -> x1, 2 -> ~x1 is then 'injective'
    and turns the satisfiable (x1) & (x2) into the unsatisfiable (x1) & (~x1)."""
    base = Formula([[1], [2]])
    result = Formula([[1], [-1]])
    t = Transform("rename", {}, 0, "equivalent-under-map", ((1, -1),), (0, 1), 1)
    assert solve(base).status == "SAT" and solve(result).status == "UNSAT"
    with pytest.raises(ProofError, match="same variable"):
        prove(base, result, t)


def test_selector_variables_never_collide_with_the_witness() -> None:
    """Bug: numbering Z3's selector variables after the clauses' variables only. A
    witness over fresh variables that occur in no clause then forces every selector
    false, and an extension that makes a SAT base UNSAT is 'proved'."""
    base = Formula([[1]])
    result = Formula([[1], [-1]], num_vars=3)
    t = Transform(
        "filler",
        {},
        0,
        "conservative-extension",
        ((1,),),
        (0, 1),
        3,
        added_clauses=((-1,),),
        fresh_vars=(2, 3),
        witness=(-2, -3),
    )
    assert solve(base).status == "SAT" and solve(result).status == "UNSAT"
    with pytest.raises(ProofError, match="witness does not extend"):
        prove(base, result, t)


def test_units_above_every_clause_variable_are_part_of_the_query() -> None:
    z3 = Z3Session()
    # (x1) with the units ~x2, ~x3 does not entail (x1) & (~x1)
    assert z3.entails([[1]], [[1], [-1]], units=[-2, -3]) is not None


def test_a_counterexample_names_exactly_the_query_variables() -> None:
    """Z3's models are read back over the variables asked about, selectors left out."""
    z3 = Z3Session()
    example = z3.entails([[1, 2]], [[2]])
    assert example is not None and set(example) == {1, 2}
    model = z3.satisfiable([[1], [-2, 3]], 3)
    assert model is not None and set(model) == {1, 2, 3}
    assert satisfies([[1], [-2, 3]], model)


@pytest.mark.parametrize(
    ("base", "result", "fresh", "witness"),
    [
        (Formula([[1]]), Formula([[1], [-1]], num_vars=3), (2, 3), (-2, -3)),
        (Formula([], num_vars=0), Formula([[-1]]), (1,), (1,)),
    ],
)
def test_a_refused_extension_carries_a_counterexample_that_honours_the_witness(
    base: Formula, result: Formula, fresh: tuple[int, ...], witness: tuple[int, ...]
) -> None:
    t = Transform(
        "filler",
        {},
        0,
        "conservative-extension",
        (tuple(range(1, base.num_vars + 1)),),
        tuple(range(base.num_clauses + 1)),
        result.num_vars,
        added_clauses=tuple(tuple(c) for c in result.clauses[base.num_clauses :]),
        fresh_vars=fresh,
        witness=witness,
    )
    with pytest.raises(ProofError, match="witness does not extend") as info:
        prove(base, result, t)
    example = info.value.counterexample
    assert example is not None
    model = {result.var(name): value for name, value in example.items()}
    assert all(model[abs(w)] == (w > 0) for w in witness)
    assert not satisfies([list(c) for c in result.clauses], model)


def test_a_renaming_with_two_maps_is_refused() -> None:
    """A 'renaming' that records two literal maps (the base twice) is not a renaming."""
    base = Formula([[1, 2], [-1, 2]])
    result = Formula([[1, 2], [-1, 2], [1, 2], [-1, 2]])
    t = Transform("rename", {}, 0, "equivalent-under-map", ((1, 2), (1, 2)), (0, 1, 2, 3), 2)
    with pytest.raises(ProofError, match="exactly one literal map"):
        prove(base, result, t)


@pytest.mark.parametrize(
    ("relation", "base", "words"),
    [
        ("conservative-extension", Formula([[1, 2]]), "an extension has exactly one"),
        ("label-preserving-monotone", Formula([[1], [-1]]), "a monotone extension has exactly"),
    ],
)
def test_an_extension_with_two_maps_is_refused(relation: str, base: Formula, words: str) -> None:
    clauses = [list(c) for c in base.clauses]
    result = Formula(clauses + clauses, num_vars=base.num_vars)
    identity = tuple(range(1, base.num_vars + 1))
    sources = tuple(range(2 * base.num_clauses))
    t = Transform("filler", {}, 0, relation, (identity, identity), sources, base.num_vars)
    with pytest.raises(ProofError, match=words):
        prove(base, result, t)


def extension(fresh: tuple[int, ...]) -> Transform:
    """Base (x1) mapped to x2, plus the unit clause (x1) over the fresh variable x1."""
    return Transform(
        "filler",
        {},
        0,
        "conservative-extension",
        ((2,),),
        (0, 1),
        2,
        added_clauses=((1,),),
        fresh_vars=fresh,
        witness=(1,),
    )


def test_an_extension_whose_fresh_variable_is_variable_1_is_proved() -> None:
    proof = prove(Formula([[1]]), Formula([[2], [1]]), extension((1,)))
    assert proof.result == "proved"


def test_an_extension_must_record_each_fresh_variable_once() -> None:
    with pytest.raises(ProofError, match="fresh variables"):
        prove(Formula([[1]]), Formula([[2], [1]]), extension((1, 1)))


def test_a_copy_product_that_records_fresh_variables_is_refused() -> None:
    """A copy product introduces no fresh variables and needs no witness; a record that
    claims either does not describe the step, even when the copies themselves are right."""
    base = Formula([[1, 2]])
    result = Formula([[1, 2], [3, 4]])
    t = Transform("duplicate", {}, 0, "equisatisfiable-copy-product", ((1, 2), (3, 4)), (0, 1), 4)
    assert prove(base, result, t).result == "proved"  # the record without the extra field
    for bad in (replace(t, fresh_vars=(3,)), replace(t, witness=(3,))):
        with pytest.raises(ProofError, match="no fresh variables"):
            prove(base, result, bad)


def test_a_copy_product_with_clauses_beyond_its_copies_is_refused() -> None:
    """Bug: pairing the permutation's positions with the result's clauses without first
    checking the counts. Clauses past the permutation's end are then never looked at, and
    a result made unsatisfiable by two extra units passes as a copy of a satisfiable base."""
    base = Formula([[1, 2]])
    result = Formula([[1, 2], [3, 4], [1], [-1]])
    t = Transform("duplicate", {}, 0, "equisatisfiable-copy-product", ((1, 2), (3, 4)), (0, 1), 4)
    assert solve(base).status == "SAT" and solve(result).status == "UNSAT"
    with pytest.raises(ProofError, match="one clause per clause of each copy"):
        prove(base, result, t)


def test_a_copy_product_with_a_variable_outside_every_copy_is_refused() -> None:
    """The result of a copy product is the copies and nothing else: a fifth variable that
    no copy maps onto (here one that occurs in no clause) makes the record not describe
    the step, so it is refused rather than proved."""
    base = Formula([[1, 2]])
    result = Formula([[1, 2], [3, 4]], num_vars=5)
    t = Transform("duplicate", {}, 0, "equisatisfiable-copy-product", ((1, 2), (3, 4)), (0, 1), 5)
    with pytest.raises(ProofError, match="do not cover"):
        prove(base, result, t)
