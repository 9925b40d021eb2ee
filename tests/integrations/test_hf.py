"""``export --to hf``: a typed Hugging Face dataset, read by ``datasets`` itself, offline."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.integrations import cli, make_dataset, needs_module, run_installed
from twosat_formal.integrations.rows import judge_row
from twosat_formal.io.instance import read_instances
from twosat_formal.make.generators import FAMILIES
from twosat_formal.verbalize import TEMPLATES

pytestmark = needs_module("datasets")

LOAD = """
import json, sys
from datasets import load_dataset
folder, config = sys.argv[1], sys.argv[2]
data = load_dataset(folder, config, split="test")
print(json.dumps({"features": data.features.to_dict(), "rows": data.to_list()}))
"""


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The dataset, its prompts and their hf export (license cc-by-4.0)."""
    folder = tmp_path_factory.mktemp("hf")
    dataset, prompts, _ = make_dataset(folder, per_family=3)
    out = folder / "hf"
    from twosat_formal.integrations.exports import ExportOptions, export_dataset

    export_dataset([dataset, prompts], "hf", out, options=ExportOptions(license="cc-by-4.0"))
    return dataset, prompts, out


def load(out: Path, config: str) -> dict[str, Any]:
    """``datasets.load_dataset(out, config, split="test")`` in a fresh, offline process."""
    done = run_installed([sys.executable, "-c", LOAD, str(out), config], out.parent)
    loaded: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def negate(literal: str) -> str:
    return literal[1:] if literal.startswith("~") else "~" + literal


def clauses_of(dimacs: str) -> tuple[list[str], list[frozenset[str]]]:
    """Variable names and clauses (literals as names, ``~`` for negation) of DIMACS text,
    read here line by line (a variable without a ``c var`` line is ``x<v>``)."""
    names: dict[int, str] = {}
    count = 0
    lines: list[list[int]] = []
    for line in dimacs.splitlines():
        parts = line.split()
        if parts[:2] == ["c", "var"]:
            names[int(parts[2])] = parts[3]
        elif parts[:1] == ["p"]:
            count = int(parts[2])
        elif parts and parts[0] != "c":
            lines.append([int(p) for p in parts if p != "0"])
    name = [names.get(v, f"x{v}") for v in range(1, count + 1)]
    clauses = [frozenset(("~" if x < 0 else "") + name[abs(x) - 1] for x in c) for c in lines]
    return name, clauses


@pytest.mark.slow
def test_features_are_typed(export: tuple[Path, Path, Path]) -> None:
    _, _, out = export
    features = load(out, "all")["features"]
    assert features["satisfiable"] == {"dtype": "bool", "_type": "Value"}
    assert features["label"]["dtype"] == "string"
    for column in ("clauses", "num_vars", "seed"):
        assert features[column]["dtype"] == "int64"
    assert isinstance(features["params"], dict) and "_type" not in features["params"]
    assert features["params"]["filler_share"]["dtype"] == "float64"
    assert features["entities"]["_type"] == "List"
    assert set(features["entities"]["feature"]) == {"entity", "variable"}
    assert set(features["solution"]) == {"assignment", "cycle"}
    assert set(features["messages"]["feature"]) == {"role", "content"}
    assert features["transforms"]["_type"] == "List"
    assert not list(out.rglob("*.jsonl"))  # no JSON Lines copy beside the Parquet files


@pytest.mark.slow
def test_rows_carry_checked_solutions_and_chat_messages(export: tuple[Path, Path, Path]) -> None:
    from pysat.solvers import Minisat22

    dataset, prompts, out = export
    rows = load(out, "all")["rows"]
    prompt_ids = [json.loads(line)["id"] for line in prompts.read_text().splitlines()]
    assert sorted(row["id"] for row in rows) == sorted(prompt_ids)
    instances = {inst.id: inst for inst in read_instances(dataset)}
    for row in rows:
        inst = instances[row["instance_id"]]
        assert row["label"] == inst.label and row["satisfiable"] == (inst.label == "SAT")
        names, clauses = clauses_of(row["dimacs"])
        index = {name: i + 1 for i, name in enumerate(names)}
        cnf = [[(-1 if lit.startswith("~") else 1) * index[lit.lstrip("~")] for lit in c]
               for c in clauses]  # fmt: skip
        with Minisat22(bootstrap_with=cnf) as solver:
            assert solver.solve() == row["satisfiable"]
        solution = row["solution"]
        if row["satisfiable"]:
            truth = {item["variable"]: item["value"] for item in solution["assignment"]}
            assert {e["entity"] for e in row["entities"]} == {
                item["entity"] for item in solution["assignment"]
            }
            for clause in clauses:  # the model satisfies every clause
                assert any(truth[lit.lstrip("~")] != lit.startswith("~") for lit in clause)
            assert solution["cycle"] is None
        else:
            cycle = solution["cycle"]
            assert solution["assignment"] is None and len(cycle) >= 2
            assert any(negate(lit) in cycle for lit in cycle)  # x and ¬x on one cycle
            for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):  # a → b: (¬a ∨ b)
                assert frozenset({negate(a), b}) in clauses or frozenset({b}) in clauses
        user, assistant = row["messages"]
        assert user == {"role": "user", "content": row["prompt"]}
        assert assistant["role"] == "assistant"
        judgement = judge_row(row, assistant["content"])
        assert judgement.correct and judgement.decision == row["label"]
        assert row["params"]["clauses"] == inst.params["clauses"]


@pytest.mark.slow
def test_one_config_per_family(export: tuple[Path, Path, Path]) -> None:
    _, _, out = export
    everything = load(out, "all")["rows"]
    families = sorted({row["family"] for row in everything})
    assert len(families) >= 2
    total = 0
    for family in families:
        rows = load(out, family)["rows"]
        assert rows and {row["family"] for row in rows} == {family}
        assert sorted(r["id"] for r in rows) == sorted(
            r["id"] for r in everything if r["family"] == family
        )
        total += len(rows)
    assert total == len(everything)


@pytest.mark.slow
def test_the_card_passes_datasets_own_validation(export: tuple[Path, Path, Path]) -> None:
    import datasets
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    _, _, out = export
    card = DatasetCard.load(out / "README.md")
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    for config in configs.values():
        MetadataConfigs._raise_if_data_files_field_not_valid(config)
    assert configs.get_default_config_name() == "all"
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    loaded = load(out, "all")
    families = sorted({row["family"] for row in loaded["rows"]})
    assert set(infos) == set(configs) == {"all", *families}
    for info in infos.values():
        assert info.features is not None and info.features.to_dict() == loaded["features"]
    assert infos["all"].splits["test"].num_examples == len(loaded["rows"])
    sizes = Path(datasets.__file__).parent / "utils" / "resources" / "size_categories.json"
    assert card.data.size_categories[0] in json.loads(sizes.read_text())
    assert card.data.license == "cc-by-4.0"
    assert {"question-answering", "text-generation"} <= set(card.data.task_categories)
    bibtex = card.text.split("```bibtex", 1)[1].split("```", 1)[0]
    for field in ("title", "author", "year", "eprint", "url"):
        assert f"{field} " in bibtex or f"{field}=" in bibtex


def test_the_license_is_chosen(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    dataset, prompts, _ = make_dataset(tmp_path)
    code, _, err = cli(capsys, "export", str(dataset), str(prompts), "--to", "hf",
                       "-o", str(tmp_path / "a"))  # fmt: skip
    assert code == 0, err
    assert "\nlicense: unknown\n" in (tmp_path / "a" / "README.md").read_text()
    code, _, err = cli(capsys, "export", str(dataset), str(prompts), "--to", "hf",
                       "-o", str(tmp_path / "b"), "--license", "mit")  # fmt: skip
    assert code == 0, err
    assert "\nlicense: mit\n" in (tmp_path / "b" / "README.md").read_text()


def test_a_license_that_is_not_an_identifier_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dataset, prompts, _ = make_dataset(tmp_path)
    for bad in ("MIT License", "mit\nlicense: other", ""):
        code, _, err = cli(capsys, "export", str(dataset), str(prompts), "--to", "hf",
                           "-o", str(tmp_path / "c"), "--license", bad)  # fmt: skip
        assert code == 2 and "not a Hub license identifier" in err
        assert len(err.strip().splitlines()) == 1 and not (tmp_path / "c").exists()


@settings(max_examples=12, deadline=None)
@given(
    family=st.sampled_from([f for f in FAMILIES.names() if f != "symmetry"]),
    seed=st.integers(0, 10_000),
    template=st.sampled_from(TEMPLATES.names()),
)
def test_a_typed_row_carries_a_certificate_and_an_answer_judged_correct(
    family: str, seed: int, template: str
) -> None:
    from twosat_formal.evaluate.run import EvalItem
    from twosat_formal.integrations.hf import typed_row
    from twosat_formal.make.generators import generate
    from twosat_formal.verbalize import prompt_record

    inst = generate(family, clauses=10, seed=seed)
    record = prompt_record(inst.formula, template, instance_id=inst.id, seed=seed)
    row = typed_row(EvalItem(record, inst.formula, inst.label, inst.to_record()))
    names, clauses = clauses_of(row["dimacs"])
    assert row["satisfiable"] == (inst.label == "SAT") and row["num_vars"] == len(names)
    if row["satisfiable"]:
        truth = {a["variable"]: a["value"] for a in row["solution"]["assignment"]}
        assert all(any(truth[x.lstrip("~")] != x.startswith("~") for x in c) for c in clauses)
    else:
        cycle = row["solution"]["cycle"]
        assert any(negate(lit) in cycle for lit in cycle)
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            assert frozenset({negate(a), b}) in clauses or frozenset({b}) in clauses
    assert judge_row(row, row["messages"][1]["content"]).correct
    wrong = "The answer is: " + ("No" if row["satisfiable"] else "Yes")
    assert not judge_row(row, wrong).correct


def test_story_rows_carry_their_descriptions(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from tests.certify.test_certify_story import INSTANCES, STORIES
    from tests.support.jsonl import write_jsonl
    from twosat_formal.integrations.exports import export_dataset

    data = write_jsonl(tmp_path / "data.jsonl", INSTANCES)
    stories = write_jsonl(tmp_path / "stories.jsonl", STORIES)
    files = export_dataset([data, stories], "hf", tmp_path / "hf")
    rows = [row for f in files if f.suffix == ".parquet" for row in pq.read_table(f).to_pylist()]
    assert len(rows) == len(STORIES) and {row["kind"] for row in rows} == {"story"}
    for row in rows:
        story = next(s for s in STORIES if s["id"] == row["id"])
        values = {v["entity"]: (v["true"], v["false"]) for v in row["entity_values"]}
        assert set(values) == {e["entity"] for e in row["entities"]}
        assert row["story_theme"] == story["theme"] and row["true_value"] is None
        assert judge_row(row, row["messages"][1]["content"]).correct
