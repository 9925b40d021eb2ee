"""``certify --revalidate --model SPEC``: a validator model, over real HTTP, is asked again.

A forger who rewrites what the model wrote and recomputes every derived field and the
id passes the ordinary checks (nothing can re-derive a model's text); asking a
validator again catches an introduction that states a rule, a clue that no longer
names its clause, and a clue whose relation is not the clause's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.certify.test_certify_story import INSTANCES, STORIES
from tests.cli.test_cli_eval import cli
from tests.support.faultserver import FaultServer
from tests.support.jsonl import write_jsonl
from tests.support.story import StoryScript
from twosat_formal.certify import certify_files, revalidate_stories
from twosat_formal.evaluate.models import load_model
from twosat_formal.io.instance import Instance
from twosat_formal.verbalize.story import StoryRecord
from twosat_formal.verbalize.story.proof import rebuild_story

_CLUE = re.compile(r'CLUE: "(.*)"\n\n', re.DOTALL)
DESCRIPTIONS: dict[str, tuple[str, str]] = {}
for _record in STORIES:
    DESCRIPTIONS.update(StoryRecord.from_record(_record).descriptions)
SCRIPT = StoryScript(DESCRIPTIONS)


def validator(prompt: str) -> str:
    """A scripted validator that reads the text it is shown literally."""
    if prompt.startswith("Does this introduction state"):
        return "Yes" if " must " in prompt else "No"
    if prompt.startswith("What does this clue state"):
        clue = _CLUE.search(prompt)
        return "B" if clue is not None and clue.group(1).startswith("Both") else "A"
    if prompt.startswith("From this clue, identify"):
        return SCRIPT.entities_reply(prompt)
    if prompt.startswith("In this clue, what is stated"):
        return SCRIPT.state_reply(prompt)
    raise AssertionError(prompt[:80])


def forge(index: int, change: str) -> dict[str, Any]:
    """Story ``index`` with its attested text changed and everything else recomputed."""
    story = StoryRecord.from_record(STORIES[index])
    formula = Instance.from_record(INSTANCES[index]).formula
    if change == "intro":
        story = story.model_copy(
            update={"intro": story.intro + " Everyone knew the butler must be lying."}
        )
    else:
        k = next(i for i, c in enumerate(story.clues) if c.accepted is not None)
        clue = story.clues[k]
        if change == "lorem":
            text = "Lorem ipsum dolor sit amet."
        else:  # a clue that states both statements instead of at least one
            text = "Both " + clue.attempts[-1].text.split("that ", 1)[1].replace(
                ", or else", " and"
            )
        attempts = (*clue.attempts[:-1], clue.attempts[-1].model_copy(update={"text": text}))
        clues = list(story.clues)
        clues[k] = clue.model_copy(update={"attempts": attempts, "text": text})
        story = story.model_copy(update={"clues": tuple(clues)})
    return rebuild_story(story, formula).to_record()


@pytest.fixture
def server() -> Any:
    with FaultServer(answer=validator) as running:
        yield running


def files(tmp_path: Path, stories: list[Any]) -> list[Path]:
    return [
        write_jsonl(tmp_path / "data.jsonl", INSTANCES),
        write_jsonl(tmp_path / "stories.jsonl", stories),
    ]


def test_clean_stories_revalidate(tmp_path: Path, server: Any) -> None:
    paths = files(tmp_path, STORIES)
    assert revalidate_stories(paths, load_model("openai/validator", base_url=server.url)) == []
    assert any(entry.prompt.startswith("Does this introduction") for entry in server.log)
    assert any(entry.prompt.startswith("What does this clue state") for entry in server.log)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("intro", "the introduction states a rule"),
        ("lorem", "the validator now reads it as 'malformed-entities'"),
        ("both", "relation as both hold"),
    ],
)
def test_a_forged_story_passes_certify_but_not_revalidation(
    tmp_path: Path, server: Any, change: str, words: str
) -> None:
    forged = forge(1, change)
    paths = files(tmp_path, [STORIES[0], forged])
    assert certify_files(paths).ok  # every derived field and the id were recomputed
    failures = revalidate_stories(paths, load_model("openai/validator", base_url=server.url))
    assert [f.id for f in failures] == [forged["id"]] * len(failures) and failures
    assert all(f.check == "revalidate" and f.line == 2 for f in failures)
    assert any(words in f.message for f in failures), [f.message for f in failures]


def test_the_command_line(tmp_path: Path, server: Any, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(p) for p in files(tmp_path, [STORIES[0], forge(1, "intro")])]
    base = ["certify", *paths, "--no-progress"]
    assert cli(capsys, *base)[0] == 0
    code, out, _ = cli(
        capsys, *base, "--revalidate", "--model", "openai/validator", "--base-url", server.url
    )
    assert code == 1 and "[revalidate] the introduction states a rule" in out
    code, _, err = cli(capsys, *base, "--revalidate")
    assert code == 2 and "--model" in err
