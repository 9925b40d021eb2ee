"""Strict and lenient readers of question-type answers, and their judgement.

:func:`judge_question` is what :func:`twosat_formal.evaluate.scoring.score` returns for a
prompt whose ``ask`` is a question type of its own (not the decision), so ``eval``,
``score`` and the reward judge alike. The true answer is worked out from the formula,
never taken from the prompt's stored reference (only the ``entails`` question, its
``if`` and ``then``, is read from it).

``forced``
    Strictly, the last non-blank line is ``The answer is: {JSON}``, a flat object of
    the prompt's entities (exact names) to its value words (exact); leniently, that
    line's object or else the last flat JSON object of entities to values anywhere
    (names and words in any case, ``true``/``false`` too,
    :func:`~twosat_formal.evaluate.scoring.extract_witness`). Correct
    when the set read is the backbone exactly; ``precision`` and ``recall`` of the set
    read against the backbone are the partial credit (the precision of an empty answer
    is 1).
``entails``
    The Yes/No of the closing line, read as the decision is
    (:func:`~twosat_formal.evaluate.scoring.extract_decision`, strict and lenient). Correct when
    it is the solver's answer (``F ∧ A ∧ ¬B`` unsatisfiable is Yes). On a right Yes, the
    chain (``{"chain": [...]}``) is checked clause by clause from ``A`` to ``B``
    (``chain_valid``, ``chain_reason``; ``"no-chain"`` when none was given).

``core``
    Strictly, the last non-blank line is ``The answer is: [JSON list]`` of rule
    numbers; leniently, that line's list, or else the last list of integers
    (``[2, 5, 7]``) anywhere. A number out of range or given twice is ``bad-json``.
    PySAT checks the set: unsatisfiable, and satisfiable with any one rule removed
    (``core_reason`` says what fails, ``None`` for a minimal core); correct when it is
    minimal and as small as the smallest (OptUx); ``size_ratio`` is the smallest size
    over the size given, for a minimal core.

``repair``
    Read as ``core`` (a list of rule numbers). PySAT checks the set: the other rules
    satisfiable, and unsatisfiable again with any one of the set put back (``core_reason``
    says what fails); correct when it is minimal and as small as the fewest (RC2's
    optimum); ``size_ratio`` is the fewest over the number given, for a minimal repair.
``maxsat``
    Read as ``forced`` (one JSON object of entities to values; an entity left out
    satisfies no literal). Correct when the assignment satisfies as many rules as RC2's
    optimum; ``size_ratio`` is the rules it satisfies over that optimum.

Failure kinds: ``truncated``, ``ambiguous-answer`` (entails), ``no-answer``,
``bad-json`` (an answer that names an entity or value the prompt lacks), then
``wrong-decision`` (a wrong answer) or ``correct``.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.scoring.answers import PromptView
>>> f = Formula.from_named([["a"], ["~a", "b"], ["c", "d"]])
>>> p = PromptView({"A": "a", "B": "b", "C": "c", "D": "d"}, "true", "false")
>>> j = judge_question("forced", 'The answer is: {"A": "true", "B": "true"}', p, f, "SAT")
>>> j.failure, j.precision, j.recall
('correct', 1.0, 1.0)
>>> j = judge_question("forced", 'So {"a": "TRUE"}', p, f, "SAT")
>>> j.failure, j.lenient_failure, j.lenient_precision, j.lenient_recall
('no-answer', 'wrong-decision', 1.0, 0.5)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Response
from twosat_formal.evaluate.scoring.answers import (
    Judgement,
    casefolded,
    entity_variables,
    extract_decision,
    extract_witness,
    value_words,
)
from twosat_formal.solve.questions import rule_numbers

__all__ = ["ForcedRead", "judge_question", "read_core", "read_forced"]

_PREFIX = "The answer is:"


@dataclass(frozen=True)
class ForcedRead:
    """A ``forced`` answer as read: the literals, or why none could be read.

    ``status`` is ``found``, ``missing`` (no answer) or ``bad`` (an unknown entity or
    value, or not a flat object of strings); ``literals`` are set when found.
    """

    status: str
    literals: frozenset[int] | None = None
    reason: str | None = None


_NUMBER_LIST = re.compile(r"\[\s*\d{1,9}(?:\s*,\s*\d{1,9})*\s*\]")


def read_core(text: str, rules: int, *, lenient: bool = False) -> tuple[str, list[int] | None]:
    """Read a ``core`` answer: ``(status, rule numbers)`` (see the module's description).

    >>> read_core("The answer is: [3, 1]", 4)
    ('found', [3, 1])
    >>> read_core("So rules [1, 2] clash.", 4), read_core("So rules [1, 2] clash.", 4, lenient=True)
    (('missing', None), ('found', [1, 2]))
    >>> read_core("The answer is: [1, 9]", 4), read_core("The answer is: [1, 1]", 4)
    (('bad', None), ('bad', None))
    """
    obj = _strict_object(text)
    if lenient and not isinstance(obj, list):
        found = _NUMBER_LIST.findall(text)
        obj = json.loads(found[-1]) if found else None
    if obj is None:
        return "missing", None
    return ("found", obj) if rule_numbers(obj, rules) else ("bad", None)


def _pysat_sat(clauses: list[list[int]]) -> bool:
    from pysat.solvers import Solver

    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        return bool(solver.solve())


def _pysat_core_verdict(formula: Formula, numbers: list[int]) -> str | None:
    """Why rules ``numbers`` are not a minimal unsatisfiable set (PySAT), or ``None``."""
    clauses = [[int(lit) for lit in formula.clauses[n - 1]] for n in numbers]
    if _pysat_sat(clauses):
        return "satisfiable"
    for i, n in enumerate(numbers):
        if not _pysat_sat(clauses[:i] + clauses[i + 1 :]):
            return f"not minimal: it stays unsatisfiable without rule {n}"
    return None


def _pysat_repair_verdict(formula: Formula, numbers: list[int]) -> str | None:
    """Why dropping rules ``numbers`` is not a minimal repair (PySAT), or ``None``."""
    dropped = set(numbers)
    rest = [[int(x) for x in c] for i, c in enumerate(formula.clauses, 1) if i not in dropped]
    if not _pysat_sat(rest):
        return "the other rules still cannot all hold"
    for n in sorted(dropped):
        if _pysat_sat([*rest, [int(x) for x in formula.clauses[n - 1]]]):
            return f"not minimal: rule {n} can be kept"
    return None


def _strict_object(text: str) -> Any:
    """The JSON value after ``The answer is:`` on the last non-blank line, or ``None``."""
    last = ""
    end = len(text)
    while end > 0:  # the last non-blank line, found from the end (linear)
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end].strip()
        if line:
            last = line
            break
        end = start - 1
    if not last.startswith(_PREFIX):
        return None
    try:
        return json.loads(last[len(_PREFIX) :])
    except (ValueError, RecursionError):
        return None


def read_forced(
    text: str,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    *,
    lenient: bool = False,
) -> ForcedRead:
    """Read a ``forced`` answer (see the module's description).

    Parameters
    ----------
    text:
        The model's answer.
    entities:
        Entity → variable (1-based).
    values:
        Entity → its (true word, false word).
    lenient:
        Read leniently.

    >>> ents, vals = {"A": 1, "B": 2}, {"A": ("on", "off"), "B": ("on", "off")}
    >>> read_forced('The answer is: {"A": "off"}', ents, vals).literals
    frozenset({-1})
    >>> read_forced('The answer is: {"A": "OFF"}', ents, vals).status
    'bad'
    >>> read_forced('The answer is: {"A": "OFF"}', ents, vals, lenient=True).literals
    frozenset({-1})
    >>> read_forced("The answer is: {}", ents, vals).literals
    frozenset()
    """
    obj, failed = _forced_object(text, entities, lenient=lenient)
    if failed is not None:
        return failed
    if not isinstance(obj, dict):
        return ForcedRead("bad", reason="the answer is not a JSON object")
    fold = casefolded if lenient else (lambda word: word)
    names = {fold(name): name for name in entities}
    literals: set[int] = set()
    for raw_name, raw_value in obj.items():
        name = names.get(fold(raw_name))
        if name is None:
            return ForcedRead("bad", reason=f"unknown entity {raw_name!r}")
        sign = _forced_sign(name, raw_value, values[name], fold, lenient=lenient)
        if isinstance(sign, ForcedRead):
            return sign
        literals.add(sign * entities[name])
    return ForcedRead("found", frozenset(literals))


def _forced_object(
    text: str, entities: Mapping[str, int], *, lenient: bool
) -> tuple[Any, ForcedRead | None]:
    """The JSON value a ``forced`` answer gives, or why none was read.

    Strictly, the closing line's; leniently, that line's object, or else the last flat
    object of entities to values anywhere.
    """
    obj: Any = _strict_object(text)
    if lenient and not isinstance(obj, dict):  # the strict line first, then any object
        found = extract_witness(text, lenient=True, entities=entities.keys())
        if found.status == "missing":
            return None, ForcedRead("missing", reason=found.reason)
        if found.obj is None or found.reason is not None:
            return None, ForcedRead("bad", reason=found.reason)
        return found.obj, None
    if obj is None:
        return None, ForcedRead("missing", reason=f"no closing line {_PREFIX} {{...}}")
    return obj, None


def _forced_sign(
    name: str,
    raw_value: Any,
    words: tuple[str, str],
    fold: Callable[[str], str],
    *,
    lenient: bool,
) -> int | ForcedRead:
    """``1`` for entity ``name``'s true word, ``-1`` for its false word (``words``), read
    through ``fold``; leniently ``true``/``false`` too, as words or JSON booleans. Any other
    value is a ``bad`` read."""
    true_word, false_word = words
    if lenient and isinstance(raw_value, bool):
        raw_value = true_word if raw_value else false_word
    if not isinstance(raw_value, str):
        return ForcedRead("bad", reason=f"the value of {name!r} is not a string")
    word = fold(raw_value)
    if word in (fold(true_word), *(("true",) if lenient else ())):
        return 1
    if word in (fold(false_word), *(("false",) if lenient else ())):
        return -1
    return ForcedRead("bad", reason=f"unknown value {raw_value!r} of {name!r}")


def _literal(obj: Any, entities: Mapping[str, int], values: Mapping[str, tuple[str, str]]) -> int:
    ((entity, value),) = obj.items()
    return entities[entity] if value == values[entity][0] else -entities[entity]


@dataclass(frozen=True)
class _Question:
    """What a judge reads an answer against: the formula, the prompt's entity map
    (entity → variable), each entity's value words, and the prompt record."""

    formula: Formula
    entities: Mapping[str, int]
    values: Mapping[str, tuple[str, str]]
    prompt: Any


_Read = tuple[str, Any]
"""An answer as read: ``found`` and its value, or ``missing``, ``bad`` or ``ambiguous``."""

_Verdict = tuple[bool, dict[str, Any]]
"""Whether an answer read is right, and its judgement fields."""


def _read_forced(text: str, q: _Question, lenient: bool) -> _Read:
    read = read_forced(text, q.entities, q.values, lenient=lenient)
    return read.status, read.literals


def _read_rules(text: str, q: _Question, lenient: bool) -> _Read:
    return read_core(text, q.formula.num_clauses, lenient=lenient)


def _read_yes_no(text: str, q: _Question, lenient: bool) -> _Read:
    decision = extract_decision(text, lenient=lenient)
    if decision.ambiguous:
        return "ambiguous", None
    return ("missing", None) if decision.value is None else ("found", decision.value == "SAT")


def _backbone(q: _Question) -> frozenset[int]:
    from twosat_formal.solve.questions.reference import forced_literals

    return frozenset(forced_literals(q.formula))


def _entailed(q: _Question) -> tuple[int, int, bool]:
    """The literals ``A``, ``B`` of the prompt's question, and whether ``A`` entails ``B``."""
    from twosat_formal.solve.questions.reference import entails

    a = _literal(q.prompt.reference["if"], q.entities, q.values)
    b = _literal(q.prompt.reference["then"], q.entities, q.values)
    return a, b, entails(q.formula, a, b)


def _fewest_falsified(q: _Question) -> int:
    from twosat_formal.solve.questions.reference import maxsat_model

    return len(maxsat_model(q.formula)[1])


def _smallest_core(q: _Question) -> int:
    from twosat_formal.solve.questions.reference import minimum_core

    return len(minimum_core(q.formula))


def _forced_verdict(literals: frozenset[int], truth: frozenset[int], q: _Question) -> _Verdict:
    hit = len(literals & truth)
    precision = hit / len(literals) if literals else 1.0
    recall = hit / len(truth) if truth else 1.0
    return literals == truth, {"precision": precision, "recall": recall}


def _entails_verdict(yes: bool, truth: tuple[int, int, bool], q: _Question) -> _Verdict:
    return yes == truth[2], {}


def _maxsat_verdict(true: frozenset[int], falsified: int, q: _Question) -> _Verdict:
    best = q.formula.num_clauses - falsified
    count = sum(1 for c in q.formula.clauses if any(int(x) in true for x in c))
    return count == best, {"size_ratio": count / best if best else 1.0}


def _rule_set_verdict(
    check_set: Callable[[Formula, list[int]], str | None],
) -> Callable[[list[int], int, _Question], _Verdict]:
    """The verdict on a set of rule numbers that ``check_set`` checks, against the size
    of the smallest such set."""

    def verdict(numbers: list[int], smallest: int, q: _Question) -> _Verdict:
        why = check_set(q.formula, numbers)
        ratio = None if why is not None else smallest / max(1, len(numbers))
        return why is None and len(numbers) == smallest, {"core_reason": why, "size_ratio": ratio}

    return verdict


def _entails_chain(
    text: str, q: _Question, truth: Any, failures: tuple[str, str]
) -> dict[str, Any]:
    """The chain of a right Yes, checked clause by clause from ``A`` to ``B``."""
    from twosat_formal.evaluate.diagnostics.chains import NO_CHAIN, check_chain, extract_chain

    a, b, yes = truth
    if not (yes and "correct" in failures):
        return {}
    chain = extract_chain(text)
    if chain is None:
        return {"chain_valid": None, "chain_reason": NO_CHAIN}
    verdict = check_chain(chain, q.entities, q.values, q.formula, ends=(a, b))
    return {"chain_valid": verdict.valid, "chain_reason": verdict.reason}


@dataclass(frozen=True)
class _Judge:
    """How one question type's answer is judged.

    ``truth`` works out the true answer from the formula; ``read`` reads an answer
    (strictly or leniently); ``verdict`` judges an answer found against the truth.
    The judgement's fields are the strict reading's, with the lenient reading's as
    ``lenient_*`` when ``lenient_fields``, and ``extra``'s, given both failure kinds.
    """

    truth: Callable[[_Question], Any]
    read: Callable[[str, _Question, bool], _Read]
    verdict: Callable[[Any, Any, _Question], _Verdict]
    lenient_fields: bool = False
    extra: Callable[[str, _Question, Any, tuple[str, str]], dict[str, Any]] | None = None


#: The judge of each question type but the decision, keyed by
#: :data:`~twosat_formal.solve.questions.ASKED`.
_JUDGES: dict[str, _Judge] = {
    "forced": _Judge(_backbone, _read_forced, _forced_verdict, lenient_fields=True),
    "entails": _Judge(_entailed, _read_yes_no, _entails_verdict, extra=_entails_chain),
    "core": _Judge(_smallest_core, _read_rules, _rule_set_verdict(_pysat_core_verdict)),
    "repair": _Judge(_fewest_falsified, _read_rules, _rule_set_verdict(_pysat_repair_verdict)),
    "maxsat": _Judge(_fewest_falsified, _read_forced, _maxsat_verdict),
}

#: The failure kind of an answer that could not be read, by its reading's status.
_UNREAD = {"missing": "no-answer", "bad": "bad-json", "ambiguous": "ambiguous-answer"}


def _judged(
    judge: _Judge, text: str, q: _Question, truth: Any, lenient: bool
) -> tuple[str, dict[str, Any]]:
    """The failure kind of one reading of ``text``, and its fields."""
    status, value = judge.read(text, q, lenient)
    if status != "found":
        return _UNREAD[status], {}
    right, fields = judge.verdict(value, truth, q)
    return ("correct" if right else "wrong-decision"), fields


def judge_question(
    kind: str, response: Response | str, prompt: Any, formula: Formula, label: str
) -> Judgement:
    """The :class:`~twosat_formal.evaluate.scoring.Judgement` of an answer to a ``kind`` prompt.

    ``prompt`` is the prompt record (its entity map, value words and, for ``entails``,
    its ``reference``'s ``if`` and ``then``).
    """
    if isinstance(response, str):
        response = Response(response)
    q = _Question(formula, entity_variables(prompt.entities, formula), value_words(prompt), prompt)
    judge = _JUDGES.get(kind)
    if judge is None:
        raise ValueError(f"question type {kind!r} has no judgement here")
    truth = judge.truth(q)
    strict, fields = _judged(judge, response.text, q, truth, lenient=False)
    loose, loose_fields = _judged(judge, response.text, q, truth, lenient=True)
    if judge.lenient_fields:
        fields.update({f"lenient_{key}": value for key, value in loose_fields.items()})
    failures = (strict, loose)
    if judge.extra is not None:
        fields.update(judge.extra(response.text, q, truth, failures))
    if response.truncated:
        failures = ("truncated", "truncated")
    return Judgement(
        failure=failures[0],
        decision=None,
        decision_correct=failures[0] == "correct",
        witness_valid=None,
        label=label,
        truncated=response.truncated,
        lenient_failure=failures[1],
        lenient_decision_correct=failures[1] == "correct",
        ask=kind,
        **fields,
    )
