"""``certify``'s index: each line parsed once, its entry exactly what the line holds.

The index writes each line's parsed value to its spill file with the line's SHA-256,
its id and the ids it names; each item comes back in file order with the entries of
the first records of the ids it names. Checked against an independent reading of the
same lines (Python's JSON reader where the strict reader accepts the line), on lines
drawn at random: any JSON value, text that is no JSON, repeated ids, references to
records before, after or absent.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.certify.index import OFFSETS, REFERENCES, Index, pack, unpack
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.io.jsonl import json_line

IDS = st.sampled_from(["a", "b", "c", "é"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4))
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(IDS, inner, max_size=3)
)
RECORDS = st.fixed_dictionaries(
    {"id": st.one_of(IDS, SCALARS)},
    optional={key: st.one_of(IDS, SCALARS) for key in REFERENCES} | {"note": JSON},
)
LINES = st.one_of(
    RECORDS.map(json_line),
    RECORDS.map(lambda r: json.dumps(r, separators=(",", ":"))),  # another layout
    JSON.map(json.dumps),
    st.sampled_from(['{"id": "a", "id": "b"}', '{"id": "a" oops}', "[1,", '{"id": "\\ud800"}']),
)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _ in pairs}) != len(pairs):
        raise ValueError("a key twice")
    return dict(pairs)


def strict(text: str) -> Any:
    """The value of ``text`` by the rules the drawn lines can break (a key twice, a
    lone surrogate), read with Python's own JSON reader; ``None`` if refused."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return None
    return value


def independent(lines: list[str]) -> list[tuple[Any, ...]]:
    """Per line: its number, value (``None`` where the strict reader refuses it), id,
    references and the line numbers of the first records of those ids."""
    values = [(number, strict(text)) for number, text in enumerate(lines, 1)]
    first: dict[str, int] = {}
    for number, value in values:
        key = value.get("id") if isinstance(value, dict) else None
        if isinstance(key, str):
            first.setdefault(key, number)
    rows = []
    for number, value in values:
        record = value if isinstance(value, dict) else {}
        key = record.get("id")
        refs = tuple(r if isinstance(r := record.get(f), str) else None for f in REFERENCES)
        found = tuple(None if r is None else first.get(r) for r in refs)
        rows.append((number, value, key if isinstance(key, str) else None, refs, found))
    return rows


EXACT = st.recursive(
    SCALARS | st.integers() | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
)


@given(EXACT)
def test_a_value_packs_and_reads_back_with_its_types_and_key_order(value: Any) -> None:
    payload = pack(value)
    assert payload[:1] != pickle.dumps(None, protocol=2)[:1]  # never taken for a pickle
    again = unpack(payload)
    # the JSON text tells 1, 1.0 and true apart, and keeps the key order
    assert type(again) is type(value) and json.dumps(again) == json.dumps(value)


def test_a_line_without_a_value_packs_its_error() -> None:
    error = RecordError("not JSON", line=4, source="d.jsonl")
    again = unpack(pack(error))
    assert isinstance(again, RecordError) and str(again) == str(error) == "d.jsonl:4: not JSON"


@given(st.lists(LINES, min_size=1, max_size=8))
def test_each_entry_is_what_its_line_holds(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.jsonl"
        path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))
        raws = path.read_bytes().splitlines(keepends=True)
        with Index([path]) as index:
            items = list(index.items())
            lines_of = {key: index.place(packed)[2] for key, packed in index.where.items()}
    expected = independent(lines)
    assert [item.line for item in items] == [row[0] for row in expected]
    for item, (number, value, key, refs, found) in zip(items, expected, strict=True):
        parsed = unpack(item.payload)
        assert item.key == hashlib.sha256(raws[number - 1]).digest()
        if isinstance(parsed, RecordError):  # refused by the strict reader, never parsed lax
            assert value is None and str(parsed).startswith(f"{path}:{number}: ")
            assert item.id is None and item.found == (None, None, None)
            continue
        assert parsed == value and json.dumps(parsed) == json.dumps(value)  # types kept
        assert item.id == key and (key is None or lines_of[key] <= number)
        assert tuple(None if e is None else e.line for e in item.found) == found
        assert tuple(None if e is None else e.id for e in item.found) == tuple(
            None if f is None else r for r, f in zip(refs, found, strict=True)
        )


def test_a_repeated_id_is_a_failure_on_its_later_lines(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json_line({"id": k}) + "\n" for k in ["a", "b", "a", "a"]))
    with Index([path]) as index:
        assert [(d.id, d.line, d.message) for d in index.duplicates] == [
            ("a", 3, f"the id is used again (first on line 1 of {path})"),
            ("a", 4, f"the id is used again (first on line 1 of {path})"),
        ]
        assert index.records == 4 and sorted(index.where) == ["a", "b"]


def test_only_keeps_the_named_records_and_those_they_name(tmp_path: Path) -> None:
    records = [
        {"id": "root"},
        {"id": "d", "base_id": "root"},
        {"id": "p", "instance_id": "d"},
        {"id": "other"},
        {"id": "t", "twin_of": "ghost"},
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json_line(r) + "\n" for r in records))
    with Index([path], only=["p", "t", "nobody"]) as index:
        assert [item.id for item in index.items()] == ["root", "d", "p", "t"]
        assert index.records == 4
        assert [(d.id, d.message) for d in index.duplicates] == [
            ("nobody", "no record has this id")
        ]


def test_the_spill_file_goes_with_the_index(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json_line({"id": "a"}) + "\n")
    with Index([path]) as index:
        spill = index._spill
        assert not spill.closed
    assert spill.closed


@given(files=st.integers(1, 70_000), data=st.data())
def test_the_index_packs_file_place_and_line_into_one_int_and_back(
    files: int, data: st.DataObject
) -> None:
    """Every (file, place, line) the index can meet reads back as it was packed, and
    two places of one spill offset share one spot whatever their lines; a place
    beyond what one int packs is a clear error, never a wrong place."""
    index = Index.__new__(Index)
    index._files = files
    index.paths = [f"f{i}" for i in range(files)]
    number = data.draw(st.integers(0, files - 1))
    offset = data.draw(st.integers(0, OFFSETS - 1))
    line, other = data.draw(st.integers(1, 1 << 40)), data.draw(st.integers(1, 1 << 40))
    packed = index._pack(number, offset, line)
    assert index.place(packed) == (number, offset, line)
    assert index.spot(packed) == index.spot(index._pack(number, offset, other)) == offset
    with pytest.raises(ConfigError, match="too large"):
        index._pack(number, OFFSETS + data.draw(st.integers(0, 1 << 20)), line)


def test_a_file_given_twice_is_refused_not_read_twice(tmp_path: Path) -> None:
    """Read twice, each record of the file would fail as a repeated id (the library's
    ``certify_files`` and ``tf.certify`` too, not only the command line)."""
    path = tmp_path / "d.jsonl"
    path.write_text(json_line({"id": "i"}) + "\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    for other in (path, tmp_path / "." / "d.jsonl", link):
        with pytest.raises(ConfigError, match=r"dataset .* is given twice \(as .*d.jsonl too\)"):
            Index([path, other])
