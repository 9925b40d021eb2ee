"""Entity naming: letters, the shipped first names with suffixes, rooms/doors, seeded maps."""

from __future__ import annotations

import itertools
import random
import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import twosat_formal
from tests.support.cli import python_stdout
from twosat_formal.core.formula import KEYWORDS, is_valid_name
from twosat_formal.errors import ConfigError
from twosat_formal.verbalize import TEMPLATES
from twosat_formal.verbalize.entities import (
    NAMINGS,
    Naming,
    entity_map,
    first_names,
    fresh_mappings,
    letter_index,
    letter_name,
    person_name,
)
from twosat_formal.verbalize.story.themes import THEMES, Theme

NAMES_FILE = Path(twosat_formal.__file__).parent / "data" / "first_names.txt"


def _reference_letters(count: int) -> list[str]:
    """A, ..., Z, AA, ..., ZZ, AAA, ... by brute-force enumeration."""
    out: list[str] = []
    for width in itertools.count(1):
        for combo in itertools.product(string.ascii_uppercase, repeat=width):
            out.append("".join(combo))
            if len(out) == count:
                return out
    raise AssertionError("unreachable")


def _scheme_words() -> set[str]:
    words: set[str] = set()
    for _, scheme in TEMPLATES.items():
        fixed = [scheme.preamble, scheme.question, scheme.true_phrase, scheme.false_phrase]
        fixed += [scheme.prefix, scheme.both, scheme.several]
        for text in fixed:
            words |= {w.lower() for w in re.findall(r"[A-Za-z’']+", text)}
    return words


def test_letters_match_brute_force_enumeration() -> None:
    expected = _reference_letters(26 + 26 * 26 + 30)
    assert [letter_name(i) for i in range(len(expected))] == expected
    assert [letter_index(name) for name in expected] == list(range(len(expected)))


def test_first_names_file() -> None:
    lines = NAMES_FILE.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 300
    assert len(set(lines)) == len(lines)
    assert all(re.fullmatch(r"[A-Z][a-z]+", line) for line in lines)
    assert tuple(lines) == first_names()


def test_first_names_do_not_collide_with_sentence_words() -> None:
    words = _scheme_words()
    assert {"either", "attends", "red", "blue", "letter", "both", "several"} <= words
    clashes = [n for n in first_names() if n.lower() in words or n.lower() in KEYWORDS]
    assert clashes == []


def test_person_names_past_the_list_get_suffixes() -> None:
    names = first_names()
    count = len(names)
    assert [person_name(i) for i in range(count)] == list(names)
    assert person_name(count) == names[0] + "2"
    assert person_name(2 * count + 5) == names[5] + "3"
    universe = [person_name(i) for i in range(3 * count)]
    assert len(set(universe)) == len(universe)
    assert all(is_valid_name(name) for name in universe)


@given(st.sampled_from(list(NAMINGS)), st.integers(0, 5000))
def test_index_inverts_entity(naming: str, index: int) -> None:
    entities = NAMINGS[naming]
    entity = entities.entity(index)
    assert entities.is_entity(entity)
    assert entities.index(entity) == index
    assert is_valid_name(entities.identifier(entity))


@pytest.mark.parametrize(
    ("naming", "good", "bad"),
    [
        ("letters", ["A", "ZZ", "AAA"], ["a", "A1", "", "Ä"]),
        ("persons", ["Alice", "Bob", "Zoe2", "Aaron17"], ["Alice1", "Alice02", "alice", "Qwzx"]),
        ("rooms", ["room 1", "room 40"], ["room 0", "room 01", "Room 1", "room  1", "door 1"]),
        ("doors", ["door 7"], ["door", "door x", "room 7"]),
    ],
)
def test_universe(naming: str, good: list[str], bad: list[str]) -> None:
    entities = NAMINGS[naming]
    assert all(entities.is_entity(e) for e in good)
    assert not any(entities.is_entity(e) for e in bad)
    with pytest.raises(ConfigError):
        entities.index(bad[0])


@given(st.sampled_from(list(NAMINGS)), st.integers(0, 800), st.integers(0, 2**63))
def test_draw_is_an_injective_seeded_map(naming: str, num_vars: int, seed: int) -> None:
    mapping = entity_map(naming, num_vars, seed=seed)
    assert len(mapping) == num_vars
    assert len(set(mapping)) == num_vars
    assert all(NAMINGS[naming].is_entity(e) for e in mapping)
    assert mapping == entity_map(naming, num_vars, seed=seed)
    if naming != "persons" or num_vars > len(first_names()):
        # letters, rooms and doors (and persons past the list) use the first num_vars entities
        assert sorted(NAMINGS[naming].index(e) for e in mapping) == list(range(num_vars))
    else:
        assert all(e in first_names() for e in mapping)


def test_mapping_depends_on_seed_and_copy() -> None:
    maps = {entity_map("persons", 20, seed=s, copy=c) for s in range(5) for c in range(3)}
    assert len(maps) == 15
    copies = fresh_mappings("letters", 30, 4, seed=9)
    assert copies[0] == entity_map("letters", 30, seed=9)
    assert len(set(copies)) == 4


def test_global_random_state_is_not_used() -> None:
    random.seed(1)
    first = entity_map("rooms", 50, seed=3)
    random.seed(2)
    assert entity_map("rooms", 50, seed=3) == first


def test_same_seed_same_mapping_in_another_process() -> None:
    code = (
        "from twosat_formal.verbalize.entities import entity_map;"
        "print('|'.join(entity_map('persons', 40, seed=123, copy=2)))"
    )
    out = python_stdout(code, env={"PYTHONHASHSEED": "77", "PATH": ""})
    assert out.strip() == "|".join(entity_map("persons", 40, seed=123, copy=2))


@pytest.mark.parametrize(
    ("vocabulary", "good", "foreign", "refusal"),
    [
        (NAMINGS["letters"], ("B", "A"), "room 1", "'room 1' is not a letters entity"),
        (THEMES.get("spy"), ("the pilot", "the cipher"), "the butler", "is not an entity"),
    ],
)
def test_validate_rejects_bad_mappings(
    vocabulary: Naming | Theme, good: tuple[str, str], foreign: str, refusal: str
) -> None:
    """Namings and story themes check an explicit mapping by the same rules."""
    assert vocabulary.validate(list(good), 2) == good
    with pytest.raises(ConfigError, match="2 entities given for 3"):
        vocabulary.validate(list(good), 3)
    with pytest.raises(ConfigError, match=f"entity '{good[0]}' is used twice"):
        vocabulary.validate([good[0], good[0]], 2)
    with pytest.raises(ConfigError, match=refusal):
        vocabulary.validate([good[0], foreign], 2)


def test_unknown_naming_and_negative_letter_index() -> None:
    with pytest.raises(ConfigError):
        entity_map("planets", 3)
    with pytest.raises(ConfigError):
        letter_name(-1)


_CLAUSES = st.lists(
    st.lists(st.tuples(st.sampled_from("ABCDEF"), st.booleans()), min_size=1, max_size=3),
    max_size=8,
)


@given(_CLAUSES, st.none() | st.lists(st.sampled_from("ABCDEF"), unique=True))
def test_entity_numbers_follow_first_appearance_or_the_given_entities(
    clauses: list[list[tuple[str, bool]]], given_entities: list[str] | None
) -> None:
    """Both readers number entities with EntityNumbers: checked against a plain count."""
    from twosat_formal.verbalize.entities import EntityNumbers

    named = [entity for clause in clauses for entity, _ in clause]
    order = list(dict.fromkeys(named)) if given_entities is None else given_entities
    numbers = EntityNumbers(given_entities)
    if not set(named) <= set(order):
        with pytest.raises(KeyError):
            for clause in clauses:
                numbers.clause(clause)
        return
    read = [numbers.clause(clause) for clause in clauses]
    assert numbers.order == order
    for clause, lits in zip(clauses, read, strict=True):
        assert lits == [(order.index(e) + 1) * (1 if pos else -1) for e, pos in clause]
