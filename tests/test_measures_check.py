"""The measures in every instance record, and ``certify``'s independent derivation of them.

:func:`derive_measures` (plain Python, Kosaraju, bit-set reachability) must equal the
networkx and brute-force oracle of ``test_measures`` on drawn formulas, and the engine's
:func:`structural_measures` on generated, perturbed and edited instances. A record
carries the engine's measures; ``certify`` passes it and fails, naming ``measures``,
when any one of them is changed, removed or added to.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run
from formula_strategies import clause_lists
from hypothesis import given, settings
from hypothesis import strategies as st
from test_measures import oracle

from twosat_formal.certify import certify_files, certify_record
from twosat_formal.edits import edit_instances
from twosat_formal.errors import CertificateError
from twosat_formal.formula import Formula
from twosat_formal.generators import generate
from twosat_formal.instance import Instance
from twosat_formal.measures import MEASURES, structural_measures
from twosat_formal.measures_check import check_measures, derive_measures
from twosat_formal.perturb.instances import perturb_instance

FAMILIES = ("implication-cycle", "equivalence-core", "backbone", "mono-bridge")


@settings(max_examples=200, deadline=None)
@given(clause_lists(max_var=7, min_size=0, max_size=14))
def test_the_derivation_equals_the_oracles(clauses: list[list[int]]) -> None:
    formula = Formula(clauses, num_vars=7)
    derived = derive_measures(formula)
    assert list(derived) == list(MEASURES)
    assert derived == oracle(formula)


def instances() -> list[Instance]:
    made: list[Instance] = []
    for i, family in enumerate(FAMILIES):
        root = generate(family, clauses=40, seed=i)
        made += [root, perturb_instance(root, ["rename", ("filler", {"count": 5})], seed=i)]
    edited = edit_instances(made[:4], mode="cumulative", max_edits=2, seed=3, keep_base=False)
    return made + list(edited.records)


INSTANCES = instances()


@pytest.mark.parametrize("inst", INSTANCES, ids=lambda inst: inst.id)
def test_records_carry_the_engines_measures_which_the_derivation_confirms(
    inst: Instance,
) -> None:
    record = inst.to_record()
    measures = structural_measures(inst.formula)
    assert record["measures"] == measures == derive_measures(inst.formula)
    assert list(record)[list(record).index("structure") + 1] == "measures"
    expected = measures["shortest_cycle"] if inst.label == "UNSAT" else measures["forced_depth"]
    assert measures["proof_length"] == expected
    check_measures(inst.formula, record["measures"])
    assert Instance.from_record(json.loads(inst.to_json())).to_record() == record


def test_both_labels_and_forced_literals_occur() -> None:
    labels = {inst.label for inst in INSTANCES}
    assert labels == {"SAT", "UNSAT"}
    assert any((inst.measures or {}).get("backbone") for inst in INSTANCES)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(range(len(INSTANCES))),
    st.sampled_from(MEASURES),
    st.sampled_from(["plus", "minus", "null", "drop", "bool"]),
)
def test_any_tampered_measure_fails_certify(index: int, key: str, how: str) -> None:
    record = copy.deepcopy(INSTANCES[index].to_record())
    stored = record["measures"]
    value = stored[key]
    if how == "drop":
        del stored[key]
    elif how == "null":
        if value is None:
            stored[key] = 1
        else:
            stored[key] = None
    elif how == "bool":
        if value not in (0, 1):
            return  # True == 1 and False == 0 only
        stored[key] = bool(value)
    elif value is None:
        stored[key] = 3
    else:
        stored[key] = value + 1 if how == "plus" or value == 0 else value - 1
    with pytest.raises(CertificateError, match=f"measures: .*{key}"):
        check_measures(INSTANCES[index].formula, stored)
    base = None
    if record.get("base_id"):
        base = next(i.to_record() for i in INSTANCES if i.id == record["base_id"])
    checks = {failure.check for failure in certify_record(record, base=base)}
    assert checks & {"measures", "record"}, checks


def test_an_added_measure_and_a_missing_object_fail() -> None:
    inst = INSTANCES[0]
    with pytest.raises(CertificateError, match="unknown depth"):
        check_measures(inst.formula, {**inst.to_record()["measures"], "depth": 1})
    record = inst.to_record()
    del record["measures"]
    failures = certify_record(record)
    assert [f.check for f in failures] == ["measures", "regenerate"]
    assert "measures must be an object, not NoneType" in failures[0].message


def test_certify_command_names_a_tampered_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records: list[dict[str, Any]] = [inst.to_record() for inst in INSTANCES[:4]]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert certify_files([str(path)]).ok
    records[1]["measures"]["scc_count"] += 2
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, stdout, err = run(["certify", str(path)], capsys)
    assert code != 0
    assert "[measures] measures: scc_count is" in stdout + err
