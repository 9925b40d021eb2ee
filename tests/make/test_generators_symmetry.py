"""symmetry: d disjoint isomorphic copies, layouts, trigger placement, label and M^d models."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from tests.support.generators import assert_rejects, knob_settings
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators import FAMILIES, generate
from twosat_formal.make.generators.symmetry import resolve, symmetry


def pysat_sat(formula: Formula) -> bool:
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        return bool(solver.solve())


def brute_force_count(formula: Formula) -> int:
    n = formula.num_vars
    rows = np.arange(2**n, dtype=np.int64)
    values = ((rows[:, None] >> np.arange(n)) & 1).astype(bool)
    ok = np.ones(len(rows), dtype=bool)
    for clause in formula.clauses:
        sat = np.zeros(len(rows), dtype=bool)
        for lit in clause:
            sat |= values[:, abs(lit) - 1] if lit > 0 else ~values[:, abs(lit) - 1]
        ok &= sat
    return int(ok.sum())


def rebuild_base(formula: Formula, structure: dict, copy: int) -> list[tuple[int, ...]]:
    """The clauses of one copy, renamed back to the base and put in base order."""
    back = {formula.var(new): int(old[1:]) for old, new in structure["renamings"][copy].items()}
    clauses = {}
    for i, (c, j) in enumerate(
        zip(structure["copy_of_clause"], structure["base_clause_of"], strict=True)
    ):
        if c == copy:
            clauses[j] = tuple(back[abs(lit)] * (1 if lit > 0 else -1) for lit in formula.clause(i))
    return [clauses[j] for j in range(len(clauses))]


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32),
    base=st.sampled_from(["implication-cycle", "equivalence-core", "backbone", "mono-bridge"]),
    copies=st.integers(2, 4),
    base_clauses=st.integers(3, 12),
    layout=knob_settings(
        layout=st.sampled_from(["grouped", "interleaved"]),
        copy_shuffle=st.booleans(),
        copy_permute=st.booleans(),
    ),
)
def test_disjoint_isomorphic_copies(
    seed: int, base: str, copies: int, base_clauses: int, layout: dict[str, Any]
) -> None:
    if base == "equivalence-core":
        base_clauses -= base_clauses % 2  # its core has an even number of clauses
    clauses = copies * base_clauses
    f, s = symmetry(random.Random(seed), clauses, base=base, copies=copies, **layout)
    assert abs(f.num_clauses - clauses) <= 1
    m, nb = s["base_clauses"], s["base_vars"]
    assert f.num_clauses == copies * m and f.num_vars == copies * nb
    assert sorted(s["copy_of_clause"]) == [c for c in range(copies) for _ in range(m)]
    # Disjoint: each copy owns its variables; together they are all the variables.
    owned = []
    for c in range(copies):
        used = {
            abs(lit) for i, cc in enumerate(s["copy_of_clause"]) if cc == c for lit in f.clause(i)
        }
        names = set(s["renamings"][c].values())
        assert {f.name(v) for v in used} <= names
        owned.append(names)
    assert sum(len(o) for o in owned) == len(set().union(*owned)) == f.num_vars
    # Isomorphic: every copy renamed back is the base, clause for clause.
    base_formula = rebuild_base(f, s, 0)
    assert len(base_formula) == m
    for c in range(1, copies):
        assert rebuild_base(f, s, c) == base_formula
    if not layout["copy_permute"]:
        assert all(s["renamings"][0][k] == k for k in s["renamings"][0])
    # Internal order kept (without copy_shuffle) whatever the layout.
    if not layout["copy_shuffle"]:
        for c in range(copies):
            order = [
                j for cc, j in zip(s["copy_of_clause"], s["base_clause_of"], strict=True) if cc == c
            ]
            assert order == list(range(m))
    if layout["layout"] == "grouped":
        assert s["copy_of_clause"] == sorted(s["copy_of_clause"])
    # Label equals the base's.
    assert pysat_sat(f) == (s["base"]["label"] == "SAT")


def test_model_count_is_m_to_the_d() -> None:
    for seed in range(3):
        f, s = symmetry(random.Random(seed), None, base="equivalence-core", n=4, f=2, copies=3)
        assert f.num_vars == 12
        base = Formula(rebuild_base(f, s, 0), num_vars=4)
        assert brute_force_count(base) == 4
        assert brute_force_count(f) == 4**3


def test_unsat_base_gives_unsat() -> None:
    f, s = symmetry(random.Random(1), 20, base="implication-cycle")
    assert s["base"]["label"] == "UNSAT" and not pysat_sat(f)


@pytest.mark.parametrize("trigger", ["late-early", "early-late"])
def test_trigger_placement(trigger: str) -> None:
    _, s = symmetry(
        random.Random(2), 30, base="mono-bridge", copies=3, trigger=trigger, layout="grouped"
    )
    m = s["base_clauses"]
    bridge = s["base"]["structure"]["bridge"]["index"]
    positions = s["trigger_clauses"]
    assert [s["base_clause_of"][i] for i in positions] == [bridge] * 3
    late_first = trigger == "late-early"
    expected = [c * m + (m - 1 if (c % 2 == 0) == late_first else 0) for c in range(3)]
    assert positions == expected


def test_base_file(tmp_path: Path) -> None:
    path = tmp_path / "base.cnf"
    path.write_text("p cnf 3 3\n1 -2 0\n2 3 0\n-1 -3 0\n", encoding="utf-8")
    f, s = symmetry(random.Random(0), 9, base_file=str(path))
    assert s["copies"] == 3 and f.num_clauses == 9 and f.num_vars == 9
    assert s["base"]["file"] == str(path) and len(s["base"]["sha256"]) == 64
    assert rebuild_base(f, s, 2) == [(1, -2), (2, 3), (-1, -3)]
    with pytest.raises(ConfigError) as info:
        symmetry(random.Random(0), 20, base_file=str(path), copies=2)
    assert info.value.parameter == "clauses"
    with pytest.raises(ConfigError) as info:
        symmetry(random.Random(0), None, base_file=str(path), beta=0.2)
    assert info.value.parameter == "beta"


def test_resolve_forwards_base_params() -> None:
    p = resolve(100, {"base": "backbone", "beta": 0.2})
    assert p["base_clauses"] == 50 and p["beta"] == 0.2 and p["copies"] == 2
    p = resolve(60, {"base": "equivalence-core", "base_clauses": 20})
    assert p["copies"] == 3
    assert "symmetry" in FAMILIES


@pytest.mark.parametrize(
    ("clauses", "params", "parameter"),
    [
        (20, {"base": "symmetry"}, "base"),
        (20, {"base": "nope"}, "base"),
        (20, {"copies": 1}, "copies"),
        (20, {"base": "backbone", "gamma": 1}, "gamma"),
        (20, {"layout": "zigzag"}, "layout"),
        (30, {"base": "equivalence-core", "copies": 3, "base_clauses": 5}, "clauses"),
        (20, {"base": "mono-bridge", "trigger_clause": 50}, "trigger_clause"),
    ],
)
def test_impossible_requests(
    clauses: int | None, params: dict[str, object], parameter: str
) -> None:
    assert_rejects(symmetry, clauses, params, parameter)


def test_copies_past_the_formula_limit_are_refused_before_copying() -> None:
    """Five million copies of a 3-clause base (15 million clauses) are refused by name
    before any copy is laid out, not drawn until memory runs out."""
    with pytest.raises(ConfigError) as caught:
        generate("symmetry", seed=0, base="implication-cycle", base_clauses=3, copies=5_000_000)
    assert caught.value.parameter == "copies"
    assert caught.value.valid == "2..3333333 with this base"
