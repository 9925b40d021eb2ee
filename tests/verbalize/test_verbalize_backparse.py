"""Back-parsers: exact inverses of the renderers, tolerant of whitespace, strict otherwise.

The formula a text parses back to is compared with the source through the prompt's
entity list by code written here, not by the round-trip module under test.
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.parse import assert_parse_error
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ParseError, UnknownNameError
from twosat_formal.verbalize import FORMATS, TEMPLATES, backparse, detect_template, verbalize
from twosat_formal.verbalize.entities import NAMINGS, first_names, person_name

# the six sentence schemes (the formats have their own tests: test_verbalize_formats.py)
SCHEMES = [name for name in TEMPLATES.names() if name not in FORMATS]
PERSON_SCHEMES = [name for name in SCHEMES if TEMPLATES.get(name).naming == "persons"]


@st.composite
def formulas(
    draw: st.DrawFn, min_vars: int = 1, max_vars: int = 12, max_clauses: int = 14
) -> Formula:
    """Random CNF formulas, mostly two-literal clauses, some units and wider ones."""
    num_vars = draw(st.integers(min_vars, max_vars))
    literal = st.builds(
        lambda v, sign: v * sign, st.integers(1, num_vars), st.sampled_from([1, -1])
    )
    width = st.sampled_from([2, 2, 2, 2, 1, 3, 4])
    clauses = draw(
        st.lists(
            width.flatmap(lambda w: st.lists(literal, min_size=w, max_size=w)), max_size=max_clauses
        )
    )
    return Formula(clauses, num_vars=num_vars)


def mapped_back(
    parsed_formula: Formula, parsed_entities: tuple[str, ...], entities: tuple[str, ...]
) -> list[list[int]]:
    """The parsed clauses in source numbering: entity -> its position in the prompt's list."""
    position = {entity: v for v, entity in enumerate(entities, 1)}
    out = []
    for clause in parsed_formula.clauses:
        row = []
        for lit in clause:
            var = position[parsed_entities[abs(lit) - 1]]
            row.append(var if lit > 0 else -var)
        out.append(row)
    return out


def source(formula: Formula) -> list[list[int]]:
    return [list(clause) for clause in formula.clauses]


@settings(max_examples=150)
@given(formulas(), st.sampled_from(SCHEMES), st.integers(0, 2**32))
def test_round_trip_on_random_formulas(formula: Formula, name: str, seed: int) -> None:
    prompt = verbalize(formula, name, seed=seed)
    for text in (prompt.verbalization, prompt.text):
        parsed = backparse(text)
        assert parsed.template == name
        assert mapped_back(parsed.formula, parsed.entities, prompt.entities) == source(formula)
        assert len(parsed.lines) == formula.num_clauses
        with_map = backparse(text, name, entities=prompt.entities)
        assert with_map.formula.clauses == formula.clauses
        assert with_map.formula.names == tuple(
            NAMINGS[TEMPLATES.get(name).naming].identifier(e) for e in prompt.entities
        )


@settings(max_examples=25)
@given(
    formulas(min_vars=len(first_names()) + 1, max_vars=800, max_clauses=40),
    st.sampled_from(PERSON_SCHEMES),
    st.integers(0, 2**32),
)
def test_round_trip_past_the_names_list(formula: Formula, name: str, seed: int) -> None:
    prompt = verbalize(formula, name, seed=seed)
    listed = set(first_names())
    assert any(entity not in listed for entity in prompt.entities)  # suffixed names in use
    parsed = backparse(prompt.text)
    assert mapped_back(parsed.formula, parsed.entities, prompt.entities) == source(formula)


@settings(max_examples=60)
@given(st.data(), formulas(max_vars=20), st.sampled_from(PERSON_SCHEMES))
def test_round_trip_with_explicit_person_names(
    data: st.DataObject, formula: Formula, name: str
) -> None:
    universe = st.integers(0, 4 * len(first_names()))
    indices = data.draw(
        st.lists(universe, unique=True, min_size=formula.num_vars, max_size=formula.num_vars)
    )
    entities = [person_name(i) for i in indices]
    prompt = verbalize(formula, name, entities=entities)
    parsed = backparse(prompt.text, name)
    assert mapped_back(parsed.formula, parsed.entities, tuple(entities)) == source(formula)


SEPARATORS = st.sampled_from([" ", "  ", "\n", " \n", "\n  ", "\t", "\r\n"])


@settings(max_examples=80)
@given(formulas(), st.sampled_from(SCHEMES), st.integers(8, 70), st.data())
def test_whitespace_and_line_wrapping_are_free(
    formula: Formula, name: str, width: int, data: st.DataObject
) -> None:
    prompt = verbalize(formula, name, seed=width)
    expected = backparse(prompt.text).formula
    wrapped = "\n".join(
        "\n".join(textwrap.wrap(line, width=width, break_long_words=False, break_on_hyphens=False))
        for line in prompt.text.split("\n")
    )
    assert backparse(wrapped).formula == expected
    words = prompt.verbalization.split()
    seps = data.draw(st.lists(SEPARATORS, min_size=len(words), max_size=len(words)))
    respaced = "".join(sep + word for sep, word in zip(seps, words, strict=True))
    assert backparse(respaced, name).formula == expected


def test_ascii_apostrophes_parse_like_the_paper_ones() -> None:
    prompt = verbalize(Formula([[1, -2], [-1]]), "social", seed=0)
    ascii_text = prompt.text.replace("\u2019", "'")
    assert backparse(ascii_text).formula == backparse(prompt.text).formula


@pytest.mark.parametrize("name", SCHEMES)
def test_detect_template_from_the_prompt_alone(name: str) -> None:
    prompt = verbalize(Formula([[1, 2], [-2, 3]]), name, seed=4)
    assert detect_template(prompt.text) == name
    assert detect_template(prompt.verbalization) == name
    assert backparse(prompt.text).template == name


def test_detect_template_refuses_unknown_text() -> None:
    with pytest.raises(ParseError) as info:
        detect_template("\n\nOnce upon a time there were rules.")
    assert info.value.line == 3


def test_variables_in_no_clause_are_not_parsed_back() -> None:
    prompt = verbalize(
        Formula([[2, -3]], num_vars=5), "room", entities=[f"room {i}" for i in (5, 1, 2, 3, 4)]
    )
    parsed = backparse(prompt.text)
    assert parsed.entities == ("room 1", "room 2")
    assert parsed.formula.names == ("room_1", "room_2")
    assert backparse(prompt.text, entities=prompt.entities).formula.num_vars == 5


def test_empty_formula() -> None:
    prompt = verbalize(Formula([], num_vars=0), "door")
    parsed = backparse(prompt.text)
    assert parsed.formula.num_clauses == 0
    assert parsed.entities == ()


LOGIC = """Consider these logical relationships:
Either A is false or B is true (or both).
Either A is true or
   C is false (or both).
Either A is true or D is maybe (or both).

Can you assign truth values to all statements without creating a contradiction?"""


def test_errors_name_the_line() -> None:
    err = assert_parse_error(backparse, LOGIC, "p.txt", 5, 1, ["fits no logic pattern"])
    assert err.context == "Either A is true or D is maybe (or both)."


def test_unknown_entity_names_the_line() -> None:
    text = LOGIC.replace("D is maybe", "d4 is true")
    with pytest.raises(ParseError, match="unknown entity 'd4'") as info:
        backparse(text)
    assert info.value.line == 5
    text = LOGIC.replace("D is maybe", "D is true")
    with pytest.raises(ParseError, match="unknown entity 'D'") as info:
        backparse(text, entities=["A", "B", "C"])
    assert info.value.line == 5
    assert backparse(text, entities=["A", "B", "C", "D"]).formula.num_vars == 4


def test_wrapped_sentence_error_names_its_first_line() -> None:
    text = LOGIC.replace("C is false (or both).", "C is false.")
    with pytest.raises(ParseError) as info:
        backparse(text)
    assert info.value.line == 3


def test_missing_question_and_wrong_preamble() -> None:
    no_question = LOGIC.rsplit("\n", 1)[0].replace("D is maybe", "D is true")
    with pytest.raises(ParseError, match="final question") as info:
        backparse(no_question)
    assert info.value.line == 6
    with pytest.raises(ParseError, match="expected the room preamble") as info:
        backparse(LOGIC, "room")
    assert info.value.line == 1
    with pytest.raises(UnknownNameError):
        backparse(LOGIC, "planet")


def test_text_after_the_question_is_not_read() -> None:
    text = LOGIC.replace("D is maybe", "D is true") + "\n\nEither Z is true or Y is true (or both)."
    assert backparse(text).entities == ("A", "B", "C", "D")


#: Edits that keep a text near the rendered layout (the line-by-line reading's edge).
EDITS = st.sampled_from(
    [
        ("", ""),
        ("\n", "\n\n"),
        ("\n", " \n"),
        ("\n", "\r\n"),
        (" ", "  "),
        (" or ", " or "),
        (" or ", ". "),
        (".", ". ."),
        (".\n", "\n"),
        ("\u2019", "'"),
        ("true", "false"),
        ("Red", "Green"),
        (" (or both)", ""),
        (" (or several)", " (or both)"),
        ("1", "01"),
        ("A", "Aa"),
        ("?", "? more"),
        ("?", "?text"),
        ("?", "?."),
        ("\n\n", "\n"),
        ("\n\n", "\n\n\n"),
    ]
)


@pytest.mark.slow
@settings(max_examples=300)
@given(
    formulas(max_vars=30, max_clauses=20),
    st.sampled_from(SCHEMES),
    st.integers(0, 2**32),
    st.lists(st.tuples(EDITS, st.integers(0, 10**6)), max_size=3),
    st.booleans(),
    st.data(),
)
def test_line_reading_reads_what_the_word_reading_reads(
    formula: Formula,
    name: str,
    seed: int,
    edits: list[tuple[tuple[str, str], int]],
    with_entities: bool,
    data: st.DataObject,
) -> None:
    """The line-by-line reading of a rendered layout returns the word reading's result.

    It may decline a text (``None``: the word reading then reads it or raises), but what
    it returns must equal the word-by-word reading's result for that text.
    """
    from twosat_formal.verbalize.backparse import _read_lines, _read_words, read_clauses

    prompt = verbalize(formula, name, seed=seed)
    text = prompt.text
    for (old, new), at in edits:  # replace one occurrence of ``old`` (the at-th, cyclically)
        found = [i for i in range(len(text)) if text.startswith(old, i)] if old else [0]
        if found:
            i = found[at % len(found)]
            text = text[:i] + new + text[i + len(old) :]
    if prompt.entities and data.draw(st.booleans()):  # an entity near a well-formed one
        entity = data.draw(st.sampled_from(prompt.entities))
        suffix = data.draw(st.sampled_from(["1", "2", "x", "0"]))
        text = text.replace(entity + " ", entity + suffix + " ", 1)
    if data.draw(st.booleans()):  # a word glued to the end of the final question
        question = TEMPLATES.get(name).question
        text = text.replace(question, question + data.draw(st.sampled_from(["x", ".", " x"])), 1)
    entities = None
    if with_entities:
        entities = list(prompt.entities)
        if entities and data.draw(st.booleans()):
            entities.pop(data.draw(st.integers(0, len(entities) - 1)))
    scheme = TEMPLATES.get(name)
    fast = _read_lines(text, scheme, entities)
    rendered = text == prompt.text and (entities is None or len(entities) == formula.num_vars)
    if rendered and formula.num_clauses and all(len(c) <= 2 for c in formula.clauses):
        assert fast is not None  # the rendered layout itself is read line by line
    if fast is not None:
        assert fast == _read_words(text, name, entities, None)
    # without a template: the scheme found from the preamble, then the same reading
    try:
        expected = _read_words(text, None, entities, None)
    except ParseError as err:
        with pytest.raises(ParseError) as raised:
            read_clauses(text, None, entities, None)
        assert str(raised.value) == str(err)
    else:
        assert read_clauses(text, None, entities, None) == expected


@pytest.mark.slow
@settings(max_examples=150)
@given(formulas(max_vars=30), st.sampled_from(SCHEMES), st.integers(0, 2**32))
def test_sentences_are_those_of_sentence(formula: Formula, name: str, seed: int) -> None:
    scheme = TEMPLATES.get(name)
    entities = verbalize(formula, name, seed=seed).entities
    expected = [
        scheme.sentence([(entities[abs(x) - 1], x > 0) for x in clause])
        for clause in formula.clauses
    ]
    assert scheme.sentences(formula.clauses, entities) == expected
