"""The LLM story verbalizer (paper §4, App. G.3): clues written by a model, validated.

A model tells a formula as a story in one of three themes (:data:`THEMES`:
``detective``, ``spy``, ``heist``): an introduction, then one clue per clause. Each
clue is validated by two further calls that read its entities and their states back;
a clue that does not give back its clause is regenerated, up to three attempts, and
then replaced by a programmatic sentence. The :class:`StoryRecord` keeps every attempt
and the recovered formula, with a proof that it equals the source
(:func:`prove_story`, re-checked by :func:`check_story_record`).

:mod:`~twosat_formal.verbalize.story.themes` and
:mod:`~twosat_formal.verbalize.story.record` need no model; the generator
(:func:`write_story`, :func:`generate_stories`) calls models through the run store and
is imported on first use.

Examples
--------
>>> THEMES.names()
['detective', 'spy', 'heist']
>>> story_statistics([]).to_json()["paper_first_attempt_rate"]
0.954
>>> from twosat_formal.verbalize.story import generate_stories  # loads the generator
>>> generate_stories.__module__
'twosat_formal.verbalize.story.generator'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twosat_formal.verbalize.story.record import (
    MAX_ATTEMPTS,
    PAPER_FALLBACK_RATE,
    PAPER_FIRST_ATTEMPT_RATE,
    Attempt,
    ClueRecord,
    StoryRecord,
    StoryStatistics,
    check_story_record,
    fallback_sentence,
    is_story_record,
    parse_fallback,
    prove_story,
    read_stories,
    story_statistics,
    write_stories,
)
from twosat_formal.verbalize.story.themes import THEMES, StoryEntity, Theme

if TYPE_CHECKING:
    from twosat_formal.verbalize.story.generator import (
        StoryItem,
        StoryRun,
        StorySettings,
        generate_stories,
        read_story_inputs,
        write_story,
    )

__all__ = [
    "MAX_ATTEMPTS",
    "PAPER_FALLBACK_RATE",
    "PAPER_FIRST_ATTEMPT_RATE",
    "THEMES",
    "Attempt",
    "ClueRecord",
    "StoryEntity",
    "StoryItem",
    "StoryRecord",
    "StoryRun",
    "StorySettings",
    "StoryStatistics",
    "Theme",
    "check_story_record",
    "fallback_sentence",
    "generate_stories",
    "is_story_record",
    "parse_fallback",
    "prove_story",
    "read_stories",
    "read_story_inputs",
    "story_statistics",
    "write_stories",
    "write_story",
]

_GENERATOR = frozenset(
    {
        "StoryItem",
        "StoryRun",
        "StorySettings",
        "generate_stories",
        "read_story_inputs",
        "write_story",
    }
)


def __getattr__(name: str) -> Any:
    """The generator's names, imported on first use (it loads the model backends)."""
    if name in _GENERATOR:
        from twosat_formal.verbalize.story import generator

        return getattr(generator, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
