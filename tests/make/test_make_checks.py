"""The builders' Python API refuses a seed, clause count or clause position that is
not an integer.

A seed is written into every record and read back by ``certify`` as an integer, so a
seed that is text, a float, a boolean or ``None`` would make records that fail
``certify``; every builder refuses it with a ``ConfigError`` naming ``seed``, and an
integer seed of any size or sign makes records that certify.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.jsonl import write_jsonl
from twosat_formal.certify import certify_file
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.io.instance import Instance
from twosat_formal.make.checks import check_int, check_seed
from twosat_formal.make.edits import (
    apply_edit,
    cumulative_edits,
    individual_edits,
    root_instance,
)
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb.chain import apply_chain
from twosat_formal.make.perturb.instances import perturb_document, perturb_instance

BASE = root_instance(Formula([[1, 2], [-1, 2], [-2, 3], [3, 1]]))
BRIDGED = generate("mono-bridge", clauses=8, seed=0)


def _edited(seed: Any) -> list[Instance]:
    chain = cumulative_edits(BASE, max_edits=2, seed=seed)
    found = individual_edits(BASE, count=1, seed=seed)
    single = apply_edit(BASE, "split", position=0, seed=seed)
    return [e.instance for e in (*chain.levels, *found.all(), single)]


BUILDERS: dict[str, Callable[[Any], object]] = {
    "generate": lambda s: generate("backbone", clauses=6, seed=s),
    "cumulative_edits": lambda s: cumulative_edits(BASE, seed=s),
    "individual_edits": lambda s: individual_edits(BASE, seed=s),
    "apply_edit": lambda s: apply_edit(BASE, "split", position=0, seed=s),
    "apply_chain": lambda s: apply_chain(BASE.formula, ["reorder"], seed=s),
    "perturb_instance": lambda s: perturb_instance(BRIDGED, ["reorder"], seed=s),
    "perturb_document": lambda s: perturb_document(BASE.formula, ["rename"], seed=s),
}

NOT_INTEGERS = st.one_of(
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.lists(st.integers(), max_size=2),
)


@pytest.mark.parametrize("builder", sorted(BUILDERS))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=NOT_INTEGERS)
def test_a_seed_that_is_not_an_integer_is_refused_by_name(builder: str, seed: object) -> None:
    with pytest.raises(ConfigError) as caught:
        BUILDERS[builder](seed)
    assert caught.value.parameter == "seed"
    assert repr(seed) in str(caught.value)


@pytest.mark.parametrize("position", [True, False, 0.0, 1.0, "0", None])
def test_a_clause_position_that_is_not_an_integer_is_refused(position: object) -> None:
    with pytest.raises(ConfigError) as caught:
        apply_edit(BASE, "negate-literal", position=position)  # type: ignore[arg-type]
    assert caught.value.parameter == "position"


@pytest.mark.parametrize("clauses", [True, 10.0, "10", [10]])
def test_a_clause_count_that_is_not_an_integer_is_refused(clauses: object) -> None:
    with pytest.raises(ConfigError, match=r"^clauses must be an integer, got ") as caught:
        generate("backbone", clauses=clauses, seed=0)  # type: ignore[arg-type]
    assert caught.value.parameter == "clauses" and repr(clauses) in str(caught.value)


@pytest.mark.parametrize("seed", [-(2**70), -1, 0, 2**31, 2**64 + 3])
def test_an_integer_seed_of_any_size_makes_records_that_certify(tmp_path: Path, seed: int) -> None:
    records = [BASE, *_edited(seed), BRIDGED, perturb_instance(BRIDGED, ["reorder"], seed=seed)]
    assert all(r.transforms[-1]["seed"] == seed for r in _edited(seed))
    report = certify_file(write_jsonl(tmp_path / "d.jsonl", [r.to_record() for r in records]))
    assert report.ok, [str(f) for f in report.failures]


@given(value=st.integers())
def test_check_int_returns_every_integer(value: int) -> None:
    assert check_int(value, "x") == value == check_seed(value)


@given(value=st.integers(), minimum=st.integers(-5, 5))
def test_check_int_with_a_minimum_takes_exactly_the_integers_from_it(
    value: int, minimum: int
) -> None:
    if value >= minimum:
        assert check_int(value, "x", minimum=minimum) == value
    else:
        with pytest.raises(ConfigError, match=rf"^x must be an integer >= {minimum}, got "):
            check_int(value, "x", minimum=minimum)


@pytest.mark.parametrize("level", [-1, -(2**40), 1.0, True, "1", None])
def test_an_edit_level_is_refused_in_one_wording_by_the_chain_and_the_metrics(
    level: object,
) -> None:
    """``EditChain.at_level`` and the edit metrics refuse a level that is not an integer
    >= 0 with one message naming ``level``."""
    from twosat_formal.make.edits.metrics import level_pairs

    chain = cumulative_edits(BASE, max_edits=1, seed=0)
    for call in (lambda: chain.at_level(level), lambda: level_pairs([], level)):  # type: ignore[arg-type]
        with pytest.raises(ConfigError) as caught:
            call()
        assert str(caught.value) == f"level must be an integer >= 0, got {level!r}"
        assert caught.value.parameter == "level"
