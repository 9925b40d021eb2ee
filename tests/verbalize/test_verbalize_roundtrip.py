"""Round-trip proofs, and mutated prompt texts that must never pass them."""

from __future__ import annotations

import itertools
import json
import re

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import twosat_formal.verbalize.roundtrip as roundtrip_module
from tests.support.brute import brute_equivalent, holds
from tests.support.formula_strategies import TRUTH_TABLE_CNFS
from twosat_formal._util.per_process import PerProcess
from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError, ParseError, ProofError
from twosat_formal.verbalize import (
    FORMATS,
    TEMPLATES,
    Prompt,
    backparse,
    check_roundtrip,
    prompt_record,
    prove_roundtrip,
    verbalize,
)
from twosat_formal.verbalize.entities import NAMINGS
from twosat_formal.verbalize.prompts import PromptRecord
from twosat_formal.verbalize.roundtrip import METHOD, z3_equivalent

# the six sentence schemes (the formats have their own tests: test_verbalize_formats.py)
SCHEMES = [name for name in TEMPLATES.names() if name not in FORMATS]

# Per scheme: the two value phrases, each replaced by the other in a "flipped value" mutation.
VALUE_SWAPS = {
    "logic": ("is true", "is false"),
    "letter": ("has the letter", "doesn’t have the letter"),
    "team": ("Red team", "Blue team"),
    "social": ("attends", "doesn’t attend"),
    "room": ("is lit", "is dark"),
    "door": ("is open", "is closed"),
}
# Per naming: where an entity stands in a clause line (never a sentence word).
ENTITY_RE = {
    "letters": r"(?<!\S)[A-Z]+(?= )",
    "persons": r"(?<!\S)(?!Either |Red |Blue )[A-Z][a-z]+[0-9]*(?= )",
    "rooms": r"(?<!\S)room [0-9]+(?= )",
    "doors": r"(?<!\S)door [0-9]+(?= )",
}
GARBAGE = {"letters": "A1", "persons": "Qwzx", "rooms": "room 0", "doors": "door x"}


@st.composite
def clause_formulas(draw: st.DrawFn) -> Formula:
    """Random formulas with at least one clause, widths 1 to 3."""
    num_vars = draw(st.integers(1, 10))
    literal = st.builds(lambda v, s: v * s, st.integers(1, num_vars), st.sampled_from([1, -1]))
    clause = st.lists(literal, min_size=1, max_size=3)
    return Formula(draw(st.lists(clause, min_size=1, max_size=10)), num_vars=num_vars)


def rejected(text: str, formula: Formula, prompt: Prompt) -> bool:
    """Whether the back-parser refuses ``text`` or the round-trip proof fails on it."""
    try:
        backparse(text, prompt.template)
    except ParseError:
        return True
    try:
        prove_roundtrip(formula, text, prompt.template, prompt.entity_map())
    except (CertificateError, ProofError):
        return True
    return False


def draw_spot(
    data: st.DataObject, formula: Formula, prompt: Prompt, pattern: str
) -> tuple[int, re.Match[str]]:
    """Draw a clause line of ``prompt`` (its row), then one of the places in it matching
    ``pattern``, which must match once per literal of the clause."""
    row = 1 + data.draw(st.integers(0, formula.num_clauses - 1))
    spots = list(re.finditer(pattern, prompt.text.split("\n")[row]))
    assert len(spots) == formula.clause(row - 1).width
    return row, data.draw(st.sampled_from(spots))


def replaced(prompt: Prompt, row: int, spot: re.Match[str], text: str) -> str:
    """``prompt``'s text with ``text`` in place of ``spot``, a match in line ``row``."""
    lines = prompt.text.split("\n")
    lines[row] = lines[row][: spot.start()] + text + lines[row][spot.end() :]
    return "\n".join(lines)


@pytest.mark.slow
@settings(max_examples=150)
@given(clause_formulas(), st.sampled_from(SCHEMES), st.integers(0, 2**32))
def test_proof_passes_for_every_scheme(formula: Formula, name: str, seed: int) -> None:
    prompt = verbalize(formula, name, seed=seed)
    proof = prove_roundtrip(formula, prompt.text, name, prompt.entity_map())
    assert proof["result"] == "proved"
    assert proof["method"] == METHOD
    assert proof["clauses"] == formula.num_clauses
    assert proof["template"] == name
    assert json.loads(json.dumps(proof)) == proof
    # the per-variable list form of the map proves the same
    assert prove_roundtrip(formula, prompt.text, name, list(prompt.entities))["result"] == "proved"


@st.composite
def verbalized(draw: st.DrawFn) -> tuple[Formula, str, Prompt]:
    """A formula, a scheme and the formula's prompt in that scheme (a drawn seed)."""
    formula = draw(clause_formulas())
    name = draw(st.sampled_from(SCHEMES))
    return formula, name, verbalize(formula, name, seed=draw(st.integers(0, 2**16)))


@settings(max_examples=150)
@given(verbalized(), st.data())
def test_flipped_value_word_is_rejected(
    case: tuple[Formula, str, Prompt], data: st.DataObject
) -> None:
    formula, name, prompt = case
    true, false = VALUE_SWAPS[name]
    row, spot = draw_spot(data, formula, prompt, f"{re.escape(false)}|{re.escape(true)}")
    swapped = false if spot.group() == true else true
    assert rejected(replaced(prompt, row, spot, swapped), formula, prompt)


@settings(max_examples=150)
@given(verbalized(), st.data())
def test_swapped_name_is_rejected(case: tuple[Formula, str, Prompt], data: st.DataObject) -> None:
    formula, name, prompt = case
    naming = NAMINGS[TEMPLATES.get(name).naming]
    row, spot = draw_spot(data, formula, prompt, ENTITY_RE[naming.name])
    others = [e for e in prompt.entities if e != spot.group()]
    fresh = next(
        naming.entity(i) for i in itertools.count(5000) if naming.entity(i) not in prompt.entities
    )
    replacement = data.draw(st.sampled_from([*others, fresh, GARBAGE[naming.name]]))
    assert rejected(replaced(prompt, row, spot, replacement), formula, prompt)


@settings(max_examples=100)
@given(verbalized(), st.data())
def test_dropped_line_is_rejected(case: tuple[Formula, str, Prompt], data: st.DataObject) -> None:
    formula, _, prompt = case
    lines = prompt.verbalization.split("\n")
    # preamble, the clause lines, the question (the blank line carries no content)
    row = data.draw(st.sampled_from([*range(formula.num_clauses + 1), len(lines) - 1]))
    rest = prompt.text.split("\n")
    del rest[row]
    assert rejected("\n".join(rest), formula, prompt)


def test_wrong_formula_wrong_map_and_wrong_order_fail() -> None:
    f = Formula.from_named([["a", "~b"], ["b", "c"]])
    prompt = verbalize(f, "logic", entities=["A", "B", "C"])
    mapping = prompt.entity_map()
    with pytest.raises(CertificateError, match="clause 1 reads back as"):
        prove_roundtrip(f.select([1, 0]), prompt.text, "logic", mapping)
    with pytest.raises(CertificateError, match="sentences for 3 clauses"):
        prove_roundtrip(f.select([0, 1, 1]), prompt.text, "logic", mapping)
    with pytest.raises(CertificateError, match="not in the prompt's entity map"):
        prove_roundtrip(f, prompt.text, "logic", {"A": "a", "B": "b"})
    with pytest.raises(CertificateError, match="not a variable of the formula"):
        prove_roundtrip(f, prompt.text, "logic", {**mapping, "C": "zz"})
    with pytest.raises(CertificateError, match="same variable"):
        prove_roundtrip(f, prompt.text, "logic", {"A": "a", "B": "a", "C": "c"})
    with pytest.raises(CertificateError, match="does not parse back"):
        prove_roundtrip(f, prompt.text, "room", mapping)
    with pytest.raises(CertificateError, match="2 entities"):
        prove_roundtrip(f, prompt.text, "logic", ["A", "B"])


@settings(max_examples=200)
@given(TRUTH_TABLE_CNFS, TRUTH_TABLE_CNFS)
def test_z3_equivalence_agrees_with_truth_tables(
    left: list[list[int]], right: list[list[int]]
) -> None:
    try:
        z3_equivalent(left, right, 4)
        proved = True
    except ProofError as err:
        proved = False
        assert err.counterexample is not None
        values = tuple(err.counterexample[f"x{v}"] for v in range(1, 5))
        assert holds(left, values) != holds(right, values)
    assert proved == brute_equivalent(left, right, 4)


def test_z3_unknown_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    class Undecided:
        def set(self, *args: object) -> None:
            pass

        def add(self, *args: object) -> None:
            pass

        def from_string(self, *args: object) -> None:
            pass

        def push(self) -> None:
            pass

        def pop(self) -> None:
            pass

        def check(self) -> z3.CheckSatResult:
            return z3.unknown

        def reason_unknown(self) -> str:
            return "timeout"

    monkeypatch.setattr(z3, "SolverFor", lambda logic, ctx=None: Undecided())
    # a fresh session, made with the undecided solver
    monkeypatch.setattr(roundtrip_module, "_session", PerProcess(roundtrip_module._Session))
    with pytest.raises(ProofError, match="could not decide"):
        z3_equivalent([[1]], [[1]], 1, timeout_ms=1)
    f = Formula([[1, 2]])
    p = verbalize(f, "door", seed=0)
    with pytest.raises(ProofError):
        prove_roundtrip(f, p.text, "door", p.entity_map())


def test_check_roundtrip_on_records() -> None:
    f = Formula.from_named([["a", "b"], ["~b", "c"], ["~c"]])
    rec = prompt_record(f, "letter", instance_id="i-7", seed=3)
    assert rec.roundtrip is not None and rec.roundtrip["result"] == "proved"
    assert check_roundtrip(rec, f)["result"] == "proved"
    stored = PromptRecord.from_record(json.loads(json.dumps(rec.to_record())))
    assert check_roundtrip(stored, f)["clauses"] == 3
    unproved = rec.model_copy(update={"roundtrip": None})
    assert check_roundtrip(unproved, f)["result"] == "proved"

    failed = rec.model_copy(update={"roundtrip": {"result": "failed"}})
    with pytest.raises(CertificateError, match="stored round-trip proof"):
        check_roundtrip(failed, f)
    wrong_values = rec.model_copy(update={"true_value": "true"})
    with pytest.raises(CertificateError, match="not the letter values"):
        check_roundtrip(wrong_values, f)
    with pytest.raises(CertificateError):
        check_roundtrip(rec, Formula.from_named([["a", "b"], ["~b", "c"], ["c"]]))
    tampered = rec.model_copy(
        update={"text": rec.text.replace("has the letter", "doesn’t have the letter", 1)}
    )
    with pytest.raises(CertificateError):
        check_roundtrip(tampered, f)
    swapped = rec.model_copy(
        update={"entities": dict(zip(rec.entities, reversed(rec.entities.values()), strict=True))}
    )
    with pytest.raises(CertificateError):
        check_roundtrip(swapped, f)
