"""The story stage of a ``story`` experiment (§5.5, Figure 9): every base told as a story.

:func:`tell_experiment_stories` hands the base instances of the experiment to the LLM
story verbalizer (:func:`twosat_formal.evaluate.run.stories.generate_stories`), once per
theme of the spec, with the story model the run was given. The model's calls are
cached in the ``responses`` table of the experiment's run store, so a re-run asks it
nothing it answered before and writes the same stories. The records go to
``stories.jsonl``; the runner certifies them with the dataset and the prompts, and
asks the evaluated models their story prompts beside the template prompts of the
same formulas.

Every story of the experiment has the experiment's seed: its entity mapping is drawn
from ``(theme, seed)`` (:meth:`~twosat_formal.verbalize.story.themes.Theme.entities_for`)
and its introduction and clues are sampled with that seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from twosat_formal.core.model import DEFAULT_MODE, Model
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import parse_spec as parse_model_spec
from twosat_formal.evaluate.run.stories import generate_stories
from twosat_formal.evaluate.store import RunStore
from twosat_formal.io.instance import Instance
from twosat_formal.report.files import STORE_FILE, STORIES_FILE
from twosat_formal.study.experiments.spec import ExperimentSpec
from twosat_formal.verbalize.story.files import write_stories
from twosat_formal.verbalize.story.generator import StoryItem
from twosat_formal.verbalize.story.record import StoryRecord
from twosat_formal.verbalize.story.statistics import story_statistics

__all__ = ["check_story_model", "tell_experiment_stories"]


def check_story_model(spec: ExperimentSpec, story_model: str | Model | None) -> None:
    """Refuse a story experiment without a story model, or a model for another kind.

    >>> from twosat_formal.study.experiments.spec import load_spec
    >>> check_story_model(load_spec("story"), None)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: the story experiment needs --story-model SPEC, \
the model that writes the stories
    """
    if spec.kind == "story" and story_model is None:
        raise ConfigError(
            f"the {spec.name} experiment needs --story-model SPEC, the model that writes "
            "the stories",
            parameter="story_model",
            valid="a model spec (openai/<id>, llamacpp/...)",
        )
    if spec.kind != "story" and story_model is not None:
        raise ConfigError(
            f"--story-model is for a story experiment; {spec.name} is a {spec.kind} experiment",
            parameter="story_model",
        )
    if isinstance(story_model, str):
        parse_model_spec(story_model)


def tell_experiment_stories(
    instances: Sequence[Instance],
    spec: ExperimentSpec,
    story_model: str | Model,
    folder: Path,
    *,
    concurrency: int = 1,
    base_url: str | None = None,
    api_key_env: str | None = None,
    mode: str = DEFAULT_MODE,
    report: Callable[[str, str], None] | None = None,
) -> tuple[list[StoryRecord], dict[str, Any]]:
    """Tell every instance in every theme of ``spec``; write ``stories.jsonl``.

    Returns the records (theme by theme, each in instance order) and what the
    manifest records of the stage: the story model, the themes, the validation
    statistics beside the paper's, and the model calls made and reused.
    """
    items = [StoryItem(i.id, i.formula, i.label) for i in instances]
    name = story_model if isinstance(story_model, str) else story_model.spec
    if report is not None:
        report("stories", f"{len(items)} formulas x {len(spec.themes)} themes with {name}")
    with RunStore(folder / STORE_FILE):  # the cache's table goes into a run store
        pass
    run = generate_stories(
        items,
        spec.themes,
        story_model,
        folder / STORE_FILE,
        seed=spec.seed,
        concurrency=concurrency,
        base_url=base_url,
        api_key_env=api_key_env,
        mode=mode,
    )
    write_stories(run.records, folder / STORIES_FILE)
    info = {
        "model": name,
        "themes": list(spec.themes),
        "stories": len(run.records),
        "calls_made": run.calls_made,
        "calls_reused": run.calls_reused,
        "statistics": story_statistics(run.records).to_json(),
    }
    return run.records, info
