"""The round-trip proof: a prompt's text parses back to exactly its source formula.

The proof reads the prompt text the way a model sees it (no entity map: variables in
order of first appearance), then maps every entity through the prompt's entity map to
the source formula's variables and checks two things:

1. **clause-for-clause equality**: the same clauses in the same order, literal by
   literal (:class:`~twosat_formal.errors.CertificateError` otherwise);
2. **Z3 equivalence**: the two formulas, as quantifier-free Boolean formulas over the
   source variables, cannot differ (``F xor G`` is unsatisfiable). A ``sat`` answer is a
   counterexample and ``unknown`` is a failure (:class:`~twosat_formal.errors.ProofError`).

The result is a JSON object stored with the prompt record and re-checked by
:func:`check_roundtrip`.

Examples
--------
>>> from twosat_formal.verbalize import verbalize
>>> f = Formula.from_named([["~a", "b"], ["a", "~c"]])
>>> p = verbalize(f, "team", seed=1)
>>> proof = prove_roundtrip(f, p.text, "team", p.entity_map())
>>> proof["result"], proof["method"], proof["clauses"]
('proved', 'backparse+clause-equality+z3-equivalence', 2)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from typing import Any

import z3

from twosat_formal._util.per_process import Z3_USES, PerProcess
from twosat_formal._util.recent import Recent
from twosat_formal.core.formula import Formula
from twosat_formal.core.smt import declarations, smt_cnf
from twosat_formal.errors import CertificateError, ParseError, ProofError
from twosat_formal.verbalize.backparse import read_clauses
from twosat_formal.verbalize.prompts import PromptRecord
from twosat_formal.verbalize.schemes import TEMPLATES

__all__ = ["METHOD", "check_roundtrip", "prove_roundtrip", "z3_equivalent"]

#: The Z3 version that proofs name (asked once: it cannot change in a process).
_Z3_VERSION = z3.get_version_string()

#: The ``method`` of every round-trip proof this module writes.
METHOD = "backparse+clause-equality+z3-equivalence"


def z3_equivalent(
    left: Sequence[Sequence[int]],
    right: Sequence[Sequence[int]],
    num_vars: int,
    *,
    names: Sequence[str] | None = None,
    timeout_ms: int | None = None,
) -> None:
    """Prove with Z3 that two clause lists over ``1..num_vars`` are equivalent.

    Quantifier-free: one Boolean per variable, ``left xor right`` must be unsatisfiable.

    Raises
    ------
    ProofError
        With a counterexample (``{name: value}``) when they differ, or when Z3 answers
        ``unknown``.

    Examples
    --------
    >>> z3_equivalent([[1, -2]], [[-2, 1], [1, -2]], 2)
    >>> z3_equivalent([[1, -2]], [[1, 2]], 2)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ProofError: the formulas differ: x1=False, x2=False
    """
    flat = (tuple(chain.from_iterable(left)), tuple(map(len, left)))
    other = (tuple(chain.from_iterable(right)), tuple(map(len, right)))
    _prove(flat, other, num_vars, names, timeout_ms)


#: A clause list as its literals, flat, and the width of each clause.
_Flat = tuple[tuple[int, ...], tuple[int, ...]]


def _clauses(flat: _Flat) -> list[tuple[int, ...]]:
    """The clause list of a flat one.

    >>> _clauses(((1, -2, 3), (2, 1)))
    [(1, -2), (3,)]
    """
    literals, widths = flat
    found, start = [], 0
    for width in widths:
        found.append(literals[start : start + width])
        start += width
    return found


def _counterexample(
    model: z3.ModelRef,
    ctx: z3.Context,
    num_vars: int,
    names: Sequence[str] | Callable[[], Sequence[str]] | None,
) -> dict[str, bool]:
    """The value of each variable in Z3's ``model``, by name (``x1``, ``x2``, ... without
    ``names``; ``names`` may be a function)."""
    given = names() if callable(names) else names
    labels = list(given) if given is not None else [f"x{v}" for v in range(1, num_vars + 1)]
    return {
        labels[v - 1]: bool(z3.is_true(model.eval(z3.Bool(f"v{v}", ctx), model_completion=True)))
        for v in range(1, num_vars + 1)
    }


def _prove(
    left: _Flat,
    right: _Flat,
    num_vars: int,
    names: Sequence[str] | Callable[[], Sequence[str]] | None,
    timeout_ms: int | None,
) -> None:
    """:func:`z3_equivalent` of two flat clause lists (``names`` may be a function).

    The names are only read for a counterexample.
    """
    session = _session()
    key = (num_vars, left, right)
    if session.proved.seen(key):  # this very pair (its literals in range) was proven already
        return
    _check_range(left[0] + right[0], num_vars)
    # the same clauses are the same term: written once (Z3 still proves the pair)
    term = smt_cnf(_clauses(left))
    claim = f"(assert (xor {term} {term if right == left else smt_cnf(_clauses(right))}))"
    session.declare(num_vars)
    ctx, solver = session.ctx, session.solver
    session.time_limit(int(timeout_ms) if timeout_ms is not None else _NO_TIMEOUT)
    solver.push()
    try:
        solver.from_string(claim)
        answer = solver.check()
        if answer != z3.unsat:
            raise _refutation(answer, solver, ctx, num_vars, names)
        session.remember(key)
    finally:
        solver.pop()


def _check_range(literals: Sequence[int], num_vars: int) -> None:
    """Raise :class:`ProofError` for a literal outside the variables ``1..num_vars``."""
    if literals and (max(literals) > num_vars or min(literals) < -num_vars or 0 in literals):
        raise ProofError(f"a literal lies outside the variables 1..{num_vars}")


def _refutation(
    answer: z3.CheckSatResult,
    solver: z3.Solver,
    ctx: z3.Context,
    num_vars: int,
    names: Sequence[str] | Callable[[], Sequence[str]] | None,
) -> ProofError:
    """The error of a claim of difference Z3 did not refute: its counterexample when Z3
    found one (``sat``), else Z3's reason (``unknown``)."""
    if answer != z3.sat:
        return ProofError(f"z3 could not decide the equivalence ({solver.reason_unknown()})")
    counterexample = _counterexample(solver.model(), ctx, num_vars, names)
    shown = ", ".join(f"{k}={v}" for k, v in counterexample.items())
    return ProofError(f"the formulas differ: {shown}", counterexample=counterexample)


#: How many proven pairs a session remembers.
_PROVED_SIZE = 4096

#: Z3's value of "no time limit" for the ``timeout`` parameter.
_NO_TIMEOUT = 4294967295


class _Session:
    """This process's Z3 context and ``QF_FD`` solver for round-trip proofs.

    Every query's assertion runs between ``push`` and ``pop``, so nothing of one query
    is left for the next but the declared constants ``v1..v{declared}``, which Z3's
    parser keeps across ``pop`` and all queries share.

    The session remembers the last :data:`_PROVED_SIZE` pairs of clause lists Z3 proved
    equivalent (exact clause lists and variable count, nothing normalized): the
    prompts of one formula under several templates all read back to the same clause
    list, so Z3 proves that pair once per process instead of once per prompt. A pair
    that is not proven (a difference, ``unknown``) is never remembered.
    """

    def __init__(self) -> None:
        self.ctx = z3.Context()
        self.solver = z3.SolverFor("QF_FD", ctx=self.ctx)
        self.declared = 0
        self.timeout: int | None = None
        self.proved: Recent[tuple[Any, ...], None] = Recent(_PROVED_SIZE)

    def remember(self, key: tuple[Any, ...]) -> None:
        """Remember a pair proven equivalent (the least recently used one is dropped)."""
        self.proved.put(key, None)

    def time_limit(self, timeout_ms: int) -> None:
        """Set the solver's ``timeout``, only when it changes (about 50 us a call)."""
        if timeout_ms != self.timeout:
            self.solver.set("timeout", timeout_ms)
            self.timeout = timeout_ms

    def declare(self, num_vars: int) -> None:
        """Declare ``v1..v{num_vars}`` (those not declared yet)."""
        if num_vars > self.declared:
            self.solver.from_string(declarations(self.declared, num_vars))
            self.declared = num_vars


#: The round-trip session of this process (a fresh one in a forked child).
_session: PerProcess[_Session] = PerProcess(_Session, uses=Z3_USES)


def _variable_map(formula: Formula, entities: Mapping[str, str] | Sequence[str]) -> dict[str, int]:
    """Entity → source variable, from ``{entity: variable name}`` or a per-variable list."""
    if isinstance(entities, Mapping):
        index: dict[str, int] = {}
        for entity, name in entities.items():
            try:
                index[entity] = formula.var(name)
            except ValueError:
                raise CertificateError(
                    f"entity {entity!r} stands for {name!r}, which is not a variable of the formula"
                ) from None
    else:
        if len(entities) != formula.num_vars:
            raise CertificateError(
                f"{len(entities)} entities for a formula of {formula.num_vars} variables"
            )
        index = {entity: v for v, entity in enumerate(entities, 1)}
    if len(set(index.values())) != len(index):
        raise CertificateError("the entity map gives two entities the same variable")
    return index


def _source_variables(order: Sequence[str], index: Mapping[str, int]) -> list[int]:
    """The source variable of each entity of the text, in ``order`` (of first appearance).

    Raises
    ------
    CertificateError
        An entity outside the entity map ``index``.
    """
    sources = []
    for entity in order:
        if entity not in index:
            raise CertificateError(f"entity {entity!r} is not in the prompt's entity map")
        sources.append(index[entity])
    return sources


def _require_same_clauses(
    mapped: _Flat, source: _Flat, formula: Formula, lines: Sequence[int]
) -> None:
    """Raise a :class:`CertificateError` unless the text's clauses, ``mapped`` to the source
    variables, are ``formula``'s (``source``) clause for clause; the first clause that
    differs is named with its line of the text."""
    if len(mapped[1]) != len(source[1]):
        raise CertificateError(
            f"the text has {len(mapped[1])} clause sentences for {len(source[1])} clauses"
        )
    if mapped != source:
        pairs = zip(_clauses(mapped), formula.clauses, strict=True)
        i, (got, want) = next((i, pair) for i, pair in enumerate(pairs) if pair[0] != pair[1])
        raise CertificateError(
            f"clause {i + 1} reads back as ({formula.clause_text(got)}) instead of "
            f"({formula.clause_text(want)}) (line {lines[i]})"
        )


def prove_roundtrip(
    formula: Formula,
    text: str,
    template: str,
    entities: Mapping[str, str] | Sequence[str],
    *,
    timeout_ms: int | None = None,
    numbered: bool = False,
) -> dict[str, Any]:
    """Prove that ``text`` parses back to ``formula`` through the entity map.

    Parameters
    ----------
    formula:
        The source formula.
    text:
        The prompt text (a verbalization, or the full evaluation prompt).
    template:
        The scheme the text is read with.
    entities:
        ``{entity: variable name}``, or the entity of each variable in order.
    timeout_ms:
        Optional Z3 time limit; running out of time is a failure.
    numbered:
        Whether the text numbers its rules, as a prompt whose question names rules does
        (:data:`~twosat_formal.solve.questions.NUMBERED`): the numbers must then be 1, 2, 3,
        ... in order, one for each rule; otherwise no rule may carry one.

    Returns
    -------
    dict
        ``{"method", "result": "proved", "template", "clauses", "entities", "z3",
        "time_s"}``.

    Raises
    ------
    CertificateError
        The text does not parse (a rule number missing, out of order, or where none
        belongs included), names an entity outside the map, or its clauses differ from
        the formula's.
    ProofError
        Z3 finds the formulas different or cannot decide.
    """
    start = time.perf_counter()
    try:
        scheme, clauses, order, lines = read_clauses(text, template, None, None, numbered)
    except ParseError as err:
        raise CertificateError(f"the prompt text does not parse back: {err}") from None
    index = _variable_map(formula, entities)
    sources = _source_variables(order, index)
    # the source literal of each literal of the text, ``table[lit]`` (negative: from the end)
    table = [0, *sources, *(-v for v in reversed(sources))]
    # both clause lists flat (literals, widths): equal so if and only if equal clause by clause
    mapped = (tuple(map(table.__getitem__, chain.from_iterable(clauses))), tuple(map(len, clauses)))
    source = (tuple(formula.literals.tolist()), tuple(formula.widths.tolist()))
    _require_same_clauses(mapped, source, formula, lines)
    _prove(source, mapped, formula.num_vars, lambda: formula.names, timeout_ms)
    return {
        "method": METHOD,
        "result": "proved",
        "template": scheme,
        "clauses": len(source[1]),
        "entities": len(order),
        "z3": _Z3_VERSION,
        "time_s": round(time.perf_counter() - start, 6),
    }


def check_roundtrip(record: PromptRecord, formula: Formula) -> dict[str, Any]:
    """Re-check a stored prompt record against its instance's formula.

    The stored proof (when present) must claim success; the record's value words must
    be its scheme's; the text must parse back, through the record's entity map, to the
    formula clause for clause, and Z3 must prove the two equivalent. The rules must be
    numbered exactly when the record's question names rules
    (:data:`~twosat_formal.solve.questions.NUMBERED`).

    Returns
    -------
    dict
        A fresh proof (see :func:`prove_roundtrip`).

    Raises
    ------
    CertificateError, ProofError
        On any failure.

    Examples
    --------
    >>> from twosat_formal.verbalize import prompt_record
    >>> f = Formula.from_named([["a", "b"], ["~b"]])
    >>> rec = prompt_record(f, "social", instance_id="demo", seed=2)
    >>> check_roundtrip(rec, f)["result"]
    'proved'
    >>> check_roundtrip(rec, Formula.from_named([["a", "b"], ["b"]]))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.CertificateError: clause 2 reads back as (~b) instead of (b) (line 3)
    """
    stored = record.roundtrip
    if stored is not None and stored.get("result") != "proved":
        raise CertificateError(
            f"prompt {record.id}: the stored round-trip proof says {stored.get('result')!r}"
        )
    scheme = TEMPLATES.get(record.template)
    if (record.true_value, record.false_value) != (scheme.true_value, scheme.false_value):
        raise CertificateError(
            f"prompt {record.id}: values {record.true_value!r}/{record.false_value!r} are not "
            f"the {scheme.name} values {scheme.true_value!r}/{scheme.false_value!r}"
        )
    from twosat_formal.solve.questions import NUMBERED

    return prove_roundtrip(
        formula, record.text, record.template, record.entities, numbered=record.ask in NUMBERED
    )
