"""``export --to inspect`` and ``export --to lm-eval``: task folders for the two harnesses.

Both folders hold the rows (:func:`~twosat_formal.integrations.rows.item_row`) as
``<name>.jsonl`` beside small task files that read them from their own folder, so a
folder can be moved or copied as a whole. Scoring is this project's
(:func:`~twosat_formal.integrations.rows.judge_row`), imported from
:mod:`twosat_formal.integrations.inspect` and :mod:`twosat_formal.integrations.lm_eval`
when the harness runs; writing the folders needs neither harness.

* inspect: ``<name>.py`` with a ``@task`` named ``<name>``::

      inspect eval DIR/<name>.py --model twosat/oracle --limit 4

* lm-eval: the group ``<name>.yaml`` (group ``<name>``), one subtask
  ``<name>_<family>.yaml`` per family (and ``<name>_<family>_<type>.yaml`` per family and
  question type other than the decision, when the prompts ask them), and ``utils.py``::

      lm_eval --model dummy --tasks <name> --include_path DIR --limit 3

Examples
--------
>>> task_identifier("twosat-v1")
'twosat_v1'
"""

from __future__ import annotations

import json
import keyword
import re
import unicodedata
from pathlib import Path
from typing import Any

from twosat_formal.integrations.exports import Bundle, ExportOptions
from twosat_formal.integrations.rows import ROW_COLUMNS, item_row
from twosat_formal.io.jsonl import json_line, write_lines

__all__ = ["GROUP_METRICS", "LM_EVAL_METRICS", "task_identifier", "write_inspect", "write_lm_eval"]


def task_identifier(name: str) -> str:
    """``name`` as a Python identifier (the inspect task's function name).

    Each character that cannot be part of an identifier, or that Python would read
    as another (``ﬁ`` is ``fi`` once normalised), becomes ``_``; a name that then
    starts with a digit, or is empty or a keyword (``class``), gets ``task_`` before it.

    >>> task_identifier("class"), task_identifier("2sat²"), task_identifier("ümlaut")
    ('task_class', 'task_2sat_', 'ümlaut')
    """
    ident = "".join(c if _identifier_char(c) else "_" for c in name)
    if not ident or ident[0].isdigit() or keyword.iskeyword(ident):
        return f"task_{ident}"
    return ident


def _identifier_char(char: str) -> bool:
    """Whether ``char`` may stand after the first character of an identifier, as itself."""
    return (
        re.fullmatch(r"\w", char) is not None
        and f"a{char}".isidentifier()
        and unicodedata.normalize("NFKC", char) == char
    )


def _quoted(name: str) -> str:
    """``name`` quoted for a generated module's docstring: its ``repr``, each ``"``
    escaped, so that no name can end the docstring."""
    return repr(name).replace('"', '\\"')


def _rows(bundle: Bundle, folder: Path, name: str) -> tuple[Path, list[dict[str, Any]]]:
    """Write the rows of the prompts to ``<name>.jsonl``; the file and the rows."""
    if not bundle.items:
        from twosat_formal.errors import ConfigError

        raise ConfigError(
            "no prompts in the inputs: a task asks prompts "
            "(run `twosat-formal verbalize` and give its output too)",
            parameter="inputs",
        )
    path = folder / f"{name}.jsonl"
    rows = [item_row(item) for item in bundle.items]
    write_lines((json_line({c: row[c] for c in ROW_COLUMNS}) for row in rows), path)
    return path, rows


_INSPECT = '''"""inspect task {shown}: certified 2-SAT prompts exported by twosat-formal.

Run: inspect eval {file} --model MODEL [--limit N]
Each sample's metadata is its row of {data}; the scorer is twosat-formal's (decision
and witness, strict and lenient; the failure kind in each score's metadata).
"""

from pathlib import Path

from inspect_ai import Task, task

from twosat_formal.integrations.inspect import twosat_task


@task
def {ident}(max_tokens: int = {max_tokens}) -> Task:
    """The prompts of {data} (generation budget: max_tokens)."""
    return twosat_task(Path(__file__).with_name({data!r}), max_tokens=max_tokens, name={name!r})
'''


def write_inspect(bundle: Bundle, folder: Path, options: ExportOptions) -> list[Path]:
    """Write ``<name>.jsonl`` and the task file ``<name>.py`` into ``folder``."""
    ident = task_identifier(options.name)
    data, _ = _rows(bundle, folder, ident)
    task = folder / f"{ident}.py"
    text = _INSPECT.format(
        name=options.name,
        shown=_quoted(options.name),
        ident=ident,
        file=f"DIR/{task.name}",
        data=data.name,
        max_tokens=options.max_tokens,
    )
    task.write_text(text, encoding="utf-8")
    return [data, task]


_UTILS = '''"""lm-eval task {shown}: certified 2-SAT prompts exported by twosat-formal.

The documents are the rows of {data}, read from this folder (one subtask per family:
the rows of that family); process_results is twosat-formal's scorer (strict and
lenient accuracy, decision accuracy, witness validity on SAT prompts only).
"""

from pathlib import Path

from twosat_formal.integrations.lm_eval import (  # noqa: F401  (named in the YAML files)
    doc_to_target,
    doc_to_text,
    load_docs,
    process_results,
)


def load(family=None, question_type=None, **kwargs):
    """The test split: the rows of {data} (of one family and question type, when given)."""
    return load_docs(
        Path(__file__).with_name({data!r}), family=family, question_type=question_type
    )
'''

#: The metrics of the lm-eval task: name and meaning. ``witness_validity`` has values
#: on SAT prompts only, so it is N/A (absent) where there are none.
LM_EVAL_METRICS: tuple[tuple[str, str], ...] = (
    ("strict_accuracy", "right decision and, on SAT, a valid witness (strict)"),
    ("lenient_accuracy", "the same under the lenient reading"),
    ("decision_accuracy", "right decision (strict answer line)"),
    ("witness_validity", "valid witness, SAT prompts only (N/A without any)"),
)


#: The metrics the group reports (every prompt has a value for each).
GROUP_METRICS = ("strict_accuracy", "lenient_accuracy", "decision_accuracy")


def _subtask_yaml(
    task: str, family: str, options: ExportOptions, question_type: str | None = None
) -> str:
    what = "" if question_type is None else f" {question_type}"
    lines = [
        f"# lm-evaluation-harness task {task!r}: the {family}{what} prompts of group "
        f"{options.name!r}, exported by twosat-formal.",
        f"task: {json.dumps(task)}",
        "custom_dataset: !function utils.load",
        "dataset_kwargs:",
        f"  family: {json.dumps(family)}",
        *([] if question_type is None else [f"  question_type: {json.dumps(question_type)}"]),
        "test_split: test",
        "output_type: generate_until",
        "doc_to_text: !function utils.doc_to_text",
        "doc_to_target: !function utils.doc_to_target",
        "process_results: !function utils.process_results",
        "generation_kwargs:",
        "  until: []",
        f"  max_gen_toks: {options.max_gen_toks}",
        "  do_sample: false",
        "metric_list:",
    ]
    for metric, meaning in LM_EVAL_METRICS:
        lines += [
            f"  - metric: {metric}  # {meaning}",
            "    aggregation: mean",
            "    higher_is_better: true",
        ]
    lines += ["metadata:", "  version: 1.0", ""]
    return "\n".join(lines)


def _group_yaml(group: str, tasks: list[str], options: ExportOptions) -> str:
    lines = [
        f"# lm-evaluation-harness group {group!r}, exported by twosat-formal: one subtask",
        "# per family; the accuracies are means over every prompt (subtasks weighted by",
        "# size). witness_validity, which only SAT prompts have, is reported per family:",
        "# lm-eval weights a group by all of a subtask's prompts, which would misweight it.",
        f"# lm_eval --model MODEL --tasks {group} --include_path DIR",
        f"# generation budget: max_gen_toks {options.max_gen_toks} "
        "(lm_eval --gen_kwargs max_gen_toks=N to change it)",
        f"group: {json.dumps(group)}",
        "task:",
        *(f"  - {json.dumps(task)}" for task in tasks),
        "aggregate_metric_list:",
    ]
    for metric in GROUP_METRICS:
        lines += [f"  - metric: {metric}", "    aggregation: mean", "    weight_by_size: true"]
    lines += ["metadata:", "  version: 1.0", ""]
    return "\n".join(lines)


def _subtasks(asked: set[str], kinds: list[str]) -> list[tuple[str, str | None]]:
    """A family's subtasks (the suffix of the task's name, the question type it reads)
    given the types it asks and the dataset's types other than the decision: one
    subtask of every row without other types, else one per type the family asks (its
    decision subtask reads decision rows only).

    >>> _subtasks({"decision"}, [])
    [('', None)]
    >>> _subtasks({"decision", "core"}, ["core", "forced"])
    [('', 'decision'), ('_core', 'core')]
    """
    if not kinds:
        return [("", None)]
    return [
        ("" if kind == "decision" else f"_{kind}", kind)
        for kind in ["decision", *kinds]
        if kind in asked
    ]


def write_lm_eval(bundle: Bundle, folder: Path, options: ExportOptions) -> list[Path]:
    """Write ``<name>.jsonl``, the group ``<name>.yaml``, one ``<name>_<family>.yaml``
    subtask per family and ``utils.py`` into ``folder``."""
    group = task_identifier(options.name)
    data, rows = _rows(bundle, folder, group)
    families = sorted({str(row["family"]) for row in rows})
    kinds = sorted({str(row["question_type"]) for row in rows} - {"decision"})
    files = [data]
    tasks = []
    for family in families:
        asked = {str(r["question_type"]) for r in rows if str(r["family"]) == family}
        for suffix, only in _subtasks(asked, kinds):
            task = f"{group}_{task_identifier(family)}{suffix}"
            path = folder / f"{task}.yaml"
            path.write_text(_subtask_yaml(task, family, options, only), encoding="utf-8")
            tasks.append(task)
            files.append(path)
    config = folder / f"{group}.yaml"
    config.write_text(_group_yaml(group, tasks, options), encoding="utf-8")
    utils = folder / "utils.py"
    utils.write_text(_UTILS.format(shown=_quoted(options.name), data=data.name), encoding="utf-8")
    return [data, config, *files[1:], utils]
