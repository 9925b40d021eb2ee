"""inspect glue: samples from exported rows, this project's scorer, and a ``@task``.

Needs inspect-ai (the ``integrations`` extra); importing this module without it fails
with one line naming the extra. Each row (:func:`~twosat_formal.integrations.rows.item_row`)
becomes a :class:`inspect_ai.dataset.Sample`: ``input`` the prompt, ``target`` the
expected final word, ``id`` the prompt id, ``metadata`` the whole row. The scorer
judges the completion with :func:`~twosat_formal.integrations.rows.judge_row` (a stop
reason ``max_tokens`` or ``model_length`` counts as truncation) and scores:

* ``strict``: right decision and, on SAT prompts, a valid witness (accuracy, stderr);
* ``lenient``: the same under the lenient reading (accuracy);
* ``decision``: right decision, strict answer line (accuracy);
* ``witness``: valid witness, SAT prompts only (NaN on UNSAT ones, left out).

Each of them is also reported by family and by template, with inspect's ``grouped()``
metric: ``family_<name>`` and ``template_<name>`` beside the overall ``accuracy``.

The score's ``answer`` is the decision (``SAT``/``UNSAT``), its ``explanation`` the
witness's fault, and its ``metadata`` the failure kinds, strict and lenient.

The installed package registers the task with inspect (the ``inspect_ai`` entry point,
:mod:`~twosat_formal.integrations.inspect_registry`), so
``inspect eval twosat_formal/twosat -T path=DIR/twosat.jsonl`` runs it on any exported
rows, with the reference reasoners as inspect models (``--model twosat/oracle``, see
:mod:`~twosat_formal.integrations.inspect_models`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from twosat_formal.integrations import require

require("inspect_ai", "the inspect integration")

from inspect_ai import Task, task  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.model import GenerateConfig  # noqa: E402
from inspect_ai.scorer import (  # noqa: E402
    Metric,
    Score,
    Target,
    accuracy,
    grouped,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate  # noqa: E402

from twosat_formal.core.model import DEFAULT_MAX_TOKENS  # noqa: E402
from twosat_formal.errors import ConfigError, TwoSatFormalError, location  # noqa: E402
from twosat_formal.integrations.rows import judge_row  # noqa: E402
from twosat_formal.io.jsonl import read_json_lines  # noqa: E402

__all__ = [
    "family",
    "read_samples",
    "template",
    "twosat",
    "twosat_scorer",
    "twosat_task",
]

_TRUNCATED = {"max_tokens", "model_length"}


def read_samples(path: str | Path) -> list[Sample]:
    """One sample per row of an exported JSON Lines file.

    Each row is checked as the scorer will read it (an object with the string columns
    ``id``, ``prompt`` and ``answer``, its label, formula and entity map) before any
    sample is made, so a file of other records fails here, naming its line, rather
    than in every sample's score.

    Raises
    ------
    ConfigError
        ``path`` is not a file (a relative path is read from the working directory),
        or a line is not such a row (``FILE:LINE: ...``).
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(
            f"no rows file {file.resolve()}: give the <name>.jsonl that "
            "`twosat-formal export --to inspect` wrote (relative to the working directory)",
            parameter="path",
        )
    samples = []
    for line in read_json_lines(file):
        row = _checked_row(line.value, location(line.source, line.number))
        samples.append(
            Sample(input=row["prompt"], target=row["answer"], id=row["id"], metadata=row)
        )
    return samples


def _checked_row(row: Any, where: str) -> dict[str, Any]:
    """``row`` if the scorer can judge answers to it, else a :class:`ConfigError` at ``where``."""
    problem = None
    if not isinstance(row, dict):
        problem = f"a JSON object, not {type(row).__name__}"
    else:
        missing = [c for c in ("id", "prompt", "answer") if not isinstance(row.get(c), str)]
        if missing:
            problem = f"field {missing[0]!r} must be a string"
    if problem is None:
        try:
            judge_row(row, "")  # its label, formula and entity map, as the scorer reads them
        except TwoSatFormalError as error:
            problem = str(error)
    if problem is not None:
        raise ConfigError(
            f"{where}: not a row of `twosat-formal export --to inspect`: {problem}",
            parameter="path",
        )
    return row


@metric
def family() -> Metric:
    """Accuracy by family (inspect's ``grouped``): ``family_<name>``."""
    return grouped(accuracy(), "family", all=False)


@metric
def template() -> Metric:
    """Accuracy by template (inspect's ``grouped``): ``template_<name>``."""
    return grouped(accuracy(), "template", all=False)


def _by_group() -> list[Metric]:
    """Accuracy by family and by template, without an overall value (``accuracy`` is)."""
    return [family(), template()]


@scorer(
    metrics={
        "strict": [accuracy(), stderr(), *_by_group()],
        "lenient": [accuracy(), *_by_group()],
        "decision": [accuracy(), *_by_group()],
        "witness": [accuracy(), *_by_group()],
    }
)
def twosat_scorer() -> Any:
    """twosat-formal's judgement of the completion (see the module docstring)."""

    async def score(state: TaskState, target: Target) -> Score:
        stop = state.output.stop_reason
        finish = "length" if stop in _TRUNCATED else stop
        judgement = judge_row(state.metadata, state.output.completion, finish)
        witness = judgement.witness_valid
        return Score(
            value={
                "strict": float(judgement.correct),
                "lenient": float(judgement.lenient_failure == "correct"),
                "decision": float(judgement.decision_correct),
                "witness": math.nan if witness is None else float(witness),
            },
            answer=judgement.decision or "",
            explanation=judgement.witness_reason,
            metadata={
                "failure": judgement.failure,
                "lenient_failure": judgement.lenient_failure,
                "decision": judgement.decision,
                "witness_valid": witness,
                "truncated": judgement.truncated,
            },
        )

    return score


def twosat_task(
    path: str | Path, *, max_tokens: int = DEFAULT_MAX_TOKENS, name: str | None = None
) -> Task:
    """The task over the rows of ``path``: generate once, score with :func:`twosat_scorer`.

    Raises
    ------
    ConfigError
        ``max_tokens`` is no integer >= 1 (the rule of ``export --max-tokens``:
        ``-T max_tokens=0`` is refused, not sent), or ``path`` holds no rows
        (:func:`read_samples`).
    """
    from twosat_formal.integrations.exports import ExportOptions

    ExportOptions(max_tokens=max_tokens)  # the budget's one rule (OPTION_RULES)
    return Task(
        dataset=MemoryDataset(read_samples(path), name=name or Path(path).stem),
        solver=generate(),
        scorer=twosat_scorer(),
        config=GenerateConfig(max_tokens=max_tokens),
        name=name,
    )


@task
def twosat(path: str, max_tokens: int = DEFAULT_MAX_TOKENS) -> Task:
    """The prompts of an exported rows file (``export --to inspect`` or ``--to lm-eval``).

    ``path`` is relative to the working directory, or absolute.
    """
    return twosat_task(Path(path).expanduser().resolve(), max_tokens=max_tokens)
