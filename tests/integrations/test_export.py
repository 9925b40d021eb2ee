"""``export --to hf|dimacs|inspect|lm-eval``: each export loaded or run by its own tool, offline."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.integrations import cli, make_dataset
from twosat_formal.errors import ConfigError, MissingExtraError
from twosat_formal.integrations.exports import EXPORT_FORMATS, ExportOptions, export_dataset
from twosat_formal.integrations.rows import judge_row, row_formula
from twosat_formal.io.instance import read_instances
from twosat_formal.solve import solve


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Any]]:
    folder = tmp_path_factory.mktemp("inputs")
    dataset, prompts, records = make_dataset(folder, per_family=2)
    return dataset, prompts, records


def export_inputs(
    capsys: pytest.CaptureFixture[str],
    inputs: tuple[Path, Path, list[Any]],
    target: str,
    out: Path,
    *options: str,
) -> tuple[int, str]:
    """``export`` the dataset and its prompts ``--to target -o out``: exit code, stderr."""
    dataset, prompts, _ = inputs
    code, _, err = cli(
        capsys, "export", str(dataset), str(prompts), "--to", target, "-o", str(out), *options
    )
    return code, err


def test_the_formats_are_registered() -> None:
    assert EXPORT_FORMATS.names() == ["hf", "dimacs", "inspect", "lm-eval"]


def test_dimacs_export_is_read_by_pysat_and_labels_agree(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path, list[Any]]
) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Minisat22

    dataset, _, _ = inputs
    out = tmp_path / "cnf"
    code, stdout, err = cli(capsys, "export", str(dataset), "--to", "dimacs", "--out", str(out))
    assert code == 0, err
    instances = list(read_instances(dataset))
    with open(out / "index.csv", encoding="utf-8") as handle:
        index = list(csv.DictReader(handle))
    assert [row["instance_id"] for row in index] == [inst.id for inst in instances]
    for row, inst in zip(index, instances, strict=True):
        path = out / row["file"]
        text = path.read_text(encoding="utf-8")
        assert f"c label: {inst.label}" in text and f'c id: "{inst.id}"' in text
        cnf = CNF(from_file=str(path))
        assert cnf.nv == inst.formula.num_vars
        assert [list(c) for c in cnf.clauses] == [list(c) for c in inst.formula.clauses]
        with Minisat22(bootstrap_with=cnf.clauses) as solver:
            assert ("SAT" if solver.solve() else "UNSAT") == row["label"] == inst.label
        assert int(row["num_clauses"]) == inst.formula.num_clauses
    assert {row["label"] for row in index} == {"SAT", "UNSAT"}
    assert str(out / "index.csv") in stdout


def test_uncertified_input_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path, list[Any]]
) -> None:
    dataset, _, _ = inputs
    lines = dataset.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    record["label"] = "UNSAT" if record["label"] == "SAT" else "SAT"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = cli(capsys, "export", str(bad), "--to", "dimacs", "--out", str(out))
    assert code == 2 and "1 of" in err and "records failed certification" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    code, _, err = cli(capsys, "export", str(bad), "--to", "dimacs", "-o", str(out), "--no-certify")
    assert code == 0, err
    code, _, err = cli(capsys, "export", str(dataset), "--to", "dimacs", "-o", str(out))
    assert code == 2 and "exists and is not an empty folder" in err
    code, _, err = cli(capsys, "export", str(dataset), "--to", "pdf", "-o", str(tmp_path / "x"))
    assert code == 2 and "unknown export format 'pdf'" in err


@pytest.mark.parametrize("certify", [True, False])
def test_a_file_given_twice_is_refused_certified_or_not(
    inputs: tuple[Path, Path, list[Any]], tmp_path: Path, certify: bool
) -> None:
    """Unchecked, each prompt of a file given twice was exported twice."""
    dataset, prompts, _ = inputs
    again = prompts.parent / "." / prompts.name
    with pytest.raises(ConfigError, match="is given twice") as info:
        export_dataset([dataset, prompts, again], "hf", tmp_path / "out", certify=certify)
    assert info.value.parameter == "paths"
    assert not (tmp_path / "out").exists()


def test_prompts_need_their_instances(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path, list[Any]]
) -> None:
    _, prompts, _ = inputs
    argv = ["export", str(prompts), "--to", "hf", "--out", str(tmp_path / "hf"), "--no-certify"]
    code, _, err = cli(capsys, *argv)
    assert code == 2 and "which is in none of the inputs" in err


@pytest.mark.slow
def test_inspect_export_runs_offline_with_a_reference_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path, list[Any]]
) -> None:
    pytest.importorskip("inspect_ai")
    from tests.support.integrations import installed, run_installed

    out = tmp_path / "inspect"
    options = ("--name", "twosat-small", "--max-tokens", "64")
    code, err = export_inputs(capsys, inputs, "inspect", out, *options)
    assert code == 0, err
    assert (out / "twosat_small.py").is_file()
    # the real `inspect eval` command; twosat/oracle needs no network and no tokenizer
    inspect = [installed("inspect"), "eval", "inspect/twosat_small.py"]
    run_installed([*inspect, "--model", "twosat/oracle", "--limit", "4", "--log-dir", "logs",
                   "--display", "plain", "--no-log-images"], tmp_path)  # fmt: skip
    from inspect_ai.log import read_eval_log

    (path,) = list((tmp_path / "logs").glob("*.eval"))
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.task == "twosat-small"
    assert log.samples is not None and len(log.samples) == 4
    for sample in log.samples:
        assert sample.scores is not None
        (score,) = sample.scores.values()
        assert score.metadata is not None and score.metadata["failure"] == "correct"
        assert isinstance(score.value, dict)
        assert score.value["strict"] == 1.0 and score.value["decision"] == 1.0
    assert log.results is not None
    names = {score.name for score in log.results.scores}
    assert {"strict", "lenient", "decision", "witness"} <= names


def test_inspect_scorer_judges_like_eval(inputs: tuple[Path, Path, list[Any]]) -> None:
    pytest.importorskip("inspect_ai")
    import asyncio

    from inspect_ai.model import ModelName, ModelOutput
    from inspect_ai.scorer import Target
    from inspect_ai.solver import TaskState

    from twosat_formal.integrations.inspect import read_samples, twosat_scorer
    from twosat_formal.integrations.rows import item_row

    dataset, prompts, _ = inputs
    from twosat_formal.evaluate.run import load_items

    items = load_items(prompts, dataset=dataset)
    rows_file = Path(prompts).with_name("rows.jsonl")
    rows_file.write_text("".join(json.dumps(item_row(i)) + "\n" for i in items), encoding="utf-8")
    samples = read_samples(rows_file)
    scorer = twosat_scorer()
    for sample, item in zip(samples, items, strict=True):
        text = "The answer is: " + ("No" if item.label == "UNSAT" else "Yes")
        for stop in ("stop", "max_tokens"):
            output = ModelOutput.from_content("mockllm/model", text, stop_reason=stop)
            state = TaskState(
                model=ModelName("mockllm/model"),
                sample_id=sample.id,
                epoch=1,
                input=sample.input,
                messages=[],
                output=output,
                metadata=sample.metadata,
            )
            score = asyncio.run(scorer(state, Target(sample.target)))
            expected = judge_row(sample.metadata, text, "length" if stop != "stop" else "stop")
            assert score.metadata["failure"] == expected.failure
            assert score.value["strict"] == float(expected.correct)
        assert expected.failure == "truncated"


@pytest.mark.slow
def test_lm_eval_export_runs_offline_with_the_dummy_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path, list[Any]]
) -> None:
    pytest.importorskip("lm_eval")
    from tests.support.integrations import installed, run_installed

    dataset, prompts, _ = inputs
    out = tmp_path / "lm"
    code, err = export_inputs(capsys, inputs, "lm-eval", out)
    assert code == 0, err
    assert 'group: "twosat"' in (out / "twosat.yaml").read_text()
    results = tmp_path / "results"
    lm_eval = [installed("lm_eval"), "--model", "dummy", "--tasks", "twosat"]
    run_installed([*lm_eval, "--include_path", str(out), "--limit", "1", "--output_path",
                   str(results), "--log_samples"], tmp_path)  # fmt: skip
    (summary,) = list(results.rglob("results_*.json"))
    found = json.loads(summary.read_text())
    scores = found["results"]["twosat"]
    # the dummy model answers "lol": never right
    assert scores["strict_accuracy,none"] == 0.0 and scores["decision_accuracy,none"] == 0.0
    assert "lenient_accuracy,none" in scores
    logged = []
    for samples in results.rglob("samples_twosat_*.jsonl"):
        logged += [json.loads(line) for line in samples.read_text().splitlines()]
    assert len(logged) == len(found["group_subtasks"]["twosat"])
    assert all(s["resps"] == [["lol"]] for s in logged)
    # the logged samples go to `score` as they are
    scored = tmp_path / "scored.jsonl"
    argv = [str(samples), "--prompts", str(prompts), "--dataset", str(dataset), "-o", str(scored)]
    code, _, err = cli(capsys, "score", *argv)
    assert code == 0, err
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    assert len(rows) == 1 and {r["failure"] for r in rows} == {"no-answer"}
    assert {r["model"] for r in rows} == {found["model_name"]}


def test_missing_extra_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    inputs: tuple[Path, Path, list[Any]],
) -> None:  # fmt: skip
    dataset, prompts, _ = inputs
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    argv = ["export", str(dataset), str(prompts), "--to", "hf", "-o", str(tmp_path / "hf")]
    code, _, err = cli(capsys, *argv)
    assert code == 2
    assert err.strip() == (
        "error: export --to hf needs pyarrow: pip install 'twosat-formal[integrations]'"
    )
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.delitem(sys.modules, "twosat_formal.integrations.inspect", raising=False)
    with pytest.raises(MissingExtraError, match="the inspect integration needs inspect-ai"):
        import twosat_formal.integrations.inspect  # noqa: F401


def test_export_is_deterministic(tmp_path: Path, inputs: tuple[Path, Path, list[Any]]) -> None:
    dataset, prompts, _ = inputs
    first = export_dataset([dataset, prompts], "lm-eval", tmp_path / "a", certify=False)
    second = export_dataset([dataset, prompts], "lm-eval", tmp_path / "b", certify=False)
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    first = export_dataset([dataset], "dimacs", tmp_path / "c", certify=False)
    second = export_dataset([dataset], "dimacs", tmp_path / "d", certify=False)
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_story_prompts_export_with_their_own_columns(tmp_path: Path) -> None:
    from tests.certify.test_certify_story import INSTANCES, STORIES
    from tests.support.jsonl import write_jsonl
    from twosat_formal.evaluate.models.base import Response
    from twosat_formal.evaluate.run import load_items
    from twosat_formal.evaluate.scoring import score

    data = write_jsonl(tmp_path / "data.jsonl", INSTANCES)
    stories = write_jsonl(tmp_path / "stories.jsonl", STORIES)
    files = export_dataset([data, stories], "lm-eval", tmp_path / "out")
    rows = [json.loads(line) for line in files[0].read_text(encoding="utf-8").splitlines()]
    items = load_items(stories, dataset=data)
    assert [row["kind"] for row in rows] == ["story", "story"]
    for row, item, story in zip(rows, items, STORIES, strict=True):
        assert row["story_theme"] == story["theme"] and row["story_model"] == story["model"]
        assert row["template"] == f"story:{story['theme']}" and row["true_value"] is None
        values = json.loads(row["entity_values"])
        assert set(values) == set(json.loads(row["entities"]))
        model = solve(row_formula(row)).model
        names = row_formula(row).names
        if model is None:
            text = "The answer is: No"
        else:
            truth = dict(zip(names, model, strict=True))
            witness = {
                entity: values[entity][0 if truth[var] else 1]
                for entity, var in json.loads(row["entities"]).items()
            }
            text = json.dumps(witness) + "\nThe answer is: Yes"
        for answer in (text, "The answer is: Yes", "The answer is: No"):
            expected = score(Response(answer), item.prompt, item.formula, item.label)
            assert judge_row(row, answer) == expected
        assert judge_row(row, text).correct


#: A Hub license identifier as the docs state it: lowercase letters and digits first,
#: then those, dots, pluses and dashes.
HUB_LICENSE = re.compile(r"[a-z0-9][a-z0-9.+-]*")


@given(
    st.one_of(st.text(alphabet="aZ09.+- \n_", max_size=6), st.sampled_from(["mit", "cc-by-4.0"]))
)
def test_a_license_is_a_hub_identifier(license: str) -> None:
    if HUB_LICENSE.fullmatch(license):
        assert ExportOptions(license=license).license == license
        return
    with pytest.raises(ConfigError) as info:
        ExportOptions(license=license)
    assert str(info.value) == f"license {license!r} is not a Hub license identifier"
    assert info.value.parameter == "license" and "cc-by-4.0" in (info.value.valid or "")


@given(
    st.sampled_from(["max_tokens", "max_gen_toks"]),
    st.one_of(st.integers(-2, 3), st.booleans(), st.floats(0, 3), st.text(max_size=2)),
)
def test_a_generation_budget_is_an_integer_of_at_least_one(name: str, value: object) -> None:
    if type(value) is int and value >= 1:
        fields: dict[str, Any] = {name: value}
        assert getattr(ExportOptions(**fields), name) == value
        return
    with pytest.raises(ConfigError) as info:
        ExportOptions(**{name: value})  # type: ignore[arg-type]
    assert str(info.value) == f"{name} must be an integer >= 1, got {value!r}"
    assert (info.value.parameter, info.value.valid) == (name, "an integer >= 1")


def test_dimacs_ids_that_give_one_file_name_each_keep_their_own_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, inputs: tuple[Path, Path, list[Any]]
) -> None:
    """With ``--no-certify`` ids are any strings: ``x/y``, ``x_y`` and ``X~Y`` all make
    the name ``x_y.cnf`` (case aside). Each instance still gets its own file,
    ``index.csv`` maps each to it, and every file reads back as its instance."""
    from pysat.formula import CNF

    dataset, _, _ = inputs
    records = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines()]
    ids = ["x_y", "x/y", "X~Y", "x_y.2"]
    chosen = [dict(record, id=key) for record, key in zip(records, ids, strict=False)]
    assert len(chosen) == len(ids)
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    out = tmp_path / "cnf"
    code, _, err = cli(
        capsys, "export", str(path), "--to", "dimacs", "-o", str(out), "--no-certify"
    )
    assert code == 0, err
    with open(out / "index.csv", encoding="utf-8", newline="") as handle:
        index = list(csv.DictReader(handle))
    assert [row["instance_id"] for row in index] == ids
    names = [row["file"] for row in index]
    assert len({name.lower() for name in names}) == len(ids)  # none replaced another
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, "index.csv"])
    for row, record in zip(index, chosen, strict=True):
        cnf = CNF(from_file=str(out / row["file"]))
        assert (cnf.nv, len(cnf.clauses)) == (record["num_vars"], record["num_clauses"])
