"""Story themes and the generation prompts (App. G.3), checked against the paper's text."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.verbalize.story import THEMES
from twosat_formal.verbalize.story.generator import (
    clue_prompt,
    entities_prompt,
    intro_prompt,
    render_conversation,
    state_prompt,
)

# The prompts of App. G.3 as printed in the paper (detective theme), placeholders filled.
PAPER_STEP_1 = """You are a mystery story writer. Create a short
introduction for a detective story.

CHARACTERS/OBJECTS in this story:
- the butler
- the letter
- the maid

Requirements:
- Set the scene for a mystery with clues to discover
- Briefly introduce each character/object naturally
  in the narrative
- Do NOT mention any specific rules or relationships
  yet
- Keep it brief and atmospheric

Write only the introduction paragraph."""

PAPER_STEP_2 = """Write clue 2/7 for our mystery story.

This clue must express that AT LEAST ONE of these
statements is true:
- Statement A: the butler is innocent
- Statement B: the letter is forged

(It\u2019s possible both are true, but at least one
MUST be true.)

Write 2-3 sentences that naturally convey this
logical rule through detective reasoning, witness
testimony, or evidence analysis. Be creative but
ensure the logic is clear.

Write ONLY the clue paragraph:"""

PAPER_STEP_3A = """From this clue, identify the TWO main entities
being discussed.

CLUE: "The butler wept."

AVAILABLE ENTITIES:
["the butler", "the letter"]

Which two entities does this clue primarily discuss?
Respond with ONLY a JSON array of exactly 2 entity
names: ["entity1", "entity2"]"""

PAPER_STEP_3B = """In this clue, what is stated about the butler?

CLUE: "The butler wept."

The clue says that the butler:
A) is the murderer
B) is innocent

Which state does the clue indicate?
Answer with ONLY "A" or "B"."""


def test_detective_prompts_are_the_papers_verbatim() -> None:
    detective = THEMES.get("detective")
    assert intro_prompt(detective, ["the butler", "the letter", "the maid"]) == PAPER_STEP_1
    prompt = clue_prompt(
        detective, 2, 7, ("the butler", "is innocent"), ("the letter", "is forged")
    )
    assert prompt == PAPER_STEP_2
    assert entities_prompt("The butler wept.", ["the butler", "the letter"]) == PAPER_STEP_3A
    butler = detective.lookup("the butler")
    state = state_prompt(
        "The butler wept.", "the butler", butler.true_description, butler.false_description
    )
    assert state == PAPER_STEP_3B


@pytest.mark.parametrize(("theme", "genre"), [("spy", "spy thriller"), ("heist", "heist story")])
def test_other_themes_change_only_the_genre_words(theme: str, genre: str) -> None:
    chosen = THEMES.get(theme)
    intro = intro_prompt(chosen, ["the butler", "the letter", "the maid"])
    clue = clue_prompt(chosen, 2, 7, ("the butler", "is innocent"), ("the letter", "is forged"))
    assert genre in intro and "mystery" not in intro and "detective" not in intro
    assert f"for our {genre}." in clue and "detective" not in clue

    def changed(text: str, paper: str) -> list[int]:
        ours, theirs = text.splitlines(), paper.splitlines()
        assert len(ours) == len(theirs)
        return [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]

    assert changed(intro, PAPER_STEP_1) == [0, 1, 9]  # writer, genre, scene
    assert changed(clue, PAPER_STEP_2) == [0, 11, 12]  # story name, kind of reasoning


def test_render_conversation() -> None:
    assert render_conversation([("user", "only")]) == "only"
    text = render_conversation([("user", "a"), ("assistant", "b"), ("user", "c")])
    assert text == "User:\na\n\nAssistant:\nb\n\nUser:\nc"


@pytest.mark.parametrize("name", ["detective", "spy", "heist"])
def test_vocabularies(name: str) -> None:
    theme = THEMES.get(name)
    assert len(theme.vocabulary) >= 30
    names = [e.name for e in theme.vocabulary]
    assert len(set(names)) == len(names)
    for entity in theme.vocabulary:
        assert entity.name.startswith("the ") and "#" not in entity.name
        assert entity.true_description != entity.false_description
        assert theme.describe(entity.name) == (entity.true_description, entity.false_description)


@given(st.sampled_from(["detective", "spy", "heist"]), st.integers(0, 400), st.integers(0, 10**9))
def test_entity_mappings_are_distinct_theme_entities(name: str, n: int, seed: int) -> None:
    theme = THEMES.get(name)
    names = theme.entities_for(n, seed=seed)
    assert len(names) == n and len(set(names)) == n
    assert names == theme.entities_for(n, seed=seed)
    assert theme.validate(names, n) == names
    size = len(theme.vocabulary)
    for entity in names:
        base, _, suffix = entity.partition(" #")
        assert theme.describe(entity) == theme.describe(base)
        assert suffix == "" or 2 <= int(suffix) <= n // size + 1


def test_enumeration_suffixes() -> None:
    theme = THEMES.get("detective")
    size = len(theme.vocabulary)
    assert theme.entity(0) == "the butler"
    assert theme.entity(size) == "the butler #2"
    assert theme.entity(3 * size + 1) == "the gardener #4"
    assert [theme.entity(i) for i in range(300)] == [
        theme.vocabulary[i % size].name + ("" if i < size else f" #{i // size + 1}")
        for i in range(300)
    ]
    with pytest.raises(ConfigError):
        theme.entity(-1)


@pytest.mark.parametrize(
    "bad", ["the moon", "the butler #1", "the butler #0", "the butler #02", "The Butler", ""]
)
def test_lookup_refuses_names_outside_the_theme(bad: str) -> None:
    with pytest.raises(ConfigError):
        THEMES.get("detective").lookup(bad)


def test_unknown_theme() -> None:  # its mappings: test_verbalize_entities, with the namings'
    with pytest.raises(UnknownNameError):
        THEMES.get("pirate")


def test_mappings_are_the_same_in_another_process() -> None:
    code = (
        "import json; from twosat_formal.verbalize.story import THEMES; "
        "print(json.dumps([THEMES.get(t).entities_for(45, seed=7) for t in THEMES.names()]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    here = [list(THEMES.get(t).entities_for(45, seed=7)) for t in THEMES.names()]
    assert json.loads(out) == here
    assert here[0] != list(THEMES.get("detective").entities_for(45, seed=8))
