"""Minimal twins: every twin checked by solvers that share no code with the library.

Labels are decided here by brute force (small formulas) or by PySAT called directly
(generated families); "one clause apart" is decided by the test's own comparison. The
"no twin" claims are checked by trying every one-clause change.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.solvers import Solver

from tests.support.brute import brute_sat
from tests.support.cli import run
from twosat_formal.certify import certify_file
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics import NoTwinError, choose_change, twin_instance, twins
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.make.edits import root_instance
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import TEMPLATES, verbalize

# -- independent oracles ---------------------------------------------------------------------


def pysat_sat(formula: Formula) -> bool:
    with Solver(name="glucose4", bootstrap_with=[list(c) for c in formula.clauses]) as solver:
        return bool(solver.solve())


def clause_lists(formula: Formula) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in c) for c in formula.clauses]


def apart_by_one(a: list[tuple[int, ...]], b: list[tuple[int, ...]]) -> bool:
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    if len(longer) != len(shorter) + 1:
        return False
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def every_one_clause_change(clauses: list[tuple[int, ...]], n: int):
    lits = [v for v in range(1, n + 1)] + [-v for v in range(1, n + 1)]
    candidates = [(a,) for a in lits] + [(a, b) for a, b in itertools.combinations(lits, 2)]
    for k in range(len(clauses)):
        yield clauses[:k] + clauses[k + 1 :]
        for c in candidates:
            yield [*clauses[:k], c, *clauses[k + 1 :]]
    for c in candidates:
        yield [*clauses, c]


literal = st.integers(1, 4).flatmap(lambda v: st.sampled_from([v, -v]))
two_cnf = st.lists(st.lists(literal, min_size=1, max_size=2).map(tuple), min_size=1, max_size=7)


@given(two_cnf, st.integers(0, 3))
def test_every_twin_flips_the_label_one_clause_apart(clauses, seed) -> None:
    formula = Formula(clauses, num_vars=4)
    source_sat = brute_sat(clauses, 4)
    try:
        change = choose_change(formula, seed=seed)
    except NoTwinError:
        # no twin: then no one-clause change at all flips the label
        for changed in every_one_clause_change(clauses, 4):
            assert brute_sat(changed, 4) == source_sat
        return
    twin = change.apply(formula)
    assert brute_sat(clause_lists(twin), 4) != source_sat
    assert apart_by_one(clauses, clause_lists(twin))
    assert twin.names == formula.names
    assert change.reason == ("close-cycle" if source_sat else "break-cycle")
    if change.kind == "replace":
        assert twin.num_clauses == formula.num_clauses


@pytest.mark.parametrize(
    ("family", "clauses"),
    [("implication-cycle", 10), ("implication-cycle", 30), ("backbone", 20), ("symmetry", 20)],
)
def test_generated_families_have_checked_twins(family: str, clauses: int) -> None:
    for seed in range(3):
        source = generate(family, clauses=clauses, seed=seed)
        twin = twin_instance(source, seed=seed)
        assert pysat_sat(source.formula) == (source.label == "SAT")
        assert pysat_sat(twin.formula) == (twin.label == "SAT")
        assert twin.label != source.label
        assert apart_by_one(clause_lists(source.formula), clause_lists(twin.formula))
        assert twin.twin_of == source.id and twin.change is not None
        assert twin.change["kind"] == "replace"  # |C| kept


def test_sat_formula_without_forced_literals_has_no_twin() -> None:
    with pytest.raises(NoTwinError, match="forces no literal"):
        choose_change(Formula([[1, 2], [-1, 3]]))


def test_two_disjoint_contradictions_have_no_twin() -> None:
    f = Formula([[1], [-1], [2], [-2]])
    with pytest.raises(NoTwinError, match="every one-clause change leaves a contradiction"):
        choose_change(f)


def test_the_seed_picks_where_to_break_and_the_choice_is_deterministic() -> None:
    f = Formula.from_named([["~a", "b"], ["~b", "c"], ["~c", "d"], ["~d", "~a"], ["a"]])
    picks = {choose_change(f, seed=s).position for s in range(8)}
    assert len(picks) > 1
    assert choose_change(f, seed=5) == choose_change(f, seed=5)


# -- verbalization: the two texts differ in one sentence -------------------------------------


@pytest.mark.parametrize("template", TEMPLATES.names())
def test_twin_prompts_differ_in_one_sentence(template: str) -> None:
    for family in ("implication-cycle", "backbone"):
        source = generate(family, clauses=12, seed=4)
        twin = twin_instance(source)
        a = verbalize(source.formula, template, seed=7).text.splitlines()
        b = verbalize(twin.formula, template, seed=7).text.splitlines()
        assert len(a) == len(b)
        assert sum(x != y for x, y in zip(a, b, strict=True)) == 1


# -- records, CLI and certify ----------------------------------------------------------------


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    instances = [generate("implication-cycle", clauses=10, seed=s) for s in range(2)]
    instances.append(generate("backbone", clauses=15, seed=1))
    instances.append(generate("equivalence-core", clauses=10, seed=1))
    write_instances(instances, path)
    return path


def test_pairs_command_writes_certified_pairs(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pairs.jsonl"
    code, _, err = run(["pairs", str(dataset), "--out", str(out), "--seed", "2"], capsys)
    assert code == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    twin_records = [r for r in records if "twin_of" in r]
    assert len(twin_records) == 3 and len(records) == 7
    assert "no twin for equivalence-core-" in err
    ids = [r["id"] for r in records]
    for twin in twin_records:
        assert ids.index(twin["twin_of"]) == ids.index(twin["id"]) - 1
        assert twin["change"]["seed"] == 2
        assert Instance.from_record(twin).to_record() == twin
    report = certify_file(out)
    assert report.ok, [str(f) for f in report.failures]
    # same seed, same bytes
    again = tmp_path / "again.jsonl"
    run(["pairs", str(dataset), "-o", str(again), "--seed", "2"], capsys)
    assert again.read_bytes() == out.read_bytes()


def tampered(lines: list[str], twin_index: int, edit) -> list[str]:
    record = json.loads(lines[twin_index])
    edit(record)
    return [*lines[:twin_index], json.dumps(record), *lines[twin_index + 1 :]]


def _move_change(record: dict) -> None:
    record["change"]["position"] = (record["change"]["position"] + 1) % record["num_clauses"]


def _other_source(record: dict) -> None:
    record["twin_of"] = "implication-cycle-0000000000000000"


def _flip_label(record: dict) -> None:
    record["label"] = "UNSAT" if record["label"] == "SAT" else "SAT"


def _change_another_clause(record: dict) -> None:
    formula = Instance.from_record(record).formula
    clauses = [list(c) for c in formula.clauses]
    position = record["change"]["position"]
    other = 0 if position != 0 else 1
    clauses[other] = [-lit for lit in clauses[other]]
    changed = formula.with_clauses(clauses)
    inst = Instance.from_record(record)
    record["dimacs"] = dataclasses.replace(inst, formula=changed).dimacs


@pytest.mark.parametrize(
    ("edit", "check"),
    [
        (_move_change, "twin"),
        (_other_source, "twin"),
        (_flip_label, "solve:pysat"),
        (_change_another_clause, "twin"),
    ],
)
def test_certify_names_tampered_twins(tmp_path: Path, edit, check: str) -> None:
    source = generate("implication-cycle", clauses=10, seed=3)
    run_ = twins([source])
    lines = [r.to_json() for r in run_.records]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(tampered(lines, 1, edit)) + "\n", encoding="utf-8")
    report = certify_file(path)
    assert not report.ok
    twin_id = run_.records[1].id
    assert twin_id in report.failing_ids
    assert source.id not in report.failing_ids
    assert check in {f.check for f in report.failures if f.id == twin_id}


def test_certify_needs_the_source_in_the_dataset(tmp_path: Path) -> None:
    source = root_instance(Formula([[1], [-1], [1, 2]]))
    twin = twin_instance(source)
    path = tmp_path / "alone.jsonl"
    write_instances([twin], path)
    failures = certify_file(path).failures
    assert any(f.check == "twin" and "not in the dataset" in f.message for f in failures)


def test_pairs_command_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n', encoding="utf-8")
    code, out, err = run(["pairs", str(bad)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    assert "bad.jsonl:1" in err


def test_twin_records_validate_against_the_record_model() -> None:
    from twosat_formal.core.records import InstanceRecord

    source = generate("backbone", clauses=15, seed=2)
    record = twin_instance(source).to_record()
    model = InstanceRecord.model_validate(record)
    assert model.twin_of == source.id and model.change is not None
    assert model.change.reason == "close-cycle"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"position": -1}, "field 'position' must be >= 0, not -1"),
        ({"before": [1, 0]}, "field 'before[1]': a literal is a non-zero integer"),
        ({"reason": "whim"}, "field 'reason' must be 'break-cycle' or 'close-cycle', not 'whim'"),
        ({"seed": True}, "field 'seed' must be an integer, not boolean"),
        ({"cycle": None}, "field 'cycle' must be a list, not null"),
    ],
)
def test_a_malformed_change_is_named_by_its_field(change: dict[str, object], message: str) -> None:
    from twosat_formal.errors import RecordError
    from twosat_formal.evaluate.diagnostics.twins import Change

    twin = twin_instance(root_instance(Formula.from_named([["a"], ["~a"]])))
    assert twin.change is not None
    assert Change.from_json(twin.change).to_json() == {
        k: v for k, v in twin.change.items() if k not in ("description", "cycle_text")
    }
    with pytest.raises(RecordError) as info:
        Change.from_json({**twin.change, **change})
    assert str(info.value) == message
    del_seed = {k: v for k, v in twin.change.items() if k != "seed"}
    with pytest.raises(RecordError, match="missing field 'seed'"):
        Change.from_json(del_seed)
