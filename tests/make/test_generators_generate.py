"""generate(), the registry, datasets and grids: labels, ids, determinism, reproduction."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Minisat22

from tests.support.cli import python_stdout
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, UnknownNameError
from twosat_formal.make.generators import FAMILIES, Dataset, DatasetConfig, derive_seed, generate
from twosat_formal.make.generators.grids import TABLE1_CLAUSES, grid_cells

BASE_FAMILIES = ["implication-cycle", "equivalence-core", "backbone", "mono-bridge"]


def pysat_label(formula: Formula) -> str:
    with Minisat22(bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        return "SAT" if solver.solve() else "UNSAT"


def assert_contradiction_cycle(formula: Formula, names: list[str]) -> None:
    """Every step a -> b (last -> first included) has a clause (~a | b); x and ~x occur."""
    lits = [-formula.var(n[1:]) if n.startswith("~") else formula.var(n) for n in names]
    assert any(-lit in lits for lit in lits)
    clauses = {frozenset(c) for c in formula.clauses}
    for a, b in zip(lits, lits[1:] + lits[:1], strict=True):
        assert frozenset((-a, b)) in clauses


def test_registry_lists_the_five_families_with_knobs() -> None:
    assert FAMILIES.names() == [*BASE_FAMILIES, "symmetry"]
    listing = {name: fam.to_json() for name, fam in FAMILIES.items()}
    knobs = {p["name"] for p in listing["implication-cycle"]["params"] if p["kind"] == "knob"}
    assert knobs == {"split", "filler_share", "core_ratio"}
    backbone_knobs = [p.name for p in FAMILIES.get("backbone").knobs()]
    assert backbone_knobs == ["beta", "mono_density", "pi", "filler_share"]
    mono = [p.name for p in FAMILIES.get("mono-bridge").knobs()]
    assert mono == ["var_density", "pos_ratio", "bridge_position", "filler_share"]
    for fam in listing.values():
        assert all(p["valid"] and p["meaning"] for p in fam["params"])


@pytest.mark.parametrize("family", [*BASE_FAMILIES, "symmetry"])
def test_labels_certificates_and_reproduction(family: str) -> None:
    for seed in range(4):
        inst = generate(family, clauses=20, seed=seed)
        assert abs(inst.formula.num_clauses - 20) <= 1
        assert inst.params["achieved_clauses"] == inst.formula.num_clauses
        assert inst.params["clauses"] == 20
        assert inst.label == pysat_label(inst.formula)
        assert inst.certificate["status"] == inst.label
        if inst.label == "SAT":
            assert inst.formula.evaluate(inst.certificate["model"])
        else:
            assert_contradiction_cycle(inst.formula, inst.certificate["cycle"])
        record = inst.to_record()
        assert record["provenance"]["generator"] == family
        assert f"c seed: {seed}" in record["dimacs"].splitlines()
        # The recorded params reproduce the instance byte for byte (same id).
        again = generate(family, seed=inst.seed, **inst.params)
        assert again.to_json() == inst.to_json()


@pytest.mark.parametrize("family", BASE_FAMILIES)
def test_knobs_and_structure_recorded(family: str) -> None:
    inst = generate(family, clauses=30, seed=1)
    spec = FAMILIES.get(family)
    for p in spec.params:
        assert p.name in inst.params
    for knob in spec.knobs():
        if knob.name != "filler_share":
            assert inst.params[knob.name] == 0.5
    assert inst.structure


def test_structural_parameter_overrides_its_knob() -> None:
    inst = generate("implication-cycle", clauses=20, seed=0, k=1)
    assert inst.params["k"] == 1 and inst.params["split"] is None
    inst = generate("implication-cycle", clauses=20, seed=0, k=1, split=0.3)
    assert inst.params["k"] == 1 and inst.params["split"] == 0.3


@settings(max_examples=40)
@given(
    family=st.sampled_from(BASE_FAMILIES),
    clauses=st.integers(5, 120),
    knobs=st.lists(st.floats(0.01, 1), min_size=4, max_size=4),
    share=st.sampled_from([0.0, 0.25]),
)
def test_resolve_is_idempotent(family: str, clauses: int, knobs: list[float], share: float) -> None:
    spec = FAMILIES.get(family)
    names = [p.name for p in spec.knobs() if p.name != "filler_share"]
    params: dict[str, Any] = dict(zip(names, knobs, strict=False))
    params["filler_share"] = share
    first = spec.resolve(clauses, params)
    second = spec.resolve(clauses, {k: v for k, v in first.items() if k != "clauses"})
    assert first == second


@pytest.mark.parametrize("family", [*BASE_FAMILIES, "symmetry"])
def test_different_seeds_give_different_formulas(family: str) -> None:
    texts = {generate(family, clauses=30, seed=seed).to_record()["dimacs"] for seed in range(8)}
    formulas = {text.split("p cnf", 1)[1] for text in texts}
    assert len(formulas) == 8


def test_dataset_items_stand_alone() -> None:
    config = DatasetConfig("backbone", clauses=20, params={"beta": 0.2})
    small = Dataset(config, seed=11, size=3)
    large = Dataset(config, seed=11, size=10)
    assert [i.to_json() for i in small] == [large[i].to_json() for i in range(3)]
    assert (
        small.item_seed(2)
        == int.from_bytes(hashlib.sha256(b"11:2").digest()[:8], "big") >> 1
        == derive_seed(11, 2)
    )
    assert small[-1].to_json() == small[2].to_json()
    assert [i.seed for i in large[1:3]] == [large.item_seed(1), large.item_seed(2)]
    with pytest.raises(IndexError):
        small[3]
    with pytest.raises(ConfigError) as info:
        Dataset(DatasetConfig("backbone", params={"beta": 2}), size=1)
    assert info.value.parameter == "beta"
    with pytest.raises(ConfigError):
        Dataset(config, size=-1)


@settings(max_examples=25, deadline=None)
@given(size=st.integers(1, 4), seed=st.integers(-(2**40), 2**40), data=st.data())
def test_dataset_index_is_a_sequence_index(size: int, seed: int, data: st.DataObject) -> None:
    """Item ``i`` is item ``i - size`` and ``True`` is item 1; a float or text index is a
    TypeError, never an instance drawn under a seed of its own (as ``1.0`` would be)."""
    dataset = Dataset(DatasetConfig("mono-bridge", clauses=4), seed=seed, size=size)
    i = data.draw(st.integers(0, size - 1))
    assert dataset[i].id == dataset[i - size].id == dataset[i : i + 1][0].id
    assert dataset.item_seed(i) == derive_seed(seed, i) == dataset[i].seed
    if size > 1:
        assert dataset[True].id == dataset[1].id and dataset.item_seed(True) == dataset.item_seed(1)
    for bad in (float(i), str(i), None):
        with pytest.raises(TypeError):
            dataset[bad]  # type: ignore[call-overload]
        with pytest.raises(TypeError):
            dataset.item_seed(bad)  # type: ignore[arg-type]


def test_request_errors() -> None:
    with pytest.raises(UnknownNameError):
        generate("triangle", seed=0)
    with pytest.raises(ConfigError) as info:
        generate("backbone", seed="0")  # type: ignore[arg-type]
    assert info.value.parameter == "seed"
    with pytest.raises(ConfigError) as info:
        generate("backbone", seed=0, clauses=2.5)  # type: ignore[arg-type]
    assert info.value.parameter == "clauses"
    with pytest.raises(ConfigError) as info:
        generate("backbone", seed=0, clauses=20, achieved_clauses=19)
    assert info.value.parameter == "achieved_clauses"
    with pytest.raises(ConfigError) as info:
        generate("implication-cycle", seed=0, clauses=10, L=12)
    assert info.value.parameter == "L" and "2..9" in str(info.value.valid)


def test_table1_grid() -> None:
    cells = grid_cells("table1")
    assert [(c.family, c.clauses) for c in cells] == [
        (fam, size) for fam, sizes in TABLE1_CLAUSES.items() for size in sizes
    ]
    instances = [inst for cell in cells for inst in cell.dataset(0)]
    assert len(instances) == 220
    assert len({inst.id for inst in instances}) == 220
    for cell, start in zip(cells, range(0, 220, 10), strict=True):
        for inst in instances[start : start + 10]:
            assert inst.family == cell.family
            assert abs(inst.formula.num_clauses - int(cell.clauses or 0)) <= 1
            assert inst.label == pysat_label(inst.formula)
            assert inst.label == ("UNSAT" if cell.family == "implication-cycle" else "SAT")


def test_sweep_grids() -> None:
    cells = grid_cells("paper-7", family="mono-bridge")
    assert len(cells) == 3 * 7 and {c.clauses for c in cells} == {75}
    swept = [c.params["pos_ratio"] for c in cells if "pos_ratio=" in c.name]
    assert swept == [0.0, 0.2, 1 / 3, 0.5, 2 / 3, 0.8, 1.0]
    cells = grid_cells("paper-3", family="equivalence-core", clauses=30, extra={"shuffle": True})
    assert [c.params["free_ratio"] for c in cells] == [0.2, 0.5, 0.8]
    assert all(c.params["shuffle"] is True and c.clauses == 30 for c in cells)
    for name, kwargs, parameter in (
        ("paper-3", {}, "family"),
        ("paper-3", {"family": "symmetry"}, "family"),
        ("table1", {"family": "backbone"}, "family"),
        ("paper-4", {}, "grid"),
        ("table1", {"count": 0}, "count"),
    ):
        with pytest.raises(ConfigError) as info:
            grid_cells(name, **kwargs)
        assert info.value.parameter == parameter


_SCRIPT = """
import json, sys
from twosat_formal.make.generators import generate
for family in ("implication-cycle", "equivalence-core", "backbone", "mono-bridge", "symmetry"):
    for seed in (0, 1):
        params = {"shuffle": True} if family != "symmetry" else {"layout": "interleaved"}
        sys.stdout.write(generate(family, clauses=24, seed=seed, filler_share=0.25
            if family != "symmetry" else None, **params).to_json() + "\\n")
"""


@pytest.mark.slow
def test_same_seed_same_bytes_across_processes() -> None:
    outputs = []
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outputs.append(python_stdout(_SCRIPT, env=env))
    assert outputs[0] == outputs[1]
    lines = outputs[0].splitlines()
    assert len(lines) == 10
    assert all(json.loads(line)["schema_version"] == 1 for line in lines)
