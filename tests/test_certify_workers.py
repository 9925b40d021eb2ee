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


# -- the index read without parsing ------------------------------------------------------


def exact_summary(path: Path) -> tuple[Any, ...]:
    """The summary certify gives on an index that parses every line (the reference)."""
    from twosat_formal.certify import _Index, _tally

    tally = _tally(_Index([path], exact=True), LocalExecutor(), None)
    failures = sorted((f.id or "", f.check, f.message) for f in tally.failures)
    return tally.records, tally.checks, tally.kinds, tally.fields, failures


ROOT_ID = RECORDS[0]["id"]
#: Lines the quick index would file wrongly, or cannot file: a nested id where the
#: record has none, a repeated id key, a line that is not JSON, an id with escapes.
TRICKY = [
    line.replace("ROOT", ROOT_ID)
    for line in [
        '{"schema_version": 1, "note": {"id": "ROOT"}}',
        '{"schema_version": 1, "id": 7, "note": {"id": "ROOT"}}',
        '{"id": "ROOT", oops}',
        '{"id": "x", "id": "ROOT"}',
        '{"id": "a\\"b", "instance_id": "ROOT", "text": "t"}',
        '{"schema_version": 1, "id": "p", "instance_id": "ROOT", "note": {"instance_id": "q"}}',
    ]
]


@pytest.mark.parametrize("tricky", TRICKY)
def test_a_line_the_quick_index_misreads_gives_the_exact_report(
    tmp_path: Path, tricky: str
) -> None:
    lines = layouts(RECORDS)["standard"]
    path = tmp_path / "d.jsonl"
    for at in (0, len(lines)):  # the tricky line first, or after every other record
        path.write_text("".join(line + "\n" for line in [*lines[:at], tricky, *lines[at:]]))
        expected = exact_summary(path)
        assert summary(certify_files([path], executor=LocalExecutor())) == expected
        with ProcessExecutor(2, chunk=2) as pool:
            assert summary(certify_files([path], executor=pool)) == expected


@given(
    st.lists(
        st.one_of(
            st.sampled_from(range(len(RECORDS))).map(lambda i: json_line(RECORDS[i])),
            st.sampled_from(TRICKY),
            st.sampled_from(layouts(RECORDS)["compact"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_dataset_certifies_as_on_the_exact_index(lines: list[str]) -> None:
    """Whatever the lines (repeated ids, misleading marks, other layouts), certify's
    report is the one of an index that parses every line."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        assert summary(certify_files([path], executor=LocalExecutor())) == exact_summary(path)


def test_the_quick_index_reads_the_tools_lines_without_a_second_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On lines the tool wrote, no record is parsed by the index, and none misfiled:
    the records are certified once, on the quick index."""
    from twosat_formal import certify

    path = tmp_path / "d.jsonl"
    path.write_text("".join(line + "\n" for line in layouts(RECORDS)["standard"]))
    parsed: list[bytes] = []
    value = certify._value
    monkeypatch.setattr(certify, "_value", lambda raw, *a: parsed.append(raw) or value(raw, *a))
    certify._Index([path])
    assert parsed == []
    tallied: list[bool] = []
    tally = certify._tally
    monkeypatch.setattr(
        certify, "_tally", lambda index, *a: tallied.append(index.exact) or tally(index, *a)
    )
    assert certify_files([path], executor=LocalExecutor()).ok
    assert tallied == [False]
    path.write_text(TRICKY[0] + "\n" + path.read_text())  # misfiled: certified again, exactly
    assert not certify_files([path], executor=LocalExecutor()).ok
    assert tallied == [False, False, True]


@given(
    files=st.integers(1, 70_000),
    data=st.data(),
)
def test_the_index_packs_file_offset_and_line_into_one_int_and_back(
    files: int, data: st.DataObject
) -> None:
    """Every (file, offset, line) the index can meet reads back as it was packed, and
    two places of one file and offset share one spot whatever their lines; an offset
    beyond what one int packs is a clear error, never a wrong place."""
    from twosat_formal.certify import _OFFSETS, _Index
    from twosat_formal.errors import ConfigError

    index = _Index.__new__(_Index)
    index._files = files
    index.paths = [f"f{i}" for i in range(files)]
    number = data.draw(st.integers(0, files - 1))
    offset = data.draw(st.integers(0, _OFFSETS - 1))
    line, other = data.draw(st.integers(1, 1 << 40)), data.draw(st.integers(1, 1 << 40))
    packed = index._pack(number, offset, line)
    assert index.place(packed) == (number, offset, line)
    assert index.spot(packed) == index.spot(index._pack(number, offset, other))
    assert index.spot(packed) == number * _OFFSETS + offset
    with pytest.raises(ConfigError, match="too large"):
        index._pack(number, _OFFSETS + data.draw(st.integers(0, 1 << 20)), line)
