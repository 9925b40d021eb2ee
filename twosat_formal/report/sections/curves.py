"""The series of the figures against |C|: per family and model, per template and per
knob level."""

from __future__ import annotations

from collections.abc import Sequence

from twosat_formal.report.metrics import Row, group_rows
from twosat_formal.report.sections.common import (
    Curves,
    by_family,
    clauses_of,
    estimate_curve,
    family_key,
    is_plain,
    is_swept,
)

__all__ = ["SIZE_METRICS", "knob_curves", "size_curves", "size_metric_curves", "template_curves"]


def _in_order(curves: Curves, order: Sequence[str]) -> Curves:
    """``curves`` with its series in ``order`` (series it does not name last)."""
    rank = {name: i for i, name in enumerate(order)}
    return dict(sorted(curves.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def _plain_curves(
    rows: Sequence[Row], series: str, *, method: str, seed: int, metric: str = "success"
) -> dict[str, Curves]:
    """Family → each value of the column ``series`` → ``metric`` against |C| (the grid
    rows), families in the report's order, series in order of appearance."""
    return {
        family: {
            str(name): estimate_curve(mine, "clauses", method=method, seed=seed, metric=metric)
            for (name,), mine in group_rows(members, [series]).items()
        }
        for family, members in by_family(r for r in rows if is_plain(r))
    }


def size_curves(
    rows: Sequence[Row],
    models: Sequence[str],
    *,
    method: str,
    seed: int,
    metric: str = "success",
) -> dict[str, Curves]:
    """Family → model → an estimate against |C| (the grid rows)."""
    out: dict[str, Curves] = {}
    for family, by_model in _plain_curves(
        rows, "model", method=method, seed=seed, metric=metric
    ).items():
        curves = {  # a metric that applies to no row of a family draws nothing there
            name: points
            for name, points in by_model.items()
            if any(estimate.mean is not None for _, estimate in points)
        }
        if curves:
            out[family] = _in_order(curves, models)
    return out


#: The metrics drawn in separate panels against |C|: decision accuracy (every
#: instance) and witness validity (SAT instances).
SIZE_METRICS = ("accuracy", "witness")


def template_curves(rows: Sequence[Row], *, method: str, seed: int) -> dict[str, Curves]:
    """Family → template → success against |C| (the grid rows, pooled over models)."""
    return _plain_curves(rows, "template", method=method, seed=seed)


def knob_curves(
    rows: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> dict[str, dict[str, Curves]]:
    """Panel (``family |C|=n``) → knob → model → success against the knob's level (the
    swept rows)."""
    swept = [r for r in rows if is_swept(r)]
    out: dict[str, dict[str, Curves]] = {}
    groups = group_rows(swept, ["family", "knob"])
    for family, knob in sorted(groups, key=lambda k: (family_key(str(k[0])), str(k[1]))):
        members = groups[(family, knob)]
        for clauses in sorted({clauses_of(r) for r in members}):
            at_size = [r for r in members if clauses_of(r) == clauses]
            panel = out.setdefault(f"{family} |C|={clauses}", {})
            curves = {
                str(model): estimate_curve(mine, "level", method=method, seed=seed)
                for (model,), mine in group_rows(at_size, ["model"]).items()
            }
            panel[str(knob)] = _in_order(curves, models)
    return out


def size_metric_curves(
    data: Sequence[Row], models: Sequence[str], *, method: str, seed: int
) -> dict[str, dict[str, Curves]]:
    """Each metric of :data:`SIZE_METRICS` against |C|, per family and model."""
    return {
        metric: size_curves(data, models, method=method, seed=seed, metric=metric)
        for metric in SIZE_METRICS
    }
