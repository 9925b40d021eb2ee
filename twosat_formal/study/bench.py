"""``twosat-formal bench``: the main job, offline, on the four reference reasoners.

With no arguments it runs a reduced ``table1`` experiment (fewer formulas per cell)
on ``ref/oracle``, ``ref/sat-biased``, ``ref/coin`` and ``ref/bounded``: it generates
the instances, certifies every instance and prompt, evaluates, and writes
``bench-report/`` (``report.md``, ``report.html``, ``figures/``, ``dataset.jsonl``,
``prompts.jsonl``, ``results.sqlite``, ``results.jsonl``, ``manifest.json``). No network
and no key are needed. Beside it, a small side run (:func:`diagnostics_spec`: minimal
twins, prompts that ask for contradiction chains and every other question type) on the
reference reasoners goes to ``bench-report/diagnostics/``, and the report gains a short
section on it and the section "Question types". Extra
models (``--model SPEC``) join the four; ``--full`` runs the paper-size grid (10
formulas per cell).

:func:`headline_table` renders the Table 1-style grid of a finished run for the
terminal.

Examples
--------
>>> BENCH_MODELS
('ref/oracle', 'ref/sat-biased', 'ref/coin', 'ref/bounded')
>>> bench_spec().formulas, bench_spec(full=True).formulas
(3, 10)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table

from twosat_formal.io.jsonl import read_json_file
from twosat_formal.report.files import DIAGNOSTICS_DIR
from twosat_formal.study.experiments.spec import ExperimentSpec, load_spec

if TYPE_CHECKING:
    from rich.console import Console

    from twosat_formal.study.experiments.runner import ExperimentConfig, ExperimentResult, Reporter

__all__ = [
    "BENCH_CONCURRENCY",
    "BENCH_FORMULAS",
    "BENCH_MODELS",
    "DEFAULT_OUT",
    "DIAGNOSTICS_DIR",
    "DIAGNOSTIC_FORMULAS",
    "bench_spec",
    "diagnostics_spec",
    "diagnostics_table",
    "headline_table",
    "run_bench",
]

#: The reference reasoners every bench runs.
BENCH_MODELS = ("ref/oracle", "ref/sat-biased", "ref/coin", "ref/bounded")
#: Requests in flight when the bench is not told otherwise.
BENCH_CONCURRENCY = 16
#: Formulas per Table 1 cell in the reduced (default) bench.
BENCH_FORMULAS = 3
#: Where the bench writes when not told otherwise.
DEFAULT_OUT = "bench-report"
#: Formulas per setting of the bench's twins-and-chains side run.
DIAGNOSTIC_FORMULAS = 2


def bench_spec(
    *,
    full: bool = False,
    formulas: int | None = None,
    templates: Sequence[str] | None = None,
    max_clauses: int | None = None,
) -> ExperimentSpec:
    """The ``table1`` spec as the bench runs it.

    ``full`` keeps the paper's 10 formulas per cell; otherwise :data:`BENCH_FORMULAS`.
    ``formulas``, ``templates`` and ``max_clauses`` shrink it further (tests use them).

    >>> spec = bench_spec(formulas=1, templates=["logic"], max_clauses=10)
    >>> spec.formulas, spec.templates, len(spec.cells)
    (1, ('logic',), 3)
    """
    spec = load_spec("table1")
    if not full:
        spec = spec.with_formulas(BENCH_FORMULAS)
    if formulas is not None:
        spec = spec.with_formulas(formulas)
    if templates is not None:
        spec = spec.with_templates(tuple(templates))
    if max_clauses is not None:
        spec = spec.with_max_clauses(max_clauses)
    return spec


def run_bench(
    models: Sequence[str] = (),
    *,
    full: bool = False,
    out_dir: str | os.PathLike[str] = DEFAULT_OUT,
    formulas: int | None = None,
    templates: Sequence[str] | None = None,
    max_clauses: int | None = None,
    config: ExperimentConfig | None = None,
    console: Console | None = None,
    report: Reporter | None = None,
    **options: Any,
) -> ExperimentResult:
    """Run the bench: the reference reasoners plus ``models`` on the (reduced) Table 1 grid.

    ``full``, ``formulas``, ``templates`` and ``max_clauses`` shape the grid
    (:func:`bench_spec`). ``config`` holds the run's options, as for
    :func:`~twosat_formal.study.experiments.runner.run_experiment` (default: the defaults,
    with :data:`BENCH_CONCURRENCY` requests in flight); ``options`` are fields of it
    (``samples=3``, ``make_report=False``...), which win over ``config``'s. The side
    run of :func:`diagnostics_spec` takes its concurrency and certify workers. Returns
    the experiment result; the report is ``<out_dir>/report.md``.
    """
    from twosat_formal.report import build_report
    from twosat_formal.study.experiments.runner import ExperimentConfig, quiet, run_experiment

    config = replace(config or ExperimentConfig(concurrency=BENCH_CONCURRENCY), **options)
    spec = bench_spec(full=full, formulas=formulas, templates=templates, max_clauses=max_clauses)
    chosen = list(BENCH_MODELS) + [m for m in models if m not in BENCH_MODELS]
    result = run_experiment(
        spec,
        chosen,
        out_dir=Path(out_dir),
        config=replace(config, make_report=False),
        console=console,
        report=report or quiet,
    )
    side = diagnostics_spec(full=full, templates=templates, max_clauses=max_clauses)
    run_experiment(
        side,
        list(BENCH_MODELS),
        out_dir=result.out_dir / DIAGNOSTICS_DIR,
        config=ExperimentConfig(
            concurrency=config.concurrency, jobs=config.jobs, make_report=False
        ),
        report=report or quiet,
    )
    if config.make_report:
        result.report = build_report(
            result.out_dir, result.out_dir, diagnostics=result.out_dir / DIAGNOSTICS_DIR
        )
    return result


def diagnostics_spec(
    *,
    full: bool = False,
    templates: Sequence[str] | None = None,
    max_clauses: int | None = None,
) -> ExperimentSpec:
    """The bench's side run: the ``pairs`` spec, small, asking for contradiction chains
    and every other question type an instance allows (:mod:`twosat_formal.solve.questions`).

    :data:`DIAGNOSTIC_FORMULAS` formulas per setting (10 with ``full``), the first two
    templates (of ``templates`` when given); ``max_clauses`` keeps the settings up to
    that size, and at least the smallest one.

    >>> spec = diagnostics_spec(templates=["team"], max_clauses=10)
    >>> spec.name, spec.formulas, spec.templates, spec.ask_cycle
    ('pairs', 2, ('team',), True)
    >>> spec.asks
    ('chain', 'forced', 'entails', 'core', 'repair', 'maxsat')
    """

    spec = load_spec("pairs").with_formulas(10 if full else DIAGNOSTIC_FORMULAS)
    spec = spec.with_templates(tuple(templates or ("logic", "door"))[:2])
    if max_clauses is not None:
        smallest = min(c for cell in spec.cells for c in cell["clauses"])
        spec = spec.with_max_clauses(max(max_clauses, smallest))
    from twosat_formal.solve.questions import QUESTION_TYPES

    asked = tuple(t for t in QUESTION_TYPES if t != "chain")
    return spec.model_copy(update={"ask_cycle": True, "questions": asked})


def _pct(estimate: dict[str, Any] | None) -> str:
    if not estimate or estimate.get("mean") is None:
        return "—"
    return f"{100.0 * estimate['mean']:.1f}"


def headline_table(report_json: str | os.PathLike[str] | dict[str, Any]) -> Table:
    """The Table 1-style grid of a report (``report.json``) as a rich table.

    Rows are generator × |C|; columns model × {Sat., Wit.}; the best Sat. and Wit. of
    each row are bold.

    >>> table = headline_table({"models": ["m"], "table1": [{"family": "backbone",
    ...     "clauses": 20, "cells": {"m": {"sat": {"mean": 1.0}, "wit": {"mean": 0.5}}}}]})
    >>> table.row_count, [c.header for c in table.columns]
    (1, ['generator', '|C|', 'm\\nSat.', 'm\\nWit.'])
    """
    data = report_json if isinstance(report_json, dict) else read_json_file(report_json)
    models: list[str] = list(data.get("models", []))
    table = Table(title="Decision accuracy (Sat., %) and witness validity (Wit., %, SAT only)")
    table.add_column("generator")
    table.add_column("|C|", justify="right")
    for model in models:
        table.add_column(f"{model}\nSat.", justify="right")
        table.add_column(f"{model}\nWit.", justify="right")
    for row in data.get("table1", []):
        table.add_row(*_headline_row(row, models))
    return table


def _headline_row(row: dict[str, Any], models: list[str]) -> list[str]:
    """The cells of one row of :func:`headline_table`, the best Sat. and Wit. in bold."""
    cells = row.get("cells", {})
    sats = [(cells.get(m) or {}).get("sat") for m in models]
    wits = [(cells.get(m) or {}).get("wit") for m in models]
    top_sat, top_wit = _best(sats), _best(wits)
    rendered = [str(row.get("family")), str(row.get("clauses"))]
    for sat, wit in zip(sats, wits, strict=True):
        for value, top in ((sat, top_sat), (wit, top_wit)):
            text = _pct(value)
            if top is not None and value and value.get("mean") == top:
                text = f"[bold]{text}[/bold]"
            rendered.append(text)
    return rendered


def _best(values: list[dict[str, Any] | None]) -> float | None:
    """The highest mean of a row's cells, when at least two cells have one."""
    means = [v["mean"] for v in values if v and v.get("mean") is not None]
    return max(means) if len(means) > 1 else None


def diagnostics_table(report_json: str | os.PathLike[str] | dict[str, Any]) -> Table | None:
    """The twins-and-chains rows of a bench report as a rich table (``None`` without).

    >>> row = {"model": "m", "pairs": 2, "pair_accuracy": {"mean": 0.5},
    ...        "pair_consistency": {"mean": 1.0}, "chains_asked": 1, "wit_unsat": {"mean": 1.0}}
    >>> table = diagnostics_table({"diagnostics": [row]})
    >>> table.row_count, [c.header for c in table.columns][-1]
    (1, 'Wit. (UNSAT)')
    >>> diagnostics_table({}) is None
    True
    """
    data = report_json if isinstance(report_json, dict) else read_json_file(report_json)
    rows = data.get("diagnostics")
    if not rows:
        return None
    table = Table(title="Minimal twins and contradiction chains (%, diagnostics/)")
    for header in ("model", "pairs", "pair accuracy", "pair consistency", "Wit. (UNSAT)"):
        table.add_column(header, justify="left" if header == "model" else "right")
    for row in rows:
        table.add_row(
            str(row.get("model")),
            str(row.get("pairs")),
            _pct(row.get("pair_accuracy")),
            _pct(row.get("pair_consistency")),
            _pct(row.get("wit_unsat")),
        )
    return table
