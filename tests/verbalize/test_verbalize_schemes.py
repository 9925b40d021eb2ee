"""The six schemes against the paper's text (App. G.1, Table 2), sentence by sentence.

Every expected string below is written out by hand from the paper's patterns; none is
computed by the code under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.verbalize import TEMPLATES, backparse, render, verbalize
from twosat_formal.verbalize.schemes import SentenceError

Q = "\u2019"  # the paper's apostrophe

# Table 2: scheme, true value, false value, naming, preamble.
TABLE_2 = [
    ("logic", "true", "false", "letters", "Consider these logical relationships:"),
    ("letter", "has", "doesn’t have", "persons", "Consider these rules about who has the letter:"),
    ("team", "Red", "Blue", "persons", "We have team assignment rules:"),
    (
        "social",
        "attends",
        "doesn’t attend",
        "persons",
        "You’re planning a party with these attendance conditions:",
    ),
    ("room", "lit", "dark", "rooms", "A building has lighting rules:"),
    ("door", "open", "closed", "doors", "A facility has door coupling rules:"),
]

QUESTIONS = {
    "logic": "Can you assign truth values to all statements without creating a contradiction?",
    "letter": "Is there a consistent way for people to hold or not hold the letter?",
    "team": "Is there a valid team assignment that satisfies all constraints?",
    "social": "Can you create a guest list that respects everyone’s conditions?",
    "room": "Can all the lighting rules be satisfied simultaneously?",
    "door": "Is there a configuration of doors that satisfies all the rules?",
}

# Table 2 by scheme name.
ROWS = {row[0]: row for row in TABLE_2}

# The first three entities of each naming, as the examples below use them.
ENTITIES = {
    "letters": ("A", "B", "C"),
    "persons": ("Alice", "Bob", "Carol"),
    "rooms": ("room 1", "room 2", "room 3"),
    "doors": ("door 1", "door 2", "door 3"),
}


def entities(name: str) -> tuple[str, str, str]:
    """The first three entities of scheme ``name``'s examples, by its Table 2 naming."""
    return ENTITIES[ROWS[name][3]]


# (scheme, polarity of the first literal, polarity of the second) -> sentence
POLARITY = {
    ("logic", True, True): "Either A is true or B is true (or both).",
    ("logic", True, False): "Either A is true or B is false (or both).",
    ("logic", False, True): "Either A is false or B is true (or both).",
    ("logic", False, False): "Either A is false or B is false (or both).",
    ("letter", True, True): "Either Alice has the letter or Bob has the letter (or both).",
    (
        "letter",
        True,
        False,
    ): "Either Alice has the letter or Bob doesn’t have the letter (or both).",
    (
        "letter",
        False,
        True,
    ): "Either Alice doesn’t have the letter or Bob has the letter (or both).",
    (
        "letter",
        False,
        False,
    ): "Either Alice doesn’t have the letter or Bob doesn’t have the letter (or both).",
    ("team", True, True): "Either Alice is on the Red team or Bob is on the Red team.",
    ("team", True, False): "Either Alice is on the Red team or Bob is on the Blue team.",
    ("team", False, True): "Either Alice is on the Blue team or Bob is on the Red team.",
    ("team", False, False): "Either Alice is on the Blue team or Bob is on the Blue team.",
    ("social", True, True): "Alice attends or Bob attends (or both).",
    ("social", True, False): "Alice attends or Bob doesn’t attend (or both).",
    ("social", False, True): "Alice doesn’t attend or Bob attends (or both).",
    ("social", False, False): "Alice doesn’t attend or Bob doesn’t attend (or both).",
    ("room", True, True): "room 1 is lit or room 2 is lit (or both).",
    ("room", True, False): "room 1 is lit or room 2 is dark (or both).",
    ("room", False, True): "room 1 is dark or room 2 is lit (or both).",
    ("room", False, False): "room 1 is dark or room 2 is dark (or both).",
    ("door", True, True): "door 1 is open or door 2 is open (or both).",
    ("door", True, False): "door 1 is open or door 2 is closed (or both).",
    ("door", False, True): "door 1 is closed or door 2 is open (or both).",
    ("door", False, False): "door 1 is closed or door 2 is closed (or both).",
}

# Our documented renderings of a unit clause (x) and (~x).
UNIT = {
    "logic": ("A is true.", "A is false."),
    "letter": ("Alice has the letter.", "Alice doesn’t have the letter."),
    "team": ("Alice is on the Red team.", "Alice is on the Blue team."),
    "social": ("Alice attends.", "Alice doesn’t attend."),
    "room": ("room 1 is lit.", "room 1 is dark."),
    "door": ("door 1 is open.", "door 1 is closed."),
}

# Our documented rendering of a three-literal clause (a | ~b | c).
WIDE = {
    "logic": "Either A is true or B is false or C is true (or several).",
    "letter": (
        "Either Alice has the letter or Bob doesn’t have the letter or Carol has the letter"
        " (or several)."
    ),
    "team": (
        "Either Alice is on the Red team or Bob is on the Blue team or Carol is on the Red team."
    ),
    "social": "Alice attends or Bob doesn’t attend or Carol attends (or several).",
    "room": "room 1 is lit or room 2 is dark or room 3 is lit (or several).",
    "door": "door 1 is open or door 2 is closed or door 3 is open (or several).",
}


def test_registry_holds_the_six_schemes_in_paper_order() -> None:
    six = ["logic", "letter", "team", "social", "room", "door"]
    assert TEMPLATES.names() == [*six, "math", "math-latex", "dimacs", "dual-story"]
    with pytest.raises(UnknownNameError):
        TEMPLATES.get("story")


@pytest.mark.parametrize(("name", "true", "false", "naming", "preamble"), TABLE_2)
def test_table_2_row(name: str, true: str, false: str, naming: str, preamble: str) -> None:
    scheme = TEMPLATES.get(name)
    assert (scheme.true_value, scheme.false_value, scheme.naming) == (true, false, naming)
    assert scheme.preamble == preamble
    assert scheme.question == QUESTIONS[name]


def test_texts_keep_the_paper_apostrophe() -> None:
    assert TEMPLATES.get("letter").false_value == "doesn" + Q + "t have"
    assert TEMPLATES.get("social").preamble.startswith("You" + Q + "re")
    assert "'" not in "".join(s.preamble + s.question + s.false_value for _, s in TEMPLATES.items())


@pytest.mark.parametrize(("key", "expected"), sorted(POLARITY.items()))
def test_two_literal_sentence(key: tuple[str, bool, bool], expected: str) -> None:
    name, first, second = key
    a, b, _ = entities(name)
    scheme = TEMPLATES.get(name)
    assert scheme.sentence([(a, first), (b, second)]) == expected
    assert scheme.parse_sentence(expected) == [(a, first), (b, second)]


@pytest.mark.parametrize("name", list(UNIT))
def test_unit_and_wide_renderings(name: str) -> None:
    scheme = TEMPLATES.get(name)
    a, b, c = entities(name)
    positive, negative = UNIT[name]
    assert scheme.sentence([(a, True)]) == positive
    assert scheme.sentence([(a, False)]) == negative
    assert scheme.sentence([(a, True), (b, False), (c, True)]) == WIDE[name]
    assert scheme.parse_sentence(WIDE[name]) == [(a, True), (b, False), (c, True)]
    assert scheme.parse_sentence(negative) == [(a, False)]


@pytest.mark.parametrize("name", list(UNIT))
def test_empty_clause_is_refused_not_dropped(name: str) -> None:
    with pytest.raises(ConfigError):
        verbalize(Formula([[1, 2], []]), name)


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        ("logic", "Either A is true or B is false."),  # the (or both) is missing
        ("logic", "A is true or B is false (or both)."),  # the Either is missing
        ("team", "Either Alice is on the Red team or Bob is on the Blue team (or both)."),
        ("social", "Either Alice attends or Bob attends (or both)."),
        ("room", "Room 1 is lit or room 2 is dark (or both)."),
        ("room", "room 1 is lit or room 2 is open (or both)."),
        ("door", "door 1 is open or door 2 is closed (or several)."),  # two literals
        ("logic", "Either A is true or B is false (or both)"),  # no period
        ("letter", "Either Alice has the letter or Bob has a letter (or both)."),
    ],
)
def test_sentences_that_fit_no_pattern(name: str, sentence: str) -> None:
    with pytest.raises(SentenceError) as info:
        TEMPLATES.get(name).parse_sentence(sentence)
    assert info.value.entity is None


@pytest.mark.parametrize(
    ("name", "sentence", "entity"),
    [
        ("logic", "Either A1 is true or B is false (or both).", "A1"),
        ("letter", "Either Alice has the letter or Qwzx has the letter (or both).", "Qwzx"),
        ("team", "Either alice is on the Red team or Bob is on the Blue team.", "alice"),
        ("room", "room 0 is lit or room 2 is dark (or both).", "room 0"),
        ("door", "door 01 is open.", "door 01"),
        ("social", "Alice1 attends.", "Alice1"),
    ],
)
def test_unknown_entities(name: str, sentence: str, entity: str) -> None:
    with pytest.raises(SentenceError) as info:
        TEMPLATES.get(name).parse_sentence(sentence)
    assert info.value.entity == entity


def test_ascii_apostrophe_is_accepted() -> None:
    scheme = TEMPLATES.get("letter")
    assert scheme.parse_sentence(
        "Either Alice doesn't have the letter or Bob has the letter (or both)."
    ) == [
        ("Alice", False),
        ("Bob", True),
    ]


# The paper's assembled example (App. G.1), the final question wrapped as printed.
PAPER_EXAMPLE = """Consider these logical relationships:
Either A is false or B is true (or both).
Either A is true or C is false (or both).

Can you assign truth values to all statements
without creating a contradiction?"""


def test_paper_assembled_example() -> None:
    formula = Formula.from_named([["~A", "B"], ["A", "~C"]])
    rendered = render(formula, TEMPLATES.get("logic"), ["A", "B", "C"])
    assert rendered == PAPER_EXAMPLE.replace("statements\nwithout", "statements without")
    parsed = backparse(PAPER_EXAMPLE)
    assert parsed.template == "logic"
    assert parsed.entities == ("A", "B", "C")
    assert parsed.formula.clauses == ((-1, 2), (1, -3))


@pytest.mark.parametrize("name", list(UNIT))
def test_assembled_verbalization_layout(name: str) -> None:
    a, b, _ = entities(name)
    formula = Formula([[1, -2], [-1]])
    text = verbalize(formula, name, entities=[a, b]).verbalization
    assert text == "\n".join(
        [
            ROWS[name][4],
            POLARITY[(name, True, False)],
            UNIT[name][1],
            "",
            QUESTIONS[name],
        ]
    )


EXAMPLES = {
    "logic": "Either A is false or B is true (or both).\nEither A is true or C is false (or both).",
    "letter": (
        "Either Aaron doesn’t have the letter or Abigail has the letter (or both).\n"
        "Either Aaron has the letter or Adam doesn’t have the letter (or both)."
    ),
    "door": (
        "door 1 is closed or door 2 is open (or both).\n"
        "door 1 is open or door 3 is closed (or both)."
    ),
}


@pytest.mark.parametrize(("name", "expected"), sorted(EXAMPLES.items()))
def test_example_uses_the_paper_clauses(name: str, expected: str) -> None:
    assert TEMPLATES.get(name).example() == expected


DOC = Path(__file__).resolve().parents[2] / "docs" / "verbalization.md"


@pytest.mark.skipif(not DOC.exists(), reason="docs are not shipped with the package")
@pytest.mark.parametrize("name", TEMPLATES.names())
def test_documented_full_prompts_are_current(name: str) -> None:
    blocks = dict(
        re.findall(r"<!-- example: ([\w-]+) -->\n```text\n(.*?)\n```", DOC.read_text("utf-8"), re.S)
    )
    canonical = TEMPLATES.get(name).entities.canonical(3)
    prompt = verbalize(Formula([[-1, 2], [1, -3], [2, 3]]), name, entities=canonical)
    assert blocks[name] == prompt.text
