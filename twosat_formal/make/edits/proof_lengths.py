"""Proof length along an edit chain against prediction flips (LogicEdit, Appendix F).

Every instance record carries its proof length (``measures.proof_length``: the
shortest contradiction cycle of an UNSAT formula, the longest shortest chain forcing
a backbone literal of a SAT one; :mod:`twosat_formal.solve.measures`). An edited row is
paired with the row of its origin (the chain's first record) under the same model,
template and sample, as :mod:`twosat_formal.make.edits.metrics` pairs them; the *change*
is the edited record's proof length minus the origin's, and the pair is a
*prediction flip* when the two decisions differ (a missing decision is a decision of
its own). :func:`proof_length_flips` counts pairs and flips per change, and each
origin formula's share of flips among its pairs (the pairs of one origin, over
templates, samples and edits, are one unit: the report's interval counts origins);
:func:`changed_proof_lengths` counts the edited records whose proof length changed.
Rows whose instance has no proof length (records written before it existed) are left
out.

Examples
--------
>>> step = {"kind": "edit", "mode": "cumulative", "level": 1, "origin": "a",
...         "label_before": "SAT", "label_after": "SAT"}
>>> rows = [
...     {"instance_id": "a", "decision": "SAT", "measures": {"proof_length": 3}},
...     {"instance_id": "a1", "transforms": [step], "decision": "UNSAT",
...      "measures": {"proof_length": 5}},
... ]
>>> [f.to_json() for f in proof_length_flips(rows)]
[{'change': 2, 'pairs': 1, 'flips': 1, 'rate': 1.0}]
>>> proof_length_flips(rows)[0].shares
(1.0,)
>>> changed_proof_lengths(rows)
(1, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from twosat_formal.core.jsonfields import fields_json
from twosat_formal.make.edits.metrics import (
    Row,
    decision_of,
    edit_info,
    edited_rows,
    question_key,
)

__all__ = ["ProofLengthFlips", "changed_proof_lengths", "proof_length_flips", "proof_length_of"]


def proof_length_of(row: Row) -> int | None:
    """The proof length of a row's instance (``measures.proof_length``), if recorded.

    >>> proof_length_of({"measures": {"proof_length": 4}}), proof_length_of({})
    (4, None)
    """
    measures = row.get("measures")
    value = measures.get("proof_length") if isinstance(measures, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class ProofLengthFlips:
    """The edited rows whose proof length changed by ``change``: pairs and flips.

    >>> ProofLengthFlips(-1, pairs=4, flips=1).rate
    0.25
    """

    change: int
    pairs: int
    flips: int
    #: Each origin formula's share of flips among its pairs, in the order first met
    #: (the units of an interval; not written to JSON).
    shares: tuple[float, ...] = field(default=(), repr=False)

    @property
    def rate(self) -> float | None:
        """``flips / pairs`` (``None`` without pairs)."""
        return self.flips / self.pairs if self.pairs else None

    def to_json(self) -> dict[str, Any]:
        """The counts as a JSON-ready dict."""
        return fields_json(self, then=("rate",), skip=("shares",))


def _pairs(rows: Iterable[Row], category: str | None) -> list[tuple[Row, Row]]:
    """Each edited row (of ``category``) with its origin's row, both with a proof length
    (the origin's row first: its ``instance_id`` is the origin formula)."""
    rows = list(rows)
    baselines = {
        question_key(row, row.get("instance_id")): row
        for row in rows
        if edit_info(row) is None and proof_length_of(row) is not None
    }
    pairs = []
    for row, info in edited_rows(rows, category=category):
        if proof_length_of(row) is None:
            continue
        base = baselines.get(question_key(row, info.origin))
        if base is not None:
            pairs.append((base, row))
    return pairs


def proof_length_flips(
    rows: Iterable[Row], *, category: str | None = None
) -> list[ProofLengthFlips]:
    """Pairs and prediction flips per change in proof length, by change.

    ``category`` (``"operator"`` or ``"premise"``) keeps the edited rows of that
    category, as in :mod:`twosat_formal.make.edits.metrics`.
    """
    counts: dict[int, dict[object, list[int]]] = {}
    for base, edited in _pairs(rows, category):
        change = int(proof_length_of(edited) or 0) - int(proof_length_of(base) or 0)
        tally = counts.setdefault(change, {}).setdefault(base.get("instance_id"), [0, 0])
        tally[0] += 1
        tally[1] += decision_of(base) != decision_of(edited)
    return [_flips(change, counts[change]) for change in sorted(counts)]


def _flips(change: int, by_origin: Mapping[object, list[int]]) -> ProofLengthFlips:
    """The pairs and flips of one change, summed over the origins, with each origin's share."""
    tallies = list(by_origin.values())
    return ProofLengthFlips(
        change,
        pairs=sum(pairs for pairs, _ in tallies),
        flips=sum(flips for _, flips in tallies),
        shares=tuple(flips / pairs for pairs, flips in tallies),
    )


def changed_proof_lengths(rows: Iterable[Row]) -> tuple[int, int]:
    """``(edited, changed)``: the edited records (instances) with a proof length whose
    origin has one, and those among them whose proof length differs from the origin's.

    >>> changed_proof_lengths([])
    (0, 0)
    """
    rows = list(rows)
    lengths = {str(r.get("instance_id")): proof_length_of(r) for r in rows}
    edited: dict[str, bool] = {}
    for row in rows:
        info = edit_info(row)
        mine, origin = proof_length_of(row), lengths.get(info.origin) if info else None
        if info is None or mine is None or origin is None:
            continue
        edited[str(row.get("instance_id"))] = mine != origin
    return len(edited), sum(edited.values())
