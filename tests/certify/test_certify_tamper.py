"""``certify`` vouches for every byte: any change to a field that is not measured fails.

A mixed dataset (roots, perturbed, edited, prompts, stories) certifies; then one random
field of one random record is changed (a value, a deleted field, an added field, a
renamed key) and ``certify`` must name that record, for every field outside the
measured class: the tool and Z3 versions and the path a formula was read from
included. Measured fields (timings, and nothing else) change without a failure; an
instance's ``measures`` deleted whole is a record older than them, which makes no claim
(each of its values changed, deleted or added to fails).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.certify.test_certify_story import INSTANCES as STORY_INSTANCES
from tests.certify.test_certify_story import STORIES
from tests.support.jsonl import write_jsonl
from twosat_formal.certify import certify_files, certify_record
from twosat_formal.certify.checks import kind_of as _kind
from twosat_formal.core.fieldclass import MEASURED, compare_record, field_class
from twosat_formal.core.formula import Formula
from twosat_formal.make.edits import edit_instances, root_instance
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb.instances import perturb_document, perturb_instance
from twosat_formal.verbalize import prompt_record

Record = dict[str, Any]
Path_ = tuple[str | int, ...]


def build() -> list[Record]:
    backbone = generate("backbone", clauses=8, seed=3)
    bridge = generate("mono-bridge", clauses=8, seed=4)
    chain = perturb_instance(backbone, ["reorder", ("filler", {"count": 2})], seed=5)
    moved = perturb_instance(bridge, [("bridge-move", {"position": 0}), "rename"], seed=6)
    cumulative = edit_instances([bridge], mode="cumulative", max_edits=2, seed=1, keep_base=False)
    individual = edit_instances([chain], mode="individual", max_edits=1, seed=2, keep_base=False)
    records = [inst.to_record() for inst in (backbone, bridge, chain, moved)]
    records += [inst.to_record() for inst in cumulative.records + individual.records]
    for inst, template in ((backbone, "team"), (moved, "door")):
        made = prompt_record(inst.formula, template, instance_id=inst.id, seed=2)
        records.append(made.to_record())
    records += copy.deepcopy(STORY_INSTANCES) + copy.deepcopy(STORIES)
    named = Formula.from_named([["a", "b"], ["~a", "c"], ["~b", "~c"]])
    read = root_instance(named, source="dir/f.cnf")
    records += [read.to_record(), perturb_instance(read, ["rename", "filler"], seed=7).to_record()]
    records.append(perturb_document(named, ["reorder", "flip"], seed=8, source="dir/f.cnf"))
    return records


DATASET = build()
INDEX = {r["id"]: r for r in DATASET if "id" in r}


def test_the_mixed_dataset_certifies_and_counts_the_three_classes(tmp_path: Path) -> None:
    report = certify_files([write_jsonl(tmp_path / "mixed.jsonl", DATASET)])
    assert report.ok, [str(f) for f in report.failures]
    assert set(report.kinds) == {"instance", "prompt", "story", "document"}
    assert all(report.fields[cls] > 0 for cls in ("re-derived", "measured", "attested"))


def certify_one(record: Any) -> list[Any]:
    """Certify one record of the dataset, its base and instance looked up as certify does."""
    base = instance = None
    if isinstance(record, dict):
        base = INDEX.get(record.get("base_id")) if isinstance(record.get("base_id"), str) else None
        iid = record.get("instance_id")
        instance = INDEX.get(iid) if isinstance(iid, str) else None
    return certify_record(record, line=1, source="mixed.jsonl", base=base, instance=instance)


def paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """Every field of a record, containers and leaves (the record itself excluded)."""
    if prefix:
        yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*prefix, i))


def changed(value: Any) -> Any:
    """A different value of the same kind (and a different JSON text)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return 0
    if isinstance(value, list):
        return [*value, value[0] if value else 0]
    return {**value, "extra": 1}


def tamper(record: Record, path: Path_, how: str) -> Record:
    out = copy.deepcopy(record)
    parent: Any = out
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "delete" and isinstance(parent, dict):
        del parent[last]
    elif how == "rename" and isinstance(parent, dict):
        items = [(f"{k}_" if k == last else k, v) for k, v in parent.items()]
        parent.clear()
        parent.update(items)
    elif how == "add" and isinstance(parent, dict):
        parent["unexpected"] = 0
    else:
        parent[last] = changed(parent[last])
    return out


def tamperable(record: Record) -> list[Path_]:
    kind = _kind(record)
    return [p for p in paths(record) if not _measured(kind, p)]


def _measured(kind: str, path: Path_) -> bool:
    return any(field_class(kind, path[:n]) == MEASURED for n in range(1, len(path) + 1))


@pytest.mark.slow
@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_change_outside_the_measured_class_names_its_record(data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(DATASET) - 1), label="record")
    record = DATASET[index]
    path = data.draw(st.sampled_from(tamperable(record)), label="field")
    how = data.draw(st.sampled_from(["change", "change", "delete", "rename", "add"]), label="how")
    bad = tamper(record, path, how)
    assert bad != record
    failures = certify_one(bad)
    if path == ("measures",) and how == "delete":
        # the one field whose absence is a record of its own: written before records
        # carried measures, it makes no claim (docs/certificates.md)
        assert failures == []
        return
    assert failures, f"{how} {path} of record {index} ({_kind(record)}) was not caught"
    assert {f.line for f in failures} == {1}


@pytest.mark.parametrize("index", range(len(DATASET)))
def test_a_change_to_a_measured_field_is_not_a_failure(index: int) -> None:
    record = DATASET[index]
    kind = _kind(record)
    measured = [p for p in paths(record) if field_class(kind, p) == MEASURED]
    bad = copy.deepcopy(record)
    for path in measured:
        parent: Any = bad
        for part in path[:-1]:
            parent = parent[part]
        value = parent[path[-1]]
        parent[path[-1]] = value + 1.5 if isinstance(value, float) else f"{value}-other"
    assert certify_one(bad) == []
    if not measured:
        assert certify_one(record) == []


@pytest.mark.parametrize("index", range(len(DATASET)))
def test_every_field_of_every_record_is_caught_somewhere(index: int) -> None:
    """Exhaustive over the top-level fields: change each and the record fails."""
    record = DATASET[index]
    kind = _kind(record)
    for key in record:
        if _measured(kind, (key,)):
            continue
        assert certify_one(tamper(record, (key,), "change")), f"{key} of record {index}"


def test_compare_record_counts_each_leaf_once_from_zero() -> None:
    stored = {"id": "a", "transforms": [{"proof": {"result": "proved", "seconds": 0.5}}]}
    result = compare_record("document", stored, copy.deepcopy(stored))
    assert result.differences == []
    assert result.counts == {"re-derived": 2, "measured": 1, "attested": 0}
    nested = {"params": {"n": 3, "k": [1, 2], "e": {}, "z": []}}
    counts = compare_record("prompt", nested, copy.deepcopy(nested)).counts
    assert counts == {"re-derived": 5, "measured": 0, "attested": 0}


def test_a_difference_shows_short_values_whole_and_long_ones_cut() -> None:
    (short,) = compare_record("prompt", {"a": "x"}, {"a": "y"}).differences
    assert short == "a is 'x', re-derived 'y'"
    (long,) = compare_record("prompt", {"a": "x" * 100}, {"a": "y"}).differences
    assert long == f"a is {repr('x' * 100)[:57]}..., re-derived 'y'"


def test_only_timings_are_held_to_be_timings() -> None:
    """Attested text and measured non-timings are not checked as numbers; a timing that
    is negative, infinite, NaN, a bool or a string is named as a difference."""
    story = {"intro": "Once upon a time", "provenance": {"endpoint": "x"}}
    assert compare_record("story", story, {"intro": "other", "provenance": {}}).differences == []
    doc = {"source": "a.cnf", "transforms": [{"proof": {"seconds": 0.0}}]}
    assert compare_record("document", doc, doc).differences == []
    for bad in (-1.0, float("inf"), float("nan"), True, "0.5"):
        record = {"transforms": [{"proof": {"seconds": bad}}]}
        (message,) = compare_record("document", record, record).differences
        assert message.endswith("not a timing")


def test_a_list_where_an_object_was_re_derived_is_one_difference() -> None:
    stored, again = {"transforms": [1]}, {"transforms": {"a": 1}}
    assert compare_record("document", stored, again).differences == [
        "transforms is [1], re-derived {'a': 1}"
    ]
    assert compare_record("document", again, stored).differences == [
        "transforms is {'a': 1}, re-derived [1]"
    ]


def _first(kind: str, has: tuple[str | int, ...]) -> Record:
    """The first record of ``kind`` that has the field at ``has``."""
    for record in DATASET:
        if _kind(record) != kind:
            continue
        value: Any = record
        try:
            for part in has:
                value = value[part]
        except (KeyError, IndexError, TypeError):
            continue
        return record
    raise AssertionError(f"no {kind} record has {has}")


@pytest.mark.parametrize(
    ("kind", "path"),
    [
        ("instance", ("provenance", "tool_version")),
        ("instance", ("provenance", "perturb", "tool_version")),
        ("instance", ("provenance", "edit", "tool_version")),
        ("instance", ("provenance", "source")),
        ("document", ("source",)),
        ("prompt", ("roundtrip", "z3")),
        ("story", ("roundtrip", "z3")),
        ("story", ("provenance", "tool_version")),
    ],
)
@pytest.mark.parametrize("how", ["change", "delete"])
def test_versions_and_sources_are_re_derived(kind: str, path: Path_, how: str) -> None:
    """The tool and Z3 versions a record names and the path a formula was read from are
    not measured: changing or deleting one names the record."""
    record = _first(kind, path)
    assert field_class(kind, path) == "re-derived"
    failures = certify_one(tamper(record, path, how))
    assert failures, f"{how} {path} of a {kind} record was not caught"
    assert any(".".join(map(str, path)) in f.message or "source" in f.message for f in failures)


def test_measured_is_timings_only() -> None:
    """Every measured field of every record of the mixed dataset is a timing."""
    for record in DATASET:
        kind = _kind(record)
        for path in paths(record):
            if field_class(kind, path) == MEASURED:
                assert path[-1] in {"seconds", "time_s"}, (kind, path)


def test_a_story_provenance_is_attested_but_for_its_tool_version() -> None:
    stored = {"provenance": {"endpoint": "a", "tool_version": "1"}}
    again = {"provenance": {"endpoint": "b", "tool_version": "2"}}
    result = compare_record("story", stored, again)
    assert result.differences == ["provenance.tool_version is '1', re-derived '2'"]
    assert result.counts == {"re-derived": 1, "measured": 0, "attested": 1}
    gone = compare_record("story", {"provenance": {"endpoint": "a"}}, again)
    assert gone.differences == ["provenance.tool_version is missing"]
    extra = compare_record("story", again, {"provenance": {"endpoint": "b"}})
    assert extra.differences == ["provenance.tool_version is not a field of the re-derived record"]
    assert extra.counts == {"re-derived": 1, "measured": 0, "attested": 1}
    empty = compare_record("story", {"provenance": {}}, again)
    assert empty.differences == ["provenance.tool_version is missing"]
    assert empty.counts == {"re-derived": 0, "measured": 0, "attested": 1}
    flat = compare_record("story", {"provenance": "text"}, again)
    assert flat.differences == ["provenance is 'text', not an object"]
    assert flat.counts == {"re-derived": 0, "measured": 0, "attested": 1}
    kept = compare_record("story", stored, {"provenance": {"tool_version": "1"}})
    assert kept.differences == [] and kept.counts["attested"] == 1
    both = compare_record("story", {"provenance": "a"}, {"provenance": "b"})
    assert both.differences == [] and both.counts["attested"] == 1


# -- the walk, line by line (each test kills mutants of scripts/mutate.py) -----------------


def test_empty_objects_and_lists_under_live_rules_count_one_field() -> None:
    for value in ({"proof": {}}, {"proof": {"seconds": 0.0}}):
        record = {"transforms": [value]}
        counts = compare_record("document", record, copy.deepcopy(record)).counts
        assert sum(counts.values()) == 1, (value, counts)
    counts = compare_record("document", {"transforms": []}, {"transforms": []}).counts
    assert counts == {"re-derived": 1, "measured": 0, "attested": 0}


def test_a_list_is_not_a_tuple_even_when_their_json_is_the_same() -> None:
    assert compare_record("instance", {"formula": [1, 2]}, {"formula": (1, 2)}).differences
    assert compare_record("instance", {"formula": (1, 2)}, {"formula": [1, 2]}).differences


def test_leaves_under_live_rules_differ_by_type_and_value() -> None:
    def differences(a: object, b: object) -> list[str]:
        return compare_record(
            "document", {"transforms": [{"x": a}]}, {"transforms": [{"x": b}]}
        ).differences

    assert differences(True, 1) == ["transforms[0].x is True, re-derived 1"]
    assert differences("a", "b") == ["transforms[0].x is 'a', re-derived 'b'"]
    assert differences(1, 1) == [] and differences("a", "a") == []


def test_a_text_difference_names_the_first_line_that_differs() -> None:
    def message(a: str, b: str) -> str:
        (only,) = compare_record("prompt", {"text": a}, {"text": b}).differences
        return only

    assert message("a\nb\nc", "a\nX\nc") == "text line 2 is 'b', re-derived 'X'"
    assert message("a", "a\nb") == "text line 2 is '(end of text)', re-derived 'b'"
    assert message("a\nb", "a") == "text line 2 is 'b', re-derived '(end of text)'"


def test_at_most_five_differences_are_listed_then_one_ellipsis() -> None:
    stored = {f"k{i}": i for i in range(8)}
    expected = {f"k{i}": -i - 1 for i in range(8)}
    found = compare_record("prompt", stored, expected).differences
    assert len(found) == 6 and found[-1] == "..." and found[0] == "k0 is 0, re-derived -1"
    assert compare_record("prompt", stored, expected, limit=2).differences[2:] == ["..."]
