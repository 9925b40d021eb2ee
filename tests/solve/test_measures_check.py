"""The measures in every instance record, and ``certify``'s independent derivation of them.

:func:`derive_measures` (plain Python, Kosaraju, bit-set reachability) must equal the
networkx and brute-force oracle of ``test_measures`` and the engine's
:func:`structural_measures` on drawn formulas, and the measures every builder writes
(a family's draw, a formula file's root, a perturbation, an edit, a minimal twin). A
record carries the engine's measures; ``certify`` passes it, computing measures once
(by the derivation alone: the engine is never called), and fails, naming ``measures``,
when any one of them is changed, removed or added to. A record without ``measures``
makes no claim and certifies.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import twosat_formal.solve.measures as engine
from tests.solve.test_measures import oracle
from tests.support.cli import run
from tests.support.formula_strategies import clause_lists
from twosat_formal.certify import certify_files, certify_record
from twosat_formal.certify.rederive import rederive_derived, rederive_root, rederive_twin
from twosat_formal.core.fieldclass import compare_record
from twosat_formal.core.formula import Formula
from twosat_formal.errors import CertificateError
from twosat_formal.evaluate.diagnostics.twins import twin_instance
from twosat_formal.io.instance import Instance
from twosat_formal.make.edits import edit_instances
from twosat_formal.make.edits.classify import root_instance
from twosat_formal.make.generators import generate
from twosat_formal.make.perturb.instances import perturb_instance
from twosat_formal.solve.measures import MEASURES, structural_measures, unmeasured
from twosat_formal.solve.measures_check import check_measures, derive_measures

FAMILIES = ("implication-cycle", "equivalence-core", "backbone", "mono-bridge")


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(clause_lists(max_var=7, min_size=0, max_size=14))
def test_the_derivation_equals_the_oracles(clauses: list[list[int]]) -> None:
    formula = Formula(clauses, num_vars=7)
    derived = derive_measures(formula)
    assert list(derived) == list(MEASURES)
    assert derived == oracle(formula) == structural_measures(formula)


def graph_oracle(formula: Formula) -> dict[str, int | None]:
    """The measures by networkx alone (a literal is forced when its negation reaches
    it): the oracle for formulas too wide for ``oracle``'s truth table."""
    g = nx.DiGraph()
    g.add_nodes_from(lit for v in range(1, formula.num_vars + 1) for lit in (v, -v))
    for clause in formula.clauses:
        a, b = (clause[0], clause[0]) if len(clause) == 1 else clause
        g.add_edges_from([(-a, b), (-b, a)])
    comps = list(nx.strongly_connected_components(g))
    dag = nx.condensation(g, comps)
    sizes = [len(c) for c in comps]
    found: dict[str, int | None] = dict.fromkeys(MEASURES)
    found["longest_path"] = nx.dag_longest_path_length(dag) if dag.number_of_nodes() else 0
    found["scc_count"], found["largest_scc"] = len(comps), max(sizes, default=0)
    found["nontrivial_sccs"] = sum(1 for size in sizes if size > 1)
    member = {lit: i for i, comp in enumerate(comps) for lit in comp}
    conflicts = [v for v in range(1, formula.num_vars + 1) if member[v] == member[-v]]
    length = nx.shortest_path_length
    if conflicts:
        cycle = min(length(g, v, -v) + length(g, -v, v) for v in conflicts)
        found["shortest_cycle"] = found["proof_length"] = cycle
        return found
    forced = [lit for lit in g if nx.has_path(g, -lit, lit)]
    found["backbone"] = len(forced)
    depth = max((length(g, -lit, lit) for lit in forced), default=0)
    found["forced_depth"] = found["proof_length"] = depth
    return found


@settings(max_examples=60, deadline=None)
@given(clause_lists(max_var=24, min_size=8, max_size=60))
def test_the_derivation_equals_networkx_and_the_engine_on_wider_formulas(
    clauses: list[list[int]],
) -> None:
    formula = Formula(clauses, num_vars=24)
    assert derive_measures(formula) == graph_oracle(formula) == structural_measures(formula)


def ring(n: int, *, chords: int = 0) -> Formula:
    """``x1 | ~x2, ..., x(n-1) | ~xn`` closed by ``xn`` and ``~x1``: one cycle through
    every literal, ``2n`` steps long; ``chords`` clauses ``x(i+2) | ~xi`` shorten it."""
    clauses = [[i, -(i + 1)] for i in range(1, n)] + [[n], [-1]]
    clauses += [[i + 2, -i] for i in range(1, min(chords, n - 2) + 1)]
    return Formula(clauses, num_vars=n)


@pytest.mark.parametrize(("n", "chords"), [(1, 0), (2, 0), (9, 0), (60, 0), (60, 5), (300, 0)])
def test_rings_where_every_variable_conflicts(n: int, chords: int) -> None:
    formula = ring(n, chords=chords)
    derived = derive_measures(formula)
    assert derived == structural_measures(formula) == graph_oracle(formula)
    assert chords or derived["shortest_cycle"] == 2 * n


def instances() -> list[Instance]:
    made: list[Instance] = []
    for i, family in enumerate(FAMILIES):
        root = generate(family, clauses=40, seed=i)
        made += [root, perturb_instance(root, ["rename", ("filler", {"count": 5})], seed=i)]
    edited = edit_instances(made[:4], mode="cumulative", max_edits=2, seed=3, keep_base=False)
    made += list(edited.records)
    named = Formula.from_named([["a", "b"], ["~a", "b"], ["~b", "c"], ["c", "d"]])
    made.append(root_instance(named, source="f.dsl"))
    made += [twin_instance(made[0], seed=1), twin_instance(made[-1], seed=2)]
    return made


INSTANCES = instances()


@pytest.mark.parametrize("inst", INSTANCES, ids=lambda inst: inst.id)
def test_records_carry_the_engines_measures_which_the_derivation_confirms(
    inst: Instance,
) -> None:
    record = inst.to_record()
    measures = structural_measures(inst.formula)
    assert inst.measures == record["measures"] == measures == derive_measures(inst.formula)
    assert list(record)[list(record).index("structure") + 1] == "measures"
    expected = measures["shortest_cycle"] if inst.label == "UNSAT" else measures["forced_depth"]
    assert measures["proof_length"] == expected
    check_measures(inst.formula, record["measures"])
    assert Instance.from_record(json.loads(inst.to_json())).to_record() == record


def test_both_labels_forced_literals_and_every_builder_occur() -> None:
    labels = {inst.label for inst in INSTANCES}
    assert labels == {"SAT", "UNSAT"}
    assert any((inst.measures or {}).get("backbone") for inst in INSTANCES)
    kinds = {(i.family == "file", i.twin_of is not None, bool(i.transforms)) for i in INSTANCES}
    assert {(False, False, False), (True, False, False), (False, True, True)} <= kinds
    assert any(t.get("kind") == "edit" for i in INSTANCES for t in i.transforms)


def test_inside_unmeasured_the_builders_make_no_claim() -> None:
    with unmeasured():
        root = generate("backbone", clauses=12, seed=5)
        made = [root, perturb_instance(root, ["rename"], seed=1), twin_instance(root, seed=1)]
        made.append(root_instance(root.formula))
    assert all(inst.measures is None for inst in made)
    assert all("measures" not in inst.to_record() for inst in made)
    assert generate("backbone", clauses=12, seed=5).measures is not None


def _base_of(record: dict[str, Any]) -> dict[str, Any] | None:
    return next((i.to_record() for i in INSTANCES if i.id == record.get("base_id")), None)


def _source_of(record: dict[str, Any]) -> dict[str, Any]:
    return next(i.to_record() for i in INSTANCES if i.id == record.get("twin_of"))


def test_certify_computes_the_measures_once_by_the_derivation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Formula] = []
    real = engine.structural_measures

    def counted(formula: Formula) -> dict[str, int | None]:
        calls.append(formula)
        return real(formula)

    monkeypatch.setattr(engine, "structural_measures", counted)
    path = tmp_path / "data.jsonl"
    path.write_text("".join(inst.to_json() + "\n" for inst in INSTANCES))
    report = certify_files([str(path)])
    assert report.ok and report.kinds == {"instance": len(INSTANCES)}
    assert calls == []  # the engine's measures are never computed
    for inst in INSTANCES:
        record = inst.to_record()
        # the re-derived record holds the claimed measures, whatever they are
        claimed = {**record, "measures": {**record["measures"], "scc_count": 99}}
        if inst.twin_of is not None:
            assert rederive_twin(claimed, _source_of(record)) == claimed
            continue
        base = _base_of(record)
        again = rederive_derived(claimed, base) if inst.base_id else rederive_root(claimed)
        assert again["measures"] == claimed["measures"]
        assert compare_record("instance", claimed, again).differences == []  # timings apart
        failures = certify_record(claimed, base=base)
        assert [f.check for f in failures] == ["measures"]
        assert "scc_count is 99, derived" in failures[0].message
    assert calls == []


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
    if record.get("twin_of") is not None:
        assert rederive_twin(record, _source_of(record)) == record
        return  # the twin's own check needs its source: the command test below
    checks = {failure.check for failure in certify_record(record, base=_base_of(record))}
    assert checks in ({"measures"}, {"record", "measures"}, {"record"}), checks


@pytest.mark.parametrize("label", ["SAT", "UNSAT"])
@pytest.mark.parametrize("key", MEASURES)
def test_each_measure_changed_fails_certify_naming_it(key: str, label: str) -> None:
    inst = next(i for i in INSTANCES if i.label == label and not i.base_id)
    record = copy.deepcopy(inst.to_record())
    value = record["measures"][key]
    record["measures"][key] = 7 if value is None else value + 5
    failures = certify_record(record)
    assert [f.check for f in failures] == ["measures"]
    assert failures[0].message == (
        f"measures: {key} is {record['measures'][key]!r}, derived {value!r}"
    )


def test_an_added_measure_and_a_null_object_fail_an_absent_one_makes_no_claim() -> None:
    inst = INSTANCES[0]
    with pytest.raises(CertificateError, match="unknown depth"):
        check_measures(inst.formula, {**inst.to_record()["measures"], "depth": 1})
    record = inst.to_record()
    record["measures"] = None
    failures = certify_record(record)
    assert [f.check for f in failures] == ["measures", "regenerate"]
    assert "measures must be an object, not null" in failures[0].message
    del record["measures"]  # a record written before records carried measures
    assert certify_record(record) == []
    assert rederive_root(record) == record
    assert "measures" not in Instance.from_record(record).to_record()


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


def test_every_record_the_commands_write_carries_measures_and_certifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, dsl = tmp_path / "data.jsonl", tmp_path / "f.dsl"
    dsl.write_text("a\na -> b\nb | c\n~c | ~a\n")
    commands = [
        ["generate", "implication-cycle", "--clauses", "12", "--count", "2", "--seed", "1"],
        ["perturb", str(data), "--op", "reorder", "--op", "filler", "--seed", "2"],
        ["edit", str(data), "--mode", "cumulative", "--max-edits", "2"],
        ["edit", str(dsl), "--mode", "individual"],
        ["pairs", str(data)],
    ]
    outputs = []
    for k, argv in enumerate(commands):
        out = data if k == 0 else tmp_path / f"out{k}.jsonl"
        code, _, err = run([*argv, "--out", str(out)], capsys)
        assert code == 0, err
        outputs.append(out)
    records = [json.loads(line) for out in outputs for line in out.read_text().splitlines()]
    assert len({r["id"] for r in records}) > 10
    for record in records:
        formula = Instance.from_record(record).formula
        assert record["measures"] == derive_measures(formula), record["id"]
    assert {r["family"] for r in records} >= {"implication-cycle", "file"}
    assert any(r.get("twin_of") for r in records)
    for out in outputs:  # each a dataset of its own (the commands write their bases too)
        code, stdout, err = run(["certify", str(out)], capsys)
        assert code == 0, stdout + err


@pytest.mark.parametrize(
    ("stored", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (3, "number"),
        (0.5, "number"),
        ("x", "string"),
        ([], "array"),
    ],
)
def test_measures_that_are_no_object_are_named_by_their_json_type(
    stored: object, name: str
) -> None:
    with pytest.raises(CertificateError) as caught:
        check_measures(INSTANCES[0].formula, stored)
    assert str(caught.value) == f"measures must be an object, not {name}"
