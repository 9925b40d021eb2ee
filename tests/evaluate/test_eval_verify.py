"""The gate before evaluation: a prompt that is not its re-derivation is never sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.certify.test_certify_story import INSTANCES as STORY_INSTANCES
from tests.certify.test_certify_story import STORIES
from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli, error_lines
from twosat_formal.errors import UnverifiedPromptError
from twosat_formal.evaluate.run import load_items, verify_items
from twosat_formal.evaluate.store import RunStore


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_inputs(tmp_path, make_items(6, seed=7))


def rewrite(path: Path, index: int, change: str) -> str:
    """Change prompt ``index`` of a file; return its id."""
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[index])
    text = record["text"]
    if change == "flip-sentence":
        sentences = text.split("\n")
        other = next(s for s in sentences[2:] if s and s != sentences[1])
        sentences[1] = other  # clause 1 now says what another clause says
        record["text"] = "\n".join(sentences)
    elif change == "swap-answers":
        record["text"] = (
            text.replace("(if a valid", "(@")
            .replace("(if no valid", "(if a valid")
            .replace("(@", "(if no valid")
        )
    else:
        record["text"] = text.replace("Think step by step.", "Answer quickly.")
    assert record["text"] != text
    lines[index] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(record["id"])


@pytest.mark.parametrize("change", ["flip-sentence", "swap-answers", "instructions"])
@pytest.mark.parametrize("with_dataset", [True, False])
def test_eval_refuses_a_changed_prompt_before_anything_is_sent(
    tmp_path: Path,
    files: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    change: str,
    with_dataset: bool,
) -> None:
    prompts, dataset = files
    if change == "flip-sentence" and not with_dataset:
        pytest.skip("without its instance a flipped sentence reads back as another formula")
    pid = rewrite(prompts, 3, change)
    store = tmp_path / "runs.sqlite"
    args = ["eval", str(prompts), "-m", "ref/oracle", "--store", str(store), "--no-progress"]
    if with_dataset:
        args += ["--dataset", str(dataset)]
    code, out, err = cli(capsys, *args)
    assert code == 2, (out, err)
    lines = error_lines(err)
    assert len(lines) == 1 and pid in lines[0] and "nothing was sent" in lines[0], err
    assert "Traceback" not in err
    assert not store.exists()


def test_a_flipped_clause_sentence_is_caught_against_the_instance(
    files: tuple[Path, Path],
) -> None:
    prompts, dataset = files
    pid = rewrite(prompts, 0, "flip-sentence")
    items = load_items(prompts, dataset=dataset)
    with pytest.raises(UnverifiedPromptError, match=pid) as info:
        verify_items(items)
    assert "text line 2" in str(info.value)


def test_eval_records_that_every_prompt_was_verified(
    tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    prompts, dataset = files
    store = tmp_path / "runs.sqlite"
    base = ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store)]
    code, out, err = cli(capsys, *base, "-m", "ref/oracle", "--no-progress")
    assert code == 0, (out, err)
    with RunStore(store, readonly=True) as opened:
        (run,) = opened.runs()
    assert run["info"]["verification"]["verify"] == "on"
    assert run["info"]["verification"]["prompts_verified"] == 6


def test_no_verify_sends_a_changed_prompt_and_says_so(
    tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    prompts, dataset = files
    rewrite(prompts, 2, "instructions")
    store = tmp_path / "runs.sqlite"
    base = ["eval", str(prompts), "--dataset", str(dataset), "--store", str(store)]
    code, out, err = cli(capsys, *base, "-m", "ref/oracle", "--no-progress", "--no-verify")
    assert code == 0, (out, err)
    with RunStore(store, readonly=True) as opened:
        (run,) = opened.runs()
    assert run["info"]["verification"] == {
        "verify": "off (--no-verify)",
        "prompts_verified": 0,
        "method": None,
    }


def test_a_changed_story_prompt_is_refused(tmp_path: Path) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in STORY_INSTANCES), encoding="utf-8")
    stories = tmp_path / "stories.jsonl"
    stories.write_text("".join(json.dumps(r) + "\n" for r in STORIES), encoding="utf-8")
    assert verify_items(load_items(stories, dataset=dataset)).verified == len(STORIES)
    record = json.loads(json.dumps(STORIES[0]))
    record["text"] = record["text"].replace("Think step by step.", "Guess.")
    stories.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(UnverifiedPromptError, match=record["id"]):
        verify_items(load_items(stories, dataset=dataset))


def test_run_experiment_records_the_verification(tmp_path: Path) -> None:
    from twosat_formal.study.experiments.runner import run_experiment

    result = run_experiment(
        "table1",
        ["ref/oracle"],
        out_dir=tmp_path / "exp",
        formulas=1,
        templates=["logic"],
        certify=False,
        make_report=False,
    )
    assert result.manifest["verification"]["verify"] == "on"
    assert result.manifest["verification"]["prompts_verified"] == result.evaluation.planned


def test_batch_prepare_refuses_a_changed_prompt(
    tmp_path: Path, files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    prompts, _ = files
    out = tmp_path / "requests.jsonl"
    args = ["batch", "prepare", str(prompts), "-m", "gpt-x", "--out", str(out)]
    assert cli(capsys, *args)[0] == 0 and out.exists()
    out.unlink()
    pid = rewrite(prompts, 1, "swap-answers")
    code, _, err = cli(capsys, *args)
    assert code == 2 and pid in err and not out.exists()
    assert cli(capsys, *args, "--no-verify")[0] == 0 and out.exists()
