"""Bad input of every kind ends in one ParseError with a position, never another exception."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import feed_stdin
from tests.support.lark_dimacs import lark_dimacs
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ArgumentTypeError, ConfigError, ParseError, TwoSatFormalError
from twosat_formal.io import (
    detect_format,
    parse_dimacs,
    parse_dsl,
    parse_formula,
    read_formula,
    write_dimacs,
    write_dsl,
)
from twosat_formal.io.jsonl import rereadable


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# -- files ---------------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.cnf"
    with pytest.raises(ParseError) as info:
        read_formula(path)
    assert info.value.source == str(path) and info.value.line is None
    assert str(info.value) == f"{path}: no such file"


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(ParseError) as info:
        read_formula(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a directory, not a file"
    assert isinstance(info.value, TwoSatFormalError)


def _read_error(path: Path) -> str:
    """The error of ``read_formula(path)``; as root, read by a child that dropped to nobody.

    Root reads any file, so the child process gives up root (``setuid`` to 65534) before
    it reads: the ``PermissionError`` it meets is the operating system's.
    """
    if os.geteuid() != 0:
        with pytest.raises(ParseError) as info:
            read_formula(path)
        return str(info.value)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            try:
                read_formula(path)
                message = "read without an error"
            except ParseError as err:
                message = str(err)
            except BaseException as err:
                message = f"{type(err).__name__}: {err}"
            os.write(write_end, message.encode("utf-8"))
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 4096):
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8")


@pytest.mark.skipif(os.name != "posix", reason="file modes and setuid are POSIX")
def test_unreadable_file(tmp_path: Path) -> None:
    path = write(tmp_path, "secret.cnf", b"p cnf 0 0\n")
    path.chmod(0)
    assert _read_error(path) == f"{path}: permission denied"


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.cnf", b"")
    with pytest.raises(ParseError) as info:
        read_formula(path)
    assert "empty" in info.value.message and info.value.source == str(path)


def test_blank_file_is_the_empty_formula(tmp_path: Path) -> None:
    assert read_formula(write(tmp_path, "blank.dsl", b"\n")) == Formula()
    assert read_formula(write(tmp_path, "empty.cnf", b"p cnf 0 0\n")) == Formula()


@pytest.mark.parametrize(
    ("data", "line", "column", "what"),
    [
        (b"p cnf 1 1\n1 \x00 0\n", 2, 3, "NUL"),
        (b"a | b\nc\x00", 2, 2, "NUL"),
        (b"p cnf 1 1\n1 0 \xff\n", 2, 5, "0xff"),
        ("c ü\n".encode() + b"\xc3(", 2, 1, "0xc3"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", 1, 1, "0x89"),
    ],
)
def test_binary_files(tmp_path: Path, data: bytes, line: int, column: int, what: str) -> None:
    path = write(tmp_path, "binary", data)
    with pytest.raises(ParseError) as info:
        read_formula(path)
    err = info.value
    assert (err.line, err.column, err.source) == (line, column, str(path))
    assert "binary data" in err.message and what in err.message
    with pytest.raises(ParseError) as direct:
        parse_dimacs(data)
    assert (direct.value.line, direct.value.column) == (line, column)


def test_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.cnf", b"\xef\xbb\xbfp cnf 1 1\n-1 0\n")
    assert read_formula(path).clauses == ((-1,),)


def test_errors_carry_the_file_name(tmp_path: Path) -> None:
    path = write(tmp_path, "f.cnf", b"c header next\np cnf 2 1\n1 3 0\n")
    with pytest.raises(ParseError) as info:
        read_formula(path)
    assert str(info.value) == f"{path}:3:3: literal 3 is beyond the header's 2 variables"
    assert info.value.context == "1 3 0"


def test_absurd_numbers_are_parse_errors(tmp_path: Path) -> None:
    for data in (
        b"p cnf 1000000000000 1\n1 0\n",
        b"p cnf 2 1\n1 100000000000000000000000000000 0\n",
    ):
        with pytest.raises(ParseError):
            read_formula(write(tmp_path, "absurd.cnf", data))


def test_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    feed_stdin(monkeypatch, b"a -> b\n")
    assert read_formula("-") == Formula([[-1, 2]], names=["a", "b"])
    feed_stdin(monkeypatch, b"p cnf 1 1\n2 0\n")
    with pytest.raises(ParseError) as info:
        read_formula("-")
    assert str(info.value).startswith("<stdin>:2:1: literal 2")


@pytest.mark.parametrize("clauses", [3, 3000])
def test_files_read_as_bytes_agree_with_text_and_the_grammar(tmp_path: Path, clauses: int) -> None:
    """An ASCII DIMACS file is read from its bytes, large or small, with the outcome of
    the text and of the grammar of record (tests.support.lark_dimacs)."""
    f = Formula([[v, -(v + 1)] for v in range(1, clauses)], num_vars=clauses)
    text = write_dimacs(f)
    path = write(tmp_path, "f.cnf", text.encode())
    assert read_formula(path) == f == parse_formula(text) == lark_dimacs(text)
    broken = text.replace("\n2 -3 0\n", "\n2 -3 x 0\n")
    path = write(tmp_path, "f.cnf", broken.encode())
    with pytest.raises(ParseError) as info:
        read_formula(path)
    with pytest.raises(ParseError) as reference:
        lark_dimacs(broken, source=str(path))
    assert str(info.value) == str(reference.value)
    assert info.value.context == "2 -3 x 0"


# -- formats -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p cnf 1 1\n1 0\n", "dimacs"),
        ("c comment\n\nc\np cnf 0 0", "dimacs"),
        ("1 -2 0\n", "dimacs"),
        ("-1 2 0\n", "dimacs"),
        ("%\n0\n", "dimacs"),
        ("  p\tcnf 1 1\n", "dimacs"),
        ("a | b", "dsl"),
        ("c | d\n", "dsl"),
        ("c\nd", "dsl"),
        ("# p cnf 1 1\nx", "dsl"),
        ("p | cnf", "dsl"),
        ("pcnf", "dsl"),
        ("", "dsl"),
    ],
)
def test_detect_format(text: str, expected: str) -> None:
    assert detect_format(text) == expected


def test_format_override(tmp_path: Path) -> None:
    path = write(tmp_path, "f.txt", b"p cnf 1 1\n1 0\n")
    assert read_formula(path, format="dimacs") == Formula([[1]])
    with pytest.raises(ParseError):
        read_formula(path, format="dsl")
    with pytest.raises(ConfigError) as info:
        read_formula(path, format="cnf")
    assert info.value.parameter == "format"
    with pytest.raises(ConfigError):
        parse_formula("a", format="json")
    assert parse_formula("", format="dsl") == Formula()
    with pytest.raises(ParseError, match="p cnf"):
        parse_formula("", format="dimacs")


# -- no other exception, whatever the input ---------------------------------------------------

PIECES = st.sampled_from(
    ["p cnf 2 1", "c var 1 a", "1", "-2", "0", "%", "a", "|", "->", "<->", "(", ")", "~", "&",
     "vars:", "not", "#", "\n", " ", "\t", "é", "→", "\x00", "-", "99999999999999999999999"]
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=20).map("".join)))
def test_any_text_gives_a_formula_or_a_parse_error(text: str) -> None:
    for read in (parse_formula, parse_dimacs, parse_dsl):
        try:
            f = read(text)
        except ParseError as err:
            assert err.line is not None and err.column is not None
            assert err.line >= 1 and err.column >= 1 and err.message
        else:
            assert isinstance(f, Formula)
            assert parse_dsl(write_dsl(f)) == f


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=60))
def test_any_file_gives_a_formula_or_a_parse_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "random")
        path.write_bytes(data)
        try:
            f = read_formula(path)
        except ParseError as err:
            assert err.source == str(path) and err.message
        else:
            assert isinstance(f, Formula)


@pytest.mark.parametrize("value", [None, 3, 2.5, ["a | b"], b"a | b"])
@pytest.mark.parametrize("reader", ["parse_dsl", "parse_dimacs", "parse_formula", "detect_format"])
def test_a_value_that_is_not_text_is_a_type_error_naming_its_type(
    reader: str, value: object
) -> None:
    """Not "binary data (a NUL character)" for ``parse_dimacs(3)`` (``bytes(3)`` is three
    NULs), nor an AttributeError from inside; ``parse_dimacs`` alone also takes bytes."""
    readers: dict[str, Callable[..., object]] = {
        "parse_dsl": parse_dsl,
        "parse_dimacs": parse_dimacs,
        "parse_formula": parse_formula,
        "detect_format": detect_format,
    }
    read = readers[reader]
    if reader == "parse_dimacs" and isinstance(value, bytes):
        with pytest.raises(ParseError, match="expected"):  # read as UTF-8 DIMACS
            read(value)
        return
    with pytest.raises(TypeError, match=f"must be a str.*not {type(value).__name__}$") as caught:
        read(value)
    # every reader refuses it the one way: the project's error of a Python argument's type
    assert isinstance(caught.value, ArgumentTypeError)
    assert caught.value.parameter == "text" and caught.value.valid in ("a str", "a str or bytes")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {"w": [1.0, float("-inf")]}])
def test_provenance_that_is_not_json_is_refused_not_written(value: object) -> None:
    """``NaN`` and infinities are not JSON: written, no JSON reader takes them back."""
    with pytest.raises(ConfigError, match="not JSON-serialisable"):
        write_dimacs(Formula([[1]]), provenance={"k": value})


@pytest.mark.parametrize("text", [b"a | b\nc d\n", b"p cnf 2 1\n1 x 0\n", b"a\xff\n", b"\n \n"])
def test_read_formula_names_a_copy_of_standard_input_stdin(
    monkeypatch: pytest.MonkeyPatch, text: bytes
) -> None:
    """As every reader of :mod:`twosat_formal.io.jsonl` names it: ``<stdin>``, never the
    temporary path; and the formula read is the one read from the text itself."""
    feed_stdin(monkeypatch, text)
    with rereadable("-") as (copy, _):
        try:
            expected: Formula | str = parse_formula(text.decode("utf-8"))
        except (ParseError, UnicodeDecodeError):
            expected = "refused"
        try:
            read: Formula | str = read_formula(copy)
        except ParseError as err:
            assert err.source == "<stdin>" and str(copy) not in str(err), str(err)
            read = "refused"
    assert read == expected
