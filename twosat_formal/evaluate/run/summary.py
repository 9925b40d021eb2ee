"""What an evaluation run did (:class:`EvalSummary`) and the story counts it records."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from twosat_formal.verbalize.story.record import StoryRecord
from twosat_formal.verbalize.story.statistics import StoryStatistics, story_statistics

__all__ = ["EvalSummary", "story_counts"]


@dataclass
class EvalSummary:
    """What a run did.

    ``planned`` requests in all, ``skipped`` because they were stored already,
    ``leased`` because another run on the store was asking them, ``done`` stored by
    this run (``correct`` of them), ``failures`` by kind, ``retries``
    attempts that were retried, and whether the run was ``interrupted``. ``errors``
    counts the messages of requests that failed (failure ``error``); ``model_done``
    and ``model_errors`` count this run's results and failed requests by model spec.

    >>> summary = EvalSummary(done=2, model_done=Counter({"a": 1, "b": 1}),
    ...                       model_errors=Counter({"b": 1}), errors=Counter({"HTTP 500": 1}))
    >>> summary.failed_models, summary.top_errors()
    (['b'], [('HTTP 500', 1)])
    """

    planned: int = 0
    skipped: int = 0
    leased: int = 0
    done: int = 0
    correct: int = 0
    retries: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    interrupted: bool = False
    elapsed_s: float = 0.0
    run_id: int | None = None
    errors: Counter[str] = field(default_factory=Counter)
    model_done: Counter[str] = field(default_factory=Counter)
    model_errors: Counter[str] = field(default_factory=Counter)

    @property
    def failed_models(self) -> list[str]:
        """Models that got at least one request this run, all of which failed."""
        return sorted(m for m, n in self.model_done.items() if n and self.model_errors[m] == n)

    def top_errors(self, n: int = 3) -> list[tuple[str, int]]:
        """The ``n`` most frequent distinct error messages, most frequent first."""
        return sorted(self.errors.items(), key=lambda item: (-item[1], item[0]))[:n]

    @property
    def accuracy(self) -> float | None:
        """Share of this run's results that are ``correct`` (``None`` before any)."""
        return self.correct / self.done if self.done else None

    @property
    def remaining(self) -> int:
        """Requests still to do here (those in flight at an interrupt, for instance).

        The requests left to another run (``leased``) are not among them.
        """
        return self.planned - self.skipped - self.leased - self.done

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view.

        >>> EvalSummary(planned=2, done=2, correct=1).to_dict()["accuracy"]
        0.5
        """
        return {
            "planned": self.planned,
            "skipped": self.skipped,
            "leased": self.leased,
            "done": self.done,
            "remaining": self.remaining,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "retries": self.retries,
            "failures": dict(sorted(self.failures.items())),
            "interrupted": self.interrupted,
            "elapsed_s": round(self.elapsed_s, 3),
            "run_id": self.run_id,
            "errors": [{"message": m, "count": c} for m, c in self.top_errors(10)],
            "failed_models": self.failed_models,
        }


def story_counts(records: Iterable[StoryRecord]) -> dict[str, dict[str, Any]]:
    """The validation counts of each story record, by story id (first of each id kept).

    Each entry is the theme and the fields of
    :func:`~twosat_formal.verbalize.story.story_statistics` of that story alone, so
    the counts of distinct stories add up to the statistics of all of them.
    :func:`run_eval` keeps them in the run's ``info`` (``stories``).

    >>> from twosat_formal.verbalize.story.record import StoryRecord, story_id
    >>> record = StoryRecord.create(id=story_id("i", "spy", "m", 0), instance_id="i",
    ...     theme="spy", model="m", seed=0, entities={}, intro="I.", clues=(), story="I.",
    ...     text="T", recovered=())
    >>> counts = story_counts([record])[record.id]
    >>> counts["theme"], counts["stories"], counts["llm_clauses"]
    ('spy', 1, 0)
    """
    out: dict[str, dict[str, Any]] = {}
    for story in records:
        if story.id not in out:
            stats = story_statistics([story])
            counts = {f: getattr(stats, f) for f in StoryStatistics.__dataclass_fields__}
            out[story.id] = {"theme": story.theme, **counts}
    return out
