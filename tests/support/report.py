"""Result rows for the report's tests (no tests here)."""

from __future__ import annotations

__all__ = ["result_row"]


def result_row(**fields: object) -> dict[str, object]:
    """One correct SAT result row (instance ``a``), with ``fields`` replacing or adding
    columns.

    Examples
    --------
    >>> result_row(label="UNSAT")["label"], result_row()["failure"]
    ('UNSAT', 'correct')
    """
    base: dict[str, object] = {
        "instance_id": "a",
        "label": "SAT",
        "decision": "SAT",
        "decision_correct": True,
        "witness_valid": True,
        "failure": "correct",
        "truncated": False,
    }
    return {**base, **fields}
