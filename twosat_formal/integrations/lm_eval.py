"""lm-evaluation-harness glue: documents, prompt and target, and this project's scorer.

The ``utils.py`` that ``export --to lm-eval`` writes imports these. A document is a
row of :func:`~twosat_formal.integrations.rows.item_row`; :func:`process_results`
judges the generated answer with :func:`~twosat_formal.integrations.rows.judge_row`
(the code ``eval`` scores with) and reports:

* ``strict_accuracy``: right decision and, on SAT prompts, a valid witness;
* ``lenient_accuracy``: the same under the lenient reading;
* ``decision_accuracy``: right decision (strict answer line);
* ``witness_validity``: valid witness, on SAT prompts only: an UNSAT prompt gives
  no value (lm-eval averages the values there are), so a run without SAT prompts
  reports it N/A (absent), never 0.

lm-eval's ``--log_samples`` output goes to ``twosat-formal score`` as it is.

Examples
--------
>>> doc = {"id": "p", "label": "UNSAT", "entities": "{}", "true_value": "true",
...        "false_value": "false", "dimacs": "p cnf 1 2\\n1 0\\n-1 0\\n", "prompt": "Q?",
...        "answer": "No"}
>>> process_results(doc, ["The answer is: No"])
{'strict_accuracy': 1.0, 'lenient_accuracy': 1.0, 'decision_accuracy': 1.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from twosat_formal.integrations.rows import judge_row

__all__ = [
    "doc_to_target",
    "doc_to_text",
    "load_docs",
    "process_results",
]


def load_docs(
    path: str | Path,
    *,
    family: str | None = None,
    question_type: str | None = None,
    **_: Any,
) -> Any:
    """The rows of a JSON Lines file (of ``family`` and of ``question_type`` only, when
    given; a row without one is a ``decision`` row) as a ``datasets.DatasetDict`` with a
    ``test`` split."""
    from twosat_formal.integrations import require
    from twosat_formal.io.jsonl import read_json_lines

    datasets = require("datasets", "the lm-eval task")
    rows = [line.value for line in read_json_lines(path)]
    if family is not None:
        rows = [row for row in rows if str(row.get("family")) == family]
    if question_type is not None:
        rows = [row for row in rows if (row.get("question_type") or "decision") == question_type]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The prompt, exactly as exported (the full App. G.2 text)."""
    return str(doc["prompt"])


def doc_to_target(doc: Mapping[str, Any]) -> str:
    """The expected final word, ``Yes`` or ``No`` (for another question type, what its
    closing line carries)."""
    return str(doc["answer"])


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    """Judge the generated answer (``results[0]``) to ``doc``: one value per metric,
    ``witness_validity`` on SAT prompts only."""
    judgement = judge_row(doc, results[0] if results else "")
    values = {
        "strict_accuracy": float(judgement.correct),
        "lenient_accuracy": float(judgement.lenient_failure == "correct"),
        "decision_accuracy": float(judgement.decision_correct),
    }
    if judgement.witness_valid is not None:
        values["witness_validity"] = float(judgement.witness_valid)
    return values
