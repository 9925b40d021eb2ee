"""Contradiction chains: the witness of "No", checked against the implication graph.

A prompt made with ``verbalize --ask-cycle`` adds
:data:`~twosat_formal.verbalize.prompts.CYCLE_INSTRUCTION`: when the answer is "No", the model
also gives ``{"chain": [{"<entity>": "<value>"}, ...]}``, a walk from one entity's
value to the opposite value of that entity and back. Each element is one literal (the
entity's variable, true or false by the prompt's value words); each step from one
element to the next must be an edge of the implication graph: clause ``(a | b)`` gives
``~a -> b`` and ``~b -> a``, a unit clause ``(a)`` gives ``~a -> a``.

:func:`check_chain` accepts a chain exactly when it is a closed walk of such steps that
holds some literal together with its negation, which proves the formula UNSAT (every
literal of a closed walk implies every other). The walk is closed when its last element
is its first, or when the step from the last back to the first is itself an edge (a
chain that leaves out the repeated start). Otherwise :data:`REASONS` names the first
thing that fails, checked in this order:

==================  ==================================================================
``malformed``       ``chain`` is not a non-empty list of one-key ``{entity: value}``
                    objects with string values
``unknown-entity``  a step names an entity the prompt does not have
``unknown-value``   a step gives a value that is not the entity's true or false value
``too-short``       fewer than two steps
``bad-step``        a step follows from no rule (no clause gives that implication)
``not-closed``      the walk does not return to its start
``no-contradiction``  the closed walk never holds a value and its opposite
``wrong-start``     (an open chain, ``ends`` given) it does not start at the first end
``wrong-end``       (an open chain) it does not end at the second end
==================  ==================================================================

On a results row, ``cycle_valid`` is ``true`` / ``false`` for a chain given in answer to
a prompt that asked for one about an UNSAT instance, and ``null`` otherwise;
``cycle_reason`` is the failure (``"bad-step: ..."``), ``"no-chain"`` when such a prompt
got no chain, and ``null`` when the chain is valid or was not asked for.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.scoring import PromptView
>>> f = Formula.from_named([["~a", "b"], ["~b", "~a"], ["a", "c"], ["~c", "a"]])
>>> p = PromptView({"A": "a", "B": "b", "C": "c"}, "true", "false")
>>> good = '{"chain": [{"A": "true"}, {"B": "true"}, {"A": "false"}, {"C": "true"}, {"A": "true"}]}'
>>> judge_chain(good + "\\nThe answer is: No", p, f, "UNSAT")
(True, None)
>>> bad = '{"chain": [{"A": "true"}, {"C": "true"}, {"A": "false"}, {"A": "true"}]}'
>>> judge_chain(bad, p, f, "UNSAT")
(False, 'bad-step: step 1 (A true -> C true) follows from no rule')
>>> judge_chain("The answer is: No", p, f, "UNSAT")
(None, 'no-chain')
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.diagnostics.implications import Implications
from twosat_formal.evaluate.scoring.answers import casefolded, entity_variables, value_words

__all__ = [
    "MAX_CHAIN_ATTEMPTS",
    "NO_CHAIN",
    "REASONS",
    "ChainCheck",
    "chain_object",
    "check_chain",
    "closed_walk",
    "extract_chain",
    "judge_chain",
]

#: The failure codes of a chain, in the order they are checked.
REASONS = (
    "malformed",
    "unknown-entity",
    "unknown-value",
    "too-short",
    "bad-step",
    "not-closed",
    "no-contradiction",
)
#: ``cycle_reason`` of an answer that gives no chain although the prompt asked for one.
NO_CHAIN = "no-chain"
#: How many ``{"chain": ...`` openings, from the end of the answer, are tried.
MAX_CHAIN_ATTEMPTS = 32

_OPENING = re.compile(r'\{\s*"chain"\s*:')


def extract_chain(text: str) -> Any:
    """The value of ``chain`` in the last JSON object ``{"chain": ...}`` of ``text``.

    ``None`` when the answer has no such object that parses. Only the last
    :data:`MAX_CHAIN_ATTEMPTS` openings are tried, so hostile text costs little.

    >>> extract_chain('x {"chain": [{"A": "true"}]} y {"chain": [1, 2]}')
    [1, 2]
    >>> extract_chain('{"chain": [') is None
    True
    """
    starts = [m.start() for m in _OPENING.finditer(text)][-MAX_CHAIN_ATTEMPTS:]
    decoder = json.JSONDecoder()
    for start in reversed(starts):
        try:
            obj, _ = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(obj, dict) and "chain" in obj:
            return obj["chain"]
    return None


@dataclass(frozen=True)
class ChainCheck:
    """The verdict on one chain: valid or not, why not, and its literals (when read)."""

    valid: bool
    reason: str | None
    literals: tuple[int, ...] = ()


def check_chain(
    chain: Any,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    formula: Formula,
    *,
    ends: tuple[int, int] | None = None,
) -> ChainCheck:
    """Check a chain (the JSON value of ``chain``) against ``formula``'s implication graph.

    Parameters
    ----------
    chain:
        The list of ``{entity: value}`` objects, as the model gave it.
    entities:
        Entity → variable of ``formula`` (1-based).
    values:
        Entity → its (true, false) value words.
    formula:
        The instance's formula (a 2-CNF).
    ends:
        An open chain's first and last literals instead (the chain of an ``entails``
        answer, :mod:`twosat_formal.solve.questions`): the chain must start at the first
        (``wrong-start``) and end at the last (``wrong-end``), and need be neither
        closed nor contradictory; one step suffices when the two are equal.

    Entities and values are matched ignoring case and runs of spaces.

    >>> f = Formula.from_named([["a"], ["~a"]])
    >>> ents, vals = {"A": 1}, {"A": ("true", "false")}
    >>> check_chain([{"A": "TRUE"}, {"A": "false"}], ents, vals, f)
    ChainCheck(valid=True, reason=None, literals=(1, -1))
    >>> check_chain([{"A": "false"}], ents, vals, f).reason
    'too-short: a chain needs at least two steps'
    >>> check_chain([{"A": "false"}, {"A": "true"}], ents, vals, f, ends=(-1, 1)).valid
    True
    >>> check_chain([{"A": "false"}, {"A": "true"}], ents, vals, f, ends=(1, 1)).reason
    'wrong-start: the chain starts at A false, not at the literal asked about'
    """
    read = _read_chain(chain, entities, values)
    if isinstance(read, str):
        return ChainCheck(False, read)
    literals, shown = read
    reason = _ends_reason(literals, shown, ends)
    if reason is None:
        graph = Implications(formula)
        reason = _step_reason(literals, shown, graph)
        if reason is None and ends is None:
            reason = _cycle_reason(literals, shown, graph)
    return ChainCheck(reason is None, reason, tuple(literals))


def _read_chain(
    chain: Any, entities: Mapping[str, int], values: Mapping[str, tuple[str, str]]
) -> tuple[list[int], list[str]] | str:
    """The chain's literals, and each as the prompt words it (``A true``); else the
    reason it cannot be read (``malformed``, ``unknown-entity``, ``unknown-value``)."""
    if not isinstance(chain, list) or not chain:
        return "malformed: 'chain' is not a non-empty list"
    by_name = {casefolded(name): name for name in entities}
    literals: list[int] = []
    shown: list[str] = []
    for number, step in enumerate(chain, 1):
        read = _read_step(number, step, by_name, entities, values)
        if isinstance(read, str):
            return read
        literals.append(read[0])
        shown.append(read[1])
    return literals, shown


def _read_step(
    number: int,
    step: Any,
    by_name: Mapping[str, str],
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
) -> tuple[int, str] | str:
    """Step ``number``'s literal, and the literal as the prompt words it; else the reason
    it cannot be read. ``by_name``: each entity by its folded name."""
    if not (isinstance(step, dict) and len(step) == 1):
        return f"malformed: step {number} is not one {{entity: value}}"
    ((raw_entity, raw_value),) = step.items()
    if not isinstance(raw_value, str):
        return f"malformed: the value at step {number} is not a string"
    name = by_name.get(casefolded(raw_entity))
    if name is None:
        return f"unknown-entity: step {number} names {raw_entity!r}"
    words = values[name]
    value = casefolded(raw_value)
    polarity = next((i for i, word in enumerate(words) if value == casefolded(word)), None)
    if polarity is None:
        return f"unknown-value: step {number} gives {raw_value!r} to {name}"
    return (entities[name] if polarity == 0 else -entities[name]), f"{name} {words[polarity]}"


def _ends_reason(literals: list[int], shown: list[str], ends: tuple[int, int] | None) -> str | None:
    """Why the chain is too short, or (an open chain) starts or ends elsewhere than
    ``ends``; ``None`` when it is not."""
    if len(literals) < 2 and (ends is None or ends[0] != ends[1]):
        return "too-short: a chain needs at least two steps"
    if ends is not None and literals[0] != ends[0]:
        return f"wrong-start: the chain starts at {shown[0]}, not at the literal asked about"
    if ends is not None and literals[-1] != ends[1]:
        return f"wrong-end: the chain ends at {shown[-1]}, not at the literal asked about"
    return None


def _step_reason(literals: list[int], shown: list[str], graph: Implications) -> str | None:
    """The first step that is no edge of ``graph`` (``bad-step``); ``None`` when none."""
    for number in range(1, len(literals)):
        src, dst = literals[number - 1], literals[number]
        if graph.clause_of(src, dst) is None:
            return (
                f"bad-step: step {number} ({shown[number - 1]} -> {shown[number]}) "
                "follows from no rule"
            )
    return None


def _cycle_reason(literals: list[int], shown: list[str], graph: Implications) -> str | None:
    """Why a walk of edges proves no contradiction: it is not closed (``not-closed``), or
    holds no literal with its negation (``no-contradiction``); ``None`` when it does."""
    if literals[-1] != literals[0] and graph.clause_of(literals[-1], literals[0]) is None:
        return f"not-closed: the chain ends at {shown[-1]}, which does not lead back to {shown[0]}"
    present = set(literals)
    if not any(-lit in present for lit in present):
        return "no-contradiction: the chain never reaches the opposite value of an entity on it"
    return None


def judge_chain(
    text: str, prompt: Any, formula: Formula, label: str
) -> tuple[bool | None, str | None]:
    """``(cycle_valid, cycle_reason)`` of an answer to a prompt that asked for a chain.

    ``(None, None)`` on a SAT instance; ``(None, "no-chain")`` when the answer gives no
    chain; otherwise the verdict of :func:`check_chain`.
    """
    if label != "UNSAT" or not formula.is_2cnf:
        return None, None
    chain = extract_chain(text)
    if chain is None:
        return None, NO_CHAIN
    verdict = check_chain(
        chain, entity_variables(prompt.entities, formula), value_words(prompt), formula
    )
    return verdict.valid, verdict.reason


def chain_object(
    walk: Sequence[int], entities: Sequence[str], true_value: str, false_value: str
) -> dict[str, list[dict[str, str]]]:
    """The JSON object of a chain: ``walk``'s literals as ``{entity: value}`` steps.

    ``entities[v - 1]`` names variable ``v``.

    >>> chain_object([1, -2, 1], ["A", "B"], "true", "false")
    {'chain': [{'A': 'true'}, {'B': 'false'}, {'A': 'true'}]}
    """
    return {
        "chain": [{entities[abs(lit) - 1]: true_value if lit > 0 else false_value} for lit in walk]
    }


def closed_walk(cycle: Sequence[int]) -> list[int]:
    """A solver's contradiction cycle as a chain's closed walk.

    The walk starts at a literal whose opposite is on the cycle, as a chain must, and
    returns to it.

    >>> closed_walk([2, 1, 3, -2, 4])
    [2, 1, 3, -2, 4, 2]
    >>> closed_walk([1, 5, 2, -5])
    [5, 2, -5, 1, 5]
    """
    literals = list(cycle)
    start = next(i for i, lit in enumerate(literals) if -lit in literals)
    literals = literals[start:] + literals[:start]
    return [*literals, literals[0]]
