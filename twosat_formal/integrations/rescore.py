"""Score answers produced elsewhere with the judgement code of ``eval``.

Each answer (:mod:`~twosat_formal.integrations.answers`) is matched to its prompt by
id and judged by :func:`twosat_formal.scoring.score` against the prompt's formula and
label, exactly as ``eval`` judges the answers it asks for; a failed request becomes a
judgement of kind ``error``. A row out holds the columns of ``twosat-formal results``
(:data:`~twosat_formal.store.EXPORT_COLUMNS`) followed by the lenient verdicts, the
witness's fault and the request's error (:data:`SCORE_COLUMNS`).

With a run store, the prompts, instances and results go into it as ``eval`` stores
them (endpoint ``external``, the answer's form in the run's ``info``), so ``report``
and ``results`` read them like any run.

Examples
--------
>>> from twosat_formal.evaluate import EvalItem, EvalPrompt
>>> from twosat_formal.formula import Formula
>>> from twosat_formal.models.base import Response
>>> from twosat_formal.integrations.answers import ExternalAnswer
>>> prompt = EvalPrompt("p1", "i1", "logic", "A and not A?", {"A": "x1"}, "true", "false")
>>> items = [EvalItem(prompt, Formula([[1], [-1]]), "UNSAT")]
>>> answers = [ExternalAnswer("p1", 0, "m", Response("The answer is: No")),
...            ExternalAnswer("p1", 1, "m", None, "HTTP 500")]
>>> [(row["sample"], row["failure"], row["error"]) for row in score_answers(answers, items)]
[(0, 'correct', None), (1, 'error', 'HTTP 500')]
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from twosat_formal.atomic import atomic_output
from twosat_formal.errors import RecordError
from twosat_formal.integrations.answers import ExternalAnswer
from twosat_formal.jsonl import json_line
from twosat_formal.provenance import tool_version
from twosat_formal.scoring import error_judgement, score
from twosat_formal.store import EXPORT_COLUMNS, PromptRow, ResultRow, RunStore, prompt_hash

if TYPE_CHECKING:
    from twosat_formal.evaluate import EvalItem

__all__ = [
    "ENDPOINT",
    "PARAMS",
    "SCORE_COLUMNS",
    "ScoreSummary",
    "score_answers",
    "score_to_file",
]

#: The endpoint stored with answers produced elsewhere.
ENDPOINT = "external"
#: The sampling parameters stored with them (unknown here: an empty object).
PARAMS = "{}"
_EXTRA = (
    "lenient_failure",
    "lenient_decision",
    "lenient_decision_correct",
    "lenient_witness_valid",
    "witness_reason",
    "error",
)
#: The columns of a scored row, in order: those of ``results``, then the extras.
SCORE_COLUMNS: tuple[str, ...] = EXPORT_COLUMNS + tuple(
    c for c in _EXTRA if c not in EXPORT_COLUMNS
)


@dataclass
class ScoreSummary:
    """What :func:`score_to_file` did: rows scored, ``correct`` of them, kinds, stored."""

    scored: int = 0
    correct: int = 0
    stored: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    run_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view.

        >>> ScoreSummary(scored=2, correct=1).to_dict()["accuracy"]
        0.5
        """
        return {
            "scored": self.scored,
            "correct": self.correct,
            "accuracy": self.correct / self.scored if self.scored else None,
            "failures": dict(sorted(self.failures.items())),
            "stored": self.stored,
            "run_id": self.run_id,
        }


def _record(item: EvalItem, result: ResultRow) -> dict[str, Any]:
    j, r = result.judgement, result.response
    values: dict[str, Any] = {
        "instance_id": item.prompt.instance_id,
        "prompt_id": result.prompt_id,
        "template": item.prompt.template,
        "model": result.model,
        "sample": result.sample,
        "finish_reason": r.finish_reason if r is not None else None,
        "prompt_tokens": r.prompt_tokens if r is not None else None,
        "completion_tokens": r.completion_tokens if r is not None else None,
        "latency_s": r.latency_s if r is not None else None,
        "response": r.text if r is not None else None,
        **j.to_dict(),
    }
    return {column: values.get(column) for column in SCORE_COLUMNS}


def _results(
    answers: Iterable[ExternalAnswer], items: Sequence[EvalItem], run_id: int | None
) -> Iterator[tuple[EvalItem, ResultRow]]:
    by_id = {item.prompt.id: item for item in items}
    seen: dict[tuple[str, str, int], str] = {}
    for answer in answers:
        where = ":".join(str(p) for p in (answer.source, answer.line) if p is not None)
        item = by_id.get(answer.prompt_id)
        if item is None:
            raise RecordError(
                f"an answer to prompt {answer.prompt_id!r}, which is not among the prompts",
                line=answer.line,
                source=answer.source,
            )
        key = (answer.model, answer.prompt_id, answer.sample)
        if key in seen:
            raise RecordError(
                f"model {answer.model!r} answered prompt {answer.prompt_id!r} sample "
                f"{answer.sample} twice (first at {seen[key]})",
                line=answer.line,
                source=answer.source,
            )
        seen[key] = where or "an earlier answer"
        if answer.response is None:
            judgement = error_judgement(item.label, answer.error or "request failed")
        else:
            judgement = score(answer.response, item.prompt, item.formula, item.label)
        yield (
            item,
            ResultRow(
                model=answer.model,
                endpoint=ENDPOINT,
                prompt_hash=prompt_hash(item.prompt.text),
                prompt_id=item.prompt.id,
                params=PARAMS,
                sample=answer.sample,
                judgement=judgement,
                response=answer.response,
                run_id=run_id,
            ),
        )


def score_answers(
    answers: Iterable[ExternalAnswer], items: Sequence[EvalItem]
) -> Iterator[dict[str, Any]]:
    """Judge each answer against its prompt's formula and label; one row per answer.

    Raises
    ------
    RecordError
        An answer to a prompt that is not among ``items``, or a second answer of a
        model to the same prompt and sample.
    """
    for item, result in _results(answers, items, None):
        yield _record(item, result)


def _prompt_row(item: EvalItem) -> PromptRow:
    p = item.prompt
    return PromptRow(
        prompt_id=p.id,
        instance_id=p.instance_id,
        template=p.template,
        label=item.label,
        text=p.text,
        entities=dict(p.entities),
        true_value=getattr(p, "true_value", None),
        false_value=getattr(p, "false_value", None),
        seed=getattr(p, "seed", None),
    )


def score_to_file(
    answers: Iterable[ExternalAnswer],
    items: Sequence[EvalItem],
    out: str | Path | IO[str],
    *,
    store: RunStore | None = None,
    run_info: Mapping[str, Any] | None = None,
) -> ScoreSummary:
    """Score ``answers`` into JSON Lines at ``out`` (a path or a text stream).

    A path is written beside its target and renamed into place when every answer is
    scored, so a reader never sees half a file, and a failed run leaves none.

    With ``store``, the prompts, instances and results are stored as well (a result
    whose request key is stored already is left as it is) in a run whose ``info``
    holds ``run_info``.
    """
    summary = ScoreSummary()
    if store is not None:
        store.add_prompts(_prompt_row(item) for item in items)
        for item in items:
            if item.instance is not None:
                store.add_instance(item.instance)
        info = {"tool_version": tool_version(), "command": "score", **dict(run_info or {})}
        summary.run_id = store.start_run(info)
    status = "failed"
    try:
        with contextlib.ExitStack() as stack:
            handle: IO[str] = (
                stack.enter_context(atomic_output(out)) if isinstance(out, str | Path) else out
            )
            for item, result in _results(answers, items, summary.run_id):
                if store is not None:
                    summary.stored += store.put(result, commit=False)
                handle.write(json_line(_record(item, result)) + "\n")
                summary.scored += 1
                summary.correct += result.judgement.correct
                summary.failures[result.judgement.failure] += 1
        status = "finished"
    finally:
        if store is not None and summary.run_id is not None:
            store.commit()
            store.finish_run(summary.run_id, status)
    return summary
