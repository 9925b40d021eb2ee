"""``report``, ``experiments``, ``run-experiment`` and ``bench``: the study commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.measure import Measurement

from twosat_formal.cli.app import app, err_console, out_console
from twosat_formal.cli.eval_cmd import ModelSpecsOption, error_lines, exit_on_failed_requests
from twosat_formal.cli.options import (
    ConcurrencyOption,
    ExperimentOptions,
    ExperimentSeedOption,
    JsonOption,
    MaxTokensOption,
    SamplesOption,
    StrategyOption,
    TemperatureOption,
    TemplatesOption,
    TimeoutOption,
    input_argument,
    model_option,
    option_groups,
    out_option,
    seed_option,
)
from twosat_formal.cli.output import print_json, print_lines, story_rates
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S
from twosat_formal.io.jsonl import read_json_file
from twosat_formal.study.bench import BENCH_MODELS, DEFAULT_OUT
from twosat_formal.study.experiments.spec import load_spec, spec_names

if TYPE_CHECKING:
    from twosat_formal.study.experiments.runner import ExperimentResult

__all__ = ["bench_command", "experiments_command", "report_command", "run_experiment_command"]


def _say(stage: str, detail: str) -> None:
    err_console.print(f"{stage:<10} {detail}", markup=False)


def _report_files(report: Path) -> dict[str, str]:
    return {"report": str(report), "html": str(report.with_suffix(".html"))}


def _result_json(result: ExperimentResult) -> dict[str, Any]:
    """What ``run-experiment --json`` and ``bench --json`` print."""
    out: dict[str, Any] = {
        "experiment": result.name,
        "folder": str(result.out_dir),
        "instances": result.instances,
        "prompts": result.prompts,
        "certified": result.certified,
        "evaluation": result.evaluation.to_dict(),
        "seconds": result.seconds,
    }
    if result.report is not None:
        from twosat_formal.report.files import REPORT_JSON

        out.update(_report_files(result.report))
        report_json = result.out_dir / REPORT_JSON
        if report_json.is_file():
            out["table1"] = read_json_file(report_json).get("table1")
    return out


def _story_lines(story: dict[str, Any] | None) -> list[str]:
    """The story stage of a ``story`` experiment: its rates beside the paper's.

    >>> _story_lines({"stories": 3, "model": "m", "calls_made": 9, "calls_reused": 0,
    ...     "statistics": {"first_attempt_rate": 0.8, "fallback_rate": 0.1}})[0]
    'stories    3 by m (9 calls, 0 from the store): first-attempt validation 80.0% \
(paper 95.4%), fallback 10.0% (paper 3.3%)'
    """
    if not story:
        return []
    stats = story.get("statistics") or {}
    rates = story_rates(stats.get("first_attempt_rate"), stats.get("fallback_rate"))
    return [
        f"stories    {story.get('stories')} by {story.get('model')} ({story.get('calls_made')} "
        f"calls, {story.get('calls_reused')} from the store): {rates}"
    ]


def _print_result(result: ExperimentResult, as_json: bool = False) -> None:
    if as_json:
        print_json(_result_json(result))
        return
    summary = result.evaluation
    certified = result.certified
    if certified.get("skipped"):
        check = "skipped"
    elif certified.get("reused"):
        check = "ok (unchanged since the last run)"
    else:
        kinds = certified.get("kinds") or {}
        stories = f"{kinds['story']} stories, " if kinds.get("story") else ""
        check = (
            f"ok: {kinds.get('instance', 0)} instances, {kinds.get('prompt', 0)} prompts, "
            f"{stories}{certified.get('checks')} checks"
        )
    lines = [
        f"experiment {result.name}",
        f"instances  {result.instances}, prompts {result.prompts}",
        f"certified  {check}",
        f"requests   {summary.planned} planned, {summary.skipped} already stored, "
        f"{summary.done} done now",
        *error_lines(summary),
        *_story_lines(result.manifest.get("story")),
        f"folder     {result.out_dir}",
    ]
    if result.report is not None:
        lines.append(f"report     {result.report} (and report.html)")
    print_lines(lines)


@app.command("report")
def report_command(
    sources: Annotated[
        list[Path],
        input_argument(
            "A run store (SQLite, from `eval`), an experiment folder "
            "(from `run-experiment` or `bench`), or its results.jsonl (read with the "
            "dataset.jsonl beside it). Several: a comparison of the runs, a leaderboard "
            "across stores.",
            "STORE_OR_DIR...",
        ),
    ],
    out: Annotated[
        Path, out_option("Folder for report.md, report.html and figures/.", metavar="DIR")
    ],
    bootstrap: Annotated[
        bool,
        typer.Option("--bootstrap", help="Percentile-bootstrap CIs instead of Wilson score ones."),
    ] = False,
    seed: Annotated[int, seed_option("Seed of the bootstrap resamples.")] = 0,
    allow_different: Annotated[
        bool,
        typer.Option(
            "--allow-different-datasets",
            help="Compare runs that answered different prompts (refused otherwise).",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write the report of a run (tables, significance tests and figures), or compare runs."""
    method = "bootstrap" if bootstrap else "wilson"
    if len(sources) > 1:
        from twosat_formal.report.compare import compare_runs

        path = compare_runs(sources, out, allow_different=allow_different, method=method, seed=seed)
    else:
        from twosat_formal.report import build_report

        path = build_report(sources[0], out, method=method, seed=seed)
    if as_json:
        print_json(_report_files(path))
        return
    out_console.print(f"report written to {path} and {path.with_suffix('.html')}", markup=False)


@app.command("experiments")
def experiments_command(as_json: JsonOption = False) -> None:
    """List the experiment protocols of the paper that `run-experiment` runs."""
    if as_json:
        print_json(
            {
                name: {
                    "paper": spec.paper,
                    "title": spec.title,
                    "formulas": spec.formulas,
                    "templates": list(spec.templates),
                    **({"themes": list(spec.themes)} if spec.themes else {}),
                }
                for name, spec in ((name, load_spec(name)) for name in spec_names())
            }
        )
        return
    for name in spec_names():
        spec = load_spec(name)
        themes = f" + {len(spec.themes)} story themes" if spec.themes else ""
        out_console.print(
            f"{name:<14} {spec.paper:<38} {spec.title} "
            f"({spec.formulas} formulas per setting x {len(spec.templates)} templates{themes})",
            markup=False,
        )


@app.command("run-experiment")
@option_groups
def run_experiment_command(
    name: Annotated[
        str, typer.Argument(help="An experiment of `experiments`, or a spec file (.json).")
    ],
    model: ModelSpecsOption,
    out: Annotated[Path, out_option("The experiment folder.", metavar="DIR")],
    formulas: Annotated[
        int | None,
        typer.Option("--formulas", min=1, help="Formulas per setting (default: the spec's)."),
    ] = None,
    template: TemplatesOption = None,
    seed: ExperimentSeedOption = None,
    story_model: Annotated[
        str | None,
        typer.Option(
            "--story-model",
            metavar="SPEC",
            help="The model that writes the stories of the `story` experiment (required "
            "there); its calls are cached in the run store.",
            show_default="none",
        ),
    ] = None,
    theme: Annotated[
        list[str] | None,
        typer.Option(
            "--theme",
            metavar="NAME",
            help="Story theme, repeatable (`story` only; default: the spec's).",
        ),
    ] = None,
    samples: SamplesOption = 1,
    strategy: StrategyOption = None,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", min=1, help="Token budget of each answer (default: spec)."),
    ] = None,
    temperature: TemperatureOption = None,
    concurrency: ConcurrencyOption = 8,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Worker processes of certify.")] = 1,
    asking: ExperimentOptions = ExperimentOptions(),
    as_json: JsonOption = False,
) -> None:
    """Run an experiment: generate, perturb, verbalize, certify, evaluate, report.

    Re-running the same command resumes: stored answers are not asked again.
    """
    from twosat_formal.study.experiments.runner import run_experiment
    from twosat_formal.verbalize.strategies import parse_strategies

    config = asking.config(
        formulas=formulas,
        templates=template or None,
        seed=seed,
        story_model=story_model,
        themes=theme or None,
        samples=samples,
        strategies=tuple(s.key for s in parse_strategies(strategy)),
        max_tokens=max_tokens,
        temperature=temperature,
        concurrency=concurrency,
        timeout_s=timeout,
        jobs=jobs,
    )
    result = run_experiment(
        name, model, out_dir=out, config=config, console=err_console, report=_say
    )
    _print_result(result, as_json)
    exit_on_failed_requests(result.evaluation)


@app.command("bench")
@option_groups
def bench_command(
    model: Annotated[
        list[str] | None,
        model_option(
            "Extra model spec, repeatable; the reference reasoners "
            f"({', '.join(BENCH_MODELS)}) always run."
        ),
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="The paper-size grid: 10 formulas per Table 1 cell.")
    ] = False,
    out: Annotated[
        Path,
        out_option("Folder for the report, dataset and results.", metavar="DIR"),
    ] = Path(DEFAULT_OUT),
    formulas: Annotated[
        int | None,
        typer.Option("--formulas", min=1, help="Formulas per cell (default 3; not with --full)."),
    ] = None,
    max_clauses: Annotated[
        int | None,
        typer.Option(
            "--max-clauses",
            min=1,
            help="Leave out the cells above this clause count.",
            show_default="all cells",
        ),
    ] = None,
    template: TemplatesOption = None,
    max_tokens: MaxTokensOption = DEFAULT_MAX_TOKENS,
    concurrency: ConcurrencyOption = 16,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    seed: ExperimentSeedOption = None,
    asking: ExperimentOptions = ExperimentOptions(),
    as_json: JsonOption = False,
) -> None:
    """Run the offline benchmark: reduced Table 1 on the reference reasoners, certified.

    Writes the report, figures, dataset, results and manifest, and prints the headline
    table.
    """
    from twosat_formal.study.bench import diagnostics_table, headline_table, run_bench

    if formulas is not None and full:
        raise ConfigError("--formulas and --full exclude each other", parameter="formulas")
    result = run_bench(
        model or (),
        full=full,
        out_dir=out,
        formulas=formulas,
        templates=template or None,
        max_clauses=max_clauses,
        config=asking.config(
            max_tokens=max_tokens, concurrency=concurrency, timeout_s=timeout, seed=seed
        ),
        console=err_console,
        report=_say,
    )
    if as_json:
        _print_result(result, as_json)
        exit_on_failed_requests(result.evaluation)
        return
    from twosat_formal.report.files import REPORT_JSON

    table = headline_table(result.out_dir / REPORT_JSON)
    wide = out_console.options.update(max_width=1000)
    natural = Measurement.get(out_console, wide, table).maximum  # print whole, never truncated
    wide_console = Console(file=out_console.file, width=max(out_console.width, natural))
    wide_console.print(table)
    diagnostics = diagnostics_table(result.out_dir / REPORT_JSON)
    if diagnostics is not None:
        wide_console.print(diagnostics)
    _print_result(result)
    exit_on_failed_requests(result.evaluation)
