"""``certify`` on workers: the reader ships raw lines, the workers parse them.

The reader finds each record's references (root, instance, twin source) by a quick
byte search and the worker that parses the record checks that guess; a record it
misread (another layout of the JSON, a forward reference) must be checked with its
true references, on every executor and start method, with the same report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal import executors
from twosat_formal.certify import CertifyReport, _references, _scan, certify_files
from twosat_formal.executors import LocalExecutor, ProcessExecutor
from twosat_formal.generators import generate
from twosat_formal.jsonl import json_line
from twosat_formal.perturb.instances import perturb_instance
from twosat_formal.verbalize import prompt_record

Record = dict[str, Any]


def build() -> list[Record]:
    """A root, two records derived from it, a chain on one of them, a prompt of the root."""
    root = generate("backbone", clauses=10, seed=3)
    flip = perturb_instance(root, ["flip"], seed=7)
    chain = perturb_instance(flip, ["reorder", "filler"], seed=12)
    renamed = perturb_instance(root, [("rename", {"names": "fresh"})], seed=6)
    prompt = prompt_record(root.formula, "team", instance_id=root.id, seed=1).to_record()
    return [root.to_record(), flip.to_record(), chain.to_record(), renamed.to_record(), prompt]


RECORDS = build()


def layouts(records: list[Record]) -> dict[str, list[str]]:
    """The same records as json_line writes them, compact, and with the roots last."""
    compact = [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in records]
    standard = [json_line(r) for r in records]
    return {
        "standard": standard,
        "compact": compact,
        "roots-last": standard[1:] + standard[:1],
    }


def report(lines: list[str], path: Path, executor: Any) -> CertifyReport:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return certify_files([path], executor=executor)


def summary(result: CertifyReport) -> tuple[Any, ...]:
    """What must not depend on the layout: ids and checks of failures, counts."""
    failures = sorted((f.id or "", f.check, f.message) for f in result.failures)
    return result.records, result.checks, dict(result.kinds), dict(result.fields), failures


def test_the_scan_misreads_the_compact_layout() -> None:
    """The precondition of the tests below: the compact layout takes the slow path."""
    for record in RECORDS[1:]:
        line = json.dumps(record, separators=(",", ":")).encode()
        assert _references(record) != (None, None, None)
        assert _scan(line) == (None, None, None)
        assert _scan(json_line(record).encode()) == _references(record)


@pytest.mark.parametrize(
    "method,tamper",
    [("fork", False), ("fork", True), ("spawn", True)],
    ids=["fork-clean", "fork-tampered-root", "spawn-tampered-root"],
)
def test_every_layout_gives_the_same_report_on_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str, tamper: bool
) -> None:
    records = json.loads(json.dumps(RECORDS))
    if tamper:  # the root fails, and the prompt checked against it (its instance)
        lines = records[0]["dimacs"].splitlines()
        lines[-1] = "1 2 0" if lines[-1] != "1 2 0" else "1 3 0"
        records[0]["dimacs"] = "\n".join(lines) + "\n"
    monkeypatch.setattr(executors, "start_method", lambda: method)
    expected = summary(report(layouts(records)["standard"], tmp_path / "s.jsonl", LocalExecutor()))
    assert (expected[4] == []) is not tamper
    if tamper:  # derived records pass: their root is drawn again from its family
        failed = {(key, check) for key, check, _ in expected[4]}
        assert failed >= {(records[0]["id"], "regenerate"), (records[4]["id"], "roundtrip")}
    for name, lines in layouts(records).items():
        with ProcessExecutor(2, chunk=2) as pool:
            assert summary(report(lines, tmp_path / f"{name}.jsonl", pool)) == expected, name


def test_a_record_whose_reference_is_misread_locally_keeps_its_line(tmp_path: Path) -> None:
    lines = layouts(RECORDS)["compact"]
    result = report(lines, tmp_path / "c.jsonl", LocalExecutor())
    assert result.ok, [str(f) for f in result.failures]
    bad = dict(RECORDS[2], label="SAT" if RECORDS[2]["label"] == "UNSAT" else "UNSAT")
    lines[2] = json.dumps(bad, separators=(",", ":"))
    result = report(lines, tmp_path / "c.jsonl", LocalExecutor())
    assert {(f.id, f.line) for f in result.failures} == {(bad["id"], 3)}


@given(
    st.dictionaries(
        st.sampled_from(["id", "base_id", "instance_id", "twin_of", "text", "note"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=8)),
    )
)
def test_the_scan_of_a_written_record_is_its_references_or_none(record: Record) -> None:
    """On a line json_line wrote, the scan finds each plain reference exactly, no
    reference where there is none, and never a wrong one that would pass for the true
    one (a string written with escapes is read with them: the worker catches it)."""
    found = _scan(json_line(record).encode())
    for guess, true in zip(found, _references(record), strict=True):
        if true is None:
            assert guess is None
        elif json_line(true) == f'"{true}"':  # written as it is, nothing escaped
            assert guess == true
        else:
            assert guess != true
