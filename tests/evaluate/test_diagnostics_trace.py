"""The trace checker on hand-written answers: every claim form and kind, in every
template but ``math-latex``, against a SAT and an UNSAT formula; the ``trace`` command
on a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics.trace import check_trace
from twosat_formal.verbalize import TEMPLATES, prompt_record

#: The templates whose literal phrases ``trace`` reads: all but ``math-latex``, whose
#: ``x_{1}`` the reader blanks as it blanks every brace group (a JSON object).
READ_TEMPLATES = [name for name in TEMPLATES.names() if name != "math-latex"]

# SAT: a and b forced true; c | d free
SAT = Formula.from_named([["~a", "b"], ["a"], ["c", "d"]])
# UNSAT: a -> b -> ~a -> c -> a; d | e is free; f is forced false
UNSAT = Formula.from_named([["~a", "b"], ["~b", "~a"], ["a", "c"], ["~c", "a"], ["d", "e"], ["~f"]])


class Say:
    """Sentences in a template's own words, for the prompt made of ``formula``."""

    def __init__(self, formula: Formula, template: str) -> None:
        self.record = prompt_record(formula, template, instance_id="i", seed=5)
        self.scheme = TEMPLATES.get(template)
        self.entity = {name: entity for entity, name in self.record.entities.items()}

    def lit(self, name: str) -> str:
        positive = not name.startswith("~")
        return self.scheme.literal(self.entity[name.lstrip("~")], positive)

    def clause(self, *names: str) -> str:
        """The clause as the prompt writes it, closed by a period (a format's clause
        line has none: ``(x₁ ∨ ¬x₂)``, ``1 -2 0``)."""
        said = self.scheme.sentence(
            [(self.entity[n.lstrip("~")], not n.startswith("~")) for n in names]
        )
        return said if said.endswith(".") else said + "."

    def value(self, positive: bool) -> str:
        return self.scheme.true_value if positive else self.scheme.false_value


def judged(text: str, say: Say, formula: Formula) -> list[tuple[str, str]]:
    trace = check_trace(text, say.record.template, say.record.entities, formula)
    for claim in trace.claims:
        assert text[claim.span[0] : claim.span[1]] == claim.text
    return [(c.form, c.kind) for c in trace.claims]


@pytest.mark.parametrize("template", READ_TEMPLATES)
def test_every_kind_and_form_on_a_sat_formula(template: str) -> None:
    say = Say(SAT, template)
    c_entity = say.entity["c"]
    sentences = [
        (say.clause("~a", "b"), ("clause", "clause")),
        (f"So {say.lit('b')}.", ("assignment", "entailed")),
        (f"{say.lit('a')}.", ("assignment", "clause")),
        (f"If {say.lit('c')}, then {say.lit('b')}.", ("conditional", "entailed")),
        (f"If {say.lit('b')} then {say.lit('~a')}.", ("conditional", "contradicted")),
        (f"{say.lit('~a')}.", ("assignment", "contradicted")),
        (f"{say.lit('c')} implies {say.lit('d')}.", ("conditional", "unsupported")),
        (f"{c_entity} = {say.value(True)}.", ("assignment", "unsupported")),
        (f"If {say.lit('~c')}, then {say.lit('d')}.", ("conditional", "clause")),
    ]
    text = "Let me think about it.\n" + " ".join(s for s, _ in sentences)
    text += f'\n\n{{"{c_entity}": "{say.value(True)}"}}\n\nThe answer is: Yes'
    assert judged(text, say, SAT) == [kind for _, kind in sentences]
    trace = check_trace(text, template, say.record.entities, SAT)
    assert trace.basis == "solver"
    assert (trace.sentences, trace.read) == (len(sentences) + 1, len(sentences))
    assert trace.counts() == {"clause": 3, "entailed": 2, "contradicted": 2, "unsupported": 2}


@pytest.mark.parametrize("template", READ_TEMPLATES)
def test_every_kind_on_an_unsat_formula_by_chains_of_implications(template: str) -> None:
    say = Say(UNSAT, template)
    arrow = " → ".join(say.lit(n) for n in ("a", "b", "~a", "c", "a"))
    text = "\n".join(
        [
            f"Following the rules: {arrow}.",
            f"If {say.lit('a')}, then {say.lit('~a')}.",
            f"{say.lit('d')} implies {say.lit('e')}.",
            f"Therefore, {say.lit('f')}.",
            f"Suppose {say.lit('d')}.",
            "The answer is: No",
        ]
    )
    kinds = judged(text, say, UNSAT)
    assert kinds == [("chain", "clause")] * 4 + [
        ("conditional", "entailed"),
        ("conditional", "unsupported"),
        ("assignment", "contradicted"),
    ]
    trace = check_trace(text, template, say.record.entities, UNSAT)
    assert trace.basis == "implications" and trace.coverage == 1.0


def test_sentences_outside_the_grammar_are_not_read() -> None:
    say = Say(SAT, "room")
    text = "I wonder. room 1 is lit, probably? Maybe room 7 is lit.\n```\nroom 1 is lit.\n```"
    trace = check_trace(text, "room", say.record.entities, SAT)
    assert trace.claims == () and trace.read == 0 and trace.sentences == 3


def test_trace_command_on_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from twosat_formal.io.instance import write_instances
    from twosat_formal.make.generators import generate

    data, prompts, store = tmp_path / "d.jsonl", tmp_path / "p.jsonl", tmp_path / "s.sqlite"
    write_instances([generate("implication-cycle", clauses=8, seed=2)], data)
    assert run(["verbalize", str(data), "-t", "logic", "--out", str(prompts)], capsys)[0] == 0
    argv = ["eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle", "-m", "ref/coin"]
    assert run([*argv, "--store", str(store), "--no-progress"], capsys)[0] == 0
    out = tmp_path / "t.jsonl"
    code, _, err = run(["trace", str(store), "--out", str(out)], capsys)
    assert code == 0 and "wrote 2 trace rows" in err
    rows = {r["model"]: r for r in map(json.loads, out.read_text().splitlines())}
    oracle = rows["ref/oracle"]
    assert oracle["label"] == "UNSAT" and oracle["claims"]
    assert {c["kind"] for c in oracle["claims"]} == {"clause"}
    assert {c["form"] for c in oracle["claims"]} == {"chain"}
    assert rows["ref/coin"]["counts"]["unsupported"] == 0
    again = tmp_path / "t2.jsonl"
    run(["trace", str(store), "--out", str(again)], capsys)
    assert again.read_bytes() == out.read_bytes()
    code, _, err = run(["trace", str(tmp_path / "missing.sqlite")], capsys)
    assert code == 2 and err.startswith("error: ")


def test_report_relates_unsupported_claims_to_correctness() -> None:
    from twosat_formal.report.blocks import Heading
    from twosat_formal.report.content import compute_content
    from twosat_formal.report.render import TRACES_SECTION, layout

    def trace(model: str, failure: str, unsupported: int, clause: int) -> dict[str, object]:
        counts = {"clause": clause, "entailed": 0, "contradicted": 0, "unsupported": unsupported}
        return {
            "model": model,
            "family": "f",
            "failure": failure,
            "coverage": 0.5,
            "counts": counts,
        }

    traces = [trace("m", "correct", 0, 4), trace("m", "wrong-decision", 3, 1)]
    content = compute_content([], traces=traces)
    assert content.traces is not None
    (summary,) = content.traces
    assert (summary.claims, summary.unsupported.mean) == (8, 3 / 8)
    assert (summary.correct.mean, summary.wrong.mean) == (0.0, 3 / 4)
    titles = [b.text for b in layout(content, []) if isinstance(b, Heading)]
    assert TRACES_SECTION in titles
    assert compute_content([]).traces is None


def test_hostile_answers_are_read_without_failing() -> None:
    say = Say(SAT, "logic")
    a_true = say.lit("a")
    answers = [
        "x" * 200_000,
        ("If " + a_true + ", then ") * 5_000,
        "{" * 50_000 + "}" * 10,
        f"{a_true} → " * 3_000 + a_true,
        "\n".join(["Either"] * 10_000),
    ]
    for text in answers:
        trace = check_trace(text, "logic", say.record.entities, SAT)
        assert trace.read <= trace.sentences


def test_unsupported_rate_is_clustered_by_formula() -> None:
    """The claims of one formula's answers are one unit: formula a (two answers, 10
    claims, none unsupported) and formula b (one answer, 2 claims, both unsupported)
    give 50 % over n = 2 formulas, not 2/12 over 12 claims."""
    from twosat_formal.report.metrics import mean_ci
    from twosat_formal.report.traces import trace_summaries

    def trace(instance: str, unsupported: int, clause: int) -> dict[str, object]:
        counts = {"clause": clause, "entailed": 0, "contradicted": 0, "unsupported": unsupported}
        return {
            "instance_id": instance,
            "model": "m",
            "family": "f",
            "failure": "correct",
            "coverage": 1.0,
            "counts": counts,
        }

    (summary,) = trace_summaries([trace("a", 0, 5), trace("a", 0, 5), trace("b", 2, 0)])
    assert summary.claims == 12 and summary.answers == 3
    assert summary.unsupported.mean == 0.5
    assert (summary.unsupported.n, summary.unsupported.n_obs) == (2, 12)
    assert summary.unsupported.low == mean_ci([0.0, 1.0]).low
