"""Derived instances: ids, labels, chains from the root, structure followed through."""

from __future__ import annotations

import json

import pytest

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb import Chain, replay
from twosat_formal.make.perturb.instances import (
    derived_id,
    instance_seed,
    perturb_document,
    perturb_instance,
)
from twosat_formal.solve import check_certificate_json


def test_derived_instance_fields() -> None:
    root = generate("implication-cycle", clauses=12, seed=3)
    child = perturb_instance(root, [("reorder", {"order": "reversed"}), "filler"], seed=1)
    assert child.base_id == root.id
    assert child.id == derived_id(root.id, Chain.from_json(list(child.transforms)).steps)
    assert child.id.startswith(root.id + "~")
    assert (child.family, child.params, child.seed) == (root.family, root.params, root.seed)
    assert child.label == root.label == "UNSAT"
    check_certificate_json(child.formula, child.certificate)
    assert child.structure["base"] == root.structure
    trigger = root.structure["trigger_clause"]
    assert (
        child.formula.clauses[child.structure["trigger_clause"]] == (root.formula.clauses[trigger])
    )
    assert child.provenance["perturb"]["operators"] == ["reorder", "filler"]
    assert replay(root.formula, Chain.from_json(list(child.transforms)).steps) == child.formula


def test_perturbing_a_derived_instance_extends_the_chain_from_the_root() -> None:
    root = generate("mono-bridge", clauses=12, seed=5)
    first = perturb_instance(root, ["reorder"], seed=2)
    second = perturb_instance(first, [("bridge-move", {"position": 0})], seed=3)
    assert second.base_id == root.id
    assert [t["operator"] for t in second.transforms] == ["reorder", "bridge-move"]
    bridge = root.formula.clauses[root.structure["bridge"]["index"]]
    assert second.formula.clauses[0] == bridge
    assert second.structure["bridge"] == {"index": 0, "position": 1}
    assert second.structure["base"] == root.structure
    assert replay(root.formula, Chain.from_json(list(second.transforms)).steps) == second.formula


def test_same_seed_same_record_bytes() -> None:
    root = generate("backbone", clauses=12, seed=1)
    a = perturb_instance(root, ["rename", "duplicate"], seed=9)
    b = perturb_instance(root, ["rename", "duplicate"], seed=9)
    strip = [json.loads(x.to_json()) for x in (a, b)]
    for record in strip:
        for t in record["transforms"]:
            t["proof"]["seconds"] = 0
    assert strip[0] == strip[1]
    c = perturb_instance(root, ["rename", "duplicate"], seed=10)
    assert c.id != a.id


def test_instance_seed_depends_on_seed_and_id() -> None:
    assert instance_seed(1, "a") == instance_seed(1, "a")
    assert len({instance_seed(s, i) for s in range(3) for i in "abc"}) == 9


def test_document_needs_an_operator() -> None:
    with pytest.raises(ConfigError, match="at least one operator"):
        perturb_document(Formula([[1]]), [])
