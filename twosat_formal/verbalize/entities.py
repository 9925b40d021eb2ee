"""Entity naming: which word stands for which variable in a verbalized formula.

Four namings serve the six schemes of App. G.1, Table 2, and a fifth the formats:

``letters``
    ``A``, ``B``, …, ``Z``, ``AA``, ``AB``, … (bijective base 26; scheme ``logic``).
``persons``
    First names from ``twosat_formal/data/first_names.txt`` (schemes ``letter``, ``team``,
    ``social``). Past the end of the list the names repeat with a numeric suffix:
    entity number ``len(list) * k + i`` is ``f"{names[i]}{k + 1}"`` (``Aaron2``, …).
``rooms`` / ``doors``
    ``room 1``, ``room 2``, … and ``door 1``, ``door 2``, ….
``symbols``
    ``x1``, ``x2``, …: the symbol names of the formats ``math``, ``math-latex`` and
    ``dimacs`` (printed there as ``x₁``, ``x_{1}`` and ``1``).

Each naming has a *universe* of well-formed entities (the words a back-parser accepts
without an entity map) and a canonical enumeration of it. The variable → entity
mapping is drawn with an explicit :class:`random.Random` derived from ``(seed, copy)``
through SHA-256, so a seed gives the same mapping in every process; each ``copy``
gives a fresh, independent mapping (the duplication study verbalizes several copies
of one formula, each under its own names).

Examples
--------
>>> letter_name(0), letter_name(25), letter_name(26), letter_name(701), letter_name(702)
('A', 'Z', 'AA', 'ZZ', 'AAA')
>>> NAMINGS["rooms"].entity(2), NAMINGS["rooms"].identifier("room 3")
('room 3', 'room_3')
>>> entity_map("letters", 3, seed=7) == entity_map("letters", 3, seed=7)
True
>>> sorted(entity_map("letters", 3, seed=7))
['A', 'B', 'C']
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache, partial

from twosat_formal.core.seeds import seeded_rng
from twosat_formal.errors import ConfigError
from twosat_formal.resources import data_text

__all__ = [
    "NAMINGS",
    "EntityNumbers",
    "Naming",
    "check_mapping",
    "entity_map",
    "first_names",
    "fresh_mappings",
    "letter_index",
    "letter_name",
    "mapping_rng",
    "person_name",
]

_PERSON = re.compile(r"([A-Z][a-z]+)([1-9][0-9]*)?\Z")
_LETTERS = re.compile(r"[A-Z]+\Z")
_NUMBER = re.compile(r"[1-9][0-9]*")


class EntityNumbers:
    """The variable of each entity a verbalization names: those of ``entities`` when
    given (entity ``k``, 1-based, is variable ``k``), else numbered in order of first
    appearance (``order`` grows as clauses are read).

    >>> numbers = EntityNumbers(None)
    >>> numbers.clause([("B", True), ("A", False)]), numbers.clause([("A", True)]), numbers.order
    ([1, -2], [2], ['B', 'A'])
    >>> EntityNumbers(["A"]).clause([("B", True)])
    Traceback (most recent call last):
    KeyError: 'B'
    """

    def __init__(self, entities: Sequence[str] | None) -> None:
        self.order: list[str] = [] if entities is None else list(entities)
        self._open = entities is None
        self._index = {entity: v for v, entity in enumerate(self.order, 1)}

    def clause(self, literals: Iterable[tuple[str, bool]]) -> list[int]:
        """The clause of ``(entity, positive)`` pairs; an entity outside the given
        ``entities`` raises :class:`KeyError` with its name."""
        clause = []
        for entity, positive in literals:
            var = self._index.get(entity)
            if var is None:
                if not self._open:
                    raise KeyError(entity)
                self.order.append(entity)
                var = self._index[entity] = len(self.order)
            clause.append(var if positive else -var)
        return clause


@cache
def first_names() -> tuple[str, ...]:
    """The shipped list of first names, in file order.

    >>> names = first_names()
    >>> len(names) >= 300, names[0]
    (True, 'Aaron')
    """
    names = tuple(line.strip() for line in data_text("first_names.txt").splitlines())
    return tuple(name for name in names if name)


def letter_name(index: int) -> str:
    """Entity ``index`` (0-based) of the letter naming: bijective base 26.

    >>> [letter_name(i) for i in (0, 1, 25, 26, 27, 52)]
    ['A', 'B', 'Z', 'AA', 'AB', 'BA']
    """
    if index < 0:
        raise ConfigError(f"entity index {index} is negative", parameter="index", valid=">= 0")
    digits = []
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        digits.append(chr(ord("A") + rem))
    return "".join(reversed(digits))


def letter_index(name: str) -> int:
    """The inverse of :func:`letter_name`.

    >>> letter_index("A"), letter_index("AA"), letter_index("ZZ")
    (0, 26, 701)
    """
    if not _LETTERS.match(name):
        raise ConfigError(f"{name!r} is not a letter entity", parameter="name", valid="A..Z, AA..")
    n = 0
    for char in name:
        n = n * 26 + (ord(char) - ord("A") + 1)
    return n - 1


def person_name(index: int) -> str:
    """Entity ``index`` (0-based) of the person naming; suffixes ``2``, ``3``, … past the list.

    >>> n = len(first_names())
    >>> person_name(0), person_name(n), person_name(2 * n + 1)
    ('Aaron', 'Aaron2', 'Abigail3')
    """
    if index < 0:
        raise ConfigError(f"entity index {index} is negative", parameter="index", valid=">= 0")
    names = first_names()
    round_, position = divmod(index, len(names))
    return names[position] + (str(round_ + 1) if round_ else "")


def _split_person(entity: str) -> tuple[str, str | None]:
    """A person entity's listed name and its suffix (``None`` without one)."""
    match = _PERSON.match(entity)
    if match is None:
        raise ConfigError(f"{entity!r} is not a person entity", parameter="entity")
    return match.group(1), match.group(2)


@cache
def _person_positions() -> dict[str, int]:
    return {name: i for i, name in enumerate(first_names())}


@lru_cache(maxsize=1 << 16)
def _numbered(naming: str, noun: str, index: int) -> str:
    """:meth:`Naming.entity`, remembered (a pure function; every mapping draws again)."""
    if naming == "letters":
        return letter_name(index)
    if naming == "persons":
        return person_name(index)
    if index < 0:
        raise ConfigError(f"entity index {index} is negative", parameter="index", valid=">= 0")
    if naming == "symbols":
        return f"{noun}{index + 1}"
    return f"{noun} {index + 1}"


@lru_cache(maxsize=1 << 16)
def _well_formed(naming: str, noun: str, text: str) -> bool:
    """:meth:`Naming.is_entity`, remembered (a pure function; prompts repeat entities)."""
    if naming == "letters":
        return bool(_LETTERS.match(text))
    if naming == "persons":
        match = _PERSON.match(text)
        return match is not None and match.group(1) in _person_positions() and match.group(2) != "1"
    if naming == "symbols":
        return text.startswith(noun) and bool(_NUMBER.fullmatch(text[len(noun) :]))
    word, _, number = text.partition(" ")
    return word == noun and bool(_NUMBER.fullmatch(number))


def check_mapping(
    entities: Sequence[str], num_vars: int, require: Callable[[str], object]
) -> tuple[str, ...]:
    """An explicit entity mapping, checked: ``num_vars`` entities, each accepted, none twice.

    ``require`` raises :class:`~twosat_formal.errors.ConfigError` for an entity outside
    the vocabulary (a naming's pattern, a story theme's entities); what it returns is
    not used.

    Examples
    --------
    >>> check_mapping(["B", "A"], 2, NAMINGS["letters"].index)
    ('B', 'A')
    >>> check_mapping(["A", "A"], 2, NAMINGS["letters"].index)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: entity 'A' is used twice
    """
    entities = tuple(entities)
    if len(entities) != num_vars:
        raise ConfigError(
            f"{len(entities)} entities given for {num_vars} variables",
            parameter="entities",
            valid=f"exactly {num_vars}",
        )
    for entity in entities:
        require(entity)
    seen: set[str] = set()
    for entity in entities:
        if entity in seen:
            raise ConfigError(f"entity {entity!r} is used twice", parameter="entities")
        seen.add(entity)
    return entities


@dataclass(frozen=True)
class Naming:
    """One entity naming: its enumeration, its universe and its identifier form.

    Parameters
    ----------
    name:
        ``"letters"``, ``"persons"``, ``"rooms"``, ``"doors"`` or ``"symbols"``.
    noun:
        For ``rooms`` / ``doors``, the word before the number and a space (``"room"``);
        for ``symbols``, the letter before the number without a space (``"x"``); else
        ``""``.

    Examples
    --------
    >>> NAMINGS["persons"].is_entity("Alice"), NAMINGS["persons"].is_entity("Alice1")
    (True, False)
    >>> NAMINGS["doors"].is_entity("door 4"), NAMINGS["doors"].is_entity("door 04")
    (True, False)
    """

    name: str
    noun: str = ""

    def entity(self, index: int) -> str:
        """Entity number ``index`` (0-based) of the canonical enumeration."""
        return _numbered(self.name, self.noun, index)

    def index(self, entity: str) -> int:
        """The position of ``entity`` in the canonical enumeration (its inverse)."""
        if not self.is_entity(entity):
            raise ConfigError(
                f"{entity!r} is not a {self.name} entity", parameter="entity", valid=self.pattern
            )
        if self.name == "letters":
            return letter_index(entity)
        if self.name == "persons":
            base, suffix = _split_person(entity)
            return _person_positions()[base] + (int(suffix) - 1 if suffix else 0) * len(
                first_names()
            )
        if self.name == "symbols":
            return int(entity[len(self.noun) :]) - 1
        return int(entity.split(" ", 1)[1]) - 1

    def is_entity(self, text: str) -> bool:
        """Whether ``text`` is a well-formed entity of this naming (its universe).

        Persons: a listed first name, optionally with a suffix ``2``, ``3``, …; letters:
        ``[A-Z]+``; rooms and doors: the noun, one space, a number ``>= 1`` without
        leading zeros; symbols: the noun and such a number without a space.
        """
        return _well_formed(self.name, self.noun, text)

    def are_entities(self, texts: Iterable[str]) -> bool:
        """Whether every one of ``texts`` :meth:`is_entity` (one call for many).

        >>> persons, letters = NAMINGS["persons"], NAMINGS["letters"]
        >>> persons.are_entities(["Alice", "Bob2"]), letters.are_entities(["A", "b"])
        (True, False)
        """
        return all(map(partial(_well_formed, self.name, self.noun), texts))

    @property
    def pattern(self) -> str:
        """A human description of the universe (for error messages)."""
        return {
            "letters": "A..Z, AA, AB, ...",
            "persons": "a listed first name, optionally followed by 2, 3, ...",
            "symbols": f"{self.noun}1, {self.noun}2, ...",
        }.get(self.name, f"{self.noun} 1, {self.noun} 2, ...")

    @property
    def regex(self) -> str:
        """A regular expression every well-formed entity matches (no groups).

        Exactly the universe for letters, rooms and doors; for persons any capitalized
        word with an optional suffix, of which :meth:`is_entity` accepts the listed
        names (and no suffix ``1``).

        >>> import re
        >>> bool(re.fullmatch(NAMINGS["rooms"].regex, "room 12")), NAMINGS["doors"].regex
        (True, 'door [1-9][0-9]*')
        """
        if self.name == "letters":
            return "[A-Z]+"
        if self.name == "persons":
            return "[A-Z][a-z]+(?:[1-9][0-9]*)?"
        if self.name == "symbols":
            return re.escape(self.noun) + "[1-9][0-9]*"
        return re.escape(self.noun) + " [1-9][0-9]*"

    def identifier(self, entity: str) -> str:
        """The variable name that stands for ``entity`` in a back-parsed formula.

        Letters, person names and symbols are identifiers already; ``room 3`` becomes
        ``room_3``.
        """
        return entity.replace(" ", "_")

    def draw(self, num_vars: int, rng: random.Random) -> tuple[str, ...]:
        """A random injective mapping: entity of variable ``v`` at index ``v - 1``.

        Letters, rooms, doors and symbols permute the first ``num_vars`` entities; persons draw
        ``num_vars`` distinct entities from the list (and the suffixed names once the
        list runs out).
        """
        if num_vars < 0:
            raise ConfigError("num_vars is negative", parameter="num_vars", valid=">= 0")
        pool = max(num_vars, len(first_names())) if self.name == "persons" else num_vars
        return tuple(
            map(partial(_numbered, self.name, self.noun), rng.sample(range(pool), num_vars))
        )

    def canonical(self, num_vars: int) -> tuple[str, ...]:
        """The identity mapping: variable ``v`` gets entity number ``v - 1``.

        >>> NAMINGS["letters"].canonical(3)
        ('A', 'B', 'C')
        """
        return tuple(self.entity(i) for i in range(num_vars))

    def validate(self, entities: Sequence[str], num_vars: int) -> tuple[str, ...]:
        """Check a caller's mapping: one distinct, well-formed entity per variable."""
        return check_mapping(entities, num_vars, self._require)

    def _require(self, entity: str) -> None:
        if not self.is_entity(entity):
            raise ConfigError(
                f"{entity!r} is not a {self.name} entity", parameter="entities", valid=self.pattern
            )


#: The five namings, by name.
NAMINGS: dict[str, Naming] = {
    "letters": Naming("letters"),
    "persons": Naming("persons"),
    "rooms": Naming("rooms", "room"),
    "doors": Naming("doors", "door"),
    "symbols": Naming("symbols", "x"),
}


def mapping_rng(seed: int, copy: int = 0) -> random.Random:
    """The generator that draws the mapping for ``(seed, copy)``; same in every process.

    >>> mapping_rng(1).random() == mapping_rng(1).random() != mapping_rng(1, copy=1).random()
    True
    """
    return seeded_rng("twosat-formal/entities", int(seed), int(copy), sep="/", bits=64)


def _naming(naming: str | Naming) -> Naming:
    if isinstance(naming, Naming):
        return naming
    try:
        return NAMINGS[naming]
    except KeyError:
        raise ConfigError(
            f"unknown naming {naming!r}", parameter="naming", valid=", ".join(NAMINGS)
        ) from None


def entity_map(
    naming: str | Naming, num_vars: int, *, seed: int = 0, copy: int = 0
) -> tuple[str, ...]:
    """The seeded variable → entity mapping (entity of variable ``v`` at index ``v - 1``).

    Parameters
    ----------
    naming:
        A :class:`Naming` or its name.
    num_vars:
        How many variables to name.
    seed:
        The seed of the draw.
    copy:
        Which copy of the formula is named: every copy draws a fresh mapping.

    Examples
    --------
    >>> m = entity_map("rooms", 4, seed=3)
    >>> sorted(m, key=lambda e: int(e.split()[1]))
    ['room 1', 'room 2', 'room 3', 'room 4']
    """
    return _drawn(_naming(naming), num_vars, int(seed), int(copy))


@lru_cache(maxsize=256)
def _drawn(naming: Naming, num_vars: int, seed: int, copy: int) -> tuple[str, ...]:
    """:func:`entity_map`, remembered: the schemes of one naming draw the same mapping."""
    return naming.draw(num_vars, mapping_rng(seed, copy))


def fresh_mappings(
    naming: str | Naming, num_vars: int, copies: int, *, seed: int = 0
) -> list[tuple[str, ...]]:
    """One freshly drawn mapping per copy (copy ``k`` is ``entity_map(..., copy=k)``).

    >>> maps = fresh_mappings("persons", 5, 3, seed=1)
    >>> len(maps), maps[0] == entity_map("persons", 5, seed=1)
    (3, True)
    """
    if copies < 0:
        raise ConfigError("copies is negative", parameter="copies", valid=">= 0")
    return [entity_map(naming, num_vars, seed=seed, copy=k) for k in range(copies)]
