"""Pair metrics of minimal twins, their report section and the ``pairs`` experiment."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from twosat_formal.report.blocks import Heading
from twosat_formal.report.content import compute_content
from twosat_formal.report.metrics import mean_ci
from twosat_formal.report.pairs import pair_rows, pair_summaries, wilson
from twosat_formal.report.render import PAIRS_SECTION, layout
from twosat_formal.study.experiments.design import expand
from twosat_formal.study.experiments.runner import _entity_key, build_dataset
from twosat_formal.study.experiments.spec import load_spec


def row(iid, decision, correct, *, twin_of=None, model="m", template="logic", family="f"):
    return {
        "instance_id": iid,
        "twin_of": twin_of,
        "model": model,
        "template": template,
        "sample": 0,
        "family": family,
        "num_clauses": 4,
        "label": "SAT",
        "decision": decision,
        "decision_correct": correct,
        "witness_valid": None,
        "failure": "correct" if correct else "wrong_decision",
        "truncated": False,
    }


ROWS = [
    row("s1", "UNSAT", True),
    row("t1", "SAT", True, twin_of="s1"),  # accurate, consistent
    row("s2", "SAT", False),
    row("t2", "UNSAT", False, twin_of="s2"),  # consistent, not accurate
    row("s3", "SAT", True),
    row("t3", "SAT", False, twin_of="s3"),  # neither
    row("s4", None, False),
    row("t4", "SAT", True, twin_of="s4"),  # no decision on one side: inconsistent
    row("t5", "SAT", True, twin_of="missing"),  # no source row
]


def test_pair_accuracy_and_consistency_by_hand() -> None:
    pairs, unpaired = pair_rows(ROWS)
    assert unpaired == 1
    assert [(p["accurate"], p["consistent"]) for p in pairs] == [
        (True, True),
        (False, True),
        (False, False),
        (False, False),
    ]
    (overall, *_) = pair_summaries(ROWS)
    assert (overall.by, overall.pairs) == ("all", 4)
    assert overall.accuracy.mean == 0.25 and overall.consistency.mean == 0.5


def test_pairs_pair_only_within_model_template_and_sample() -> None:
    rows = [row("s", "SAT", True), row("t", "UNSAT", True, twin_of="s", template="room")]
    assert pair_rows(rows) == ([], 1)


@pytest.mark.parametrize(("k", "n"), [(0, 5), (3, 10), (10, 10), (17, 40)])
def test_wilson_matches_scipy(k: int, n: int) -> None:
    ours = wilson(k, n)
    theirs = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours.low == pytest.approx(theirs.low, abs=1e-12)
    assert ours.high == pytest.approx(theirs.high, abs=1e-12)


@given(
    st.integers(min_value=1, max_value=400).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n))
    ),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_the_twins_and_the_metrics_give_one_wilson_interval(
    case: tuple[int, int], confidence: float
) -> None:
    """A share's interval is the same float pair whichever table shows it: the twins'
    ``wilson`` and the metrics' ``mean_ci`` of the 0/1 values (before they shared one
    computation, the two formulas differed in the last bit on about one case in ten)."""
    successes, n = case
    values = [1.0] * successes + [0.0] * (n - successes)
    twins = wilson(successes, n, confidence=confidence)
    metrics = mean_ci(values, confidence=confidence, method="wilson")
    assert (twins.low, twins.high) == (metrics.low, metrics.high)


def test_report_has_the_twins_section_only_with_twins() -> None:
    content = compute_content(ROWS)
    assert content.pairs is not None
    groups = [(s.by, s.group) for s in content.pairs]
    assert groups == [("all", "all"), ("family", "f"), ("template", "logic")]
    titles = [b.text for b in layout(content, []) if isinstance(b, Heading) and b.level == 2]
    assert PAIRS_SECTION in titles
    assert titles.index(PAIRS_SECTION) == titles.index("Figures") - 1
    plain = compute_content([r for r in ROWS if not r["twin_of"]])
    assert plain.pairs is None
    assert PAIRS_SECTION not in [b.text for b in layout(plain, []) if isinstance(b, Heading)]


def test_pairs_experiment_adds_each_twin_after_its_source() -> None:
    spec = load_spec("pairs").with_formulas(1)
    instances, design = build_dataset(expand(spec)[:2])
    assert [i.twin_of for i in instances][1::2] == [instances[0].id, instances[2].id]
    twins = [d for d in design if d["arm"] == "twin"]
    assert [d["twin_of"] for d in twins] == [instances[0].id, instances[2].id]
    # a twin is verbalized with its source's entity map
    assert _entity_key(instances[1]) == instances[0].id


def test_pair_intervals_count_formulas_not_renderings() -> None:
    """Six renderings of one formula are one unit: two formulas, one always consistent
    and one never, give 50 % over n = 2 formulas, with Wilson's interval for n = 2."""
    from twosat_formal.report.metrics import mean_ci

    rows = []
    for template in ("logic", "letter", "team", "social", "room", "door"):
        rows += [
            row("a", "UNSAT", True, template=template),
            row("a'", "SAT", True, twin_of="a", template=template),
            row("b", "SAT", True, template=template),
            row("b'", "SAT", False, twin_of="b", template=template),
        ]
    (overall,) = [s for s in pair_summaries(rows) if s.by == "all"]
    assert overall.pairs == 12
    assert overall.consistency.n == 2 and overall.consistency.n_obs == 12
    assert overall.consistency.mean == 0.5
    assert overall.consistency.low == mean_ci([1.0, 0.0]).low
    pooled = wilson(6, 12)
    assert overall.consistency.low < pooled.low and overall.consistency.high > pooled.high


def test_a_model_that_never_answers_is_not_consistent() -> None:
    from twosat_formal.report.metrics import decision_consistency

    silent = [row("s1", None, False, template=t) for t in ("logic", "team", "room")]
    assert decision_consistency(silent).mean == 0.0
    (overall,) = [
        s for s in pair_summaries([*silent, row("t1", None, False, twin_of="s1")]) if s.by == "all"
    ]
    assert overall.consistency.mean == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6), st.integers(1, 5))
def test_more_renderings_of_the_same_answers_change_no_interval(
    answers: list[tuple[bool, bool]], renderings: int
) -> None:
    """Repeating every pair under more templates leaves the estimates as they are."""

    def rows(templates: int) -> list[dict[str, object]]:
        out = []
        for i, (source_right, twin_right) in enumerate(answers):
            for t in range(templates):
                out.append(row(f"s{i}", "UNSAT" if source_right else "SAT", source_right,
                               template=f"t{t}"))  # fmt: skip
                out.append(row(f"t{i}", "SAT" if twin_right else "UNSAT", twin_right,
                               twin_of=f"s{i}", template=f"t{t}"))  # fmt: skip
        return out

    (one,) = [s for s in pair_summaries(rows(1)) if s.by == "all"]
    (many,) = [s for s in pair_summaries(rows(renderings)) if s.by == "all"]
    for a, b in ((one.accuracy, many.accuracy), (one.consistency, many.consistency)):
        assert (a.mean, a.low, a.high, a.n) == (b.mean, b.low, b.high, b.n) == (
            a.mean, a.low, a.high, len(answers))  # fmt: skip


@given(
    st.integers(min_value=1, max_value=500).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n))
    )
)
def test_a_wilson_interval_holds_its_share(case: tuple[int, int]) -> None:
    """low <= share <= high exactly, also at 0 and n (where rounding once lifted the
    low bound past a share of 0 and a figure's error bar went negative)."""
    successes, n = case
    e = wilson(successes, n)
    assert e.low is not None and e.high is not None and e.mean is not None
    assert 0.0 <= e.low <= e.mean <= e.high <= 1.0
