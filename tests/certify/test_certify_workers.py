"""``certify``'s index and its workers: each line parsed once, its references exact.

The index reads and parses each line once and finds each record's references (root,
instance, twin source) whatever the layout of the JSON, before or after the record;
the workers receive the parsed records. The report must be the one an independent
reading gives (every line parsed into memory, each record certified alone with the
records it names), on every executor and start method.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal._util import executors
from twosat_formal._util.executors import LocalExecutor, ProcessExecutor
from twosat_formal.certify import CertifyReport, certify_files, certify_record
from twosat_formal.certify import index as certify_index
from twosat_formal.errors import RecordError
from twosat_formal.io import jsonl
from twosat_formal.io.jsonl import json_line, parse_line
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb.instances import perturb_instance
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


@pytest.mark.parametrize(
    "method,tamper",
    [("fork", False), ("fork", True), pytest.param("spawn", True, marks=pytest.mark.slow)],
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


def test_a_failing_record_of_another_layout_keeps_its_line(tmp_path: Path) -> None:
    lines = layouts(RECORDS)["compact"]
    result = report(lines, tmp_path / "c.jsonl", LocalExecutor())
    assert result.ok, [str(f) for f in result.failures]
    bad = dict(RECORDS[2], label="SAT" if RECORDS[2]["label"] == "UNSAT" else "UNSAT")
    lines[2] = json.dumps(bad, separators=(",", ":"))
    result = report(lines, tmp_path / "c.jsonl", LocalExecutor())
    assert {(f.id, f.line) for f in result.failures} == {(bad["id"], 3)}


# -- an independent reading: every line in memory, each record certified alone ----------


REFERENCES = ("base_id", "instance_id", "twin_of")


def reference_summary(path: Path) -> tuple[Any, ...]:
    """The records and failures an independent reading gives: every line parsed into
    memory, the first record of each id named by the others, each record certified
    alone (:func:`certify_record`) with the records it names."""
    values: list[tuple[int, Any]] = []
    for number, text in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if text.strip():
            try:
                values.append((number, parse_line(text, str(path), number)))
            except RecordError as exc:
                values.append((number, exc))
    first: dict[str, tuple[int, Record]] = {}
    failures = []
    for number, value in values:
        key = value.get("id") if isinstance(value, dict) else None
        if not isinstance(key, str):
            continue
        if key in first:
            message = f"the id is used again (first on line {first[key][0]} of {path})"
            failures.append((key, "record", message))
        else:
            first[key] = (number, value)
    for number, value in values:
        if not isinstance(value, dict):
            message = str(value) if isinstance(value, RecordError) else ""
            failures.append(("", "record", message or "a record must be a JSON object"))
            continue
        named = [value.get(field) for field in REFERENCES]
        base, instance, twin = (
            first[ref][1] if isinstance(ref, str) and ref in first else None for ref in named
        )
        for f in certify_record(
            value, line=number, source=str(path), base=base, instance=instance, twin_source=twin
        ):
            failures.append((f.id or "", f.check, f.message))
    return len(values), sorted(failures)


def short_summary(result: CertifyReport) -> tuple[Any, ...]:
    """The records and the failures' ids, checks and messages."""
    return result.records, sorted((f.id or "", f.check, f.message) for f in result.failures)


ROOT_ID = RECORDS[0]["id"]
#: Lines that no byte search reads right: a nested id where the record has none, a
#: repeated id key, a line that is not JSON, an id with escapes, a nested instance id.
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
def test_a_tricky_line_gives_the_report_of_the_independent_reading(
    tmp_path: Path, tricky: str
) -> None:
    lines = layouts(RECORDS)["standard"]
    path = tmp_path / "d.jsonl"
    for at in (0, len(lines)):  # the tricky line first, or after every other record
        path.write_text("".join(line + "\n" for line in [*lines[:at], tricky, *lines[at:]]))
        expected = reference_summary(path)
        assert short_summary(certify_files([path], executor=LocalExecutor())) == expected
        with ProcessExecutor(2, chunk=2) as pool:
            assert short_summary(certify_files([path], executor=pool)) == expected


@pytest.mark.slow
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
def test_any_dataset_certifies_as_the_independent_reading_does(lines: list[str]) -> None:
    """Whatever the lines (repeated ids, misleading marks, other layouts, references
    before or after their records), certify's report is that of the independent
    reading."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        result = certify_files([path], executor=LocalExecutor())
        assert short_summary(result) == reference_summary(path)


def test_each_line_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line of the dataset is parsed exactly once, by the index, whatever the
    layout and the order of the records, on this process and on workers; the records
    a line names reach its checks parsed."""
    forms = layouts(RECORDS)
    mixed = [forms["compact" if i % 2 else "standard"][i] for i in range(len(RECORDS))]
    lines = mixed[1:] + mixed[:1]  # the root last: every reference forward
    path = tmp_path / "d.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    log = tmp_path / "parsed.log"  # appended to by this process and by forked workers
    real = certify_index.parse_line

    def counted(text: str, source: str, number: int) -> Any:
        if source == str(path):
            with open(log, "a", encoding="utf-8") as out:
                out.write(f"{number}\n")
        return real(text, source, number)

    def parsed() -> list[int]:
        numbers = sorted(map(int, log.read_text().split()))
        log.unlink()
        return numbers

    monkeypatch.setattr(certify_index, "parse_line", counted)
    monkeypatch.setattr(jsonl, "parse_line", counted)
    assert certify_files([path], executor=LocalExecutor()).ok
    assert parsed() == list(range(1, len(RECORDS) + 1))
    with ProcessExecutor(2, chunk=2) as pool:
        assert certify_files([path], executor=pool).ok
    assert parsed() == list(range(1, len(RECORDS) + 1))


def test_the_index_keeps_no_record_and_names_each_reference(tmp_path: Path) -> None:
    """The index holds ids and places only; each item comes in file order with the
    entries of the records it names, the first record of a repeated id."""
    lines = layouts(RECORDS)["roots-last"]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(line + "\n" for line in [*lines, lines[-1]]))
    with certify_index.Index([path]) as index:
        assert all(isinstance(value, int) for value in index.where.values())
        assert [d.line for d in index.duplicates] == [len(lines) + 1]
        items = list(index.items())
    assert [item.line for item in items] == list(range(1, len(lines) + 2))
    for item in items:
        record = json.loads(lines[item.line - 1] if item.line <= len(lines) else lines[-1])
        named = tuple(record.get(field) for field in REFERENCES)
        assert tuple(None if e is None else e.id for e in item.found) == named
        assert item.id == record["id"]
