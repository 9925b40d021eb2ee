"""``twosat-formal certify DATASET.jsonl [--jobs N] [--json]``: the CI gate.

Re-checks every record (parse, three solvers against the label, the certificate) and
re-derives it byte for byte (family, params and seed; the transform chain with its Z3
proofs; edits; prompt text; stories around their attested text), counting the
re-derived, measured and attested fields. Exit code 0 only when every record passes
and there is at least one; otherwise 1, listing each failing id with the check that
failed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from twosat_formal.certify import CertifyReport, certify_files
from twosat_formal.cli.app import app, err_console, out_console
from twosat_formal.cli.options import (
    ApiKeyEnvOption,
    BaseUrlOption,
    RunnerOptions,
    json_option,
    model_option,
    option_groups,
)
from twosat_formal.cli.progress import progress_callback
from twosat_formal.errors import ConfigError
from twosat_formal.fieldclass import CLASSES

__all__ = ["certify"]


def _summary(report: CertifyReport) -> Table:
    table = Table(title="certify", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("value", justify="right")
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(report.kinds.items()))
    table.add_row("records", f"{report.records}" + (f" ({kinds})" if kinds else ""))
    table.add_row("checks", str(report.checks))
    table.add_row(
        "fields",
        ", ".join(f"{report.fields.get(cls, 0)} {cls}" for cls in CLASSES),
    )
    if report.story_attested:
        table.add_row("attested", report.attested_line)
    table.add_row("failed records", str(len(report.failing_ids)))
    table.add_row("failed checks", str(len(report.failures)))
    table.add_row("time", f"{report.seconds:.2f} s")
    table.add_row("time in Z3", f"{report.z3_seconds:.2f} s")
    table.add_row("result", "PASS" if report.ok else "FAIL")
    return table


@app.command("certify")
@option_groups
def certify(
    datasets: Annotated[
        list[Path],
        typer.Argument(
            metavar="DATASET",
            help="JSON Lines files, checked as one dataset (prompts may refer to "
            "instances in another file).",
            show_default=False,
        ),
    ],
    as_json: Annotated[bool, json_option("Print the report as JSON on stdout.")] = False,
    running: RunnerOptions = RunnerOptions(),
    revalidate: Annotated[
        bool,
        typer.Option(
            "--revalidate",
            help="Also ask a validator model (--model) again about every story's attested "
            "text: the introduction states no rule, each clue its clause.",
        ),
    ] = False,
    model: Annotated[
        str | None,
        model_option("The validator of --revalidate (required with it).", show_default="none"),
    ] = None,
    base_url: BaseUrlOption = None,
    api_key_env: ApiKeyEnvOption = None,
) -> None:
    """Re-check every record of a dataset; exit 1 listing each failing record."""
    if revalidate != (model is not None):
        raise ConfigError("--revalidate and --model go together", parameter="model")
    validator = None
    if model is not None:
        from twosat_formal.models import load_model

        validator = load_model(model, base_url=base_url, api_key_env=api_key_env)
    with progress_callback("certifying", enabled=running.progress) as advance:
        if running.executor is None:  # --jobs alone: worker processes unless the dataset is small
            report = certify_files(datasets, jobs=running.jobs or 1, progress=advance)
        else:
            with running.open() as runner:
                report = certify_files(datasets, executor=runner, progress=advance)
    if validator is not None:
        from dataclasses import replace

        from twosat_formal.certify import revalidate_stories

        more = revalidate_stories(datasets, validator)
        report = replace(report, failures=(*report.failures, *more))
    if as_json:
        # plain text, not through rich: a report of many failures is megabytes long
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        out_console.print(_summary(report))
        for failure in report.failures:
            out_console.print(f"FAIL {failure}", markup=False)
    if not report.ok:
        if as_json:
            err_console.print(
                f"certify: {len(report.failing_ids)} of {report.records} records failed",
                markup=False,
            )
        raise typer.Exit(code=1)
