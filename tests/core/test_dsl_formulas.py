"""DSL formula lines: any propositional expression, converted to clauses and proven.

The expressions are drawn as trees; the tests print them (with every group in
parentheses, or with only the parentheses the documented precedence needs) and judge the
reading by truth tables computed here from the tree, independently of the reader, sympy
and Z3. Whether a 2-CNF can express a function is decided here too, by brute force: a
function is 2-CNF-expressible exactly when it equals the conjunction of all clauses of at
most two literals that it implies.
"""

from __future__ import annotations

import re
from itertools import combinations, product
from pathlib import Path
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import run
from twosat_formal.core.formula import Formula
from twosat_formal.core.propositional import MAX_DEPTH, MAX_TOKENS, parse_expression
from twosat_formal.core.two_cnf import MAX_VARIABLES, prove_equivalent
from twosat_formal.errors import ConfigError, NotTwoCNFError, ParseError, ProofError
from twosat_formal.io.dsl import parse_dsl, read_dsl, write_dsl

Tree = tuple[Any, ...]
NAMES = ("a", "b", "c", "d")
BINARY = ("and", "or", "xor", "implies", "iff")
FUNCTIONS = ("nand", "nor", "xorf")

leaves = st.sampled_from(NAMES).map(lambda n: ("var", n)) | st.just(("false",))
trees = st.recursive(
    leaves,
    lambda inner: (
        inner.map(lambda t: ("not", t))
        | st.tuples(st.sampled_from(BINARY), inner, inner)
        | st.tuples(st.sampled_from(FUNCTIONS), inner, inner)
        | st.tuples(st.sampled_from(FUNCTIONS), inner, inner, inner)
    ),
    max_leaves=7,
)


def value(tree: Tree, row: dict[str, bool]) -> bool:
    """The truth value of ``tree`` (the tests' own semantics)."""
    op, *args = tree
    if op == "var":
        return row[args[0]]
    if op == "false":
        return False
    vals = [value(a, row) for a in args]
    table = {
        "not": lambda: not vals[0],
        "and": lambda: vals[0] and vals[1],
        "or": lambda: vals[0] or vals[1],
        "xor": lambda: vals[0] != vals[1],
        "implies": lambda: (not vals[0]) or vals[1],
        "iff": lambda: vals[0] == vals[1],
        "nand": lambda: not all(vals),
        "nor": lambda: not any(vals),
        "xorf": lambda: sum(vals) % 2 == 1,
    }
    return bool(table[op]())


def names_of(tree: Tree) -> list[str]:
    """Variable names in order of first appearance, left to right."""
    if tree[0] == "var":
        return [tree[1]]
    return list(dict.fromkeys(n for arg in tree[1:] for n in names_of(arg)))


SPELLING = {
    "not": ["~", "!", "¬", "not "],
    "and": [" & ", " ∧ ", " and "],
    "or": [" | ", " ∨ ", " or "],
    "xor": [" ^ ", " ⊕ ", " xor "],
    "implies": [" -> ", " → "],
    "iff": [" <-> ", " ↔ "],
}


def full(tree: Tree, pick: st.DataObject) -> str:
    """``tree`` printed with every operation in parentheses, spellings drawn."""
    op, *args = tree
    if op == "var":
        return str(args[0])
    if op == "false":
        return "()"
    if op == "not":
        return pick.draw(st.sampled_from(SPELLING["not"])) + full(args[0], pick)
    if op in FUNCTIONS:
        name = "xor" if op == "xorf" else op
        return f"{name}({', '.join(full(a, pick) for a in args)})"
    sign = pick.draw(st.sampled_from(SPELLING[op]))
    return "(" + sign.join(full(a, pick) for a in args) + ")"


#: The documented precedence, loosest first: & < <-> < -> < | < ^ < negation.
LEVEL = {"and": 0, "iff": 1, "implies": 2, "or": 3, "xor": 4, "not": 5}
SIGN = {"and": " & ", "iff": " <-> ", "implies": " -> ", "or": " | ", "xor": " ^ "}


def level(tree: Tree) -> int:
    return LEVEL.get(tree[0], 6)


def minimal(tree: Tree) -> str:
    """``tree`` printed with only the parentheses the documented precedence needs
    (``&``, ``|``, ``^`` and ``<->`` group left to right, ``->`` right to left)."""
    op, *args = tree
    if op == "var":
        return str(args[0])
    if op == "false":
        return "()"
    if op in FUNCTIONS:
        name = "xor" if op == "xorf" else op
        return f"{name}({', '.join(minimal(a) for a in args)})"
    if op == "not":
        inner = minimal(args[0])
        return "~" + (inner if level(args[0]) >= LEVEL["not"] else f"({inner})")
    left, right = args
    mine = LEVEL[op]
    left_bare = level(left) > mine if op == "implies" else level(left) >= mine
    right_bare = level(right) >= mine if op == "implies" else level(right) > mine
    shown_left = minimal(left) if left_bare else f"({minimal(left)})"
    shown_right = minimal(right) if right_bare else f"({minimal(right)})"
    return shown_left + SIGN[op] + shown_right


def rows(names: list[str]) -> list[dict[str, bool]]:
    return [
        dict(zip(names, bits, strict=True)) for bits in product([False, True], repeat=len(names))
    ]


def krom(tree: Tree, names: list[str]) -> bool:
    """Whether some 2-CNF over ``names`` is equivalent to ``tree`` (by brute force)."""
    table = rows(names)
    true_rows = [r for r in table if value(tree, r)]
    literals = [(n, s) for n in names for s in (True, False)]
    clauses = [c for k in (0, 1, 2) for c in combinations(literals, k)]
    implied = [c for c in clauses if all(any(r[n] == s for n, s in c) for r in true_rows)]
    return all(value(tree, r) == all(any(r[n] == s for n, s in c) for c in implied) for r in table)


def formula_value(formula: Formula, row: dict[str, bool]) -> bool:
    return all(
        any(row[formula.name(abs(lit))] == (lit > 0) for lit in clause)
        for clause in formula.clauses
    )


#: A plain clause line as docs/dsl.md defines it, in the spacing :func:`minimal` prints:
#: clauses (literals joined by ``|``, maybe in parentheses, or ``()``) or one arrow
#: between two bare clauses, joined by ``&``. The grammar of record reads it as written,
#: a clause of any width (general CNF); every other line is a formula line.
_LITERAL = r"~*\w+"
_BARE = rf"{_LITERAL}(?: \| {_LITERAL})*"
_ITEM = rf"(?:\(\)|{_BARE}|\({_BARE}\)|{_BARE} (?:->|<->) {_BARE})"
PLAIN_LINE = re.compile(rf"{_ITEM}(?: & {_ITEM})*")


def check_reading(tree: Tree, text: str) -> None:
    names = names_of(tree)
    if PLAIN_LINE.fullmatch(text):  # read by the clause grammar, as written
        formula = read_dsl(text).formula
        assert read_dsl(text).conversions == ()
        assert list(formula.names) == names
        assert all(formula_value(formula, row) == value(tree, row) for row in rows(names))
        return
    if not krom(tree, names):
        with pytest.raises(ParseError) as info:
            read_dsl(text)
        assert "not 2-SAT" in info.value.message and " of " in info.value.message
        wide = info.value.message.split("the clause ", 1)[1].split(" of ")[0]
        assert len(wide.split(" | ")) >= 3
        return
    reading = read_dsl(text)
    formula = reading.formula
    assert list(formula.names) == names  # numbered in order of first appearance
    assert all(len(clause) <= 2 for clause in formula.clauses)
    for row in rows(names):
        assert formula_value(formula, row) == value(tree, row), (text, row)
    for conversion in reading.conversions:
        assert conversion.line == 1 and conversion.text == text
        assert (conversion.start, conversion.stop) == (0, formula.num_clauses)
        assert conversion.proof == "z3:equivalence"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees, st.data())
def test_fully_parenthesised_lines_mean_their_truth_table(tree: Tree, pick: st.DataObject) -> None:
    check_reading(tree, full(tree, pick))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_the_documented_precedence(tree: Tree) -> None:
    check_reading(tree, minimal(tree))


@pytest.mark.parametrize(
    ("tree", "widths"),
    [
        (("or", ("or", ("var", "a"), ("var", "a")), ("var", "a")), [3]),
        (("or", ("or", ("var", "a"), ("var", "b")), ("var", "c")), [3]),
        (("implies", ("or", ("var", "a"), ("var", "b")), ("not", ("var", "c"))), [2, 2]),
    ],
)
def test_a_plain_clause_line_of_any_width_is_read_as_written(tree: Tree, widths: list[int]) -> None:
    """``a | a | a`` is a plain line (a clause of three literals), not a formula line."""
    text = minimal(tree)
    assert PLAIN_LINE.fullmatch(text), text
    check_reading(tree, text)
    assert [len(clause) for clause in read_dsl(text).formula.clauses] == widths


@pytest.mark.parametrize(
    ("text", "same"),
    [
        ("a | b & c", "(a | b) & c"),
        ("a ^ b | c", "(a ^ b) | c"),
        ("~a ^ b", "(~a) ^ b"),
        ("a -> b -> c", "a -> (b -> c)"),
        ("a | b -> c", "(a | b) -> c"),
        ("a -> b <-> c", "(a -> b) <-> c"),
        ("a <-> b & c", "(a <-> b) & c"),
        ("not a | b", "(~a) | b"),
    ],
)
def test_precedence_examples(text: str, same: str) -> None:
    left, right = parse_expression(text), parse_expression(same)
    names = list(left.variables())
    assert all(left.evaluate(r) == right.evaluate(r) for r in rows(names))
    assert left.render() == right.render()


def test_plain_lines_keep_their_grammar_and_formula_lines_mix_in() -> None:
    text = "vars: z\na -> b\n~(b & c)   # no two\nnand(c, d) | a ^ a\n(c or d)\n"
    reading = read_dsl(text)
    f = reading.formula
    assert f.names == ("z", "a", "b", "c", "d")
    assert write_dsl(f) == "vars: z, a, b, c, d\n~a | b\n~b | ~c\n~c | ~d\nc | d\n"
    assert [(c.line, c.start, c.stop) for c in reading.conversions] == [(3, 1, 2), (4, 2, 3)]
    assert reading.conversions[0].text == "~(b & c)   # no two"
    # a plain line is read by the grammar alone: no conversion is recorded for it
    assert read_dsl("a -> b\n(a | b) & c").conversions == ()


def test_a_true_line_declares_its_variables_and_a_false_one_is_the_empty_clause() -> None:
    assert parse_dsl("~~(a | ~a | b)\nc").names == ("a", "b", "c")
    assert parse_dsl("~~(a | ~a | b)\nc").clauses == ((3,),)
    assert parse_dsl("~(a -> a)").clauses == ((),)
    assert parse_dsl("xor | ~(xor & a)").names == ("xor", "a")  # xor stays a name


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        (
            "~~(" + " & ".join(f"v{i} | ~v{i + 1}" for i in range(MAX_VARIABLES)) + ")",
            1,
            ["at most 8 var"],
        ),
        (
            "~(" + " & ".join(["a"] * (MAX_TOKENS // 2 + 1)) + ")",
            3 + 2 * (MAX_TOKENS - 2),
            ["at most 256 tokens"],
        ),
        ("~" * (MAX_DEPTH + 1) + "(a & b)", MAX_DEPTH + 1, ["nests at most 64"]),
        ("(" * (MAX_DEPTH + 1) + "~a" + ")" * (MAX_DEPTH + 1), MAX_DEPTH + 1, ["nests"]),
        ("  a <-> (b | ~c)", 3, ["not 2-SAT", "the clause ~a | b | ~c of 3 literals"]),
        ("xor(a, b, c) & d", 1, ["not 2-SAT", "of 3 literals"]),
        ("~(a & b", 8, ['expected an operator or ")"', "the end of the line"]),
        ("nand(a, b", 10, ['expected an operator, "," or ")"']),
        ("~(a & vars)", 7, ["keyword 'vars'"]),
    ],
)
def test_hostile_and_malformed_lines_are_located_errors(
    line: str, column: int, words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "a | b\n" + line + "\n"
    with pytest.raises(ParseError) as info:
        parse_dsl(text, source="f.dsl")
    err = info.value
    assert (err.line, err.column) == (2, column), str(err)
    assert all(word in err.message for word in words), err.message
    path = tmp_path / "f.dsl"
    path.write_text(text)
    code, out, stderr = run(["parse", str(path)], capsys)
    assert code == 2 and out == ""
    assert stderr.startswith(f"error: {path}:2:{column}:") and "Traceback" not in stderr


def test_a_megabyte_line_is_refused_at_its_token_limit() -> None:
    line = "~(" + " | ".join(["a"] * 300_000) + ")"
    with pytest.raises(ParseError, match="at most 256 tokens"):
        parse_dsl(line)


def test_parse_prints_the_clauses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rules.dsl"
    path.write_text("~(rain & cold)\n(rain -> wet) & (wet -> slippery)\na ^ b\n")
    code, out, err = run(["parse", str(path), "--to", "dsl"], capsys)
    assert (code, err) == (0, "")
    assert out == "~rain | ~cold\n~rain | wet\n~wet | slippery\na | b\n~a | ~b\n"
    assert parse_dsl("a <-> ~b").clauses == ((-1, -2), (2, 1))  # a plain line, as before


@settings(max_examples=60, deadline=None)
@given(trees, st.sampled_from(NAMES))
def test_z3_refuses_clauses_that_differ_with_a_counterexample(tree: Tree, name: str) -> None:
    """A wrong clause list is refused, and the counterexample tells the two apart."""
    expr = parse_expression(full_plain(tree))
    clauses = [(name,)]
    differs = any(value(tree, r) != r[name] for r in rows(sorted({*names_of(tree), name})))
    if not differs:
        assert prove_equivalent(expr, clauses) == "z3:equivalence"
        return
    with pytest.raises(ProofError) as info:
        prove_equivalent(expr, clauses)
    cex = info.value.counterexample
    assert cex is not None
    row = {n: cex.get(n, False) for n in {*names_of(tree), name}}
    assert value(tree, row) != row[name]


def full_plain(tree: Tree) -> str:
    op, *args = tree
    if op == "var":
        return str(args[0])
    if op == "false":
        return "()"
    if op == "not":
        return "~" + full_plain(args[0])
    if op in FUNCTIONS:
        return f"{'xor' if op == 'xorf' else op}({', '.join(full_plain(a) for a in args)})"
    return "(" + SIGN[op].join(full_plain(a) for a in args) + ")"


# -- Formula.to_sympy / Formula.from_sympy ---------------------------------------------------


def sympy_of(tree: Tree) -> Any:
    """The tests' own sympy expression of ``tree``."""
    op, *args = tree
    if op == "var":
        return sympy.Symbol(args[0])
    if op == "false":
        return sympy.false
    parts = [sympy_of(a) for a in args]
    build = {
        "not": lambda: sympy.Not(parts[0]),
        "and": lambda: sympy.And(*parts),
        "or": lambda: sympy.Or(*parts),
        "xor": lambda: sympy.Xor(*parts),
        "implies": lambda: sympy.Implies(*parts),
        "iff": lambda: sympy.Equivalent(*parts),
        "nand": lambda: sympy.Nand(*parts),
        "nor": lambda: sympy.Nor(*parts),
        "xorf": lambda: sympy.Xor(*parts),
    }
    return build[op]()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees)
def test_from_sympy_accepts_exactly_the_2cnf_functions(tree: Tree) -> None:
    names = names_of(tree)
    expr = sympy_of(tree)
    if not krom(tree, names):
        with pytest.raises(NotTwoCNFError) as info:
            Formula.from_sympy(expr, variables=names)
        with pytest.raises(ParseError) as located:
            read_dsl(full_plain(tree))
        # the same message: a smallest wide clause (ties may name another one of them)
        said, located_said = str(info.value), located.value.message
        assert said.split("the clause")[0] == located_said.split("the clause")[0]
        assert said.split(" of ")[-1] == located_said.split(" of ")[-1]
        return
    formula = Formula.from_sympy(expr, variables=names)
    assert list(formula.names)[: len(names)] == names
    used = list(formula.names)
    for row in rows(used):
        assert formula_value(formula, row) == value(tree, row)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([1, -1, 2, -2, 3, -3, 4, -4, 5, -5]), max_size=2), max_size=8)
)
def test_to_sympy_and_back_keep_the_truth_table(clauses: list[list[int]]) -> None:
    f = Formula(clauses, num_vars=5, names=["p", "q", "r", "s", "t"])
    expr = f.to_sympy()
    for row in rows(list(f.names)):
        assert bool(expr.subs({sympy.Symbol(k): v for k, v in row.items()})) == formula_value(
            f, row
        )
    back = Formula.from_sympy(expr, variables=f.names)
    assert back.names == f.names
    for row in rows(list(f.names)):
        assert formula_value(back, row) == formula_value(f, row)


def test_from_sympy_reads_a_large_2cnf_as_it_stands_and_refuses_other_objects() -> None:
    symbols = sympy.symbols("v0:40")
    expr = sympy.And(*(sympy.Or(~symbols[i], symbols[i + 1]) for i in range(39)))
    f = Formula.from_sympy(expr)
    assert f.num_vars == 40 and f.num_clauses == 39 and f.is_2cnf
    with pytest.raises(ConfigError, match="not a propositional expression"):
        Formula.from_sympy(sympy.Symbol("x") + 1)
