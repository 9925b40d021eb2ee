"""Score answers produced elsewhere with the judgement code of ``eval``.

Each answer (:mod:`~twosat_formal.integrations.answers`) is matched to its prompt by
id and judged by :func:`twosat_formal.evaluate.scoring.score` against the prompt's formula and
label, exactly as ``eval`` judges the answers it asks for; a failed request becomes a
judgement of kind ``error``. The results are stored as ``eval`` stores them (endpoint
``external``), in a scratch run store, and the rows out are that store's ``results``
export (:func:`twosat_formal.evaluate.export.export_results`): the same columns, computed by
the same code, in the same order (model, prompt, sample), and any format ``results``
writes (``.jsonl``, ``.csv``, ``.parquet``).

With a run store of the user's, the prompts, instances and results go into it as
well, so ``report`` and ``results`` read them like any run.

Examples
--------
>>> from twosat_formal.evaluate.run import EvalItem, EvalPrompt
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.models.base import Response
>>> from twosat_formal.integrations.answers import ExternalAnswer
>>> prompt = EvalPrompt("p1", "i1", "logic", "A and not A?", {"A": "x1"}, "true", "false")
>>> items = [EvalItem(prompt, Formula([[1], [-1]]), "UNSAT")]
>>> answers = [ExternalAnswer("p1", 0, "m", Response("The answer is: No")),
...            ExternalAnswer("p1", 1, "m", None, "HTTP 500")]
>>> [(row["sample"], row["failure"], row["error"]) for row in score_answers(answers, items)]
[(0, 'correct', None), (1, 'error', 'HTTP 500')]
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from twosat_formal.core.provenance import tool_version
from twosat_formal.errors import RecordError
from twosat_formal.evaluate.export import export_results, format_of
from twosat_formal.evaluate.scoring import error_judgement, score
from twosat_formal.evaluate.store import ResultRow, RunStore, prompt_hash
from twosat_formal.integrations.answers import ExternalAnswer

if TYPE_CHECKING:
    from twosat_formal.evaluate.run import EvalItem

__all__ = [
    "ENDPOINT",
    "PARAMS",
    "ScoreSummary",
    "score_answers",
    "score_to_file",
]

#: The endpoint stored with answers produced elsewhere.
ENDPOINT = "external"
#: The sampling parameters stored with them (unknown here: an empty object).
PARAMS = "{}"
_INFO = {"command": "score"}


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


def _results(
    answers: Iterable[ExternalAnswer], items: Sequence[EvalItem], run_id: int | None
) -> Iterator[ResultRow]:
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
        yield ResultRow(
            model=answer.model,
            endpoint=ENDPOINT,
            prompt_hash=prompt_hash(item.prompt.text),
            prompt_id=item.prompt.id,
            params=PARAMS,
            sample=answer.sample,
            judgement=judgement,
            response=answer.response,
            run_id=run_id,
        )


def _open(store: RunStore, items: Sequence[EvalItem], info: Mapping[str, Any]) -> int:
    store.add_prompts(item.prompt_row() for item in items)
    for item in items:
        if item.instance is not None:
            store.add_instance(item.instance)
    return store.start_run(info)


def _score_into(
    answers: Iterable[ExternalAnswer],
    items: Sequence[EvalItem],
    stores: Sequence[RunStore],
    info: Mapping[str, Any],
    summary: ScoreSummary,
) -> None:
    """Judge every answer and store it in each of ``stores`` (the first is the scratch)."""
    runs = [_open(store, items, info) for store in stores]
    status = "failed"
    try:
        for result in _results(answers, items, runs[0]):
            for index, (store, run_id) in enumerate(zip(stores, runs, strict=True)):
                added = store.put(dataclasses.replace(result, run_id=run_id), commit=False)
                if index == 1:
                    summary.stored += added
            summary.scored += 1
            summary.correct += result.judgement.correct
            summary.failures[result.judgement.failure] += 1
        status = "finished"
    finally:
        for store, run_id in zip(stores, runs, strict=True):
            store.commit()
            store.finish_run(run_id, status)
    summary.run_id = runs[-1] if len(stores) > 1 else None


def score_answers(
    answers: Iterable[ExternalAnswer], items: Sequence[EvalItem]
) -> Iterator[dict[str, Any]]:
    """Judge each answer against its prompt's formula and label; the ``results`` rows.

    Raises
    ------
    RecordError
        An answer to a prompt that is not among ``items``, or a second answer of a
        model to the same prompt and sample.
    """
    with tempfile.TemporaryDirectory() as tmp, RunStore(Path(tmp) / "score.sqlite") as scratch:
        _score_into(answers, items, [scratch], _INFO, ScoreSummary())
        yield from scratch.export_rows()


def score_to_file(
    answers: Iterable[ExternalAnswer],
    items: Sequence[EvalItem],
    out: str | Path | IO[str],
    *,
    store: RunStore | None = None,
    run_info: Mapping[str, Any] | None = None,
) -> ScoreSummary:
    """Score ``answers`` into ``out``: a path (``.jsonl``, ``.csv`` or ``.parquet``, by
    suffix, as ``results`` writes them) or a text stream (JSON Lines).

    A path is written only once every answer is judged, beside its target and renamed
    into place; a run that fails leaves no file. With ``store``, the prompts,
    instances and results are stored there too (a result whose request key is stored
    already is left as it is) in a run whose ``info`` holds ``run_info``.
    """
    if isinstance(out, str | Path):
        format_of(out)  # an unknown suffix fails before any answer is read
    summary = ScoreSummary()
    info = {"tool_version": tool_version(), **_INFO, **dict(run_info or {})}
    with tempfile.TemporaryDirectory() as tmp, RunStore(Path(tmp) / "score.sqlite") as scratch:
        _score_into(answers, items, [scratch, *([store] if store else [])], info, summary)
        if isinstance(out, str | Path):
            export_results(scratch, out)
        else:
            export_results(scratch, stream=out)
    return summary
