"""Every operator and chain keeps the relation it records, checked without Z3.

Small results (at most 12 variables) are checked by enumerating every assignment;
larger ones with PySAT (MiniSat), with a Tseitin encoding of the negated side. None
of the checkers below uses the code under test beyond reading the formulas and the
recorded maps.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ProofError
from twosat_formal.make.perturb import OPERATORS, Transform, apply_chain

Clauses = list[tuple[int, ...]]
BRUTE_LIMIT = 12

# -- independent semantics -------------------------------------------------------------------


def clause_list(f: Formula) -> Clauses:
    return [tuple(int(x) for x in c) for c in f.clauses]


def satisfies(clauses: Clauses, a: Sequence[bool]) -> bool:
    """``a[v - 1]`` is the value of variable ``v``."""
    return all(any(a[abs(x) - 1] == (x > 0) for x in c) for c in clauses)


def models(f: Formula) -> set[tuple[bool, ...]]:
    cl = clause_list(f)
    return {a for a in product((False, True), repeat=f.num_vars) if satisfies(cl, a)}


def pull_back(a: Sequence[bool], lmap: Sequence[int]) -> tuple[bool, ...]:
    """The base assignment that a result assignment ``a`` gives through ``lmap``."""
    return tuple(a[abs(w) - 1] == (w > 0) for w in lmap)


def pysat_sat(clauses: Clauses, assumptions: Sequence[int] = ()) -> bool:
    with Minisat22(bootstrap_with=[list(c) for c in clauses]) as s:
        return bool(s.solve(assumptions=list(assumptions)))


def pysat_entails(premise: Clauses, conclusion: Clauses, top: int) -> bool:
    """premise ⊨ conclusion: premise ∧ ¬conclusion is unsat (one selector per clause)."""
    neg: Clauses = []
    selectors = []
    for k, c in enumerate(conclusion):
        d = top + 1 + k
        selectors.append(d)
        neg.extend((-d, -x) for x in c)
    return not pysat_sat([*premise, *neg, tuple(selectors)])


def mapped(f: Formula, lmap: Sequence[int]) -> Clauses:
    return [tuple(lmap[x - 1] if x > 0 else -lmap[-x - 1] for x in c) for c in clause_list(f)]


def pysat_models(clauses: Clauses, n: int, limit: int) -> list[list[int]]:
    out: list[list[int]] = []
    with Minisat22(bootstrap_with=[list(c) for c in clauses]) as s:
        while len(out) < limit and s.solve():
            m = [x for x in s.get_model() if abs(x) <= n]
            m += [-v for v in range(1, n + 1) if v not in {abs(x) for x in m}]
            out.append(m)
            s.add_clause([-x for x in m])
    return out


def check_relation(base: Formula, new: Formula, t: Transform) -> None:
    """Assert the relation ``t`` records between ``base`` and ``new``."""
    assert new.num_vars == t.num_vars
    small = new.num_vars <= BRUTE_LIMIT and base.num_vars <= BRUTE_LIMIT
    if small:
        check_brute(base, new, t)
    else:
        check_pysat(base, new, t)


def check_brute(base: Formula, new: Formula, t: Transform) -> None:
    base_models, new_models = models(base), models(new)
    if t.relation == "equivalent":
        assert new.num_vars == base.num_vars
        assert new_models == base_models
    elif t.relation == "equivalent-under-map":
        (lmap,) = t.literal_map
        assert sorted(abs(w) for w in lmap) == list(range(1, new.num_vars + 1))
        every = product((False, True), repeat=new.num_vars)
        assert {a for a in every if pull_back(a, lmap) in base_models} == new_models
    elif t.relation == "conservative-extension":
        (lmap,) = t.literal_map
        assert {pull_back(a, lmap) for a in new_models} == base_models
    elif t.relation == "label-preserving-monotone":
        assert not base_models
        assert not new_models
    elif t.relation == "equisatisfiable-copy-product":
        assert len(new_models) == len(base_models) ** t.copies
        for a in new_models:
            for lmap in t.literal_map:
                assert pull_back(a, lmap) in base_models
    else:  # pragma: no cover - a new relation needs a checker here
        raise AssertionError(t.relation)


def check_pysat(base: Formula, new: Formula, t: Transform) -> None:
    top = max(new.num_vars, base.num_vars)
    new_cl = clause_list(new)
    if t.relation in ("equivalent", "equivalent-under-map"):
        side = clause_list(base) if t.relation == "equivalent" else mapped(base, t.literal_map[0])
        assert pysat_entails(side, new_cl, top)
        assert pysat_entails(new_cl, side, top)
    elif t.relation == "conservative-extension":
        side = mapped(base, t.literal_map[0])
        assert pysat_entails(new_cl, side, top)
        # every base model tried extends to a model of the result (no witness used)
        for m in pysat_models(clause_list(base), base.num_vars, 5):
            image = [t.literal_map[0][abs(x) - 1] * (1 if x > 0 else -1) for x in m]
            assert pysat_sat(new_cl, image)
        assert pysat_sat(new_cl) == pysat_sat(clause_list(base))
    elif t.relation == "label-preserving-monotone":
        assert not pysat_sat(clause_list(base))
        assert not pysat_sat(new_cl)
    elif t.relation == "equisatisfiable-copy-product":
        assert pysat_sat(new_cl) == pysat_sat(clause_list(base))
        for m in pysat_models(new_cl, new.num_vars, 3):
            value = {abs(x): x > 0 for x in m}
            for lmap in t.literal_map:
                back = [value[abs(w)] == (w > 0) for w in lmap]
                assert satisfies(clause_list(base), back)
    else:  # pragma: no cover
        raise AssertionError(t.relation)


def brute_sat(f: Formula) -> bool:
    cl = clause_list(f)
    return any(satisfies(cl, a) for a in product((False, True), repeat=f.num_vars))


# -- strategies ----------------------------------------------------------------------------------


@st.composite
def two_cnfs(
    draw: st.DrawFn, min_vars: int = 1, max_vars: int = 6, max_clauses: int = 14
) -> Formula:
    n = draw(st.integers(min_vars, max_vars))
    lit = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clause = st.lists(lit, min_size=1, max_size=2)
    clauses = draw(st.lists(clause, max_size=max_clauses))
    named = draw(st.booleans())
    names = [f"n{i}" for i in range(1, n + 1)] if named else None
    return Formula(clauses, num_vars=n, names=names)


@st.composite
def steps(draw: st.DrawFn, f: Formula, unsat: bool) -> tuple[str, dict[str, object]]:
    """An operator and parameters that apply to ``f`` (filler over existing only if UNSAT)."""
    m = f.num_clauses
    names = ["reorder", "rename", "flip", "filler", "duplicate"]
    if m:
        names.append("bridge-move")
    op = draw(st.sampled_from(names))
    params: dict[str, object] = {}
    if op == "reorder":
        order = draw(st.sampled_from(["shuffled", "reversed", "construction", "explicit"]))
        params["order"] = order
        if order == "explicit":
            params["permutation"] = draw(st.permutations(range(m)))
    elif op == "rename":
        params["names"] = draw(st.sampled_from(["permute", "fresh"]))
        params["shuffle"] = draw(st.booleans())
        params["flip"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
    elif op == "flip":
        if draw(st.booleans()):
            params["variables"] = draw(st.lists(st.sampled_from(f.names), unique=True))
        else:
            params["fraction"] = draw(st.floats(0, 1))
    elif op == "filler":
        params["count"] = draw(st.integers(0, 5))
        params["placement"] = draw(st.sampled_from(["end", "start", "interleave"]))
        if unsat and len(f.used_variables) >= 2 and draw(st.booleans()):
            params["over"] = "existing"
        elif draw(st.booleans()):
            params["variables"] = draw(st.integers(2, 4))
    elif op == "duplicate":
        params["copies"] = draw(st.integers(2, 3))
        params["layout"] = draw(st.sampled_from(["grouped", "interleaved"]))
        params["permute"] = draw(st.booleans())
    else:
        params["clause"] = draw(st.integers(0, m - 1))
        how = draw(st.sampled_from(["position", "relative", "random"]))
        if how == "position":
            params["position"] = draw(st.integers(0, m - 1))
        elif how == "relative":
            params["relative"] = draw(st.floats(0, 1))
    return op, params


SETTINGS = settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])


# -- properties ------------------------------------------------------------------------------------


@SETTINGS
@given(st.data(), two_cnfs(), st.integers(0, 2**31 - 1))
def test_every_operator_keeps_its_relation_small(
    data: st.DataObject, base: Formula, seed: int
) -> None:
    op, params = data.draw(steps(base, unsat=not brute_sat(base)))
    new, t = OPERATORS.get(op).apply(base, seed=seed, **params)
    assert t.operator == op
    assert t.proof is not None
    assert t.proof.result == "proved"
    check_relation(base, new, t)
    assert brute_sat(new) == brute_sat(base)
    assert t.rebuild(base) == new


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), two_cnfs(min_vars=13, max_vars=30, max_clauses=60), st.integers(0, 2**31 - 1))
def test_every_operator_keeps_its_relation_large(
    data: st.DataObject, base: Formula, seed: int
) -> None:
    unsat = not pysat_sat(clause_list(base))
    op, params = data.draw(steps(base, unsat=unsat))
    new, t = OPERATORS.get(op).apply(base, seed=seed, **params)
    check_relation(base, new, t)
    assert pysat_sat(clause_list(new)) == (not unsat)


@SETTINGS
@given(st.data(), two_cnfs(max_vars=4, max_clauses=8), st.integers(0, 2**31 - 1))
def test_chains_keep_every_relation_and_the_label(
    data: st.DataObject, base: Formula, seed: int
) -> None:
    count = data.draw(st.integers(1, 3))
    specs = []
    current = base
    for _ in range(count):
        # parameters are drawn for the formula the step will see, so apply as we go
        spec = data.draw(steps(current, unsat=not brute_sat(current)))
        specs.append(spec)
        if spec[0] == "duplicate":
            spec[1]["copies"] = 2
        current, _ = OPERATORS.get(spec[0]).apply(current, seed=0, **spec[1])
        assume(current.num_vars <= BRUTE_LIMIT)
    new, chain = apply_chain(base, specs, seed=seed)
    assert [t.operator for t in chain.steps] == [op for op, _ in specs]
    step_base = base
    for t in chain.steps:
        step_result = t.rebuild(step_base)
        check_relation(step_base, step_result, t)
        step_base = step_result
    assert step_base == new
    assert brute_sat(new) == brute_sat(base)


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(two_cnfs(), st.integers(0, 2**31 - 1))
def test_filler_over_existing_variables_refuses_a_satisfiable_base(
    base: Formula, seed: int
) -> None:
    assume(len(base.used_variables) >= 2 and brute_sat(base))
    with pytest.raises(ProofError, match="base is satisfiable"):
        OPERATORS.get("filler").apply(base, seed=seed, over="existing", count=2)


def test_checkers_are_not_vacuous() -> None:
    """The independent checkers reject a wrong relation (so the properties can fail)."""
    base = Formula([[1, 2], [-1]])
    _, t = OPERATORS.get("reorder").apply(base, seed=0)
    wrong = Formula([[1, 2], [1]])
    with pytest.raises(AssertionError):
        check_brute(base, wrong, t)
    big = Formula([[1, 2], [-1], [13, 14]], num_vars=14)
    _, tb = OPERATORS.get("reorder").apply(big, seed=0, order="construction")
    with pytest.raises(AssertionError):
        check_pysat(big, Formula([[1, 2], [1], [13, 14]], num_vars=14), tb)
    rename_new, tr = OPERATORS.get("rename").apply(base, seed=3, flip=1.0)
    check_brute(base, rename_new, tr)
    first, *rest = clause_list(rename_new)
    flipped_wrong = Formula([(-first[0], *first[1:]), *rest], num_vars=2)
    with pytest.raises(AssertionError):
        check_brute(base, flipped_wrong, tr)
