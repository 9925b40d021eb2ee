"""The prompts we send against the paper's text (App. G.1-G.3), under one line-break rule.

``tests/paper/appendix_g.txt`` holds the paper's prompt blocks as printed. The rule
(docs/verbalization.md, "Line breaks of the paper's prompts"): **every line break the
paper prints inside a prompt block is kept**, everywhere. The one text the paper prints
twice with different breaks, the final question of the ``logic`` scheme (one line in
G.1's list of final questions, two lines in its assembled example), is sent as the list
defines it; the assembled example is compared with that break joined.

The story prompts are taken from the bodies of real HTTP requests to the loopback
server of :mod:`story_support`, in chat mode: the clue prompts are the last ``user``
message of their conversation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.story import INTRO, tell
from twosat_formal.core.formula import Formula
from twosat_formal.verbalize import prompt_record, verbalize
from twosat_formal.verbalize.story import THEMES

PAPER_FILE = Path(__file__).parents[1] / "paper" / "appendix_g.txt"


def paper_blocks() -> dict[str, str]:
    """The blocks of the excerpt file by name, each exactly as the paper prints it."""
    blocks: dict[str, str] = {}
    name = None
    lines: list[str] = []
    for line in PAPER_FILE.read_text(encoding="utf-8").split("\n"):
        if line.startswith("=== "):
            if name is not None:
                blocks[name] = "\n".join(lines)
            name, lines = line[4:], []
        elif name is not None:
            lines.append(line)
    return blocks


PAPER = paper_blocks()


def fill(block: str, values: dict[str, str]) -> str:
    """``block`` with each placeholder of ``values`` replaced (each must occur)."""
    for placeholder, value in values.items():
        assert placeholder in block, placeholder
        block = block.replace(placeholder, value)
    return block


def test_the_excerpt_file_has_every_block() -> None:
    assert set(PAPER) == {
        "G.1 final question logic",
        "G.1 assembled output",
        "G.2 template prompt",
        "G.2 story prompt",
        "G.3 step 1",
        "G.3 step 2",
        "G.3 step 3a",
        "G.3 step 3b",
        "G.3 fallback",
    }
    # the paper's printed breaks are there to be kept (a block of one line would prove nothing)
    assert PAPER["G.3 step 2"].count("\n") == 15 and PAPER["G.2 template prompt"].count("\n") == 15


def test_template_verbalization_and_prompt_follow_the_paper() -> None:
    formula = Formula([[-1, 2], [1, -3]])
    text = verbalize(formula, "logic", entities=["A", "B", "C"]).verbalization
    question = PAPER["G.1 final question logic"].removeprefix("• logic: ")
    assert text.splitlines()[-1] == question
    # the assembled example: the same, but for the wrap of the question (the one exception)
    assert text == PAPER["G.1 assembled output"].replace(
        "all statements\nwithout", "all statements without"
    )
    record = prompt_record(formula, "logic", instance_id="x", seed=0, entities=["A", "B", "C"])
    shown = re.findall(r"\b([ABC]) is (?:true|false)", text)
    first = list(dict.fromkeys(shown))
    expected = fill(
        PAPER["G.2 template prompt"],
        {
            "{verbalized formula text}": text,
            "{true_val}": "true",
            "{false_val}": "false",
            "{entity_1}": first[0],
            "{entity_2}": first[1],
            "{entity_3}": first[2],
        },
    )
    assert record.text == expected


FORMULA = Formula.from_named([["a", "~b"], ["b", "c"], ["~c", "d"], ["a", "d"]])
# clause 2 falls back (three failed attempts), clause 3 validates on its second attempt
KINDS = {(2, 0): "wrong-polarity", (2, 1): "wrong-polarity", (2, 2): "wrong-polarity"}
KINDS[(3, 0)] = "wrong-polarity"


def test_story_prompts_sent_are_the_paper_prompts() -> None:
    run, server, _ = tell(FORMULA, KINDS)
    record = run.records[0]
    theme = THEMES.get("detective")
    names = list(record.entities)
    variable = {v: e for e, v in record.entities.items()}

    def statement(literal: str) -> tuple[str, str]:
        entity = variable[literal.lstrip("~")]
        true, false = theme.describe(entity)
        return entity, false if literal.startswith("~") else true

    log = server.log
    assert all(e.messages is not None for e in log)
    # Step 1: the first request, one user message
    listed = "\n".join(f"- {e}" for e in names)
    step1 = fill(PAPER["G.3 step 1"], {"- {entity_1_name}\n- {entity_2_name}\n...": listed})
    assert log[0].messages == [{"role": "user", "content": step1}]
    # Step 2: each clue request's last user message, after the earlier turns
    clue_requests = [e for e in log if e.messages[-1]["content"].startswith("Write clue")]
    total = len(FORMULA.clauses)
    seen = set()
    for entry in clue_requests:
        index = int(re.match(r"Write clue (\d+)/", entry.messages[-1]["content"]).group(1))
        seen.add(index)
        (a_entity, a_state), (b_entity, b_state) = map(statement, record.clues[index - 1].clause)
        expected = fill(
            PAPER["G.3 step 2"],
            {
                "{i}/{total}": f"{index}/{total}",
                "{entity_1_name} {state_1}": f"{a_entity} {a_state}",
                "{entity_2_name} {state_2}": f"{b_entity} {b_state}",
            },
        )
        assert entry.messages[-1] == {"role": "user", "content": expected}
        assert entry.messages[0]["content"] == step1 and entry.messages[1]["content"] == INTRO
        assert len(entry.messages) == 2 * index + 1
    assert seen == {1, 2, 3, 4}
    # Steps 3a and 3b: one user message each, about the clue of that attempt
    clues = {a.text for c in record.clues for a in c.attempts if a.text}
    entity_requests = [e for e in log if e.prompt.startswith("From this clue")]
    state_requests = [e for e in log if e.prompt.startswith("In this clue")]
    assert entity_requests and state_requests
    for entry in entity_requests:
        clue = re.search(r'CLUE: "(.*)"\n\n', entry.prompt, re.DOTALL).group(1)
        assert clue in clues and len(entry.messages) == 1
        expected = fill(
            PAPER["G.3 step 3a"],
            {
                "{generated_paragraph}": clue,
                '["entity_1", "entity_2", ...]': json.dumps(names, ensure_ascii=False),
            },
        )
        assert entry.messages[0]["content"] == expected
    for entry in state_requests:
        clue = re.search(r'CLUE: "(.*)"\n\n', entry.prompt, re.DOTALL).group(1)
        entity = re.match(r"In this clue, what is stated about (.+)\?", entry.prompt).group(1)
        true, false = theme.describe(entity)
        expected = fill(
            PAPER["G.3 step 3b"],
            {
                "{entity_name}": entity,
                "{generated_paragraph}": clue,
                "{true_description}": true,
                "{false_description}": false,
            },
        )
        assert entry.messages == [{"role": "user", "content": expected}]
    # the fallback sentence of clause 2, in the story and in the later turns
    fallback = record.clues[1]
    assert fallback.outcome == "fallback"
    (a_entity, a_state), (b_entity, b_state) = map(statement, fallback.clause)
    sentence = fill(
        PAPER["G.3 fallback"],
        {
            "{entity_1} {state_1}": f"{a_entity} {a_state}",
            "{entity_2} {state_2}": f"{b_entity} {b_state}",
        },
    )
    assert fallback.text == sentence
    last = max(clue_requests, key=lambda e: len(e.messages))
    assert last.messages[5] == {"role": "assistant", "content": sentence}


def test_story_evaluation_prompt_is_the_paper_prompt() -> None:
    run, _, _ = tell(FORMULA)
    record = run.records[0]
    theme = THEMES.get("detective")
    listed = "\n".join(
        '  - "{}": "{}" or "{}"'.format(e, *theme.describe(e)) for e in record.entities
    )
    expected = fill(
        PAPER["G.2 story prompt"],
        {
            "{augmented story text}": record.story,
            '  - "{entity_name}": "{true_desc}" or "{false_desc}"\n  ...': listed,
        },
    )
    assert record.text == expected
