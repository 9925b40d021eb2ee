"""``trace`` reads claims written as formulas over the prompt's entities and judges them.

The expected kind of each claim is decided here by brute force over the formula's
models (``entailed``: true in every model; ``contradicted``: false in every model;
``clause``: equivalent to a clause of the formula), independently of sympy and the
solvers the checker uses.
"""

from __future__ import annotations

import json
from itertools import pairwise, product
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import run
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics.claims import FORMS
from twosat_formal.evaluate.diagnostics.trace import check_trace
from twosat_formal.verbalize import prompt_record

# SAT: a and b forced true; c | d free
SAT = Formula.from_named([["~a", "b"], ["a"], ["c", "d"]])
UNSAT = Formula.from_named([["~a", "b"], ["~b", "~a"], ["a", "c"], ["~c", "a"], ["d", "e"]])


def entities_of(formula: Formula, template: str = "logic") -> dict[str, str]:
    return prompt_record(formula, template, instance_id="i", seed=5).entities


Tree = tuple[Any, ...]


def trees(names: list[str]) -> st.SearchStrategy[Tree]:
    leaves = st.sampled_from(names).map(lambda n: ("var", n))
    return st.recursive(
        leaves,
        lambda inner: (
            inner.map(lambda t: ("not", t))
            | st.tuples(st.sampled_from(["and", "or", "implies", "iff", "xor"]), inner, inner)
        ),
        max_leaves=5,
    ).filter(lambda t: t[0] != "var")


SPELL = {
    "not": ["¬", "~", "not "],
    "and": [" ∧ ", " & ", " and "],
    "or": [" ∨ ", " | ", " or "],
    "implies": [" → ", " -> ", " ⇒ ", " => "],
    "iff": [" ↔ ", " <-> ", " ⇔ "],
    "xor": [" ⊕ ", " ^ "],
}


def text_of(tree: Tree, pick: st.DataObject) -> str:
    op, *args = tree
    if op == "var":
        return str(args[0])
    if op == "not":
        return pick.draw(st.sampled_from(SPELL["not"])) + text_of(args[0], pick)
    sign = pick.draw(st.sampled_from(SPELL[op]))
    return "(" + sign.join(text_of(a, pick) for a in args) + ")"


def value(tree: Tree, row: dict[str, bool]) -> bool:
    op, *args = tree
    if op == "var":
        return row[args[0]]
    vals = [value(a, row) for a in args]
    return {
        "not": lambda: not vals[0],
        "and": lambda: vals[0] and vals[1],
        "or": lambda: vals[0] or vals[1],
        "implies": lambda: not vals[0] or vals[1],
        "iff": lambda: vals[0] == vals[1],
        "xor": lambda: vals[0] != vals[1],
    }[op]()


def expected_kind(tree: Tree, formula: Formula, variable: dict[str, str]) -> str:
    """The kind by brute force over every assignment of the formula's variables."""
    names = list(formula.names)
    rows = [
        dict(zip(names, bits, strict=True)) for bits in product([False, True], repeat=len(names))
    ]

    def claim(row: dict[str, bool]) -> bool:
        return value(tree, {entity: row[var] for entity, var in variable.items()})

    def clause_holds(clause: Any, row: dict[str, bool]) -> bool:
        return any(row[formula.name(abs(lit))] == (lit > 0) for lit in clause)

    if any(all(claim(r) == clause_holds(c, r) for r in rows) for c in formula.clauses):
        return "clause"
    models = [r for r in rows if all(clause_holds(c, r) for c in formula.clauses)]
    if all(claim(r) for r in models):
        return "entailed"
    if not any(claim(r) for r in models):
        return "contradicted"
    return "unsupported"


@settings(max_examples=120, deadline=None)
@given(trees(["A", "B", "C", "D"]), st.data())
def test_formula_claims_get_their_brute_force_kind(tree: Tree, pick: st.DataObject) -> None:
    entities = entities_of(SAT)
    sentence = text_of(tree, pick)
    trace = check_trace(f"So {sentence}.\nThe answer is: Yes", "logic", entities, SAT)
    (claim,) = trace.claims
    assert claim.form == "formula" and claim.text.endswith(sentence + ".")
    assert claim.kind == expected_kind(tree, SAT, entities), sentence
    assert trace.read == trace.sentences == 1
    assert trace.coverage_by_form()["formula"] == 1.0


def test_the_issue_examples_and_their_kinds() -> None:
    entities = entities_of(SAT)  # A: a, C: b, D: c, B: d
    text = (
        "A → (C ∧ ¬D).\n"  # a -> (b & ~c): c is free, so unsupported
        "A = 1, C = 0.\n"  # contradicted: a and b are forced true
        "¬A ∨ C.\n"  # the clause ~a | b
        "A ∧ C.\n"  # entailed
        "D ∨ B.\n"  # the clause c | d
        "not (D or B).\n"  # contradicted
        "A = 1; C = 1.\n"  # entailed
        "If A is true, then C is true.\n"  # the conditional form, as before: ~a | b
        "Q → A.\n"  # Q is no entity: not read
        "A →.\n"  # not a formula: not read
        "The answer is: Yes"
    )
    trace = check_trace(text, "logic", entities, SAT)
    kinds = [(c.form, c.kind, c.expression) for c in trace.claims]
    assert kinds == [
        ("formula", "unsupported", "(a -> (b & ~c))"),
        ("formula", "contradicted", "(a & ~b)"),
        ("formula", "clause", "(~a | b)"),
        ("formula", "entailed", "(a & b)"),
        ("formula", "clause", "(c | d)"),
        ("formula", "contradicted", "~(c | d)"),
        ("formula", "entailed", "(a & b)"),
        ("conditional", "clause", None),
    ]
    assert (trace.sentences, trace.read) == (10, 8)
    by_form = trace.coverage_by_form()
    assert set(by_form) == {*FORMS, "supposition"}
    assert by_form["formula"] == 7 / 10 and by_form["conditional"] == 1 / 10
    assert sum(v for v in by_form.values() if v) == pytest.approx(trace.coverage)
    single = trace.claims[2].to_json(SAT)
    assert single["literals"] == ["~a", "b"] and single["expression"] == "(~a | b)"
    assert trace.claims[0].to_json(SAT)["literals"] == []
    assert "expression" not in trace.claims[7].to_json(SAT)


def test_formula_claims_on_an_unsat_formula_follow_the_implication_chains() -> None:
    entities = entities_of(UNSAT)
    entity = {var: name for name, var in entities.items()}
    a, b, d, e = entity["a"], entity["b"], entity["d"], entity["e"]
    text = f"{a} ∧ ¬{a}.\n{a} → {b}.\n{d} ∨ {e}.\n¬{d} ∧ ¬{e}.\n{d} ∧ {e}.\n"
    trace = check_trace(text, "logic", entities, UNSAT)
    assert trace.basis == "implications"
    assert [c.kind for c in trace.claims] == [
        "entailed",  # a and ~a both derive along the contradiction cycle
        "clause",
        "clause",
        "contradicted",  # its negation d | e is a clause
        "unsupported",  # the chains give neither d nor ~d
    ]


def test_claims_past_the_bounds_are_counted_not_read() -> None:
    formula = Formula.from_named([[f"v{i}", f"v{i + 1}"] for i in range(9)])
    entities = entities_of(formula)
    names = list(entities)
    wide = " ∧ ".join(f"({x} ∨ {y})" for x, y in pairwise(names))
    deep = "¬" * 70 + names[0] + " ∧ " + names[1]
    trace = check_trace(f"{wide}.\n{deep}.\n", "logic", entities, formula)
    assert trace.claims == () and (trace.sentences, trace.read) == (2, 0)


def test_trace_rows_carry_coverage_by_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from twosat_formal.io.instance import write_instances
    from twosat_formal.make.generators import generate

    data, prompts, store = tmp_path / "d.jsonl", tmp_path / "p.jsonl", tmp_path / "s.sqlite"
    write_instances([generate("implication-cycle", clauses=8, seed=2)], data)
    assert run(["verbalize", str(data), "-t", "logic", "--out", str(prompts)], capsys)[0] == 0
    argv = ["eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle"]
    assert run([*argv, "--store", str(store), "--no-progress"], capsys)[0] == 0
    out = tmp_path / "t.jsonl"
    assert run(["trace", str(store), "--out", str(out)], capsys)[0] == 0
    (row,) = map(json.loads, out.read_text().splitlines())
    assert set(row["coverage_by_form"]) == {*FORMS, "supposition"}
    assert sum(v for v in row["coverage_by_form"].values() if v) == pytest.approx(row["coverage"])
