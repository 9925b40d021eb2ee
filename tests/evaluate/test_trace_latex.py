"""``trace`` reads claims written in LaTeX, as the ``math-latex`` format writes its rules.

A LaTeX claim (``x_{1} \\lor \\neg x_{2}``, ``$x_1 \\Rightarrow x_2$``) is written in the
expression reader's syntax and read on the path of every formula claim (sympy's simplest
CNF, judged by the solver). The claims here are printed by sympy's own LaTeX printer,
or spelled with every command the reader knows, and their expected kind is decided by
brute force over the formula's models (``test_trace_formulas.expected_kind``),
independently of the reader.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.evaluate.test_trace_formulas import SAT, Tree, entities_of, expected_kind, trees
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics.claims import FORMS
from twosat_formal.evaluate.diagnostics.formula_claims import from_latex, read_formula_claim
from twosat_formal.evaluate.diagnostics.trace import check_trace

#: The entities of ``SAT`` in a ``math-latex`` prompt: ``x1`` ... ``x4``.
ENTITIES = entities_of(SAT, "math-latex")
NAMES = sorted(ENTITIES)

#: Every spelling of each operator the reader knows (``\\Rightarrow`` and its kin).
LATEX = {
    "not": ["\\neg ", "\\lnot ", "\\neg{}"],
    "and": [" \\land ", " \\wedge "],
    "or": [" \\lor ", " \\vee "],
    "implies": [" \\rightarrow ", " \\Rightarrow ", " \\to ", " \\implies ", " \\Longrightarrow "],
    "iff": [" \\leftrightarrow ", " \\Leftrightarrow ", " \\iff "],
    "xor": [" \\oplus ", " \\veebar "],
}


def sympy_of(tree: Tree) -> Any:
    """The tree as a sympy expression (left unevaluated where sympy allows)."""
    from sympy import And, Equivalent, Implies, Not, Or, Symbol, Xor

    op, *args = tree
    if op == "var":
        return Symbol(args[0])
    inner = [sympy_of(a) for a in args]
    if op == "not":
        return Not(inner[0])
    make = {"and": And, "or": Or, "implies": Implies, "iff": Equivalent, "xor": Xor}[op]
    return make(*inner, evaluate=False)


def spelled(tree: Tree, pick: st.DataObject) -> str:
    """The tree in LaTeX, each operator and name spelled as drawn (a brace group is the
    argument of a command here: a bare one would read as a JSON object, which the checker
    leaves out)."""
    op, *args = tree
    if op == "var":
        number = str(args[0])[1:]
        return pick.draw(st.sampled_from([f"x_{{{number}}}", f"x_{number}"]))
    if op == "not":
        sign = pick.draw(st.sampled_from(LATEX["not"]))
        inner = spelled(args[0], pick)
        return sign + (pick.draw(st.sampled_from([inner, "{" + inner + "}"])))
    sign = pick.draw(st.sampled_from(LATEX[op]))
    left, right = pick.draw(st.sampled_from([("(", ")"), ("\\left(", "\\right)")]))
    return left + sign.join(spelled(a, pick) for a in args) + right


def judged(sentence: str) -> tuple[str, str]:
    """The form and kind of the one claim ``sentence`` makes in a ``math-latex`` answer."""
    trace = check_trace(f"So {sentence}.\n\nThe answer is: Yes", "math-latex", ENTITIES, SAT)
    assert trace.read == trace.sentences == 1, sentence
    (claim,) = trace.claims
    return claim.form, claim.kind


@settings(max_examples=120, deadline=None)
@given(trees(NAMES))
def test_claims_printed_by_sympy_get_their_brute_force_kind(tree: Tree) -> None:
    from sympy import latex

    text = latex(sympy_of(tree))
    assume("\\text" not in text)  # sympy folded the claim to a constant
    # sympy prints a negated implication or equivalence as ``a \\not\\Rightarrow b``
    # without the parentheses its neighbours need (``c \\wedge a \\not\\Rightarrow b`` for
    # c & ~(a -> b)): ambiguous, so never read (test_other_latex_is_counted_not_read)
    assume("\\not" not in text)
    form, kind = judged(text)
    assert kind == expected_kind(tree, SAT, ENTITIES), text
    if form == "formula":
        claim = read_formula_claim(from_latex(text) or "", {n: 0 for n in NAMES}, {})
        assert claim is not None


@settings(max_examples=120, deadline=None)
@given(trees(NAMES), st.data(), st.sampled_from(["{}", "${}$", "\\({}\\)", "$${}$$"]))
def test_every_spelling_of_a_latex_claim_gets_its_brute_force_kind(
    tree: Tree, pick: st.DataObject, frame: str
) -> None:
    text = frame.format(spelled(tree, pick))
    form, kind = judged(text)
    assert kind == expected_kind(tree, SAT, ENTITIES), text
    assert form in FORMS, text


def test_latex_claims_read_as_their_plain_transcriptions() -> None:
    """Each form reads a LaTeX sentence as it reads the same claim in plain symbols."""
    e = {v: k for k, v in ENTITIES.items()}  # variable name -> entity (x1 ...)
    a, b, c = (e[name][1:] for name in ("a", "b", "c"))
    pairs = [
        (f"$(\\neg x_{{{a}}} \\lor x_{{{b}}})$", ("clause", "clause")),
        (f"x_{{{a}}} \\rightarrow x_{{{b}}}", ("chain", "clause")),
        (f"If x_{{{b}}}, then \\neg x_{{{a}}}", ("conditional", "contradicted")),
        (f"x_{a} \\land x_{b}", ("formula", "entailed")),
        (f"\\neg x_{{{c}}} \\Leftrightarrow x_{{{c}}}", ("formula", "contradicted")),
    ]
    for sentence, expected in pairs:
        assert judged(sentence) == expected, sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "\\text{x_1} \\lor x_2",
        "\\forall x_1",
        "x_1 \\lor \\",
        "\\mathbb{x_1}",
        "x_{3} \\wedge x_{1} \\not\\Rightarrow x_{2}",
    ],
)
def test_other_latex_is_counted_not_read(sentence: str) -> None:
    trace = check_trace(f"{sentence}.\n\nThe answer is: Yes", "math-latex", ENTITIES, SAT)
    assert trace.sentences == 1 and trace.read == 0 and not trace.claims
    assert from_latex(sentence) is None


def test_json_objects_are_still_left_out_beside_latex_groups() -> None:
    e = {v: k for k, v in ENTITIES.items()}
    text = (
        f"So x_{{{e['a'][1:]}}} \\land x_{{{e['b'][1:]}}}.\n"
        f'{{"{e["a"]}": "true", "{e["b"]}": "true"}}\n\nThe answer is: Yes'
    )
    trace = check_trace(text, "math-latex", ENTITIES, SAT)
    assert trace.sentences == 1 and [c.kind for c in trace.claims] == ["entailed"]


def test_a_rule_restated_as_sympy_prints_it_is_that_rule() -> None:
    formula = Formula.from_named([["~p", "q"], ["q", "r"]])
    entities = {"x1": "p", "x2": "q", "x3": "r"}
    text = "So $\\neg x_{1} \\vee x_{2}$. Hence x_{2} \\vee x_{3}.\n\nThe answer is: Yes"
    trace = check_trace(text, "math-latex", entities, formula)
    assert [(c.form, c.kind) for c in trace.claims] == [("formula", "clause")] * 2
    assert [c.literals for c in trace.claims] == [(-1, 2), (2, 3)]


def test_trace_on_the_command_line_reads_latex_answers_to_a_math_latex_prompt(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """generate → verbalize math-latex → score a LaTeX answer into a store → trace."""
    import json

    from tests.support.cli import cli

    dataset, prompts = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
    steps = [
        ["generate", "backbone", "--clauses", "6", "--seed", "1", "-o", str(dataset)],
        ["verbalize", str(dataset), "-t", "math-latex", "-o", str(prompts), "--no-progress"],
    ]
    for argv in steps:
        code, out, err = cli(capsys, *argv)
        assert code == 0, out + err
    record = json.loads(prompts.read_text(encoding="utf-8").splitlines()[0])
    first, entity = record["text"].split("\n")[1], record["entities"]
    rule = first.removesuffix(" \\land")  # the first rule, as the prompt writes it
    text = f"So ${rule[1:-1]}$.\nThen \\text{{nothing}}.\n\nThe answer is: Yes"
    responses = tmp_path / "r.jsonl"
    row = {"prompt_id": record["id"], "response": text, "model": "hand"}
    responses.write_text(json.dumps(row) + "\n", encoding="utf-8")
    store, traced = tmp_path / "s.sqlite", tmp_path / "t.jsonl"
    argv = ["score", str(responses), "--prompts", str(prompts), "--dataset", str(dataset)]
    code, out, err = cli(capsys, *argv, "--store", str(store), "--out", str(tmp_path / "s.jsonl"))
    assert code == 0, out + err
    code, out, err = cli(capsys, "trace", str(store), "-o", str(traced), "--no-progress")
    assert code == 0, out + err
    (trace,) = [json.loads(line) for line in traced.read_text(encoding="utf-8").splitlines()]
    assert (trace["sentences"], trace["read"]) == (2, 1)
    (claim,) = trace["claims"]
    assert (claim["form"], claim["kind"]) == ("formula", "clause")
    # the claim's literals, named by the instance's variables through the entity map
    names = re.findall(r"(\\neg )?x_\{(\d+)\}", rule)
    expected = [("~" if neg else "") + entity[f"x{k}"] for neg, k in names]
    assert claim["literals"] == expected
