"""The LLM story verbalizer (paper §4, App. G.3): a model writes one clue per clause.

For one formula and one theme:

1. **Step 1**: the model writes the story's introduction from the list of entities.
2. **Step 2**: for each clause ``(l1 ∨ l2)`` the clue prompt is appended to the
   conversation (the Step 1 prompt, the introduction, and every earlier clue prompt with
   the clue that stands in the story), and the model writes the clue.
3. **Validation**: a fresh call extracts the clue's two entities (**Step 3a**); when
   they are the clause's two entities, one call per entity extracts its state
   (**Step 3b**). The recovered clause is compared with the source clause. A mismatch
   regenerates the clue (sample index ``attempt - 1``), up to
   :data:`~twosat_formal.verbalize.story.record.MAX_ATTEMPTS` attempts; then the
   programmatic fallback sentence takes the clue's place.

A unit clause, or a clause over one variable twice, is outside the paper's prompts: it
gets the programmatic sentence directly (mode ``direct``), without a model call.

**The conversation** (App. G.3 is multi-turn): the first turn is the Step 1 prompt,
sent alone; each clue prompt is sent with the turns before it (the Step 1 prompt, the
introduction, every earlier clue prompt with the clue that stands in the story). A
model that takes messages (:func:`~twosat_formal.core.model.takes_messages`: a chat
endpoint) gets them as messages, the earlier answers as ``assistant`` messages
(:meth:`~twosat_formal.core.model.ChatModel.converse`). Any other model (a completion
endpoint) takes one prompt text: the turns are rendered into a transcript, each
introduced by a ``User:`` or ``Assistant:`` line (:func:`render_conversation`),
ending with the new clue prompt. The record's ``provenance.conversation`` says which
(``messages`` or ``transcript``). ``history`` in :class:`StorySettings` keeps only the
last clue exchanges when a long formula would not fit a model's context.

**Calls.** The generator depends on the :class:`~twosat_formal.core.model.Model` protocol
only: its caller hands it a model. Retrying and caching are wrappers around that model
(:class:`~twosat_formal.evaluate.models.retry.RetryingModel`,
:class:`~twosat_formal.evaluate.models.cache.CachedModel`);
:func:`twosat_formal.evaluate.run.stories.generate_stories`, which the CLI calls, hands it
a model with both, so an interrupted generation resumes from the cached calls and a
complete re-run makes no call at all. A
:class:`~twosat_formal.errors.TransientModelError` that reaches the generator (a
retrying wrapper gave up) stops the story with an
:class:`~twosat_formal.errors.EvaluationError`; any other failed call (a malformed
reply body, a refused request) fails its attempt with outcome ``error``.

Examples
--------
>>> from twosat_formal.verbalize.story.themes import THEMES
>>> print(clue_prompt(THEMES.get("detective"), 1, 4, ("the maid", "saw nothing"),
...                   ("the butler", "is the murderer")))
Write clue 1/4 for our mystery story.
<BLANKLINE>
This clue must express that AT LEAST ONE of these
statements is true:
- Statement A: the maid saw nothing
- Statement B: the butler is the murderer
<BLANKLINE>
(It’s possible both are true, but at least one
MUST be true.)
<BLANKLINE>
Write 2-3 sentences that naturally convey this
logical rule through detective reasoning, witness
testimony, or evidence analysis. Be creative but
ensure the logic is clear.
<BLANKLINE>
Write ONLY the clue paragraph:
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.core.model import (
    ChatModel,
    Model,
    SamplingParams,
    Turn,
    public_endpoint,
    takes_messages,
)
from twosat_formal.core.provenance import tool_version
from twosat_formal.errors import (
    ConfigError,
    EndpointError,
    EvaluationError,
    TransientModelError,
    TwoSatFormalError,
)
from twosat_formal.io.jsonl import is_dataset
from twosat_formal.verbalize.prompts import formula_id
from twosat_formal.verbalize.story.proof import seal_story, told_record
from twosat_formal.verbalize.story.record import (
    MAX_ATTEMPTS,
    Attempt,
    ClueRecord,
    StoryRecord,
    clause_mode,
    clue_record,
    story_id,
)
from twosat_formal.verbalize.story.replies import assess, needs_states, read_entities
from twosat_formal.verbalize.story.sentences import clause_statements, fallback_sentence
from twosat_formal.verbalize.story.themes import THEMES, Theme

__all__ = [
    "DEFAULT_GENERATION",
    "DEFAULT_VALIDATION",
    "ROLE_HEADERS",
    "StoryItem",
    "StorySettings",
    "clue_prompt",
    "entities_prompt",
    "intro_prompt",
    "read_story_inputs",
    "render_conversation",
    "state_prompt",
    "tell_stories",
    "write_story",
]

#: Sampling of Steps 1 and 2 (the story seed is sent unless one is set here).
DEFAULT_GENERATION = SamplingParams(max_tokens=320, temperature=0.8)
#: Sampling of Steps 3a and 3b.
DEFAULT_VALIDATION = SamplingParams(max_tokens=64, temperature=0.0)
#: The line that introduces each turn of a rendered conversation.
ROLE_HEADERS: Mapping[str, str] = {"user": "User:", "assistant": "Assistant:"}


# -- the prompts (App. G.3) -----------------------------------------------------------------


def intro_prompt(theme: Theme, entities: Sequence[str]) -> str:
    """Step 1: the global introduction, listing every entity.

    The whole text, as the paper prints it, is pinned by ``tests/verbalize/test_story_themes.py``;
    its opening, up to the requirements:

    >>> from twosat_formal.verbalize.story.themes import THEMES
    >>> text = intro_prompt(THEMES.get("detective"), ["the butler", "the knife"])
    >>> print(text[: text.index("Requirements:")])
    You are a mystery story writer. Create a short
    introduction for a detective story.
    <BLANKLINE>
    CHARACTERS/OBJECTS in this story:
    - the butler
    - the knife
    <BLANKLINE>
    <BLANKLINE>
    """
    listed = "".join(f"- {entity}\n" for entity in entities)
    return (
        f"You are a {theme.writer}. Create a short\n"
        f"introduction for a {theme.story}.\n\n"
        "CHARACTERS/OBJECTS in this story:\n"
        f"{listed}\n"
        "Requirements:\n"
        f"- Set the scene for a {theme.scene}\n"
        "- Briefly introduce each character/object naturally\n"
        "  in the narrative\n"
        "- Do NOT mention any specific rules or relationships\n"
        "  yet\n"
        "- Keep it brief and atmospheric\n\n"
        "Write only the introduction paragraph."
    )


def clue_prompt(
    theme: Theme, index: int, total: int, first: tuple[str, str], second: tuple[str, str]
) -> str:
    """Step 2: the clue prompt of clause ``index`` of ``total``.

    ``first`` and ``second`` are the clause's literals as ``(entity, description)``.
    """
    return (
        f"Write clue {index}/{total} for our {theme.short}.\n\n"
        "This clue must express that AT LEAST ONE of these\n"
        "statements is true:\n"
        f"- Statement A: {first[0]} {first[1]}\n"
        f"- Statement B: {second[0]} {second[1]}\n\n"
        "(It\u2019s possible both are true, but at least one\n"
        "MUST be true.)\n\n"
        "Write 2-3 sentences that naturally convey this\n"
        f"logical rule through {theme.reasoning}. Be creative but\n"
        "ensure the logic is clear.\n\n"
        "Write ONLY the clue paragraph:"
    )


def entities_prompt(clue: str, entities: Sequence[str]) -> str:
    """Step 3a: which two entities does the clue discuss?

    >>> print(entities_prompt("The maid lied.", ["the maid", "the cook"]))
    From this clue, identify the TWO main entities
    being discussed.
    <BLANKLINE>
    CLUE: "The maid lied."
    <BLANKLINE>
    AVAILABLE ENTITIES:
    ["the maid", "the cook"]
    <BLANKLINE>
    Which two entities does this clue primarily discuss?
    Respond with ONLY a JSON array of exactly 2 entity
    names: ["entity1", "entity2"]
    """
    return (
        "From this clue, identify the TWO main entities\n"
        "being discussed.\n\n"
        f'CLUE: "{clue}"\n\n'
        "AVAILABLE ENTITIES:\n"
        f"{json.dumps(list(entities), ensure_ascii=False)}\n\n"
        "Which two entities does this clue primarily discuss?\n"
        "Respond with ONLY a JSON array of exactly 2 entity\n"
        'names: ["entity1", "entity2"]'
    )


def state_prompt(clue: str, entity: str, true_description: str, false_description: str) -> str:
    """Step 3b: which state does the clue give ``entity``? (A: true, B: false.)

    >>> print(state_prompt("The maid lied.", "the maid", "lied", "told the truth"))
    In this clue, what is stated about the maid?
    <BLANKLINE>
    CLUE: "The maid lied."
    <BLANKLINE>
    The clue says that the maid:
    A) lied
    B) told the truth
    <BLANKLINE>
    Which state does the clue indicate?
    Answer with ONLY "A" or "B".
    """
    return (
        f"In this clue, what is stated about {entity}?\n\n"
        f'CLUE: "{clue}"\n\n'
        f"The clue says that {entity}:\n"
        f"A) {true_description}\n"
        f"B) {false_description}\n\n"
        "Which state does the clue indicate?\n"
        'Answer with ONLY "A" or "B".'
    )


def render_conversation(messages: Sequence[tuple[str, str]]) -> str:
    """The conversation as one prompt: the first message alone is sent verbatim.

    >>> render_conversation([("user", "Hi")])
    'Hi'
    >>> print(render_conversation([("user", "Hi"), ("assistant", "Hello."), ("user", "More")]))
    User:
    Hi
    <BLANKLINE>
    Assistant:
    Hello.
    <BLANKLINE>
    User:
    More
    """
    if len(messages) == 1 and messages[0][0] == "user":
        return messages[0][1]
    return "\n\n".join(f"{ROLE_HEADERS[role]}\n{text}" for role, text in messages)


# -- settings and inputs --------------------------------------------------------------------


@dataclass(frozen=True)
class StorySettings:
    """How stories are generated.

    Attributes
    ----------
    generation:
        Sampling of Steps 1 and 2; its ``seed`` defaults to the story seed.
    validation:
        Sampling of Steps 3a and 3b.
    history:
        Earlier clue exchanges kept in the conversation (``None``: all, as the paper).
    """

    generation: SamplingParams = DEFAULT_GENERATION
    validation: SamplingParams = DEFAULT_VALIDATION
    history: int | None = None

    def __post_init__(self) -> None:
        if self.history is not None and self.history < 0:
            raise ConfigError(
                f"history must be >= 0, got {self.history}", parameter="history", valid=">= 0"
            )

    def generation_for(self, seed: int) -> SamplingParams:
        """The generation parameters with the story seed filled in."""
        if self.generation.seed is not None:
            return self.generation
        return replace(self.generation, seed=int(seed))


@dataclass(frozen=True)
class StoryItem:
    """One formula to tell: its instance id and its label (kept with stored calls)."""

    instance_id: str
    formula: Formula
    label: str


def read_story_inputs(path: str | os.PathLike[str]) -> tuple[list[StoryItem], bool]:
    """The formulas of a dataset (``.jsonl`` instances) or of one formula file.

    Returns the items and whether ``path`` was a dataset. A formula file's instance id
    is :func:`~twosat_formal.verbalize.prompts.formula_id` and its label comes from the solver.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "f.cnf"
    >>> _ = path.write_text("p cnf 2 1\\n1 -2 0\\n")
    >>> items, dataset = read_story_inputs(path)
    >>> items[0].label, dataset
    ('SAT', False)
    """
    text_path = str(path)
    if text_path != "-" and is_dataset(text_path):  # stdin: one formula
        from twosat_formal.io.instance import read_instances

        items = [StoryItem(i.id, i.formula, i.label) for i in read_instances(text_path)]
        return items, True
    from twosat_formal.io import read_formula
    from twosat_formal.solve import solve

    formula = read_formula(text_path)
    return [StoryItem(formula_id(formula), formula, solve(formula).status)], False


# -- calls ---------------------------------------------------------------------------------


class _Outage(EvaluationError):
    """A call that kept failing transiently: the story stops (a re-run resumes it)."""


async def _send(
    model: Model, prompt: str | Sequence[Turn], params: SamplingParams, sample: int
) -> Any:
    """One text as it is; a conversation as messages, or as a transcript when it must."""
    if isinstance(prompt, str):
        return await model.generate(prompt, params, sample)
    if takes_messages(model):
        assert isinstance(model, ChatModel)
        return await model.converse(prompt, params, sample)
    return await model.generate(render_conversation(prompt), params, sample)


async def _try_ask(
    model: Model,
    prompt: str | Sequence[Turn],
    params: SamplingParams,
    sample: int,
    call_id: str,
) -> tuple[Any, str | None]:
    """The response, or ``(None, message)`` for a call that failed for good.

    A transient failure (one that a retrying wrapper gave up on) stops the story, and
    so does an endpoint that cannot be used (:class:`~twosat_formal.errors.EndpointError`).
    """
    try:
        return await _send(model, prompt, params, sample), None
    except EndpointError:
        raise
    except TransientModelError as exc:
        raise _Outage(f"{call_id}: {exc}; run again to resume from the stored calls") from None
    except EvaluationError as exc:
        return None, str(exc)


# -- one story ------------------------------------------------------------------------------


def _unread(
    number: int,
    outcome: str,
    text: str | None,
    *,
    finish_reason: str | None = None,
    error: str | None = None,
) -> Attempt:
    """An attempt whose clue was not validated: no replies, nothing read back."""
    return Attempt(
        attempt=number,
        outcome=outcome,
        text=text,
        finish_reason=finish_reason,
        entities_reply=None,
        state_replies=(),
        entities=None,
        states=None,
        recovered=None,
        error=error,
    )


class _Story:
    """The state of one story while it is written."""

    def __init__(
        self,
        model: Model,
        theme: Theme,
        names: tuple[str, ...],
        settings: StorySettings,
        seed: int,
        sid: str,
    ) -> None:
        self.model = model
        self.theme = theme
        self.names = names
        self.descriptions = {e: theme.describe(e) for e in names}
        self.settings = settings
        self.generation = settings.generation_for(seed)
        self.validation = settings.validation
        self.sid = sid
        self.tag = f"story:{sid[:16]}"

    async def _ask(
        self, prompt: str | Sequence[Turn], params: SamplingParams, sample: int, role: str
    ) -> Any:
        return await _try_ask(self.model, prompt, params, sample, f"{self.tag}:{role}")

    async def intro(self, prompt: str) -> str:
        """Step 1 (up to :data:`MAX_ATTEMPTS` samples until the text is not empty)."""
        problem = "an empty introduction"
        for sample in range(MAX_ATTEMPTS):
            response, error = await self._ask(prompt, self.generation, sample, "intro")
            if response is not None and response.text.strip():
                return str(response.text.strip())
            problem = error or problem
        raise EvaluationError(f"{self.tag}: the introduction failed: {problem}")

    async def clue(
        self,
        conversation: Sequence[Turn],
        index: int,
        source: Sequence[tuple[str, bool]],
        fallback: str,
        literals: tuple[str, ...],
    ) -> ClueRecord:
        """The clue of a two-entity clause: up to :data:`MAX_ATTEMPTS` until one is valid.

        When none is, the clue is the ``fallback`` sentence.
        """
        attempts: list[Attempt] = []
        for number in range(1, MAX_ATTEMPTS + 1):
            attempts.append(await self.attempt(conversation, number, index, source))
            if attempts[-1].outcome == "valid":
                break
        return clue_record(index, literals, fallback, attempts)

    async def attempt(
        self,
        conversation: Sequence[Turn],
        number: int,
        index: int,
        source: Sequence[tuple[str, bool]],
    ) -> Attempt:
        """One generated clue (Step 2) and its validation (Steps 3a and 3b), judged."""
        role = f"clue-{index}"
        response, error = await self._ask(conversation, self.generation, number - 1, role)
        if response is None:
            return _unread(number, "error", None, error=error)
        text = str(response.text).strip()
        finish = response.finish_reason
        if not text:
            return _unread(number, "empty-clue", text, finish_reason=finish)
        entities_reply, state_replies, error = await self.validate(text, role, source)
        judged = assess(text, entities_reply, state_replies, source, self.names)
        return Attempt(
            attempt=number,
            text=text,
            outcome=judged.outcome,
            finish_reason=finish,
            entities_reply=entities_reply,
            state_replies=tuple(state_replies),
            entities=judged.entities,
            states=judged.states,
            recovered=judged.recovered,
            error=error if judged.outcome == "error" else None,
        )

    async def validate(
        self, text: str, role: str, source: Sequence[tuple[str, bool]]
    ) -> tuple[str | None, list[str | None], str | None]:
        """Ask which entities ``text`` names (Step 3a), then each one's state (Step 3b).

        Returns the entities reply, the state replies (none when Step 3a already
        settles the clue) and the first call's error, if any.
        """
        reply, error = await self._ask(
            entities_prompt(text, self.names), self.validation, 0, f"{role}-entities"
        )
        entities_reply = None if reply is None else str(reply.text)
        state_replies: list[str | None] = []
        entities = None if entities_reply is None else read_entities(entities_reply, self.names)
        if entities is not None and needs_states(entities, source):
            for entity in entities:
                true, false = self.descriptions[entity]
                prompt = state_prompt(text, entity, true, false)
                reply, failed = await self._ask(prompt, self.validation, 0, f"{role}-state")
                state_replies.append(None if reply is None else str(reply.text))
                error = error or failed
        return entities_reply, state_replies, error

    async def clues(self, formula: Formula, start: str, intro: str) -> list[ClueRecord]:
        """The clue of each clause of ``formula``, in order (Steps 2 and 3), each asked
        after the conversation so far: the introduction (``start``, ``intro``) and the
        clues before it. A clause of one entity is not asked: its fixed sentence is
        its clue."""
        exchanges: list[tuple[str, str]] = []
        clues: list[ClueRecord] = []
        for index, clause in enumerate(formula.clauses, 1):
            source, statements = clause_statements(clause, self.names, self.descriptions)
            sentence = fallback_sentence(statements)
            literals = tuple(formula.literal_name(lit) for lit in clause)
            if clause_mode(clause) == "direct":
                # one entity: nothing to ask, the fixed sentence is the clue
                clues.append(clue_record(index, literals, sentence))
                continue
            prompt = clue_prompt(
                self.theme, index, formula.num_clauses, statements[0], statements[1]
            )
            conversation = [*self.conversation(start, intro, exchanges), ("user", prompt)]
            clues.append(await self.clue(conversation, index, source, sentence, literals))
            exchanges.append((prompt, clues[-1].text))
        return clues

    def conversation(self, start: str, intro: str, exchanges: list[tuple[str, str]]) -> list[Turn]:
        kept = exchanges if self.settings.history is None else exchanges[-self.settings.history :]
        messages: list[Turn] = [("user", start), ("assistant", intro)]
        for prompt, clue in kept:
            messages += [("user", prompt), ("assistant", clue)]
        return messages


async def write_story(
    formula: Formula,
    theme: str,
    model: Model,
    *,
    instance_id: str | None = None,
    seed: int = 0,
    entities: Sequence[str] | None = None,
    settings: StorySettings | None = None,
) -> StoryRecord:
    """Write the story of ``formula`` with ``model`` and prove its round trip.

    Parameters
    ----------
    formula:
        A 2-CNF formula (clauses of one or two literals).
    theme:
        A name registered in :data:`~twosat_formal.verbalize.story.themes.THEMES`.
    model:
        Any :class:`~twosat_formal.core.model.Model`; wrap it to retry and cache its calls
        (:func:`twosat_formal.evaluate.run.stories.generate_stories` does).
    instance_id:
        The instance the story verbalizes (default:
        :func:`~twosat_formal.verbalize.prompts.formula_id`).
    seed:
        Seed of the entity mapping and of the generation sampling.
    entities:
        An explicit entity of each variable instead of the seeded mapping.
    settings:
        Sampling and history (default :class:`StorySettings`).

    Returns
    -------
    StoryRecord
        With its round-trip proof: the recovered formula equals the source.

    Raises
    ------
    NotTwoCNFError
        A clause of more than two literals (or an empty one).
    EvaluationError
        The introduction could not be written, or a call kept failing transiently.

    Examples
    --------
    >>> import asyncio
    >>> from twosat_formal.core.model import Response
    >>> class Silent:  # writes nothing useful: every clue falls back
    ...     spec, endpoint = "test/silent", "local"
    ...     async def generate(self, prompt, params, sample=0):
    ...         return Response("Once upon a time." if "introduction" in prompt else "...")
    ...     async def aclose(self):
    ...         pass
    >>> f = Formula.from_named([["a", "~b"]])
    >>> rec = asyncio.run(write_story(f, "heist", Silent()))
    >>> rec.clues[0].outcome, len(rec.clues[0].attempts), rec.roundtrip["result"]
    ('fallback', 3, 'validated')
    """
    formula.require_2cnf("the story verbalizer")
    settings = settings or StorySettings()
    chosen = THEMES.get(theme)
    if entities is None:
        names = chosen.entities_for(formula.num_vars, seed=seed)
    else:
        names = chosen.validate(entities, formula.num_vars)
    iid = instance_id if instance_id is not None else formula_id(formula)
    story = _Story(
        model, chosen, names, settings, seed, story_id(iid, chosen.name, model.spec, seed)
    )
    start = intro_prompt(chosen, names)
    intro = await story.intro(start)
    clues = await story.clues(formula, start, intro)
    return seal_story(_assemble(story, formula, iid, seed, intro, clues), formula)


def _assemble(
    story: _Story,
    formula: Formula,
    instance_id: str,
    seed: int,
    intro: str,
    clues: Sequence[ClueRecord],
) -> StoryRecord:
    """The story record (before its proof): the text, the clues and how they were made."""
    model, settings = story.model, story.settings
    return told_record(
        formula,
        story.theme,
        story.descriptions,
        intro,
        clues,
        id=story.sid,
        instance_id=instance_id,
        model=model.spec,
        seed=int(seed),
        provenance={
            "tool_version": tool_version(),
            "endpoint": public_endpoint(model.endpoint),
            "generation_params": json.loads(story.generation.key()),
            "validation_params": json.loads(settings.validation.key()),
            "history": settings.history,
            "max_attempts": MAX_ATTEMPTS,
            "conversation": "messages" if takes_messages(model) else "transcript",
        },
    )


# -- many stories ---------------------------------------------------------------------------


async def tell_stories(
    items: Sequence[StoryItem],
    theme: str,
    model: Model,
    *,
    seed: int = 0,
    settings: StorySettings | None = None,
    concurrency: int = 1,
) -> list[StoryRecord]:
    """Write one story per item with ``model``, ``concurrency`` stories at a time.

    The clues of one story are sequential (each clue prompt carries the earlier ones);
    the records come back in item order. The model is not closed here: its owner does.

    Raises
    ------
    ConfigError
        ``concurrency`` below 1, or an unknown theme (before any call).
    EvaluationError
        A story could not be finished.

    Examples
    --------
    >>> import asyncio
    >>> from twosat_formal.core.model import Response
    >>> class Terse:  # one sentence for everything: every clue falls back
    ...     spec, endpoint = "test/terse", "local"
    ...     async def generate(self, prompt, params, sample=0):
    ...         return Response("It was a dark night.")
    ...     async def aclose(self):
    ...         pass
    >>> items = [StoryItem("a", Formula.from_named([["p", "q"]]), "SAT"),
    ...          StoryItem("b", Formula.from_named([["p"], ["~p"]]), "UNSAT")]
    >>> records = asyncio.run(tell_stories(items, "spy", Terse(), concurrency=2))
    >>> [r.instance_id for r in records], [r.roundtrip["result"] for r in records]
    (['a', 'b'], ['validated', 'validated'])
    """
    if concurrency < 1:
        raise ConfigError(
            f"concurrency must be >= 1, got {concurrency}", parameter="concurrency", valid=">= 1"
        )
    THEMES.get(theme)  # an unknown theme fails before any call
    records: list[StoryRecord | None] = [None] * len(items)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(position: int, item: StoryItem) -> None:
        async with semaphore:
            records[position] = await write_story(
                item.formula,
                theme,
                model,
                instance_id=item.instance_id,
                seed=seed,
                settings=settings,
            )

    try:
        async with asyncio.TaskGroup() as group:
            for position, item in enumerate(items):
                group.create_task(one(position, item))
    except BaseExceptionGroup as failed:
        first = failed.exceptions[0]
        if isinstance(first, TwoSatFormalError | KeyboardInterrupt):
            raise first from None
        raise
    return [r for r in records if r is not None]
