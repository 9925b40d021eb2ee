"""Story themes: entity vocabularies with true/false descriptions, and their wording.

Three themes are registered in :data:`THEMES`: ``detective``, ``spy`` and ``heist``
(paper §4), read from the data file ``themes.json`` beside this module. Each has

* an **entity vocabulary**: characters and objects of the genre, each with a *true
  description* and a *false description*, predicates that complete a sentence after the
  entity's name ("the butler" + "is the murderer" / "is innocent"). A variable that is
  true makes its entity's true description hold;
* the **wording** the generation prompts of App. G.3 use: the paper prints the
  detective prompts, and the spy and heist themes substitute their own writer, genre,
  scene and kind of reasoning into the same text.

Past the end of a vocabulary the entities repeat with a numeric suffix: entity number
``len(vocabulary) * k + i`` (0-based) is ``f"{names[i]} #{k + 1}"`` with the
descriptions of ``names[i]``, so every theme names formulas of any size.

Examples
--------
>>> theme = THEMES.get("detective")
>>> theme.describe("the butler")
('is the murderer', 'is innocent')
>>> theme.entity(len(theme.vocabulary) + 1)
'the gardener #2'
>>> theme.describe("the gardener #2")
('lied to the police', 'told the truth')
>>> names = theme.entities_for(3, seed=5)
>>> names == theme.entities_for(3, seed=5), len(set(names))
(True, 3)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from twosat_formal._util.registry import Registry
from twosat_formal.core.jsonread import loads
from twosat_formal.core.seeds import seeded_rng
from twosat_formal.errors import ConfigError
from twosat_formal.verbalize.entities import check_mapping

__all__ = ["THEMES", "StoryEntity", "Theme"]

_SUFFIX = re.compile(r"(.+) #([1-9][0-9]*)\Z")


@dataclass(frozen=True)
class StoryEntity:
    """One entity of a theme: its name and the two states it can be in.

    >>> StoryEntity("the letter", "is forged", "is genuine").false_description
    'is genuine'
    """

    name: str
    true_description: str
    false_description: str


@dataclass(frozen=True)
class Theme:
    """A story theme: the vocabulary and the genre words of the generation prompts.

    Attributes
    ----------
    name:
        The registry name.
    writer:
        Who the model is asked to be (Step 1: "You are a {writer}.").
    story:
        The genre of the introduction (Step 1: "introduction for a {story}.").
    scene:
        What the introduction sets up (Step 1: "Set the scene for a {scene}").
    short:
        How the clue prompt names the story (Step 2: "for our {short}.").
    reasoning:
        How a clue conveys its rule (Step 2: "logical rule through {reasoning}."); it
        contains the paper's line break.
    vocabulary:
        The entities, in canonical order.
    """

    name: str
    writer: str
    story: str
    scene: str
    short: str
    reasoning: str
    vocabulary: tuple[StoryEntity, ...]

    def __post_init__(self) -> None:
        names = [e.name for e in self.vocabulary]
        if len(set(names)) != len(names) or not names:
            raise ConfigError(f"theme {self.name!r} needs distinct entity names")
        for e in self.vocabulary:
            if e.true_description == e.false_description or _SUFFIX.match(e.name):
                raise ConfigError(f"theme {self.name!r}: entity {e.name!r} is ill-formed")

    def entity(self, index: int) -> str:
        """Entity number ``index`` (0-based) of the canonical enumeration.

        >>> t = THEMES.get("heist")
        >>> t.entity(0), t.entity(len(t.vocabulary)), t.entity(2 * len(t.vocabulary))
        ('the guard', 'the guard #2', 'the guard #3')
        """
        if index < 0:
            raise ConfigError(f"entity index {index} is negative", parameter="index", valid=">= 0")
        size = len(self.vocabulary)
        base = self.vocabulary[index % size].name
        return base if index < size else f"{base} #{index // size + 1}"

    def lookup(self, name: str) -> StoryEntity:
        """The entity called ``name`` (suffixed names included), with its descriptions.

        Raises :class:`~twosat_formal.errors.ConfigError` for a name outside the theme.

        >>> THEMES.get("spy").lookup("the courier #3").false_description
        'delivered the package'
        """
        base, suffix = name, None
        match = _SUFFIX.match(name)
        if match:
            base, suffix = match.group(1), int(match.group(2))
        for entity in self.vocabulary:
            if entity.name == base and suffix != 1:
                return StoryEntity(name, entity.true_description, entity.false_description)
        raise ConfigError(
            f"{name!r} is not an entity of the {self.name} theme",
            parameter="entities",
            valid=f"{self.vocabulary[0].name}, ..., or a name with a suffix ' #2', ' #3', ...",
        )

    def describe(self, name: str) -> tuple[str, str]:
        """``(true_description, false_description)`` of the entity called ``name``."""
        entity = self.lookup(name)
        return entity.true_description, entity.false_description

    def entities_for(self, num_vars: int, *, seed: int = 0) -> tuple[str, ...]:
        """A seeded variable → entity mapping: the entity of variable ``v`` at ``v - 1``.

        The entities are drawn without repetition from the first
        ``max(num_vars, len(vocabulary))`` entities of the canonical enumeration with a
        :class:`random.Random` derived from ``(theme, seed)`` through SHA-256, so a seed
        gives the same mapping in every process.

        >>> t = THEMES.get("spy")
        >>> len(set(t.entities_for(150, seed=1)))
        150
        """
        if num_vars < 0:
            raise ConfigError(
                f"num_vars must be >= 0, got {num_vars}", parameter="num_vars", valid=">= 0"
            )
        rng = seeded_rng("twosat-formal/story", self.name, int(seed), sep="/", bits=64)
        pool = [self.entity(i) for i in range(max(num_vars, len(self.vocabulary)))]
        return tuple(rng.sample(pool, num_vars))

    def validate(self, entities: Sequence[str], num_vars: int) -> tuple[str, ...]:
        """Check an explicit mapping: ``num_vars`` distinct entities of this theme.

        >>> THEMES.get("detective").validate(["the maid", "the maid"], 2)
        Traceback (most recent call last):
        ...
        twosat_formal.errors.ConfigError: entity 'the maid' is used twice
        """
        return check_mapping(entities, num_vars, self.lookup)


def _load(registry: Registry[Theme]) -> None:
    """Register the themes of ``themes.json`` (beside this module), in its order."""
    text = (
        resources.files("twosat_formal.verbalize.story")
        .joinpath("themes.json")
        .read_text(encoding="utf-8")
    )
    for name, spec in loads(text, source="themes.json").items():
        vocabulary = tuple(StoryEntity(*row) for row in spec.pop("vocabulary"))
        registry.add(name, Theme(name=name, vocabulary=vocabulary, **spec))


#: Theme name → :class:`Theme`.
THEMES: Registry[Theme] = Registry("story theme")
_load(THEMES)
