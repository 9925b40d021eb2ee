"""Validation statistics of story records, beside the paper's (§4: 95.4 % and 3.3 %).

:func:`story_statistics` counts, over the clauses that went through the validation
loop, the first-attempt validation rate and the fallback rate, with every attempt's
outcome.

Examples
--------
>>> story_statistics([]).to_json()["paper_first_attempt_rate"]
0.954
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.verbalize.story.record import StoryRecord
from twosat_formal.verbalize.story.replies import ATTEMPT_OUTCOMES

__all__ = [
    "PAPER_FALLBACK_RATE",
    "PAPER_FIRST_ATTEMPT_RATE",
    "StoryStatistics",
    "story_statistics",
]

#: Share of clauses validated on the first attempt in the paper (§4).
PAPER_FIRST_ATTEMPT_RATE = 0.954
#: Share of clauses that use the fallback sentence in the paper (§4).
PAPER_FALLBACK_RATE = 0.033


@dataclass(frozen=True)
class StoryStatistics:
    """Validation statistics of a set of stories, beside the paper's.

    Rates are over the clauses that went through the validation loop (``llm_clauses``);
    ``direct`` clauses (unit clauses, one variable twice) never call a model.
    """

    stories: int
    clauses: int
    llm_clauses: int
    first_attempt: int
    validated: int
    fallbacks: int
    direct: int
    attempts: int
    outcomes: dict[str, int]

    @property
    def first_attempt_rate(self) -> float | None:
        """Share of the validated-loop clauses accepted on their first attempt."""
        return self.first_attempt / self.llm_clauses if self.llm_clauses else None

    @property
    def fallback_rate(self) -> float | None:
        """Share of the validated-loop clauses that use the fallback sentence."""
        return self.fallbacks / self.llm_clauses if self.llm_clauses else None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view, with the paper's rates."""
        return {
            **fields_json(self, then=("first_attempt_rate", "fallback_rate")),
            "paper_first_attempt_rate": PAPER_FIRST_ATTEMPT_RATE,
            "paper_fallback_rate": PAPER_FALLBACK_RATE,
        }

    def to_markdown(self) -> str:
        """A small Markdown table: ours beside the paper's.

        >>> print(story_statistics([]).to_markdown())
        | statistic | ours | paper |
        |---|---|---|
        | first-attempt validation rate | – (0 clauses) | 95.4% |
        | fallback rate | – (0 clauses) | 3.3% |
        """

        def pct(x: float | None) -> str:
            return f"– ({self.llm_clauses} clauses)" if x is None else f"{x:.1%}"

        return "\n".join(
            [
                "| statistic | ours | paper |",
                "|---|---|---|",
                f"| first-attempt validation rate | {pct(self.first_attempt_rate)} | "
                f"{PAPER_FIRST_ATTEMPT_RATE:.1%} |",
                f"| fallback rate | {pct(self.fallback_rate)} | {PAPER_FALLBACK_RATE:.1%} |",
            ]
        )


def story_statistics(records: Iterable[StoryRecord]) -> StoryStatistics:
    """First-attempt validation rate and fallback rate of some story records.

    >>> stats = story_statistics([])
    >>> stats.first_attempt_rate is None, stats.to_json()["paper_fallback_rate"]
    (True, 0.033)
    """
    stories = clauses = llm = first = validated = fallbacks = direct = attempts = 0
    outcomes = dict.fromkeys(ATTEMPT_OUTCOMES, 0)
    for record in records:
        stories += 1
        for clue in record.clues:
            clauses += 1
            attempts += len(clue.attempts)
            for attempt in clue.attempts:
                outcomes[attempt.outcome] += 1
            if clue.mode == "direct":
                direct += 1
                continue
            llm += 1
            first += clue.accepted == 1
            validated += clue.accepted is not None
            fallbacks += clue.fallback
    return StoryStatistics(
        stories, clauses, llm, first, validated, fallbacks, direct, attempts, outcomes
    )
