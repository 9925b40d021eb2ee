"""Chains: every step recorded in order, replayed exactly, reproducible in any process."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import python_stdout
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ArgumentTypeError, ConfigError, ProofError, UnknownNameError
from twosat_formal.make.perturb import Chain, Transform, apply_chain, replay, replay_step
from twosat_formal.make.perturb.chain import StepSpec

BASE = Formula([[1, 2], [-1, 3], [2, -3], [-2, 4], [3, 4], [-4, 1]])
STEPS: list[StepSpec] = [
    "reorder",
    ("rename", {"names": "fresh", "flip": 0.5}),
    ("filler", {"count": 2, "placement": "interleave"}),
    ("duplicate", {"layout": "interleaved"}),
    ("bridge-move", {"clause": 0, "relative": 1.0}),
    "flip",
]


def test_chain_records_every_step_in_order() -> None:
    new, chain = apply_chain(BASE, STEPS, seed=5)
    assert [t.operator for t in chain.steps] == [
        "reorder",
        "rename",
        "filler",
        "duplicate",
        "bridge-move",
        "flip",
    ]
    assert chain.steps[2].relation == "conservative-extension"
    assert chain.rebuild(BASE) == new
    assert replay(BASE, chain.steps) == new
    assert chain.proof_seconds > 0
    assert Chain.from_json(json.loads(json.dumps(chain.to_json()))) == chain


@settings(max_examples=15)
@given(st.integers(0, 2**40))
def test_same_seed_same_chain(seed: int) -> None:
    a = apply_chain(BASE, STEPS, seed=seed)
    b = apply_chain(BASE, STEPS, seed=seed)
    assert a[0] == b[0]
    assert [t.to_json(with_proof=False) for t in a[1].steps] == [
        t.to_json(with_proof=False) for t in b[1].steps
    ]


def test_chain_is_byte_identical_in_another_process() -> None:
    code = (
        "import json\n"
        "from twosat_formal.core.formula import Formula\n"
        "from twosat_formal.make.perturb import apply_chain\n"
        f"base = Formula({[list(c) for c in BASE.clauses]})\n"
        f"new, chain = apply_chain(base, {STEPS!r}, seed=77)\n"
        "print(json.dumps([t.to_json(with_proof=False) for t in chain.steps]))\n"
    )
    other = python_stdout(code).strip()
    _, chain = apply_chain(BASE, STEPS, seed=77)
    assert other == json.dumps([t.to_json(with_proof=False) for t in chain.steps])


def test_different_seeds_give_different_chains() -> None:
    results = {apply_chain(BASE, ["reorder"], seed=s)[0] for s in range(10)}
    assert len(results) > 5


def test_bridge_is_followed_through_the_chain() -> None:
    bridge = 3
    steps: list[StepSpec] = [
        ("reorder", {"order": "reversed"}),
        ("filler", {"count": 3, "placement": "start"}),
        ("bridge-move", {"position": 0}),
    ]
    new, chain = apply_chain(BASE, steps, seed=1, bridge=bridge)
    # reversed: clause 3 of 6 goes to position 2; three fillers in front: position 5
    assert chain.steps[2].params["clause"] == 5
    assert new.clauses[0] == BASE.clauses[bridge]
    assert chain.track_clause(bridge) == 0


def test_explicit_clause_wins_over_the_bridge() -> None:
    new, chain = apply_chain(BASE, [("bridge-move", {"clause": 1, "position": 0})], bridge=4)
    assert new.clauses[0] == BASE.clauses[1]
    assert chain.steps[0].params["clause"] == 1


def test_bad_steps() -> None:
    with pytest.raises(UnknownNameError):
        apply_chain(BASE, ["scramble"])
    with pytest.raises(ConfigError, match="a chain step must be"):
        apply_chain(BASE, [("reorder",)])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seed", 12345),
        ("params", {"names": "fresh", "flip": 0.0, "prefix": None, "shuffle": True}),
        ("literal_map", "swap-first"),
        ("clause_permutation", "reverse"),
        ("names", None),
    ],
)
def test_replay_detects_a_tampered_step(field: str, value: Any) -> None:
    _, chain = apply_chain(BASE, ["reorder", ("rename", {"names": "fresh", "flip": 0.5})])
    t = chain.steps[1]
    if value == "swap-first":
        lmap = t.literal_map[0]
        value = ((lmap[1], lmap[0], *lmap[2:]),)
    elif value == "reverse":
        value = tuple(reversed(t.clause_permutation))
    tampered = replace(t, **{field: value})
    with pytest.raises(ProofError, match="step 2 \\(rename\\)"):
        replay(BASE, [chain.steps[0], tampered])


def test_replay_step_returns_the_fresh_transform() -> None:
    new, t = replay_step(BASE, apply_chain(BASE, ["duplicate"])[1].steps[0])
    assert isinstance(t, Transform) and t.proof is not None
    assert new.num_vars == 2 * BASE.num_vars


@pytest.mark.parametrize("params", [None, "", [], "order=reversed", 3, {1: "reversed"}])
def test_a_step_whose_params_are_no_mapping_of_names_is_refused(params: object) -> None:
    """``dict("")`` and ``dict([])`` are empty: such a step ran with no parameters;
    ``None`` or an int was a bare TypeError."""
    with pytest.raises(ArgumentTypeError) as caught:
        apply_chain(Formula([[1, 2], [-1, 2]]), [("reorder", params)])  # type: ignore[list-item]
    assert caught.value.parameter == "steps"


def test_a_step_may_not_set_its_own_seed() -> None:
    """``seed`` among a step's params was a bare TypeError (two values for ``seed``)."""
    with pytest.raises(ConfigError) as caught:
        apply_chain(Formula([[1, 2], [-1, 2]]), [("rename", {"seed": 3})])
    assert caught.value.parameter == "seed"


def test_a_formula_of_too_many_variables_is_refused_before_anything_is_sized() -> None:
    """2**40 declared variables made the chain (and a root instance) a MemoryError."""
    huge = Formula([[1, 2]], num_vars=2**40)
    with pytest.raises(ConfigError) as caught:
        apply_chain(huge, ["reorder"])
    assert caught.value.parameter == "num_vars"
