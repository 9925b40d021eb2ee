"""The gate: a record ``certify`` rejects is never evaluated, scored or sent.

``eval``, ``score`` and ``batch prepare`` with ``--dataset`` run ``certify``'s checks on
each prompt, its instance and the records that instance names; any failure exits 2
before a store or an output file exists, naming the record and the check. The mixed
dataset of the certify tamper tests, with a prompt for every instance in it, is
tampered field by field and ``eval`` must refuse every tampered copy.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.certify.test_certify_tamper import DATASET, _measured, tamper, tamperable
from tests.support.cli import cli, error_lines
from tests.support.jsonl import write_jsonl
from twosat_formal.certify import certify_files
from twosat_formal.io.instance import Instance
from twosat_formal.make.generators import generate
from twosat_formal.solve import solve
from twosat_formal.verbalize.lines import instance_prompts

Record = dict[str, Any]


def _prompts_for(records: list[Record]) -> list[Record]:
    """A prompt of every instance record (edited ones with their base's example)."""
    out = []
    for record in records:
        if "dimacs" in record and "id" in record:
            inst = Instance.from_record(record)
            out += [p.to_record() for p in instance_prompts(inst, ["logic"], seed=4)]
    return out


#: Where the instances of the dataset are (the ``--dataset`` file holds them only).
INSTANCES = [i for i, r in enumerate(DATASET) if "dimacs" in r and "id" in r]
#: Where its prompts and stories are.
VERBALIZED = [i for i, r in enumerate(DATASET) if "instance_id" in r]
#: One more prompt of every instance.
MORE = _prompts_for(DATASET)
#: How many prompts ``eval`` asks.
ASKED = len(VERBALIZED) + len(MORE)


def run_eval(
    capsys: pytest.CaptureFixture[str], folder: Path, dataset: list[Any], *more: str
) -> tuple[int, str, str, Path]:
    """``eval`` of the prompts and stories of ``dataset`` (a copy of :data:`DATASET`,
    perhaps with more records at its end) and :data:`MORE`, against its instances."""
    extra = dataset[len(DATASET) :]
    data = write_jsonl(folder / "dataset.jsonl", [dataset[i] for i in INSTANCES] + extra)
    prompts = write_jsonl(folder / "prompts.jsonl", [dataset[i] for i in VERBALIZED] + MORE)
    store = folder / "runs.sqlite"
    code, out, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle",
        "--store", str(store), "--no-progress", *more,
    )  # fmt: skip
    return code, out, err, store


def assert_refused(
    code: int, out: str, err: str, store: Path, *words: str, by_certify: bool = True
) -> None:
    assert code == 2, (code, out, err)
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err + out
    if by_certify:
        assert lines[0].startswith("error: certify refuses ") and "nothing was" in lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert not store.exists()


def test_the_untampered_dataset_is_evaluated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, store = run_eval(capsys, tmp_path, DATASET)
    assert code == 0, err
    assert f"verified   {ASKED} prompts" in out
    assert "story fields are attested, not checked" in out
    assert store.exists()


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_eval_refuses_every_tampered_dataset_of_the_tamper_tests(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    index = data.draw(st.sampled_from(INSTANCES + VERBALIZED), label="record")
    record = DATASET[index]
    path = data.draw(st.sampled_from(tamperable(record)), label="field")
    how = data.draw(st.sampled_from(["change", "change", "delete", "rename", "add"]), label="how")
    dataset = copy.deepcopy(DATASET)
    dataset[index] = tamper(record, path, how)
    code, out, err, store = run_eval(capsys, tmp_path_factory.mktemp("t"), dataset)
    # a record that no longer reads as one (a field deleted) is refused as it is read
    assert_refused(code, out, err, store, by_certify=False)


@pytest.mark.slow
@pytest.mark.parametrize("index", INSTANCES + VERBALIZED)
def test_eval_refuses_a_change_to_any_top_level_field_of_any_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: int
) -> None:
    """Exhaustive over the top-level fields, as the certify tamper tests are."""
    from tests.certify.test_certify_tamper import _kind

    record = DATASET[index]
    for key in record:
        if _measured(_kind(record), (key,)):
            continue
        dataset = copy.deepcopy(DATASET)
        dataset[index] = tamper(record, (key,), "change")
        folder = tmp_path / f"{key}"
        folder.mkdir()
        code, out, err, store = run_eval(capsys, folder, dataset)
        assert code == 2, (key, out, err)
        assert_refused(code, out, err, store, by_certify=False)


def _forged_label(record: Record) -> Record:
    """The record with the other label and a certificate forged for it."""
    out = copy.deepcopy(record)
    inst = Instance.from_record(record)
    if inst.label == "SAT":
        variables = [f"x{v}" for v in range(1, inst.formula.num_vars + 1)]
        out["label"] = "UNSAT"
        out["certificate"] = {
            "status": "UNSAT",
            "cycle": [variables[0], "~" + variables[0]],
            "backend": "scc",
            "checked": True,
        }
    else:
        out["label"] = "SAT"
        model = dict.fromkeys(inst.formula.names, True)
        out["certificate"] = {"status": "SAT", "model": model, "backend": "scc", "checked": True}
    return out


@pytest.mark.parametrize("index", INSTANCES)
def test_a_flipped_label_with_a_forged_certificate_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], index: int
) -> None:
    dataset = copy.deepcopy(DATASET)
    dataset[index] = _forged_label(DATASET[index])
    assert not certify_files([write_jsonl(tmp_path / "c.jsonl", dataset)]).ok
    code, out, err, store = run_eval(capsys, tmp_path, dataset)
    assert_refused(code, out, err, store, DATASET[index]["id"])


def test_a_duplicated_instance_id_is_refused_whichever_copy_is_genuine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = next(i for i, r in enumerate(DATASET) if "dimacs" in r and "id" in r)
    for copies in ([_forged_label(DATASET[index])], [DATASET[index]]):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        code, out, err, store = run_eval(capsys, folder, [*DATASET, *copies])
        assert_refused(code, out, err, store, DATASET[index]["id"], "the id is used again")


def test_a_forged_formula_with_a_prompt_made_from_it_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another formula under a genuine instance id, its prompt made from it: the prompt
    re-derives, but the instance does not regenerate from its family, params and seed."""
    genuine = generate("backbone", clauses=8, seed=3)
    other = generate("backbone", clauses=8, seed=9).formula
    assert other != genuine.formula
    forged_inst = Instance.from_record(genuine.to_record())
    forged_inst = Instance(
        forged_inst.id, forged_inst.family, forged_inst.params, forged_inst.seed, other,
        solve(other).status, solve(other).to_json(other), forged_inst.structure,
        forged_inst.provenance,
    )  # fmt: skip
    forged = forged_inst.to_record()
    prompt = instance_prompts(forged_inst, ["logic"], seed=4)[0].to_record()
    data = write_jsonl(tmp_path / "dataset.jsonl", [forged])
    prompts = write_jsonl(tmp_path / "prompts.jsonl", [prompt])
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle",
        "--store", str(store), "--no-progress",
    )  # fmt: skip
    assert_refused(code, out, err, store, genuine.id, "[regenerate]")


def _swap_entities(prompt: Record) -> Record:
    out = copy.deepcopy(prompt)
    names = list(out["entities"])
    values = [out["entities"][n] for n in names]
    out["entities"] = dict(zip(names, values[1:] + values[:1], strict=True))
    return out


def test_score_refuses_a_swapped_entity_map_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Against its instance a swapped entity map turns right answers into invalid
    witnesses; ``certify``'s prompt check re-derives the map and refuses it. (Without
    the dataset the formula is the one the prompt reads back as, which the swapped map
    renames consistently: the answers are judged against the text itself.)"""
    inst = generate("backbone", clauses=8, seed=3)
    prompt = instance_prompts(inst, ["logic"], seed=1)[0].to_record()
    data = write_jsonl(tmp_path / "dataset.jsonl", [inst.to_record()])
    answers = write_jsonl(
        tmp_path / "answers.jsonl", [{"prompt_id": prompt["id"], "response": "The answer is: Yes"}]
    )
    out_file, store = tmp_path / "scored.jsonl", tmp_path / "runs.sqlite"
    args = ["--dataset", str(data)]
    good = write_jsonl(tmp_path / "good.jsonl", [prompt])
    code, out, err = cli(
        capsys, "score", str(answers), "--prompts", str(good), "--out", str(out_file), *args
    )
    assert code == 0, err
    assert "verified   1 prompts" in out
    out_file.unlink()
    bad = write_jsonl(tmp_path / "prompts.jsonl", [_swap_entities(prompt)])
    code, out, err = cli(
        capsys, "score", str(answers), "--prompts", str(bad), "--out", str(out_file),
        "--store", str(store), *args,
    )  # fmt: skip
    assert code == 2, (out, err)
    assert prompt["id"] in err and "Traceback" not in err
    assert not out_file.exists() and not store.exists()
    code, out, err = cli(
        capsys, "score", str(answers), "--prompts", str(bad), "--out", str(out_file),
        "--store", str(store), "--no-verify", *args,
    )  # fmt: skip
    assert code == 0, err
    assert "verified   nothing (--no-verify)" in out


def _restated(prompt: Record) -> Record:
    """The prompt with its first clause's sentence saying what another clause says."""
    out = copy.deepcopy(prompt)
    sentences = out["text"].split("\n")
    other = next(s for s in sentences[2:] if s and s != sentences[1])
    sentences[1] = other
    out["text"] = "\n".join(sentences)
    return out


def test_batch_prepare_with_the_dataset_refuses_a_restated_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inst = generate("backbone", clauses=8, seed=3)
    prompt = instance_prompts(inst, ["logic"], seed=1)[0].to_record()
    data = write_jsonl(tmp_path / "dataset.jsonl", [inst.to_record()])
    out_file = tmp_path / "requests.jsonl"
    good = write_jsonl(tmp_path / "good.jsonl", [prompt])
    base = ["batch", "prepare", "-m", "gpt", "--out", str(out_file), "--dataset", str(data)]
    code, out, err = cli(capsys, *base, str(good))
    assert code == 0, err
    assert "1 requests written" in err and "1 records" not in err
    out_file.unlink()
    bad = write_jsonl(tmp_path / "prompts.jsonl", [_restated(prompt)])
    code, out, err = cli(capsys, *base, str(bad))
    assert code == 2, (out, err)
    assert err.startswith("error: certify refuses ") and prompt["id"] in err
    assert "nothing was written" in err
    assert not out_file.exists()


def test_no_verify_is_recorded_with_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = next(i for i, r in enumerate(DATASET) if "dimacs" in r and "id" in r)
    dataset = copy.deepcopy(DATASET)
    dataset[index] = _forged_label(DATASET[index])
    code, out, err, store = run_eval(capsys, tmp_path, dataset, "--no-verify", "--json")
    assert code == 0, err
    assert json.loads(out)["verification"]["verify"] == "off (--no-verify)"
    from twosat_formal.evaluate.store import RunStore

    with RunStore(store, readonly=True) as runs:
        [info] = [run["info"] for run in runs.runs()]
    assert info["verification"]["verify"] == "off (--no-verify)"


@pytest.mark.slow
def test_run_experiment_evaluates_nothing_of_a_dataset_certify_rejects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fault injection: the dataset the experiment wrote is tampered before its gate."""
    from tests.study.test_experiments import small_spec
    from twosat_formal.errors import UnverifiedPromptError
    from twosat_formal.study.experiments import runner

    build = runner._build

    def tampered(*args: Any, **kwargs: Any) -> Any:
        built = build(*args, **kwargs)
        path = built.files[0]
        lines = path.read_text(encoding="utf-8").splitlines()
        lines[0] = json.dumps(_forged_label(json.loads(lines[0])))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return built

    monkeypatch.setattr(runner, "_build", tampered)
    cells = [
        {"family": "equivalence-core", "clauses": [8], "knobs": ["free_ratio"], "levels": [0.0]}
    ]
    spec = small_spec("sweep", cells, formulas=1)
    folder = tmp_path / "run"
    with pytest.raises(UnverifiedPromptError, match=r"certify refuses .*nothing was sent"):
        runner.run_experiment(spec, ["ref/oracle"], out_dir=folder)
    assert not (folder / "results.sqlite").exists()


def test_a_prompt_id_twice_in_the_prompt_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inst = generate("backbone", clauses=8, seed=3)
    prompt = instance_prompts(inst, ["logic"], seed=1)[0].to_record()
    data = write_jsonl(tmp_path / "dataset.jsonl", [inst.to_record()])
    prompts = write_jsonl(tmp_path / "prompts.jsonl", [_restated(prompt), prompt])
    store = tmp_path / "runs.sqlite"
    code, out, err = cli(
        capsys, "eval", str(prompts), "--dataset", str(data), "-m", "ref/oracle",
        "--store", str(store), "--no-progress",
    )  # fmt: skip
    assert_refused(code, out, err, store, prompt["id"])
