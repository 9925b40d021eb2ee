"""The reference reasoners' procedures: the seeded coin of ``ref/coin`` and the
resource-bounded search of ``ref/bounded`` (:mod:`~twosat_formal.evaluate.models.reference`),
which answer both the decision prompts and the question types
(:mod:`~twosat_formal.evaluate.models.questions`).

:func:`answer_text` writes the text of every answer of theirs.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> run = bounded_search(Formula.from_named([["a", "b"], ["~a", "b"], ["~b", "a"]]), 100)
>>> run.status, run.assignment, run.steps
('SAT', (True, True), 16)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from twosat_formal.core.formula import Formula
from twosat_formal.core.seeds import seeded_rng
from twosat_formal.errors import ConfigError

__all__ = ["BoundedRun", "answer_text", "bounded_chain", "bounded_search", "coin_rng"]

Status = Literal["SAT", "UNSAT", "EXHAUSTED"]


def coin_rng(prompt: str, sample: int) -> random.Random:
    """The generator of ``ref/coin`` for one prompt and sample index (SHA-256 seeded).

    Examples
    --------
    >>> coin_rng("p", 0).random() == coin_rng("p", 0).random() != coin_rng("p", 1).random()
    True
    """
    return seeded_rng("ref/coin", sample, prompt, sep="\x00", bits=256)


def answer_text(reasoning: str, answer: str, *blocks: str) -> str:
    """An answer as every reference reasoner writes one: the reasoning, the ``blocks``
    (JSON), then ``The answer is: <answer>``, separated by blank lines.

    >>> print(answer_text("I guess.", "[1, 2]"))
    I guess.
    <BLANKLINE>
    The answer is: [1, 2]
    """
    return "\n\n".join([reasoning, *blocks, f"The answer is: {answer}"])


def bounded_chain(formula: Formula, var: int, budget: int) -> tuple[list[int], bool, int]:
    """Look for the contradiction cycle through ``var`` with at most ``budget`` checks.

    Breadth-first search of ``var ~> ~var`` and then ``~var ~> var`` over the
    implications of the clauses in text order; looking at one implication costs one
    check. Returns the walk (closed by repeating ``var`` when complete), whether it is
    complete, and the checks spent. An incomplete walk is the one found so far: the
    path to the last literal reached.

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> f = Formula([[-1, 2], [-2, -1], [1, 3], [-3, 1]])
    >>> bounded_chain(f, 1, 100)
    ([1, 2, -1, 3, 1], True, 6)
    >>> bounded_chain(f, 1, 2)
    ([1, -2], False, 2)
    """
    edges: dict[int, list[int]] = {}
    for clause in formula.clauses:
        a, b = (clause[0], clause[0]) if len(clause) == 1 else (clause[0], clause[-1])
        for src, dst in ((-a, b), (-b, a)):
            edges.setdefault(src, []).append(dst)
    spent = 0

    def search(start: int, goal: int) -> tuple[list[int], bool]:
        nonlocal spent
        parent: dict[int, int] = {start: start}
        queue, last = [start], start
        while queue:
            lit = queue.pop(0)
            for dst in edges.get(lit, []):
                if spent >= budget:
                    return path(parent, last), False
                spent += 1
                if dst in parent:
                    continue
                parent[dst] = lit
                last = dst
                if dst == goal:
                    return path(parent, goal), True
                queue.append(dst)
        return path(parent, last), False

    def path(parent: dict[int, int], end: int) -> list[int]:
        out = [end]
        while parent[out[-1]] != out[-1]:
            out.append(parent[out[-1]])
        return out[::-1]

    there, found = search(var, -var)
    if not found:
        return there, False, spent
    back, found = search(-var, var)
    return [*there, *back[1:]], found, spent


class _OutOfBudget(Exception):
    """Raised inside :func:`bounded_search` when the step budget is spent."""


@dataclass(frozen=True)
class BoundedRun:
    """The outcome of :func:`bounded_search`.

    Attributes
    ----------
    status:
        ``"SAT"`` (every clause satisfied), ``"UNSAT"`` (a contradiction was
        derived) or ``"EXHAUSTED"`` (the budget ran out first).
    assignment:
        Value of variable ``v`` at index ``v - 1``: complete for ``SAT``, the partial
        assignment reached (``None`` = unassigned) for ``EXHAUSTED``, all ``None`` for
        ``UNSAT``.
    steps:
        Literal inspections spent (at most the budget).
    events:
        What happened, in order, as ``(kind, literal, clause)`` triples for the
        reasoning text: ``("decide", lit, -1)``, ``("consistent", lit, forced)``,
        ``("conflict", lit, clause)``, ``("refuted", var, clause)``,
        ``("unit-conflict", 0, clause)``, ``("exhausted", 0, -1)``; clause indices
        are 0-based positions in text order.
    """

    status: Status
    assignment: tuple[bool | None, ...]
    steps: int
    events: tuple[tuple[str, int, int], ...]


def bounded_search(formula: Formula, budget: int) -> BoundedRun:
    """Decide ``formula`` by propagation in text order, spending at most ``budget`` steps.

    The procedure (Even, Itai and Shamir's propagation algorithm for 2-SAT, run
    clause by clause in the order the statements appear):

    1. **Inspection.** Looking up the value of one literal of one clause under the
       current partial assignment costs one step; when the budget is spent, the
       search stops at once (status ``EXHAUSTED``).
    2. **Propagation pass.** Scan the clauses in text order. In each clause, inspect
       the literals left to right and stop at the first true one (the clause is
       satisfied). If every literal is false, that is a conflict. If exactly one is
       unassigned and the others are false, make it true. Passes repeat until a
       whole pass assigns nothing (so a fixpoint costs one more full pass).
    3. **Start.** Propagate once from the empty assignment (this reads the unit
       clauses); a conflict there proves the formula unsatisfiable.
    4. **Decisions.** For each variable still unassigned, in numbering order (the
       order of first appearance in the text), suppose it true and propagate; on a
       conflict, undo everything this decision implied and suppose it false
       instead. If both values lead to a conflict, the formula is unsatisfiable
       (status ``UNSAT``); otherwise keep the values and go on.
    5. **End.** When every variable has a value, every clause is satisfied
       (status ``SAT``).

    On 2-CNF formulas the answer is exact when the budget suffices: a kept
    propagation leaves every clause it touched satisfied, so a variable refuted both
    ways refutes the whole formula. "No" is therefore only ever said after a
    contradiction was derived. On clauses of three or more literals the procedure
    can report a spurious contradiction. The cost grows with the number of clauses
    (every pass reads them all) and with implication chains whose clauses come in an
    order the passes do not follow (one pass per link).

    Parameters
    ----------
    formula:
        The clauses, in text order.
    budget:
        The number of literal inspections allowed (``>= 0``).

    Examples
    --------
    >>> from twosat_formal.core.formula import Formula
    >>> bounded_search(Formula.from_named([["a"], ["~a"]]), 10).status
    'UNSAT'
    >>> run = bounded_search(Formula.from_named([["a", "b"], ["~a", "b"]]), 5)
    >>> run.status, run.assignment, run.steps
    ('EXHAUSTED', (True, None), 5)
    """
    if budget < 0:
        raise ConfigError(f"budget must be >= 0, got {budget}", parameter="budget", valid=">= 0")
    search = _Search(formula, budget)
    try:
        status = search.run()
    except _OutOfBudget:
        search.events.append(("exhausted", 0, -1))
        status = "EXHAUSTED"
    values = search.value[1:] if status != "UNSAT" else [None] * formula.num_vars
    return BoundedRun(status, tuple(values), search.spent, tuple(search.events))


class _Search:
    """The state of one :func:`bounded_search`: values, steps spent, events."""

    def __init__(self, formula: Formula, budget: int) -> None:
        self.clauses = [tuple(int(lit) for lit in clause) for clause in formula.clauses]
        self.num_vars = formula.num_vars
        self.budget = budget
        self.value: list[bool | None] = [None] * (formula.num_vars + 1)
        self.events: list[tuple[str, int, int]] = []
        self.spent = 0

    def run(self) -> Status:
        """Steps 3 to 5: propagate from nothing, then decide each variable left."""
        conflict = self.propagate([])
        if conflict is not None:
            self.events.append(("unit-conflict", 0, conflict))
            return "UNSAT"
        for var in range(1, self.num_vars + 1):
            if self.value[var] is None and not self.decide(var):
                return "UNSAT"
        return "SAT"

    def decide(self, var: int) -> bool:
        """Step 4 for ``var``: true, else false; whether a value survived propagation."""
        refuted = -1
        for lit in (var, -var):
            self.events.append(("decide", lit, -1))
            self.value[var] = lit > 0
            trail = [var]
            conflict = self.propagate(trail)
            if conflict is None:
                self.events.append(("consistent", lit, len(trail) - 1))
                return True
            self.events.append(("conflict", lit, conflict))
            for implied in trail:
                self.value[implied] = None
            refuted = conflict
        self.events.append(("refuted", var, refuted))
        return False

    def propagate(self, trail: list[int]) -> int | None:
        """Step 2: passes until a fixpoint; the index of a conflicting clause, if any.

        Every variable it assigns is appended to ``trail``.
        """
        while True:
            changed = False
            for index, clause in enumerate(self.clauses):
                state = self._unresolved(clause)
                if state is None:
                    continue
                free, free_lit = state
                if free == 0:
                    return index
                if free == 1:
                    self.value[abs(free_lit)] = free_lit > 0
                    trail.append(abs(free_lit))
                    changed = True
            if not changed:
                return None

    def _unresolved(self, clause: tuple[int, ...]) -> tuple[int, int] | None:
        """``None`` when ``clause`` is satisfied, else how many of its literals are
        unassigned and the last of them; each literal read is a step of the budget."""
        free = 0
        free_lit = 0
        for lit in clause:
            if self.spent >= self.budget:
                raise _OutOfBudget
            self.spent += 1
            current = self.value[abs(lit)]
            if current is None:
                free += 1
                free_lit = lit
            elif current == (lit > 0):
                return None
        return free, free_lit
