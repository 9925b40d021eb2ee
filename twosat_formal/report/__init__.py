"""Reports: metrics, statistics, figures and the Markdown/HTML report of a run.

:func:`build_report` reads a run store or an experiment folder, computes every table
and test (:mod:`~twosat_formal.report.sections`), draws the figures
(:mod:`~twosat_formal.report.plots`) and writes ``report.md``, ``report.html``,
``report.json`` and ``figures/*.png`` into the output folder; the figures come from the
table of :mod:`~twosat_formal.report.figspecs`, and the HTML page
(:mod:`~twosat_formal.report.page`) has a table of contents and an item browser over the
run's answers (:mod:`~twosat_formal.report.items`). A run with story
records or answers to story prompts also gets the "LLM story verbalizer" section
(``stories`` in ``report.json``).

Examples
--------
>>> from twosat_formal.report import metrics, stats
>>> stats.benjamini_hochberg([0.02, 0.01])
[0.02, 0.02]
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from twosat_formal.report.figspecs import FigureInput, hardness_of, render_figures
from twosat_formal.report.files import REPORT_JSON
from twosat_formal.report.items import browser_data, load_items
from twosat_formal.report.load import ReportData, load_report_data
from twosat_formal.report.metrics import Estimate
from twosat_formal.report.plots import Figure
from twosat_formal.report.render import write_report
from twosat_formal.report.sections import ReportContent, compute_content

__all__ = [
    "ReportContent",
    "ReportData",
    "build_report",
    "content_to_json",
    "load_report_data",
    "write_content",
]


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def content_to_json(content: ReportContent, figures: list[Figure]) -> dict[str, Any]:
    """The machine-readable part of a report (``report.json``).

    >>> from twosat_formal.report.sections import compute_content
    >>> sorted(content_to_json(compute_content([]), []))[:3]
    ['duplication_tests', 'failures', 'families']
    """

    def est(e: Estimate | None) -> dict[str, Any] | None:
        return None if e is None else e.to_json()

    edits = (
        {} if content.edits is None else {"edits": {"models": [s.to_json() for s in content.edits]}}
    )
    stories = {} if content.stories is None else {"stories": content.stories.to_json()}
    pairs = {} if content.pairs is None else {"pairs": [s.to_json() for s in content.pairs]}
    if content.traces is not None:
        pairs["traces"] = [s.to_json() for s in content.traces]
    if content.diagnostics is not None:
        pairs["diagnostics"] = [row.to_json() for row in content.diagnostics]
    return _clean(
        {
            "title": content.title,
            "rows": content.rows,
            "models": content.models,
            "families": content.families,
            "templates": content.templates,
            "summaries": [
                {
                    "model": s.model,
                    "rows": s.rows,
                    "accuracy": est(s.accuracy),
                    "accuracy_sat": est(s.accuracy_sat),
                    "accuracy_unsat": est(s.accuracy_unsat),
                    "witness": est(s.witness),
                    "sat_prediction": est(s.sat_prediction),
                    "truncation": est(s.truncation),
                    "truncated": s.truncated,
                    "flips": s.flips.to_json(),
                    "verbal_flips": s.verbal_flips.to_json(),
                    "consistency": est(s.consistency),
                    "success": est(s.success),
                    "lenient_accuracy": est(s.lenient_accuracy),
                    "lenient_success": est(s.lenient_success),
                    "forgiven": s.forgiven,
                }
                for s in content.summaries
            ],
            "failures": {s.model: s.failures for s in content.summaries},
            "table1": [
                {
                    "family": r.family,
                    "clauses": r.clauses,
                    "label": r.label,
                    "cells": {
                        m: {"sat": est(c.sat), "wit": est(c.wit)}
                        | ({"wit_unsat": est(c.cyc)} if c.cyc is not None else {})
                        for m, c in r.cells.items()
                    },
                }
                for r in content.table1
            ],
            "friedman": [r.to_json() for r in content.friedman],
            "order_tests": [r.to_json() for r in content.order_tests],
            "filler_tests": [r.to_json() for r in content.filler_tests],
            "duplication_tests": [r.to_json() for r in content.duplication_tests],
            "figures": [f.path.as_posix() for f in figures],
            "notes": content.notes,
            **edits,
            **stories,
            **pairs,
        }
    )


def write_content(
    content: ReportContent,
    out_dir: str | os.PathLike[str],
    *,
    data: ReportData | None = None,
    method: str = "wilson",
    seed: int = 0,
) -> Path:
    """Draw the figures and write ``report.md``, ``report.html`` and ``report.json``.

    With ``data`` (what ``content`` was computed from) the figures that need the
    answers one by one are drawn too (the leaderboard needs none of it; the decision
    confusion, the structural hardness and the response lengths do), and the HTML
    page gets the item browser over the answers of ``data.source``. Returns the path
    of ``report.md``.

    >>> import tempfile
    >>> from twosat_formal.report.sections import compute_content
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_content(compute_content([]), tmp).name
    'report.md'
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    browser = None
    if data is None:
        inputs = FigureInput(content, method=method, seed=seed)
    else:
        inputs = FigureInput(
            content, data.rows, hardness_of(data.instances.values()), method=method, seed=seed
        )
        families = {key: record.get("family") for key, record in data.instances.items()}
        answers, prompts = load_items(data.source)
        browser = browser_data(answers, prompts, families=families, traces=data.traces)
    figures, absent = render_figures(inputs, folder)
    md, _ = write_report(content, figures, folder, absent=absent, browser=browser)
    (folder / REPORT_JSON).write_text(
        json.dumps(content_to_json(content, figures), indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    return md


def build_report(
    store_or_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    title: str | None = None,
    method: str = "wilson",
    seed: int = 0,
    diagnostics: str | os.PathLike[str] | None = None,
) -> Path:
    """Build the report of a run store or experiment folder into ``out_dir``.

    ``diagnostics``: a run store or experiment folder of a small twins-and-chains run
    (what ``bench`` writes in ``diagnostics/``), summarised in its own section.

    ``method`` picks the confidence intervals (``"wilson"``, ``"t"``, or
    ``"bootstrap"`` drawn with ``seed``; all within [0, 1]). Returns the path of
    ``report.md``; ``report.html``, ``report.json`` and ``figures/`` sit next to it.

    >>> import tempfile, pathlib
    >>> from twosat_formal.store import RunStore
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> RunStore(tmp / "runs.sqlite").close()
    >>> build_report(tmp / "runs.sqlite", tmp / "out").name
    'report.md'
    """
    data = load_report_data(store_or_dir)
    manifest = data.manifest
    if title is None:
        experiment = (manifest or {}).get("experiment")
        title = f"twosat-formal report: {experiment}" if experiment else "twosat-formal report"
    models = (manifest or {}).get("models") or []
    content = compute_content(
        data.rows,
        title=title,
        manifest=manifest,
        method=method,
        seed=seed,
        model_order=[str(m) for m in models] if isinstance(models, list) else [],
        stories=data.stories,
        traces=data.traces,
    )
    content.notes.extend(data.notes)
    if diagnostics is not None:
        from twosat_formal.report.diagnostics import diagnostic_rows

        content.diagnostics = diagnostic_rows(load_report_data(diagnostics).rows, content.models)
    return write_content(content, out_dir, data=data, method=method, seed=seed)
