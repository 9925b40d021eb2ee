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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from twosat_formal.errors import RecordError
from twosat_formal.evaluate.run import story_counts
from twosat_formal.evaluate.store import RunStore
from twosat_formal.io.jsonl import read_json_file, read_json_lines
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
    "ReportData",
    "load_report_data",
    "manifest_models",
    "read_design",
    "read_jsonl",
    "read_manifest",
]


@dataclass
class ReportData:
    """Joined rows ready for :func:`~twosat_formal.report.content.compute_content`.

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


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest at ``path`` (read by the one JSON reader), or ``None`` if there is
    none; :class:`RecordError` if it is not a JSON object, or not a regular file."""
    if not path.exists():
        return None
    data = read_json_file(path)
    if not isinstance(data, dict):
        raise RecordError("a manifest is a JSON object", source=str(path))
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a JSON Lines file (blank lines skipped).

    Raises :class:`RecordError` with the line number on a line that is not a JSON
    object.
    """
    return [record for _, record in _objects(path)]


def _objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line's number and JSON object (:class:`RecordError` on any other value)."""
    for line in read_json_lines(path):
        if not isinstance(line.value, dict):
            raise RecordError("a record must be a JSON object", line=line.number, source=str(path))
        yield line.number, line.value


def manifest_models(manifest: Mapping[str, Any] | None) -> list[str]:
    """The models in the manifest's order (none without a list of models).

    >>> manifest_models({"models": ["b", "a"]}), manifest_models(None)
    (['b', 'a'], [])
    """
    models = (manifest or {}).get("models") or []
    return [str(m) for m in models] if isinstance(models, list) else []


def read_design(path: Path) -> dict[str, dict[str, Any]]:
    """Design records by instance id."""
    design = {}
    for number, record in _objects(path):
        if "instance_id" not in record:
            raise RecordError("design record without instance_id", line=number, source=str(path))
        design[str(record["instance_id"])] = record
    return design


_T = TypeVar("_T")

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(len(_SQLITE_MAGIC))
    return head == _SQLITE_MAGIC or not head  # an empty file is a new store


def _optional(path: Path, reader: Callable[[Path], _T]) -> _T | None:
    """``reader(path)`` when the file exists, else ``None``."""
    return reader(path) if path.is_file() else None


def _joined(
    rows: list[dict[str, Any]],
    instances: dict[str, dict[str, Any]],
    design: dict[str, dict[str, Any]] | None,
    source: Path,
    lines: list[int] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows joined with their instances and arms, and the note on rows left out; a
    refused row is named by ``source`` and its line (``lines``, else its number among
    the rows: the line `twosat-formal results` writes it on)."""
    joined = join_instances(
        rows, instances, design=design, strict=False, lines=lines, source=str(source)
    )
    notes = []
    if len(joined) < len(rows):
        notes.append(
            f"{len(rows) - len(joined)} result rows name no known instance and are left out"
        )
    return strategy_arms(joined), notes


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
    numbered = list(_objects(path))
    rows = [row for _, row in numbered]
    instances = {str(r.get("id")): r for r in read_jsonl(dataset_path)}
    design = _optional(path.parent / DESIGN_FILE, read_design)
    manifest = read_manifest(path.parent / MANIFEST_FILE)
    joined, notes = _joined(rows, instances, design, path, [number for number, _ in numbered])
    return ReportData(path, joined, manifest, notes, instances=instances)


def _folder_records(
    folder: Path,
) -> tuple[
    dict[str, Any] | None,
    dict[str, dict[str, Any]] | None,
    list[dict[str, Any]],
    dict[str, dict[str, Any]],
]:
    """The manifest, design, dataset and story counts an experiment folder holds."""
    manifest = read_manifest(folder / MANIFEST_FILE)
    design = _optional(folder / DESIGN_FILE, read_design)
    dataset = _optional(folder / DATASET_FILE, read_jsonl) or []
    stories = _optional(folder / STORIES_FILE, lambda p: story_counts(read_stories(p))) or {}
    return manifest, design, dataset, stories


def _store_records(
    store_path: Path,
) -> tuple[
    list[dict[str, Any]],
    dict[str, dict[str, Any]],
    dict[str, list[int]],
    dict[str, dict[str, Any]],
]:
    """The result rows, instances, budgets and run story counts of a run store."""
    with RunStore(store_path, readonly=True) as store:
        # the experiment design's nominal clause count, not the formula's, names a cell
        # every column but the answers' text, which no table or figure reads
        rows = [
            {k: v for k, v in row.items() if k != "clauses"}
            for row in store.export_rows(without={"response"})
        ]
        instances = {str(r.get("id")): r for r in store.instances()}
        return rows, instances, store.budgets(), _run_stories(store)


def _run_stories(store: RunStore) -> dict[str, dict[str, Any]]:
    """The story counts every run of the store keeps in its ``info``, by story id."""
    stories: dict[str, dict[str, Any]] = {}
    for run in store.runs():
        stored = run["info"].get("stories") if isinstance(run["info"], dict) else None
        if isinstance(stored, dict):
            for key, counts in stored.items():
                if isinstance(counts, dict):
                    stories.setdefault(str(key), counts)
    return stories


def _traces(store_path: Path, instances: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The trace rows of the store, each with its instance's family."""
    from twosat_formal.evaluate.diagnostics.trace import trace_rows

    return [
        {**trace, "family": (instances.get(str(trace["instance_id"])) or {}).get("family")}
        for trace in trace_rows(store_path)
    ]


def _arm_budgets(rows: list[dict[str, Any]], budgets: dict[str, list[int]]) -> None:
    """Give every strategy arm its model's budgets (an arm was asked with them)."""
    for row in rows:
        if row["model"] not in budgets and row["model_spec"] in budgets:
            budgets[row["model"]] = budgets[row["model_spec"]]


def load_report_data(store_or_dir: str | os.PathLike[str]) -> ReportData:
    """Load the rows of a run store, an experiment folder, or JSON Lines result rows
    (``results.jsonl`` with its ``dataset.jsonl`` beside it), joined with metadata.

    Rows whose instance is unknown (a prompt stored without its instance) are left
    out and counted in ``notes``.
    """
    source = Path(store_or_dir)
    if source.is_file() and not _is_sqlite(source):
        return _load_jsonl_results(source)
    store_path = source
    manifest: dict[str, Any] | None = None
    design: dict[str, dict[str, Any]] | None = None
    dataset: list[dict[str, Any]] = []
    stories: dict[str, dict[str, Any]] = {}
    if source.is_dir():
        store_path = source / STORE_FILE
        if not store_path.is_file():
            raise FileNotFoundError(2, "No such file or directory", str(store_path))
        manifest, design, dataset, stories = _folder_records(source)
    rows, instances, budgets, run_stories = _store_records(store_path)
    for key, counts in run_stories.items():
        stories.setdefault(key, counts)
    for record in dataset:
        instances.setdefault(str(record.get("id")), record)
    joined, notes = _joined(rows, instances, design, store_path)
    _arm_budgets(joined, budgets)
    traces = _traces(store_path, instances)
    return ReportData(source, joined, manifest, notes, stories, traces, budgets, instances)
