"""``import twosat_formal as tf``: the pipeline in a few names, as a notebook uses it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import twosat_formal as tf
from twosat_formal.errors import ArgumentTypeError, ConfigError
from twosat_formal.make.generators import FAMILIES
from twosat_formal.verbalize import TEMPLATES

ROOT = Path(__file__).resolve().parents[1]


def readme_block() -> str:
    """The Python block of the README's "From Python" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## From Python\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return block


@pytest.mark.slow
def test_the_readme_example_runs_as_written(tmp_path: Path) -> None:
    # a fresh interpreter, as a notebook starts: nothing imported before `import tf`
    done = subprocess.run(
        [sys.executable, "-c", readme_block()],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "SAT"
    # the answer says No: right exactly when the perturbed instance is UNSAT (PySAT says)
    from pysat.solvers import Minisat22

    moved = tf.perturb(tf.generate("implication-cycle", clauses=20, seed=1), "reorder",
                       "rename", seed=2)  # fmt: skip
    with Minisat22(bootstrap_with=[list(c) for c in moved.formula.clauses]) as solver:
        unsat = not solver.solve()
    assert lines[1] == ("correct UNSAT" if unsat else "wrong-decision UNSAT")
    done_count, correct = map(int, lines[2].split())
    assert done_count == 2 and 1 <= correct <= 2  # the oracle is always right
    assert lines[3].endswith("report.md") and Path(lines[3]).is_file()


def test_every_name_is_offered_and_callable() -> None:
    for name in ("parse", "solve", "generate", "perturb", "verbalize", "certify"):
        assert callable(getattr(tf, name)), name
    for name in ("evaluate", "evaluate_async", "score", "report"):
        assert callable(getattr(tf, name)), name
    assert set(tf.__all__) >= {"parse", "solve", "score", "evaluate_async"}


def test_subpackages_stay_modules_and_are_callable() -> None:
    import types

    import twosat_formal.solve as solve_module
    from twosat_formal.solve import solve as solve_function

    assert isinstance(solve_module, types.ModuleType) and tf.solve is solve_module
    formula = tf.parse("p | q\n~p")
    assert tf.solve(formula) == solve_function(formula)
    assert tf.solve("p\n~p").status == "UNSAT"  # text is parsed first


def test_score_takes_a_plain_string_and_judges_like_scoring() -> None:
    from twosat_formal.evaluate.models.base import Response
    from twosat_formal.evaluate.scoring import score

    inst = tf.generate("backbone", clauses=8, seed=3)
    prompt = tf.verbalize(inst, "team", seed=1)
    record = prompt.record()
    for text in ("The answer is: Yes", "The answer is: No", "no answer line"):
        expected = score(Response(text), record, inst.formula, inst.label)
        assert tf.score(text, prompt, inst) == expected
        assert tf.score(text, record, inst) == expected
        assert score(text, record, inst.formula, inst.label) == expected
    assert tf.score("x", prompt, inst, finish_reason="length").failure == "truncated"


def test_a_solver_model_in_the_answer_scores_correct() -> None:
    # the witness is built here from the solver's model and the prompt's words alone
    for seed in range(6):
        inst = tf.generate("backbone", clauses=8, seed=seed)
        prompt = tf.verbalize(inst, "door", seed=seed)
        result = tf.solve(inst)
        if result.status != "SAT":
            assert tf.score("The answer is: No", prompt, inst).correct
            continue
        assert result.model is not None
        truth = dict(zip(inst.formula.names, (bool(v) for v in result.model), strict=True))
        words = {True: prompt.true_value, False: prompt.false_value}
        witness = {e: words[truth[v]] for e, v in prompt.entity_map().items()}
        answer = json.dumps(witness) + "\nThe answer is: Yes"
        assert tf.score(answer, prompt, inst).correct


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    family=st.sampled_from([f for f in FAMILIES.names() if f != "symmetry"]),
    seed=st.integers(0, 10_000),
    template=st.sampled_from(TEMPLATES.names()),
    derived=st.booleans(),
)
def test_a_record_made_with_the_api_certifies(
    family: str, seed: int, template: str, derived: bool
) -> None:
    inst = tf.generate(family, clauses=8, seed=seed)
    target = tf.perturb(inst, "reorder", "rename", seed=seed) if derived else inst
    record = tf.verbalize(target, template, seed=seed).record()
    assert record.instance_id == target.id and record.roundtrip is not None
    report = tf.certify(*([inst, target] if derived else [inst]), record)
    assert report.ok, [str(f) for f in report.failures]
    assert report.records == (3 if derived else 2)


def test_certify_finds_a_tampered_record_and_reads_files(tmp_path: Path) -> None:
    inst = tf.generate("implication-cycle", clauses=8, seed=2)
    record = tf.verbalize(inst, "logic").record().to_record()
    record["text"] = record["text"].replace("Either", "Neither", 1)
    report = tf.certify(inst, record)
    assert not report.ok and {f.check for f in report.failures} >= {"roundtrip"}
    path = tmp_path / "data.jsonl"
    path.write_text(inst.to_json() + "\n", encoding="utf-8")
    assert tf.certify(path).ok and tf.certify(str(path)).records == 1


def test_a_bare_formula_prompt_needs_an_instance_id() -> None:
    prompt = tf.verbalize(tf.parse("a | b"), "logic")
    with pytest.raises(ConfigError, match="names its instance"):
        prompt.record()
    assert prompt.record("given").instance_id == "given"
    assert prompt.record("given", None).roundtrip is None


def test_evaluate_in_a_running_loop_names_evaluate_async(tmp_path: Path) -> None:
    inst = tf.generate("backbone", clauses=6, seed=1)
    prompt = tf.verbalize(inst, "logic")

    async def cell() -> tuple[int, int]:
        with pytest.raises(ConfigError, match="evaluate_async"):
            tf.evaluate("ref/oracle", [prompt], tmp_path / "a.sqlite", instances=[inst])
        summary = await tf.evaluate_async(
            "ref/oracle", [prompt], tmp_path / "b.sqlite", instances=[inst]
        )
        return summary.done, summary.correct

    assert asyncio.run(cell()) == (1, 1)
    # and the library's own evaluate says the same
    from twosat_formal.evaluate.run import EvalItem, evaluate
    from twosat_formal.evaluate.store import RunStore

    async def library_cell() -> None:
        item = EvalItem(prompt.record(), inst.formula, inst.label)
        with (
            RunStore(tmp_path / "c.sqlite") as store,
            pytest.raises(ConfigError, match="evaluate_async"),
        ):
            evaluate(["ref/oracle"], [item], store)

    asyncio.run(library_cell())


def test_model_access_as_one_object_or_as_keywords(tmp_path: Path) -> None:
    from twosat_formal.evaluate.run import ModelAccess

    inst = tf.generate("backbone", clauses=6, seed=1)
    prompt = tf.verbalize(inst, "logic")
    given = {"instances": [inst]}
    messages = []
    for how in ({"executor": "nowhere"}, {"access": ModelAccess(executor="nowhere")}):
        with pytest.raises(ConfigError) as caught:
            tf.evaluate("ref/oracle", [prompt], tmp_path / "a.sqlite", **given, **how)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "not 'nowhere'" in messages[0]
    # a keyword argument wins over the object's field; the others keep the object's value
    summary = tf.evaluate(
        "ref/oracle",
        [prompt],
        tmp_path / "b.sqlite",
        **given,
        access=ModelAccess(executor="nowhere", mode="completion"),
        executor="local",
    )
    assert (summary.done, summary.correct) == (1, 1)
    access, rest = ModelAccess.take({"mode": "completion", "samples": 2}, ModelAccess(jobs=3))
    assert (access.mode, access.jobs, rest) == ("completion", 3, {"samples": 2})
    with pytest.raises(TypeError, match="no_such_option"):
        tf.evaluate("ref/oracle", [prompt], tmp_path / "c.sqlite", **given, no_such_option=1)


def test_evaluate_reads_files_and_stores_like_eval(tmp_path: Path) -> None:
    from twosat_formal.io.instance import write_instances
    from twosat_formal.verbalize.prompts import write_prompts

    insts = [tf.generate("mono-bridge", clauses=8, seed=s) for s in range(3)]
    dataset, prompts = tmp_path / "d.jsonl", tmp_path / "p.jsonl"
    write_instances(insts, dataset)
    write_prompts([tf.verbalize(i, "room", seed=1).record() for i in insts], prompts)
    summary = tf.evaluate("ref/oracle", prompts, tmp_path / "runs.sqlite", instances=dataset)
    assert summary.done == 3 and summary.correct == 3
    again = tf.evaluate("ref/oracle", prompts, tmp_path / "runs.sqlite", instances=dataset)
    assert again.done == 0 and again.skipped == 3
    with pytest.raises(ConfigError, match="not among the instances"):
        tf.evaluate("ref/oracle", [tf.verbalize(insts[0], "room")], tmp_path / "x.sqlite")


def test_a_bare_formula_goes_through_the_pipeline() -> None:
    from twosat_formal.make.edits import root_instance

    formula = tf.parse("a | b\n~a | c\n~c | ~b")
    derived = tf.perturb(formula, "reorder", ("rename", {}), seed=1)
    assert derived.base_id == root_instance(formula).id and derived.label == "SAT"
    prompt = tf.verbalize(formula, "logic")
    # the label comes from the solver when no instance is given
    assert tf.score("The answer is: Yes", prompt).decision_correct
    assert not tf.score("The answer is: No", prompt).decision_correct
    assert tf.score("The answer is: No", prompt, label="UNSAT").decision_correct
    report = tf.certify(root_instance(formula), derived, tf.verbalize(derived, "door").record())
    assert report.ok, [str(f) for f in report.failures]
    with pytest.raises(ConfigError, match="at least one operator"):
        tf.perturb(formula)


def test_a_misspelled_option_or_a_wrong_access_is_refused_before_any_model_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twosat_formal.evaluate.run import remote

    loaded: list[str] = []
    monkeypatch.setattr(remote.ModelSource, "load", lambda self: loaded.append(self.spec))
    inst = tf.generate("implication-cycle", clauses=10, seed=1)
    prompt = tf.verbalize(inst, "room", seed=1)
    with pytest.raises(TypeError, match="'timout_s'"):
        tf.evaluate(["ref/oracle"], [prompt], tmp_path / "r.sqlite", instances=[inst], timout_s=5)
    with pytest.raises(TypeError, match="access must be a ModelAccess, not str"):
        tf.evaluate(["ref/oracle"], [prompt], tmp_path / "r.sqlite", instances=[inst], access="x")
    assert loaded == []


@pytest.mark.parametrize(
    ("call", "parameter"),
    [
        (lambda: tf.parse(b"a | b"), "text"),
        (lambda: tf.solve(123), "formula"),
        (lambda: tf.solve(None), "formula"),
        (lambda: tf.generate(5), "family"),
        (lambda: tf.perturb("a | b", "reorder"), "instance"),
        (lambda: tf.verbalize({"formula": "a | b"}), "instance"),
        (lambda: tf.verbalize(tf.parse("a | b"), 3), "template"),
        (lambda: tf.certify(3), "records"),
        (lambda: tf.score(123, None), "answer"),
        (lambda: tf.score(None, None), "answer"),
        (lambda: tf.score(b"The answer is: Yes", None), "answer"),
    ],
)
def test_an_argument_of_the_wrong_type_is_a_type_error_naming_it(
    call: Callable[[], object], parameter: str
) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        call()
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ConfigError)
    assert caught.value.parameter == parameter and caught.value.valid
