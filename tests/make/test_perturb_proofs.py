"""The Z3 proofs reject wrong results and wrong certificates, with counterexamples."""

from __future__ import annotations

from dataclasses import replace
from itertools import product

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import holds
from tests.support.formula_strategies import TRUTH_TABLE_CNFS
from twosat_formal._util.per_process import PerProcess
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ProofError
from twosat_formal.make.perturb import OPERATORS, prove
from twosat_formal.make.perturb import proofs as proofs_module
from twosat_formal.make.perturb.proofs import Z3Session

BASE = Formula.from_named([["a", "b"], ["~a", "c"], ["~b", "~c"]])
UNSAT = Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]])


def falsifies(f: Formula, assignment: dict[str, bool]) -> bool:
    return not f.evaluate(assignment)


def test_equivalence_counterexample_is_a_real_difference() -> None:
    _, t = OPERATORS.get("reorder").apply(BASE, seed=1)
    wrong = Formula.from_named([["a", "b"], ["~a", "c"], ["~b", "c"]])
    with pytest.raises(ProofError, match="not equivalent") as err:
        prove(BASE, wrong, t)
    cex = err.value.counterexample
    assert cex is not None
    assert BASE.evaluate(cex) != wrong.evaluate(cex)


def test_equivalence_needs_the_identity_map() -> None:
    new, t = OPERATORS.get("reorder").apply(BASE, seed=1)
    with pytest.raises(ProofError, match="identity literal map"):
        prove(BASE, new, replace(t, literal_map=((2, 1, 3),)))
    with pytest.raises(ProofError, match="no fresh variables"):
        prove(BASE, new, replace(t, witness=(1,)))


def test_renaming_under_a_wrong_map_fails() -> None:
    new, t = OPERATORS.get("rename").apply(BASE, seed=2, flip=0.5)
    lmap = t.literal_map[0]
    wrong_map = (-lmap[0], *lmap[1:])
    with pytest.raises(ProofError, match="not the base under the literal map") as err:
        prove(BASE, new, replace(t, literal_map=(wrong_map,)))
    cex = err.value.counterexample
    assert cex is not None and set(cex) <= set(new.names)
    not_bijective = (lmap[0], lmap[0], lmap[2])
    with pytest.raises(ProofError, match="same variable"):
        prove(BASE, new, replace(t, literal_map=(not_bijective,)))


def test_renaming_must_be_onto() -> None:
    base = Formula([[1, 2]], num_vars=2)
    t = OPERATORS.get("rename").apply(base, shuffle=False)[1]
    bigger = Formula([[1, 2]], num_vars=3)
    with pytest.raises(ProofError, match="not onto"):
        prove(base, bigger, replace(t, num_vars=3))


def test_conservative_extension_needs_a_working_witness() -> None:
    new, t = OPERATORS.get("filler").apply(BASE, seed=3, count=4)
    bad_witness = tuple(-w for w in t.witness)
    # a witness falsifying some filler clause cannot extend the base's models
    falsified = not Formula([list(c) for c in t.added_clauses], num_vars=new.num_vars).evaluate(
        {abs(w): w > 0 for w in bad_witness}
    )
    if falsified:
        with pytest.raises(ProofError, match="witness does not extend"):
            prove(BASE, new, replace(t, witness=bad_witness))
    with pytest.raises(ProofError, match="each fresh variable exactly one value"):
        prove(BASE, new, replace(t, witness=t.witness[:-1]))
    with pytest.raises(ProofError, match="recorded fresh variables"):
        prove(BASE, new, replace(t, fresh_vars=t.fresh_vars[:-1]))


def test_conservative_extension_with_an_unsat_filler_part_fails() -> None:
    new, t = OPERATORS.get("filler").apply(BASE, seed=3, count=1, variables=2)
    extra = Formula(
        [*[list(c) for c in new.clauses], [4, 5], [-4, 5], [4, -5], [-4, -5]],
        num_vars=5,
        names=new.names,
    )
    t2 = replace(
        t,
        added_clauses=(*t.added_clauses, (4, 5), (-4, 5), (4, -5), (-4, -5)),
        clause_permutation=(*t.clause_permutation, 4, 5, 6, 7),
    )
    with pytest.raises(ProofError, match="witness does not extend"):
        prove(BASE, extra, t2)


def test_result_that_drops_a_base_clause_is_no_extension() -> None:
    new, t = OPERATORS.get("filler").apply(BASE, seed=3, count=2)
    dropped = Formula([list(c) for c in new.clauses[1:]], num_vars=new.num_vars, names=new.names)
    with pytest.raises(ProofError, match="does not entail the base") as err:
        prove(BASE, dropped, t)
    cex = err.value.counterexample
    assert cex is not None
    assert dropped.evaluate(cex) and not BASE.evaluate({k: cex[k] for k in BASE.names})


def test_monotone_proof_needs_an_unsat_base_and_a_superset() -> None:
    _, t = OPERATORS.get("filler").apply(UNSAT, seed=1, count=3, over="existing")
    assert t.proof is not None and t.proof.method == "z3:monotonicity+base-unsat"
    sat_base = Formula([[1, 2], [-1, 2], [1, -2]])
    grown = Formula([*sat_base.clauses, (1, 2)])
    t_sat = replace(t, added_clauses=((1, 2),), clause_permutation=(0, 1, 2, 3), num_vars=2)
    with pytest.raises(ProofError, match="base is satisfiable") as err:
        prove(sat_base, grown, t_sat)
    cex = err.value.counterexample
    assert cex is not None and sat_base.evaluate(cex)
    weaker = Formula([list(c) for c in UNSAT.clauses[:3]])  # drops (~x1 | ~x2)
    with pytest.raises(ProofError, match="does not contain the base"):
        prove(UNSAT, weaker, t)


def test_copy_product_checks() -> None:
    new, t = OPERATORS.get("duplicate").apply(BASE, seed=5, layout="interleaved", permute=True)
    with pytest.raises(ProofError, match="shares variables"):
        prove(BASE, new, replace(t, literal_map=(t.literal_map[0], t.literal_map[0])))
    swapped = list(t.clause_permutation)
    i = swapped.index(0)
    j = swapped.index(5)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    with pytest.raises(ProofError, match="uses variables of another copy"):
        prove(BASE, new, replace(t, clause_permutation=tuple(swapped)))
    changed = Formula(
        [list(c) if k else [-c[0], *c[1:]] for k, c in enumerate(new.clauses)],
        num_vars=new.num_vars,
        names=new.names,
    )
    with pytest.raises(ProofError, match="is not the base under its literal map"):
        prove(BASE, changed, t)
    with pytest.raises(ProofError, match="adds no clauses"):
        prove(BASE, new, replace(t, witness=(1,)))


def test_shape_and_variable_count_are_checked() -> None:
    new, t = OPERATORS.get("reorder").apply(BASE, seed=1)
    with pytest.raises(ProofError, match="not a permutation"):
        prove(BASE, new, replace(t, clause_permutation=(0, 1)))
    with pytest.raises(ProofError, match="records 3"):
        prove(BASE, Formula([list(c) for c in new.clauses], num_vars=4), t)


def test_unknown_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    # a fresh session: one that found this query unsat before answers it from memory
    monkeypatch.setattr(proofs_module, "session", PerProcess(proofs_module.Z3Session))
    session = proofs_module.session()
    monkeypatch.setattr(session.solver, "check", lambda *a: z3.unknown)
    with pytest.raises(ProofError, match="unknown"):
        OPERATORS.get("reorder").apply(BASE, seed=1)


def test_session_queries_agree_with_brute_force() -> None:
    s = Z3Session()
    clauses = [[1, -2], [2, 3], [-1, -3]]
    models = [
        a
        for a in product((False, True), repeat=3)
        if all(any(a[abs(x) - 1] == (x > 0) for x in c) for c in clauses)
    ]
    model = s.model_of(clauses)
    assert model is not None and tuple(model[v] for v in (1, 2, 3)) in models
    assert s.model_of([[1], [-1]]) is None
    assert s.model_of([[]]) is None
    assert s.entails(clauses, []) is None
    assert s.entails([], [[1, -1]]) is None
    assert s.entails(clauses, [[1, 3]]) is None  # (1 | -2) & (2 | 3) gives 1 | 3
    assert s.entails(clauses, [[1]]) is not None
    assert s.entails(clauses, [[1]], units=[2]) is None
    assert s.seconds > 0


@settings(max_examples=80)
@given(
    TRUTH_TABLE_CNFS,
    TRUTH_TABLE_CNFS,
    st.lists(st.integers(1, 4).flatmap(lambda v: st.sampled_from([v, -v]))),
)
def test_entailment_agrees_with_brute_force(
    premise: list[list[int]], conclusion: list[list[int]], units: list[int]
) -> None:
    """One shared session answers a stream of queries; push/pop leaves nothing behind."""
    s = proofs_module.session()
    every = list(product((False, True), repeat=4))
    expected = all(
        holds(conclusion, a)
        for a in every
        if holds(premise, a) and all(a[abs(u) - 1] == (u > 0) for u in units)
    )
    cex = s.entails(premise, conclusion, units)
    assert (cex is None) == expected
    if cex is not None:
        a = tuple(cex.get(v, False) for v in range(1, 5))
        assert holds(premise, a) and not holds(conclusion, a)
    model = s.model_of(premise)
    assert (model is None) == (not any(holds(premise, a) for a in every))
    if model is not None:
        assert holds(premise, tuple(model.get(v, False) for v in range(1, 5)))


def test_proof_records_method_and_time() -> None:
    for name, params, method in [
        ("reorder", {}, "z3:equivalence"),
        ("bridge-move", {"clause": 0}, "z3:equivalence"),
        ("rename", {}, "z3:equivalence-under-map"),
        ("flip", {}, "z3:equivalence-under-map"),
        ("filler", {}, "z3:conservative-extension+witness"),
        ("duplicate", {}, "z3:copy-product"),
    ]:
        _, t = OPERATORS.get(name).apply(BASE, seed=0, **params)
        assert t.proof is not None
        assert (t.proof.method, t.proof.result) == (method, "proved")
        assert t.proof.seconds >= 0
