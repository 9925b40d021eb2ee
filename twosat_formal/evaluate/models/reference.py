"""Reference reasoners: models that read the prompt text and answer without a network.

They see exactly what a language model sees, the prompt text, and recover the
formula from it with the back-parser (:func:`twosat_formal.verbalize.backparse`), so
a run with them exercises the whole pipeline: verbalization, prompt, answer
extraction, witness check and store. A story prompt is read literally
(:func:`twosat_formal.verbalize.story.reading.read_story_prompt`): a story whose
clues state their statements word for word (fallback sentences, a scripted writer)
can be answered, one that paraphrases them cannot. They answer in the format the evaluation
prompt asks for (paper, App. G.2): a few lines of reasoning, then, for "Yes", the
assignment as JSON that maps every entity of the prompt to the scheme's true or
false value word, and last the line ``The answer is: Yes`` or ``The answer is: No``.

``ref/oracle``
    Exact: solves the formula (:func:`twosat_formal.solve.solve`) and writes out the
    model, or the contradiction cycle as a chain of implications; when the prompt asks
    for a contradiction chain (``verbalize --ask-cycle``), it also gives that cycle as
    the JSON chain, which is always valid.
``ref/sat-biased``
    Always "Yes", with every entity set to the true value.
``ref/coin``
    A fair coin for the decision and one per entity for the assignment, drawn from
    :class:`random.Random` seeded with the SHA-256 of the prompt text and the sample
    index: the same prompt and sample give the same answer in every process.
``ref/bounded?budget=N``
    The resource-bounded procedure of
    :func:`~twosat_formal.evaluate.models.procedures.bounded_search`: clause-by-clause
    propagation in text order where every literal inspection costs one step. With
    enough steps it is exact on 2-CNF; with a fixed budget its accuracy falls as
    formulas get more clauses or longer implication chains. Asked for a contradiction
    chain after saying "No", it searches for one with the checks it has left
    (:func:`~twosat_formal.evaluate.models.procedures.bounded_chain`): only around the variable
    its propagation refuted (or, for a contradiction among the unit clauses, the first
    variable of the failing clause), breadth first, one check per implication looked
    at. When the checks run out, or no contradiction cycle passes through that
    variable, it gives the walk it has, which is not a valid chain.

Asked under the ``symbolic-cot`` strategy (:mod:`twosat_formal.verbalize.strategies`), every
reasoner first writes the rules it read as DSL formulas (the ``FORMULAS:`` block, exact
for a template prompt), then answers as it would; the other strategies' texts change
nothing in what they answer.

Every response has finish reason ``stop``; its token counts are the numbers of
whitespace-separated words of the prompt and of the answer, and its latency is the
time the reasoner took. A prompt the back-parser cannot read raises
:class:`~twosat_formal.errors.EvaluationError`.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.verbalize import verbalize
>>> p = verbalize(Formula([[1, 2], [-1, 2], [-2, 1], [-1, -2]]), "logic", entities=list("AB"))
>>> OracleModel().respond(p.text).text.splitlines()[-1]
'The answer is: No'
>>> SatBiasedModel().respond(p.text).text.splitlines()[-1]
'The answer is: Yes'
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, EvaluationError, ParseError
from twosat_formal.evaluate.models.base import ClosingModel, Response, SamplingParams
from twosat_formal.evaluate.models.procedures import (
    BoundedRun,
    answer_text,
    bounded_chain,
    bounded_search,
    coin_rng,
)

__all__ = [
    "DEFAULT_BUDGET",
    "REFERENCE_MODELS",
    "BoundedModel",
    "CoinModel",
    "OracleModel",
    "ReadPrompt",
    "ReferenceModel",
    "SatBiasedModel",
    "asks_for_chain",
    "read_prompt",
    "render_answer",
]

#: Steps of ``ref/bounded`` when the spec gives no ``budget``.
DEFAULT_BUDGET = 1000


@dataclass(frozen=True)
class ReadPrompt:
    """What a reference reasoner recovers from a prompt text.

    ``formula`` has variable ``v`` for ``entities[v - 1]``; ``phrase(lit)`` says a
    literal in the scheme's words (``room 3 is dark``).
    """

    template: str
    formula: Formula
    entities: tuple[str, ...]
    true_value: str
    false_value: str
    phrase: Callable[[int], str]
    values: tuple[tuple[str, str], ...] = ()

    def witness(self, values: Sequence[bool | None]) -> dict[str, str]:
        """The JSON object for an assignment (``None`` entries get the true value).

        A story prompt's entities each have their own ``(true, false)`` descriptions
        (``values``); a template's share the scheme's value words.
        """
        pairs = self.values or [(self.true_value, self.false_value)] * len(self.entities)
        return {
            entity: pairs[i][1] if values[i] is False else pairs[i][0]
            for i, entity in enumerate(self.entities)
        }

    def chain(self, walk: Sequence[int]) -> dict[str, list[dict[str, str]]]:
        """The JSON object of a chain of literals (``walk``) in the scheme's words
        (:func:`~twosat_formal.evaluate.diagnostics.chains.chain_object`)."""
        from twosat_formal.evaluate.diagnostics.chains import chain_object

        return chain_object(walk, self.entities, self.true_value, self.false_value)


def read_prompt(prompt: str) -> ReadPrompt:
    """Back-parse ``prompt`` (a template verbalization or a full evaluation prompt).

    A story prompt (template ``story``) is read literally
    (:func:`~twosat_formal.verbalize.story.reading.read_story_prompt`): every clue
    must state its statements word for word, as fallback sentences do.
    Raises :class:`~twosat_formal.errors.EvaluationError` when the text is not one.

    Examples
    --------
    >>> text = ("A building has lighting rules:\\nroom 1 is lit or room 2 is dark (or both).\\n"
    ...         "\\nCan all the lighting rules be satisfied simultaneously?")
    >>> read = read_prompt(text)
    >>> read.template, read.entities, read.phrase(-2)
    ('room', ('room 1', 'room 2'), 'room 2 is dark')
    """
    from twosat_formal.verbalize import TEMPLATES, backparse

    if _STORY_LIST in prompt:
        return _read_story(prompt)
    try:
        parsed = backparse(prompt)
    except ParseError as err:
        raise EvaluationError(
            f"reference reasoners read template verbalizations only; this prompt is not one: {err}"
        ) from None
    scheme = TEMPLATES.get(parsed.template)
    entities = tuple(parsed.entities)

    def phrase(lit: int) -> str:
        return scheme.literal(entities[abs(lit) - 1], lit > 0)

    return ReadPrompt(
        template=parsed.template,
        formula=parsed.formula,
        entities=entities,
        true_value=scheme.true_value,
        false_value=scheme.false_value,
        phrase=phrase,
    )


_STORY_LIST = "\nEntities and their possible values:\n"


def _read_story(prompt: str) -> ReadPrompt:
    from twosat_formal.verbalize.story.reading import read_story_prompt

    try:
        story = read_story_prompt(prompt)
    except ParseError as err:
        raise EvaluationError(
            "reference reasoners read a story only when its clues state their statements "
            f"word for word; this one cannot be read: {err}"
        ) from None
    return ReadPrompt(
        template="story",
        formula=story.formula,
        entities=story.entities,
        true_value="its true description",
        false_value="its false description",
        phrase=story.statement,
        values=story.descriptions,
    )


def asks_for_chain(prompt: str) -> bool:
    """Whether the prompt asks for a contradiction chain (``verbalize --ask-cycle``).

    >>> from twosat_formal.verbalize.prompts import CYCLE_INSTRUCTION
    >>> asks_for_chain("rules " + CYCLE_INSTRUCTION), asks_for_chain("rules")
    (True, False)
    """
    from twosat_formal.verbalize.prompts import CYCLE_INSTRUCTION

    return CYCLE_INSTRUCTION in prompt


def render_answer(
    reasoning: Sequence[str],
    witness: dict[str, str] | None,
    chain: dict[str, list[dict[str, str]]] | None = None,
) -> str:
    """The answer text: reasoning, the JSON assignment (for "Yes") and the answer line.

    ``witness=None`` answers "No"; a ``chain`` object is written as JSON before the
    answer line.

    Examples
    --------
    >>> print(render_answer(["A guess."], {"A": "true"}))
    A guess.
    <BLANKLINE>
    {
      "A": "true"
    }
    <BLANKLINE>
    The answer is: Yes
    >>> render_answer(["Stuck."], None).splitlines()[-1]
    'The answer is: No'
    """
    blocks = [] if witness is None else [json.dumps(witness, indent=2, ensure_ascii=False)]
    if chain is not None:
        blocks.append(json.dumps(chain, ensure_ascii=False))
    return answer_text("\n".join(reasoning), "Yes" if witness is not None else "No", *blocks)


class ReferenceModel(ClosingModel):
    """Base of the reference reasoners: prompt in, App. G.2-style answer out.

    Subclasses implement :meth:`answer`. ``endpoint`` is ``"local"``.
    """

    name: ClassVar[str] = ""
    #: What ``twosat-formal`` says of the reasoner, and the spec options it takes.
    summary: ClassVar[str] = ""
    options: ClassVar[tuple[str, ...]] = ()
    endpoint = "local"

    def __init__(self, *, spec: str | None = None) -> None:
        self.spec = spec if spec is not None else f"ref/{self.name}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(spec={self.spec!r})"

    def answer(self, read: ReadPrompt, prompt: str, sample: int) -> str:
        """The answer text to a prompt already back-parsed as ``read``."""
        raise NotImplementedError

    def respond(self, prompt: str, sample: int = 0) -> Response:
        """Answer ``prompt`` synchronously (what :meth:`generate` awaits)."""
        from twosat_formal.evaluate.models.questions import question_answer, read_question
        from twosat_formal.verbalize.strategies import SYMBOLIC_INSTRUCTION, write_formalization

        started = time.perf_counter()
        read = read_prompt(prompt)
        question = read_question(prompt)
        if question is not None:
            text = question_answer(self, read, question, prompt, sample)
        else:
            text = self.answer(read, prompt, sample)
        if SYMBOLIC_INSTRUCTION in prompt and not read.values:  # symbolic-cot: rules first
            text = write_formalization(read.formula.clauses, read.entities) + "\n\n" + text
        return Response(
            text=text,
            finish_reason="stop",
            prompt_tokens=len(prompt.split()),
            completion_tokens=len(text.split()),
            latency_s=time.perf_counter() - started,
        )

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        """Answer ``prompt``; ``params`` are ignored, ``sample`` only seeds ``ref/coin``."""
        response = self.respond(prompt, sample)
        await asyncio.sleep(0)  # let other requests in flight make progress
        return response

    async def aclose(self) -> None:
        """Nothing to release."""


class OracleModel(ReferenceModel):
    """``ref/oracle``: solves the formula and answers exactly, with its certificate.

    Examples
    --------
    >>> text = ("Consider these logical relationships:\\nEither A is true or B is true "
    ...         "(or both).\\nEither A is false or B is true (or both).\\nEither A is true "
    ...         "or B is false (or both).\\nEither A is false or B is false (or both).\\n\\n"
    ...         "Can you assign truth values to all statements without creating a "
    ...         "contradiction?")
    >>> print(OracleModel().respond(text).text.splitlines()[-1])
    The answer is: No
    """

    name = "oracle"
    summary = "exact: solves the formula read from the prompt"

    def answer(self, read: ReadPrompt, prompt: str, sample: int) -> str:
        from twosat_formal.solve import solve

        result = solve(read.formula)
        size = (
            f"There are {read.formula.num_clauses} statements about {len(read.entities)} entities."
        )
        if result.is_sat:
            assert result.model is not None
            return render_answer(
                [size, "Solving them gives an assignment that satisfies every statement."],
                read.witness(result.model),
            )
        reasoning = [size]
        chain = None
        if result.cycle:
            from twosat_formal.evaluate.diagnostics.chains import closed_walk

            walk = closed_walk(result.cycle)
            reasoning.append(
                "Following the statements as implications: "
                + " → ".join(read.phrase(lit) for lit in walk)
                + "."
            )
            reasoning.append(
                "This chain leads from a claim to its opposite and back, so no assignment works."
            )
            if asks_for_chain(prompt):
                chain = read.chain(walk)
        else:
            reasoning.append("The statements contradict each other, so no assignment works.")
        return render_answer(reasoning, None, chain)


class SatBiasedModel(ReferenceModel):
    """``ref/sat-biased``: always "Yes", with every entity set to the true value.

    Examples
    --------
    >>> text = ("A facility has door coupling rules:\\ndoor 1 is closed.\\n\\n"
    ...         "Is there a configuration of doors that satisfies all the rules?")
    >>> print(SatBiasedModel().respond(text).text)
    Setting every entity to "open" should satisfy the rules.
    <BLANKLINE>
    {
      "door 1": "open"
    }
    <BLANKLINE>
    The answer is: Yes
    """

    name = "sat-biased"
    summary = 'always "Yes" with the all-true assignment'

    def answer(self, read: ReadPrompt, prompt: str, sample: int) -> str:
        return render_answer(
            [f'Setting every entity to "{read.true_value}" should satisfy the rules.'],
            read.witness([True] * len(read.entities)),
        )


class CoinModel(ReferenceModel):
    """``ref/coin``: a seeded coin for the decision and for each entity's value.

    The generator is :func:`coin_rng` of the prompt text and the sample index.
    """

    name = "coin"
    summary = "seeded coin flip: random decision and assignment"

    def answer(self, read: ReadPrompt, prompt: str, sample: int) -> str:
        rng = coin_rng(prompt, sample)
        if rng.random() < 0.5:
            return render_answer(["I flip a coin: heads, the rules cannot all hold."], None)
        values = [rng.random() < 0.5 for _ in read.entities]
        return render_answer(
            ["I flip a coin: tails, the rules can hold; one more coin per entity."],
            read.witness(values),
        )


#: What the bounded reasoner says of each event of its search, by kind:
#: ``line(read, run, literal, clause)`` (the clause's index, or a count of values).
_EVENT_LINES: dict[str, Callable[[ReadPrompt, BoundedRun, int, int], str]] = {
    "decide": lambda read, run, lit, clause: f"Suppose {read.phrase(lit)}.",
    "consistent": lambda read, run, lit, clause: (
        f"That forces {clause} more values without a contradiction."
    ),
    "conflict": lambda read, run, lit, clause: f"That makes statement {clause + 1} impossible.",
    "refuted": lambda read, run, lit, clause: (
        f"Both values of {read.entities[lit - 1]} lead to a contradiction, "
        "so the rules cannot all hold."
    ),
    "unit-conflict": lambda read, run, lit, clause: (
        f"The statements force each other until statement {clause + 1} fails."
    ),
    "exhausted": lambda read, run, lit, clause: (
        f"I ran out of checks after {run.steps}; I guess the rules can hold, "
        f'giving "{read.true_value}" to every entity not decided yet.'
    ),
}


class BoundedModel(ReferenceModel):
    """``ref/bounded?budget=N``: :func:`bounded_search` with a budget of N steps.

    When the budget runs out it guesses "Yes" with the partial assignment it
    reached, completed by giving every unassigned entity the true value; it says
    "No" only when it derived a contradiction.
    """

    name = "bounded"
    summary = "clause-by-clause propagation under a step budget"
    options = ("budget",)

    def __init__(self, *, budget: int = DEFAULT_BUDGET, spec: str | None = None) -> None:
        if budget < 1:
            raise ConfigError(
                f"budget must be >= 1, got {budget}", parameter="budget", valid=">= 1"
            )
        if spec is None:  # the canonical spec: the default budget is left out
            spec = "ref/bounded" + ("" if budget == DEFAULT_BUDGET else f"?budget={budget}")
        super().__init__(spec=spec)
        self.budget = budget

    def answer(self, read: ReadPrompt, prompt: str, sample: int) -> str:
        run = bounded_search(read.formula, self.budget)
        lines = [
            f"I check the {read.formula.num_clauses} statements in order, one claim at a time, "
            f"with a budget of {self.budget} checks."
        ]
        for kind, lit, clause in run.events:
            line = _EVENT_LINES.get(kind)
            if line is not None:
                lines.append(line(read, run, lit, clause))
        if run.status == "SAT":
            lines.append(f"All {run.steps} checks done: every statement is satisfied.")
        witness = None if run.status == "UNSAT" else read.witness(run.assignment)
        chain = None
        if run.status == "UNSAT" and asks_for_chain(prompt):
            chain = self._chain(read, run, lines)
        return render_answer(lines, witness, chain)

    def _chain(
        self, read: ReadPrompt, run: BoundedRun, lines: list[str]
    ) -> dict[str, list[dict[str, str]]]:
        """The chain :func:`bounded_chain` finds with the checks left (see the module)."""
        kind, lit, clause = run.events[-1]
        var = lit if kind == "refuted" else abs(read.formula.clauses[clause][0])
        walk, complete, spent = bounded_chain(read.formula, var, self.budget - run.steps)
        if complete:
            lines.append(
                f"Following the implications from {read.entities[var - 1]} closes the chain."
            )
        else:
            lines.append(f"I ran out of checks after {spent} more while tracing the chain.")
        return read.chain(walk)


#: The reference reasoners by name (each class has its summary and spec options;
#: ``bounded`` takes a budget).
REFERENCE_MODELS: dict[str, type[ReferenceModel]] = {
    cls.name: cls for cls in (OracleModel, SatBiasedModel, CoinModel, BoundedModel)
}
