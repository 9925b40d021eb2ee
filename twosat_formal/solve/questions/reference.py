"""Reference answers of the question types, made by the project's own 2-SAT code.

This is the path that writes a prompt's ``reference``: the backbone of
:func:`~twosat_formal.solve.analysis.analyze` for ``forced``, the SCC solver on
``F ∧ A ∧ ¬B`` and a shortest walk of the implication graph for ``entails``.
``certify`` re-derives every answer on another path (PySAT,
:mod:`twosat_formal.certify.questions`).

A reference is a JSON object in the prompt's words (entity names and the scheme's
value words):

* ``forced``: ``{"forced": {entity: value, ...}}``, entities in variable order;
* ``entails``: ``{"if": {A: value}, "then": {B: value}, "answer": "Yes"|"No",
  "chain": [{entity: value}, ...]}``, the chain (a walk ``A ~> B`` of the implication
  graph) only when the answer is Yes;
* ``core``: ``{"core": [rule numbers], "size": k}``, a smallest unsatisfiable set of
  rules (the numbers the prompt prints before them, 1, 2, 3, ... in order), by PySAT's OptUx
  (:func:`minimum_core`); its ``certify`` path is the project's own;
* ``repair``: ``{"repair": [rule numbers], "size": k}``, a smallest set of rules to
  drop so that the rest can hold (the rules an optimum of PySAT's RC2 falsifies);
* ``maxsat``: ``{"satisfied": k, "rules": m}``, the most rules one assignment
  satisfies (RC2's optimum).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula([[1], [-1, 2], [3, 4]])
>>> forced_literals(f)
[1, 2]
>>> entails(f, 3, 3), entails(f, -3, 4), entails(f, 3, 4)
(True, True, False)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError

__all__ = [
    "applies",
    "entails",
    "entails_pair",
    "forced_literals",
    "literal_object",
    "reference_answer",
]


def forced_literals(formula: Formula) -> list[int]:
    """The backbone of a satisfiable 2-CNF (the literals true in every model), by variable.

    Made by :func:`~twosat_formal.solve.analysis.analyze` (the implication graph's
    components); an unsatisfiable formula raises :class:`ConfigError`.
    """
    from twosat_formal.solve.analysis import analyze

    structure = analyze(formula)
    if not structure.satisfiable:
        raise ConfigError("an unsatisfiable formula has no forced values to ask for")
    return sorted(structure.backbone, key=abs)


def entails(formula: Formula, a: int, b: int) -> bool:
    """Whether every model of ``formula`` with ``a`` true has ``b`` true (the SCC solver
    finds ``formula ∧ a ∧ ¬b`` unsatisfiable)."""
    from twosat_formal.solve import solve

    extended = formula.with_clauses([*([int(x) for x in c] for c in formula.clauses), [a], [-b]])
    return solve(extended, check=False).status == "UNSAT"


def _reached(formula: Formula, free: list[int]) -> dict[int, set[int]]:
    """The literals each of ``free`` reaches in the implication graph of
    :func:`~twosat_formal.solve.graph.implication_graph`, itself included.

    >>> _reached(Formula([[-1, 2], [-2, 3], [4]]), [1, 3]) == {1: {1, 2, 3}, 3: {3}}
    True
    """
    from twosat_formal.solve.graph import implication_graph, index_literal, literal_index

    graph = implication_graph(formula)
    indptr, indices = graph.indptr.tolist(), graph.indices.tolist()
    reached: dict[int, set[int]] = {}
    for lit, start in zip(free, literal_index(free).tolist(), strict=True):
        queue, seen = [start], {start}
        for node in queue:
            for nxt in indices[indptr[node] : indptr[node + 1]]:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        reached[lit] = set(index_literal(queue).tolist())
    return reached


def _walk(formula: Formula, a: int, b: int) -> list[int]:
    """The shortest walk ``a ~> b`` that :func:`~twosat_formal.solve.scc.shortest_paths`
    finds (``[]`` when there is none).

    >>> _walk(Formula([[-1, 2], [-2, 3], [-1, 3]]), 1, 3)
    [1, 3]
    """
    from twosat_formal.solve.graph import implication_graph, index_literal, literal_index
    from twosat_formal.solve.scc import shortest_paths

    ends = literal_index([a, b]).tolist()
    (path,) = shortest_paths(implication_graph(formula), [(ends[0], ends[1])])
    return [] if path is None else index_literal(path).tolist()


def _free_literals(formula: Formula) -> list[int]:
    """Both literals of every variable that occurs in a clause and is not forced."""
    forced = {abs(lit) for lit in forced_literals(formula)}
    occurring = sorted({abs(int(lit)) for clause in formula.clauses for lit in clause})
    return [s * v for v in occurring if v not in forced for s in (1, -1)]


def _implied(formula: Formula, free: list[int]) -> dict[int, list[int]]:
    """The literals of ``free`` that each one reaches in the implication graph, over
    another variable, by variable."""
    reached = _reached(formula, free)
    candidates = set(free)
    return {
        a: [b for b in sorted(reached[a], key=abs) if b in candidates and abs(b) != abs(a)]
        for a in free
    }


def entails_pair(formula: Formula, seed: int) -> tuple[int, int]:
    """The literals ``(a, b)`` an ``entails`` prompt asks about, chosen by ``seed``.

    Both are over distinct variables that occur in a clause and are not forced (so that
    the answer is Yes exactly when the implication graph has a walk ``a ~> b``). With
    probability 1/2, ``a`` is drawn among the literals that reach another such literal
    and ``b`` among those it reaches (the answer is Yes), when there are any; otherwise
    both are drawn at random (the answer is usually No), so that both answers occur.

    Raises
    ------
    ConfigError
        Fewer than two such variables.
    """
    free = _free_literals(formula)
    if len(free) < 4:
        raise ConfigError("an entails question needs two variables whose value is not forced")
    rng = random.Random(f"entails:{int(seed)}")
    implied = _implied(formula, free)
    starts = [a for a in free if implied[a]]
    if starts and rng.random() < 0.5:  # a question whose answer is Yes
        a = rng.choice(starts)
        return a, rng.choice(implied[a])
    a = rng.choice(free)
    return a, rng.choice([lit for lit in free if abs(lit) != abs(a)])


def minimum_core(formula: Formula) -> list[int]:
    """A smallest unsatisfiable set of clauses (0-based indices, sorted), by PySAT's OptUx.

    OptUx computes a smallest MUS by implicit hitting sets; ``certify`` re-derives the
    minimum size on a path of its own
    (:func:`~twosat_formal.certify.questions.own_minimum_core_size`).

    >>> minimum_core(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2], [3], [-3]]))
    [4, 5]
    """
    from pysat.examples.optux import OptUx
    from pysat.formula import WCNF

    wcnf = WCNF()
    for clause in formula.clauses:
        wcnf.append([int(lit) for lit in clause], weight=1)
    with OptUx(wcnf) as optux:
        found = optux.compute()
    if found is None:
        raise ConfigError("a satisfiable formula has no unsatisfiable core to ask for")
    return sorted(int(i) - 1 for i in found)


def maxsat_model(formula: Formula) -> tuple[list[int], list[int]]:
    """An assignment that satisfies as many clauses as possible, by PySAT's RC2: its
    literals (one per variable) and the 0-based indices of the clauses it falsifies
    (a smallest set of rules to drop so that the rest can hold).

    >>> maxsat_model(Formula([[1], [-1], [2]]))[1] in ([0], [1])
    True
    """
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    wcnf = WCNF()
    for clause in formula.clauses:
        wcnf.append([int(lit) for lit in clause], weight=1)
    with RC2(wcnf) as rc2:
        model = rc2.compute() or []
    value = {abs(lit): lit for lit in model}
    literals = [value.get(v, -v) for v in range(1, formula.num_vars + 1)]
    true = set(literals)
    falsified = [
        i for i, clause in enumerate(formula.clauses) if not any(int(x) in true for x in clause)
    ]
    return literals, falsified


def literal_object(
    lit: int, entities: Sequence[str], true_value: str, false_value: str
) -> dict[str, str]:
    """``{entity: value}`` of one literal (``entities[v - 1]`` names variable ``v``).

    >>> literal_object(-2, ["A", "B"], "on", "off")
    {'B': 'off'}
    """
    return {entities[abs(lit) - 1]: true_value if lit > 0 else false_value}


_Words = Callable[[int], dict[str, str]]
"""The ``{entity: value}`` object of a literal, in a prompt's words."""


def _forced_reference(formula: Formula, words: _Words, seed: int) -> dict[str, Any]:
    forced: dict[str, str] = {}
    for lit in forced_literals(formula):
        forced.update(words(lit))
    if not forced:
        raise ConfigError("the formula has no forced value to ask for")
    return {"forced": forced}


def _entails_reference(formula: Formula, words: _Words, seed: int) -> dict[str, Any]:
    a, b = entails_pair(formula, seed)
    yes = entails(formula, a, b)
    out: dict[str, Any] = {"if": words(a), "then": words(b), "answer": "Yes" if yes else "No"}
    if yes:
        out["chain"] = [words(lit) for lit in _walk(formula, a, b)]
    return out


def _core_reference(formula: Formula, words: _Words, seed: int) -> dict[str, Any]:
    core = minimum_core(formula)
    return {"core": [i + 1 for i in core], "size": len(core)}


def _falsified(formula: Formula, kind: str) -> list[int]:
    """The clauses an optimum falsifies (:func:`maxsat_model`), at least one."""
    _, falsified = maxsat_model(formula)
    if not falsified:
        raise ConfigError(f"a satisfiable formula has nothing to ask as {kind}")
    return falsified


def _repair_reference(formula: Formula, words: _Words, seed: int) -> dict[str, Any]:
    falsified = _falsified(formula, "repair")
    return {"repair": [i + 1 for i in falsified], "size": len(falsified)}


def _maxsat_reference(formula: Formula, words: _Words, seed: int) -> dict[str, Any]:
    m = formula.num_clauses
    return {"satisfied": m - len(_falsified(formula, "maxsat")), "rules": m}


@dataclass(frozen=True)
class _Asked:
    """A question type's reference: the ``label`` its instances have, whether an
    instance of that label ``can`` be asked it (a 2-CNF besides), and its ``answer``.
    ``checks_2cnf`` is false where the answer's own analysis refuses another formula."""

    label: str
    can: Callable[[Formula], bool]
    answer: Callable[[Formula, _Words, int], dict[str, Any]]
    checks_2cnf: bool = True


#: The reference of each question type but the decision, keyed by
#: :data:`~twosat_formal.solve.questions.ASKED`.
_REFERENCES: dict[str, _Asked] = {
    "forced": _Asked(
        "SAT", lambda f: bool(forced_literals(f)), _forced_reference, checks_2cnf=False
    ),
    "entails": _Asked(
        "SAT", lambda f: len({abs(lit) for lit in _free_literals(f)}) >= 2, _entails_reference
    ),
    "core": _Asked("UNSAT", lambda f: f.num_clauses > 0, _core_reference),
    "repair": _Asked("UNSAT", lambda f: f.num_clauses > 0, _repair_reference),
    "maxsat": _Asked("UNSAT", lambda f: f.num_clauses > 0, _maxsat_reference),
}


def applies(kind: str, formula: Formula, label: str) -> bool:
    """Whether an instance can be asked ``kind``.

    ``forced`` needs a satisfiable 2-CNF with a non-empty backbone, ``entails`` a
    satisfiable 2-CNF with two variables that are not forced, ``core``, ``repair`` and
    ``maxsat`` an unsatisfiable 2-CNF; ``decision`` and ``chain`` apply to every
    formula.

    >>> f = Formula([[1], [2, 3]])
    >>> applies("forced", f, "SAT"), applies("entails", f, "SAT"), applies("forced", f, "UNSAT")
    (True, True, False)
    """
    asked = _REFERENCES.get(kind)
    if asked is None:
        return True
    return label == asked.label and formula.is_2cnf and asked.can(formula)


def reference_answer(
    kind: str,
    formula: Formula,
    entities: Sequence[str],
    true_value: str,
    false_value: str,
    seed: int,
) -> dict[str, Any]:
    """The reference answer of a ``kind`` prompt (see the module's description).

    Raises
    ------
    ConfigError
        ``kind`` does not apply to ``formula`` (:func:`applies`), or is not one of
        ``forced``, ``entails``, ``core``, ``repair``, ``maxsat``.

    Examples
    --------
    >>> f = Formula([[1], [-1, 2], [3, 4]])
    >>> reference_answer("forced", f, ["A", "B", "C", "D"], "true", "false", 0)
    {'forced': {'A': 'true', 'B': 'true'}}
    """
    asked = _REFERENCES.get(kind)
    if asked is None:
        raise ConfigError(f"question type {kind!r} has no reference answer", parameter="ask")
    if asked.checks_2cnf and not formula.is_2cnf:
        article = "an" if kind[0] in "aeiou" else "a"
        raise ConfigError(f"{article} {kind} question needs a 2-CNF")
    return asked.answer(
        formula, lambda lit: literal_object(lit, entities, true_value, false_value), seed
    )
