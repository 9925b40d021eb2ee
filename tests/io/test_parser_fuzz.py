"""Fuzzing both parsers with byte mutants of valid files (fixed seed, run in CI).

For each reader, 2,000+ mutants of valid files (bytes inserted, deleted, replaced,
duplicated, lines swapped, keywords spliced in) must either read as a formula or raise
the project's :class:`~twosat_formal.errors.ParseError` with a line and a column; any
other exception fails. For DIMACS the reader and the Lark parser of the grammar of
record (tests.support.lark_dimacs) must agree on every mutant: the same formula and
names, or the same error (line, column, message and quoted line).
"""

from __future__ import annotations

import random

import pytest

from tests.io.test_io_dimacs import outcome
from tests.support.lark_dimacs import lark_dimacs
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ParseError
from twosat_formal.io import parse_dimacs, parse_dsl, write_dimacs, write_dsl

SEED = 20240612
MUTANTS = 2_000

_BYTES = [*b" \n\t\r-0123456789cpnfvar%x|&~!()#:,>\x00\xff\xc3", 0xE2, 0x88, 0xA7]
_SPLICES = [b"p cnf 3 2", b"c var 1 a", b"and", b"or", b"not", b"vars:", b"->", b"<->", b"0", b"-0"]


def _seeds(rng: random.Random, count: int) -> list[Formula]:
    formulas = []
    for _ in range(count):
        n = rng.randint(1, 6)
        clauses = [
            [rng.choice([v, -v]) for v in rng.sample(range(1, n + 1), rng.randint(1, min(2, n)))]
            for _ in range(rng.randint(1, 7))
        ]
        names = [
            rng.choice(["a", "b", "x1", "rain", "andy", "orb", "v_2"]) + str(i) for i in range(n)
        ]
        formulas.append(
            Formula(clauses, num_vars=n).with_names(names)
            if rng.random() < 0.5
            else Formula(clauses, num_vars=n)
        )
    return formulas


def mutate(data: bytes, rng: random.Random) -> bytes:
    """A few random byte-level edits of ``data``."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        action = rng.choice(["insert", "delete", "replace", "duplicate", "splice", "swap"])
        if action == "insert":
            out[at:at] = bytes([rng.choice(_BYTES) if rng.random() < 0.8 else rng.randrange(256)])
        elif action == "delete":
            del out[at : at + rng.randint(1, 3)]
        elif action == "replace" and at < len(out):
            out[at] = rng.choice(_BYTES)
        elif action == "duplicate":
            out[at:at] = out[at : at + rng.randint(1, 8)]
        elif action == "splice":
            out[at:at] = rng.choice(_SPLICES)
        else:
            lines = bytes(out).split(b"\n")
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
                out = bytearray(b"\n".join(lines))
    return bytes(out)


def _corpus(write: object, rng: random.Random) -> list[bytes]:
    return [write(f).encode() for f in _seeds(rng, 50)]  # type: ignore[operator]


def test_dimacs_mutants_give_a_formula_or_a_parse_error_and_both_readers_agree() -> None:
    rng = random.Random(SEED)
    corpus = _corpus(lambda f: write_dimacs(f, provenance={"seed": 3}), rng)
    outcomes = {"formula": 0, "error": 0}
    for _ in range(MUTANTS):
        data = mutate(rng.choice(corpus), rng)
        lark = outcome(lark_dimacs, data)  # only ParseError may escape
        assert outcome(parse_dimacs, data) == lark, data
        replaced = data.decode("utf-8", "replace")
        assert outcome(parse_dimacs, replaced) == outcome(lark_dimacs, replaced), data
        outcomes["formula" if isinstance(lark[0], Formula) else "error"] += 1
    # the mutants exercise both outcomes
    assert outcomes["formula"] > MUTANTS // 20 and outcomes["error"] > MUTANTS // 4


def _dsl_outcome(data: bytes) -> Formula | tuple[int | None, int | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return (None, None)
    try:
        return parse_dsl(text)
    except ParseError as err:
        assert err.line is not None and err.column is not None and err.message
        return (err.line, err.column)


def test_dsl_mutants_give_a_formula_or_a_parse_error() -> None:
    rng = random.Random(SEED + 1)
    corpus = _corpus(write_dsl, rng)
    outcomes = {"formula": 0, "error": 0}
    for _ in range(MUTANTS):
        data = mutate(rng.choice(corpus), rng)
        result = _dsl_outcome(data)
        if isinstance(result, Formula):
            outcomes["formula"] += 1
            assert parse_dsl(write_dsl(result)) == result  # what it reads, it prints back
        else:
            outcomes["error"] += 1
    assert outcomes["formula"] > MUTANTS // 20 and outcomes["error"] > MUTANTS // 4


@pytest.mark.parametrize("write", [write_dimacs, write_dsl])
def test_the_corpus_itself_reads_back(write: object) -> None:
    rng = random.Random(SEED)
    for formula in _seeds(rng, 50):
        text = write(formula)  # type: ignore[operator]
        read = parse_dimacs(text) if write is write_dimacs else parse_dsl(text)
        assert read.clauses == formula.clauses
