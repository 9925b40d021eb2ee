"""The JSON of a solve result, byte for byte as ``json.dumps`` of the plain encoding.

:meth:`SolveResult.to_json_text` (what ``solve --json`` prints) builds it in bulk.
:func:`old_encoding` is the encoding the CLI has always printed, written out here
one Python call per literal, as it was; the fast encoders must give the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.cli import main
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.io import write_dimacs
from twosat_formal.solve import SolveResult, solve


def old_encoding(result: SolveResult, formula: Formula) -> str:
    """``json.dumps`` of the result object, names built one literal at a time."""
    out: dict[str, Any] = {"status": result.status}
    if result.model is not None:
        names = [formula.name(v) for v in range(1, formula.num_vars + 1)]
        out["model"] = dict(zip(names, map(bool, result.model), strict=True))
    if result.cycle is not None:
        out["cycle"] = [("~" if lit < 0 else "") + formula.name(abs(lit)) for lit in result.cycle]
    if result.empty_clause is not None:
        out["empty_clause"] = result.empty_clause
    out["backend"] = result.backend
    out["checked"] = result.checked
    if result.general_cnf:
        out["general_cnf"] = True
    return json.dumps(out)


NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: s not in {"not", "or", "and", "vars"}
)


@st.composite
def formulas(draw: st.DrawFn) -> Formula:
    """Random CNFs (mostly 2-CNF; some wide or empty clauses), default or given names."""
    n = draw(st.integers(0, 30))
    literal = st.integers(1, max(n, 1)).flatmap(lambda v: st.sampled_from([v, -v]))
    widths = st.sampled_from([1, 2, 2, 2, 2, 3, 0]) if draw(st.booleans()) else st.just(2)
    count = draw(st.integers(0, 3 * n + 1)) if n else 0
    clauses = [
        draw(st.lists(literal, min_size=w, max_size=w))
        for w in [draw(widths) for _ in range(count)]
    ]
    names = (
        draw(st.lists(NAME, min_size=n, max_size=n, unique=True)) if draw(st.booleans()) else None
    )
    return Formula(clauses, num_vars=n, names=names)


@pytest.mark.slow
@settings(max_examples=300)
@given(formulas(), st.sampled_from(["scc", "pysat", "z3"]))
def test_result_json_is_the_old_encoding(formula: Formula, backend: str) -> None:
    result = solve(formula, backend)
    expected = old_encoding(result, formula)
    assert json.dumps(result.to_json(formula)) == expected
    assert result.to_json_text(formula) == expected


def test_the_cli_prints_the_old_encoding(tmp_path: Any, capsys: Any) -> None:
    rng = np.random.default_rng(9)
    for clauses in (50, 400, 3000):
        for ratio in (0.5, 1.0, 2.0):
            n = int(clauses / ratio)
            pairs = rng.integers(1, n + 1, size=(clauses, 2)) * rng.choice(
                [-1, 1], size=(clauses, 2)
            )
            formula = Formula.from_pairs(pairs, num_vars=n)
            path = tmp_path / "f.cnf"
            path.write_text(write_dimacs(formula))
            try:
                main(["solve", str(path), "--json"])
            except SystemExit as stop:
                assert stop.code in (0, None)
            out = capsys.readouterr().out
            assert out == old_encoding(solve(formula), formula) + "\n"


def test_literal_names_are_literal_name_in_bulk() -> None:
    named = Formula([[1, -2], [3]], names=["a", "b_2", "C"])
    plain = Formula([[1, -2], [3]])
    lits = [1, -2, 3, -3, -1, 2]
    for formula in (named, plain):
        assert formula.literal_names(lits) == [formula.literal_name(x) for x in lits]
        assert formula.literal_names([]) == []
        for bad in ([0], [4], [-4]):
            with pytest.raises(ConfigError):
                formula.literal_names(bad)


def test_human_output_names_only_what_it_shows(tmp_path: Any, capsys: Any) -> None:
    n = 250
    formula = Formula([[v] for v in range(1, n + 1)], num_vars=n)
    path = tmp_path / "f.cnf"
    path.write_text(write_dimacs(formula))
    try:
        main(["solve", str(path)])
    except SystemExit as stop:
        assert stop.code in (0, None)
    out = capsys.readouterr().out
    shown = " ".join(f"x{v}" for v in range(1, 101))
    assert f"model: {shown} ... (150 more; --json prints all)" in out


def test_default_names_in_bulk_across_digit_counts() -> None:
    rng = np.random.default_rng(5)
    edges = [1, 2, 9, 10, 11, 99, 100, 101, 999, 1000, 1001, 99_999, 100_000, 123_456]
    n = max(edges)
    formula = Formula([[1]], num_vars=n)
    model = tuple((rng.random(n) < 0.5).tolist())
    sat = SolveResult("SAT", model=model, checked=True)
    assert sat.to_json_text(formula) == old_encoding(sat, formula)
    cycle = tuple(v * s for v in edges for s in (1, -1)) + tuple(
        (rng.integers(1, n + 1, size=500) * rng.choice([-1, 1], size=500)).tolist()
    )
    unsat = SolveResult("UNSAT", cycle=cycle, checked=True)
    assert unsat.to_json_text(formula) == old_encoding(unsat, formula)
    huge = Formula([[1]], num_vars=10**12)  # past 32-bit digits
    far = SolveResult("UNSAT", cycle=(10**12, -(2**31), 2**31 - 1, -1))
    assert far.to_json_text(huge) == old_encoding(far, huge)


@pytest.mark.parametrize("bad", [(1, 0), (1, 6), (-6, 1)])
def test_a_cycle_outside_the_variables_is_refused_in_bulk(bad: tuple[int, int]) -> None:
    with pytest.raises(ConfigError, match=r"is not in 1\.\.5"):
        SolveResult("UNSAT", cycle=bad).to_json_text(Formula([[1]], num_vars=5))


def test_a_certificate_is_read_back_from_the_array_it_was_made_from() -> None:
    from twosat_formal.solve.result import certificate_array, certificate_tuple

    made = certificate_tuple(np.array([3, -1, 2]))
    array = certificate_array(made, np.int64)
    assert made == (3, -1, 2) and array.tolist() == [3, -1, 2]
    assert not array.flags.writeable  # the remembered array cannot change under the tuple
    assert certificate_array(made, np.bool_).tolist() == [True, True, True]  # other dtype
    equal = (3, -1, 2)  # an equal tuple that was not made from it is converted afresh
    assert certificate_array(equal, np.int64) is not array
    assert certificate_array(equal, np.int64).tolist() == [3, -1, 2]
