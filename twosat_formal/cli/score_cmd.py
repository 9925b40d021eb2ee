"""``twosat-formal score``: judge answers produced elsewhere (batch APIs, vLLM, lm-eval)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from twosat_formal.cli.app import app, err_console
from twosat_formal.cli.options import (
    NoVerifyOption,
    ProgressOption,
    SummaryJsonOption,
    dataset_option,
    input_argument,
    model_option,
    out_option,
    store_option,
)
from twosat_formal.cli.output import print_json, print_lines
from twosat_formal.cli.progress import with_progress

if TYPE_CHECKING:  # read when the command runs, not for --help
    from twosat_formal.evaluate.run import Verification
    from twosat_formal.integrations.rescore import ScoreSummary

__all__ = ["score_command"]


@app.command("score")
def score_command(
    responses: Annotated[
        Path,
        input_argument(
            "Answers: plain rows (prompt_id, response, finish_reason, model, sample), "
            "an OpenAI Batch API output file, or lm-eval --log_samples output.",
            "RESPONSES",
        ),
    ],
    prompts: Annotated[
        Path,
        typer.Option(
            "--prompts",
            help="The prompt (or story) records the answers reply to.",
            show_default=False,
        ),
    ],
    out: Annotated[Path, out_option("Scored rows (JSON Lines).", False)],
    dataset: Annotated[
        Path | None,
        dataset_option(
            "Instances (JSON Lines) the prompts verbalize; each prompt, its instance and "
            "the records it names get certify's checks first. Without it, formulas are "
            "read back from the prompts and solved."
        ),
    ] = None,
    model: Annotated[
        str | None,
        model_option("Model name of every answer (default: what each line says).", metavar="NAME"),
    ] = None,
    store: Annotated[
        Path | None, store_option("Also keep the results in this run store, for `report`.", "none")
    ] = None,
    as_json: SummaryJsonOption = False,
    progress: ProgressOption = True,
    no_verify: NoVerifyOption = False,
) -> None:
    """Score answers produced elsewhere exactly as `eval` scores its own.

    Every record a judgement depends on is checked first, as `eval` checks it (with
    --dataset: `certify`'s checks on each prompt and its instance; else each prompt is
    re-derived from the formula read back from it): a failure stops the command
    (exit 2) before anything is written, unless --no-verify.
    """
    from twosat_formal.evaluate.gate import gate_items
    from twosat_formal.evaluate.run import load_items
    from twosat_formal.evaluate.store import filled_store
    from twosat_formal.integrations.answers import read_answers
    from twosat_formal.integrations.rescore import score_to_file
    from twosat_formal.io.jsonl import rereadable, rereadable_or_none

    with rereadable(prompts) as (prompt_file, _), rereadable_or_none(dataset) as data:
        items = load_items(prompt_file, dataset=data)
        verification = gate_items(
            items,
            prompts=prompt_file,
            dataset=data,
            skip=no_verify,
            action="nothing was written",
        )
    answers = with_progress(read_answers(responses, model=model), None, "scoring", enabled=progress)
    info = {
        "responses_file": str(responses),
        "prompts_file": str(prompts),
        "dataset": str(dataset) if dataset else None,
        "verification": verification.to_json(),
    }
    if store is None:
        summary = score_to_file(answers, items, out)
    else:
        with filled_store(store, keep_results=False) as run_store:
            summary = score_to_file(answers, items, out, store=run_store, run_info=info)
    if as_json:
        print_json({**summary.to_dict(), "verification": verification.to_json()})
        return
    print_lines(_summary_lines(summary, verification, store))
    err_console.print(f"{summary.scored} rows written to {out}", markup=False)


def _summary_lines(
    summary: ScoreSummary, verification: Verification, store: Path | None
) -> list[str]:
    """The text summary of ``score``: answers scored, accuracy, failures, what the gate
    checked and, with a store, the results it took in."""
    from twosat_formal.cli.eval_cmd import verification_line

    data = summary.to_dict()
    accuracy = "-" if data["accuracy"] is None else f"{data['accuracy']:.1%}"
    failures = ", ".join(f"{k} {v}" for k, v in data["failures"].items()) or "none"
    lines = [
        f"scored     {summary.scored} answers, accuracy {accuracy}",
        f"failures   {failures}",
        verification_line(verification),
    ]
    if store is not None:
        lines.append(f"store      {store} ({summary.stored} new results)")
    return lines
