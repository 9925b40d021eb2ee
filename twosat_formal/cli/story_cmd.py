"""The story verbalizer on the command line: ``verbalize --story`` and ``story-stats``.

``verbalize INPUT --story THEME --model SPEC [--seed S] [--store FILE] [--out FILE.jsonl]``
    (options of the ``verbalize`` command, which hands over to :func:`verbalize_story`)
    A formula file prints its story prompt, or writes its story record with ``--out``;
    a dataset writes one story record per instance, to stdout or ``--out``. Every model
    call goes through the run store ``--store``, so an interrupted run resumes.
``story-stats FILE.jsonl [--json]``
    The first-attempt validation rate and the fallback rate of story records, beside
    the paper's.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import app, err_console, out_console
from twosat_formal.cli.options import input_argument, json_option
from twosat_formal.cli.output import print_json, story_rates
from twosat_formal.errors import ConfigError

__all__ = [
    "DEFAULT_STORE",
    "require_template",
    "story_stats_command",
    "verbalize_story",
]

#: The run store of story calls when ``--store`` is not given.
DEFAULT_STORE = Path("story-calls.sqlite")


def require_template(template: str | None) -> str:
    """The ``--template`` of a template verbalization (it is required without ``--story``)."""
    if template is None:
        raise ConfigError(
            "give --template NAME (or 'all'), or --story THEME with --model SPEC",
            parameter="template",
            valid="a template name, 'all', or --story THEME --model SPEC",
        )
    return template


def verbalize_story(
    input_path: str,
    theme: str | None,
    model: str | None,
    *,
    template: str | None,
    seed: int,
    out: Path | None,
    store: Path | None,
) -> None:
    """What ``verbalize --story THEME --model SPEC`` does (see the module docstring)."""
    from twosat_formal.evaluate.run.stories import generate_stories
    from twosat_formal.verbalize.story import read_story_inputs, write_stories

    if template is not None:
        raise ConfigError("--template and --story exclude each other", parameter="story")
    if theme is None or model is None:
        raise ConfigError(
            "a story needs both --story THEME and --model SPEC",
            parameter="story" if theme is None else "model",
            valid="--story detective|spy|heist --model SPEC",
        )
    items, dataset = read_story_inputs(input_path)
    store_path = store if store is not None else DEFAULT_STORE
    run = generate_stories(items, theme, model, store_path, seed=seed)
    if out is not None:
        written = write_stories(run.records, out)
        err_console.print(f"wrote {written} stories to {out}", markup=False)
    elif dataset:
        write_stories(run.records, sys.stdout)
    else:
        typer.echo(run.records[0].text)
    stats = run.statistics()
    err_console.print(
        f"{stats.llm_clauses} clauses through validation: "
        f"{story_rates(stats.first_attempt_rate, stats.fallback_rate)}; {run.calls_made} "
        f"model calls made, {run.calls_reused} reused from {store_path}",
        markup=False,
    )


@app.command("story-stats")
def story_stats_command(
    stories: Annotated[str, input_argument("Story records (JSON Lines, - for stdin).", "FILE")],
    as_json: Annotated[bool, json_option("Print the statistics as one JSON object.")] = False,
) -> None:
    """First-attempt validation rate and fallback rate of story records, beside the paper's."""
    from twosat_formal.verbalize.story import read_stories, story_statistics

    stats = story_statistics(read_stories(stories))
    if as_json:
        print_json(stats.to_json())
        return
    out_console.print(
        f"{stats.stories} stories, {stats.clauses} clauses ({stats.llm_clauses} through "
        f"validation, {stats.direct} direct), {stats.attempts} attempts",
        markup=False,
    )
    out_console.print(stats.to_markdown(), markup=False)
