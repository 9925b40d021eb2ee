"""``export --to hf``: a Hugging Face dataset folder that ``datasets.load_dataset`` reads.

The folder holds ``data/test.parquet`` (typed columns), the same rows as
``data/test.jsonl``, and a dataset card ``README.md`` whose YAML header declares the
config (data files), the features and the license, followed by what each family and
knob is, how labels and round trips are certified, what each column holds, how to
score an answer and how to cite the paper. One row per prompt, with the columns of
:data:`~twosat_formal.integrations.rows.ROW_COLUMNS`.

Examples
--------
>>> sorted(FEATURES.items())[:3]
[('answer', 'string'), ('base_id', 'string'), ('clauses', 'int64')]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from twosat_formal.integrations.exports import Bundle, ExportOptions
from twosat_formal.integrations.rows import ROW_COLUMNS, item_row
from twosat_formal.jsonl import json_line, write_lines

__all__ = ["FEATURES", "card", "write"]

_INTS = {"clauses", "num_vars", "seed"}
#: Column → Hugging Face feature dtype (every column nullable).
FEATURES: dict[str, str] = {c: "int64" if c in _INTS else "string" for c in ROW_COLUMNS}

_COLUMN_DOCS: dict[str, str] = {
    "id": "the prompt's id (SHA-256 of instance id, template and seed; a story's own id)",
    "kind": "`template` (one of the six template verbalizers) or `story` (LLM story)",
    "prompt": "the full text a model receives (App. G.2 evaluation prompt)",
    "answer": "the expected final word: `Yes` (SAT) or `No` (UNSAT)",
    "label": "`SAT` or `UNSAT`, from the solver, checked by three solvers",
    "family": "the generator family of the instance",
    "clauses": "clauses in the formula",
    "num_vars": "variables in the formula",
    "params": "the family's knobs and structural parameters (JSON object)",
    "template": "the verbalization template (`story:<theme>` for stories)",
    "instance_id": "the instance's id",
    "seed": "the seed of the entity mapping (template) or of the story",
    "entities": "entity → variable name of `dimacs` (JSON object)",
    "true_value": "the word for true in the answer's JSON (template prompts)",
    "false_value": "the word for false (template prompts)",
    "entity_values": "entity → [true description, false description] (story prompts, JSON)",
    "dimacs": "the formula in DIMACS, with `c var` name lines and provenance comments",
    "base_id": "for a derived instance, the instance it was derived from",
    "transforms": "operators applied to the base, in order (JSON list; `edit:` marks edits)",
    "story_theme": "the story's theme (story prompts)",
    "story_model": "the model that wrote the story (story prompts)",
}


def _pyarrow() -> Any:
    from twosat_formal.integrations import require

    require("pyarrow", "export --to hf")
    import pyarrow
    import pyarrow.parquet

    return pyarrow


def _yaml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def card(rows: Sequence[Mapping[str, Any]], options: ExportOptions, sources: Sequence[str]) -> str:
    """The dataset card: YAML header (configs, features, license) and the documentation."""
    from twosat_formal.generators import FAMILIES
    from twosat_formal.provenance import tool_version
    from twosat_formal.verbalize import TEMPLATES

    lines = [
        "---",
        "license: mit",
        f"pretty_name: {_yaml_str(options.name + ' (certified 2-SAT reasoning prompts)')}",
        "language:",
        "- en",
        "task_categories:",
        "- question-answering",
        "- text-generation",
        "tags:",
        "- logic",
        "- 2-sat",
        "- reasoning",
        "- certified",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: test",
        "    path: data/test.parquet",
        "dataset_info:",
        "  features:",
    ]
    for column, dtype in FEATURES.items():
        lines += [f"  - name: {column}", f"    dtype: {dtype}"]
    lines += ["  splits:", "  - name: test", f"    num_examples: {len(rows)}", "---", ""]
    labels = {label: sum(r["label"] == label for r in rows) for label in ("SAT", "UNSAT")}
    families = sorted({str(r["family"]) for r in rows if r["family"]})
    lines += [
        f"# {options.name}",
        "",
        "Certified diagnostic 2-SAT prompts for LLM reasoners, exported by twosat-formal "
        f"{tool_version()}: {len(rows)} prompts ({labels['SAT']} SAT, {labels['UNSAT']} UNSAT) "
        f"over the families {', '.join(families) or '(none)'}. Each prompt asks whether an "
        "assignment satisfies every rule, for a JSON assignment when one exists, and for a "
        "final line `The answer is: Yes` or `The answer is: No`.",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        'data = load_dataset("path/to/this/folder", split="test")',
        "```",
        "",
        "## Families and knobs",
        "",
        "Each family is a parameterized generator of structured 2-CNF formulas; its knobs "
        "(numbers in [0, 1]) set structural parameters, recorded in `params`.",
        "",
    ]
    for name, family in FAMILIES.items():
        lines.append(f"- **{name}** ({family.section}, {family.label}): {family.summary}.")
        for spec in family.params:
            lines.append(f"  - `{spec.name}`: {spec.meaning} ({spec.valid()})")
    lines += [
        "",
        "Templates: " + ", ".join(f"`{name}`" for name in TEMPLATES.names()) + " "
        "(App. G.1); `story:<theme>` prompts are LLM stories validated clue by clue.",
        "",
        "## How the data is certified",
        "",
        "- Each label comes from a linear-time SCC solver with a certificate (a satisfying "
        "model, or a contradiction cycle x ⇝ ¬x ⇝ x) that is re-checked clause by clause "
        "and edge by edge, and PySAT and Z3 must agree with it.",
        "- Each derived instance (`base_id`, `transforms`) is replayed from its base, and "
        "each perturbation's relation is proven again with Z3.",
        "- Each template prompt parses back to exactly its instance's formula (the "
        "round-trip proof); each story's recovered formula is proven equal to it.",
        "- `twosat-formal certify` re-checked all of it before this export "
        "(unless `--no-certify` was given). Sources: "
        + ", ".join(f"`{Path(s).name}`" for s in sources)
        + ".",
        "",
        "## Columns",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    for column, dtype in FEATURES.items():
        lines.append(f"| `{column}` | {dtype} | {_COLUMN_DOCS[column]} |")
    lines += [
        "",
        "## Scoring",
        "",
        "An answer is correct when its final line gives the right decision and, on SAT "
        "prompts, its JSON assignment (entities → `true_value` / `false_value`, or a "
        "story entity's own descriptions) satisfies every clause of `dimacs` under "
        "`entities`. The scorer of twosat-formal judges a row alone:",
        "",
        "```python",
        "from twosat_formal.integrations.rows import judge_row",
        "",
        "judgement = judge_row(row, model_answer)  # .failure, .decision, .witness_valid",
        "```",
        "",
        "or, for a file of answers: `twosat-formal score answers.jsonl --prompts ...`.",
        "",
        "## Citation",
        "",
        "```bibtex",
        "@misc{twosat_robustness,",
        "  title = {Evaluating Robustness of Reasoning Models on Parameterized Logical Problems},",
        "  note  = {Diagnostic 2-SAT benchmark; data generated and certified with twosat-formal},",
        "}",
        "```",
        "",
    ]
    return "\n".join(lines)


def write(bundle: Bundle, folder: Path, options: ExportOptions) -> list[Path]:
    """Write the rows as Parquet and JSON Lines under ``folder/data``, and the card."""
    pa = _pyarrow()
    rows = [item_row(item) for item in bundle.items]
    if not rows:
        from twosat_formal.errors import ConfigError

        raise ConfigError(
            "no prompts in the inputs: export --to hf writes one row per prompt "
            "(run `twosat-formal verbalize` and give its output too)",
            parameter="inputs",
        )
    data = folder / "data"
    data.mkdir()
    types = {"int64": pa.int64(), "string": pa.string()}
    schema = pa.schema([(c, types[dtype]) for c, dtype in FEATURES.items()])
    table = pa.Table.from_pylist([{c: row[c] for c in ROW_COLUMNS} for row in rows], schema)
    parquet, jsonl, readme = data / "test.parquet", data / "test.jsonl", folder / "README.md"
    pa.parquet.write_table(table, str(parquet))
    write_lines((json_line({c: row[c] for c in ROW_COLUMNS}) for row in rows), jsonl)
    readme.write_text(card(rows, options, bundle.sources), encoding="utf-8")
    return [parquet, jsonl, readme]
