"""lm-evaluation-harness glue: documents, prompt and target, and this project's scorer.

The ``utils.py`` that ``export --to lm-eval`` writes imports these. A document is a
row of :func:`~twosat_formal.integrations.rows.item_row`; :func:`process_results`
judges the generated answer with :func:`~twosat_formal.integrations.rows.judge_row`
(the code ``eval`` scores with) and reports:

* ``strict_accuracy``: right decision and, on SAT prompts, a valid witness;
* ``lenient_accuracy``: the same under the lenient reading;
* ``decision_accuracy``: right decision (strict answer line);
* ``witness_validity``: valid witness, on SAT prompts only (``None`` on UNSAT ones,
  which :func:`mean_of_known` leaves out).

lm-eval's ``--log_samples`` output goes to ``twosat-formal score`` as it is.

Examples
--------
>>> doc = {"id": "p", "label": "UNSAT", "entities": "{}", "true_value": "true",
...        "false_value": "false", "dimacs": "p cnf 1 2\\n1 0\\n-1 0\\n", "prompt": "Q?",
...        "answer": "No"}
>>> process_results(doc, ["The answer is: No"])["strict_accuracy"]
1.0
>>> mean_of_known([1.0, None, 0.0])
0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from twosat_formal.integrations.rows import judge_row

__all__ = [
    "doc_to_target",
    "doc_to_text",
    "load_docs",
    "mean_of_known",
    "process_results",
]


def load_docs(path: str | Path, **_: Any) -> Any:
    """The rows of a JSON Lines file as a ``datasets.DatasetDict`` with a ``test`` split."""
    from twosat_formal.integrations import require
    from twosat_formal.jsonl import read_json_lines

    datasets = require("datasets", "the lm-eval task")
    rows = [line.value for line in read_json_lines(path)]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The prompt, exactly as exported (the full App. G.2 text)."""
    return str(doc["prompt"])


def doc_to_target(doc: Mapping[str, Any]) -> str:
    """The expected final word, ``Yes`` or ``No``."""
    return str(doc["answer"])


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """Judge the generated answer (``results[0]``) to ``doc``; one value per metric."""
    judgement = judge_row(doc, results[0] if results else "")
    witness = judgement.witness_valid
    return {
        "strict_accuracy": float(judgement.correct),
        "lenient_accuracy": float(judgement.lenient_failure == "correct"),
        "decision_accuracy": float(judgement.decision_correct),
        "witness_validity": None if witness is None else float(witness),
    }


def mean_of_known(values: Iterable[float | None]) -> float:
    """The mean of the values that are not ``None`` (0.0 when there are none)."""
    known = [float(v) for v in values if v is not None]
    return sum(known) / len(known) if known else 0.0
