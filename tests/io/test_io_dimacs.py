"""DIMACS: the reader, the writer, and the reader against the grammar of record.

Independent references: PySAT's own DIMACS reader for clause lists, hand-written
expectations for the dialect, and the Lark parser of ``grammar/dimacs.lark``
(:mod:`tests.support.lark_dimacs`) for every outcome of the reader: the formula and its
names, or the error's line, column and message.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pysat.formula import CNF

from tests.support.formula_strategies import formulas as named_formulas
from tests.support.lark_dimacs import lark_dimacs
from tests.support.parse import assert_parse_error
from twosat_formal import __version__
from twosat_formal.core.formula import Formula, default_name, is_valid_name
from twosat_formal.errors import ConfigError, ParseError
from twosat_formal.io import parse_dimacs, write_dimacs
from twosat_formal.io._parsing import decode
from twosat_formal.io.dimacs import MAX_VARIABLES

#: The reader and its oracle: both are held to the hand-written expectations.
READERS = [parse_dimacs, lark_dimacs]

NAMES = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True),
    st.sampled_from(["x1", "x2", "x3", "x10", "c", "p", "var", "cnf"]),
).filter(is_valid_name)


def formulas(max_vars: int = 7, max_width: int = 4) -> st.SearchStrategy[Formula]:
    """Random CNFs with names from :data:`NAMES`."""
    return named_formulas(NAMES, max_vars, max_width)


Outcome = tuple[Formula, tuple[str, ...]] | tuple[int, int, str, str | None]


def outcome(read: Callable[..., Formula], text: str | bytes) -> Outcome:
    """The formula read and its names, or the ParseError's line, column, message and
    context (any other exception escapes). The oracle reads bytes decoded."""
    try:
        if read is lark_dimacs and isinstance(text, bytes):
            text = decode(text)
        formula = read(text)
    except ParseError as err:
        assert err.line is not None and err.column is not None and err.message
        return (err.line, err.column, err.message, err.context)
    return formula, formula.names


# -- the dialect, by example ------------------------------------------------------------


@pytest.mark.parametrize("read", READERS)
def test_comments_anywhere_and_clauses_across_lines(read: object) -> None:
    text = (
        "c first comment\n"
        "  c indented comment\n"
        "p cnf 4 3\n"
        "c between\n"
        "1 -2\n"
        "c inside a clause\n"
        "   3 0 -4 0\n"
        "\t2\r\n"
        "0\n"
    )
    f = read(text)  # type: ignore[operator]
    assert f.clauses == ((1, -2, 3), (-4,), (2,))
    assert f.num_vars == 4 and f.has_default_names


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize(
    "text",
    [
        "p cnf 2 1\n1 2 0\n%\n0\n",
        "p cnf 2 1\n1 2 0\n%\n0\n\n",
        "p cnf 2 1\n1 2 0\n%",
        "p cnf 2 1\n1 2 0\n  %0",
    ],
)
def test_satlib_trailer(read: object, text: str) -> None:
    assert read(text).clauses == ((1, 2),)  # type: ignore[operator]


@pytest.mark.parametrize("read", READERS)
def test_empty_formula_and_empty_clause(read: object) -> None:
    empty = read("p cnf 0 0\n")  # type: ignore[operator]
    assert empty == Formula() and empty.num_clauses == 0
    f = read("p cnf 3 2\n0\n1 0\n")  # type: ignore[operator]
    assert f.clauses == ((), (1,)) and f.num_vars == 3


@pytest.mark.parametrize("read", READERS)
def test_names_from_comment_lines(read: object) -> None:
    f = read("c var 2 wet\np cnf 3 1\nc var 1 rain\n1 -2 3 0\n")  # type: ignore[operator]
    assert f.names == ("rain", "wet", "x3")
    assert f.literal_name(-2) == "~wet"
    # Comments that are not exactly "c var <i> <name>" are plain comments.
    g = read("c var 1 is the first variable\nc variables: 2\np cnf 2 0\n")  # type: ignore[operator]
    assert g.has_default_names


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("1 2 0\n", 1, 1, ['expected "p cnf <vars> <clauses>"']),
        ("", 1, 1, ['expected "p cnf <vars> <clauses>"', "end of the input"]),
        ("c only a comment\n", 1, 1, ['expected "p cnf <vars> <clauses>"']),
        ("p cnf 3\n1 0\n", 1, 1, ['expected "p cnf <vars> <clauses>"']),
        ("p cnf 7 1\n1 9 0\n", 2, 3, ["literal 9", "header's 7 variables"]),
        ("p cnf 7 1\n1 -9 0\n", 2, 3, ["literal -9", "header's 7 variables"]),
        ("p cnf 3 4\n1 0\n2 0\n", 1, 1, ["clause count 2", "header's 4"]),
        ("p cnf 3 1\n1 0\n2 0 3 0\n", 3, 1, ["clause count 3", "header's 1"]),
        ("p cnf 3 1\n1 2\n", 2, 3, ["expected a literal or 0", "end of the input"]),
        ("p cnf 3 1\n1 x 0\n", 2, 3, ["found 'x'"]),
        ("p cnf 3 1\n1-2 0\n", 2, 1, ["found '1-2'"]),
        ("p cnf 3 1\n1 0 c comment\n", 2, 5, ["found 'c'"]),
        ("p cnf 3 1\n1 0\np cnf 3 1\n", 3, 1, ["found 'p'"]),
        ("p cnf 3 1\n1 2\n%\n0\n", 3, 1, ["expected a literal or 0"]),
        ("p cnf 3 1\n1 0\n%\n2\n", 4, 1, ["expected 0 or the end of the input"]),
        ("p cnf 3 1\n1 0\n%\n0\n0\n", 5, 1, ["expected the end of the input"]),
        (f"p cnf {10**12} 0\n", 1, 1, [f"{10**12} variables", str(MAX_VARIABLES)]),
        ("p cnf 3 1\n" + str(10**30) + " 0\n", 2, 1, [f"literal {10**30}", "header's 3"]),
        ("p cnf 3 1\n1 " + "1" * 5000 + " 0\n", 2, 3, ["(5000 digits)", "header's 3"]),
        ("p cnf 3 1\n1 -" + "9" * 4400 + " 0\n", 2, 3, ["literal -999", "(4400 digits)"]),
        ("c x\np cnf 3 1\n" + "2" * 4301 + " 1 0\n%\n0\n", 3, 1, ["(4301 digits)"]),
        ("p cnf " + "1" * 5000 + " 0\n", 1, 1, ["variables exceed the limit"]),
        ("p cnf 3 " + "1" * 5000 + "\n1 0\n", 1, 1, ["clause count 1", "more than"]),
        ("c var " + "1" * 5000 + " a\np cnf 3 0\n", 1, 7, ["(5000 digits)", '"c var"']),
        ("c var 4 d\np cnf 3 0\n", 1, 7, ["variable 4", "header's 3 variables"]),
        ("c var 0 d\np cnf 3 0\n", 1, 7, ["start at 1"]),
        ("c var one d\np cnf 3 0\n", 1, 7, ["expected a variable number"]),
        ("c var 1 not\np cnf 3 0\n", 1, 9, ["invalid variable name 'not'"]),
        ("c var 1 a\nc var 1 b\np cnf 3 0\n", 2, 7, ["named twice"]),
        ("c var 1 a\nc var 2 a\np cnf 3 0\n", 2, 9, ["already names variable 1"]),
        ("c var 1 x2\np cnf 3 0\n", 1, 9, ["default name of variable 2"]),
        ("p cnf 3 1\n1 ü 0\n", 2, 3, ["found 'ü'"]),
    ],
)
def test_errors_name_the_position_and_what_was_expected(
    read: Callable[..., object], text: str, line: int, column: int, words: list[str]
) -> None:
    assert_parse_error(read, text, "f.cnf", line, column, words)


@pytest.mark.parametrize("read", READERS)
@pytest.mark.parametrize("zeros", [1, 30, 5000])
def test_leading_zeros_of_any_length_keep_the_literal_s_value(
    read: Callable[..., Formula], zeros: int
) -> None:
    text = "p cnf 3 1\n" + "0" * zeros + "3 -" + "0" * zeros + "2 0\n"
    assert read(text) == Formula([[3, -2]], num_vars=3)


@pytest.mark.parametrize("read", READERS)
def test_a_name_of_5000_digits_after_x_is_a_name_like_any_other(
    read: Callable[..., Formula],
) -> None:
    name = "x" + "1" * 5000
    assert read(f"c var 1 {name}\np cnf 2 1\n1 -2 0\n").names == (name, "x2")


def test_swapped_default_names_are_kept() -> None:
    f = Formula([[1, -2]], names=["x2", "x1"])
    text = write_dimacs(f)
    assert "c var 1 x2" in text and "c var 2 x1" in text
    assert parse_dimacs(text) == f == lark_dimacs(text)


# -- the writer ----------------------------------------------------------------------------


def test_writer_layout_and_provenance() -> None:
    f = Formula([[1, -3], [2], []], num_vars=3, names=["a", "x2", "c"])
    text = write_dimacs(f, provenance={"seed": 7, "family": "chain", "params": {"n": 3, "a": [1]}})
    assert text.splitlines() == [
        f"c twosat-formal {__version__}",
        'c family: "chain"',
        'c params: {"a": [1], "n": 3}',
        "c seed: 7",
        "c var 1 a",
        "c var 3 c",
        "p cnf 3 3",
        "1 -3 0",
        "2 0",
        "0",
    ]
    assert text.endswith("\n")
    # Provenance values read back as JSON.
    line = next(ln for ln in text.splitlines() if ln.startswith("c params: "))
    assert json.loads(line.removeprefix("c params: ")) == {"n": 3, "a": [1]}


def test_writer_is_deterministic() -> None:
    f = Formula([[1, 2]], names=["b", "a"])
    one = write_dimacs(f, provenance={"b": 1, "a": "x"})
    two = write_dimacs(Formula([[1, 2]], names=["b", "a"]), provenance={"a": "x", "b": 1})
    assert one == two


def test_default_names_write_no_var_lines() -> None:
    text = write_dimacs(Formula([[1, -2]]))
    assert "c var" not in text
    assert text == f"c twosat-formal {__version__}\np cnf 2 1\n1 -2 0\n"
    assert write_dimacs(Formula()) == f"c twosat-formal {__version__}\np cnf 0 0\n"


@pytest.mark.parametrize("key", ["two words", "", "new\nline", "x:y", 3])
def test_provenance_keys_must_be_single_words(key: object) -> None:
    with pytest.raises(ConfigError):
        write_dimacs(Formula(), provenance={key: 1})  # type: ignore[dict-item]


def test_provenance_values_must_be_json() -> None:
    with pytest.raises(ConfigError):
        write_dimacs(Formula(), provenance={"when": object()})


@given(formulas())
@example(Formula([[1, -2], [2, -1]], names=["x2", "x1"]))
@example(Formula([[], [1], []], num_vars=2))
def test_print_parse_is_identity(f: Formula) -> None:
    text = write_dimacs(f, provenance={"seed": 1})
    assert parse_dimacs(text) == f
    assert parse_dimacs(text.encode()) == f
    assert lark_dimacs(text) == f


@given(formulas())
def test_pysat_reads_the_same_clauses(f: Formula) -> None:
    cnf = CNF(from_string=write_dimacs(f))
    assert cnf.clauses == [list(c) for c in f.clauses]
    assert cnf.nv == max(f.used_variables, default=0)


# -- the reader against the grammar of record -------------------------------------------

SEPARATORS = st.sampled_from([" ", "  ", "\t", "\n", " \n", "\r\n", "\n\n", "\n  ", " \f", "\v"])
COMMENT_LINES = st.sampled_from(
    ["c", "c plain", "  c indented", "c var 1 a", "c var 2 b c", "c var 9 z", "c ü 0 -1", "cc"]
)


@st.composite
def layouts(draw: st.DrawFn) -> str:
    """A valid-looking DIMACS text with random blanks, line breaks, comments and trailer.

    The header counts are sometimes wrong, and literals sometimes beyond the header.
    """
    f = draw(formulas(max_vars=5))
    n = f.num_vars + draw(st.sampled_from([0, 0, 0, 1, -1]))
    m = f.num_clauses + draw(st.sampled_from([0, 0, 0, 1, -1]))
    out = []
    for _ in range(draw(st.integers(0, 2))):
        out.append(draw(COMMENT_LINES) + "\n")
    out.append(draw(st.sampled_from(["", " ", "\t"])) + f"p cnf {max(n, 0)} {max(m, 0)}\n")
    for clause in f.clauses:
        for lit in [*clause, 0]:
            token = str(lit)
            if draw(st.integers(0, 9)) == 0:  # the same number, spelt differently
                token = (
                    draw(st.sampled_from(["-0", "00"]))
                    if lit == 0
                    else f"{lit:+04d}"[0].replace("+", "") + f"{abs(lit):03d}"
                )
            out.append(token + draw(SEPARATORS))
        if draw(st.integers(0, 5)) == 0:
            out.append("\n" + draw(COMMENT_LINES) + "\n")
    if draw(st.booleans()):
        out.append(draw(st.sampled_from(["%\n0\n", "%\n0", "%\n", "  % 0\n\n"])))
    return "".join(out)


TOKENS = st.sampled_from(
    [
        "p cnf 3 2", "p cnf 0 0", "p", "cnf", "c var 1 a", "c x", "c", "1", "-2", "3", "0",
        "-0", "00", "%", "x", "-", "--1", "1-2", "2-", "+1", "99999999999999999999", "ü", "#",
        "3c", "%0", "%x", "0%", "-00", "0001", " p cnf 3 2", "pcnf 3 2", "p cnf 3 2 1",
        "c var 2 b", "1" * 25, "x" * 25, "\x1c", "\u2028", "\xa0", "\r", "\f",
    ]
)  # fmt: skip


@st.composite
def token_soups(draw: st.DrawFn) -> str:
    """Random sequences of DIMACS-like fragments, mostly after a valid header."""
    head = draw(st.sampled_from(["", "p cnf 3 2\n", "p cnf 3 2\n", "c hi\np cnf 3 5\n"]))
    parts = draw(st.lists(st.tuples(TOKENS, SEPARATORS | st.just("")), max_size=14))
    return head + "".join(token + sep for token, sep in parts)


@pytest.mark.slow
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_reader_equals_lark_on_layouts(text: str) -> None:
    lark = outcome(lark_dimacs, text)
    assert outcome(parse_dimacs, text) == lark
    assert outcome(parse_dimacs, text.encode()) == lark


@pytest.mark.slow
@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(token_soups())
@example("cnf\nü ")
@example("p cnf 3 2\n-p cnf 3 2")
@example("99999999999999999999-")
@example("p cnf 3 2\n1 0\n%\n%\n")
@example("p cnf 3 2\n%-1")
@example("p cnf 3 2\n1 0 2 0\n  p cnf 3 2\n")
@example("3c x")  # the lexer's token is "3": found '3'
@example("p cnf 3 2\n1 0\n%\n%0")  # "%" at a line's start is a token: found '%'
@example("p cnf 3 2\n1 0\n%\n  %0")  # after blanks it is not: found '%0'
@example("p cnf 3 2\n1\n%0")
@example("p cnf 3 2\n1 0 2 0\n%\n" + "1" * 30 + "x")  # the whole token, not 20 characters
@example("p cnf 3 2\n1 0 2 0\n" + "x" * 30)  # 20 characters of what no token matches
@example("p cnf 3 2\n1 \u2028x 0")  # a space to str.isspace, not to the grammar
@example("\x1c")
def test_reader_equals_lark_on_token_soup(text: str) -> None:
    assert outcome(parse_dimacs, text) == outcome(lark_dimacs, text)


MUTANT_BYTES = st.sampled_from(list(b" \n\t\r-0123456789cpvar%x\x00\xff\xc3")) | st.integers(0, 255)


@st.composite
def mutants(draw: st.DrawFn) -> bytes:
    """A valid DIMACS file with a few random byte-level edits."""
    f = draw(formulas(max_vars=5))
    data = bytearray(write_dimacs(f, provenance={"seed": 3}).encode())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        if action == "insert":
            data[at:at] = bytes([draw(MUTANT_BYTES)])
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 3))]
        elif action == "replace" and at < len(data):
            data[at] = draw(MUTANT_BYTES)
        else:
            data[at:at] = data[at : at + draw(st.integers(1, 8))]
    return bytes(data)


@pytest.mark.slow
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_mutated_files_read_as_lark_reads_them(data: bytes) -> None:
    lark = outcome(lark_dimacs, data)  # only ParseError may be raised
    assert outcome(parse_dimacs, data) == lark
    if data.isascii() and b"\0" not in data:
        assert outcome(parse_dimacs, data.decode()) == lark


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("3c x", "1:1: expected \"p cnf <vars> <clauses>\", found '3'"),
        ("1-2 0", "1:1: expected \"p cnf <vars> <clauses>\", found '1-2'"),
        ("p cnf 1 1\n1 0\n%\n%0", "4:1: expected 0 or the end of the input, found '%'"),
        ("p cnf 1 1\n1 0\n%\n %0", "4:2: expected 0 or the end of the input, found '%0'"),
        ("p cnf 1 1\n1 0\n% 1", "3:3: expected 0 or the end of the input, found '1'"),
        ("p cnf 1 1\n1 0\n% 0 00", "3:5: expected the end of the input, found '00'"),
        ("p cnf 1 1\n1 2c 0", "2:4: expected a literal or 0, found 'c'"),
        ("p cnf 1 1\n1 0 p cnf 1 1", "2:5: expected a literal, 0, the \"%\" trailer or the end "
         "of the input, found 'p'"),
        ("p cnf 1 1\n1\n%", "3:1: expected a literal or 0, found '%'"),
        ("p cnf 1 1\n1 -", "2:3: expected a literal or 0, found '-'"),
        ("p cnf 1 1\n1 ü0 0", "2:3: expected a literal or 0, found 'ü0'"),
        ("p cnf 1 1\nü " + "x" * 30, "2:1: expected a literal, 0, the \"%\" trailer or the end "
         "of the input, found 'ü'"),
        ("p cnf 1 1\n" + "x" * 30, "2:1: expected a literal, 0, the \"%\" trailer or the end "
         "of the input, found '" + "x" * 20 + "'"),
        ("p cnf 1 1\n1 0\n%\n" + "7" * 30, "4:1: expected 0 or the end of the input, found '"
         + "7" * 30 + "'"),
        ("p cnf 1 1\n1 \x1c 0", "2:3: expected a literal or 0, found '\\x1c'"),
        ("c x\n  c y\n", "1:1: expected \"p cnf <vars> <clauses>\", found the end of the input"),
        ("p cnf 1 1\n 1\n\nc x\n", "2:2: expected a literal or 0, found the end of the input"),
    ],
)  # fmt: skip
def test_what_an_error_found_is_the_token_or_the_word_there(text: str, error: str) -> None:
    """A token the state does not accept is shown whole; characters no token matches
    are shown up to a space (at most 20); the end of the input is located at the last
    token. Written by hand, and held against the oracle."""
    for read in READERS:
        with pytest.raises(ParseError) as info:
            read(text)
        assert str(info.value) == error, read


@pytest.mark.slow
def test_a_large_random_file() -> None:
    rng = random.Random(5)
    n = 3000
    clauses = [
        [rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(rng.randint(1, 3))]
        for _ in range(20_000)
    ]
    f = Formula(clauses, num_vars=n)
    text = write_dimacs(f)
    assert parse_dimacs(text) == f
    head, body = text.split("\n", 2)[:2], text.split("\n", 2)[2]
    assert parse_dimacs("\n".join(head) + "\n" + body.replace("\n", " ")) == f
    cut = text.index("\n", len(text) // 2) + 1
    bad = text[:cut] + "1 2x 0\n" + text[cut:]
    with pytest.raises(ParseError) as info:
        parse_dimacs(bad)
    assert (info.value.line, info.value.column) == (text[:cut].count("\n") + 1, 4)
    assert "found 'x'" in info.value.message
    assert np.array_equal(parse_dimacs(text).literals, f.literals)
    # Errors found after the walk (a literal beyond the header, a clause too many) are
    # located far into the text as the oracle locates them.
    beyond = text[:cut] + f"1 -{n + 1} 0\n" + text[cut:]
    extra = text.replace(f"p cnf {n} 20000", f"p cnf {n} 19999")
    for changed in (beyond, extra):
        assert outcome(parse_dimacs, changed) == outcome(lark_dimacs, changed)
        assert outcome(parse_dimacs, changed.encode()) == outcome(lark_dimacs, changed)


def test_names_survive_in_a_large_file() -> None:
    n = 500
    f = Formula([[v, -(v % n + 1)] for v in range(1, n + 1)], names=[f"v{i}" for i in range(n)])
    text = write_dimacs(f)
    assert text.count("c var") == n
    assert parse_dimacs(text) == f == parse_dimacs(text.encode())
    assert default_name(1) not in parse_dimacs(text).names
