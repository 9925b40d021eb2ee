"""Read what a report needs: result rows, instance metadata, design and manifest.

A report reads either a run store (an SQLite file written by ``twosat-formal eval``)
or an experiment folder written by :func:`twosat_formal.study.experiments.run_experiment`
or ``twosat-formal bench``, which holds:

* ``results.sqlite``: the run store (results, prompts, instance records);
* ``dataset.jsonl``: the instance records (used when the store holds none);
* ``design.jsonl``: one record per instance with its experimental condition
  (``experiment``, ``kind``, ``clauses``, ``replicate``, ``knob``, ``level``, ``arm``,
  ``arm_label``, ``shuffled``);
* ``manifest.json``: versions, seeds, spec, models and sampling parameters;
* ``stories.jsonl`` (optional): story records of the LLM story verbalizer.

Story validation counts (:func:`twosat_formal.evaluate.run.story_counts`) are gathered by
story id from the ``stories.jsonl`` of a folder and from the ``info`` of every run in
the store (``eval`` keeps the counts of the story prompts it asks there).

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "design.jsonl").write_text('{"instance_id": "a", "arm": "base"}\\n')
>>> read_design(folder / "design.jsonl")
{'a': {'instance_id': 'a', 'arm': 'base'}}
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twosat_formal.core.jsonread import read_json_file
from twosat_formal.errors import RecordError
from twosat_formal.evaluate.run import story_counts
from twosat_formal.evaluate.store import RunStore
from twosat_formal.io.jsonl import read_json_lines
from twosat_formal.report.arms import strategy_arms
from twosat_formal.report.files import (
    DATASET_FILE,
    DESIGN_FILE,
    MANIFEST_FILE,
    STORE_FILE,
    STORIES_FILE,
)
from twosat_formal.report.metrics import join_instances
from twosat_formal.verbalize.story.files import read_stories

__all__ = [
    "DATASET_FILE",
    "DESIGN_FILE",
    "MANIFEST_FILE",
    "STORE_FILE",
    "STORIES_FILE",
    "ReportData",
    "load_report_data",
    "read_design",
    "read_jsonl",
]


@dataclass
class ReportData:
    """Joined rows ready for :func:`~twosat_formal.report.sections.compute_content`.

    ``traces`` holds the trace-checker row of every stored answer to a template prompt
    (:func:`twosat_formal.evaluate.diagnostics.trace.trace_rows`) with its instance's family.
    ``instances`` holds the instance records the rows were joined with, by id.
    ``stories`` holds the validation counts of every story record found, by story id
    (empty when there are none). ``budgets`` holds the token budgets each model was
    asked with, as its stored requests record them (:meth:`RunStore.budgets`; empty for
    JSON Lines result rows).
    """

    source: Path
    rows: list[dict[str, Any]]
    manifest: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    stories: dict[str, dict[str, Any]] = field(default_factory=dict)
    traces: list[dict[str, Any]] = field(default_factory=list)
    budgets: dict[str, list[int]] = field(default_factory=dict)
    instances: dict[str, dict[str, Any]] = field(default_factory=dict)


def _manifest(path: Path) -> dict[str, Any]:
    """An experiment's manifest (read by the one JSON reader); it must be an object."""
    data = read_json_file(path)
    if not isinstance(data, dict):
        raise RecordError("a manifest is a JSON object", source=str(path))
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a JSON Lines file (blank lines skipped).

    Raises :class:`RecordError` with the line number on a line that is not a JSON
    object.
    """
    records = []
    for line in read_json_lines(path):
        if not isinstance(line.value, dict):
            raise RecordError("a record must be a JSON object", line=line.number, source=str(path))
        records.append(line.value)
    return records


def read_design(path: Path) -> dict[str, dict[str, Any]]:
    """Design records by instance id."""
    design = {}
    for line in read_json_lines(path):
        record = line.value
        if not isinstance(record, dict):
            raise RecordError("a record must be a JSON object", line=line.number, source=str(path))
        if "instance_id" not in record:
            raise RecordError(
                "design record without instance_id", line=line.number, source=str(path)
            )
        design[str(record["instance_id"])] = record
    return design


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(len(_SQLITE_MAGIC))
    return head == _SQLITE_MAGIC or not head  # an empty file is a new store


def _load_jsonl_results(path: Path) -> ReportData:
    """Result rows written by ``results`` or ``run-experiment`` (``results.jsonl``),
    joined with the ``dataset.jsonl`` (and ``design.jsonl``, ``manifest.json``) beside
    them."""
    dataset_path = path.parent / DATASET_FILE
    if not dataset_path.is_file():
        raise RecordError(
            "not a run store (SQLite); read as JSON Lines result rows, they need their "
            f"instances in {DATASET_FILE} beside them (or give the experiment folder or "
            "the run store)",
            source=str(path),
        )
    rows = read_jsonl(path)
    instances = {str(r.get("id")): r for r in read_jsonl(dataset_path)}
    design_path = path.parent / DESIGN_FILE
    design = read_design(design_path) if design_path.is_file() else None
    manifest_path = path.parent / MANIFEST_FILE
    manifest = None
    if manifest_path.is_file():
        manifest = _manifest(manifest_path)
    joined = join_instances(rows, instances, design=design, strict=False)
    notes = []
    if len(joined) < len(rows):
        notes.append(
            f"{len(rows) - len(joined)} result rows name no known instance and are left out"
        )
    return ReportData(path, strategy_arms(joined), manifest, notes, instances=instances)


def load_report_data(store_or_dir: str | os.PathLike[str]) -> ReportData:
    """Load the rows of a run store, an experiment folder, or JSON Lines result rows
    (``results.jsonl`` with its ``dataset.jsonl`` beside it), joined with metadata.

    Rows whose instance is unknown (a prompt stored without its instance) are left
    out and counted in ``notes``.
    """
    source = Path(store_or_dir)
    manifest = None
    design = None
    dataset: list[dict[str, Any]] = []
    if source.is_file() and not _is_sqlite(source):
        return _load_jsonl_results(source)
    if source.is_dir():
        store_path = source / STORE_FILE
        if not store_path.is_file():
            raise FileNotFoundError(2, "No such file or directory", str(store_path))
        if (source / MANIFEST_FILE).is_file():
            manifest = _manifest(source / MANIFEST_FILE)
        if (source / DESIGN_FILE).is_file():
            design = read_design(source / DESIGN_FILE)
        if (source / DATASET_FILE).is_file():
            dataset = read_jsonl(source / DATASET_FILE)
    else:
        store_path = source
    stories: dict[str, dict[str, Any]] = {}
    if source.is_dir() and (source / STORIES_FILE).is_file():
        stories.update(story_counts(read_stories(source / STORIES_FILE)))
    with RunStore(store_path, readonly=True) as store:
        # the experiment design's nominal clause count, not the formula's, names a cell
        # every column but the answers' text, which no table or figure reads
        rows = [
            {k: v for k, v in row.items() if k != "clauses"}
            for row in store.export_rows(without={"response"})
        ]
        instances = {str(r.get("id")): r for r in store.instances()}
        budgets = store.budgets()
        for run in store.runs():
            stored = run["info"].get("stories") if isinstance(run["info"], dict) else None
            if isinstance(stored, dict):
                for key, counts in stored.items():
                    if isinstance(counts, dict):
                        stories.setdefault(str(key), counts)
    for record in dataset:
        instances.setdefault(str(record.get("id")), record)
    joined = join_instances(rows, instances, design=design, strict=False)
    notes = []
    if len(joined) < len(rows):
        notes.append(
            f"{len(rows) - len(joined)} result rows name no known instance and are left out"
        )
    joined = strategy_arms(joined)
    for row in joined:  # an arm was asked with its model's budgets
        if row["model"] not in budgets and row["model_spec"] in budgets:
            budgets[row["model"]] = budgets[row["model_spec"]]
    from twosat_formal.evaluate.diagnostics.trace import trace_rows

    traces = []
    for trace in trace_rows(store_path):
        record = instances.get(str(trace["instance_id"])) or {}
        traces.append({**trace, "family": record.get("family")})
    return ReportData(source, joined, manifest, notes, stories, traces, budgets, instances)
