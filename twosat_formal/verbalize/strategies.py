"""Reasoning strategies: how a prompt asks a model to reason (``--strategy``).

A strategy is fixed text inserted into the evaluation prompt right before its closing
answer instructions (:data:`~twosat_formal.verbalize.prompts.ANSWER_INSTRUCTIONS`), or a way of
sampling it:

* ``direct``: the prompt as it is (App. G.2);
* ``cot``: :data:`COT_INSTRUCTION`, step-by-step reasoning before the answer line;
* ``symbolic-cot``: :data:`SYMBOLIC_INSTRUCTION`, the rules first written as formulas
  of the DSL between ``FORMULAS:`` and ``END FORMULAS``, then reasoning over them; the
  formalization is parsed and checked against the instance (:func:`formalization`);
* ``sample-k`` (``sample-k:K``, default ``K`` = :data:`DEFAULT_K`): the direct prompt
  sampled ``K`` times, the decision by majority vote
  (:func:`twosat_formal.evaluate.run.votes.vote_rows`).

The text never touches the formula's sentences: :func:`strip_strategy` takes it out
again, byte for byte, and :func:`certify_strategy` checks that, and that the
back-parsed formula of the strategy's prompt is the prompt's own.

Examples
--------
>>> from twosat_formal.verbalize.prompts import template_prompt
>>> text = template_prompt("Consider these rules:", "true", "false", ["A", "B"])
>>> cot = parse_strategy("cot")
>>> COT_INSTRUCTION in cot.apply(text), strip_strategy(cot.apply(text)) == text
(True, True)
>>> parse_strategy("sample-k:3").key, parse_strategy("direct").apply(text) == text
('sample-k:3', True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, ParseError
from twosat_formal.verbalize.prompts import ANSWER_INSTRUCTIONS

__all__ = [
    "COT_INSTRUCTION",
    "DEFAULT_K",
    "DIRECT",
    "STRATEGY_NAMES",
    "SYMBOLIC_INSTRUCTION",
    "Strategy",
    "certify_strategy",
    "check_formalization",
    "formalization",
    "identifier",
    "parse_strategies",
    "parse_strategy",
    "strip_strategy",
    "write_formalization",
]

#: The strategy of today's prompt; its results keep the store keys they always had.
DIRECT = "direct"

#: The strategies ``--strategy`` accepts (``sample-k`` also as ``sample-k:K``).
STRATEGY_NAMES = ("direct", "cot", "symbolic-cot", "sample-k")

#: Samples per vote of ``sample-k`` when no ``:K`` is given.
DEFAULT_K = 5
#: What a strategy may be (the ``valid`` of its refusals).
_VALID = "direct, cot, symbolic-cot, sample-k or sample-k:K (K >= 2)"

#: The text ``cot`` inserts before the answer instructions.
COT_INSTRUCTION = (
    "Before you answer, reason step by step: go through the rules one at a time, "
    "write down each conclusion you draw and the rules it follows from, and only then "
    "give your answer."
)

#: The text ``symbolic-cot`` inserts before the answer instructions.
SYMBOLIC_INSTRUCTION = (
    "First write every rule as a formula, one rule per line, between a line "
    '"FORMULAS:" and a line "END FORMULAS". Name each item by its name with every '
    'space replaced by "_", write "~x" for x being false, "x | y" for "x or y" and '
    '"x -> y" for "if x then y". Then reason step by step over these formulas, and '
    "only then give your answer."
)

_TEXTS = {"cot": COT_INSTRUCTION, "symbolic-cot": SYMBOLIC_INSTRUCTION}

#: What a strategy inserts: its text and a blank line, right before the instructions.
_GAP = "\n\n"


@dataclass(frozen=True)
class Strategy:
    """One reasoning strategy: its name and, for ``sample-k``, the samples per vote.

    >>> Strategy("sample-k", 3).key, Strategy("cot").samples_per_vote
    ('sample-k:3', 1)
    """

    name: str
    k: int = 1

    def __post_init__(self) -> None:
        """Refuse a strategy :func:`parse_strategy` would not give: an unknown name, a
        ``sample-k`` of fewer than two samples per vote, or a ``K`` on another strategy.

        >>> Strategy("sample-k", 0)
        Traceback (most recent call last):
        ...
        twosat_formal.errors.ConfigError: sample-k needs K >= 2 samples per vote, got 0
        """
        if self.name not in STRATEGY_NAMES or (self.name != "sample-k" and self.k != 1):
            shown = self.name if self.k == 1 else f"{self.name}:{self.k}"
            raise ConfigError(f"unknown strategy {shown!r}", parameter="strategy", valid=_VALID)
        if self.name == "sample-k" and (type(self.k) is not int or self.k < 2):
            raise _too_few(self.k)

    @property
    def key(self) -> str:
        """How results record it (and the store key names it): ``cot``, ``sample-k:5``."""
        return f"{self.name}:{self.k}" if self.name == "sample-k" else self.name

    @property
    def samples_per_vote(self) -> int:
        """Samples asked per vote (``k`` for ``sample-k``, else 1)."""
        return self.k if self.name == "sample-k" else 1

    @property
    def text(self) -> str | None:
        """The instruction the strategy inserts, ``None`` when it inserts none."""
        return _TEXTS.get(self.name)

    def apply(self, prompt: str) -> str:
        """The prompt text a model receives under this strategy.

        Raises
        ------
        ConfigError
            When the prompt has no answer instructions to insert the text before.
        """
        text = self.text
        if text is None:
            return prompt
        at = prompt.rfind(ANSWER_INSTRUCTIONS)
        if at < 0:
            raise ConfigError(
                f"strategy {self.name}: the prompt has no answer instructions to put its "
                "text before",
                parameter="strategy",
                valid="prompts made by verbalize",
            )
        return prompt[:at] + text + _GAP + prompt[at:]


def parse_strategy(spec: str) -> Strategy:
    """The strategy named ``spec`` (``direct``, ``cot``, ``symbolic-cot``, ``sample-k[:K]``).

    Raises
    ------
    ConfigError
        An unknown name, or a ``K`` that is not an integer >= 2.

    >>> parse_strategy("sample-k"), parse_strategy("cot")
    (Strategy(name='sample-k', k=5), Strategy(name='cot', k=1))
    """
    name, sep, count = str(spec).strip().partition(":")
    if name not in STRATEGY_NAMES or (sep and name != "sample-k"):
        raise ConfigError(f"unknown strategy {spec!r}", parameter="strategy", valid=_VALID)
    if not sep:
        return Strategy(name, DEFAULT_K if name == "sample-k" else 1)
    try:  # K as written: a text that is no count (``x``, ``²``) is none
        return Strategy(name, int(count) if count.isdecimal() else 0)
    except ConfigError:
        raise _too_few(count) from None


def _too_few(k: object) -> ConfigError:
    """The refusal of a ``sample-k`` with ``k`` (as given) samples per vote."""
    return ConfigError(
        f"sample-k needs K >= 2 samples per vote, got {k!r}", parameter="strategy", valid=_VALID
    )


def parse_strategies(specs: Iterable[str] | None) -> tuple[Strategy, ...]:
    """The strategies of a ``--strategy`` list in order, repeats dropped (``direct`` if none).

    >>> [s.key for s in parse_strategies(["cot", "direct", "cot"])]
    ['cot', 'direct']
    """
    out: dict[str, Strategy] = {}
    for spec in specs or ():
        strategy = parse_strategy(spec)
        out.setdefault(strategy.key, strategy)
    return tuple(out.values()) or (Strategy(DIRECT),)


def strip_strategy(text: str) -> str:
    """``text`` with a strategy's inserted instruction taken out (the prompt it came from).

    >>> text = "rules" + 2 * chr(10) + ANSWER_INSTRUCTIONS
    >>> strip_strategy(text.replace("rules", "rules" + 2 * chr(10) + COT_INSTRUCTION)) == text
    True
    """
    for inserted in _TEXTS.values():
        block = inserted + _GAP + ANSWER_INSTRUCTIONS
        at = text.rfind(block)
        if at >= 0:
            return text[:at] + text[at + len(inserted) + len(_GAP) :]
    return text


def certify_strategy(
    strategy: Strategy,
    prompt: str,
    formula: Formula | None,
    template: str,
    entities: Iterable[str],
) -> None:
    """Check that ``strategy`` leaves the prompt's formula as it is.

    The strategy's prompt must give back ``prompt`` byte for byte once the instruction
    is taken out, and back-parse (:func:`~twosat_formal.verbalize.backparse.backparse`)
    to the clauses of ``formula`` over the same entities (``None``: the formula
    ``prompt`` itself back-parses to).

    Raises
    ------
    ParseError
        When either check fails (or the text does not back-parse at all).
    """
    from twosat_formal.verbalize.backparse import backparse

    names = list(entities)
    shown = strategy.apply(prompt)
    if strip_strategy(shown) != prompt:
        raise ParseError(f"strategy {strategy.key}: the prompt does not come back unchanged")
    try:
        if formula is None:
            formula = backparse(prompt, template, entities=names).formula
        read = backparse(shown, template, entities=names)
    except ParseError as exc:
        raise ParseError(f"strategy {strategy.key}: the prompt does not read back: {exc}") from None
    if sorted(read.formula.clauses) != sorted(formula.clauses):
        raise ParseError(f"strategy {strategy.key}: the prompt's rules read back differently")


_BLOCK = re.compile(r"^\s*FORMULAS:\s*$(.*?)^\s*END FORMULAS\s*$", re.MULTILINE | re.DOTALL)


def identifier(entity: str) -> str:
    """The DSL name of an entity under ``symbolic-cot`` (spaces become ``_``).

    >>> identifier("door 2"), identifier("Alice")
    ('door_2', 'Alice')
    """
    return re.sub(r"\s+", "_", entity.strip())


def write_formalization(clauses: Iterable[Iterable[int]], entities: Sequence[str]) -> str:
    """The ``FORMULAS:`` block :data:`SYMBOLIC_INSTRUCTION` asks for (``entities[v - 1]``
    names variable ``v``).

    >>> print(write_formalization([[1, -2]], ["door 1", "door 2"]))
    FORMULAS:
    door_1 | ~door_2
    END FORMULAS
    """
    lines = [
        " | ".join(("" if lit > 0 else "~") + identifier(entities[abs(lit) - 1]) for lit in clause)
        for clause in clauses
    ]
    return "\n".join(["FORMULAS:", *lines, "END FORMULAS"])


def _canonical(clauses: Iterable[Iterable[int]]) -> set[frozenset[int]]:
    return {frozenset(clause) for clause in clauses}


def formalization(response: str, entities: Mapping[str, int]) -> dict[str, Any]:
    """Read and check the formalization a ``symbolic-cot`` answer wrote.

    Parameters
    ----------
    response:
        The answer text; its last ``FORMULAS:`` ... ``END FORMULAS`` block is read with
        the DSL parser (:func:`~twosat_formal.io.dsl.parse_dsl`).
    entities:
        The prompt's entities as entity → variable of the instance
        (:func:`~twosat_formal.evaluate.scoring.entity_variables`).

    Returns
    -------
    dict
        ``{"found": False}`` without a block; ``{"found": True, "error": ...}`` when it
        does not parse or names an unknown item; else the clause sets as variable
        literals: ``{"found": True, "error": None, "clauses": [[...], ...]}``.

    >>> formalization("FORMULAS:\\nA | ~B\\nEND FORMULAS\\nThe answer is: Yes", {"A": 1, "B": 2})
    {'found': True, 'error': None, 'clauses': [[-2, 1]]}
    >>> formalization("FORMULAS:\\nA | C\\nEND FORMULAS", {"A": 1})["error"]
    'unknown item C'
    """
    from twosat_formal.io.dsl import parse_dsl

    blocks = _BLOCK.findall(response)
    if not blocks:
        return {"found": False}
    names = {identifier(entity): var for entity, var in entities.items()}
    try:
        parsed = parse_dsl(blocks[-1])
    except ParseError as exc:
        return {"found": True, "error": f"does not parse: {exc}"}
    clauses: list[list[int]] = []
    for clause in parsed.clauses:
        literals = []
        for lit in clause:
            name = parsed.names[abs(lit) - 1]
            if name not in names:
                return {"found": True, "error": f"unknown item {name}"}
            literals.append(names[name] if lit > 0 else -names[name])
        clauses.append(sorted(set(literals)))
    return {"found": True, "error": None, "clauses": sorted(clauses)}


def check_formalization(found: Mapping[str, Any], formula: Formula) -> dict[str, Any]:
    """Compare a :func:`formalization` with the instance: which rules match.

    Returns ``found`` with ``exact`` (the same clause set as the instance), ``matched``
    (instance clauses written), ``missing`` and ``extra`` counts; a formalization that
    was not found or did not read has ``exact`` false and no counts.

    >>> f = Formula([[1, -2], [2]])
    >>> check_formalization({"found": True, "error": None, "clauses": [[-2, 1]]}, f)["missing"]
    1
    """
    out = dict(found)
    if not found.get("found") or found.get("error") is not None:
        out["exact"] = False
        return out
    written = _canonical(found.get("clauses") or [])
    rules = _canonical(formula.clauses)
    out.update(
        exact=written == rules,
        matched=len(written & rules),
        missing=len(rules - written),
        extra=len(written - rules),
    )
    return out
