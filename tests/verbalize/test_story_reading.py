"""Story prompts read literally, and the reference reasoners answering them.

Stories are assembled here from clause sentences written in this file (the paper's
fallback sentence, or a free sentence that states both statements), wrapped in the
G.2 story prompt; labels come from brute force and witnesses are checked clause by
clause with the standard library.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.brute import brute_label
from twosat_formal.core.formula import Formula
from twosat_formal.errors import EvaluationError, ParseError
from twosat_formal.evaluate.models.base import SamplingParams
from twosat_formal.evaluate.models.reference import OracleModel, SatBiasedModel
from twosat_formal.verbalize.prompts import story_prompt
from twosat_formal.verbalize.story import THEMES
from twosat_formal.verbalize.story.reading import read_story_prompt

INTRO = "Rain hammered the windows of the old house."


def sentence(style: int, a: str, b: str) -> str:
    return [
        f"Either {a}, or {b} (or both).",
        f"The notes agree: {a.capitalize()}, unless {b}.",
        f"Someone swore that {a}; others insist {b}.\nAt least one holds.",
    ][style]


def tell(clauses: list[list[int]], n: int, theme: str, seed: int, style: int) -> tuple[str, list]:
    chosen = THEMES.get(theme)
    names = chosen.entities_for(n, seed=seed)
    triples = [(e, *chosen.describe(e)) for e in names]

    def statement(lit: int) -> str:
        entity, true, false = triples[abs(lit) - 1]
        return f"{entity} {true if lit > 0 else false}"

    paragraphs = [INTRO]
    for clause in clauses:
        if len(clause) == 1:
            paragraphs.append(f"It is certain that {statement(clause[0])}.")
        else:
            paragraphs.append(sentence(style, statement(clause[0]), statement(clause[1])))
        paragraphs.append("The clock struck again.")  # a narrative paragraph: no clause
    return story_prompt("\n\n".join(paragraphs), triples), triples


clause_lists = st.integers(2, 6).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.lists(
                st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])),
                min_size=1,
                max_size=2,
            ),
            min_size=1,
            max_size=8,
        ),
    )
)


@settings(max_examples=60, deadline=None)
@given(clause_lists, st.sampled_from(THEMES.names()), st.integers(0, 50), st.integers(0, 2))
def test_a_literal_story_reads_back_to_its_clauses(
    drawn: tuple[int, list[list[int]]], theme: str, seed: int, style: int
) -> None:
    n, clauses = drawn
    text, triples = tell(clauses, n, theme, seed, style)
    story = read_story_prompt(text)
    assert [list(c) for c in story.formula.clauses] == clauses
    assert story.entities == tuple(e for e, _, _ in triples)
    assert story.formula.num_vars == n


@settings(max_examples=40, deadline=None)
@given(clause_lists, st.sampled_from(THEMES.names()), st.integers(0, 50))
def test_oracle_answers_a_story_prompt_exactly(
    drawn: tuple[int, list[list[int]]], theme: str, seed: int
) -> None:
    n, clauses = drawn
    text, triples = tell(clauses, n, theme, seed, 0)
    answer = OracleModel().respond(text).text
    label = brute_label(Formula(clauses, num_vars=n))
    assert answer.splitlines()[-1] == f"The answer is: {'Yes' if label == 'SAT' else 'No'}"
    if label == "SAT":
        witness = json.loads(answer[answer.index("{") : answer.rindex("}") + 1])
        assert set(witness) == {e for e, _, _ in triples}
        value = {}
        for v, (entity, true, false) in enumerate(triples, 1):
            assert witness[entity] in (true, false)
            value[v] = witness[entity] == true
        assert all(any(value[abs(lit)] == (lit > 0) for lit in c) for c in clauses)


def test_sat_biased_gives_every_entity_its_true_description() -> None:
    text, triples = tell([[1, -2]], 2, "heist", 3, 1)
    answer = asyncio.run(SatBiasedModel().generate(text, SamplingParams()))
    witness = json.loads(answer.text[answer.text.index("{") : answer.text.rindex("}") + 1])
    assert witness == {entity: true for entity, true, _ in triples}


def test_unreadable_stories_are_refused() -> None:
    text, triples = tell([[1, 2]], 3, "spy", 0, 0)
    crowded = text.replace(
        "The clock struck again.", " ; ".join(f"{e} {t}" for e, t, _ in triples), 1
    )
    with pytest.raises(ParseError, match="states 3 statements"):
        read_story_prompt(crowded)
    with pytest.raises(EvaluationError, match="word for word"):
        OracleModel().respond(crowded)
    with pytest.raises(ParseError, match="not a story prompt"):
        read_story_prompt(text.replace("Think step by step.", "Think."))
    with pytest.raises(ParseError, match="not a story prompt"):
        read_story_prompt(text + "\nP.S.")
    with pytest.raises(ParseError, match="not a story prompt"):
        read_story_prompt("Either A is true or B is true (or both).")
    # a paraphrased clue states nothing word for word: the story reads without it
    vague = text.replace(
        sentence(0, f"{triples[0][0]} {triples[0][1]}", f"{triples[1][0]} {triples[1][1]}"),
        "Somebody lied.",
    )
    assert read_story_prompt(vague).formula.num_clauses == 0


def test_the_introduction_is_not_read() -> None:
    chosen = THEMES.get("detective")
    triples = [(e, *chosen.describe(e)) for e in ("the butler", "the maid")]
    story = "The butler is the murderer, whispered the maid saw the killer.\n\nNothing else."
    assert read_story_prompt(story_prompt(story, triples)).formula.num_clauses == 0
