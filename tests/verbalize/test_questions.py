"""Question types (``verbalize --ask``): reference answers, certify, readers, judgement.

The reference answers are checked against brute force (every assignment of a small
formula), which shares no code with either the SCC path that writes them or the PySAT
path ``certify`` re-derives them with; a changed reference must fail ``certify``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.brute import models
from tests.support.formula_strategies import small_2cnf
from tests.support.jsonl import write_jsonl
from twosat_formal.certify import certify_files
from twosat_formal.certify.questions import (
    core_verdict,
    fu_malik_cost,
    own_minimum_core_size,
    repair_verdict,
    solver_entails,
    solver_forced,
)
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.evaluate.diagnostics.chains import check_chain
from twosat_formal.evaluate.models.reference import REFERENCE_MODELS
from twosat_formal.evaluate.scoring import PromptView, score
from twosat_formal.evaluate.scoring.questions import read_core, read_forced
from twosat_formal.make.generators import generate
from twosat_formal.solve.questions import parse_ask
from twosat_formal.solve.questions.reference import (
    applies,
    entails,
    forced_literals,
    maxsat_model,
    minimum_core,
)
from twosat_formal.verbalize import prompt_record, verbalize
from twosat_formal.verbalize.prompts import PromptRecord

SETTINGS = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def brute_backbone(formula: Formula) -> set[int]:
    """The literals true in every model, by truth table (over occurring variables)."""
    all_models = list(models(formula.clauses, formula.num_vars))
    occurring = {abs(int(lit)) for clause in formula.clauses for lit in clause}
    out = set()
    for v in occurring:
        values = {m[v - 1] for m in all_models}
        if len(values) == 1:
            out.add(v if values.pop() else -v)
    return out


def brute_entails(formula: Formula, a: int, b: int) -> bool:
    """Every model with ``a`` true has ``b`` true, by truth table."""
    return all(
        (m[abs(b) - 1] == (b > 0))
        for m in models(formula.clauses, formula.num_vars)
        if m[abs(a) - 1] == (a > 0)
    )


def label(formula: Formula) -> str:
    return "SAT" if next(models(formula.clauses, formula.num_vars), None) else "UNSAT"


@SETTINGS
@given(small_2cnf(max_vars=6, max_clauses=9))
def test_forced_is_the_brute_force_backbone_on_both_paths(formula: Formula) -> None:
    if label(formula) == "UNSAT":
        assert not applies("forced", formula, "UNSAT")
        return
    truth = brute_backbone(formula)
    assert set(forced_literals(formula)) == truth
    assert set(solver_forced(formula)) == truth
    assert applies("forced", formula, "SAT") == bool(truth)


@SETTINGS
@given(small_2cnf(max_vars=6, max_clauses=9), st.data())
def test_entails_agrees_with_brute_force_on_both_paths(formula: Formula, data: Any) -> None:
    n = formula.num_vars
    lit = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    a, b = data.draw(lit), data.draw(lit)
    truth = brute_entails(formula, a, b)
    assert entails(formula, a, b) == truth
    assert solver_entails(formula, a, b) == truth


@SETTINGS
@given(small_2cnf(max_vars=6, max_clauses=9), st.integers(0, 50))
def test_entails_prompts_ask_a_fair_question_with_a_valid_chain(
    formula: Formula, seed: int
) -> None:
    if label(formula) == "UNSAT" or not applies("entails", formula, "SAT"):
        return
    prompt = verbalize(formula, "logic", seed=seed, ask="entails")
    names = list(prompt.entities)
    ref = prompt.reference
    assert ref is not None
    numbers = {name: v for v, name in enumerate(names, 1)}
    (ea, va), (eb, vb) = next(iter(ref["if"].items())), next(iter(ref["then"].items()))
    a = numbers[ea] if va == "true" else -numbers[ea]
    b = numbers[eb] if vb == "true" else -numbers[eb]
    forced = brute_backbone(formula)
    assert abs(a) != abs(b) and not {a, -a, b, -b} & forced
    assert ref["answer"] == ("Yes" if brute_entails(formula, a, b) else "No")
    assert f'suppose "{ea}" has the value "{va}"' in prompt.text
    if ref["answer"] == "Yes":
        values = dict.fromkeys(names, ("true", "false"))
        assert check_chain(ref["chain"], numbers, values, formula, ends=(a, b)).valid
    else:
        assert "chain" not in ref


def brute_minimal(formula: Formula, indices: list[int]) -> bool:
    """Unsatisfiable, and satisfiable with any one clause left out, by truth table."""
    clauses = [formula.clauses[i] for i in indices]
    n = formula.num_vars
    if next(models(clauses, n), None) is not None:
        return False
    return all(
        next(models(clauses[:k] + clauses[k + 1 :], n), None) is not None
        for k in range(len(clauses))
    )


def brute_smallest_core(formula: Formula) -> int:
    """The size of a smallest unsatisfiable subset, trying subsets by size."""
    from itertools import combinations

    for size in range(1, formula.num_clauses + 1):
        for subset in combinations(range(formula.num_clauses), size):
            chosen = [formula.clauses[i] for i in subset]
            if next(models(chosen, formula.num_vars), None) is None:
                return size
    raise AssertionError("satisfiable")


@settings(
    max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(small_2cnf(max_vars=4, max_clauses=9), st.data())
def test_core_is_a_smallest_core_on_both_paths(formula: Formula, data: Any) -> None:
    if label(formula) == "SAT":
        assert not applies("core", formula, "SAT")
        return
    smallest = brute_smallest_core(formula)
    core = minimum_core(formula)
    assert len(core) == smallest and brute_minimal(formula, core)
    assert own_minimum_core_size(formula) == smallest
    assert core_verdict(formula, core) is None
    subset = data.draw(st.lists(st.integers(0, formula.num_clauses - 1), unique=True))
    assert (core_verdict(formula, subset) is None) == brute_minimal(formula, subset)


def brute_fewest_falsified(formula: Formula) -> int:
    """The fewest clauses one assignment falsifies, over every assignment."""
    from itertools import product

    return min(
        sum(1 for c in formula.clauses if not any(bits[abs(x) - 1] == (x > 0) for x in c))
        for bits in product((False, True), repeat=formula.num_vars)
    )


def brute_minimal_repair(formula: Formula, dropped: list[int]) -> bool:
    """The rest is satisfiable and putting back any one dropped clause is not."""
    n = formula.num_vars
    rest = [c for i, c in enumerate(formula.clauses) if i not in set(dropped)]
    if next(models(rest, n), None) is None:
        return False
    return all(next(models([*rest, formula.clauses[i]], n), None) is None for i in dropped)


@settings(
    max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(small_2cnf(max_vars=4, max_clauses=9), st.data())
def test_repair_and_maxsat_are_optimal_on_both_paths(formula: Formula, data: Any) -> None:
    fewest = brute_fewest_falsified(formula)
    literals, falsified = maxsat_model(formula)
    true = set(literals)
    assert sum(1 for c in formula.clauses if not any(int(x) in true for x in c)) == fewest
    assert len(falsified) == fewest == fu_malik_cost(formula)
    if label(formula) == "SAT":
        assert not applies("repair", formula, "SAT") and not applies("maxsat", formula, "SAT")
        return
    assert brute_minimal_repair(formula, falsified) and repair_verdict(formula, falsified) is None
    subset = data.draw(st.lists(st.integers(0, formula.num_clauses - 1), unique=True))
    assert (repair_verdict(formula, subset) is None) == brute_minimal_repair(formula, subset)


def dataset(tmp_path: Path) -> tuple[list[dict[str, Any]], Path]:
    """Instances of a SAT family with their forced and entails prompts, in one file."""
    records: list[dict[str, Any]] = []
    made = [generate("backbone", clauses=10, seed=seed) for seed in range(6)]
    made += [
        generate("implication-cycle", clauses=10, seed=seed, filler_share=0.4) for seed in range(3)
    ]
    for seed, inst in enumerate(made):
        records.append(inst.to_record())
        for ask in ("forced", "entails", "core", "repair", "maxsat"):
            if applies(ask, inst.formula, inst.label):
                made = prompt_record(inst.formula, "room", instance_id=inst.id, seed=seed, ask=ask)
                records.append(made.to_record())
    return records, write_jsonl(tmp_path / "q.jsonl", records)


def test_question_prompts_certify(tmp_path: Path) -> None:
    records, path = dataset(tmp_path)
    asked = [r.get("ask") for r in records if "text" in r]
    assert {"forced", "entails", "core", "repair", "maxsat"} <= set(asked)
    report = certify_files([path])
    assert report.ok, [str(f) for f in report.failures]


def _tampered(reference: dict[str, Any], how: int) -> dict[str, Any] | None:
    """One way to change a reference answer, or ``None`` when it does not apply."""
    out = copy.deepcopy(reference)
    if "satisfied" in out:
        if how == 2:
            return None
        out["satisfied"] += 1 if how == 0 else -1
        return out
    if "repair" in out:
        rules = out["repair"]
        if how == 0:
            out["repair"] = []  # the rest still cannot hold
        elif how == 1:
            out["size"] += 1
        else:
            spare = next(n for n in range(1, 50) if n not in rules)
            out["repair"], out["size"] = [*rules, spare], len(rules) + 1  # not minimal
        return out
    if "core" in out:
        rules = out["core"]
        if how == 0:
            out["core"] = rules[:-1]  # satisfiable
        elif how == 1:
            out["size"] += 1
        else:
            spare = next((n for n in range(1, 50) if n not in rules), None)
            out["core"], out["size"] = [*rules, spare], len(rules) + 1  # not minimal
        return out
    if "forced" in out:
        forced = out["forced"]
        first = next(iter(forced))
        if how == 0:
            del forced[first]
        elif how == 1:
            forced[first] = "lit" if forced[first] == "dark" else "dark"
        else:
            return None
        return out
    if how == 0:
        out["answer"] = "No" if out["answer"] == "Yes" else "Yes"
        if out["answer"] == "No":
            del out["chain"]
        else:
            out["chain"] = [out["if"], out["then"]]
        return out
    if how == 1 and "chain" in out and len(out["chain"]) > 2:
        del out["chain"][1]  # a step that follows from no rule
        return out
    if how == 2 and "chain" in out:
        out["chain"] = out["chain"][:-1]  # stops short of the entity asked about
        return out
    return None


@pytest.mark.slow
@pytest.mark.parametrize("how", [0, 1, 2])
def test_a_tampered_reference_fails_certify(tmp_path: Path, how: int) -> None:
    records, _ = dataset(tmp_path)
    changed = 0
    for index, record in enumerate(records):
        if "reference" not in record:
            continue
        new = _tampered(record["reference"], how)
        if new is None:
            continue
        bad = [*records[:index], {**record, "reference": new}, *records[index + 1 :]]
        report = certify_files([write_jsonl(tmp_path / f"t{index}.jsonl", bad)])
        assert not report.ok
        assert report.failing_ids == [record["id"]]
        changed += 1
    assert changed > 0


def test_a_record_that_asks_without_a_reference_is_refused() -> None:
    inst = generate("backbone", clauses=10, seed=1)
    record = prompt_record(inst.formula, "logic", instance_id=inst.id, ask="forced").to_record()
    assert PromptRecord.from_record(record).reference == record["reference"]
    del record["reference"]
    with pytest.raises(RecordError, match="reference"):
        PromptRecord.from_record(record)


def test_chain_is_the_ask_cycle_prompt_and_unknown_types_are_refused() -> None:
    f = Formula([[1, 2], [-1, 2]])
    assert verbalize(f, "door", ask="chain") == verbalize(f, "door", ask_cycle=True)
    assert parse_ask(["chain", "decision", "chain"]) == ("decision", "chain")
    with pytest.raises(ConfigError, match="unknown question type 'core2'"):
        parse_ask(["core2"])
    with pytest.raises(ConfigError, match="forced value"):
        verbalize(Formula([[1, 2], [-1, -2]]), "door", ask="forced")


FORMULA = Formula.from_named([["a"], ["~a", "b"], ["c", "d"], ["~c", "~e"]])
VIEW = PromptView({"A": "a", "B": "b", "C": "c", "D": "d", "E": "e"}, "true", "false")
ENTITIES = {"A": 1, "B": 2, "C": 3, "D": 4, "E": 5}
WORDS = dict.fromkeys(ENTITIES, ("true", "false"))


@pytest.mark.parametrize(
    ("text", "strict", "lenient"),
    [
        ('The answer is: {"A": "true", "B": "true"}', {1, 2}, {1, 2}),
        ('The answer is: {"A": "true", "B": "true"}\n\n', {1, 2}, {1, 2}),
        ('The answer is: {"a": "TRUE"}', "bad", {1}),
        ('```json\n{"A": "true"}\n```', "missing", {1}),
        ('The answer is: {"A": "true"}\nWait, also B.', "missing", {1}),
        ("The answer is: {}", set(), set()),
        ('The answer is: {"Z": "true"}', "bad", "bad"),
        ('The answer is: {"A": "maybe"}', "bad", "bad"),
        ("The answer is: [1]", "bad", "missing"),
        ("no idea", "missing", "missing"),
    ],
)
def test_forced_readers(text: str, strict: Any, lenient: Any) -> None:
    for got, want in (
        (read_forced(text, ENTITIES, WORDS), strict),
        (read_forced(text, ENTITIES, WORDS, lenient=True), lenient),
    ):
        if isinstance(want, str):
            assert got.status == want
        else:
            assert got.status == "found" and got.literals == frozenset(want)


def test_forced_judgement_gives_partial_credit() -> None:
    forced = type(
        "P",
        (),
        {"entities": VIEW.entities, "true_value": "true", "false_value": "false", "ask": "forced"},
    )()
    right = score('The answer is: {"A": "true", "B": "true"}', forced, FORMULA, "SAT")
    assert (right.failure, right.precision, right.recall, right.correct) == ("correct", 1, 1, True)
    part = score('The answer is: {"A": "true", "C": "true"}', forced, FORMULA, "SAT")
    assert (part.failure, part.precision, part.recall) == ("wrong-decision", 0.5, 0.5)
    none = score("The answer is: {}", forced, FORMULA, "SAT")
    assert (none.failure, none.precision, none.recall) == ("wrong-decision", 1.0, 0.0)
    cut = score(
        _resp('The answer is: {"A": "true", "B": "true"}', "length"), forced, FORMULA, "SAT"
    )
    assert cut.failure == "truncated" and not cut.correct


def _resp(text: str, finish: str) -> Any:
    from twosat_formal.core.model import Response

    return Response(text, finish_reason=finish)


def _entails_view(a: dict[str, str], b: dict[str, str]) -> Any:
    return type(
        "P",
        (),
        {
            "entities": VIEW.entities,
            "true_value": "true",
            "false_value": "false",
            "ask": "entails",
            "reference": {"if": a, "then": b},
        },
    )()


def test_entails_judgement_reads_yes_no_and_checks_the_chain() -> None:
    # c true forces e false (~c | ~e); d false forces c true
    prompt = _entails_view({"D": "false"}, {"E": "false"})
    good = '{"chain": [{"D": "false"}, {"C": "true"}, {"E": "false"}]}\nThe answer is: Yes'
    j = score(good, prompt, FORMULA, "SAT")
    assert (j.failure, j.chain_valid, j.chain_reason) == ("correct", True, None)
    skip = '{"chain": [{"D": "false"}, {"E": "false"}]}\nThe answer is: Yes'
    j = score(skip, prompt, FORMULA, "SAT")
    assert j.correct and j.chain_valid is False and j.chain_reason.startswith("bad-step")
    j = score("The answer is: Yes", prompt, FORMULA, "SAT")
    assert j.correct and j.chain_reason == "no-chain"
    j = score("I think the answer is yes", prompt, FORMULA, "SAT")
    assert (j.failure, j.lenient_failure) == ("no-answer", "correct")
    assert score("The answer is: No", prompt, FORMULA, "SAT").failure == "wrong-decision"
    no = _entails_view({"D": "true"}, {"E": "false"})
    j = score("The answer is: No", no, FORMULA, "SAT")
    assert j.correct and j.chain_valid is None and j.chain_reason is None


def test_reference_reasoners_answer_every_question_type() -> None:
    """The oracle is right on every question; the biased reasoners are not."""
    right: dict[tuple[str, str], list[bool]] = {}
    made = [generate("backbone", clauses=12, seed=seed) for seed in range(12)]
    made += [
        generate("implication-cycle", clauses=12, seed=seed, filler_share=0.4) for seed in range(6)
    ]
    for seed, inst in enumerate(made):
        for ask in ("forced", "entails", "core", "repair", "maxsat"):
            if not applies(ask, inst.formula, inst.label):
                continue
            record = prompt_record(inst.formula, "team", instance_id=inst.id, seed=seed, ask=ask)
            for name, cls in REFERENCE_MODELS.items():
                j = score(cls().respond(record.text), record, inst.formula, inst.label)
                right.setdefault((name, ask), []).append(j.correct)
                if name == "oracle" and record.reference.get("answer") == "Yes":
                    assert j.chain_valid is True
    assert all(all(v) for (name, _), v in right.items() if name == "oracle")
    assert not all(right["sat-biased", "forced"]) and not all(right["sat-biased", "entails"])
    assert not all(right["sat-biased", "core"]) and not any(right["sat-biased", "repair"])
    assert not all(right["sat-biased", "maxsat"])
    kinds = ("forced", "entails", "core", "repair", "maxsat")
    assert set(right) == {(n, a) for n in REFERENCE_MODELS for a in kinds}


def test_cli_writes_one_prompt_per_type_and_refuses_what_does_not_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.cli import cli

    data = tmp_path / "d.jsonl"
    write_jsonl(data, [generate("backbone", clauses=10, seed=s).to_record() for s in range(3)])
    out = tmp_path / "p.jsonl"
    code, _, err = cli(
        capsys,
        "verbalize",
        str(data),
        "-t",
        "logic",
        "--ask",
        "forced",
        "--ask",
        "chain",
        "--ask",
        "entails",
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    kinds = [("chain" if r.get("ask_cycle") else r.get("ask", "decision")) for r in rows]
    assert kinds == ["chain", "forced", "entails"] * 3
    unsat = tmp_path / "u.cnf"
    unsat.write_text("p cnf 1 2\n1 0\n-1 0\n")
    code, out_text, err = cli(capsys, "verbalize", str(unsat), "-t", "logic", "--ask", "forced")
    assert code == 2 and "does not apply" in err and "Traceback" not in err + out_text
    code, out_text, err = cli(
        capsys, "verbalize", str(unsat), "-t", "logic", "--ask", "core", "--ask", "maxsat"
    )
    assert code == 0 and "The answer is: [<rule number>, ...]" in out_text
    assert "# template: logic, question: maxsat" in out_text
    code, _, err = cli(capsys, "verbalize", str(unsat), "-t", "logic", "--ask", "maxsat2")
    assert code == 2 and "unknown question type" in err


@pytest.mark.parametrize(
    ("text", "strict", "lenient"),
    [
        ("The answer is: [2, 1]", [2, 1], [2, 1]),
        ("The answer is: [2, 1]\n\n", [2, 1], [2, 1]),
        ("Rules [1, 2] clash.", None, [1, 2]),
        ("The answer is: [1, 5]", "bad", "bad"),
        ("The answer is: [1, 1]", "bad", "bad"),
        ("The answer is: [true]", "bad", "bad"),
        ("The answer is: rules 1 and 2", None, None),
        ("nothing", None, None),
    ],
)
def test_core_readers(text: str, strict: Any, lenient: Any) -> None:
    for got, want in ((read_core(text, 4), strict), (read_core(text, 4, lenient=True), lenient)):
        if want is None:
            assert got == ("missing", None)
        elif want == "bad":
            assert got == ("bad", None)
        else:
            assert got == ("found", want)


def test_core_judgement_checks_unsatisfiable_minimal_and_smallest() -> None:
    # rules 1-2 clash (a, ~a); rules 3-6 clash through b and c; rule 7 is free
    f = Formula([[1], [-1], [2, 3], [-2, 3], [2, -3], [-2, -3], [4, 5]])
    view = type(
        "P",
        (),
        {
            "entities": {"A": 1, "B": 2, "C": 3, "D": 4, "E": 5},
            "true_value": "true",
            "false_value": "false",
            "ask": "core",
        },
    )()
    right = score("The answer is: [2, 1]", view, f, "UNSAT")
    assert (right.failure, right.core_reason, right.size_ratio) == ("correct", None, 1.0)
    larger = score("The answer is: [3, 4, 5, 6]", view, f, "UNSAT")
    assert (larger.failure, larger.core_reason, larger.size_ratio) == ("wrong-decision", None, 0.5)
    extra = score("The answer is: [1, 2, 7]", view, f, "UNSAT")
    assert extra.failure == "wrong-decision" and extra.core_reason.startswith("not minimal")
    assert score("The answer is: [1]", view, f, "UNSAT").core_reason == "satisfiable"
    assert score("The answer is: [1, 9]", view, f, "UNSAT").failure == "bad-json"
    loose = score("Rules [1, 2] clash.", view, f, "UNSAT")
    assert (loose.failure, loose.lenient_failure) == ("no-answer", "correct")


def test_repair_and_maxsat_judgements() -> None:
    # rules 1-2 clash (a, ~a); rules 3-6 clash through b and c; rule 7 is free
    f = Formula([[1], [-1], [2, 3], [-2, 3], [2, -3], [-2, -3], [4, 5]])
    ents = {"A": 1, "B": 2, "C": 3, "D": 4, "E": 5}
    view = type("P", (), {"entities": ents, "true_value": "on", "false_value": "off"})()
    view.ask = "repair"
    right = score("The answer is: [1, 3]", view, f, "UNSAT")
    assert (right.failure, right.core_reason, right.size_ratio) == ("correct", None, 1.0)
    assert score("The answer is: [1]", view, f, "UNSAT").core_reason.startswith("the other")
    extra = score("The answer is: [1, 3, 7]", view, f, "UNSAT")
    assert extra.core_reason == "not minimal: rule 7 can be kept"
    view.ask = "maxsat"
    best = 'The answer is: {"A": "on", "B": "on", "C": "on", "D": "on", "E": "on"}'
    j = score(best, view, f, "UNSAT")
    assert (j.failure, j.size_ratio) == ("correct", 1.0)
    worse = 'The answer is: {"A": "on", "B": "on", "C": "off", "D": "off", "E": "off"}'
    j = score(worse, view, f, "UNSAT")
    assert j.failure == "wrong-decision" and j.size_ratio == 4 / 5  # rules 2, 4, 7 broken
    j = score('{"a": "ON", "b": "on", "c": "on", "d": "on", "e": "on"}', view, f, "UNSAT")
    assert (j.failure, j.lenient_failure) == ("no-answer", "correct")


def test_export_rows_carry_the_question_and_judge_it_as_eval_does() -> None:
    """A flat export row (HF, lm-eval, inspect) of a question prompt judges an answer
    exactly as ``score`` on the prompt record does; its reference answer is right."""
    from twosat_formal.evaluate.run import EvalItem
    from twosat_formal.integrations.hf import typed_row
    from twosat_formal.integrations.rows import item_row, judge_row

    made = [generate("backbone", clauses=12, seed=2)]
    made.append(generate("implication-cycle", clauses=12, seed=2, filler_share=0.4))
    seen = set()
    for inst in made:
        for ask in ("forced", "entails", "core", "repair", "maxsat"):
            if not applies(ask, inst.formula, inst.label):
                continue
            record = prompt_record(inst.formula, "door", instance_id=inst.id, seed=4, ask=ask)
            item = EvalItem(record, inst.formula, inst.label, inst.to_record())
            row = item_row(item)
            assert row["question_type"] == ask and json.loads(row["reference"]) == record.reference
            for cls in REFERENCE_MODELS.values():
                text = cls().respond(record.text).text
                assert judge_row(row, text) == score(text, record, inst.formula, inst.label)
            typed = typed_row(item)
            gold = typed["messages"][1]["content"]
            assert judge_row(typed, gold).correct
            closing = gold.rsplit("The answer is: ", 1)[1]
            if ask in ("forced", "entails"):  # the one right answer (any order of entities)
                assert json.loads(json.dumps(closing) if ask == "entails" else closing) == (
                    json.loads(typed["answer"]) if ask == "forced" else typed["answer"]
                )
            elif ask != "maxsat":  # a smallest set: the same size as the reference's
                assert len(json.loads(closing)) == len(json.loads(typed["answer"]))
            seen.add(ask)
    assert seen == {"forced", "entails", "core", "repair", "maxsat"}


@pytest.mark.slow
def test_lm_eval_export_has_one_subtask_per_family_and_question_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.cli import cli
    from twosat_formal.integrations.lm_eval import load_docs

    records, path = dataset(tmp_path)
    tasks = tmp_path / "lm"
    code, _, err = cli(capsys, "export", str(path), "--to", "lm-eval", "-o", str(tasks))
    assert code == 0, err
    prompts = [r for r in records if "text" in r]
    asked = {(r["instance_id"].rsplit("-", 1)[0], r["ask"]) for r in prompts}
    names = {p.stem for p in tasks.glob("twosat_*.yaml")}
    assert names == {f"twosat_{f.replace('-', '_')}_{k}" for f, k in asked}
    core = load_docs(tasks / "twosat.jsonl", family="implication-cycle", question_type="core")
    assert len(core["test"]) == sum(1 for r in prompts if r["ask"] == "core")
    assert all(row["question_type"] == "core" for row in core["test"])


def test_gym_types_ask_question_types_with_their_reward() -> None:
    from collections import Counter

    from twosat_formal.integrations.gym import create_dataset

    data = create_dataset(size=24, seed=3, types=("forced", "entails", "core", "repair", "maxsat"))
    kinds = Counter()
    for entry in data:
        meta = entry["metadata"]
        kind = meta.get("question_type", "decision")
        kinds[kind] += 1
        assert data.score_answer(entry["answer"], entry) == 1.0
        if kind != "decision":
            assert meta["reference"]
            assert data.score_answer("The answer is: []", entry) == 0.0
    assert len(set(kinds) - {"decision"}) >= 3
    again = create_dataset(size=24, seed=3, types=("forced", "entails", "core", "repair", "maxsat"))
    assert [e["question"] for e in again] == [e["question"] for e in data]
    plain = create_dataset(size=6, seed=3)
    assert all("question_type" not in e["metadata"] for e in plain)
    with pytest.raises(ConfigError, match="unknown question type 'nope' in types"):
        create_dataset(size=2, types=("nope",))


def test_every_asked_type_has_an_entry_in_each_layers_table() -> None:
    """The types are listed once (``solve.questions``); each layer's table is keyed by them."""
    from twosat_formal.certify.questions import _RECHECKS
    from twosat_formal.evaluate.scoring.questions import _JUDGES
    from twosat_formal.solve.questions import ASKED, QUESTION_TYPES
    from twosat_formal.solve.questions.reference import _REFERENCES
    from twosat_formal.verbalize.questions import _TEMPLATES

    assert set(ASKED) <= set(QUESTION_TYPES)
    for table in (_TEMPLATES, _JUDGES, _RECHECKS, _REFERENCES):
        assert sorted(table) == sorted(ASKED)


@pytest.mark.parametrize(
    ("kind", "clauses", "reference", "message"),
    [
        (
            "core",
            [[1], [-1], [2], [-2, 3], [-2, -3]],
            {"core": [3, 4, 5]},
            "the reference core has 3 rules; the smallest has 2",
        ),
        (
            "core",
            [[1], [-1], [2], [-2, 3], [-2, -3]],
            {"core": [1, 2, 3]},
            "the reference core is not a minimal core: "
            "not minimal: it stays unsatisfiable without rule 3",
        ),
        (
            "repair",
            [[1], [1], [-1]],
            {"repair": [1, 2]},
            "the reference repair drops 2 rules; the fewest is 1",
        ),
        (
            "repair",
            [[1], [1], [-1]],
            {"repair": [1]},
            "the reference repair is not a minimal repair: the other rules still cannot all hold",
        ),
    ],
)
def test_a_minimal_but_not_smallest_rule_set_fails_its_recheck(
    kind: str, clauses: list[list[int]], reference: dict[str, Any], message: str
) -> None:
    """A stored core or repair that is not minimal, or minimal but not the smallest, is
    refused with a message naming the sizes (checked by hand on these formulas)."""
    from twosat_formal.certify.questions import recheck_reference
    from twosat_formal.errors import CertificateError

    with pytest.raises(CertificateError) as caught:
        recheck_reference(kind, Formula(clauses), reference, ["A", "B", "C"], "true", "false")
    assert str(caught.value) == message
    best = {"core": [1, 2], "repair": [3]}[kind]
    assert recheck_reference(kind, Formula(clauses), {kind: best}, ["A", "B", "C"], "t", "f") == {
        kind: best,
        "size": len(best),
    }
