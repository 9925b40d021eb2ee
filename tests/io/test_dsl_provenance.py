"""The conversions of DSL formula lines are recorded with their Z3 proof and re-derived by
``certify``: records made from a DSL file (``edit``, ``perturb``) carry them, and a record
whose recorded line, clause range or proof was changed fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import run
from twosat_formal.certify import certify_file
from twosat_formal.errors import ProofError, RecordError
from twosat_formal.io import parse_reading
from twosat_formal.io.dsl import check_conversions

RULES = (
    "vars: rain\n~(rain & cold)\nrain -> wet\n(wet -> slippery) & ~(wet & dry)\nxor(cold, warm)\n"
)


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    path = tmp_path / "rules.dsl"
    path.write_text(RULES)
    return path


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_parse_reading_records_each_formula_line() -> None:
    formula, conversions = parse_reading(RULES)
    assert [(c.line, c.text) for c in conversions] == [
        (2, "~(rain & cold)"),
        (4, "(wet -> slippery) & ~(wet & dry)"),
        (5, "xor(cold, warm)"),
    ]
    for c in conversions:
        assert c.proof == "z3:equivalence"
    named = [tuple(formula.literal_name(lit) for lit in clause) for clause in formula.clauses]
    assert named[conversions[0].start : conversions[0].stop] == [("~rain", "~cold")]
    assert named[conversions[1].start : conversions[1].stop] == [
        ("~wet", "slippery"),
        ("~wet", "~dry"),
    ]
    assert named[conversions[2].start : conversions[2].stop] == [
        ("cold", "warm"),
        ("~cold", "~warm"),
    ]
    assert parse_reading("p cnf 1 1\n1 0\n")[1] == ()
    assert check_conversions([c.to_json() for c in conversions], formula) == conversions


def test_edited_records_carry_the_conversions_and_certify(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "edits.jsonl"
    code, _, err = run(["edit", str(rules), "--mode", "individual", "--out", str(out)], capsys)
    assert code == 0, err
    records = read_lines(out)
    base = records[0]
    lines = base["provenance"]["formula_lines"]
    assert [entry["line"] for entry in lines] == [2, 4, 5]
    assert all(entry["proof"] == "z3:equivalence" for entry in lines)
    report = certify_file(out)
    assert report.ok, [str(f) for f in report.failures]

    def tampered(change: Any) -> list[str | None]:
        again = json.loads(json.dumps(records))
        change(again[0]["provenance"]["formula_lines"])
        path = tmp_path / "tampered.jsonl"
        write_lines(path, again)
        return certify_file(path).failing_ids

    def other_text(entries: list[dict[str, Any]]) -> None:
        entries[0]["text"] = "~(rain | cold)"

    def other_range(entries: list[dict[str, Any]]) -> None:
        entries[2]["clauses"] = [entries[2]["clauses"][0] - 1, entries[2]["clauses"][1] - 1]

    def other_proof(entries: list[dict[str, Any]]) -> None:
        entries[1]["proof"] = "trust me"

    def not_a_list(entries: list[dict[str, Any]]) -> None:
        entries[0]["clauses"] = "all"

    for change in (other_text, other_range, other_proof, not_a_list):
        assert base["id"] in tampered(change), change.__name__
    # a derived record keeps its root's entries, checked against the root's re-derivation
    derived = json.loads(json.dumps(records))
    victim = derived[1]
    assert victim["base_id"] == base["id"]
    other_text(victim["provenance"]["formula_lines"])
    path = tmp_path / "derived.jsonl"
    write_lines(path, derived)
    assert certify_file(path).failing_ids == [victim["id"]]


def test_the_perturb_document_carries_the_conversions_and_certifies(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "doc.json"
    code, _, err = run(["perturb", str(rules), "--op", "reorder", "--out", str(out)], capsys)
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert [entry["line"] for entry in doc["formula_lines"]] == [2, 4, 5]
    assert certify_file(out).ok
    doc["formula_lines"][0]["text"] = "rain & cold"
    out.write_text(json.dumps(doc) + "\n")
    report = certify_file(out)
    assert not report.ok


def test_check_conversions_refuses_what_does_not_convert_to_the_formula() -> None:
    formula, conversions = parse_reading("a\n~(a & b)\n")
    entry = conversions[0].to_json()
    with pytest.raises(ProofError, match="converts to ~a \\| ~b, not to the record's"):
        check_conversions([{**entry, "clauses": [0, 1]}], formula)
    with pytest.raises(ProofError, match="not 2-SAT"):
        check_conversions([{**entry, "text": "a | b | c"}], formula)
    with pytest.raises(RecordError, match="formula_lines"):
        check_conversions([{**entry, "clauses": [0, 9]}], formula)
    with pytest.raises(RecordError, match="must be a list"):
        check_conversions({"line": 1}, formula)


@pytest.mark.parametrize(
    "change",
    [
        lambda e: "a line",
        lambda e: {k: v for k, v in e.items() if k != "proof"},
        lambda e: {**e, "extra": 1},
        lambda e: {**e, "line": "2"},
        lambda e: {**e, "text": None},
        lambda e: {**e, "clauses": "1..2"},
        lambda e: {**e, "clauses": [1]},
        lambda e: {**e, "clauses": [1, 2, 2]},
        lambda e: {**e, "clauses": [True, 2]},
        lambda e: {**e, "clauses": [1, 2.0]},
        lambda e: {**e, "clauses": [2, 1]},
        lambda e: {**e, "clauses": [-1, 2]},
    ],
)
def test_check_conversions_names_the_shape_of_a_malformed_entry(change: Any) -> None:
    formula, conversions = parse_reading("a\n~(a & b)\n")
    entry = change(conversions[0].to_json())
    with pytest.raises(RecordError) as caught:
        check_conversions([entry], formula)
    assert str(caught.value) == (
        "each of provenance 'formula_lines' must be {line, text, clauses: [start, stop] "
        "within the formula's 2 clauses, proof}"
    )


#: Lines of a DSL file: plain clauses, formula lines, comments and blank lines.
_LINES = [
    "~(a & b)",
    "a -> b",
    "(b -> c) & (c -> d)",
    "a ^ d   # two clauses",
    "vars: a, b, c, d, e",
    "nand(c, e)",
    "",
    "  e | ~a  ",
]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=6), st.booleans())
def test_a_crlf_file_reads_as_its_lf_twin_texts_included(lines: list[str], last: bool) -> None:
    """The recorded text of a formula line holds no line end: ``\\r\\n`` is one, as
    ``\\n`` is (it kept the ``\\r``, so one file gave two records for one id)."""
    lf = "\n".join(lines) + ("\n" if last else "")
    crlf = lf.replace("\n", "\r\n")
    (one, ones), (two, twos) = parse_reading(lf), parse_reading(crlf)
    assert one == two and one.names == two.names
    assert [c.to_json() for c in ones] == [c.to_json() for c in twos]
    assert all("\r" not in c.text for c in twos)
