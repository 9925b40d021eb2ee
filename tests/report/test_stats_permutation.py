"""The permutation test over formulas against a brute-force enumeration by hand."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twosat_formal.errors import ConfigError
from twosat_formal.report.stats import PERMUTATION_TEST, permutation_levels

Unit = tuple[Hashable, float, Mapping[Hashable, float]]


def _between_ss(units: Sequence[Unit]) -> float:
    """Σ over strata and series of Σ_levels n_l (mean_l − mean)², by the definition."""
    total = 0.0
    strata = {u[0] for u in units}
    series = {s for u in units for s in u[2]}
    for stratum in strata:
        for s in series:
            members = [(u[1], u[2][s]) for u in units if u[0] == stratum and s in u[2]]
            if not members:
                continue
            grand = sum(v for _, v in members) / len(members)
            for level in {lvl for lvl, _ in members}:
                values = [v for lvl, v in members if lvl == level]
                total += len(values) * (sum(values) / len(values) - grand) ** 2
    return total


def _brute_p(units: Sequence[Unit]) -> float:
    """Every ordering of the level labels within each stratum (orderings, not distinct
    arrangements: each arrangement is counted equally often, so the share is the same)."""
    strata = sorted({u[0] for u in units})
    positions = {s: [i for i, u in enumerate(units) if u[0] == s] for s in strata}
    observed = _between_ss(units)
    per_stratum = [
        list(itertools.permutations([units[i][1] for i in positions[s]])) for s in strata
    ]
    hits = count = 0
    for choice in itertools.product(*per_stratum):
        relabelled = list(units)
        for s, labels in zip(strata, choice, strict=True):
            for i, level in zip(positions[s], labels, strict=True):
                relabelled[i] = (units[i][0], level, units[i][2])
        count += 1
        hits += _between_ss(relabelled) >= observed - 1e-9
    return hits / count


@st.composite
def small_units(draw: st.DrawFn) -> list[Unit]:
    """Up to 7 formulas in 1-2 strata, 2-3 levels, 1-2 models (some formulas lack one)."""
    strata = draw(st.integers(1, 2))
    units: list[Unit] = []
    for stratum in range(strata):
        size = draw(st.integers(2, 7 if strata == 1 else 4))
        levels = draw(st.lists(st.sampled_from([0.2, 0.5, 0.8]), min_size=size, max_size=size))
        for level in levels:
            values = draw(
                st.dictionaries(
                    st.sampled_from(["m1", "m2"]),
                    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
                    min_size=1,
                )
            )
            units.append((stratum, level, values))
    if not any(len({u[1] for u in units if u[0] == s}) > 1 for s in range(strata)):
        units[0] = (units[0][0], 0.2 if units[0][1] != 0.2 else 0.8, units[0][2])
        units[1] = (units[1][0], 0.5, units[1][2])
    return units


@settings(max_examples=60)
@given(small_units())
def test_exact_p_matches_brute_force(units: list[Unit]) -> None:
    result = permutation_levels(units)
    assert dict(result.extra)["exact"]
    assert result.statistic == pytest.approx(_between_ss(units), abs=1e-9)
    assert result.p_value == pytest.approx(_brute_p(units), abs=1e-12)
    assert result.n == len(units) and result.test == PERMUTATION_TEST


@settings(max_examples=25)
@given(small_units())
def test_exact_test_rejects_at_most_alpha_of_arrangements(units: list[Unit]) -> None:
    """The level of an exact test: over every arrangement of the labels (the null
    distribution), p <= alpha in at most alpha of them."""
    strata = sorted({u[0] for u in units})
    positions = {s: [i for i, u in enumerate(units) if u[0] == s] for s in strata}
    arrangements = [
        sorted(set(itertools.permutations([units[i][1] for i in positions[s]]))) for s in strata
    ]
    ps = []
    for choice in itertools.product(*arrangements):
        relabelled = list(units)
        for s, labels in zip(strata, choice, strict=True):
            for i, level in zip(positions[s], labels, strict=True):
                relabelled[i] = (units[i][0], level, units[i][2])
        ps.append(permutation_levels(relabelled).p_value)
    for alpha in (0.05, 0.1, 0.25, 0.5):
        assert sum(p <= alpha for p in ps) <= alpha * len(ps) + 1e-9


def test_monte_carlo_agrees_with_exact() -> None:
    units: list[Unit] = [
        (0, lvl, {"a": (i * 7 % 5) / 4 + lvl / 3, "b": (i * 3 % 4) / 3})
        for i, lvl in enumerate([0.2, 0.5, 0.8] * 3)
    ]
    exact = permutation_levels(units)
    assert dict(exact.extra)["arrangements"] == 1680
    sampled = permutation_levels(units, permutations=999, seed=5)
    assert not dict(sampled.extra)["exact"] and dict(sampled.extra)["arrangements"] == 999
    assert exact.note == "exact over 1,680 arrangements"
    assert sampled.note == "999 random arrangements (seed 5)"
    assert sampled.p_value == pytest.approx(exact.p_value, abs=0.05)
    assert sampled.p_value == permutation_levels(units, permutations=999, seed=5).p_value


def test_a_unit_moves_with_all_its_series() -> None:
    """Two models that agree on every formula: the test sees the formulas, not 2x them.
    A perfectly separated 2 + 2 design has 1 arrangement in 6 (and its mirror) at the
    observed statistic, whatever the number of models."""
    one = [(0, lvl, {"m": float(lvl > 0.5)}) for lvl in (0.2, 0.2, 0.8, 0.8)]
    two = [(0, lvl, {"m": float(lvl > 0.5), "n": float(lvl > 0.5)}) for lvl in (0.2, 0.2, 0.8, 0.8)]
    assert permutation_levels(one).p_value == pytest.approx(2 / 6)
    assert permutation_levels(two).p_value == pytest.approx(2 / 6)


def test_no_variation_and_bad_input() -> None:
    flat = permutation_levels([(0, lvl, {"m": 0.0}) for lvl in (0.2, 0.5, 0.8, 0.2)])
    assert flat.p_value == 1.0 and flat.statistic == 0.0
    assert flat.note == "no variation; exact over 12 arrangements"
    with pytest.raises(ConfigError, match="2 levels within a stratum"):
        permutation_levels([(0, 0.2, {"m": 1.0}), (1, 0.5, {"m": 0.0})])
    with pytest.raises(ConfigError, match="not finite"):
        permutation_levels([(0, 0.2, {"m": float("nan")}), (0, 0.5, {"m": 0.0})])
    with pytest.raises(ConfigError, match="permutations"):
        permutation_levels([(0, 0.2, {"m": 1.0}), (0, 0.5, {"m": 0.0})], permutations=0)


def _sweep_rows(outcomes: list[list[bool]], templates: int, models: int) -> list[dict[str, object]]:
    """Rows of a one-size sweep: formula i at level i % 3, answered by every model in
    every template with the outcomes ``outcomes[i]`` (one per model)."""
    rows: list[dict[str, object]] = []
    for i, per_model in enumerate(outcomes):
        for m in range(models):
            for t in range(templates):
                rows.append(
                    {
                        "instance_id": f"f{i}",
                        "model": f"m{m}",
                        "template": f"t{t}",
                        "sample": 0,
                        "family": "backbone",
                        "clauses": 20,
                        "knob": "beta",
                        "level": (0.2, 0.5, 0.8)[i % 3],
                        "label": "UNSAT",
                        "decision_correct": per_model[m % len(per_model)],
                    }
                )
    return rows


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.booleans(), min_size=2, max_size=2), min_size=6, max_size=9),
    st.integers(2, 6),
)
def test_copying_answers_to_more_templates_changes_nothing(
    outcomes: list[list[bool]], templates: int
) -> None:
    """The formula is the unit: the same answers repeated under more templates (the
    renderings of one formula) leave n and the p-value as they are."""
    from twosat_formal.report.sections.knobs import knob_tests

    (one,) = knob_tests(_sweep_rows(outcomes, 1, 2))
    (many,) = knob_tests(_sweep_rows(outcomes, templates, 2))
    assert one.n == many.n == len(outcomes)
    assert one.p_value == many.p_value
    assert one.family == many.family == "knob levels (all of Table 6)"
