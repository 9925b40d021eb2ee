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
from twosat_formal.errors import RecordError, location
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


def _what(answer: ExternalAnswer) -> tuple[object, ...]:
    """What an answer says: two answers to one text that say the same are one answer."""
    response = answer.response
    if response is None:
        return (None, answer.error)
    return (response.text, response.finish_reason, response.reasoning)


class _Once:
    """One answer per model, prompt text and sample, as ``eval`` asks a text once.

    A second answer to one prompt is refused; an answer to another prompt with the
    same text is the same request's: refused where it says something else, else
    skipped (the store gives the first to every prompt with that text).
    """

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str, int], tuple[str, str, tuple[object, ...]]] = {}
        self._ids: dict[tuple[str, str, int], str] = {}

    def first(self, answer: ExternalAnswer, text_hash: str) -> bool:
        """Whether ``answer`` is the first to its text (else an equal copy)."""
        where = location(answer.source, answer.line) or "an earlier answer"
        key = (answer.model, text_hash, answer.sample)
        known = self._seen.get(key)
        asked = (answer.model, answer.prompt_id, answer.sample)
        if asked in self._ids:
            raise self._error(
                answer,
                f"model {answer.model!r} answered prompt {answer.prompt_id!r} sample "
                f"{answer.sample} twice (first at {self._ids[asked]})",
            )
        self._ids[asked] = where
        if known is None:
            self._seen[key] = (where, answer.prompt_id, _what(answer))
            return True
        if known[2] != _what(answer):
            raise self._error(
                answer,
                f"model {answer.model!r} gave prompts {known[1]!r} and "
                f"{answer.prompt_id!r}, which have one text (one request), different "
                f"answers to sample {answer.sample} (the first at {known[0]})",
            )
        return False

    @staticmethod
    def _error(answer: ExternalAnswer, message: str) -> RecordError:
        return RecordError(message, line=answer.line, source=answer.source)


def _results(
    answers: Iterable[ExternalAnswer], items: Sequence[EvalItem], run_id: int | None
) -> Iterator[tuple[ResultRow, int]]:
    """Each answer judged as a result, with the number of prompts with its text (the
    rows it makes); an equal answer to another prompt with the same text is skipped."""
    by_id = {item.prompt.id: item for item in items}
    hashes = {item.prompt.id: prompt_hash(item.prompt.text) for item in items}
    copies = Counter(hashes.values())
    once = _Once()
    for answer in answers:
        item = by_id.get(answer.prompt_id)
        if item is None:
            raise RecordError(
                f"an answer to prompt {answer.prompt_id!r}, which is not among the prompts",
                line=answer.line,
                source=answer.source,
            )
        text_hash = hashes[answer.prompt_id]
        if not once.first(answer, text_hash):
            continue
        if answer.response is None:
            judgement = error_judgement(item.label, answer.error or "request failed")
        else:
            judgement = score(answer.response, item.prompt, item.formula, item.label)
        result = ResultRow(
            model=answer.model,
            endpoint=ENDPOINT,
            prompt_hash=text_hash,
            prompt_id=item.prompt.id,
            params=PARAMS,
            sample=answer.sample,
            judgement=judgement,
            response=answer.response,
            run_id=run_id,
        )
        yield result, copies[text_hash]


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
        for result, rows in _results(answers, items, runs[0]):
            for index, (store, run_id) in enumerate(zip(stores, runs, strict=True)):
                added = store.put(dataclasses.replace(result, run_id=run_id), commit=False)
                if index == 1:
                    summary.stored += added
            summary.scored += rows  # one row per prompt with the answer's text
            summary.correct += rows * result.judgement.correct
            summary.failures[result.judgement.failure] += rows
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
        An answer to a prompt that is not among ``items``, a second answer of a model
        to the same prompt and sample, or answers of a model to two prompts with one
        text (one request) that differ for one sample. An answer equal to one given
        already to another prompt with the same text is that request's, and skipped:
        the rows give the first to every prompt with that text.
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
