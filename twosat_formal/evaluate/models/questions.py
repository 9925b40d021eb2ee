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
import random
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twosat_formal.evaluate.models.procedures import answer_text, bounded_search, coin_rng
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


def _forced_text(read: Any, literals: list[int], reasoning: str) -> str:
    obj = {
        read.entities[abs(lit) - 1]: read.true_value if lit > 0 else read.false_value
        for lit in sorted(literals, key=abs)
    }
    return answer_text(reasoning, json.dumps(obj, ensure_ascii=False))


def _entails_text(read: Any, reasoning: str, chain: list[int] | None, yes: bool) -> str:
    blocks = [] if chain is None else [json.dumps(read.chain(chain), ensure_ascii=False)]
    return answer_text(reasoning, "Yes" if yes else "No", *blocks)


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


@dataclass(frozen=True)
class _Ask:
    """One question to a reference reasoner: the model, the prompt read back, the
    literals of an ``entails`` question (does the first entail the second?), the prompt
    text and the sample (which seeds the coins)."""

    model: Any
    read: Any
    pair: Any
    prompt: str
    sample: int

    @property
    def rules(self) -> range:
        """The rule numbers, from 1."""
        return range(1, self.read.formula.num_clauses + 1)

    @property
    def variables(self) -> range:
        """The entity numbers, from 1."""
        return range(1, len(self.read.entities) + 1)

    def coins(self) -> random.Random:
        return coin_rng(self.prompt, self.sample)


def _rules_text(reasoning: str, numbers: list[int]) -> str:
    return answer_text(reasoning, json.dumps(numbers))


def _coin_rules(ask: _Ask) -> str:
    rng = ask.coins()
    return _rules_text("I flip a coin for each rule.", [n for n in ask.rules if rng.random() < 0.5])


def _cycle_rules(formula: Any) -> list[int]:
    """The indices of the rules of the contradiction cycle the SCC solver finds (none
    when it finds none)."""
    from twosat_formal.evaluate.diagnostics.chains import closed_walk
    from twosat_formal.evaluate.diagnostics.implications import Implications
    from twosat_formal.solve import solve

    cycle = solve(formula).cycle
    return Implications(formula).walk_clauses(closed_walk(cycle)) if cycle else []


def _core_oracle(ask: _Ask) -> str:
    from twosat_formal.solve.questions.reference import minimum_core

    numbers = [i + 1 for i in minimum_core(ask.read.formula)]
    return _rules_text(
        "I search for the smallest set of rules that contradict each other.", numbers
    )


def _core_bounded(ask: _Ask) -> str:
    numbers = sorted({i + 1 for i in _cycle_rules(ask.read.formula)})
    reasoning = "I follow the rules around a contradiction and name the rules I used."
    return _rules_text(reasoning, numbers)


def _repair_oracle(ask: _Ask) -> str:
    from twosat_formal.solve.questions.reference import maxsat_model

    numbers = [i + 1 for i in maxsat_model(ask.read.formula)[1]]
    return _rules_text("I search for an assignment that breaks the fewest rules.", numbers)


def _repair_bounded(ask: _Ask) -> str:
    formula = ask.read.formula
    dropped: set[int] = set()
    while True:
        kept = [i for i in range(formula.num_clauses) if i not in dropped]
        steps = _cycle_rules(formula.select(kept))
        if not steps:
            break
        dropped.add(kept[steps[0]])
    numbers = sorted(i + 1 for i in dropped)
    reasoning = "I drop one rule of each contradiction I find until the rest can hold."
    return _rules_text(reasoning, numbers)


def _maxsat_oracle(ask: _Ask) -> str:
    from twosat_formal.solve.questions.reference import maxsat_model

    reasoning = "I search for an assignment that satisfies the most rules."
    return _forced_text(ask.read, maxsat_model(ask.read.formula)[0], reasoning)


def _maxsat_coin(ask: _Ask) -> str:
    rng = ask.coins()
    literals = [v if rng.random() < 0.5 else -v for v in ask.variables]
    return _forced_text(ask.read, literals, "I flip a coin for each entity.")


def _maxsat_bounded(ask: _Ask) -> str:
    run = bounded_search(ask.read.formula, ask.model.budget)
    literals = [v if run.assignment[v - 1] is not False else -v for v in ask.variables]
    return _forced_text(ask.read, literals, "I assign values one at a time within my budget.")


def _forced_oracle(ask: _Ask) -> str:
    from twosat_formal.solve.questions.reference import forced_literals

    return _forced_text(ask.read, forced_literals(ask.read.formula), "I compute the backbone.")


def _forced_coin(ask: _Ask) -> str:
    rng = ask.coins()
    picked = [v if rng.random() < 0.5 else -v for v in ask.variables]
    kept = [lit for lit in picked if rng.random() < 0.5]
    return _forced_text(ask.read, kept, "I flip coins for each entity.")


def _forced_bounded(ask: _Ask) -> str:
    reasoning = "I follow the rules from the fixed ones."
    return _forced_text(ask.read, _propagated(ask.read, ask.model.budget), reasoning)


def _entails_oracle(ask: _Ask) -> str:
    from twosat_formal.evaluate.diagnostics.implications import Implications
    from twosat_formal.solve.questions.reference import entails

    a, b = ask.pair
    yes = entails(ask.read.formula, a, b)
    walk = Implications(ask.read.formula).walk(a, b) if yes else None
    return _entails_text(ask.read, "I solve the rules with the first value given.", walk, yes)


def _entails_bounded(ask: _Ask) -> str:
    from twosat_formal.evaluate.diagnostics.implications import Implications

    a, b = ask.pair
    # from a literal to itself, no walk: the search starts where it would end
    walk = None if a == b else Implications(ask.read.formula).walk(a, b, ask.model.budget)
    reasoning = "I follow the rules forward from the first value, within my budget."
    return _entails_text(ask.read, reasoning, walk, walk is not None)


#: How each reference reasoner answers each question type (by kind, then by the
#: reasoner's name; ``bounded`` answers for any other name).
_ANSWERS: dict[str, dict[str, Callable[[_Ask], str]]] = {
    "core": {
        "oracle": _core_oracle,
        "sat-biased": lambda ask: _rules_text("All the rules together, I think.", [*ask.rules]),
        "coin": _coin_rules,
        "bounded": _core_bounded,
    },
    "repair": {
        "oracle": _repair_oracle,
        "sat-biased": lambda ask: _rules_text("No rule needs to go, I think.", []),
        "coin": _coin_rules,
        "bounded": _repair_bounded,
    },
    "maxsat": {
        "oracle": _maxsat_oracle,
        "sat-biased": lambda ask: _forced_text(
            ask.read, [*ask.variables], "Every entity true should satisfy most rules."
        ),
        "coin": _maxsat_coin,
        "bounded": _maxsat_bounded,
    },
    "forced": {
        "oracle": _forced_oracle,
        "sat-biased": lambda ask: _forced_text(
            ask.read, [*ask.variables], "Every entity must be true, I think."
        ),
        "coin": _forced_coin,
        "bounded": _forced_bounded,
    },
    "entails": {
        "oracle": _entails_oracle,
        "sat-biased": lambda ask: _entails_text(ask.read, "It must, I think.", None, True),
        "coin": lambda ask: _entails_text(
            ask.read, "I flip a coin.", None, ask.coins().random() < 0.5
        ),
        "bounded": _entails_bounded,
    },
}


def question_answer(
    model: Any, read: Any, question: tuple[str, Any], prompt: str, sample: int
) -> str:
    """The answer text of reference reasoner ``model`` to a question prompt."""
    kind, details = question
    pair = None if details is None else (_lit(read, details[0]), _lit(read, details[1]))
    answers = _ANSWERS[kind]
    answer = answers.get(model.name, answers["bounded"])
    return answer(_Ask(model, read, pair, prompt, sample))
