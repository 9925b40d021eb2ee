"""Strict and lenient readers of question-type answers, and their judgement.

:func:`judge_question` is what :func:`twosat_formal.evaluate.scoring.score` returns for a prompt
whose ``ask`` is ``forced`` or ``entails``, so ``eval``, ``score`` and the reward judge
alike. The true answer is worked out from the formula, never taken from the prompt's
stored reference (only the ``entails`` question, its ``if`` and ``then``, is read from
it).

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
    entity_variables,
    extract_decision,
    extract_witness,
    value_words,
)

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
    if not (isinstance(obj, list) and all(type(n) is int for n in obj)):
        return "bad", None
    if len(set(obj)) != len(obj) or not all(1 <= n <= rules for n in obj):
        return "bad", None
    return "found", obj


def _pysat_core_verdict(formula: Formula, numbers: list[int]) -> str | None:
    """Why rules ``numbers`` are not a minimal unsatisfiable set (PySAT), or ``None``."""
    from pysat.solvers import Solver

    clauses = [[int(lit) for lit in formula.clauses[n - 1]] for n in numbers]

    def sat(kept: list[list[int]]) -> bool:
        with Solver(name="glucose4", bootstrap_with=kept) as solver:
            return bool(solver.solve())

    if sat(clauses):
        return "satisfiable"
    for i, n in enumerate(numbers):
        if not sat(clauses[:i] + clauses[i + 1 :]):
            return f"not minimal: it stays unsatisfiable without rule {n}"
    return None


def _pysat_repair_verdict(formula: Formula, numbers: list[int]) -> str | None:
    """Why dropping rules ``numbers`` is not a minimal repair (PySAT), or ``None``."""
    from pysat.solvers import Solver

    dropped = set(numbers)
    rest = [[int(x) for x in c] for i, c in enumerate(formula.clauses, 1) if i not in dropped]

    def sat(kept: list[list[int]]) -> bool:
        with Solver(name="glucose4", bootstrap_with=kept) as solver:
            return bool(solver.solve())

    if not sat(rest):
        return "the other rules still cannot all hold"
    for n in sorted(dropped):
        if sat([*rest, [int(x) for x in formula.clauses[n - 1]]]):
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
    fold = (lambda word: " ".join(word.split()).casefold()) if lenient else (lambda word: word)
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


def _forced_verdict(
    read: ForcedRead, truth: frozenset[int]
) -> tuple[str, float | None, float | None]:
    if read.status == "missing":
        return "no-answer", None, None
    if read.status != "found" or read.literals is None:
        return "bad-json", None, None
    hit = len(read.literals & truth)
    precision = hit / len(read.literals) if read.literals else 1.0
    recall = hit / len(truth) if truth else 1.0
    return ("correct" if read.literals == truth else "wrong-decision"), precision, recall


def _literal(obj: Any, entities: Mapping[str, int], values: Mapping[str, tuple[str, str]]) -> int:
    ((entity, value),) = obj.items()
    return entities[entity] if value == values[entity][0] else -entities[entity]


_Verdicts = tuple[tuple[str, str], dict[str, Any]]
"""The strict and lenient failure kinds of an answer, and its extra judgement fields."""


def _judge_forced(
    text: str,
    formula: Formula,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    prompt: Any,
) -> _Verdicts:
    """Judge a ``forced`` answer: the backbone, with precision and recall of each read."""
    from twosat_formal.solve.questions.reference import forced_literals

    truth = frozenset(forced_literals(formula))
    strict = _forced_verdict(read_forced(text, entities, values), truth)
    loose = _forced_verdict(read_forced(text, entities, values, lenient=True), truth)
    fields = {
        "precision": strict[1],
        "recall": strict[2],
        "lenient_precision": loose[1],
        "lenient_recall": loose[2],
    }
    return (strict[0], loose[0]), fields


def _decision_verdict(text: str, expected: str, *, lenient: bool) -> str:
    """The failure kind of the Yes/No of ``text`` against ``expected`` (SAT for Yes)."""
    decision = extract_decision(text, lenient=lenient)
    if decision.ambiguous:
        return "ambiguous-answer"
    if decision.value is None:
        return "no-answer"
    return "correct" if decision.value == expected else "wrong-decision"


def _judge_entails(
    text: str,
    formula: Formula,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    prompt: Any,
) -> _Verdicts:
    """Judge an ``entails`` answer: its Yes/No, and the chain of a right Yes."""
    from twosat_formal.evaluate.diagnostics.chains import NO_CHAIN, check_chain, extract_chain
    from twosat_formal.solve.questions.reference import entails

    reference = prompt.reference
    a = _literal(reference["if"], entities, values)
    b = _literal(reference["then"], entities, values)
    yes = entails(formula, a, b)
    expected = "SAT" if yes else "UNSAT"  # Yes/No as the decision reader gives them
    failures = (
        _decision_verdict(text, expected, lenient=False),
        _decision_verdict(text, expected, lenient=True),
    )
    fields: dict[str, Any] = {}
    if yes and "correct" in failures:
        chain = extract_chain(text)
        if chain is None:
            fields.update(chain_valid=None, chain_reason=NO_CHAIN)
        else:
            verdict = check_chain(chain, entities, values, formula, ends=(a, b))
            fields.update(chain_valid=verdict.valid, chain_reason=verdict.reason)
    return failures, fields


def _judge_maxsat(
    text: str,
    formula: Formula,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    prompt: Any,
) -> _Verdicts:
    """Judge a ``maxsat`` answer: the rules its assignment satisfies against RC2's optimum."""
    from twosat_formal.solve.questions.reference import maxsat_model

    _, falsified = maxsat_model(formula)
    best = formula.num_clauses - len(falsified)
    verdicts = []
    fields: dict[str, Any] = {}
    for lenient in (False, True):
        read = read_forced(text, entities, values, lenient=lenient)
        if read.status != "found" or read.literals is None:
            verdicts.append("no-answer" if read.status == "missing" else "bad-json")
            continue
        true = read.literals
        count = sum(1 for c in formula.clauses if any(int(x) in true for x in c))
        if not lenient:
            fields.update(size_ratio=count / best if best else 1.0)
        verdicts.append("correct" if count == best else "wrong-decision")
    return (verdicts[0], verdicts[1]), fields


def _judge_rule_set(
    kind: str,
    text: str,
    formula: Formula,
) -> _Verdicts:
    """Judge a ``core`` or ``repair`` answer: a list of rule numbers, checked by PySAT."""
    from twosat_formal.solve.questions.reference import maxsat_model, minimum_core

    if kind == "core":
        smallest = len(minimum_core(formula))
        check_set = _pysat_core_verdict
    else:
        smallest = len(maxsat_model(formula)[1])
        check_set = _pysat_repair_verdict
    verdicts = []
    fields: dict[str, Any] = {}
    for lenient in (False, True):
        status, numbers = read_core(text, formula.num_clauses, lenient=lenient)
        if status == "missing" or numbers is None:
            verdicts.append("bad-json" if status == "bad" else "no-answer")
            continue
        why = check_set(formula, numbers)
        if not lenient:
            ratio = None if why is not None else smallest / max(1, len(numbers))
            fields.update(core_reason=why, size_ratio=ratio)
        right = why is None and len(numbers) == smallest
        verdicts.append("correct" if right else "wrong-decision")
    return (verdicts[0], verdicts[1]), fields


def _judge_core(
    text: str,
    formula: Formula,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    prompt: Any,
) -> _Verdicts:
    """Judge a ``core`` answer (:func:`_judge_rule_set`)."""
    return _judge_rule_set("core", text, formula)


def _judge_repair(
    text: str,
    formula: Formula,
    entities: Mapping[str, int],
    values: Mapping[str, tuple[str, str]],
    prompt: Any,
) -> _Verdicts:
    """Judge a ``repair`` answer (:func:`_judge_rule_set`)."""
    return _judge_rule_set("repair", text, formula)


_JUDGES = {
    "forced": _judge_forced,
    "entails": _judge_entails,
    "maxsat": _judge_maxsat,
    "core": _judge_core,
    "repair": _judge_repair,
}
"""The judge of each question type but the decision."""


def judge_question(
    kind: str, response: Response | str, prompt: Any, formula: Formula, label: str
) -> Judgement:
    """The :class:`~twosat_formal.evaluate.scoring.Judgement` of an answer to a ``kind`` prompt.

    ``prompt`` is the prompt record (its entity map, value words and, for ``entails``,
    its ``reference``'s ``if`` and ``then``).
    """
    if isinstance(response, str):
        response = Response(response)
    entities = entity_variables(prompt.entities, formula)
    values = value_words(prompt)
    judge = _JUDGES.get(kind)
    if judge is None:
        raise ValueError(f"question type {kind!r} has no judgement here")
    failures, fields = judge(response.text, formula, entities, values, prompt)
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
