"""Majority votes of ``sample-k`` results (test-time scaling).

A ``sample-k:K`` run stores every sample (indices ``0 .. samples*K - 1``) as its own
result; a vote is made when results are reported: samples ``g*K .. g*K + K - 1`` of one
model, prompt and strategy are vote ``g``.

* The decision is the one most samples gave (a sample without a decision does not
  vote). The voted row is the first sample (lowest index) with that decision, so its
  witness is the one judged, and its failure kind, correctness and witness validity
  are that sample's.
* A tie between decisions is counted apart (``vote_tie``): no decision, failure
  ``ambiguous-answer``, not correct. A vote where no sample decided is the first
  sample's row.
* Every voted row records ``k`` (``vote_k``), how many samples it had (``vote_n``,
  less than ``K`` while a run is unfinished) and the votes (``votes``).

Rows of other strategies pass through unchanged.

Examples
--------
>>> rows = [{"model": "m", "prompt_id": "p", "strategy": "sample-k:3", "sample": i,
...          "decision": d, "decision_correct": d == "SAT", "failure": "correct"}
...         for i, d in enumerate(["UNSAT", "SAT", "SAT"])]
>>> [(r["sample"], r["decision"], r["votes"], r["vote_tie"]) for r in vote_rows(rows)]
[(0, 'SAT', {'SAT': 2, 'UNSAT': 1}, False)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

__all__ = ["sample_k", "vote_rows"]

Row = Mapping[str, Any]


def sample_k(strategy: object) -> int | None:
    """The ``K`` of a ``sample-k:K`` strategy key, ``None`` for any other strategy.

    >>> sample_k("sample-k:4"), sample_k("cot"), sample_k(None)
    (4, None, None)
    """
    if not isinstance(strategy, str) or not strategy.startswith("sample-k:"):
        return None
    count = strategy.partition(":")[2]
    return int(count) if count.isdecimal() and int(count) >= 1 else None


def _group(row: Row, k: int) -> tuple[Hashable, ...]:
    return (
        row.get("model"),
        row.get("strategy"),
        row.get("prompt_id"),
        row.get("instance_id"),
        row.get("template"),
        int(row.get("sample") or 0) // k,
    )


def _vote(samples: list[Row], k: int, group: int) -> dict[str, Any]:
    samples = sorted(samples, key=lambda r: int(r.get("sample") or 0))
    votes = Counter(str(r["decision"]) for r in samples if r.get("decision") is not None)
    ranked = votes.most_common()
    tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
    info = {"vote_k": k, "vote_n": len(samples), "votes": dict(sorted(votes.items()))}
    if tie:
        first = samples[0]
        return {
            **first,
            **info,
            "sample": group,
            "vote_tie": True,
            "decision": None,
            "decision_correct": False,
            "witness_valid": None,
            "failure": "ambiguous-answer",
        }
    if ranked:
        winner = next(
            r
            for r in samples
            if r.get("decision") is not None and str(r["decision"]) == ranked[0][0]
        )
    else:
        winner = samples[0]
    return {**winner, **info, "sample": group, "vote_tie": False}


def vote_rows(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """``rows`` with the samples of each ``sample-k`` vote replaced by the voted row.

    A voted row takes the place of the first of its samples met in ``rows``; other
    rows keep their order.
    """
    out: list[dict[str, Any] | tuple[Hashable, ...]] = []
    groups: dict[tuple[Hashable, ...], tuple[int, int, list[Row]]] = {}
    for row in rows:
        k = sample_k(row.get("strategy"))
        if k is None:
            out.append(dict(row))
            continue
        key = _group(row, k)
        if key not in groups:
            groups[key] = (k, int(row.get("sample") or 0) // k, [])
            out.append(key)
        groups[key][2].append(row)
    return [
        _vote(groups[entry][2], groups[entry][0], groups[entry][1])
        if isinstance(entry, tuple)
        else entry
        for entry in out
    ]
