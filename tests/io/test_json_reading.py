"""JSON is read one way, whole and bounded, by every reader of the project's JSON.

Each hazard (a key twice in one object, nesting deeper than the bound, a number of
more than 4,300 digits, a number beyond the range of a double (``1e999``, which reads as
infinity, which no writer writes back), a ``\\u`` escape of half a surrogate pair, ``NaN``, a
raw carriage return inside a record line) is written into a real file and given to every reader:
each refuses it with the file and the line (``certify`` as a failed ``record`` check on
that line), never a crash and never a value.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable
from decimal import Context, Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import feed_stdin
from twosat_formal.certify import certify_files
from twosat_formal.core.jsonread import MAX_DEPTH, loads
from twosat_formal.errors import ParseError, RecordError
from twosat_formal.integrations.answers import read_answers
from twosat_formal.io.inputs import MAX_TEXT_BYTES
from twosat_formal.io.instance import read_instances
from twosat_formal.io.jsonl import (
    EMPTY_INPUT,
    first_char,
    is_dataset,
    json_line,
    parse_raw,
    raw_lines,
    read_json_file,
    read_json_lines,
    read_text,
    rereadable,
    source_name,
    write_lines,
)
from twosat_formal.make.generators import generate
from twosat_formal.report.load import read_jsonl
from twosat_formal.study.experiments.manifest import content_digest, read_manifest
from twosat_formal.study.experiments.spec import load_spec
from twosat_formal.verbalize.prompts import read_prompts

FIXTURE = HealthCheck.function_scoped_fixture
GOOD = generate("backbone", clauses=6, seed=1).to_json()


def _certify(path: Path) -> None:
    """certify's answer as an error: the failed ``record`` check of a line."""
    report = certify_files([path])
    for failure in report.failures:
        if failure.check == "record" and failure.line is not None:
            raise RecordError(failure.message, line=failure.line, source=failure.source)


#: Every reader of JSON Lines records: each consumes the whole file.
LINE_READERS: dict[str, Callable[[Path], Any]] = {
    "read_json_lines": lambda p: list(read_json_lines(p)),
    "raw_lines + parse_raw": lambda p: [parse_raw(line) for line in raw_lines(p)],
    "read_instances": lambda p: list(read_instances(p)),
    "read_prompts": lambda p: list(read_prompts(p)),
    "read_answers": lambda p: list(read_answers(p)),
    "report read_jsonl": read_jsonl,
    "content_digest": content_digest,
    "certify": _certify,
}

#: Every reader of whole JSON documents.
DOCUMENT_READERS: dict[str, Callable[[Path], Any]] = {
    "read_json_file": read_json_file,
    "read_manifest": read_manifest,
    "load_spec": load_spec,
}

#: One bad record per hazard (a JSON Lines line, without its line end).
HAZARDS: dict[str, str] = {
    "duplicate key": '{"id": "x", "label": "UNSAT", "label": "SAT"}',
    "duplicate key inside": '{"id": "x", "params": {"k": 1, "n": 2, "k": 3}}',
    "nested 10,000 deep": '{"id": "x", "a": ' + "[" * 10_000 + "]" * 10_000 + "}",
    "objects nested 10,000 deep": '{"a": ' * 10_000 + "1" + "}" * 10_000,
    "a number of 4,400 digits": '{"id": "x", "seed": 1' + "0" * 4_400 + "}",
    "a lone surrogate": '{"id": "x", "text": "a\\ud800b"}',
    "a lone low surrogate": '{"id": "x", "text": "\\udc00"}',
    "NaN": '{"id": "x", "seed": NaN}',
    "a number beyond a double": '{"id": "x", "params": {"beta": 1e999}}',
    "a negative number beyond a double": '{"id": "x", "w": [0.5, -1' + "0" * 400 + ".0]}",
    "a raw carriage return": '{"id": "x",\r "seed": 1}',
    "a byte-order mark": '\ufeff{"id": "x"}',
}

#: What each refusal says (a word of it).
SAYS = {
    "duplicate key": "'label' appears twice",
    "duplicate key inside": "'k' appears twice",
    "nested 10,000 deep": f"nested deeper than {MAX_DEPTH}",
    "objects nested 10,000 deep": f"nested deeper than {MAX_DEPTH}",
    "a number of 4,400 digits": "more than 4300 digits",
    "a lone surrogate": "surrogate",
    "a lone low surrogate": "surrogate",
    "NaN": "NaN",
    "a number beyond a double": "1e999 is beyond the range of a double",
    "a negative number beyond a double": "beyond the range of a double",
    "a raw carriage return": "carriage return",
    "a byte-order mark": "invalid JSON at column 1: a byte-order mark",
}


def refusal(reader: Callable[[Path], Any], path: Path) -> RecordError:
    with pytest.raises(RecordError) as info:
        reader(path)
    return info.value


@pytest.mark.parametrize("hazard", sorted(HAZARDS))
@pytest.mark.parametrize("reader", sorted(LINE_READERS))
def test_every_line_reader_refuses_each_hazard_at_its_line(
    tmp_path: Path, reader: str, hazard: str
) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes(("\n \n" + HAZARDS[hazard] + "\n" + GOOD + "\n").encode("utf-8"))
    error = refusal(LINE_READERS[reader], path)
    assert (error.line, error.source) == (3, str(path)), str(error)
    if reader not in ("read_answers", "report read_jsonl", "read_instances", "read_prompts"):
        assert SAYS[hazard] in str(error), str(error)


@pytest.mark.parametrize("hazard", sorted(HAZARDS))
def test_the_hazards_are_refused_the_same_on_stdin(
    monkeypatch: pytest.MonkeyPatch, hazard: str
) -> None:

    data = (GOOD + "\n" + HAZARDS[hazard] + "\n").encode("utf-8")
    feed_stdin(monkeypatch, data)
    with pytest.raises(RecordError) as info:
        list(read_json_lines("-"))
    assert (info.value.line, info.value.source) == (2, "<stdin>")
    assert SAYS[hazard] in str(info.value)


def test_a_crlf_line_end_is_a_line_end_for_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_bytes((GOOD + "\r\n").encode("utf-8"))
    assert [line.value["id"] for line in read_json_lines(path)] == [json.loads(GOOD)["id"]]
    assert certify_files([path]).ok


@pytest.mark.parametrize("reader", sorted(DOCUMENT_READERS))
def test_every_document_reader_names_the_line_of_a_duplicated_key(
    tmp_path: Path, reader: str
) -> None:
    path = tmp_path / "spec.json"
    path.write_text('{\n  "name": "a",\n  "seed": 1,\n  "name": "b"\n}\n', encoding="utf-8")
    error = refusal(DOCUMENT_READERS[reader], path)
    assert (error.line, error.source) == (4, str(path))
    assert "'name' appears twice" in str(error)


@pytest.mark.parametrize("reader", sorted(DOCUMENT_READERS))
def test_every_document_reader_reads_within_the_bounds_of_every_input(
    tmp_path: Path, reader: str
) -> None:
    """A named pipe, a device or a directory is refused before it is opened (a pipe would
    hang, /dev/zero never ends), and a file larger than MAX_TEXT_BYTES before it is read
    (a sparse file: its size costs no disk). The inputs a reader without these bounds
    would end on come first (a folder, a huge file), so that such a reader fails the
    test rather than hang on the pipe."""
    fifo, zero, folder = tmp_path / "pipe.json", tmp_path / "zero.json", tmp_path / "dir.json"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    folder.mkdir()
    assert "directory" in str(refusal(DOCUMENT_READERS[reader], folder))
    huge = tmp_path / "huge.json"
    with huge.open("wb") as stream:
        stream.truncate(MAX_TEXT_BYTES + 1)
    assert f"larger than {MAX_TEXT_BYTES} bytes" in str(refusal(DOCUMENT_READERS[reader], huge))
    assert "named pipe" in str(refusal(DOCUMENT_READERS[reader], fifo))
    assert "character device" in str(refusal(DOCUMENT_READERS[reader], zero))


@pytest.mark.parametrize("reader", sorted(DOCUMENT_READERS))
def test_every_document_reader_refuses_deep_nesting(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "spec.json"
    path.write_text('{"a": ' + "[" * 10_000 + "]" * 10_000 + "}", encoding="utf-8")
    assert f"deeper than {MAX_DEPTH}" in str(refusal(DOCUMENT_READERS[reader], path))


# -- properties -----------------------------------------------------------------------------

KEYS = st.text(st.characters(codec="utf-8", exclude_characters='"\\'), max_size=4)
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)
RECORDS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=4)


def _objects(value: Any) -> int:
    """How many non-empty objects ``value`` holds (itself included)."""
    if isinstance(value, dict):
        return bool(value) + sum(_objects(v) for v in value.values())
    if isinstance(value, list):
        return sum(_objects(v) for v in value)
    return 0


def _dump(value: Any, target: list[int], extra: str, found: list[str]) -> str:
    """``value`` as JSON text, with the key ``target[0]``-th non-empty object's first key
    written again (holding ``extra``) at the end of that object; the key goes to ``found``.
    """
    if isinstance(value, dict):
        parts = [f"{json.dumps(k)}: {_dump(v, target, extra, found)}" for k, v in value.items()]
        if value:
            target[0] -= 1
            if target[0] == -1:
                key = next(iter(value))
                found.append(key)
                parts.append(f"{json.dumps(key)}: {extra}")
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v, target, extra, found) for v in value) + "]"
    return json.dumps(value)


@pytest.mark.slow
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(record=RECORDS, which=st.integers(min_value=0), extra=SCALARS, data=st.data())
def test_a_duplicated_key_anywhere_is_refused_by_every_reader(
    tmp_path: Path, record: dict[str, Any], which: int, extra: Any, data: st.DataObject
) -> None:
    target = [which % _objects(record)]
    found: list[str] = []
    text = _dump(record, target, json.dumps(extra), found)
    assert len(found) == 1
    assert json.loads(_dump(record, [-5], "0", [])) == record  # the writer is JSON's
    reader = data.draw(st.sampled_from(sorted(LINE_READERS)))
    path = tmp_path / f"dup-{which}.jsonl"
    path.write_bytes(("\n" + text + "\n" + GOOD + "\n").encode("utf-8"))
    error = refusal(LINE_READERS[reader], path)
    assert error.line == 2
    if reader in ("read_json_lines", "raw_lines + parse_raw", "certify", "content_digest"):
        assert f"the key {found[0]!r} appears twice" in str(error)


@settings(max_examples=60, deadline=None)
@given(record=RECORDS)
def test_a_record_without_a_duplicate_reads_as_json_reads_it(record: dict[str, Any]) -> None:
    text = json.dumps(record, ensure_ascii=False)
    assert loads(text, source="r.jsonl", line=1) == json.loads(text)


#: The least magnitude that reads as infinity: the largest double plus half its last
#: place (a tie rounds to even, and the largest double's last bit is odd), in exact
#: decimal arithmetic, apart from Python's float parsing.
_EXACT = Context(prec=1_000)
_OVERFLOW = _EXACT.add(Decimal(sys.float_info.max), _EXACT.power(2, 970))


@settings(max_examples=200, deadline=None)
@given(
    sign=st.sampled_from(["", "-"]),
    digits=st.text("0123456789", min_size=1, max_size=30).map(lambda d: d.lstrip("0") or "0"),
    fraction=st.text("0123456789", max_size=30),
    exponent=st.integers(-400, 400),
)
def test_a_number_is_read_when_a_double_holds_it_and_refused_beyond(
    sign: str, digits: str, fraction: str, exponent: int
) -> None:
    """Refused exactly when its exact value rounds past the largest double, at its line."""
    number = f"{sign}{digits}{'.' + fraction if fraction else ''}e{exponent}"
    text = '{"id": "x",\n "w": [1, ' + number + "]}"
    if Decimal(number).copy_abs() >= _OVERFLOW:
        with pytest.raises(RecordError) as info:
            loads(text, source="d.json")
        assert info.value.line == 2
        assert "beyond the range of a double" in str(info.value)
    else:
        assert loads(text, source="d.json") == json.loads(text)


NESTINGS = st.lists(st.sampled_from(["[", "{"]), min_size=1, max_size=10_000)


def _nested(openers: list[str]) -> str:
    """Arrays and objects inside each other, ``len(openers)`` deep."""
    head = "".join("[" if o == "[" else '{"k": ' for o in openers)
    return head + "1" + "".join("]" if o == "[" else "}" for o in reversed(openers))


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kinds=st.lists(st.sampled_from(["[", "{"]), min_size=16, max_size=16),
    depth=st.sampled_from([MAX_DEPTH + 1, 1_000, 10_000]),
    data=st.data(),
)
def test_a_record_nested_too_deep_is_refused_by_every_reader(
    tmp_path: Path, kinds: list[str], depth: int, data: st.DataObject
) -> None:
    openers = (kinds * (depth // len(kinds) + 1))[: depth - 1]
    text = '{"id": "x", "a": ' + _nested(openers) + "}"
    reader = data.draw(st.sampled_from(sorted(LINE_READERS)))
    path = tmp_path / f"deep-{depth}.jsonl"
    path.write_bytes(("\n" + text + "\n" + GOOD + "\n").encode("utf-8"))
    error = refusal(LINE_READERS[reader], path)
    assert error.line == 2


@settings(max_examples=30, deadline=None)
@given(openers=st.lists(st.sampled_from(["[", "{"]), min_size=1, max_size=MAX_DEPTH))
def test_nesting_up_to_the_bound_is_read(openers: list[str]) -> None:
    text = _nested(openers)
    assert loads(text, source="r.jsonl", line=1) == json.loads(text)


@settings(max_examples=30, deadline=None)
@given(text=st.text(max_size=40))
def test_strings_with_brackets_and_escapes_do_not_count_as_nesting(text: str) -> None:
    value = {"s": text * 5 + "[" * (MAX_DEPTH + 5), "t": ["{" * (MAX_DEPTH + 5)]}
    encoded = json.dumps(value)
    assert loads(encoded, source="r.jsonl", line=1) == value


@pytest.mark.parametrize("hazard", sorted(h for h in HAZARDS if "carriage" not in h))
@pytest.mark.parametrize("reader", sorted(DOCUMENT_READERS))
def test_every_document_reader_names_the_line_of_each_hazard(
    tmp_path: Path, reader: str, hazard: str
) -> None:
    path = tmp_path / "doc.json"
    path.write_text("\n\n" + HAZARDS[hazard] + "\n", encoding="utf-8")
    error = refusal(DOCUMENT_READERS[reader], path)
    assert (error.line, error.source) == (3, str(path)), str(error)
    assert SAYS[hazard] in str(error)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 1_999, 50_000])
@pytest.mark.parametrize("limit", [None, 200_000])
def test_deep_nesting_is_refused_the_same_whatever_the_recursion_limit(
    depth: int, limit: int | None
) -> None:
    text = '{"id": "x", "a": ' + _nested(["[", "{"] * (depth // 2) + ["["] * (depth % 2)) + "}"
    old = sys.getrecursionlimit()
    try:
        if limit is not None:
            sys.setrecursionlimit(limit)
        with pytest.raises(RecordError) as info:
            loads(text, source="d.jsonl", line=4)
    finally:
        sys.setrecursionlimit(old)
    assert str(info.value) == f"d.jsonl:4: arrays and objects nested deeper than {MAX_DEPTH}"


@pytest.mark.parametrize(
    "reader", ["read_json_lines", "raw_lines + parse_raw", "read_instances", "read_prompts"]
)
def test_a_copy_of_standard_input_is_named_stdin_by_every_reader(
    monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    """Whoever passes the copy's path on, its errors say ``<stdin>``, while it exists."""

    data = (GOOD + "\n" + HAZARDS["NaN"] + "\n").encode("utf-8")
    feed_stdin(monkeypatch, data)
    with rereadable("-") as (copy, name):
        assert name == "<stdin>" and source_name(copy) == "<stdin>"
        error = refusal(LINE_READERS[reader], copy)
        assert error.source == "<stdin>", str(error)  # read_prompts refuses line 1
        assert str(error).startswith(f"<stdin>:{error.line}: ") and error.line in (1, 2)
    assert source_name(copy) == str(copy)  # the copy is gone, and so is its name


@pytest.mark.parametrize("reader", [read_json_file, read_text, first_char, is_dataset])
def test_a_copy_of_standard_input_is_named_stdin_by_every_whole_file_reader(
    monkeypatch: pytest.MonkeyPatch, reader: Callable[[Path], object]
) -> None:
    """The readers of a whole file name the copy as the line readers do, never by its
    temporary path."""
    feed_stdin(monkeypatch, b'{"a": "\xff"}\n')
    with rereadable("-") as (copy, _), pytest.raises((RecordError, ParseError)) as info:
        reader(copy)
    assert info.value.source == "<stdin>", str(info.value)
    assert str(copy) not in str(info.value)


@pytest.mark.parametrize(
    ("text", "column", "expected"),
    [
        ('{"a": }', 7, "Expecting value"),
        ('{"a": 1} x', 10, "Extra data"),
        ('  {"a" 1}', 8, "Expecting ':' delimiter"),
        ('{"a": "é",, "b": 2}', 11, "Expecting property name enclosed in double quotes"),
    ],
)
def test_invalid_json_says_what_was_expected_and_at_which_column(
    text: str, column: int, expected: str
) -> None:
    """The column counts characters from 1 (``é`` is one), as the DIMACS and DSL errors do."""
    with pytest.raises(RecordError) as info:
        loads(text, source="d.jsonl", line=4)
    assert str(info.value) == f"d.jsonl:4: invalid JSON at column {column}: {expected}"


@pytest.mark.parametrize("target", ["-", Path("-")])
def test_write_lines_to_dash_writes_standard_output_and_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], target: Any
) -> None:
    """``-`` is standard output (never a file named ``-``), as for every output path."""
    monkeypatch.chdir(tmp_path)
    lines = [json_line({"id": "a"}), json_line({"id": "b\u2028"})]
    assert write_lines(lines, target) == 2
    assert capsys.readouterr().out == "".join(line + "\n" for line in lines)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("reader", [read_json_file, first_char, lambda p: list(raw_lines(p))])
def test_bytes_that_are_not_utf8_are_worded_alike_by_every_reader(
    tmp_path: Path, reader: Callable[[Path], object]
) -> None:
    """One wording, as the CLI's for any input: the byte, and the line where there is one."""
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'  {"a": "\xff"}\n')
    with pytest.raises(RecordError) as info:
        reader(path)
    where = "" if info.value.line is None else ":1"
    of = "" if info.value.line is None else " of the line"
    assert str(info.value) == f"{path}{where}: input is not UTF-8 text (byte 9{of})"


@pytest.mark.parametrize("as_text", [False, True])
@pytest.mark.parametrize("data", [b"", b"\n", b'{"a": 1}\n{"b": 2}'])
def test_standard_input_of_zero_bytes_is_refused_and_any_other_read_whole(
    monkeypatch: pytest.MonkeyPatch, data: bytes, as_text: bool
) -> None:
    """As a zero-byte file is (refuse_empty); looking for a first byte consumes none,
    whether stdin has bytes or is a replaced text stream."""
    if as_text:
        monkeypatch.setattr(sys, "stdin", io.StringIO(data.decode("utf-8")))
    else:
        feed_stdin(monkeypatch, data)
    if not data:
        with pytest.raises(RecordError) as info:
            list(read_json_lines("-"))
        assert str(info.value) == f"<stdin>: {EMPTY_INPUT}"
        return
    values = [line.value for line in read_json_lines("-")]
    assert values == [json.loads(line) for line in data.decode().splitlines() if line.strip()]
