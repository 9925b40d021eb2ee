"""A scripted story writer behind the loopback OpenAI-compatible server (no tests here).

:class:`StoryScript` plays both roles of the story verbalizer's model from the prompt
text alone:

* as the **writer**, it answers the Step 1 prompt with an introduction and a Step 2
  prompt with a clue whose content the script chooses per ``(clause, attempt)``:
  ``faithful`` states both statements of the prompt; ``wrong-entity`` swaps statement
  B's entity for another one; ``wrong-polarity`` flips statement B's state; ``garble-
  entities`` / ``garble-state`` write a faithful clue that makes the validator's reply
  malformed; ``empty`` is an empty reply; ``http-malformed`` is an HTTP 200 whose body
  is not JSON;
* as the **validator**, it reads the clue quoted in a Step 3a or 3b prompt literally:
  the entities whose statements occur in it, and which of an entity's two statements
  it contains.

:func:`expected_outcome` says, independently of the code under test, what each scripted
attempt must be judged, and :func:`expected_requests` how many requests it costs.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from faultserver import FaultServer

KINDS = (
    "faithful",
    "wrong-entity",
    "wrong-polarity",
    "garble-entities",
    "garble-state",
    "empty",
    "http-malformed",
)

INTRO = "Fog rolled over the estate as the guests gathered."

_CLUE_HEAD = re.compile(r"Write clue (\d+)/(\d+) for our")
_STATEMENT = re.compile(r"^- Statement ([AB]): (.+)$", re.MULTILINE)
_QUOTED = re.compile(r'CLUE: "(.*)"\n\n', re.DOTALL)
_ENTITY = re.compile(r"what is stated about (.+)\?\n")
_OPTIONS = re.compile(r"^A\) (.+)\nB\) (.+)$", re.MULTILINE)
_AVAILABLE = re.compile(r"AVAILABLE ENTITIES:\n(\[.*\])\n")


def expected_outcome(kind: str) -> str:
    """The attempt outcome a scripted clue must get."""
    return {
        "faithful": "valid",
        "wrong-entity": "wrong-entities",
        "wrong-polarity": "wrong-polarity",
        "garble-entities": "malformed-entities",
        "garble-state": "malformed-state",
        "empty": "empty-clue",
        "http-malformed": "error",
    }[kind]


def expected_requests(kind: str) -> int:
    """HTTP requests one scripted attempt costs: the clue, then 3a, then 3b twice."""
    return {
        "faithful": 4,
        "wrong-entity": 2,
        "wrong-polarity": 4,
        "garble-entities": 2,
        "garble-state": 4,
        "empty": 1,
        "http-malformed": 1,
    }[kind]


@dataclass
class StoryScript:
    """What the writer does at each ``(clause index, attempt)`` (0-based attempt).

    ``kinds`` maps ``(clause, attempt)`` to one of :data:`KINDS`; missing entries are
    ``default``. ``descriptions`` maps every entity of the story to its ``(true,
    false)`` descriptions (the writer needs them to swap entities and flip states).
    """

    descriptions: Mapping[str, tuple[str, str]]
    kinds: Mapping[tuple[int, int], str] = field(default_factory=dict)
    default: str = "faithful"
    seen: list[tuple[int, int, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def kind(self, clause: int, attempt: int) -> str:
        return self.kinds.get((clause, attempt), self.default)

    # -- the writer ---------------------------------------------------------------------

    def _statement(self, text: str) -> tuple[str, str]:
        for entity in sorted(self.descriptions, key=len, reverse=True):
            for value in self.descriptions[entity]:
                if text == f"{entity} {value}":
                    return entity, value
        raise AssertionError(f"not a statement of the story: {text!r}")

    def clue(self, prompt: str, attempt: int) -> str:
        heads = _CLUE_HEAD.findall(prompt)
        index = int(heads[-1][0])
        statements = dict(_STATEMENT.findall(prompt[prompt.rfind("Write clue") :]))
        kind = self.kind(index, attempt)
        with self.lock:
            self.seen.append((index, attempt, kind))
        if kind == "empty":
            return "   "
        a_entity, a_value = self._statement(statements["A"])
        b_entity, b_value = self._statement(statements["B"])
        if kind == "wrong-entity":
            b_entity = next(e for e in sorted(self.descriptions) if e not in (a_entity, b_entity))
            b_value = self.descriptions[b_entity][0]
        elif kind == "wrong-polarity":
            true, false = self.descriptions[b_entity]
            b_value = false if b_value == true else true
        marker = {"garble-entities": " [garble-entities]", "garble-state": " [garble-state]"}
        return (
            f"Clue {index}, attempt {attempt + 1}: the inspector noted that {a_entity} {a_value}, "
            f"or else {b_entity} {b_value}.{marker.get(kind, '')}"
        )

    # -- the validator --------------------------------------------------------------------

    def mentioned(self, clue: str) -> list[str]:
        found = []
        for entity in self.descriptions:
            for value in self.descriptions[entity]:
                at = clue.find(f"{entity} {value}")
                if at >= 0:
                    found.append((at, entity))
        return [entity for _, entity in sorted(found)]

    def entities_reply(self, prompt: str) -> str:
        clue = _QUOTED.search(prompt)
        assert clue is not None and _AVAILABLE.search(prompt) is not None
        if "[garble-entities]" in clue.group(1):
            return "The clue is about some people, I think."
        names = ", ".join(f'"{e}"' for e in self.mentioned(clue.group(1)))
        return f"[{names}]"

    def state_reply(self, prompt: str) -> str:
        clue = _QUOTED.search(prompt)
        entity = _ENTITY.search(prompt)
        options = _OPTIONS.search(prompt)
        assert clue is not None and entity is not None and options is not None
        if "[garble-state]" in clue.group(1):
            return "It could be either."
        name = entity.group(1)
        if f"{name} {options.group(1)}" in clue.group(1):
            return "A"
        if f"{name} {options.group(2)}" in clue.group(1):
            return "B"
        return "Neither"

    # -- the server's callbacks --------------------------------------------------------------

    def answer(self, prompt: str, attempt: int) -> str:
        if prompt.startswith("From this clue, identify"):
            return self.entities_reply(prompt)
        if prompt.startswith("In this clue, what is stated"):
            return self.state_reply(prompt)
        if "Write clue" in prompt:
            return self.clue(prompt, attempt)
        assert "introduction" in prompt, prompt[:200]
        return INTRO

    def fault(self, prompt: str, attempt: int) -> str:
        if "Write clue" in prompt and not prompt.startswith(("From this", "In this")):
            index = int(_CLUE_HEAD.findall(prompt)[-1][0])
            if self.kind(index, attempt) == "http-malformed":
                return "malformed"
        return "ok"


class StoryServer(FaultServer):
    """The fault server answering with a :class:`StoryScript` (attempt-aware).

    ``extra_plan(prompt, attempt, index)`` may override the fault of a request (HTTP
    errors for retry and resume tests).
    """

    def __init__(
        self,
        script: StoryScript,
        extra_plan: Callable[[str, int, int], str | None] | None = None,
        **options: object,
    ) -> None:
        self.script = script
        self.extra_plan = extra_plan
        self._last_attempt: dict[str, int] = {}
        super().__init__(plan=self._plan, **options)  # type: ignore[arg-type]

    def _plan(self, prompt: str, attempt: int) -> str:
        self._last_attempt[prompt] = attempt
        if self.extra_plan is not None:
            fault = self.extra_plan(prompt, attempt, len(self.log))
            if fault is not None:
                return fault
        return self.script.fault(prompt, attempt)

    def _answer_for(self, prompt: str) -> str:
        return self.script.answer(prompt, self._last_attempt[prompt])
