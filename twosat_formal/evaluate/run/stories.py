"""Stories told by a model named by its spec, each call retried and cached.

:func:`generate_stories` is what ``verbalize --story THEME --model SPEC`` runs: it
loads the model (:func:`twosat_formal.evaluate.models.load_model`), wraps it to retry
transient failures (:class:`~twosat_formal.evaluate.models.retry.RetryingModel`) and to answer
calls from the ``responses`` table of the store file
(:class:`~twosat_formal.evaluate.models.cache.CachedModel`), hands that model to the story
verbalizer (:func:`~twosat_formal.verbalize.story.generator.tell_stories`, which knows
the model protocol only) and closes it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from twosat_formal.core.model import DEFAULT_MODE, Model
from twosat_formal.evaluate.models.base import run_requests
from twosat_formal.evaluate.models.cache import CachedModel, ResponseCache
from twosat_formal.evaluate.models.retry import RetryingModel, RetryPolicy
from twosat_formal.verbalize.story.generator import StoryItem, StorySettings, tell_stories
from twosat_formal.verbalize.story.record import StoryRecord
from twosat_formal.verbalize.story.statistics import StoryStatistics, story_statistics
from twosat_formal.verbalize.story.themes import THEMES

__all__ = ["StoryRun", "generate_stories"]


@dataclass
class StoryRun:
    """What :func:`generate_stories` did: the records, and the calls made and reused."""

    records: list[StoryRecord] = field(default_factory=list)
    calls_made: int = 0
    calls_reused: int = 0

    def statistics(self) -> StoryStatistics:
        """:func:`~twosat_formal.verbalize.story.statistics.story_statistics` of the records."""
        return story_statistics(self.records)


def generate_stories(
    items: Sequence[StoryItem],
    theme: str | Sequence[str],
    model: str | Model,
    store: str | os.PathLike[str],
    *,
    seed: int = 0,
    settings: StorySettings | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int = 1,
    base_url: str | None = None,
    api_key_env: str | None = None,
    mode: str = DEFAULT_MODE,
) -> StoryRun:
    """Load the model ``model`` names, write one story per item, and release the model.

    Parameters
    ----------
    items, seed, settings, concurrency:
        As :func:`~twosat_formal.verbalize.story.generator.tell_stories`.
    theme:
        A story theme, or several: the records then come theme by theme, each in
        item order (one model serves them all).
    model:
        A model spec (``openai/<id>``, ``llamacpp/...``), or a model (it is closed
        at the end, like a loaded one).
    store:
        The SQLite file whose ``responses`` table caches the calls (created if needed).
    retry:
        Backoff for transient failures of one call (default
        :class:`~twosat_formal.evaluate.models.retry.RetryPolicy`), jitter seeded by ``seed``.
    base_url, api_key_env, mode:
        For ``openai/`` models (see :func:`twosat_formal.evaluate.models.load_model`).

    Raises
    ------
    EvaluationError
        A story could not be finished (the calls made so far are cached: run again).

    Examples
    --------
    Reference reasoners read template prompts only, so they cannot write stories; any
    ``openai/`` or ``llamacpp/`` model can (see the tests for a scripted server):

    >>> import tempfile, pathlib
    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula.from_named([["a", "~b"], ["b"]])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "calls.sqlite"
    >>> generate_stories([StoryItem("demo", f, "SAT")], "spy", "ref/oracle", path)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.EvaluationError: story:...: the introduction failed: reference \
reasoners read template verbalizations only; ...
    """
    from twosat_formal.evaluate.models import load_model

    themes = [theme] if isinstance(theme, str) else list(theme)
    for name in themes:  # an unknown theme fails before anything is opened or started
        THEMES.get(name)
    run = StoryRun()
    # Not entered as a context: a local model starts on its first call, so a run that
    # the cache answers completely never starts a server. Closed on every way out.
    loaded = (
        load_model(model, base_url=base_url, api_key_env=api_key_env, mode=mode)
        if isinstance(model, str)
        else model
    )
    with ResponseCache(store) as cache:
        cached = CachedModel(RetryingModel(loaded, retry, seed=seed), cache)
        try:
            told = _tell(items, themes, cached, seed, settings, concurrency)
            run.records = run_requests(told)
        finally:
            run.calls_made, run.calls_reused = cached.made, cached.reused
    return run


async def _tell(
    items: Sequence[StoryItem],
    themes: Sequence[str],
    model: CachedModel,
    seed: int,
    settings: StorySettings | None,
    concurrency: int,
) -> list[StoryRecord]:
    """The stories of ``items``, theme by theme, each in item order; ``model`` is closed
    at the end, however it comes."""
    try:
        records: list[StoryRecord] = []
        for name in themes:
            records += await tell_stories(
                items, name, model, seed=seed, settings=settings, concurrency=concurrency
            )
        return records
    finally:
        await model.aclose()
