"""``twosat-formal certify DATASET.jsonl [--jobs N] [--format F] [--output FILE] [--cache DIR]``.

The CI gate.

Re-checks every record (parse, three solvers against the label, the certificate) and
re-derives it byte for byte (family, params and seed; the transform chain with its Z3
proofs; edits; prompt text; stories around their attested text), counting the
re-derived, measured and attested fields. Exit code 0 only when every record passes
and there is at least one; otherwise 1, listing each failing id with the check that
failed. ``--format`` prints the report as JSON, JUnit XML, SARIF 2.1.0 or GitHub
workflow commands (:mod:`twosat_formal.certify.report`), ``--output`` writes it to a
file instead (the text summary still printed, the exit code the same), and
``--cache DIR`` skips the records that passed before exactly as they are
(:mod:`twosat_formal.certify.cache`).
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from twosat_formal._util.atomic import STDOUT, atomic_output, refuse_unwritable
from twosat_formal.certify import CertifyReport, certify_files
from twosat_formal.certify.report import JunitLog
from twosat_formal.cli.app import app, err_console, out_console
from twosat_formal.cli.options import (
    ApiKeyEnvOption,
    BaseUrlOption,
    RunnerOptions,
    input_argument,
    json_option,
    model_option,
    option_groups,
)
from twosat_formal.cli.progress import progress_callback
from twosat_formal.core.fieldclass import CLASSES
from twosat_formal.errors import ConfigError

if TYPE_CHECKING:
    from twosat_formal.certify.cache import CertifyCache

__all__ = ["ReportFormat", "certify"]


class ReportFormat(StrEnum):
    """The forms of ``certify``'s report (:data:`twosat_formal.certify.report.FORMATS`)."""

    text = "text"
    json = "json"
    junit = "junit"
    sarif = "sarif"
    github = "github"


def _summary(report: CertifyReport, cached: bool = False) -> Table:
    table = Table(title="certify", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("value", justify="right")
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(report.kinds.items()))
    table.add_row("records", f"{report.records}" + (f" ({kinds})" if kinds else ""))
    table.add_row("checks", str(report.checks))
    if cached:
        table.add_row("passed before (--cache)", str(report.cached))
    table.add_row(
        "fields",
        ", ".join(f"{report.fields.get(cls, 0)} {cls}" for cls in CLASSES),
    )
    if report.story_attested:
        table.add_row("attested", report.attested_line)
    table.add_row("failed records", str(report.failed_records))
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
        input_argument(
            "JSON Lines files, checked as one dataset (prompts may refer to "
            "instances in another file).",
            "DATASET",
        ),
    ],
    as_json: Annotated[
        bool, json_option("Print the report as JSON on stdout (--format json).")
    ] = False,
    report_format: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            help="The report: text, json, junit (XML, a test case per record), sarif "
            "(2.1.0, for code scanning) or github (workflow annotations).",
            show_default="text",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Write the report to this file (the text summary still goes to stdout; "
            "the exit code still gates); - writes the report alone to stdout.",
            show_default="stdout",
        ),
    ] = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            metavar="DIR",
            help="Skip the records that passed before with the same bytes, referenced "
            "records, tool and solvers; keep this run's passes there (digests only).",
            show_default="none",
        ),
    ] = None,
    no_cache: Annotated[
        bool,
        typer.Option("--no-cache", help="Check every record, reading and writing no cache."),
    ] = False,
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
    form = _format(report_format, as_json)
    output = _report_file(output)
    cache_in = None if no_cache or cache is None else _open_cache(cache, datasets, output)
    with ExitStack() as stack:
        records = stack.enter_context(JunitLog()) if form == "junit" else None
        _run(datasets, form, output, cache_in, records, running, model, base_url, api_key_env)


def _report_file(output: Path | None) -> Path | None:
    """The file ``--output`` names, refused before the run as its writer would refuse it
    (:func:`~twosat_formal._util.atomic.refuse_unwritable`); ``None`` for standard
    output (no option, or ``-`` as every ``--out`` takes it)."""
    if output is None or str(output) == STDOUT:
        return None
    refuse_unwritable(output)
    return output


def _format(report_format: ReportFormat | None, as_json: bool) -> str:
    if as_json and report_format not in (None, ReportFormat.json):
        raise ConfigError(
            f"--json and --format {report_format} ask for two reports", parameter="format"
        )
    return "json" if as_json else (report_format or ReportFormat.text).value


def _open_cache(folder: Path, datasets: list[Path], output: Path | None) -> CertifyCache:
    """The cache of ``folder``, whose file (an output too) is none of ``datasets`` nor
    ``output``."""
    from twosat_formal.certify.cache import CertifyCache

    cache = CertifyCache(folder)
    cache.refuse_inputs(datasets, output)
    if cache.note is not None:
        err_console.print(f"certify: {cache.note}", markup=False)
    return cache


def _run(
    datasets: list[Path],
    form: str,
    output: Path | None,
    cache: CertifyCache | None,
    records: JunitLog | None,
    running: RunnerOptions,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
) -> None:
    """Certify, report in ``form`` (to ``output`` if given), exit 1 unless all passed."""
    validator = None
    if model is not None:
        from twosat_formal.evaluate.models import load_model

        validator = load_model(model, base_url=base_url, api_key_env=api_key_env)
    report = _certify(datasets, running, cache, records)
    if validator is not None:
        from dataclasses import replace

        from twosat_formal.certify import revalidate_stories

        more = revalidate_stories(datasets, validator)
        report = replace(report, failures=(*report.failures, *more))
    _show(report, form, output, cache is not None, records)
    if not report.ok:
        if form != "text" or output is not None:
            err_console.print(f"certify: {report.verdict}", markup=False)
        raise typer.Exit(code=1)


def _certify(
    datasets: list[Path],
    running: RunnerOptions,
    cache: CertifyCache | None,
    records: JunitLog | None,
) -> CertifyReport:
    """The report of certify's checks, run as ``running`` says."""
    with progress_callback("certifying", enabled=running.progress) as advance:
        if running.executor is None:  # --jobs alone: worker processes unless the dataset is small
            return certify_files(
                datasets, jobs=running.jobs or 1, progress=advance, cache=cache, records=records
            )
        with running.open() as runner:
            return certify_files(
                datasets, executor=runner, progress=advance, cache=cache, records=records
            )


def _show(
    report: CertifyReport,
    form: str,
    output: Path | None,
    cached: bool,
    records: JunitLog | None,
) -> None:
    """Write the report in ``form`` to ``output`` (then the summary on stdout), or on stdout
    (also for ``--output -``, which the command reads as no ``--output``)."""
    if output is not None:
        with atomic_output(output) as stream:
            _write(report, form, stream, records)
        out_console.print(_summary(report, cached))
    elif form == "text":
        out_console.print(_summary(report, cached))
        for failure in report.failures:
            out_console.print(f"FAIL {failure}", markup=False)
    else:
        # plain text, not through rich: a report of many failures is megabytes long
        _write(report, form, sys.stdout, records)
        sys.stdout.flush()


def _write(report: CertifyReport, form: str, stream: IO[str], records: JunitLog | None) -> None:
    """Write the report in ``form``; the text report plainly, as the console shows it."""
    if form != "text":
        from twosat_formal.certify.report import write_report

        write_report(report, form, stream, records)
        return
    from rich.console import Console

    from twosat_formal.certify.report import printable

    console = Console(file=stream, width=100, no_color=True, highlight=False, soft_wrap=True)
    console.print(_summary(report, report.cached > 0))
    for failure in report.failures:
        console.print(printable(f"FAIL {failure}"), markup=False)
