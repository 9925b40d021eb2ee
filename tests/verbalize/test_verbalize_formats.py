"""The formats ``math``, ``math-latex``, ``dimacs`` and ``dual-story``: round trip, meaning, tamper.

Each format's text is read back to the very clauses it was written from (print∘parse
and parse∘print are identities, proven through Z3 as for the six schemes), and what the
text means is checked by readers written here, sharing nothing with the library's: the
conjunction evaluated as a Python expression, the DIMACS block read by PySAT, the
forbidden combinations matched against every assignment.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.formula import CNF

from tests.support.brute import holds
from tests.verbalize.test_edits_prompts import clauses_2cnf, edited_of, prompts_of
from twosat_formal.certify import certify_record
from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError, ParseError, ProofError
from twosat_formal.make.edits import edit_steps, root_instance
from twosat_formal.verbalize import (
    FORMATS,
    TEMPLATES,
    Prompt,
    backparse,
    detect_template,
    prompt_record,
    prove_roundtrip,
    render,
    verbalize,
)

NAMES = list(FORMATS)


@st.composite
def clause_formulas(draw: st.DrawFn, max_vars: int = 8, max_width: int = 3) -> Formula:
    """Formulas of one clause or more, widths 1 to ``max_width``, repeated literals and
    unused variables allowed."""
    num_vars = draw(st.integers(1, max_vars))
    literal = st.builds(lambda v, s: v * s, st.integers(1, num_vars), st.sampled_from([1, -1]))
    clause = st.lists(literal, min_size=1, max_size=max_width)
    return Formula(draw(st.lists(clause, min_size=1, max_size=10)), num_vars=num_vars)


def body(prompt: Prompt) -> list[str]:
    """The lines between the preamble and the blank line before the question."""
    lines = prompt.verbalization.split("\n")
    return lines[1:-2]


def bits_of(prompt: Prompt, bits: tuple[bool, ...]) -> dict[str, bool]:
    """The value of each entity under ``bits`` (variable ``v`` is ``bits[v - 1]``)."""
    return dict(zip(prompt.entities, bits, strict=True))


# ---- round trip -------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(clause_formulas(), st.sampled_from(NAMES), st.integers(0, 2**32))
def test_print_then_parse_and_parse_then_print_are_identities(
    formula: Formula, name: str, seed: int
) -> None:
    prompt = verbalize(formula, name, seed=seed)
    # parse∘print: the text reads back to the very clauses, literal order and repeats kept
    read = backparse(prompt.text, name, entities=prompt.entities)
    assert [list(c) for c in read.formula.clauses] == [list(c) for c in formula.clauses]
    assert detect_template(prompt.text) == name
    # print∘parse: what is read renders to the very verbalization
    assert render(read.formula, TEMPLATES.get(name), prompt.entities) == prompt.verbalization
    # without the entity list, the entities come in order of first appearance
    free = backparse(prompt.text)
    used = {abs(lit) for clause in formula.clauses for lit in clause}
    assert sorted(free.entities) == sorted(prompt.entities[v - 1] for v in used)
    proof = prove_roundtrip(formula, prompt.text, name, prompt.entity_map())
    assert proof["result"] == "proved" and proof["template"] == name


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(NAMES),
    st.lists(st.tuples(st.integers(1, 30), st.booleans()), min_size=1, max_size=4),
)
def test_one_clause_reads_back_as_written(name: str, pairs: list[tuple[int, bool]]) -> None:
    scheme = TEMPLATES.get(name)
    literals = [(scheme.entities.entity(k - 1), positive) for k, positive in pairs]
    assert scheme.parse_sentence(scheme.sentence(literals)) == literals


# ---- meaning, by readers that share nothing with the library's ---------------------

_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def python_expression(prompt: Prompt) -> str:
    """The formula lines written as a Python boolean expression over names ``x<k>``."""
    text = " ".join(body(prompt))
    if prompt.template == "math-latex":
        text = re.sub(r"x_\{([0-9]+)\}", r"x\1", text)
        text = text.replace("\\land", " and ").replace("\\lor", " or ").replace("\\neg", " not ")
    else:
        text = text.translate(_SUB).replace("∧", " and ").replace("∨", " or ")
        text = text.replace("¬", " not ")
    return text


@settings(max_examples=40, deadline=None)
@given(clause_formulas(), st.sampled_from(["math", "math-latex"]), st.integers(0, 2**32))
def test_the_math_text_means_the_formula(formula: Formula, name: str, seed: int) -> None:
    prompt = verbalize(formula, name, seed=seed)
    code = compile(python_expression(prompt), "<formula>", "eval")
    for bits in itertools.product((False, True), repeat=formula.num_vars):
        assert eval(code, {"__builtins__": {}}, bits_of(prompt, bits)) == holds(
            formula.clauses, bits
        )


@settings(max_examples=40, deadline=None)
@given(clause_formulas(), st.integers(0, 2**32))
def test_the_dimacs_block_read_by_pysat_is_the_formula(formula: Formula, seed: int) -> None:
    prompt = verbalize(formula, "dimacs", seed=seed)
    lines = body(prompt)
    assert lines[0] == f"p cnf {formula.num_vars} {formula.num_clauses}"
    cnf = CNF(from_string="\n".join(lines) + "\n")
    # DIMACS variable k is the entity xk
    number = {entity: int(entity[1:]) for entity in prompt.entities}
    expected = [
        [number[prompt.entities[abs(x) - 1]] * (1 if x > 0 else -1) for x in clause]
        for clause in formula.clauses
    ]
    assert cnf.clauses == expected and cnf.nv <= formula.num_vars


_COMBINATION = re.compile(r"Taster (\d+) dislikes: (.+)\.\Z")


@settings(max_examples=40, deadline=None)
@given(clause_formulas(), st.integers(0, 2**32))
def test_a_dual_story_assignment_is_valid_exactly_when_it_satisfies_the_formula(
    formula: Formula, seed: int
) -> None:
    prompt = verbalize(formula, "dual-story", seed=seed)
    forbidden = []
    for number, line in enumerate(body(prompt), 1):
        match = _COMBINATION.match(line)
        assert match is not None and int(match.group(1)) == number
        forbidden.append([part.split(" ") for part in match.group(2).split(" + ")])
    for bits in itertools.product((False, True), repeat=formula.num_vars):
        values = bits_of(prompt, bits)
        served = {entity: "crunchy" if value else "chewy" for entity, value in values.items()}
        disliked = any(all(served[e] == v for v, e in combo) for combo in forbidden)
        assert (not disliked) == holds(formula.clauses, bits)


def test_the_documented_examples() -> None:
    f = Formula([[-1, 2], [1, -3], [3]])
    names = ["x1", "x2", "x3"]
    assert body(verbalize(f, "math", entities=names)) == ["(¬x₁ ∨ x₂) ∧", "(x₁ ∨ ¬x₃) ∧", "(x₃)"]
    assert body(verbalize(f, "math-latex", entities=names)) == [
        "(\\neg x_{1} \\lor x_{2}) \\land",
        "(x_{1} \\lor \\neg x_{3}) \\land",
        "(x_{3})",
    ]
    assert body(verbalize(f, "dimacs", entities=names)) == ["p cnf 3 3", "-1 2 0", "1 -3 0", "3 0"]
    assert body(verbalize(f, "dual-story", entities=["A", "B", "C"])) == [
        "Taster 1 dislikes: crunchy A + chewy B.",
        "Taster 2 dislikes: chewy A + crunchy C.",
        "Taster 3 dislikes: chewy C.",
    ]


# ---- tampered and foreign texts ------------------------------------------------------


def rejected(text: str, formula: Formula, prompt: Prompt) -> bool:
    """Whether the reader refuses ``text`` or the round-trip proof fails on it."""
    try:
        backparse(text, prompt.template)
    except ParseError:
        return True
    try:
        prove_roundtrip(formula, text, prompt.template, prompt.entity_map())
    except (CertificateError, ProofError):
        return True
    return False


#: Per format: a literal's place in a clause line, and how to flip that literal.
FLIPS = {
    "math": (r"¬?x[₀-₉]+", lambda s: s[1:] if s.startswith("¬") else "¬" + s),
    "math-latex": (
        r"(?:\\neg )?x_\{[0-9]+\}",
        lambda s: s[5:] if s.startswith("\\neg ") else "\\neg " + s,
    ),
    "dimacs": (r"-?[1-9][0-9]*(?= )", lambda s: s[1:] if s.startswith("-") else "-" + s),
    "dual-story": (
        r"(?:crunchy|chewy)(?= [A-Z])",
        lambda s: "chewy" if s == "crunchy" else "crunchy",
    ),
}


@settings(max_examples=60, deadline=None)
@given(clause_formulas(), st.sampled_from(NAMES), st.integers(0, 2**32), st.data())
def test_a_flipped_literal_is_rejected(
    formula: Formula, name: str, seed: int, data: st.DataObject
) -> None:
    prompt = verbalize(formula, name, seed=seed)
    lines = prompt.text.split("\n")
    first = 2 if name == "dimacs" else 1  # the DIMACS header holds no literal
    row = data.draw(st.integers(first, first + formula.num_clauses - 1))
    pattern, flip = FLIPS[name]
    spots = list(re.finditer(pattern, lines[row]))
    assert spots, lines[row]
    spot = data.draw(st.sampled_from(spots))
    lines[row] = lines[row][: spot.start()] + flip(spot.group()) + lines[row][spot.end() :]
    assert rejected("\n".join(lines), formula, prompt)


@settings(max_examples=40, deadline=None)
@given(clause_formulas(), st.sampled_from(NAMES), st.integers(0, 2**32), st.data())
def test_a_dropped_or_repeated_line_is_rejected(
    formula: Formula, name: str, seed: int, data: st.DataObject
) -> None:
    prompt = verbalize(formula, name, seed=seed)
    lines = prompt.text.split("\n")
    first = 2 if name == "dimacs" else 1
    row = data.draw(st.integers(first, first + formula.num_clauses - 1))
    if data.draw(st.booleans()):
        del lines[row]
    else:
        lines.insert(row, lines[row])
    assert rejected("\n".join(lines), formula, prompt)


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("math", "(x1 ∨ ¬x₂) ∧", "is not written as sympy prints it"),  # ASCII digits
        ("math", "(¬ x₁ ∨ x₂) ∧", "is not a literal"),
        ("math", "(x₀ ∨ x₂) ∧", "is not a literal"),
        ("math", "x₁ ∨ x₂ ∧", "parentheses"),
        ("math", "(x₁ ∨ x₂)", "ends with '∧'"),
        ("math", "(__import__('os') ∨ x₂) ∧", "is not a literal"),
        ("math", "(E ∨ x₂) ∧", "is not a literal"),
        ("math-latex", "(x_1 \\lor x_{2}) \\land", "is not a literal"),
        ("math-latex", "(\\lnot x_{1} \\lor x_{2}) \\land", "is not a literal"),
        ("dimacs", "1 -2 a 0", "the DIMACS block"),
        ("dimacs", "1  -2 0", "not written as the dimacs format writes it"),
        ("dimacs", "1 -9 0", "beyond the header"),
        ("dual-story", "Taster 1 dislikes: soggy A + chewy B.", "is not crunchy or chewy X"),
        ("dual-story", "Taster 7 dislikes: chewy A + chewy B.", "opens with 'Taster 1 dislikes: '"),
        ("dual-story", "Taster 1 dislikes: chewy a + chewy B.", "unknown entity"),
    ],
)
def test_a_foreign_line_is_a_located_parse_error(name: str, line: str, message: str) -> None:
    formula = Formula([[1, -2], [2, 3]])
    prompt = verbalize(formula, name, entities=TEMPLATES.get(name).entities.canonical(3))
    lines = prompt.text.split("\n")
    row = 2 if name == "dimacs" else 1
    lines[row] = line
    with pytest.raises(ParseError, match=re.escape(message)) as caught:
        backparse("\n".join(lines), name, source="p.txt")
    assert caught.value.line == row + 1 and caught.value.source == "p.txt"


@pytest.mark.parametrize("name", NAMES)
def test_a_missing_question_or_preamble_is_a_parse_error(name: str) -> None:
    prompt = verbalize(Formula([[1, 2]]), name)
    question = TEMPLATES.get(name).question
    with pytest.raises(ParseError, match="final question"):
        backparse(prompt.verbalization.replace(question, "Well?"), name)
    with pytest.raises(ParseError, match="preamble"):
        backparse("Hello\n" + prompt.verbalization, name)


@pytest.mark.parametrize("name", NAMES)
def test_an_entity_outside_the_given_list_is_an_error(name: str) -> None:
    canonical = TEMPLATES.get(name).entities.canonical(3)
    prompt = verbalize(Formula([[1, -3]]), name, entities=canonical)
    with pytest.raises(ParseError, match="unknown entity"):
        backparse(prompt.text, name, entities=canonical[:2])


# ---- certify -------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(clause_formulas(max_width=2), st.sampled_from(NAMES), st.integers(0, 2**16), st.data())
def test_certify_passes_a_format_prompt_and_fails_it_tampered(
    formula: Formula, name: str, seed: int, data: st.DataObject
) -> None:
    instance = root_instance(formula).to_record()
    record = prompt_record(formula, name, instance_id=instance["id"], seed=seed).to_record()
    assert certify_record(record, line=1, source="p.jsonl", instance=instance) == []
    lines = record["text"].split("\n")
    first = 2 if name == "dimacs" else 1
    row = data.draw(st.integers(first, first + formula.num_clauses - 1))
    pattern, flip = FLIPS[name]
    spot = data.draw(st.sampled_from(list(re.finditer(pattern, lines[row]))))
    lines[row] = lines[row][: spot.start()] + flip(spot.group()) + lines[row][spot.end() :]
    tampered = {**record, "text": "\n".join(lines)}
    assert certify_record(tampered, line=1, source="p.jsonl", instance=instance) != []


def test_a_dimacs_header_of_many_variables_reads_without_listing_them() -> None:
    import tracemalloc

    scheme = TEMPLATES.get("dimacs")
    text = f"{scheme.preamble}\np cnf 10000000 1\n1 -2 0\n\n{scheme.question}"
    backparse(text)  # the parsers built and cached before measuring
    tracemalloc.start()
    try:
        read = backparse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.entities == ("x1", "x2") and read.formula.clauses == ((1, -2),)
    assert peak < 50_000_000  # ten million entity names would take several hundred MB


#: Characters of the four formats' lines, and a few foreign ones.
ALPHABET = "x₁₂0123-¬∨∧() \\{}_negloradTstr:+.chewycunAB~'\"$"


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(NAMES), st.text(alphabet=ALPHABET, max_size=40), st.integers(1, 3))
def test_any_line_is_read_or_refused_with_a_parse_error(name: str, line: str, row: int) -> None:
    prompt = verbalize(Formula([[1, -2], [2, 3], [-3]]), name)
    lines = prompt.text.split("\n")
    lines[row] = line
    try:
        read = backparse("\n".join(lines), name)
    except ParseError as err:
        assert err.line is not None and 1 <= err.line <= len(lines)
        return
    # read: the text is exactly what the renderer writes for what was read (a DIMACS
    # header may declare variables no clause names: its clause lines are compared)
    rendered = render(read.formula, TEMPLATES.get(name), read.entities).split("\n")
    skip = 2 if name == "dimacs" else 0
    assert rendered[skip:] == lines[skip : len(rendered)]


# ---- edits ---------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(clauses_2cnf, st.integers(0, 2**20), st.sampled_from(NAMES))
def test_an_edit_that_keeps_the_clause_count_changes_only_its_lines(
    clauses: list[list[int]], seed: int, name: str
) -> None:
    base = root_instance(Formula(clauses))
    (base_prompt,) = prompts_of(base, [name], seed)
    before_lines = base_prompt["text"].split("\n")
    first = 2 if name == "dimacs" else 1  # the line of clause 0
    for edited in edited_of(base, seed):
        (prompt,) = prompts_of(edited, [name], seed)
        steps = edit_steps(edited.transforms)
        if any(len(step["before"]) != len(step["after"]) for step in steps):
            continue
        spliced = {
            first + step["position"] + k for step in steps for k in range(len(step["after"]))
        }
        lines = prompt["text"].split("\n")
        assert len(lines) == len(before_lines)
        changed = {i for i, (a, b) in enumerate(zip(lines, before_lines, strict=True)) if a != b}
        assert changed <= spliced


# ---- sympy's parser, its namespace built once ------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    st.from_regex(r"~?x[1-9][0-9]{0,3}\Z")
    | st.sampled_from(["x1", "~x1", "E", "~S", "I", "pi", "max", "abs", "~~x2"])
)
def test_the_literal_parser_reads_as_sympy_reads_with_its_own_namespace(token: str) -> None:
    """The namespace built once per process gives what ``parse_expr`` gives when it
    builds its own (the parser's default), for literals and for names sympy or Python
    define."""
    from sympy.parsing.sympy_parser import parse_expr

    from twosat_formal.verbalize.formats import _sympy_names

    def read(**names: object) -> object:
        try:
            return parse_expr(token, evaluate=False, **names)
        except Exception as exc:  # both must refuse alike
            return type(exc)

    assert read(global_dict=_sympy_names()) == read()


def test_the_parser_namespace_is_sympys_and_the_builtin_functions() -> None:
    import builtins
    import types

    import sympy

    from twosat_formal.verbalize.formats import _sympy_names

    names = _sympy_names()
    assert set(sympy.__all__) <= set(names)
    assert names["max"] is sympy.Max and names["min"] is sympy.Min
    assert names["len"] is builtins.len and names["Symbol"] is sympy.Symbol
    functions = {k for k, v in vars(builtins).items() if isinstance(v, types.BuiltinFunctionType)}
    assert functions - {"max", "min"} <= set(names)
