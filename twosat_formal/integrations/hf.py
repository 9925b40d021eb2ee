"""``export --to hf``: a Hugging Face dataset folder that ``datasets.load_dataset`` reads.

The folder holds one Parquet file per family, ``data/<family>/test.parquet``, and a
dataset card ``README.md``. The card's YAML header declares one config per family and
``all`` (the default: every family, files in name order), the typed features of each,
the license (``export --license``), size category, task categories and tags; its text
tells what each family and knob is, how labels and round trips are certified, what each
column holds, how to score an answer and how to cite the paper.

One row per prompt (:func:`typed_row`), with typed columns (:data:`COLUMN_DOCS`):
``satisfiable`` (bool) beside the text ``label``, integers as integers, ``params`` a
struct (the union of the families' knobs and structural parameters), ``entities`` and
``entity_values`` lists of structs, ``transforms`` a list of strings, the gold
``solution`` (the model, or the contradiction cycle) and a chat ``messages`` column
(the prompt, and a reference answer that the scorer judges correct).

Examples
--------
>>> size_category(999), size_category(1000), size_category(12_345)
('n<1K', '1K<n<10K', '10K<n<100K')
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twosat_formal.integrations.exports import Bundle, ExportOptions
from twosat_formal.integrations.rows import COLUMN_DOCS, item_row

if TYPE_CHECKING:
    from twosat_formal.evaluate.run import EvalItem

__all__ = [
    "CITATION",
    "COLUMN_DOCS",
    "card",
    "reference_answer",
    "schema",
    "size_category",
    "typed_row",
    "write",
]

#: The upper bounds of the Hub's size categories (``datasets``' list), smallest first.
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
          (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"))  # fmt: skip


def size_category(rows: int) -> str:
    """The Hub's size category of a dataset of ``rows`` rows."""
    for bound, name in _SIZES:
        if rows < bound:
            return name
    return "n>10M" if rows >= 10_000_000 else "1M<n<10M"


def reference_answer(row: Mapping[str, Any], solution: Mapping[str, Any]) -> str:
    """An answer in the prompt's format: the gold assignment's JSON, then the answer line.

    >>> reference_answer({"answer": "No"}, {"assignment": None, "cycle": ["a", "~a"]})
    'The answer is: No'
    """
    assignment = solution.get("assignment")
    if not assignment:
        return f"The answer is: {row['answer']}"
    values = {v["entity"]: v for v in row.get("entity_values") or []}
    words: dict[str, str] = {}
    for item in assignment:
        entity, value = item["entity"], bool(item["value"])
        if entity in values:
            words[entity] = values[entity]["true" if value else "false"]
        else:
            words[entity] = row["true_value"] if value else row["false_value"]
    return json.dumps(words, ensure_ascii=False) + f"\nThe answer is: {row['answer']}"


def _solution(row: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """The gold certificate of a row: its instance's, else the solver's."""
    certificate = record.get("certificate") or {}
    model, cycle = certificate.get("model"), certificate.get("cycle")
    if model is None and cycle is None:
        from twosat_formal.integrations.rows import row_formula
        from twosat_formal.solve import solve

        formula = row_formula(row)
        result = solve(formula)
        if result.model is not None:
            model = dict(zip(formula.names, (bool(v) for v in result.model), strict=True))
        else:
            cycle = result.to_json(formula).get("cycle")
    if model is None:
        return {"assignment": None, "cycle": [str(lit) for lit in cycle or []]}
    entities = json.loads(row["entities"])
    return {
        "assignment": [
            {"entity": e, "variable": v, "value": bool(model[v])} for e, v in entities.items()
        ],
        "cycle": None,
    }


def typed_row(item: EvalItem) -> dict[str, Any]:
    """The typed Hugging Face row of one prompt (:data:`COLUMN_DOCS`)."""
    flat = item_row(item)
    record: Mapping[str, Any] = item.instance or {}
    entity_values = json.loads(flat["entity_values"]) if flat["entity_values"] else None
    row: dict[str, Any] = {
        **flat,
        "satisfiable": flat["label"] == "SAT",
        "params": dict(record.get("params") or {}) or None,
        "entities": [{"entity": e, "variable": v} for e, v in json.loads(flat["entities"]).items()],
        "entity_values": None
        if entity_values is None
        else [{"entity": e, "true": t, "false": f} for e, (t, f) in entity_values.items()],
        "transforms": json.loads(flat["transforms"]),
    }
    row["solution"] = _solution(flat, record)
    if flat["question_type"] == "decision":
        gold = reference_answer(row, row["solution"])
    else:  # the exact reference reasoner's answer, which the scorer judges correct
        from twosat_formal.evaluate.models.reference import OracleModel

        gold = OracleModel().respond(flat["prompt"]).text
    row["messages"] = [
        {"role": "user", "content": flat["prompt"]},
        {"role": "assistant", "content": gold},
    ]
    return {column: row[column] for column in COLUMN_DOCS}


def _pyarrow() -> Any:
    from twosat_formal.integrations import require

    require("pyarrow", "export --to hf")
    import pyarrow
    import pyarrow.parquet

    return pyarrow


def schema(rows: Sequence[Mapping[str, Any]]) -> Any:
    """The Arrow schema of typed rows: fixed types, ``params`` the union of the rows'.

    Raises
    ------
    RecordError
        Two rows give one parameter values of types that do not mix.
    """
    pa = _pyarrow()
    text, count = pa.string(), pa.int64()
    entity = pa.struct([("entity", text), ("variable", text)])
    try:
        params = pa.array([row["params"] for row in rows]).type
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        from twosat_formal.errors import RecordError

        raise RecordError(f"the params of the rows do not share types: {error}") from None
    types = {
        "messages": pa.list_(pa.struct([("role", text), ("content", text)])),
        "satisfiable": pa.bool_(),
        "solution": pa.struct(
            [
                ("assignment", pa.list_(pa.struct([*entity, ("value", pa.bool_())]))),
                ("cycle", pa.list_(text)),
            ]
        ),
        "clauses": count,
        "num_vars": count,
        "seed": count,
        "params": params,
        "entities": pa.list_(entity),
        "entity_values": pa.list_(pa.struct([("entity", text), ("true", text), ("false", text)])),
        "transforms": pa.list_(text),
    }
    return pa.schema([(column, types.get(column, text)) for column in COLUMN_DOCS])


def _folder(family: str) -> str:
    return re.sub(r"[^\w.-]", "_", family) or "_"


def _header(counts: Mapping[str, int], arrow: Any, options: ExportOptions) -> dict[str, Any]:
    """The card's YAML header: configs (``all`` and one per family) and their features."""
    from twosat_formal.integrations import require

    datasets = require("datasets", "export --to hf")
    features = datasets.Features.from_arrow_schema(arrow)._to_yaml_list()
    total = sum(counts.values())
    configs = [
        {
            "config_name": "all",
            "default": True,
            "data_files": [{"split": "test", "path": "data/*/test.parquet"}],
        }
    ]
    configs += [
        {
            "config_name": family,
            "data_files": [{"split": "test", "path": f"data/{_folder(family)}/test.parquet"}],
        }
        for family in counts
    ]
    sizes = {"all": total, **counts}
    return {
        "license": options.license,
        "pretty_name": f"{options.name} (certified 2-SAT reasoning prompts)",
        "language": ["en"],
        "size_categories": [size_category(total)],
        "task_categories": ["question-answering", "text-generation", "text-classification"],
        "tags": ["logic", "2-sat", "reasoning", "satisfiability", "certified", "synthetic"],
        "configs": configs,
        "dataset_info": [
            {
                "config_name": name,
                "features": features,
                "splits": [{"name": "test", "num_examples": size}],
            }
            for name, size in sizes.items()
        ],
    }


#: The paper the families come from (arXiv:2602.12665).
CITATION = """@misc{essebbani2026evaluating,
  title         = {Evaluating Robustness of Reasoning Models on Parameterized Logical Problems},
  author        = {Es-sebbani, Naïm and Marquer, Esteban and Salhi, Yakoub and Bouraoui, Zied},
  year          = {2026},
  eprint        = {2602.12665},
  archivePrefix = {arXiv},
  primaryClass  = {cs.AI},
  url           = {https://arxiv.org/abs/2602.12665}
}"""


def card(
    rows: Sequence[Mapping[str, Any]],
    options: ExportOptions,
    sources: Sequence[str],
    arrow: Any = None,
) -> str:
    """The dataset card: YAML header (configs, features, license...) and the documentation."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[str(row["family"])] = counts.get(str(row["family"]), 0) + 1
    counts = dict(sorted(counts.items()))
    header = _header(counts, arrow if arrow is not None else schema(rows), options)
    lines = [
        *_yaml_lines(header),
        *_intro_lines(rows, counts, options),
        *_family_lines(),
        *_certified_lines(sources),
        *_column_lines(),
        *_scoring_lines(),
    ]
    return "\n".join(lines)


def _yaml_lines(header: Mapping[str, Any]) -> list[str]:
    """The card's YAML header between its ``---`` lines, every config's features spelled
    out (no YAML aliases)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:  # each config spells out its features
            return True

    text = yaml.dump(header, Dumper=Dumper, sort_keys=False, allow_unicode=True)
    return ["---", text.rstrip(), "---", ""]


def _intro_lines(
    rows: Sequence[Mapping[str, Any]], counts: Mapping[str, int], options: ExportOptions
) -> list[str]:
    """The card's title and first paragraphs: what the prompts are, how to load them, the
    configs and the license."""
    from twosat_formal.core.provenance import tool_version

    labels = {label: sum(r["label"] == label for r in rows) for label in ("SAT", "UNSAT")}
    families = list(counts)
    return [
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
        'data = load_dataset("path/to/this/folder", split="test")  # config "all"',
        'one = load_dataset("path/to/this/folder", '
        f'"{families[0] if families else "all"}", split="test")  # one family',
        "```",
        "",
        "Configs: `all` (the default: every family, the files in name order) and one per "
        "family: " + ", ".join(f"`{f}` ({n} prompts)" for f, n in counts.items()) + ".",
        "",
        f"License: `{options.license}`.",
        "",
    ]


def _family_lines() -> list[str]:
    """The section on the generator families, each with its knobs, and the templates."""
    from twosat_formal.make.generators import FAMILIES
    from twosat_formal.verbalize import TEMPLATES

    lines = [
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
    ]
    return lines


def _certified_lines(sources: Sequence[str]) -> list[str]:
    """The section on how labels, derived instances and prompts are certified."""
    return [
        "## How the data is certified",
        "",
        "- Each label comes from a linear-time SCC solver with a certificate (a satisfying "
        "model, or a contradiction cycle x ⇝ ¬x ⇝ x) that is re-checked clause by clause "
        "and edge by edge, and PySAT and Z3 must agree with it; the certificate is the "
        "`solution` column.",
        "- Each derived instance (`base_id`, `transforms`) is replayed from its base, and "
        "each perturbation's relation is proven again with Z3.",
        "- Each template prompt parses back to exactly its instance's formula (the "
        "round-trip proof); each story's recovered formula is proven equal to it.",
        "- `twosat-formal certify` re-checked all of it before this export "
        "(unless `--no-certify` was given). Sources: "
        + ", ".join(f"`{Path(s).name}`" for s in sources)
        + ".",
        "",
    ]


def _column_lines() -> list[str]:
    """The section that tells what each column holds (:data:`COLUMN_DOCS`)."""
    lines = [
        "## Columns",
        "",
        "| column | meaning |",
        "|---|---|",
    ]
    lines += [f"| `{column}` | {meaning} |" for column, meaning in COLUMN_DOCS.items()]
    return [*lines, ""]


def _scoring_lines() -> list[str]:
    """The sections on how an answer is scored, and on the paper to cite."""
    return [
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
        "The families, prompts and metrics are those of:",
        "",
        "```bibtex",
        CITATION,
        "```",
        "",
    ]


def write(bundle: Bundle, folder: Path, options: ExportOptions) -> list[Path]:
    """Write the typed rows as ``data/<family>/test.parquet``, and the card."""
    pa = _pyarrow()
    rows = [typed_row(item) for item in bundle.items]
    if not rows:
        from twosat_formal.errors import ConfigError

        raise ConfigError(
            "no prompts in the inputs: export --to hf writes one row per prompt "
            "(run `twosat-formal verbalize` and give its output too)",
            parameter="inputs",
        )
    arrow = schema(rows)
    files = []
    for family in sorted({str(row["family"]) for row in rows}):
        part = folder / "data" / _folder(family) / "test.parquet"
        part.parent.mkdir(parents=True)
        chosen = [row for row in rows if str(row["family"]) == family]
        pa.parquet.write_table(pa.Table.from_pylist(chosen, arrow), str(part))
        files.append(part)
    readme = folder / "README.md"
    readme.write_text(card(rows, options, bundle.sources, arrow), encoding="utf-8")
    return [*files, readme]
