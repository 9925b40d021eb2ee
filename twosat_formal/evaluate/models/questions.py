"""How the reference reasoners answer the question types (``verbalize --ask``).

:func:`read_question` recognises a question prompt by its fixed wording
(:mod:`twosat_formal.verbalize.questions`); :func:`question_answer` writes each
reasoner's answer in the format the prompt shows:

* ``ref/oracle`` answers exactly: the backbone for ``forced``; for ``entails`` the
  solver's Yes/No, with a shortest chain of rules on Yes;
* ``ref/sat-biased`` claims every entity fixed at the true value, and always says Yes
  (no chain);
* ``ref/coin`` flips a seeded coin per entity (left out, true or false) and for Yes/No;
* ``ref/bounded`` only follows the rules forward from what is given, within its
  budget of steps: ``forced`` gives what unit rules propagate to, ``entails`` says Yes
  when a breadth-first walk from the first entity's value reaches the second's within
  the budget, No otherwise.

For ``core``: the oracle names a smallest core (OptUx), ``ref/sat-biased`` every rule,
``ref/coin`` each rule with probability 1/2, ``ref/bounded`` the rules of the
contradiction cycle the SCC solver finds (unsatisfiable, not always minimal or
smallest). For ``repair``: the oracle drops the rules an optimum of RC2 falsifies,
``ref/sat-biased`` none, ``ref/coin`` each with probability 1/2, ``ref/bounded`` one rule
of each contradiction cycle the SCC solver finds until the rest holds. For ``maxsat``:
the oracle gives RC2's optimum, ``ref/sat-biased`` every entity true, ``ref/coin``
coins, ``ref/bounded`` the assignment its bounded search reaches.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.verbalize import verbalize
>>> p = verbalize(Formula([[1], [-1, 2], [3, 4]]), "logic", entities=list("ABCD"), ask="forced")
>>> read_question(p.text)
('forced', None)
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

from twosat_formal.evaluate.models.procedures import bounded_search, coin_rng
from twosat_formal.verbalize.questions import (
    CORE_QUESTION,
    FORCED_QUESTION,
    MAXSAT_QUESTION,
    REPAIR_QUESTION,
)

__all__ = ["question_answer", "read_question"]

_STRING = r'("(?:[^"\\]|\\.)*")'
_ENTAILS = re.compile(
    r"Question: suppose "
    + _STRING
    + r" has the value "
    + _STRING
    + r"\. Must "
    + _STRING
    + r" then have the value "
    + _STRING
    + r"\n"
)


def read_question(prompt: str) -> tuple[str, tuple[tuple[str, str], tuple[str, str]] | None] | None:
    """``(kind, details)`` of a question prompt, ``None`` for a decision prompt.

    ``details`` are an ``entails`` prompt's ``((entity, value), (entity, value))``.
    """
    if FORCED_QUESTION in prompt:
        return "forced", None
    if CORE_QUESTION in prompt:
        return "core", None
    if REPAIR_QUESTION in prompt:
        return "repair", None
    if MAXSAT_QUESTION in prompt:
        return "maxsat", None
    match = _ENTAILS.search(prompt)
    if match is None:
        return None
    a, va, b, vb = (json.loads(group) for group in match.groups())
    return "entails", ((a, va), (b, vb))


def _lit(read: Any, pair: tuple[str, str]) -> int:
    entity, value = pair
    var = read.entities.index(entity) + 1
    return var if value == read.true_value else -var


def _word(read: Any, lit: int) -> dict[str, str]:
    return {read.entities[abs(lit) - 1]: read.true_value if lit > 0 else read.false_value}


def _forced_text(read: Any, literals: list[int], reasoning: str) -> str:
    obj: dict[str, str] = {}
    for lit in sorted(literals, key=abs):
        obj.update(_word(read, lit))
    return f"{reasoning}\n\nThe answer is: {json.dumps(obj, ensure_ascii=False)}"


def _entails_text(read: Any, reasoning: str, chain: list[int] | None, yes: bool) -> str:
    parts = [reasoning]
    if chain is not None:
        parts.append(json.dumps({"chain": [_word(read, lit) for lit in chain]}, ensure_ascii=False))
    parts.append("The answer is: " + ("Yes" if yes else "No"))
    return "\n\n".join(parts)


def _propagated(read: Any, budget: int) -> list[int]:
    """The literals unit rules force, following them forward within ``budget`` steps."""
    units = [int(c[0]) for c in read.formula.clauses if len(c) == 1]
    known: set[int] = set()
    queue = deque(units)
    steps = 0
    from twosat_formal.evaluate.diagnostics.implications import Implications

    graph = Implications(read.formula)
    while queue and steps < budget:
        lit = queue.popleft()
        steps += 1
        if lit in known or -lit in known:
            continue
        known.add(lit)
        queue.extend(graph.successors(lit))
    return sorted(known, key=abs)


def _bounded_walk(read: Any, a: int, b: int, budget: int) -> list[int] | None:
    from twosat_formal.evaluate.diagnostics.implications import Implications

    graph = Implications(read.formula)
    parent: dict[int, int] = {}
    queue, seen, steps = deque([a]), {a}, 0
    while queue and steps < budget:
        lit = queue.popleft()
        steps += 1
        for dst in graph.successors(lit):
            if dst in seen:
                continue
            seen.add(dst)
            parent[dst] = lit
            if dst == b:
                path = [b]
                while path[-1] != a:
                    path.append(parent[path[-1]])
                return path[::-1]
            queue.append(dst)
    return None


def _core_text(name: str, read: Any, prompt: str, sample: int) -> str:
    from twosat_formal.solve.questions.reference import minimum_core

    m = read.formula.num_clauses
    if name == "oracle":
        numbers = [i + 1 for i in minimum_core(read.formula)]
        reasoning = "I search for the smallest set of rules that contradict each other."
    elif name == "sat-biased":
        numbers = list(range(1, m + 1))
        reasoning = "All the rules together, I think."
    elif name == "coin":
        rng = coin_rng(prompt, sample)
        numbers = [n for n in range(1, m + 1) if rng.random() < 0.5]
        reasoning = "I flip a coin for each rule."
    else:
        from twosat_formal.evaluate.diagnostics.chains import closed_walk
        from twosat_formal.evaluate.diagnostics.implications import Implications
        from twosat_formal.solve import solve

        cycle = solve(read.formula).cycle or ()
        walk = closed_walk(cycle) if cycle else []
        steps = Implications(read.formula).walk_clauses(walk) if walk else []
        numbers = sorted({i + 1 for i in steps})
        reasoning = "I follow the rules around a contradiction and name the rules I used."
    return f"{reasoning}\n\nThe answer is: {json.dumps(numbers)}"


def _repair_text(name: str, read: Any, prompt: str, sample: int) -> str:
    from twosat_formal.solve.questions.reference import maxsat_model

    m = read.formula.num_clauses
    if name == "oracle":
        numbers = [i + 1 for i in maxsat_model(read.formula)[1]]
        reasoning = "I search for an assignment that breaks the fewest rules."
    elif name == "sat-biased":
        numbers = []
        reasoning = "No rule needs to go, I think."
    elif name == "coin":
        rng = coin_rng(prompt, sample)
        numbers = [n for n in range(1, m + 1) if rng.random() < 0.5]
        reasoning = "I flip a coin for each rule."
    else:
        from twosat_formal.evaluate.diagnostics.chains import closed_walk
        from twosat_formal.evaluate.diagnostics.implications import Implications
        from twosat_formal.solve import solve

        dropped: set[int] = set()
        while True:
            kept = [i for i in range(m) if i not in dropped]
            rest = read.formula.select(kept)
            cycle = solve(rest).cycle
            if cycle is None:
                break
            steps = Implications(rest).walk_clauses(closed_walk(cycle))
            dropped.add(kept[steps[0]])
        numbers = sorted(i + 1 for i in dropped)
        reasoning = "I drop one rule of each contradiction I find until the rest can hold."
    return f"{reasoning}\n\nThe answer is: {json.dumps(numbers)}"


def _maxsat_text(model: Any, read: Any, prompt: str, sample: int) -> str:
    from twosat_formal.solve.questions.reference import maxsat_model

    n = len(read.entities)
    if model.name == "oracle":
        literals = maxsat_model(read.formula)[0]
        reasoning = "I search for an assignment that satisfies the most rules."
    elif model.name == "sat-biased":
        literals = list(range(1, n + 1))
        reasoning = "Every entity true should satisfy most rules."
    elif model.name == "coin":
        rng = coin_rng(prompt, sample)
        literals = [v if rng.random() < 0.5 else -v for v in range(1, n + 1)]
        reasoning = "I flip a coin for each entity."
    else:
        run = bounded_search(read.formula, model.budget)
        literals = [v if run.assignment[v - 1] is not False else -v for v in range(1, n + 1)]
        reasoning = "I assign values one at a time within my budget."
    return _forced_text(read, literals, reasoning)


def question_answer(
    model: Any, read: Any, question: tuple[str, Any], prompt: str, sample: int
) -> str:
    """The answer text of reference reasoner ``model`` to a question prompt."""
    from twosat_formal.evaluate.diagnostics.implications import Implications
    from twosat_formal.solve.questions.reference import entails, forced_literals

    kind, details = question
    name = model.name
    if kind == "core":
        return _core_text(name, read, prompt, sample)
    if kind == "repair":
        return _repair_text(name, read, prompt, sample)
    if kind == "maxsat":
        return _maxsat_text(model, read, prompt, sample)
    if kind == "forced":
        if name == "oracle":
            return _forced_text(read, forced_literals(read.formula), "I compute the backbone.")
        if name == "sat-biased":
            every = list(range(1, len(read.entities) + 1))
            return _forced_text(read, every, "Every entity must be true, I think.")
        if name == "coin":
            rng = coin_rng(prompt, sample)
            picked = [v if rng.random() < 0.5 else -v for v in range(1, len(read.entities) + 1)]
            kept = [lit for lit in picked if rng.random() < 0.5]
            return _forced_text(read, kept, "I flip coins for each entity.")
        return _forced_text(
            read, _propagated(read, model.budget), "I follow the rules from the fixed ones."
        )
    a, b = _lit(read, details[0]), _lit(read, details[1])
    if name == "oracle":
        yes = entails(read.formula, a, b)
        walk = Implications(read.formula).walk(a, b) if yes else None
        return _entails_text(read, "I solve the rules with the first value given.", walk, yes)
    if name == "sat-biased":
        return _entails_text(read, "It must, I think.", None, True)
    if name == "coin":
        yes = coin_rng(prompt, sample).random() < 0.5
        return _entails_text(read, "I flip a coin.", None, yes)
    walk = _bounded_walk(read, a, b, model.budget)
    reasoning = "I follow the rules forward from the first value, within my budget."
    return _entails_text(read, reasoning, walk, walk is not None)
