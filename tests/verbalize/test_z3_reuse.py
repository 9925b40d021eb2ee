"""Z3 work shared between queries: one-query equivalences and remembered round trips."""

from __future__ import annotations

import importlib

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_equivalent
from tests.support.formula_strategies import TRUTH_TABLE_CNFS
from twosat_formal._util.per_process import PerProcess
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ParseError, ProofError
from twosat_formal.make.perturb import OPERATORS, prove
from twosat_formal.make.perturb import proofs as proofs_module
from twosat_formal.verbalize import prompt_record
from twosat_formal.verbalize import roundtrip as roundtrip_module
from twosat_formal.verbalize.roundtrip import z3_equivalent


@settings(max_examples=150)
@given(TRUTH_TABLE_CNFS, TRUTH_TABLE_CNFS)
def test_one_query_equivalence_agrees_with_truth_tables(
    left: list[list[int]], right: list[list[int]]
) -> None:
    expected = brute_equivalent(left, right, 4)
    assert proofs_module.session().equivalent(left, right) == expected


def test_a_failed_equivalence_names_its_direction_with_a_real_counterexample() -> None:
    base = Formula.from_named([["a", "b"], ["~a", "c"], ["~b", "~c"]])
    _, t = OPERATORS.get("reorder").apply(base, seed=1)
    weaker = Formula.from_named([["a", "b"], ["~a", "c"], ["~b", "~c", "a"]])
    with pytest.raises(ProofError, match="a model of the result falsifies the base") as err:
        prove(base, weaker, t)
    cex = err.value.counterexample
    assert cex is not None and weaker.evaluate(cex) and not base.evaluate(cex)
    stronger = Formula.from_named([["a", "b"], ["~a", "c"], ["~b"]])
    with pytest.raises(ProofError, match="a model of the base falsifies the result") as err:
        prove(base, stronger, t)
    cex = err.value.counterexample
    assert cex is not None and base.evaluate(cex) and not stronger.evaluate(cex)


def test_the_one_query_and_the_entailments_must_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """A combined query that fails while both directions hold is a failure, never a pass."""
    base = Formula([[1, 2], [-1, 2]])
    new, t = OPERATORS.get("reorder").apply(base, seed=1)
    monkeypatch.setattr(proofs_module.Z3Session, "equivalent", lambda self, a, b: False)
    with pytest.raises(ProofError, match="disagree"):
        prove(base, new, t)


def test_a_round_trip_pair_is_proven_once_per_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roundtrip_module, "_session", PerProcess(roundtrip_module._Session))
    f = Formula.from_named([["a", "b"], ["~b", "c"], ["~c", "~a"]])
    first = prompt_record(f, "logic", instance_id="i", seed=1)
    session = roundtrip_module._session()
    flat = (tuple(f.literals.tolist()), tuple(f.widths.tolist()))
    assert list(session.proved) == [(3, flat, flat)]  # the clause lists, flat, and widths
    calls = _counting(monkeypatch, session.solver)
    again = prompt_record(f, "team", instance_id="i", seed=1)
    assert calls == []  # the same clause lists: Z3 is not asked again
    assert again.roundtrip is not None and again.roundtrip["result"] == "proved"
    assert first.roundtrip is not None and first.roundtrip["method"] == again.roundtrip["method"]
    z3_equivalent([[1, 2]], [[2, 1]], 2)  # a new pair is asked
    assert calls == ["check"]


def test_a_difference_is_never_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roundtrip_module, "_session", PerProcess(roundtrip_module._Session))
    for _ in range(2):
        with pytest.raises(ProofError, match="differ"):
            z3_equivalent([[1, 2]], [[1]], 2)
    assert not roundtrip_module._session().proved


def test_the_remembered_pairs_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roundtrip_module, "_session", PerProcess(roundtrip_module._Session))
    monkeypatch.setattr(roundtrip_module, "_PROVED_SIZE", 3)
    for n in range(1, 6):
        z3_equivalent([[n]], [[n]], n)
    assert [key[0] for key in roundtrip_module._session().proved] == [3, 4, 5]


def test_a_literal_outside_the_variables_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roundtrip_module, "_session", PerProcess(roundtrip_module._Session))
    z3_equivalent([[1, -2]], [[1, -2]], 2)  # proven and remembered with 2 variables
    for left, right, n in (([[1, -3]], [[1, -3]], 2), ([[1, -2]], [[1, -2]], 1), ([[0]], [[0]], 2)):
        with pytest.raises(ProofError, match="outside the variables"):
            z3_equivalent(left, right, n)


def _reference_spans(
    words: list[str], start: int, question: list[str]
) -> tuple[list[tuple[int, int]], bool]:
    """The word-by-word reading (before word ends were precomputed): spans, question found."""
    spans, i, n = [], start, len(words)
    while i < n:
        if words[i : i + len(question)] == question:
            return spans, True
        j = i
        while j < n and not words[j].endswith("."):
            j += 1
        spans.append((i, j))
        i = j + 1
    return spans, False


@settings(max_examples=200)
@given(
    st.lists(st.sampled_from(["A", "is", "true.", "Can", "you?", "x."]), max_size=14),
    st.integers(0, 3),
    st.booleans(),
)
def test_sentences_are_cut_where_the_word_by_word_reading_cuts_them(
    words: list[str], start: int, closed: bool
) -> None:
    """Precomputed word ends, with the question met mid-sentence, cut the same sentences."""
    from twosat_formal.verbalize.schemes import TEMPLATES

    backparse_module = importlib.import_module("twosat_formal.verbalize.backparse")
    scheme = TEMPLATES.get("logic")
    question = scheme.question.split()
    seen: list[str] = []

    def record(_: object, sentence: str) -> tuple[tuple[str, bool], ...]:
        seen.append(sentence)
        return (("A", True),)

    body = words[:start] + question + words[start:] + (["y."] if closed else [])
    text = " ".join(scheme.preamble.split() + body) + "\n\n" + scheme.question
    all_words = text.split()
    spans, found = _reference_spans(all_words, len(scheme.preamble.split()), question)
    monkey = pytest.MonkeyPatch()
    monkey.setattr(backparse_module, "_parse_sentence", record)
    try:
        backparse_module.read_clauses(text, "logic", None, None)
        raised = False
    except ParseError as err:
        raised = "is missing" in str(err)
    finally:
        monkey.undo()
    assert seen == [" ".join(all_words[i : j + 1]) for i, j in spans]
    assert raised == (not found)


def _counting(monkeypatch: pytest.MonkeyPatch, solver: z3.Solver) -> list[str]:
    """Count ``solver``'s ``check`` calls from now on."""
    calls: list[str] = []
    real_check = solver.check

    def counted(*args: object) -> z3.CheckSatResult:
        calls.append("check")
        return real_check(*args)

    monkeypatch.setattr(solver, "check", counted)
    return calls


def test_a_proof_query_found_unsat_is_answered_again_without_z3(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from twosat_formal.make.perturb import apply_chain

    monkeypatch.setattr(proofs_module, "session", PerProcess(proofs_module.Z3Session))
    session = proofs_module.session()
    calls = _counting(monkeypatch, session.solver)
    base = Formula([[1, 2], [-2, 3], [-3, -1], [2, 4]])
    # flip's query (its result against the flipped base) is duplicate's first copy's
    result, chain = apply_chain(base, ["flip", ("duplicate", {"layout": "interleaved"})], seed=3)
    assert [t.proof.result for t in chain.steps if t.proof] == ["proved", "proved"]
    assert len(calls) == 2 and len(session.unsat) == 2  # three queries, two texts
    again, _ = apply_chain(base, ["flip", ("duplicate", {"layout": "interleaved"})], seed=3)
    assert again == result and len(calls) == 2


def test_a_satisfiable_query_is_never_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    session = proofs_module.Z3Session()
    calls = _counting(monkeypatch, session.solver)
    for _ in range(2):
        assert session.entails([[1, 2]], [[2]]) == {1: True, 2: False}
    assert calls == ["check", "check"] and not session.unsat
    assert session.entails([[2]], [[1, 2]]) is None and len(session.unsat) == 1


def test_the_remembered_unsat_queries_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proofs_module, "UNSAT_KEPT", 3)
    session = proofs_module.Z3Session()
    for n in range(1, 6):
        assert session.model_of([[n], [-n]]) is None
    assert list(session.unsat) == [f"p cnf {n} 2\n{n} 0\n-{n} 0\n" for n in (3, 4, 5)]


def test_the_equivalence_query_text_is_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-query equivalence in SMT-LIB: the remembered texts are these bytes."""
    session = proofs_module.Z3Session()
    asked: list[str] = []
    real = session._ask
    monkeypatch.setattr(session, "_ask", lambda text, read: asked.append(text) or real(text, read))
    assert session.equivalent([[1, 2]], [[2, 1]])
    assert session.equivalent([[1, -2]], [[1, -2]])
    assert not session.equivalent([[1]], [[1, 3]])
    assert asked == [
        "(assert (xor (and (or v1 v2) true) (and (or v2 v1) true)))",
        "(assert (xor (and (or v1 (not v2)) true) (and (or v1 (not v2)) true)))",
        "(assert (xor (and v1 true) (and (or v1 v3) true)))",
    ]
    assert list(session.unsat) == asked[:2] and session.declared == 3
