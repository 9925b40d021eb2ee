"""Reports: metrics, statistics, figures and the Markdown/HTML report of a run.

:func:`build_report` reads a run store or an experiment folder, computes every table
and test (:mod:`~twosat_formal.report.content`, one module per section in
:mod:`~twosat_formal.report.sections`), draws the figures
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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.report.blocks import Image
from twosat_formal.report.content import ReportContent, compute_content
from twosat_formal.report.figplans import measures_of
from twosat_formal.report.figspecs import FigureInput, render_figures
from twosat_formal.report.files import DIAGNOSTICS_DIR, MANIFEST_FILE, REPORT_JSON
from twosat_formal.report.items import browser_data, load_items
from twosat_formal.report.load import ReportData, load_report_data, manifest_models
from twosat_formal.report.metrics import CI_METHOD
from twosat_formal.report.render import write_report
from twosat_formal.report.sections.common import Curves
from twosat_formal.report.sections.summary import ModelSummary
from twosat_formal.report.sections.table1 import Table1Row

__all__ = [
    "ReportContent",
    "ReportData",
    "build_report",
    "content_to_json",
    "inert_knob_notes",
    "load_report_data",
    "side_run",
    "write_content",
]


def _clean(value: Any) -> Any:
    """``value`` as JSON: a value with a ``to_json`` method as its result, NaN as
    ``None``, dicts (keys as text), lists and tuples item by item."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        value = to_json()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def _curves(curves: Curves) -> dict[str, list[dict[str, Any]]]:
    """Series → points ``{"x": x, **estimate}`` in increasing x."""
    return {name: [{"x": x, **e.to_json()} for x, e in points] for name, points in curves.items()}


def figure_data(content: ReportContent) -> dict[str, Any]:
    """The series every figure draws, by figure kind (``report.json``'s
    ``figure_data``): curves as points ``{"x", "mean", "low", "high", "n", ...}``, bars
    as estimates.

    >>> from twosat_formal.report.content import compute_content
    >>> sorted(figure_data(compute_content([])))[:3]
    ['duplication_bars', 'edit_curves', 'filler_bars']
    """
    return _clean(_figure_series(content))


def _figure_series(content: ReportContent) -> dict[str, Any]:
    """:func:`figure_data` before it is made JSON (``report.json`` cleans it whole)."""
    return {
        "size_curves": {f: _curves(c) for f, c in content.size_curves.items()},
        "size_metric_curves": {
            metric: {f: _curves(c) for f, c in by_family.items()}
            for metric, by_family in content.size_metric_curves.items()
        },
        "template_curves": {f: _curves(c) for f, c in content.template_curves.items()},
        "knob_curves": {
            panel: {knob: _curves(c) for knob, c in by_knob.items()}
            for panel, by_knob in content.knob_curves.items()
        },
        "order_bars": content.order_bars,
        "order_model_bars": content.order_model_bars,
        "filler_bars": content.filler_bars,
        "duplication_bars": content.duplication_bars,
        "edit_curves": _curves(content.edit_curves),
    }


def _summary_json(s: ModelSummary) -> dict[str, Any]:
    """The JSON of one model's summary (``summaries`` in ``report.json``): its fields but
    the failure kinds (``failures`` holds them by model)."""
    return fields_json(s, skip=("failures",))


def _table1_json(r: Table1Row) -> dict[str, Any]:
    """One row of Table 1: its family, size, label and per-model cells (for :func:`_clean`)."""
    return {
        "family": r.family,
        "clauses": r.clauses,
        "label": r.label,
        "cells": {
            m: {
                "sat": c.sat,
                "wit": c.wit,
                "templates": c.templates,
                "samples": c.samples,
                "partial": r.partial(m),
            }
            | ({"wit_unsat": c.cyc} if c.cyc is not None else {})
            for m, c in r.cells.items()
        },
    }


def _optional_json(content: ReportContent) -> dict[str, Any]:
    """The sections a run has only with their records (for :func:`_clean`): ``edits``,
    ``stories``, ``pairs``, ``traces``, ``strategies``, ``diagnostics``, ``questions``;
    each only where the content has it.
    """
    out: dict[str, Any] = {}
    if content.edits is not None:
        edited, changed = content.edit_proof_lengths
        out["edits"] = {
            "models": content.edits,
            "proof_length_records": {"edited": edited, "changed": changed},
        }
    for key in ("stories", "pairs", "traces", "strategies", "diagnostics", "questions"):
        if getattr(content, key) is not None:
            out[key] = getattr(content, key)
    return out


#: The significance tests of ``report.json``, each under its content attribute's name.
_TESTS = ("knob_tests", "order_tests", "filler_tests", "duplication_tests")


def content_to_json(content: ReportContent, figures: list[Image]) -> dict[str, Any]:
    """The machine-readable part of a report (``report.json``).

    >>> from twosat_formal.report.content import compute_content
    >>> sorted(content_to_json(compute_content([]), []))[:3]
    ['budgets', 'captions', 'duplication_tests']
    """
    return _clean(
        {
            "title": content.title,
            "rows": content.rows,
            "models": content.models,
            "families": content.families,
            "templates": content.templates,
            "summaries": [_summary_json(s) for s in content.summaries],
            "failures": {s.model: s.failures for s in content.summaries},
            "failure_kinds": content.failure_kinds,
            "budgets": content.budgets,
            "sat_bias_by_family": content.sat_bias_by_family,
            "template_table": content.template_table,
            "captions": {
                "grid_knobs": content.grid_knobs,
                "sweep_knobs": content.sweep_knobs,
                "grid_experiments": content.grid_experiments,
            },
            "figure_data": _figure_series(content),
            "table1": [_table1_json(r) for r in content.table1],
            **{key: getattr(content, key) for key in _TESTS},
            "figures": [f.path.as_posix() for f in figures],
            "notes": content.notes,
            **_optional_json(content),
        }
    )


def write_content(
    content: ReportContent,
    out_dir: str | os.PathLike[str],
    *,
    data: ReportData | None = None,
    method: str = CI_METHOD,
    seed: int = 0,
) -> Path:
    """Draw the figures and write ``report.md``, ``report.html`` and ``report.json``.

    With ``data`` (what ``content`` was computed from) the figures that need the
    answers one by one are drawn too (the leaderboard needs none of it; the decision
    confusion, the structural hardness and the response lengths do), and the HTML
    page gets the item browser over the answers of ``data.source``. Returns the path
    of ``report.md``.

    >>> import tempfile
    >>> from twosat_formal.report.content import compute_content
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
        measures = measures_of(data.instances.values())
        inputs = FigureInput(content, data.rows, method=method, seed=seed, measures=measures)
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


def inert_knob_notes(manifest: dict[str, Any] | None) -> list[str]:
    """One note per knob the experiment did not sweep because it moves nothing
    (the manifest's ``inert_knobs``).

    >>> (note,) = inert_knob_notes({"inert_knobs": [
    ...     {"family": "implication-cycle", "knob": "core_ratio", "clauses": [75, 100]}]})
    >>> note.split(" (")[0]
    'implication-cycle: knob core_ratio is inert at |C| = 75, 100'
    """
    entries = (manifest or {}).get("inert_knobs") or []
    notes = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        sizes = ", ".join(str(c) for c in entry.get("clauses") or [])
        notes.append(
            f"{entry.get('family')}: knob {entry.get('knob')} is inert at |C| = {sizes} "
            "(every level draws the same formula), so it is not swept there"
        )
    return notes


def _report_title(manifest: Mapping[str, Any] | None) -> str:
    """The default title: the experiment's name, when the manifest gives one."""
    experiment = (manifest or {}).get("experiment")
    return f"twosat-formal report: {experiment}" if experiment else "twosat-formal report"


def _add_diagnostics(
    content: ReportContent, diagnostics: str | os.PathLike[str], *, method: str, seed: int
) -> list[dict[str, Any]] | None:
    """Add the diagnostics section of the side run ``diagnostics`` to ``content``, and its
    question section when ``content`` has none and the side run asks question types;
    return the side run's rows in that case (the questions figure is drawn from them).
    Intervals by ``method``, drawn with ``seed``."""
    from twosat_formal.report.diagnostics import diagnostic_rows
    from twosat_formal.report.questions import asked_types, decision_rows, question_rows

    side = load_report_data(diagnostics).rows
    content.diagnostics = diagnostic_rows(
        decision_rows(side), content.models, method=method, seed=seed
    )
    if content.questions is None and asked_types(side):  # the side run asks them
        content.questions = question_rows(side, content.models, method=method, seed=seed)
        return side
    return None


def side_run(store_or_dir: str | os.PathLike[str]) -> Path | None:
    """The side run a ``bench`` folder holds (its
    :data:`~twosat_formal.report.files.DIAGNOSTICS_DIR`, with a manifest), else ``None``.

    >>> import tempfile, pathlib
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> side_run(tmp) is None
    True
    >>> (tmp / "diagnostics").mkdir(); _ = (tmp / "diagnostics" / "manifest.json").write_text("{}")
    >>> side_run(tmp) == tmp / "diagnostics"
    True
    """
    folder = Path(store_or_dir) / DIAGNOSTICS_DIR
    return folder if (folder / MANIFEST_FILE).is_file() else None


def _check_arguments(
    store_or_dir: object, out_dir: object, *, title: object, seed: object, diagnostics: object
) -> None:
    """Refuse :func:`build_report`'s arguments of the wrong type before any work: a path
    that is no str or path (or is empty), an output folder that is a file, a title that
    is no str, a seed that is no int.

    Raises
    ------
    ArgumentTypeError
        An argument of a type :func:`build_report` does not take.
    ConfigError
        An empty path, or an output folder that is an existing file.
    """
    from twosat_formal.errors import ConfigError, expect_type
    from twosat_formal.make.checks import check_seed

    paths = {"store_or_dir": store_or_dir, "out_dir": out_dir, "diagnostics": diagnostics}
    for name, value in paths.items():
        if value is None and name == "diagnostics":
            continue
        expect_type(value, (str, os.PathLike), parameter=name, valid="a path (str or PathLike)")
        if not os.fspath(value):  # type: ignore[call-overload]  # a str or PathLike: checked
            raise ConfigError(f"{name} is an empty path", parameter=name, valid="a path")
    if Path(out_dir).exists() and not Path(out_dir).is_dir():  # type: ignore[arg-type]
        raise ConfigError(
            f"{out_dir}: the report folder is a file", parameter="out_dir", valid="a folder"
        )
    if title is not None:
        expect_type(title, str, parameter="title", valid="a str or None")
    check_seed(seed)


def build_report(
    store_or_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    title: str | None = None,
    method: str = CI_METHOD,
    seed: int = 0,
    diagnostics: str | os.PathLike[str] | None = None,
) -> Path:
    """Build the report of a run store or experiment folder into ``out_dir``.

    ``diagnostics``: a run store or experiment folder of a small twins-and-chains run
    (what ``bench`` writes in ``diagnostics/``), summarised in its own section. Without
    it, a folder's own :data:`~twosat_formal.report.files.DIAGNOSTICS_DIR` is that run
    when it holds one (:func:`side_run`): the report of a ``bench`` folder is the one
    ``bench`` wrote.

    ``method`` picks the confidence intervals (``"wilson"``, ``"t"``, or
    ``"bootstrap"`` drawn with ``seed``; all within [0, 1]). Returns the path of
    ``report.md``; ``report.html``, ``report.json`` and ``figures/`` sit next to it.

    >>> import tempfile, pathlib
    >>> from twosat_formal.evaluate.store import RunStore
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> RunStore(tmp / "runs.sqlite").close()
    >>> build_report(tmp / "runs.sqlite", tmp / "out").name
    'report.md'
    """
    _check_arguments(store_or_dir, out_dir, title=title, seed=seed, diagnostics=diagnostics)
    data = load_report_data(store_or_dir)
    manifest = data.manifest
    from twosat_formal.report.questions import asked_types, decision_rows, question_rows

    # the other sections read the decision; other question types get their own section
    asked = asked_types(data.rows)
    content = compute_content(
        decision_rows(data.rows) if asked else data.rows,
        title=_report_title(manifest) if title is None else title,
        manifest=manifest,
        method=method,
        seed=seed,
        model_order=manifest_models(manifest),
        stories=data.stories,
        traces=data.traces,
        budgets=data.budgets,
    )
    content.notes.extend(data.notes)
    content.notes.extend(inert_knob_notes(manifest))
    question_source = data.rows if asked else None
    if asked:
        content.questions = question_rows(data.rows, content.models, method=method, seed=seed)
    if diagnostics is None:
        diagnostics = side_run(store_or_dir)
    side = (
        None
        if diagnostics is None
        else _add_diagnostics(content, diagnostics, method=method, seed=seed)
    )
    if side is not None:  # the questions come from the side run
        question_source = side
    if question_source is not None:
        from twosat_formal.report.questions import draw_questions_figure

        content.questions_figure = draw_questions_figure(
            question_source, out_dir, content.models, method=method, seed=seed
        )
    return write_content(content, out_dir, data=data, method=method, seed=seed)
