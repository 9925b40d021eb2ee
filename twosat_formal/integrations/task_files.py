"""``export --to inspect`` and ``export --to lm-eval``: task folders for the two harnesses.

Both folders hold the rows (:func:`~twosat_formal.integrations.rows.item_row`) as
``<name>.jsonl`` beside small task files that read them from their own folder, so a
folder can be moved or copied as a whole. Scoring is this project's
(:func:`~twosat_formal.integrations.rows.judge_row`), imported from
:mod:`twosat_formal.integrations.inspect` and :mod:`twosat_formal.integrations.lm_eval`
when the harness runs; writing the folders needs neither harness.

* inspect: ``<name>.py`` with a ``@task`` named ``<name>``::

      inspect eval DIR/<name>.py --model mockllm/model --limit 4

* lm-eval: ``<name>.yaml`` (task ``<name>``) and ``utils.py``::

      lm_eval --model dummy --tasks <name> --include_path DIR --limit 3

Examples
--------
>>> task_identifier("twosat-v1")
'twosat_v1'
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from twosat_formal.integrations.exports import Bundle, ExportOptions
from twosat_formal.integrations.rows import ROW_COLUMNS, item_row
from twosat_formal.jsonl import json_line, write_lines

__all__ = ["task_identifier", "write_inspect", "write_lm_eval"]


def task_identifier(name: str) -> str:
    """``name`` as a Python identifier (the inspect task's function name)."""
    ident = re.sub(r"\W", "_", name)
    return ident if ident and not ident[0].isdigit() else f"task_{ident}"


def _rows(bundle: Bundle, folder: Path, name: str) -> Path:
    if not bundle.items:
        from twosat_formal.errors import ConfigError

        raise ConfigError(
            "no prompts in the inputs: a task asks prompts "
            "(run `twosat-formal verbalize` and give its output too)",
            parameter="inputs",
        )
    path = folder / f"{name}.jsonl"
    rows = (item_row(item) for item in bundle.items)
    write_lines((json_line({c: row[c] for c in ROW_COLUMNS}) for row in rows), path)
    return path


_INSPECT = '''"""inspect task {name!r}: certified 2-SAT prompts exported by twosat-formal.

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
    data = _rows(bundle, folder, ident)
    task = folder / f"{ident}.py"
    text = _INSPECT.format(
        name=options.name,
        ident=ident,
        file=f"DIR/{task.name}",
        data=data.name,
        max_tokens=options.max_tokens,
    )
    task.write_text(text, encoding="utf-8")
    return [data, task]


_UTILS = '''"""lm-eval task {name!r}: certified 2-SAT prompts exported by twosat-formal.

The documents are the rows of {data}, read from this folder; process_results is
twosat-formal's scorer (strict and lenient accuracy, witness validity on SAT prompts).
"""

from pathlib import Path

from twosat_formal.integrations.lm_eval import (  # noqa: F401  (named in {yaml})
    doc_to_target,
    doc_to_text,
    load_docs,
    mean_of_known,
    process_results,
)


def load(**kwargs):
    """The test split: every row of {data}."""
    return load_docs(Path(__file__).with_name({data!r}))
'''


def write_lm_eval(bundle: Bundle, folder: Path, options: ExportOptions) -> list[Path]:
    """Write ``<name>.jsonl``, the task's ``<name>.yaml`` and ``utils.py`` into ``folder``."""
    name = options.name
    data = _rows(bundle, folder, task_identifier(name))
    config = folder / f"{task_identifier(name)}.yaml"
    metrics = [
        ("strict_accuracy", "mean", "right decision and, on SAT, a valid witness (strict)"),
        ("lenient_accuracy", "mean", "the same under the lenient reading"),
        ("decision_accuracy", "mean", "right decision (strict answer line)"),
        ("witness_validity", "!function utils.mean_of_known", "valid witness, SAT prompts only"),
    ]
    lines = [
        f"# lm-evaluation-harness task {name!r}, exported by twosat-formal.",
        f"# lm_eval --model MODEL --tasks {name} --include_path DIR",
        f"task: {json.dumps(name)}",
        "custom_dataset: !function utils.load",
        "test_split: test",
        "output_type: generate_until",
        "doc_to_text: !function utils.doc_to_text",
        "doc_to_target: !function utils.doc_to_target",
        "process_results: !function utils.process_results",
        "generation_kwargs:",
        "  until: []",
        f"  max_gen_toks: {options.max_tokens}",
        "  do_sample: false",
        "metric_list:",
    ]
    for metric, aggregation, meaning in metrics:
        lines += [
            f"  - metric: {metric}  # {meaning}",
            f"    aggregation: {aggregation}",
            "    higher_is_better: true",
        ]
    lines += ["metadata:", "  version: 1.0", ""]
    config.write_text("\n".join(lines), encoding="utf-8")
    utils = folder / "utils.py"
    utils.write_text(_UTILS.format(name=name, data=data.name, yaml=config.name), encoding="utf-8")
    return [data, config, utils]
