"""Numbered rules: the prompts whose answer names rules by number print those numbers.

A ``core`` or ``repair`` prompt prints rule ``k`` as ``k. <rule>`` (a DIMACS block: the
comment ``c rule k`` before clause ``k``); the numbers are read back by the round trip,
which fails when one is missing, repeated or out of order, and every other prompt
(the decision's above all) prints its rules unnumbered, as before. The checks here read
the numbers with patterns of their own, not with the code that writes them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import cli
from tests.support.formula_strategies import small_2cnf
from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError, ParseError
from twosat_formal.evaluate.diagnostics.trace import check_trace
from twosat_formal.evaluate.models.reference import REFERENCE_MODELS
from twosat_formal.evaluate.scoring import score
from twosat_formal.evaluate.scoring.questions import read_core
from twosat_formal.evaluate.store import RunStore
from twosat_formal.verbalize import TEMPLATES, backparse, check_roundtrip, verbalize

NAMES = list(TEMPLATES)

SETTINGS = settings(
    max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)

#: Rules 1-2 clash (a, ~a); rules 3-6 clash through b and c; rule 7 is free.
CLASH = Formula([[1], [-1], [2, 3], [-2, 3], [2, -3], [-2, -3], [4, 5]])


def rule_block(text: str) -> list[str]:
    """The lines between the preamble and the blank line before the final question."""
    lines = text.split("\n")
    return lines[1 : lines.index("", 1)]


def numbers_of(template: str, block: list[str]) -> tuple[list[int], list[str]]:
    """The numbers the block prints, in order, and its rule lines without them."""
    if template == "dimacs":
        comments = [re.fullmatch(r"c rule (\d+)", line) for line in block[1::2]]
        assert all(comments), block
        return [int(m.group(1)) for m in comments if m], [block[0], *block[2::2]]
    heads = [re.match(r"(\d+)\. ", line) for line in block]
    assert all(heads), block
    return [int(m.group(1)) for m in heads if m], [
        line[m.end() :] for line, m in zip(block, heads, strict=True) if m
    ]


def unsat(formula: Formula, var: int, at: tuple[int, int]) -> Formula:
    """``formula`` with the clauses ``(v)`` and ``(~v)`` put in at two places."""
    clauses = [[int(x) for x in c] for c in formula.clauses]
    v = 1 + (var - 1) % formula.num_vars
    clauses.insert(min(at[0], len(clauses)), [v])
    clauses.insert(min(at[1], len(clauses)), [-v])
    return Formula(clauses, num_vars=formula.num_vars)


@pytest.mark.parametrize("template", NAMES)
def test_core_and_repair_number_each_rule_and_the_rest_do_not(template: str) -> None:
    decision = verbalize(CLASH, template, seed=3)
    for ask in ("core", "repair"):
        prompt = verbalize(CLASH, template, seed=3, ask=ask)
        numbers, rules = numbers_of(template, rule_block(prompt.text))
        assert numbers == list(range(1, CLASH.num_clauses + 1))
        # the rules are the decision prompt's, word for word, each with its number
        assert rules == rule_block(decision.text)
        assert "Number them" not in prompt.text and "numbered rules above" in prompt.text
        read = backparse(prompt.text, template)
        assert read.formula.clauses == backparse(decision.text, template).formula.clauses
        assert read.lines == tuple(
            i + 2
            for i, line in enumerate(rule_block(prompt.text))
            if not line.startswith("c rule") and not line.startswith("p cnf")
        )
    for ask in ("decision", "chain", "maxsat"):
        text = verbalize(CLASH, template, seed=3, ask=ask).text
        assert rule_block(text) == rule_block(decision.text)
        assert not any(re.match(r"(\d+\. |c rule )", line) for line in rule_block(text))


@pytest.mark.slow
@SETTINGS
@given(
    small_2cnf(max_vars=5, max_clauses=12),
    st.integers(1, 5),
    st.tuples(st.integers(0, 14), st.integers(0, 14)),
    st.sampled_from(NAMES),
    st.sampled_from(["core", "repair"]),
    st.integers(0, 40),
)
def test_numbered_prompts_round_trip_and_tampered_numbers_fail(
    drawn: Formula, var: int, at: tuple[int, int], template: str, ask: str, seed: int
) -> None:
    formula = unsat(drawn, var, at)
    prompt = verbalize(formula, template, seed=seed, ask=ask)
    record = prompt.record("i")  # proves the round trip, numbers and all
    assert record.roundtrip is not None and record.roundtrip["result"] == "proved"
    assert check_roundtrip(record, formula)["clauses"] == formula.num_clauses
    read = backparse(prompt.text, template, entities=list(prompt.entities), numbered=True)
    assert [list(c) for c in read.formula.clauses] == [list(c) for c in formula.clauses]
    numbers, _ = numbers_of(template, rule_block(prompt.text))
    assert numbers == list(range(1, formula.num_clauses + 1))
    lines = prompt.text.split("\n")
    marks = [i for i, line in enumerate(lines) if re.match(r"(\d+\. |c rule \d+\Z)", line)]
    assert len(marks) == formula.num_clauses

    def number(i: int, k: int) -> None:
        old = re.match(r"(c rule )?\d+", lines[i])
        assert old is not None
        lines[i] = (old.group(1) or "") + str(k) + lines[i][old.end() :]

    def fails(text: str) -> None:
        with pytest.raises((CertificateError, ParseError)):
            check_roundtrip(record.model_copy(update={"text": text}), formula)

    original = list(lines)
    first, second = marks[0], marks[-1]
    if first != second:  # two rules' numbers swapped
        number(first, formula.num_clauses)
        number(second, 1)
        fails("\n".join(lines))
        lines[:] = original
    number(second, formula.num_clauses + 1)  # the last rule misnumbered
    fails("\n".join(lines))
    lines[:] = original
    if template == "dimacs":  # a rule's number left out
        del lines[second]
    else:
        lines[second] = re.sub(r"^\d+\. ", "", lines[second])
    fails("\n".join(lines))
    # the decision prompt's unnumbered rules are no core or repair prompt
    fails(verbalize(formula, template, seed=seed).text)
    # nor are numbered rules a decision prompt
    plain = verbalize(formula, template, seed=seed).record("i")
    with pytest.raises((CertificateError, ParseError)):
        check_roundtrip(plain.model_copy(update={"text": prompt.text}), formula)


@pytest.mark.parametrize("template", ["logic", "team", "math-latex", "dimacs", "dual-story"])
def test_the_reference_reasoners_name_the_printed_numbers(template: str) -> None:
    """The oracle's core is a smallest clash, named by the numbers the prompt prints."""
    for ask in ("core", "repair"):
        prompt = verbalize(CLASH, template, seed=1, ask=ask)
        record = prompt.record("i")
        answer = REFERENCE_MODELS["oracle"]().respond(record.text).text
        judged = score(answer, record, CLASH, "UNSAT")
        assert judged.correct, (template, ask, answer)
        if ask == "core":
            status, named = read_core(answer, CLASH.num_clauses)
            assert status == "found" and sorted(named or []) == [1, 2]


def test_trace_reads_numbered_restatements_of_the_rules() -> None:
    prompt = verbalize(CLASH, "logic", entities=list("ABCDE"), ask="core")
    restated = "\n".join(rule_block(prompt.text)[:2])
    text = f"{restated}\nSo rules 1 and 2 clash.\n\nThe answer is: [1, 2]"
    entities = {e: f"x{v}" for v, e in enumerate("ABCDE", 1)}
    trace = check_trace(text, "logic", entities, CLASH)
    assert [(c.form, c.kind) for c in trace.claims] == [("assignment", "clause")] * 2
    assert trace.claims[0].text == "1. A is true." and trace.sentences == 3


DOC = Path(__file__).resolve().parents[2] / "docs" / "verbalization.md"


@pytest.mark.skipif(not DOC.exists(), reason="docs are not shipped with the package")
def test_the_documented_numbered_prompts_are_current() -> None:
    pattern = r"<!-- numbered: ([\w-]+) -->\n```text\n(.*?)\n```"
    blocks = dict(re.findall(pattern, DOC.read_text("utf-8"), re.S))
    formula = Formula([[1, 2], [-1, 2], [3, 4], [1, -2], [-1, -2]])
    logic = verbalize(formula, "logic", entities=list("ABCD"), ask="core")
    dimacs = verbalize(formula, "dimacs", entities=["x1", "x2", "x3", "x4"], ask="repair")
    assert blocks == {"logic": logic.text, "dimacs": dimacs.verbalization}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = cli(capsys, *argv)
    assert code == 0, out + err
    return out


@pytest.mark.slow
def test_numbered_prompts_end_to_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """generate → verbalize --ask core/repair in every template → certify → eval with the
    reference reasoners → report and trace; a tampered number fails certify."""
    dataset = tmp_path / "d.jsonl"
    parts = []
    for family, seed in (("implication-cycle", 2), ("equivalence-core", 5)):
        made = tmp_path / f"{family}.jsonl"
        _run(capsys, "generate", family, "--clauses", "8", "--seed", str(seed), "-o", str(made))
        parts.append(made.read_text(encoding="utf-8"))
    dataset.write_text("".join(parts), encoding="utf-8")
    prompts = tmp_path / "p.jsonl"
    argv = ["verbalize", str(dataset), "--template", "all", "--ask", "core", "--ask", "repair"]
    _run(capsys, *argv, "-o", str(prompts), "--no-progress")
    records = [json.loads(line) for line in prompts.read_text(encoding="utf-8").splitlines()]
    assert {(r["template"], r["ask"]) for r in records} == {
        (t, a) for t in NAMES for a in ("core", "repair")
    }
    for r in records:
        numbers, _ = numbers_of(r["template"], rule_block(r["text"]))
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 2
    _run(capsys, "certify", str(dataset), str(prompts))

    store = tmp_path / "runs.sqlite"
    models = ["ref/oracle", "ref/sat-biased", "ref/bounded", "ref/coin"]
    argv = ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store)]
    summary = json.loads(
        _run(capsys, *argv, *(a for m in models for a in ("-m", m)), "--no-progress", "--json")
    )
    assert summary["done"] == summary["planned"] == len(records) * len(models)
    with RunStore(store, readonly=True) as run_store:
        rows = list(run_store.export_rows())
    oracle = [r for r in rows if r["model"] == "ref/oracle"]
    assert len(oracle) == len(records) and all(r["failure"] == "correct" for r in oracle)
    biased = [r for r in rows if r["model"] == "ref/sat-biased" and r["question_type"] == "repair"]
    assert biased and not any(r["failure"] == "correct" for r in biased)  # drops no rule

    _run(capsys, "report", str(store), "-o", str(tmp_path / "report"))
    report: dict[str, Any] = json.loads((tmp_path / "report" / "report.json").read_text())
    kinds = {(r["model"], r["question_type"]) for r in report["questions"]}
    assert kinds == {(m, a) for m in models for a in ("core", "repair")}
    traced = tmp_path / "t.jsonl"
    _run(capsys, "trace", str(store), "-o", str(traced), "--no-progress")
    assert len(traced.read_text(encoding="utf-8").splitlines()) == len(rows)

    for template in ("logic", "dimacs"):
        index = next(i for i, r in enumerate(records) if r["template"] == template)
        text = records[index]["text"]
        swapped = (
            text.replace("c rule 1\n", "c rule 9\n", 1)
            if template == "dimacs"
            else text.replace("\n1. ", "\n9. ", 1)
        )
        assert swapped != text
        bad = [dict(r) for r in records]
        bad[index]["text"] = swapped
        path = tmp_path / f"bad-{template}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in bad), encoding="utf-8")
        code, out, err = cli(capsys, "certify", str(dataset), str(path))
        assert code == 1, out + err
        assert f"{path.name}:{index + 1} {records[index]['id']}" in out


@pytest.mark.parametrize("template", ["door", "math", "dimacs"])
def test_backparse_on_the_command_line_reads_numbers_and_locates_a_wrong_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, template: str
) -> None:
    prompt = verbalize(CLASH, template, seed=2, ask="repair")
    good = tmp_path / "p.txt"
    good.write_text(prompt.text, encoding="utf-8")
    code, out, err = cli(capsys, "backparse", str(good), "--to", "dimacs")
    assert code == 0, err
    assert out.split("\n")[-8:-1] == [
        "1 0",
        "-1 0",
        "2 3 0",
        "-2 3 0",
        "2 -3 0",
        "-2 -3 0",
        "4 5 0",
    ]
    lines = prompt.text.split("\n")
    at = next(i for i, line in enumerate(lines) if re.match(r"(c rule )?3\b", line))
    lines[at] = lines[at].replace("3", "4", 1)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines), encoding="utf-8")
    code, out, err = cli(capsys, "backparse", str(bad))
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"error: {bad}:{at + 1}:1: rule 3 opens with ")


def test_exports_and_the_gym_carry_the_numbered_prompts() -> None:
    """The reasoning-gym items and the HF rows of core and repair questions show the
    numbered rules (the prompt record's text); the other items do not number them."""
    from twosat_formal.evaluate.run import EvalItem
    from twosat_formal.integrations.gym import create_dataset
    from twosat_formal.integrations.hf import typed_row
    from twosat_formal.make.generators import generate

    data = create_dataset(size=12, seed=3, types=("core", "repair"))
    kinds = set()
    for entry in data:
        kind = entry["metadata"].get("question_type", "decision")
        block = rule_block(entry["question"])
        numbered = any(re.match(r"1\. |c rule 1\Z", line) for line in block[:2])
        assert numbered == (kind in ("core", "repair")), entry["question"]
        if numbered:
            numbers, _ = numbers_of(entry["metadata"]["template"], block)
            assert numbers == list(range(1, len(numbers) + 1))
        kinds.add(kind)
    assert kinds >= {"repair"}
    inst = generate("implication-cycle", clauses=8, seed=4)
    for ask in ("core", "repair"):
        record = verbalize(inst, "dual-story", seed=1, ask=ask).record()
        row = typed_row(EvalItem(record, inst.formula, inst.label, inst.to_record()))
        assert row["messages"][0]["content"] == record.text
        numbers, _ = numbers_of("dual-story", rule_block(record.text))
        assert numbers == list(range(1, inst.formula.num_clauses + 1))


SCHEMES = [name for name in NAMES if TEMPLATES.get(name).clause_lines is not None]


@SETTINGS
@given(
    small_2cnf(max_vars=5, max_clauses=12),
    st.sampled_from(SCHEMES),
    st.lists(st.sampled_from([" ", "  ", "\n", " \n\t"]), min_size=1, max_size=40),
)
def test_the_line_reading_and_the_word_reading_agree_on_numbered_rules(
    formula: Formula, template: str, gaps: list[str]
) -> None:
    """A numbered text laid out as rendered is read by the one pattern per line; the
    word-by-word reading gives the same, and still does once the words are reflowed."""
    from twosat_formal.verbalize import render
    from twosat_formal.verbalize.backparse import _read_lines, _read_words

    scheme = TEMPLATES.get(template)
    names = scheme.entities.canonical(formula.num_vars)
    text = render(formula, scheme, names, numbered=True)
    lines = _read_lines(text, scheme, None, True)
    assert lines is not None
    assert lines == _read_words(text, template, None, None, True)
    assert lines == _read_words(text, template, None, None, None)
    words = text.split(" ")
    flowed = "".join(w + gaps[i % len(gaps)] for i, w in enumerate(words[:-1])) + words[-1]
    again = _read_words(flowed, template, None, None, True)
    assert again[:3] == lines[:3]
    # a number out of turn: no line reading, a located error from the word reading
    wrong = text.replace("\n1. ", "\n2. ", 1)
    assert _read_lines(wrong, scheme, None, True) is None
    with pytest.raises(ParseError, match=r"rule 1 opens with '2\.'"):
        _read_words(wrong, template, None, None, None)
