"""``certify``: a clean dataset passes; any tampering fails and names the record."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run
from tests.support.jsonl import write_jsonl
from twosat_formal._util.recent import Recent
from twosat_formal.certify import CheckFailure, certify_file, certify_files, certify_record
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.io.instance import Instance
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb.instances import perturb_instance
from twosat_formal.verbalize import prompt_record

Record = dict[str, Any]


def build() -> dict[str, Record]:
    """Named records: roots of four families, one derived record per operator, a prompt."""
    cycle = generate("implication-cycle", clauses=10, seed=1)
    core = generate("equivalence-core", clauses=10, seed=2)
    backbone = generate("backbone", clauses=12, seed=3)
    bridge = generate("mono-bridge", clauses=10, seed=4)
    derived = {
        "reorder": perturb_instance(cycle, ["reorder"], seed=5),
        "rename": perturb_instance(core, [("rename", {"names": "fresh", "flip": 0.5})], seed=6),
        "flip": perturb_instance(backbone, ["flip"], seed=7),
        "filler": perturb_instance(backbone, [("filler", {"count": 4})], seed=8),
        "filler-existing": perturb_instance(cycle, [("filler", {"over": "existing"})], seed=9),
        "duplicate": perturb_instance(core, [("duplicate", {"layout": "interleaved"})], seed=10),
        "bridge-move": perturb_instance(bridge, [("bridge-move", {"position": 0})], seed=11),
    }
    derived["chain"] = perturb_instance(derived["rename"], ["reorder", "filler"], seed=12)
    records: dict[str, Record] = {
        "cycle": cycle.to_record(),
        "core": core.to_record(),
        "backbone": backbone.to_record(),
        "bridge": bridge.to_record(),
    }
    records.update({name: inst.to_record() for name, inst in derived.items()})
    records["prompt"] = prompt_record(core.formula, "team", instance_id=core.id, seed=1).to_record()
    return records


RECORDS = build()


@pytest.fixture
def records() -> dict[str, Record]:
    return copy.deepcopy(RECORDS)


def certify_all(tmp_path: Path, records: dict[str, Record]) -> Any:
    return certify_file(write_jsonl(tmp_path / "data.jsonl", list(records.values())))


def test_clean_dataset_passes(tmp_path: Path, records: dict[str, Record]) -> None:
    report = certify_all(tmp_path, records)
    assert report.ok, [str(f) for f in report.failures]
    assert report.records == len(records)
    assert report.kinds == {"instance": len(records) - 1, "prompt": 1}
    # roots: record + 3 solvers + certificate + regenerate; derived: record + 3 + cert + steps
    assert report.checks >= 6 * len(records) - 10
    assert report.z3_seconds > 0
    assert report.to_json()["records"] == len(records)
    assert report.to_json()["ok"] is True


def test_parallel_certify_gives_the_same_report(tmp_path: Path, records: dict[str, Record]) -> None:
    records["cycle"]["label"] = "SAT"
    path = write_jsonl(tmp_path / "data.jsonl", list(records.values()))
    one, two = certify_file(path), certify_file(path, jobs=2)
    assert one.failures == two.failures
    assert (one.records, one.checks) == (two.records, two.checks)
    assert not two.ok


def failing(tmp_path: Path, records: dict[str, Record]) -> dict[str | None, set[str]]:
    report = certify_all(tmp_path, records)
    out: dict[str | None, set[str]] = {}
    for f in report.failures:
        out.setdefault(f.id, set()).add(f.check)
    return out


def set_clause(record: Record, index: int, clause: list[int]) -> None:
    """Replace clause ``index`` (0-based) in the record's DIMACS text."""
    lines = record["dimacs"].splitlines()
    body = [i for i, line in enumerate(lines) if line and line[0] not in "cp"]
    lines[body[index]] = " ".join(str(x) for x in [*clause, 0])
    record["dimacs"] = "\n".join(lines) + "\n"


def first_clause(record: Record) -> list[int]:
    line = next(x for x in record["dimacs"].splitlines() if x and x[0] not in "cp")
    return [int(x) for x in line.split()[:-1]]


def test_tampered_label(tmp_path: Path, records: dict[str, Record]) -> None:
    records["backbone"]["label"] = "UNSAT"
    records["duplicate"]["label"] = "UNSAT"
    result = failing(tmp_path, records)
    assert set(result) == {records["backbone"]["id"], records["duplicate"]["id"]}
    assert {"solve:scc", "solve:pysat", "solve:z3", "certificate"} <= result[
        records["backbone"]["id"]
    ]


def test_tampered_clause_of_a_root(tmp_path: Path, records: dict[str, Record]) -> None:
    # negate one literal of a clause of a SAT root: the stored model may still satisfy it,
    # but the family does not regenerate this formula
    clause = first_clause(records["bridge"])
    set_clause(records["bridge"], 0, [-clause[0], *clause[1:]])
    result = failing(tmp_path, records)
    assert records["bridge"]["id"] in result
    assert "regenerate" in result[records["bridge"]["id"]]


def test_tampered_clause_of_a_derived_record(tmp_path: Path, records: dict[str, Record]) -> None:
    clause = first_clause(records["filler"])
    set_clause(records["filler"], 0, [clause[-1], clause[0]] if len(clause) == 2 else clause * 2)
    result = failing(tmp_path, records)
    assert set(result) == {records["filler"]["id"]}
    assert "transforms" in result[records["filler"]["id"]]


def test_tampered_map_entry(tmp_path: Path, records: dict[str, Record]) -> None:
    lmap = records["rename"]["transforms"][0]["literal_map"][0]
    lmap[0] = -lmap[0]
    result = failing(tmp_path, records)
    assert set(result) == {records["rename"]["id"]}
    assert result[records["rename"]["id"]] == {"transform[1]:rename"}


def test_tampered_map_entry_of_a_duplicate_copy(tmp_path: Path, records: dict[str, Record]) -> None:
    maps = records["duplicate"]["transforms"][0]["literal_map"]
    maps[1][0], maps[1][1] = maps[1][1], maps[1][0]
    assert failing(tmp_path, records) == {records["duplicate"]["id"]: {"transform[1]:duplicate"}}


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("bridge-move", lambda t: t["params"].update(position=3)),
        ("reorder", lambda t: t.update(seed=t["seed"] + 1)),
        ("filler", lambda t: t["params"].update(count=3)),
        ("duplicate", lambda t: t["params"].update(layout="grouped")),
        ("filler", lambda t: t.update(witness=[-w for w in t["witness"]])),
        ("flip", lambda t: t["params"].update(fraction=0.0)),
        ("filler-existing", lambda t: t.update(relation="equivalent")),
    ],
)
def test_tampered_transform_parameter(
    tmp_path: Path, records: dict[str, Record], name: str, change: Callable[[Record], None]
) -> None:
    change(records[name]["transforms"][0])
    result = failing(tmp_path, records)
    assert set(result) == {records[name]["id"]}
    assert any(check.startswith("transform[1]") for check in result[records[name]["id"]])


def test_tampered_step_of_a_chain(tmp_path: Path, records: dict[str, Record]) -> None:
    records["chain"]["transforms"][1]["params"]["order"] = "reversed"
    assert failing(tmp_path, records) == {records["chain"]["id"]: {"transform[2]:reorder"}}


def test_tampered_certificate(tmp_path: Path, records: dict[str, Record]) -> None:
    model = records["core"]["certificate"]["model"]
    first = next(iter(model))
    model[first] = not model[first]
    cycle = records["cycle"]["certificate"]["cycle"]
    cycle[1] = cycle[1][1:] if cycle[1].startswith("~") else "~" + cycle[1]
    result = failing(tmp_path, records)
    # the checker refuses the certificate, and the re-derived record has the solver's
    assert result == {
        records["core"]["id"]: {"certificate", "regenerate"},
        records["cycle"]["id"]: {"certificate", "regenerate"},
    }


def test_tampered_prompt(tmp_path: Path, records: dict[str, Record]) -> None:
    text = records["prompt"]["text"]
    records["prompt"]["text"] = text.replace("Red", "Blue", 1)
    assert failing(tmp_path, records) == {records["prompt"]["id"]: {"roundtrip"}}


def test_prompt_without_its_instance(tmp_path: Path, records: dict[str, Record]) -> None:
    report = certify_file(write_jsonl(tmp_path / "p.jsonl", [records["prompt"]]))
    assert [f.check for f in report.failures] == ["roundtrip"]
    assert "not in the dataset" in report.failures[0].message
    both = certify_files(
        [write_jsonl(tmp_path / "i.jsonl", [records["core"]]), tmp_path / "p.jsonl"]
    )
    assert both.ok


def test_derived_record_without_its_root_is_regenerated(
    tmp_path: Path, records: dict[str, Record]
) -> None:
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", [records["reorder"], records["chain"]]))
    assert report.ok, [str(f) for f in report.failures]
    records["reorder"]["base_id"] = "implication-cycle-0000000000000000"
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", [records["reorder"]]))
    assert [f.check for f in report.failures] == ["transforms"]
    assert "not base_id implication-cycle-0000000000000000" in report.failures[0].message


def test_base_id_must_name_a_root(tmp_path: Path, records: dict[str, Record]) -> None:
    records["chain"]["base_id"] = records["rename"]["id"]
    result = failing(tmp_path, records)
    assert result == {records["chain"]["id"]: {"transforms"}}


def test_malformed_records_fail_with_their_line(tmp_path: Path, records: dict[str, Record]) -> None:
    missing = dict(records["cycle"], id="missing-dimacs")
    del missing["dimacs"]
    future = dict(records["core"], schema_version=99, id="future")
    lines: list[Any] = [
        records["cycle"],
        "{not json",
        "",
        missing,
        future,
        "[1, 2]",
        dict(records["backbone"], num_clauses=3),
        records["cycle"],
    ]
    report = certify_file(write_jsonl(tmp_path / "bad.jsonl", lines))
    got = [(f.line, f.check) for f in report.failures]
    assert got == [
        (2, "record"),
        (4, "record"),
        (5, "record"),
        (6, "record"),
        (7, "record"),
        (8, "record"),
    ]
    messages = [f.message for f in report.failures]
    assert "invalid JSON" in messages[0]
    assert "missing field 'dimacs'" in messages[1]
    assert "schema_version 99" in messages[2]
    assert "JSON object" in messages[3]
    assert "the record says" in messages[4]
    assert "used again" in messages[5]
    assert all(f.source == str(tmp_path / "bad.jsonl") for f in report.failures)
    assert report.records == 7


def test_certify_record() -> None:
    assert certify_record(RECORDS["backbone"]) == []
    bad = dict(RECORDS["backbone"], label="UNSAT")
    failures = certify_record(bad, line=3, source="x.jsonl")
    assert all(isinstance(f, CheckFailure) for f in failures)
    assert {(f.id, f.line, f.source) for f in failures} == {(bad["id"], 3, "x.jsonl")}
    assert str(failures[0]).startswith(f"x.jsonl:3 {bad['id']} [solve:")


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="jobs"):
        certify_file(write_jsonl(tmp_path / "e.jsonl", []), jobs=0)


def test_empty_dataset_fails(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="empty"):  # zero bytes: an input error
        certify_file(write_jsonl(tmp_path / "e.jsonl", []))
    report = certify_file(write_jsonl(tmp_path / "blank.jsonl", ["", "  "]))  # no record
    assert not report.ok and report.records == 0
    assert [f.check for f in report.failures] == ["dataset"]
    assert "no record" in report.failures[0].message


def test_round_trip_through_instance_objects() -> None:
    for record in RECORDS.values():
        if "dimacs" in record:
            assert Instance.from_record(record).to_record() == record


# -- the command ---------------------------------------------------------------------------------


def test_command_passes(
    tmp_path: Path, records: dict[str, Record], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "data.jsonl", list(records.values()))
    code, out, _ = run(["certify", str(path)], capsys)
    assert code == 0
    assert "PASS" in out and "records" in out and "time" in out
    code, out, _ = run(["certify", str(path), "--json", "--jobs", "2"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True and report["records"] == len(records)


def test_command_fails_listing_ids(
    tmp_path: Path, records: dict[str, Record], capsys: pytest.CaptureFixture[str]
) -> None:
    records["flip"]["label"] = "UNSAT"
    records["reorder"]["transforms"][0]["seed"] += 1
    path = write_jsonl(tmp_path / "data.jsonl", [*records.values(), "{broken"])
    code, out, _ = run(["certify", str(path)], capsys)
    assert code == 1
    assert "FAIL" in out
    fail_lines = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert any(records["flip"]["id"] in line and "[solve:scc]" in line for line in fail_lines)
    assert any(
        records["reorder"]["id"] in line and "transform[1]:reorder" in line for line in fail_lines
    )
    assert any(f"data.jsonl:{len(records) + 1} (no id) [record]" in line for line in fail_lines)
    code, out, err = run(["certify", str(path), "--json"], capsys)
    assert code == 1
    report = json.loads(out)
    assert report["failed_records"] == 3
    assert {f["id"] for f in report["failures"]} == {
        records["flip"]["id"],
        records["reorder"]["id"],
        None,
    }
    assert "3 of" in err


def test_command_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["certify", str(tmp_path / "missing.jsonl")], capsys)
    assert code == 2 and "no such file" in err
    path = write_jsonl(tmp_path / "e.jsonl", [])
    code, _, err = run(["certify", str(path), "--jobs", "0"], capsys)
    assert code == 2


def test_the_scc_backend_solves_a_record_once(
    monkeypatch: pytest.MonkeyPatch, records: dict[str, Record]
) -> None:
    """Re-deriving an instance solves its formula with the scc backend; ``solve:scc``
    takes that answer rather than solving the same formula again, and the other two
    backends each decide it once (their label alone, :func:`~twosat_formal.solve.decide`)."""
    from twosat_formal import solve
    from twosat_formal.certify import rederive
    from twosat_formal.solve import BACKENDS

    calls: list[tuple[str, tuple[Any, ...]]] = []
    for backend in BACKENDS.names():

        def spy(formula: Any, backend: str = backend, real: Any = BACKENDS.get(backend)) -> Any:
            calls.append((backend, formula.clauses))
            return real(formula)

        monkeypatch.setitem(BACKENDS._items, backend, spy)
    real_decide = solve.decide

    def decide_spy(formula: Any, backend: str) -> str:
        if backend != "scc":  # an scc decision solves through the spy above
            calls.append((backend, formula.clauses))
        return real_decide(formula, backend)

    monkeypatch.setattr(solve, "decide", decide_spy)
    rederive._generate.cache_clear()
    for name in ("backbone", "flip", "chain", "duplicate"):
        calls.clear()
        record = records[name]
        assert certify_record(record) == [], name
        own = Instance.from_record(record).formula.clauses
        backends = sorted(backend for backend, clauses in calls if clauses == own)
        assert backends == ["pysat", "scc", "z3"], (name, backends)


def test_a_wrong_label_is_named_by_every_backend_in_order(records: dict[str, Record]) -> None:
    record = records["flip"]
    assert record["label"] == "SAT"
    record["label"] = "UNSAT"
    failures = certify_record(record)
    assert [(f.check, f.message) for f in failures[:3]] == [
        (f"solve:{b}", f"the {b} backend finds SAT, the record says UNSAT")
        for b in ("scc", "pysat", "z3")
    ]
    assert [f.check for f in failures[3:]] == ["certificate", "transforms"]


def test_the_scc_label_is_read_only_off_the_same_text_solved_by_scc() -> None:
    from twosat_formal.certify.checker import Derived as _Derived
    from twosat_formal.certify.instance import scc_label as _scc_label

    record = generate("backbone", clauses=8, seed=2).to_record()
    again = copy.deepcopy(record)
    assert _scc_label(record, _Derived(value=again)) == record["label"]
    assert _scc_label(record, None) is None
    assert _scc_label(record, _Derived(error=ConfigError("no"))) is None
    for change in (
        {"dimacs": record["dimacs"] + "c\n"},
        {"certificate": {**record["certificate"], "backend": "pysat"}},
        {"certificate": {**record["certificate"], "checked": False}},
        {"certificate": {**record["certificate"], "status": "UNSAT"}},
        {"label": "MAYBE", "certificate": {**record["certificate"], "status": "MAYBE"}},
    ):
        assert _scc_label(record, _Derived(value={**again, **change})) is None, change


def test_the_formula_of_an_instance_record_is_kept_by_the_record_object() -> None:
    from twosat_formal.certify.formulas import FormulaByRecord as _FormulaByRecord

    cache = _FormulaByRecord(2)
    a, b, c = (RECORDS[name] for name in ("cycle", "core", "backbone"))
    first = cache.get(a)
    assert first == Instance.from_record(a).formula and cache.get(a) is first
    twin = copy.deepcopy(a)  # another object with the same text: a second entry
    assert cache.get(twin) == first and [e[0] for e in cache.entries.values()] == [a, twin]
    assert [e[0] is twin for e in cache.entries.values()] == [False, True]
    assert cache.get(b) == Instance.from_record(b).formula
    assert cache.get(c) == Instance.from_record(c).formula
    assert [entry[0] for entry in cache.entries.values()] == [b, c]  # the oldest went
    bad = {**a, "dimacs": "p cnf 1 1\n1 2 0\n"}
    for _ in range(2):  # a record that does not read is never kept
        with pytest.raises(RecordError):
            cache.get(bad)
    assert all(entry[0] is not bad for entry in cache.entries.values())
    cache.cache_clear()
    assert not cache.entries


def test_a_prompt_finds_its_instance_formula_by_the_instance_line(
    tmp_path: Path, records: dict[str, Record], monkeypatch: pytest.MonkeyPatch
) -> None:
    import twosat_formal.certify.formulas as certify_module

    monkeypatch.setattr(certify_module, "_formulas_by_line", Recent(8))
    read: list[object] = []
    real = certify_module._record_formula
    monkeypatch.setattr(certify_module, "_record_formula", lambda r: read.append(r) or real(r))
    prompts = [
        prompt_record(
            Instance.from_record(records[name]).formula,
            template,
            instance_id=records[name]["id"],
            seed=1,
        ).to_record()
        for name in ("core", "chain")
        for template in ("team", "logic")
    ]
    write_jsonl(tmp_path / "inst.jsonl", [records[name] for name in ("core", "chain")])
    write_jsonl(tmp_path / "prompts.jsonl", prompts)
    report = certify_files([tmp_path / "inst.jsonl", tmp_path / "prompts.jsonl"])
    assert report.ok and report.kinds == {"instance": 2, "prompt": 4}
    assert read == []  # both formulas were read by the instances' own checks
    # only the instances that a prompt names are kept: one without prompts is not
    monkeypatch.setattr(certify_module, "_formulas_by_line", Recent(8))
    assert certify_files([tmp_path / "inst.jsonl", tmp_path / "prompts.jsonl"]).ok
    assert len(certify_module._formulas_by_line) == 2
    write_jsonl(tmp_path / "core-prompts.jsonl", prompts[:2])
    monkeypatch.setattr(certify_module, "_formulas_by_line", Recent(8))
    assert certify_files([tmp_path / "inst.jsonl", tmp_path / "core-prompts.jsonl"]).ok
    kept = list(certify_module._formulas_by_line)
    core_line = (tmp_path / "inst.jsonl").read_bytes().splitlines(keepends=True)[0]
    assert kept == [hashlib.sha256(core_line).digest()]  # the key of the core's line
    monkeypatch.setattr(certify_module, "_formulas_by_line", Recent(8))
    assert certify_files([tmp_path / "inst.jsonl"]).ok
    assert not certify_module._formulas_by_line.entries
    # prompts first: their instances are read for them, once each, then found by line
    monkeypatch.setattr(certify_module, "_formulas_by_line", Recent(8))
    certify_module._instance_formulas.cache_clear()
    again = certify_files([tmp_path / "prompts.jsonl", tmp_path / "inst.jsonl"])
    assert again.ok and [r["id"] for r in read] == [records["core"]["id"], records["chain"]["id"]]
    # an instance that does not read is kept for nobody: each prompt reports it
    bad = {**records["core"], "dimacs": "p cnf 1 1\n1 2 0\n"}
    write_jsonl(tmp_path / "inst.jsonl", [bad])
    write_jsonl(tmp_path / "prompts.jsonl", prompts[:2])
    failing = certify_files([tmp_path / "inst.jsonl", tmp_path / "prompts.jsonl"])
    assert [f.check for f in failing.failures] == ["record", "roundtrip", "roundtrip"]
