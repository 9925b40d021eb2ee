"""Instance records: JSON Lines round trip, stable ids, malformed records."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.core.formula import Formula
from twosat_formal.errors import RecordError
from twosat_formal.io.instance import (
    SCHEMA_VERSION,
    Instance,
    canonical_json,
    instance_id,
    read_instances,
    write_instances,
)


def make(formula: Formula | None = None, **changes: Any) -> Instance:
    formula = formula if formula is not None else Formula([[1, -2], [2], [-1, 3]])
    fields: dict[str, Any] = {
        "id": instance_id("demo", {"n": formula.num_vars}, 5),
        "family": "demo",
        "params": {"n": formula.num_vars, "knob": 0.5, "flag": True, "none": None},
        "seed": 5,
        "formula": formula,
        "label": "SAT",
        "certificate": {"status": "SAT", "backend": "scc", "checked": True, "model": {"x1": True}},
        "structure": {"core_clauses": [0, 2], "nested": {"a": [1, 2]}},
        "provenance": {"tool": "twosat-formal", "tool_version": "0.1.0"},
    }
    fields.update(changes)
    return Instance(**fields)


clause = st.lists(
    st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3
)


@given(clauses=st.lists(clause, max_size=12), seed=st.integers(0, 2**63 - 1))
def test_record_round_trip(clauses: list[list[int]], seed: int) -> None:
    inst = make(Formula(clauses, num_vars=6), seed=seed)
    text = inst.to_json()
    assert "\n" not in text
    back = Instance.from_record(json.loads(text))
    assert back == inst
    assert back.to_json() == text


def test_record_fields_and_dimacs_header() -> None:
    named = Formula.from_named([["rain", "~wet"], ["wet"]])
    record = make(named, base_id="demo-0", transforms=({"operator": "shuffle"},)).to_record()
    assert list(record)[:2] == ["schema_version", "id"]
    assert record["schema_version"] == SCHEMA_VERSION
    assert (record["num_vars"], record["num_clauses"]) == (2, 2)
    assert record["base_id"] == "demo-0" and record["transforms"] == [{"operator": "shuffle"}]
    lines = record["dimacs"].splitlines()
    assert lines[0].startswith("c twosat-formal")
    assert 'c family: "demo"' in lines and "c seed: 5" in lines
    assert "c var 1 rain" in lines and "p cnf 2 2" in lines
    # a transform is read through its typed model: a bare {"operator": ...} is refused
    with pytest.raises(RecordError, match=r"missing field 'transforms\[0\]\.params'"):
        Instance.from_record(record)
    assert Instance.from_record({**record, "transforms": []}).formula.names == ("rain", "wet")


def test_ids_are_stable_and_canonical() -> None:
    a = instance_id("backbone", {"beta": 0.5, "n": 10}, 3)
    b = instance_id("backbone", {"n": 10, "beta": 0.5}, 3)
    assert a == b and a.startswith("backbone-") and len(a) == len("backbone-") + 16
    assert a != instance_id("backbone", {"beta": 0.5, "n": 11}, 3)
    assert a != instance_id("mono-bridge", {"beta": 0.5, "n": 10}, 3)
    assert canonical_json({"b": [1.5], "a": "é"}) == '{"a":"\\u00e9","b":[1.5]}'


def test_files_and_streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [make(seed=s) for s in range(3)]
    path = tmp_path / "set.jsonl"
    assert write_instances(items, path) == 3
    assert list(read_instances(path)) == items
    assert list(read_instances(str(path))) == items
    buffer = io.StringIO()
    write_instances(items, buffer)
    assert buffer.getvalue() == path.read_text(encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" + buffer.getvalue() + "\n"))
    assert list(read_instances("-")) == items


def record_with(**changes: Any) -> dict[str, Any]:
    record = make().to_record()
    for key, value in changes.items():
        if value is KeyError:
            del record[key]
        else:
            record[key] = value
    return record


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        (record_with(label=KeyError), "missing field 'label'"),
        (record_with(schema_version=2), "schema_version 2"),
        (record_with(label="MAYBE"), "label"),
        (record_with(seed="5"), "field 'seed' must be an integer, not string"),
        (record_with(num_vars=True), "field 'num_vars' must be an integer, not boolean"),
        (record_with(num_clauses=4), "the record says"),
        (record_with(dimacs="p cnf 1 1\n2 0\n"), "field 'dimacs'"),
        (record_with(transforms={"a": 1}), "transforms"),
        (record_with(base_id=3), "field 'base_id' must be a string, not number"),
        (record_with(certificate={"status": "SAT"}), "missing field 'certificate.backend'"),
        (record_with(provenance=[]), "field 'provenance' must be an object, not array"),
        (record_with(twin_of="demo-1"), "twin record"),
        ([1, 2], "JSON object"),
    ],
)
def test_malformed_records(record: Any, fragment: str) -> None:
    with pytest.raises(RecordError) as info:
        Instance.from_record(record, line=7, source="set.jsonl")
    assert fragment in str(info.value)
    assert (info.value.line, info.value.source) == (7, "set.jsonl")


def test_bad_json_line_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(make().to_json() + "\n{not json\n", encoding="utf-8")
    reader = read_instances(path)
    assert next(reader) == make()
    with pytest.raises(RecordError) as info:
        next(reader)
    assert info.value.line == 2 and info.value.source == str(path)


def test_a_malformed_edit_step_is_named_by_its_path() -> None:
    from twosat_formal.make.edits import apply_edit, root_instance

    edited = apply_edit(root_instance(Formula([[1, 2], [-1, 2]])), "converse", position=1)
    record = edited.instance.to_record()
    record["transforms"][0]["position"] = "2"
    with pytest.raises(RecordError) as info:
        Instance.from_record(record, line=3, source="e.jsonl")
    assert str(info.value) == (
        "e.jsonl:3: field 'transforms[0].position' must be an integer, not string"
    )
