"""The LLM story verbalizer (paper §4, App. G.3): clues written by a model, validated.

A model tells a formula as a story in one of three themes (:data:`THEMES`:
``detective``, ``spy``, ``heist``): an introduction, then one clue per clause. Each
clue is validated by two further calls that read its entities and their states back;
a clue that does not give back its clause is regenerated, up to three attempts, and
then replaced by a programmatic sentence. The :class:`StoryRecord` keeps every attempt
and the recovered formula, with a proof that it equals the source
(:func:`prove_story`, re-checked by :func:`check_story_record`).

One module per job: :mod:`~twosat_formal.verbalize.story.themes` (the vocabularies
and the prompts' genre words), :mod:`~twosat_formal.verbalize.story.generator` (the
conversation with the model), :mod:`~twosat_formal.verbalize.story.replies` (reading
the validator's replies, judging an attempt),
:mod:`~twosat_formal.verbalize.story.sentences` (the fallback sentence and the story
text), :mod:`~twosat_formal.verbalize.story.record` (the record, its id and JSON
form), :mod:`~twosat_formal.verbalize.story.proof` (the round-trip proof),
:mod:`~twosat_formal.verbalize.story.statistics` (validation rates beside the
paper's), :mod:`~twosat_formal.verbalize.story.files` (JSON Lines),
:mod:`~twosat_formal.verbalize.story.reading` (a story prompt read literally) and
:mod:`~twosat_formal.verbalize.story.revalidate` (asking a validator again). Only the
generator and the revalidation call a model; they are handed one and know only the
:class:`~twosat_formal.core.model.Model` protocol.
:func:`twosat_formal.evaluate.run.stories.generate_stories` loads a model by its spec,
wraps it to retry and cache its calls, and hands it over.

Examples
--------
>>> THEMES.names()
['detective', 'spy', 'heist']
>>> story_statistics([]).to_json()["paper_first_attempt_rate"]
0.954
"""

from __future__ import annotations

from twosat_formal.verbalize.story.files import read_stories, write_stories
from twosat_formal.verbalize.story.generator import (
    StoryItem,
    StorySettings,
    read_story_inputs,
    tell_stories,
    write_story,
)
from twosat_formal.verbalize.story.proof import check_story_record, prove_story
from twosat_formal.verbalize.story.record import (
    MAX_ATTEMPTS,
    Attempt,
    ClueRecord,
    StoryRecord,
    is_story_record,
)
from twosat_formal.verbalize.story.sentences import fallback_sentence, parse_fallback
from twosat_formal.verbalize.story.statistics import (
    PAPER_FALLBACK_RATE,
    PAPER_FIRST_ATTEMPT_RATE,
    StoryStatistics,
    story_statistics,
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
