"""Report arms: a model under one reasoning strategy, ``sample-k`` samples voted.

The report compares strategies per model by treating each (model, strategy) pair as
an arm of its own: rows of the ``direct`` strategy keep the model's spec as their
``model``; rows of another strategy are named ``SPEC [STRATEGY]`` (``openai/m [cot]``),
with the spec kept in ``model_spec``. Every section (accuracy, failure kinds, edit
metrics: normalized accuracy, flip rate, retention) then shows the strategies of a
model side by side. ``sample-k`` samples are voted first
(:func:`~twosat_formal.evaluate.run.votes.vote_rows`), so an arm's row is one vote.

Examples
--------
>>> rows = [{"model": "m", "strategy": "cot"}, {"model": "m"}]
>>> [r["model"] for r in strategy_arms(rows)]
['m [cot]', 'm']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from twosat_formal.evaluate.run.votes import vote_rows

__all__ = ["arm_name", "strategy_arms"]


def arm_name(model: str, strategy: str | None) -> str:
    """The name of a model's arm under ``strategy`` (the spec itself for ``direct``).

    >>> arm_name("m", "direct"), arm_name("m", "sample-k:5")
    ('m', 'm [sample-k:5]')
    """
    return model if strategy in (None, "", "direct") else f"{model} [{strategy}]"


def strategy_arms(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` voted (``sample-k``) and named by arm; ``strategy`` filled in (``direct``)."""
    out = []
    for row in vote_rows(rows):
        strategy = row.get("strategy") or "direct"
        spec = str(row.get("model"))
        out.append(
            {**row, "strategy": strategy, "model_spec": spec, "model": arm_name(spec, strategy)}
        )
    return out
