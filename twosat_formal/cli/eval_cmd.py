"""``twosat-formal eval`` and ``twosat-formal results``: run models, export the store."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from twosat_formal.cli.app import app, err_console, fail, out_console, stopped
from twosat_formal.cli.eval_options import EndpointOptions, RetryOptions
from twosat_formal.cli.options import (
    ConcurrencyOption,
    MaxTokensOption,
    NoVerifyOption,
    ProgressOption,
    RayAddressOption,
    SamplesOption,
    SamplingOptions,
    ShardOption,
    StrategyOption,
    SummaryJsonOption,
    TimeoutOption,
    dataset_option,
    executor_option,
    jobs_option,
    model_option,
    option_groups,
    out_option,
    store_option,
)
from twosat_formal.cli.output import print_json, print_lines
from twosat_formal.errors import EXIT_REQUESTS_FAILED, ConfigError
from twosat_formal.evaluate.columns import column_list, pick_columns
from twosat_formal.evaluate.export import export_results, format_of
from twosat_formal.evaluate.models import spec_forms
from twosat_formal.evaluate.models.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S
from twosat_formal.evaluate.store import RunStore, filled_store
from twosat_formal.io.jsonl import rereadable, rereadable_or_none

if TYPE_CHECKING:  # the runner is imported when ``eval`` runs, not for --help
    from twosat_formal.evaluate.run import EvalItem, EvalSummary, Verification

__all__ = [
    "ModelSpecsOption",
    "error_lines",
    "eval_command",
    "exit_on_failed_requests",
    "results_command",
    "verification_line",
]

_EXECUTOR_HELP = (
    "Where the models are asked: here, or on Ray workers that build their own "
    "clients; this process plans, scores and writes the store either way."
)
_JOBS_HELP = "Ray workers (default: the CPUs of the cluster, or here)."
#: ``--model/-m SPEC``, repeatable: the models ``eval`` and ``run-experiment`` ask.
ModelSpecsOption = Annotated[
    list[str],
    model_option(
        "Model spec, repeatable: " + ", ".join(spec_forms()) + ". See docs/evaluation.md."
    ),
]


def error_lines(summary: EvalSummary) -> list[str]:
    """The most frequent distinct error messages of a run, one summary line each."""
    return [f"error      {count}x {message}" for message, count in summary.top_errors()]


def verification_line(verification: Verification) -> str:
    """One line: what the gate checked, and how many story fields it took on trust."""
    if verification.skipped:
        return "verified   nothing (--no-verify)"
    records = verification.records
    line = f"verified   {verification.verified} prompts" + (
        f", {records} records certified" if records is not None else ""
    )
    if verification.story_attested:
        line += (
            f"; {verification.story_attested} story fields are attested, not checked "
            "(`certify --revalidate` asks a validator about them again)"
        )
    return line


def exit_on_failed_requests(summary: EvalSummary) -> None:
    """Exit with code 3 when every request of some model failed (130 or 143 if stopped)."""
    if summary.interrupted:
        stopped()
    if summary.failed_models:
        fail(
            f"every request of {', '.join(summary.failed_models)} failed "
            "(errors above; `results` lists each one)",
            EXIT_REQUESTS_FAILED,
        )


def _print_summary(
    summary: EvalSummary, store: Path, as_json: bool, verification: Verification
) -> None:
    if as_json:
        print_json({**summary.to_dict(), "verification": verification.to_json()})
        return
    accuracy = "-" if summary.accuracy is None else f"{summary.accuracy:.1%}"
    failures = ", ".join(f"{k} {v}" for k, v in sorted(summary.failures.items())) or "none"
    lines = [
        f"requests   {summary.planned} planned, {summary.skipped} already stored, "
        f"{summary.done} done now, {summary.remaining} left",
        f"accuracy   {accuracy} of the {summary.done} done now",
        f"failures   {failures}",
        f"retries    {summary.retries}",
        *error_lines(summary),
        f"store      {store}",
        verification_line(verification),
    ]
    if summary.leased:
        lines.append(
            f"leased     {summary.leased} asked by another run on this store meanwhile; "
            "run the same command again once it ends to ask what it left"
        )
    if summary.interrupted:
        lines.append("interrupted: run the same command again to finish")
    print_lines(lines)


_PromptsArgument = Annotated[
    Path,
    typer.Argument(
        help="Prompt records (JSON Lines), as written by `verbalize`, or story records, "
        "as written by `verbalize --story`."
    ),
]
_DatasetOption = Annotated[
    Path | None,
    dataset_option(
        "Instances (JSON Lines) the prompts verbalize: formulas, labels and metadata "
        "for reports; each prompt, its instance and the records it names get "
        "certify's checks before anything is sent. Without it, formulas are read back "
        "from the prompts (a story's recovered formula) and solved."
    ),
]
_LimitOption = Annotated[
    int | None,
    typer.Option("--limit", min=0, help="Use only the first N prompts.", show_default="all"),
]


@app.command("eval")
@option_groups
def eval_command(
    prompts: _PromptsArgument,
    model: ModelSpecsOption,
    store: Annotated[
        Path,
        store_option("The SQLite run store (created when missing)."),
    ] = Path("runs.sqlite"),
    dataset: _DatasetOption = None,
    concurrency: ConcurrencyOption = 8,
    max_tokens: MaxTokensOption = DEFAULT_MAX_TOKENS,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    samples: SamplesOption = 1,
    strategy: StrategyOption = None,
    limit: _LimitOption = None,
    endpoint: EndpointOptions = EndpointOptions(),
    sampling: SamplingOptions = SamplingOptions(),
    retry: RetryOptions = RetryOptions(),
    progress: ProgressOption = True,
    as_json: SummaryJsonOption = False,
    no_verify: NoVerifyOption = False,
    shard: ShardOption = None,
    executor: Annotated[str, executor_option("local|ray", _EXECUTOR_HELP)] = "local",
    jobs: Annotated[int | None, jobs_option(_JOBS_HELP, "the CPUs")] = None,
    ray_address: RayAddressOption = None,
) -> None:
    """Ask models every prompt, score the answers and keep them in the run store.

    Every record a judgement depends on is checked first: with --dataset, certify's
    checks on each prompt, its instance and the records that names; else each prompt
    re-derived from the formula read back from it. A failure stops the run before any
    store is written or request sent (exit 2), unless ``--no-verify``.

    Story prompts are scored with each entity's own true and false description.
    Stored requests are skipped, so a run that was stopped resumes where it was.
    """
    from twosat_formal.evaluate.run import evaluate
    from twosat_formal.evaluate.run.runner import check_run
    from twosat_formal.verbalize.strategies import parse_strategies

    _check_executor(executor)  # refused before a store is created, as every option here
    limits = endpoint.limits()
    check_run(samples, concurrency)
    endpoint.check_models(model, limits, timeout)
    strategies = [s.key for s in parse_strategies(strategy)]
    items, verification = _gated_items(prompts, dataset, limit, shard, no_verify)
    params = sampling.params(max_tokens)
    info = _run_info(prompts, dataset, verification, shard)
    with filled_store(store) as run_store:
        summary = evaluate(
            model,
            items,
            run_store,
            base_url=endpoint.base_url or None,
            limits=limits,
            api_key_env=endpoint.api_key_env,
            mode=endpoint.mode,
            timeout_s=timeout,
            params=params,
            samples=samples,
            concurrency=concurrency,
            retry=retry.policy(),
            retry_errors=retry.retry_errors,
            progress=progress,
            console=err_console,
            run_info=info,
            executor=executor,
            jobs=jobs,
            ray_address=ray_address,
            strategies=strategies,
        )
    _print_summary(summary, store, as_json, verification)
    exit_on_failed_requests(summary)


def _check_executor(executor: str) -> None:
    """Refuse an executor ``eval`` cannot ask its models on (:class:`ConfigError`)."""
    from twosat_formal.evaluate.run.runner import EVAL_EXECUTORS

    if executor not in EVAL_EXECUTORS:
        raise ConfigError(
            f"eval asks its models here (local) or on Ray workers (ray), not {executor!r}",
            parameter="executor",
            valid=", ".join(EVAL_EXECUTORS),
        )


def _gated_items(
    prompts: Path, dataset: Path | None, limit: int | None, shard: str | None, no_verify: bool
) -> tuple[list[EvalItem], Verification]:
    """The items of ``eval`` (the first ``limit`` of the shard's block), and what the gate
    checked on them (nothing with ``no_verify``); no prompt at all is refused."""
    from twosat_formal._util.executors import parse_shard
    from twosat_formal.evaluate.gate import gate_items
    from twosat_formal.evaluate.run import load_items

    part = parse_shard(shard) if shard is not None else None
    # a dataset from stdin is read twice too: by the items, then by the gate
    with rereadable(prompts) as (prompt_file, _), rereadable_or_none(dataset) as data:
        items = load_items(prompt_file, dataset=data, limit=limit, shard=part)
        if not items:
            raise ConfigError(f"{prompts}: no prompt to ask", parameter="prompts")
        verification = gate_items(items, prompts=prompt_file, dataset=data, skip=no_verify)
    return items, verification


def _run_info(
    prompts: Path, dataset: Path | None, verification: Verification, shard: str | None
) -> dict[str, Any]:
    """What the run store records of an ``eval`` run beyond the runner's own fields."""
    return {
        "prompts_file": str(prompts),
        "dataset": str(dataset) if dataset else None,
        "verification": verification.to_json(),
        "shard": shard,
    }


@app.command("results")
def results_command(
    store: Annotated[Path, typer.Argument(help="The SQLite run store of `eval`.")],
    out: Annotated[
        Path | None,
        out_option(
            "Write to FILE.jsonl, FILE.csv or FILE.parquet (default: JSON Lines on stdout)."
        ),
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            metavar="NAMES",
            help="Comma-separated export columns to write, in export order; only what "
            "they are made of is read from the store (default: every column).",
        ),
    ] = None,
) -> None:
    """Export one row per sample: ids, model, label, decision, failure kind, response."""
    if out is not None:
        format_of(out)  # refuse an unknown suffix before reading anything
    names = None
    if columns is not None:
        names = pick_columns(column_list(columns))
    with RunStore(store, readonly=True) as run_store:
        if out is None:
            count = export_results(run_store, stream=out_console.file, columns=names)
        else:
            count = export_results(run_store, out, columns=names)
    where = "stdout" if out is None else str(out)
    err_console.print(f"{count} rows written to {where}", markup=False)
