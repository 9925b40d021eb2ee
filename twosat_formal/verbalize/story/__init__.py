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
(:func:`write_story`, :func:`tell_stories`) is handed one and knows only the
:class:`~twosat_formal.model.Model` protocol.
:func:`twosat_formal.evaluate.stories.generate_stories` loads a model by its spec,
wraps it to retry and cache its calls, and hands it over.

Examples
--------
>>> THEMES.names()
['detective', 'spy', 'heist']
>>> story_statistics([]).to_json()["paper_first_attempt_rate"]
0.954
"""

from __future__ import annotations

from twosat_formal.verbalize.story.generator import (
    StoryItem,
    StorySettings,
    read_story_inputs,
    tell_stories,
    write_story,
)
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
    "StorySettings",
    "StoryStatistics",
    "Theme",
    "check_story_record",
    "fallback_sentence",
    "is_story_record",
    "parse_fallback",
    "prove_story",
    "read_stories",
    "read_story_inputs",
    "story_statistics",
    "tell_stories",
    "write_stories",
    "write_story",
]
