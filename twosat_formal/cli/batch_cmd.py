"""``twosat-formal batch prepare``: OpenAI Batch API (and vLLM run_batch) request files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import err_console, sub_app
from twosat_formal.cli.options import (
    MaxTokensOption,
    NoVerifyOption,
    RequestModeOption,
    SamplingSeedOption,
    TemperatureOption,
    TopPOption,
    model_option,
    out_option,
)
from twosat_formal.models.base import DEFAULT_MAX_TOKENS

__all__ = ["batch_app", "prepare_command"]

batch_app = sub_app("batch", "Batch API request files; their output goes to `score`.")


@batch_app.command("prepare")
def prepare_command(
    prompts: Annotated[
        Path,
        typer.Argument(
            metavar="PROMPTS",
            help="Prompt (or story) records, as `verbalize` writes them.",
            show_default=False,
        ),
    ],
    model: Annotated[
        str,
        model_option(
            "The model id the API serves (gpt-4o-mini; no openai/ prefix).",
            metavar="ID",
            show_default=False,
        ),
    ],
    out: Annotated[Path, out_option("The request file (JSON Lines).", False)],
    max_tokens: MaxTokensOption = DEFAULT_MAX_TOKENS,
    temperature: TemperatureOption = None,
    top_p: TopPOption = None,
    seed: SamplingSeedOption = None,
    samples: Annotated[
        int, typer.Option("--samples", min=1, help="Requests per prompt (custom_id ID#k).")
    ] = 1,
    mode: RequestModeOption = "chat",
    no_verify: NoVerifyOption = False,
) -> None:
    """Write one Batch API request per prompt: custom_id is the prompt id.

    Each prompt is first re-derived from the formula it reads back as (a story: from
    its attested text); one that differs stops the command (exit 2, nothing written),
    unless ``--no-verify``.
    """
    from twosat_formal.evaluate import (
        StoryPrompt,
        item_from_story,
        item_from_text,
        read_eval_prompts,
        verify_items,
    )
    from twosat_formal.integrations.batch import batch_requests
    from twosat_formal.jsonl import json_line, write_lines
    from twosat_formal.models.base import SamplingParams

    params = SamplingParams(max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed)
    records = list(read_eval_prompts(prompts))  # every line is read before anything is written
    if not no_verify:
        verify_items(
            [
                item_from_story(r) if isinstance(r, StoryPrompt) else item_from_text(r)
                for r in records
            ]
        )
    rows = batch_requests(records, model, params, samples=samples, mode=mode)
    count = write_lines((json_line(row) for row in rows), out)
    err_console.print(f"{count} requests written to {out}", markup=False)
