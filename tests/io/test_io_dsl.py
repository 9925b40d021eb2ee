"""The formula DSL: reader, canonical printer, sugar, numbering, errors and round trips.

Expected clauses are built here from a description of the text, and the meaning of the
arrows is checked against truth tables computed here, independently of the reader.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.support.formula_strategies import formulas as named_formulas
from tests.support.parse import assert_parse_error
from twosat_formal.core.formula import Formula, is_valid_name
from twosat_formal.errors import ParseError
from twosat_formal.io import parse_dimacs, parse_dsl, write_dimacs, write_dsl
from twosat_formal.io._parsing import decode

NAMES = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True),
    st.sampled_from(["x1", "x2", "x3", "nota", "orx", "android", "variables", "Not", "OR"]),
).filter(is_valid_name)


def formulas(max_vars: int = 7, max_width: int = 4) -> st.SearchStrategy[Formula]:
    """Random CNFs with names from :data:`NAMES`."""
    return named_formulas(NAMES, max_vars, max_width)


# -- by example ---------------------------------------------------------------------------


def clauses_of(text: str) -> list[list[str]]:
    """The clauses of ``text`` with literals as names (``~a``), for readable expectations."""
    f = parse_dsl(text)
    return [[f.literal_name(lit) for lit in clause] for clause in f.clauses]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a | ~b", [["a", "~b"]]),
        ("a ∨ ¬b", [["a", "~b"]]),
        ("a or not b", [["a", "~b"]]),
        ("!a | b", [["~a", "b"]]),
        ("~~a", [["a"]]),
        ("not ~ ! a", [["~a"]]),
        ("a & b ∧ c and d", [["a"], ["b"], ["c"], ["d"]]),
        ("(a | b) & (~a)", [["a", "b"], ["~a"]]),
        ("a\n\nb | c\n", [["a"], ["b", "c"]]),
        ("a -> b", [["~a", "b"]]),
        ("a → ~b", [["~a", "~b"]]),
        ("a <-> b", [["~a", "b"], ["~b", "a"]]),
        ("a ↔ b", [["~a", "b"], ["~b", "a"]]),
        ("a | b -> c | d", [["~a", "c", "d"], ["~b", "c", "d"]]),
        ("a <-> b | c", [["~a", "b", "c"], ["~b", "a"], ["~c", "a"]]),
        ("(a -> b) & (b -> c)", [["~a", "b"], ["~b", "c"]]),
        ("~a -> b", [["a", "b"]]),
        ("() & a", [[], ["a"]]),
        ("a # a comment | b\n# another\n", [["a"]]),
        ("nota | orx | android", [["nota", "orx", "android"]]),
        ("a|b", [["a", "b"]]),
    ],
)
def test_syntax(text: str, expected: list[list[str]]) -> None:
    assert clauses_of(text) == expected


def test_empty_text_is_the_empty_formula() -> None:
    for text in ("", "\n\n", "# nothing here\n", "   \t\n"):
        assert parse_dsl(text) == Formula()


def test_numbering_follows_first_appearance() -> None:
    f = parse_dsl("b | ~a\nc -> a\nd")
    assert f.names == ("b", "a", "c", "d")
    assert f.clauses == ((1, -2), (-3, 2), (4,))


def test_vars_line_declares_and_orders() -> None:
    f = parse_dsl("vars: z, y x\nx | y")
    assert f.names == ("z", "y", "x") and f.clauses == ((3, 2),)
    g = parse_dsl("a\nvars: b a c")
    assert g.names == ("a", "b", "c") and g.num_vars == 3
    assert parse_dsl("vars:").num_vars == 0


def test_default_names_are_default() -> None:
    f = parse_dsl("x1 | ~x2")
    assert f.has_default_names and f == Formula([[1, -2]])


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("a | | b", 1, 5, ["expected a variable name", "found '|'"]),
        ("a b", 1, 3, ["found 'b'"]),
        ("a |", 1, 4, ["expected a variable name", "end of the line"]),
        ("a\n(b | c", 2, 7, ['expected ")"', "end of the line"]),
        ("a -> b -> c", 1, 1, ["not 2-SAT", "the clause ~a | ~b | c of 3 literals"]),
        ("  a -> b <-> c", 1, 3, ["not 2-SAT", "of 3 literals"]),
        ("or | a", 1, 1, ["keyword 'or'"]),
        ("a | not", 1, 8, ["expected a variable name"]),
        ("vars: a, and", 1, 10, ["keyword 'and'"]),
        ("vars a", 1, 6, ['expected ":"']),
        ("a & ", 1, 5, ["expected a variable name"]),
        ("a\nb é", 2, 3, ["found 'é'"]),
        ("3x | a", 1, 1, ["found '3x'"]),
        ("a - b", 1, 3, ["found '-'"]),
        ("a\x00", 1, 2, ["binary data"]),
        ("~(a & b", 1, 8, ['expected an operator or ")"', "end of the line"]),
        ("a\n~(a | b) # c\nnand(a) | b", 3, 7, ["nand() takes two arguments or more"]),
    ],
)
def test_errors(text: str, line: int, column: int, words: list[str]) -> None:
    assert_parse_error(parse_dsl, text, "f.dsl", line, column, words)


# -- the arrows mean what the documentation says --------------------------------------------

SIDES = st.lists(st.tuples(st.sampled_from("abcd"), st.booleans()), min_size=1, max_size=3)


def holds(side: list[tuple[str, bool]], values: dict[str, bool]) -> bool:
    return any(values[name] != negated for name, negated in side)


def render(side: list[tuple[str, bool]], bar: str) -> str:
    return f" {bar} ".join(("~" if neg else "") + name for name, neg in side)


@given(SIDES, SIDES, st.sampled_from(["->", "→", "<->", "↔"]), st.sampled_from(["|", "∨", "or"]))
def test_arrows_have_their_logical_meaning(
    left: list[tuple[str, bool]], right: list[tuple[str, bool]], arrow: str, bar: str
) -> None:
    f = parse_dsl(f"{render(left, bar)} {arrow} {render(right, bar)}")
    both_ways = arrow in ("<->", "↔")
    for bits in itertools.product((False, True), repeat=f.num_vars):
        values = dict(zip(f.names, bits, strict=True))
        a, b = holds(left, values), holds(right, values)
        assert f.evaluate(values) is ((a == b) if both_ways else (not a or b))
    assert f.num_clauses == len(left) + (len(right) if both_ways else 0)


# -- canonical printer and round trips ---------------------------------------------------------


def test_printer_layout() -> None:
    f = Formula([[1, -2], [2], []], names=["rain", "wet"])
    assert write_dsl(f) == "rain | ~wet\nwet\n()\n"
    g = Formula([[2, 1]], names=["a", "b"])
    assert write_dsl(g) == "vars: a, b\nb | a\n"
    h = Formula([[1]], num_vars=2)
    assert write_dsl(h) == "vars: x1, x2\nx1\n"
    assert write_dsl(Formula()) == ""


@given(formulas())
@example(Formula([[2, 1]], names=["x1", "x2"]))
@example(Formula([[2, -1]]))
@example(Formula([[]], num_vars=3))
def test_print_parse_is_identity(f: Formula) -> None:
    text = write_dsl(f)
    assert parse_dsl(text) == f
    assert all(line.strip() for line in text.splitlines())


@pytest.mark.slow
@given(formulas())
def test_dsl_dimacs_dsl_keeps_names(f: Formula) -> None:
    text = write_dsl(f)
    via_dimacs = parse_dimacs(write_dimacs(parse_dsl(text)))
    assert via_dimacs == f == parse_dimacs(write_dimacs(f).encode())
    assert write_dsl(via_dimacs) == text


EDITS = st.sampled_from(
    [s.encode() for s in [*"ab_~!¬|∨&∧()<->→↔:,#\n \t0x\x00é", "not", "or", "vars:"]]
) | st.binary(min_size=1, max_size=2)


@pytest.mark.slow
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(formulas(), st.data())
def test_mutated_bytes_give_a_formula_or_a_parse_error(f: Formula, data: st.DataObject) -> None:
    raw = write_dsl(f).encode()
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        if data.draw(st.booleans()):
            raw = raw[:at] + data.draw(EDITS) + raw[at:]
        else:
            raw = raw[:at] + raw[at + data.draw(st.integers(1, 3)) :]
    try:
        parsed = parse_dsl(decode(raw))
    except ParseError as err:
        assert err.line is not None and err.column is not None and err.message
    else:
        assert parse_dsl(write_dsl(parsed)) == parsed
