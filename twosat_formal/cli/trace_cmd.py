"""``twosat-formal trace STORE [--out FILE]``: check the claims of every stored answer.

Writes one JSON Lines row per stored answer to a template prompt: its ids, model,
label, failure kind, the claims read from its reasoning (text, form, kind, literals,
character span), the counts per kind, and coverage (see
:mod:`twosat_formal.evaluate.diagnostics.trace`). A summary line goes to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import (
    ApiKeyEnvOption,
    BaseUrlOption,
    ConcurrencyOption,
    ProgressOption,
    input_argument,
    out_option,
)
from twosat_formal.cli.progress import progress_callback

__all__ = ["trace"]


@app.command("trace")
def trace(
    store: Annotated[
        Path,
        input_argument("Run store (SQLite) written by eval.", "STORE"),
    ],
    out: Annotated[Path | None, out_option("Write the rows here.", "stdout")] = None,
    progress: ProgressOption = True,
    judge_model: Annotated[
        str | None,
        typer.Option(
            "--judge-model",
            metavar="SPEC",
            help="Also code each answer's reasoning quality with this model as the judge "
            "(LogicEdit's rubric) and report its agreement with the exact coding.",
            show_default="none",
        ),
    ] = None,
    base_url: BaseUrlOption = None,
    api_key_env: ApiKeyEnvOption = None,
    concurrency: ConcurrencyOption = 8,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", min=1, help="Token budget of each judge reply.")
    ] = 256,
    max_attempts: Annotated[
        int,
        typer.Option(
            "--max-attempts", min=1, help="Attempts per judge request on 429, 5xx, time-outs."
        ),
    ] = 6,
) -> None:
    """Check each claim of every stored answer's reasoning against the formula.

    Each row codes the answer's reasoning quality exactly (premise fidelity, inference
    validity, answer completion, answer alignment); with --judge-model a judge model
    codes it too, and the agreement of the two codings is printed as JSON on stderr.
    """
    from twosat_formal.evaluate.diagnostics.trace import trace_store

    target = out if out is not None else sys.stdout
    if judge_model is None:
        with progress_callback("tracing", enabled=progress) as advance:
            written = trace_store(store, target, progress=advance)
    else:
        from twosat_formal.core.model import SamplingParams
        from twosat_formal.evaluate.diagnostics.judge import judge_store
        from twosat_formal.evaluate.models import load_model
        from twosat_formal.evaluate.models.retry import RetryPolicy

        model = load_model(judge_model, base_url=base_url, api_key_env=api_key_env)
        with progress_callback("tracing", enabled=progress) as advance:
            written, agreement = judge_store(
                store,
                target,
                model,
                params=SamplingParams(max_tokens=max_tokens),
                concurrency=concurrency,
                progress=advance,
                retry=RetryPolicy(max_attempts=max_attempts),
            )
    if out is None:
        sys.stdout.flush()
    where = f" to {out}" if out is not None else ""
    err_console.print(f"wrote {written} trace rows{where}", markup=False)
    if judge_model is not None:
        line = json.dumps({"judge_model": judge_model, "agreement": agreement}, sort_keys=True)
        err_console.print(line, markup=False, soft_wrap=True)
