"""``export``: a certified dataset, written for the tool that will read it.

The inputs are dataset and prompt files together, as for ``certify``: instance
records, template prompt records and story records, in any number of JSON Lines
files. Unless told otherwise, they are certified first with ``certify``'s own checks
(:func:`twosat_formal.certify.certify_files`: labels by three solvers, certificates,
transform proofs, prompt round trips) and refused if any check fails.

Formats, one registry (:data:`EXPORT_FORMATS`), each a ``write`` function: ``hf``
(Parquet + JSON Lines + dataset card), ``dimacs`` (one ``.cnf`` per instance +
``index.csv``), ``inspect`` (a task file) and ``lm-eval`` (a task folder).
A folder is written beside its target and renamed into place when complete; the
target must be missing or empty.

Examples
--------
>>> EXPORT_FORMATS.names()
['hf', 'dimacs', 'inspect', 'lm-eval']
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from twosat_formal._util.atomic import refuse_repeats, write_target
from twosat_formal._util.registry import Registry
from twosat_formal.core.model import DEFAULT_MAX_TOKENS
from twosat_formal.core.params import COUNT, Rule, check, rules_table
from twosat_formal.errors import ConfigError, RecordError

if TYPE_CHECKING:
    from twosat_formal.evaluate.run import EvalItem, StoryPrompt
    from twosat_formal.io.instance import Instance
    from twosat_formal.verbalize.prompts import PromptRecord

__all__ = [
    "DEFAULT_LICENSE",
    "DEFAULT_MAX_GEN_TOKS",
    "EXPORT_FORMATS",
    "OPTION_RULES",
    "Bundle",
    "ExportFormat",
    "ExportOptions",
    "certify_inputs",
    "export_dataset",
    "load_bundle",
]


@dataclass(frozen=True)
class ExportFormat:
    """One export format: its name, the ``module:function`` that writes it, one line,
    and the packages it needs."""

    name: str
    target: str
    summary: str
    requires: tuple[str, ...] = ()

    def writer(self) -> Callable[[Bundle, Path, ExportOptions], list[Path]]:
        """The format's ``write(bundle, folder, options) -> files`` function.

        Raises :class:`~twosat_formal.errors.MissingExtraError` when a package the
        format needs is not installed.
        """
        from twosat_formal.integrations import require

        for module in self.requires:
            require(module, f"export --to {self.name}")
        module, function = self.target.split(":")
        writer: Callable[[Bundle, Path, ExportOptions], list[Path]] = getattr(
            import_module(module), function
        )
        return writer


#: Every export format, by name.
EXPORT_FORMATS: Registry[ExportFormat] = Registry("export format")
_HERE = "twosat_formal.integrations."
for _format in (
    ExportFormat(
        "hf",
        _HERE + "hf:write",
        "Hugging Face dataset: typed Parquet rows, one config per family, a dataset card",
        ("pyarrow", "datasets"),
    ),
    ExportFormat(
        "dimacs", _HERE + "dimacs:write", "one DIMACS .cnf per instance with its label, index.csv"
    ),
    ExportFormat(
        "inspect", _HERE + "task_files:write_inspect", "an inspect task (inspect eval DIR/T.py)"
    ),
    ExportFormat(
        "lm-eval", _HERE + "task_files:write_lm_eval", "an lm-eval task folder (YAML, utils.py)"
    ),
):
    EXPORT_FORMATS.add(_format.name, _format)


#: lm-eval's default generation budget: below the context of every model of 2k tokens or
#: more, so lm-eval's HF backend (which asserts ``max_gen_toks < max_length``) runs any
#: such model, with room left for the prompt; raise it for long-context models
#: (``export --max-gen-toks``, or ``lm_eval --gen_kwargs max_gen_toks=N``).
DEFAULT_MAX_GEN_TOKS = 1024

#: The dataset card's default license: none chosen (``export --license`` names one).
DEFAULT_LICENSE = "unknown"


@dataclass(frozen=True)
class ExportOptions:
    """What an export may be told.

    ``name``: the task and dataset name; ``max_tokens``: the inspect task's generation
    budget; ``max_gen_toks``: the lm-eval task's; ``license``: the Hugging Face card's
    license (an identifier of the Hub's list, such as ``cc-by-4.0`` or ``mit``).
    """

    name: str = "twosat"
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_gen_toks: int = DEFAULT_MAX_GEN_TOKS
    license: str = DEFAULT_LICENSE
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check(_OPTIONS, OPTION_RULES, {name: getattr(self, name) for name in OPTION_RULES})


#: The rules of :class:`ExportOptions`' fields.
OPTION_RULES: dict[str, Rule] = {
    "name": Rule(str, "a string"),
    "max_tokens": COUNT,
    "max_gen_toks": COUNT,
    "license": Rule(
        Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.+-]*$")],
        "lowercase, like cc-by-4.0, apache-2.0, mit, other or unknown",
        "license {value!r} is not a Hub license identifier",
    ),
}
_OPTIONS = rules_table("export options", OPTION_RULES)


@dataclass(frozen=True)
class Bundle:
    """The records of the inputs: instances, and prompts with their formulas and labels.

    ``items`` are the prompts (template and story) in input order, each with its
    instance's formula, label and record; ``instances`` are every instance record.
    """

    instances: tuple[Instance, ...]
    items: tuple[EvalItem, ...]
    sources: tuple[str, ...] = ()


def load_bundle(paths: Sequence[str | Path]) -> Bundle:
    """Read instance, prompt and story records from ``paths`` (mixed, in any order).

    Raises
    ------
    RecordError
        A malformed record, or a prompt whose instance is in none of the files.
    """
    from twosat_formal.evaluate.run import EvalItem

    instances, prompts = _read_records(paths)
    items = []
    for prompt, source, number in prompts:
        found = instances.get(prompt.instance_id)
        if found is None:
            raise RecordError(
                f"prompt {prompt.id} verbalizes instance {prompt.instance_id!r}, which is "
                "in none of the inputs (give the dataset file too)",
                line=number,
                source=source,
            )
        items.append(EvalItem(prompt, found.formula, found.label, found.to_record()))
    return Bundle(tuple(instances.values()), tuple(items), tuple(str(p) for p in paths))


def _read_records(
    paths: Sequence[str | Path],
) -> tuple[dict[str, Instance], list[tuple[PromptRecord | StoryPrompt, str, int]]]:
    """The instances (the first of each id) and the prompts, each with where it was read."""
    from twosat_formal.io.instance import Instance
    from twosat_formal.io.jsonl import read_json_lines

    instances: dict[str, Instance] = {}
    prompts: list[tuple[PromptRecord | StoryPrompt, str, int]] = []
    for path in paths:
        for line in read_json_lines(path):
            record, number, source = line.value, line.number, line.source
            prompt = _prompt_of(record, number, source)
            if prompt is not None:
                prompts.append((prompt, source, number))
            elif not isinstance(record, dict):
                raise RecordError("a record must be a JSON object", line=number, source=source)
            elif "base_dimacs" in record and "id" not in record:
                continue  # a one-formula perturb document: nothing to export
            else:
                instance = Instance.from_record(record, line=number, source=source)
                instances.setdefault(instance.id, instance)
    return instances, prompts


def _prompt_of(record: Any, number: int, source: str) -> PromptRecord | StoryPrompt | None:
    """The prompt of a story or prompt record; ``None`` for any other record."""
    from twosat_formal.evaluate.run import StoryPrompt
    from twosat_formal.verbalize.prompts import PromptRecord
    from twosat_formal.verbalize.story.record import StoryRecord, is_story_record

    if is_story_record(record):
        story = StoryRecord.from_record(record, line=number, source=source)
        return StoryPrompt.from_story(story)
    if isinstance(record, dict) and "instance_id" in record and "text" in record:
        return PromptRecord.from_record(record, line=number, source=source)
    return None


def certify_inputs(paths: Sequence[str | Path], *, jobs: int = 1) -> int:
    """Run ``certify``'s checks on ``paths``; the number of records, or an error.

    Raises
    ------
    RecordError
        When any check fails: how many records failed and the first failure.
    """
    from twosat_formal.certify import certify_files

    report = certify_files(list(paths), jobs=jobs)
    if not report.ok:
        first = report.failures[0]
        raise RecordError(
            f"{report.failed_records} of {report.records} records failed certification "
            f"(first: {first}); run `twosat-formal certify` on the inputs, or pass "
            "--no-certify to export them anyway"
        )
    return report.records


def _refuse_used(out: Path) -> None:
    """Refuse an ``out`` that exists and is not an empty folder."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(
            f"{out} exists and is not an empty folder; choose a new one",
            parameter="out",
            valid="a missing or empty folder",
        )


def _fresh(out: Path) -> Path:
    """A new folder beside ``out`` to write into, named so that it is nobody else's."""
    _refuse_used(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    mask = os.umask(0)
    os.umask(mask)
    partial.chmod(0o777 & ~mask)  # the permissions a plain mkdir() gives
    return partial


def _move_in(partial: Path, target: Path) -> None:
    """Make the written folder ``partial`` the folder ``target``.

    A missing ``target`` becomes ``partial`` by one rename; an existing (empty) folder
    is kept and receives ``partial``'s entries, so that nothing the caller made is
    deleted.
    """
    if not target.exists():
        os.replace(partial, target)
        return
    for entry in sorted(partial.iterdir()):
        os.replace(entry, target / entry.name)
    partial.rmdir()


def export_dataset(
    paths: Sequence[str | Path],
    to: str,
    out: str | Path,
    *,
    certify: bool = True,
    options: ExportOptions | None = None,
    jobs: int = 1,
) -> list[Path]:
    """Export the records of ``paths`` in format ``to`` into folder ``out``.

    Parameters
    ----------
    paths:
        Dataset and prompt files (JSON Lines), as for ``certify``.
    to:
        A name of :data:`EXPORT_FORMATS`.
    out:
        The folder to create (missing or empty).
    certify:
        Run ``certify``'s checks first and refuse the inputs if any fails.
    options:
        Task name and generation budget (inspect, lm-eval).
    jobs:
        Worker processes for certification.

    Returns
    -------
    list of Path
        The files written, under ``out``.

    Raises
    ------
    ConfigError
        A file given twice in ``paths`` (as ``./d.jsonl``, a link or a hard link too):
        its records would be exported twice, certified or not.
    """
    refuse_repeats(paths, noun="input", parameter="paths")
    fmt = EXPORT_FORMATS.get(to)
    writer = fmt.writer()  # a missing extra fails here, before any work
    target = write_target(out)  # a link to a folder: the folder it names
    _refuse_used(target)
    if certify:
        certify_inputs(paths, jobs=jobs)
    bundle = load_bundle(paths)
    partial = _fresh(target)
    try:
        files = writer(bundle, partial, options or ExportOptions())
        _move_in(partial, target)
    finally:
        if partial.exists():
            shutil.rmtree(partial)
    return [Path(out) / f.relative_to(partial) for f in files]
