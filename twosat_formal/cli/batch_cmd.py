"""``twosat-formal batch prepare``: OpenAI Batch API (and vLLM run_batch) request files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from twosat_formal.cli.app import err_console, sub_app
from twosat_formal.cli.options import (
    MaxTokensOption,
    NoVerifyOption,
    RequestModeOption,
    SamplingOptions,
    dataset_option,
    input_argument,
    model_option,
    option_groups,
    out_option,
)
from twosat_formal.evaluate.models.base import DEFAULT_MAX_TOKENS
from twosat_formal.integrations.batch import MAX_BYTES, MAX_REQUESTS

if TYPE_CHECKING:  # read when the command runs, not for --help
    from twosat_formal.evaluate.run import Verification

__all__ = ["batch_app", "prepare_command"]

batch_app = sub_app("batch", "Batch API request files; their output goes to `score`.")


@batch_app.command("prepare")
@option_groups
def prepare_command(
    prompts: Annotated[
        Path,
        input_argument("Prompt (or story) records, as `verbalize` writes them.", "PROMPTS"),
    ],
    model: Annotated[
        str,
        model_option(
            "The model id the API serves (gpt-4o-mini), or an openai/ spec whose "
            "options go into every body (openai/gpt-4o-mini?max_tokens=100&temperature=0).",
            metavar="ID",
            show_default=False,
        ),
    ],
    out: Annotated[
        Path,
        out_option(
            "The request file (JSON Lines); over a file's limits, numbered parts "
            "OUT.part1.jsonl, OUT.part2.jsonl...",
            False,
        ),
    ],
    max_tokens: MaxTokensOption = DEFAULT_MAX_TOKENS,
    sampling: SamplingOptions = SamplingOptions(),
    samples: Annotated[
        int, typer.Option("--samples", min=1, help="Requests per prompt (custom_id ID#k).")
    ] = 1,
    mode: RequestModeOption = "chat",
    max_requests: Annotated[
        int,
        typer.Option("--max-requests", min=1, help="Requests per file (the Batch API's limit)."),
    ] = MAX_REQUESTS,
    max_bytes: Annotated[
        int,
        typer.Option("--max-bytes", min=1, help="Bytes per file (the Batch API's 200 MB)."),
    ] = MAX_BYTES,
    no_verify: NoVerifyOption = False,
    dataset: Annotated[
        Path | None,
        dataset_option(
            "Instances (JSON Lines) the prompts verbalize: each prompt and its instance "
            "get `certify`'s checks. Without it, each prompt is re-derived from the "
            "formula read back from it."
        ),
    ] = None,
) -> None:
    """Write one Batch API request per prompt: custom_id is the prompt id.

    Every prompt is first checked as `eval` checks it (with --dataset: `certify`'s
    checks on it, its instance and the records that names; else re-derived from the
    formula it reads back as, a story from its attested text); a failure stops the
    command (exit 2, nothing written), unless ``--no-verify``.
    """
    from twosat_formal.cli.eval_cmd import verification_line
    from twosat_formal.integrations.batch import batch_model, batch_requests, write_batch

    params = sampling.params(max_tokens)
    batch_model(model, params, mode)  # a bad model or option fails before the prompts are read
    records, verification = _gated_records(prompts, dataset, no_verify)
    rows = batch_requests(records, model, params, samples=samples, mode=mode)
    files = write_batch(rows, out, max_requests=max_requests, max_bytes=max_bytes)
    said = verification_line(verification).removeprefix("verified").strip()
    for path, count in files:
        err_console.print(f"{count} requests written to {path} (verified {said})", markup=False)


def _gated_records(
    prompts: Path, dataset: Path | None, no_verify: bool
) -> tuple[list[Any], Verification]:
    """The prompt (or story) records of ``prompts``, every line read, and what the gate
    checked on them (nothing with ``no_verify``: no formula is read back from them)."""
    from twosat_formal.evaluate.gate import gate_items
    from twosat_formal.evaluate.run import Verification, load_items, read_eval_prompts
    from twosat_formal.io.jsonl import rereadable, rereadable_or_none

    # every line is read before anything is written; a dataset from stdin twice too
    with rereadable(prompts) as (prompt_file, _), rereadable_or_none(dataset) as data:
        if no_verify:
            return list(read_eval_prompts(prompt_file)), Verification(0, skipped=True)
        items = load_items(prompt_file, dataset=data)
        verification = gate_items(
            items, prompts=prompt_file, dataset=data, action="nothing was written"
        )
    return [item.prompt for item in items], verification
