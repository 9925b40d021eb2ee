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
:func:`tell` runs the story verbalizer against such a server.
"""

from __future__ import annotations

import re
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.brute import brute_label, models
from tests.support.faultserver import FaultServer
from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Response, SamplingParams
from twosat_formal.evaluate.models.retry import RetryPolicy
from twosat_formal.evaluate.run.stories import StoryRun, generate_stories
from twosat_formal.verbalize.story import THEMES, StoryRecord
from twosat_formal.verbalize.story.generator import StoryItem, StorySettings

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

    # -- the writer -------------------------------------------------------------------------

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

    # -- the validator ----------------------------------------------------------------------

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

    # -- the server's callbacks -------------------------------------------------------------

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
    """The fault server answering with a :class:`StoryScript`.

    The script's ``attempt`` for a request is how many earlier requests with the same
    prompt were not transient failures (HTTP 429/5xx, dropped connections): a retried
    request is the same attempt. ``extra_plan(prompt, attempt, index)`` may override
    the fault of a request (``index``: its arrival number).
    """

    TRANSIENT = frozenset({"429", "500", "503", "drop"})

    def __init__(
        self,
        script: StoryScript,
        extra_plan: Callable[[str, int, int], str | None] | None = None,
        **options: object,
    ) -> None:
        self.script = script
        self.extra_plan = extra_plan
        self._served: dict[str, int] = {}
        self._current: dict[str, int] = {}
        super().__init__(plan=self._plan, **options)  # type: ignore[arg-type]

    def _plan(self, prompt: str, requests: int) -> str:
        attempt = self._served.get(prompt, 0)
        fault = None
        if self.extra_plan is not None:
            fault = self.extra_plan(prompt, attempt, len(self.log))
        if fault is None:
            fault = self.script.fault(prompt, attempt)
        if fault not in self.TRANSIENT:
            self._served[prompt] = attempt + 1
        self._current[prompt] = attempt
        return fault

    def _answer_for(self, prompt: str) -> str:
        return self.script.answer(prompt, self._current[prompt])


#: The default story settings.
FAST = StorySettings()
#: Retries that do not wait.
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.0, max_delay_s=0.0)
#: The spec the scripted server is reached under.
SPEC = "openai/scripted-writer"


def equivalent(a: list[list[int]], b: list[list[int]], n: int) -> bool:
    """Whether two clause lists over ``1..n`` agree on every assignment."""
    return set(models(a, n)) == set(models(b, n))


def recovered_ints(record: StoryRecord, formula: Formula) -> list[list[int]]:
    """The record's recovered formula, read from its names without the library's help."""
    index = {name: v for v, name in enumerate(formula.names, 1)}
    return [
        [-index[lit[1:]] if lit.startswith("~") else index[lit] for lit in clause]
        for clause in record.recovered
    ]


def tell(
    formula: Formula,
    kinds: Mapping[tuple[int, int], str] | None = None,
    *,
    theme: str = "detective",
    seed: int = 0,
    store: Path | None = None,
    settings: StorySettings = FAST,
    extra_plan: Callable[[str, int, int], str | None] | None = None,
    default: str = "faithful",
    mode: str = "chat",
) -> tuple[StoryRun, StoryServer, StoryScript]:
    """Tell ``formula`` with a scripted server; the run, the server (its log), the script."""
    chosen = THEMES.get(theme)
    names = chosen.entities_for(formula.num_vars, seed=seed)
    script = StoryScript({e: chosen.describe(e) for e in names}, dict(kinds or {}), default)
    server = StoryServer(script, extra_plan)
    with tempfile.TemporaryDirectory() as tmp, server:
        run = generate_stories(
            [StoryItem("inst-1", formula, brute_label(formula))],
            theme,
            SPEC,
            store or Path(tmp) / "calls.sqlite",
            seed=seed,
            settings=settings,
            retry=FAST_RETRY,
            base_url=server.url,
            mode=mode,
        )
    return run, server, script


# -- an in-process scripted story model (no server) -------------------------------------------


def story_record(
    item: StoryItem, theme: str, kinds: Mapping[tuple[int, int], str], *, seed: int
) -> StoryRecord:
    """The story of one ``item`` written against a scripted server (default retries,
    :data:`FAST` settings), each clue attempt as ``kinds`` says (default faithful)."""
    chosen = THEMES.get(theme)
    names = chosen.entities_for(item.formula.num_vars, seed=seed)
    script = StoryScript({e: chosen.describe(e) for e in names}, dict(kinds))
    with tempfile.TemporaryDirectory() as tmp, StoryServer(script) as server:
        run = generate_stories(
            [item],
            theme,
            SPEC,
            Path(tmp) / "calls.sqlite",
            seed=seed,
            settings=FAST,
            base_url=server.url,
        )
    return run.records[0]


def theme_descriptions(theme: str, count: int = 90) -> dict[str, tuple[str, str]]:
    """The descriptions of the first ``count`` entities of ``theme`` (suffixed ones included)."""
    chosen = THEMES.get(theme)
    return {chosen.entity(i): chosen.describe(chosen.entity(i)) for i in range(count)}


class ScriptedStoryModel:
    """A deterministic story writer and validator implementing the Model protocol.

    It plays :class:`StoryScript` in process for every theme: the theme of a writer
    prompt is read from its wording, and a validation prompt is answered from the
    descriptions of every theme's entities. ``kinds`` scripts ``(clause, attempt)`` as
    :class:`StoryScript` does, the same for every story; ``calls`` counts the calls.
    """

    endpoint = "local"

    def __init__(
        self,
        kinds: Mapping[tuple[int, int], str] | None = None,
        *,
        spec: str = "test/scripted-writer",
    ) -> None:
        self.spec = spec
        self.calls = 0
        self.scripts = {
            name: StoryScript(theme_descriptions(name), dict(kinds or {}))
            for name in THEMES.names()
        }

    def _writer(self, prompt: str) -> StoryScript:
        for name, script in self.scripts.items():
            chosen = THEMES.get(name)
            if f"for our {chosen.short}." in prompt or f"You are a {chosen.writer}." in prompt:
                return script
        raise AssertionError(f"no theme's writer prompt: {prompt[:120]!r}")

    def _validator(self, prompt: str) -> StoryScript:
        names = _AVAILABLE.search(prompt)
        entity = _ENTITY.search(prompt)
        wanted = [entity.group(1)] if entity is not None else []
        if names is not None:
            import json

            wanted = json.loads(names.group(1))
        for script in self.scripts.values():
            if all(name in script.descriptions for name in wanted):
                return StoryScript({n: script.descriptions[n] for n in wanted})
        raise AssertionError(f"entities of no theme: {wanted!r}")

    def answer(self, prompt: str, sample: int) -> str:
        validating = prompt.startswith(("From this clue, identify", "In this clue, what is"))
        script = self._validator(prompt) if validating else self._writer(prompt)
        return script.answer(prompt, sample)

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        self.calls += 1
        return Response(self.answer(prompt, sample), "stop")

    async def aclose(self) -> None:
        pass


#: A script that makes the rates non-trivial: in every story, clause 2 validates on its
#: second attempt and clause 3 falls back after three failed attempts.
MIXED_KINDS: dict[tuple[int, int], str] = {
    (2, 0): "wrong-polarity",
    (3, 0): "wrong-entity",
    (3, 1): "garble-entities",
    (3, 2): "wrong-polarity",
}
