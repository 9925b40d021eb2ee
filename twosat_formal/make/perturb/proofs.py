"""Z3 proofs that a transform keeps the relation it claims between base and result.

Every proof is quantifier-free: it reduces to a few ``A ∧ ¬B`` queries that must come
back ``unsat``. A query that comes back ``sat`` yields a counterexample (an
assignment, by variable name of the result); one that comes back ``unknown`` is a
failure too. Both raise :class:`~twosat_formal.errors.ProofError`.

Write ``σ(base)`` for the base with each variable ``v`` replaced by the literal
``literal_map[v - 1]`` of the result. The relations and their proofs:

``equivalent`` (reorder, bridge-move)
    The map is the identity and ``base ⇔ result``: both ``base ∧ ¬result`` and
    ``result ∧ ¬base`` are unsat.
``equivalent-under-map`` (rename, flip)
    The map is a bijection between the variables (polarity flips allowed) and
    ``σ(base) ⇔ result``.
``conservative-extension`` (filler over fresh variables)
    The map is injective, the fresh variables are exactly the others, and the
    witness assigns each fresh variable once. ``result ∧ ¬σ(base)`` is unsat (every
    model of the result restricts to a model of the base) and
    ``σ(base) ∧ witness ∧ ¬result`` is unsat (every model of the base extends, by the
    witness, to a model of the result). So the models of the result, restricted to
    the shared variables, are exactly the models of the base.
``label-preserving-monotone`` (filler over existing variables)
    ``result ∧ ¬σ(base)`` is unsat (the result only adds constraints) and ``σ(base)``
    is unsat, so the result is unsat too.
``equisatisfiable-copy-product`` (duplicate)
    The maps have pairwise disjoint images that cover the result's variables, no
    clause is added, and each copy (the result's clauses whose source lies in that
    copy) uses only its own variables and is equivalent to ``σ_i(base)``. The result
    is the conjunction of variable-disjoint copies of the base, so it is SAT iff the
    base is (and has ``M^d`` models when the base has ``M``).

One Z3 context and solver serve a whole process; every query runs inside
``push``/``pop`` (see :class:`Z3Session` for how a query is encoded). An equivalence
is one query (:meth:`Z3Session.equivalent`); only when it fails are its two
directions asked apart, to name the failing one with its counterexample. ``certify``
asks the queries of all the steps of a record as one (:meth:`Z3Session.deferred`).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.make.perturb.transform import Transform
>>> base = Formula([[1, 2], [-1, 2]])
>>> t = Transform("reorder", {}, 0, "equivalent", ((1, 2),), (1, 0), 2)
>>> prove(base, t.rebuild(base), t).method
'z3:equivalence'
>>> bad = Formula([[1, 2], [1, -2]])
>>> prove(base, bad, t)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
twosat_formal.errors.ProofError: reorder: base and result are not equivalent: ...
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import TypeVar

import z3

from twosat_formal._util.per_process import Z3_USES, PerProcess
from twosat_formal._util.recent import Recent
from twosat_formal.core.formula import Formula
from twosat_formal.core.smt import declarations, smt_cnf
from twosat_formal.errors import ConfigError, ProofError
from twosat_formal.make.perturb.transform import Proof, Transform

__all__ = ["TIMEOUT_MS", "UNSAT_KEPT", "Z3Session", "prove", "session"]

#: Time limit of one Z3 query; a query that runs out comes back ``unknown`` (a failure).
TIMEOUT_MS = 300_000

#: How many unsat query texts a :class:`Z3Session` remembers.
UNSAT_KEPT = 256

Clauses = Sequence[Sequence[int]]

T = TypeVar("T")


def _line(clause: Sequence[int]) -> str:
    """One clause as a DIMACS line.

    >>> _line((1, -2)), _line([3]), _line(())
    ('1 -2 0', '3 0', '0')
    """
    if len(clause) == 2:  # most clauses: one f-string, about twice as fast as the join
        first, second = clause
        return f"{first} {second} 0"
    return " ".join([*map(str, clause), "0"])


def _dimacs(clauses: Clauses, num_vars: int) -> str:
    """The clauses as a DIMACS problem over variables ``1..num_vars``."""
    lines = list(map(_line, clauses))
    return f"p cnf {num_vars} {len(lines)}\n" + "\n".join(lines) + "\n"


def _top(*parts: Clauses) -> int:
    """The largest variable of the clauses (0 when there is none)."""
    return max(map(abs, chain.from_iterable(chain.from_iterable(parts))), default=0)


def _dimacs_model(model: z3.ModelRef, num_vars: int) -> dict[int, bool]:
    """The values of variables ``1..num_vars`` in Z3's model of a DIMACS problem."""
    value = {v: False for v in range(1, num_vars + 1)}
    for decl in model.decls():
        name = decl.name()
        # Z3 names DIMACS variable v "k!v"; the tests pin the variables read back
        known = name.startswith("k!") and name[2:].isdigit()  # no-mutate
        if known and int(name[2:]) in value:  # no-mutate
            value[int(name[2:])] = bool(z3.is_true(model[decl]))
    return value


def _differ(model: z3.ModelRef) -> bool:
    """What a satisfiable equivalence query gives: the two sides differ (the directions
    are asked apart for the counterexample)."""
    return True


class Z3Session:
    """A Z3 context with one solver; every query runs between ``push`` and ``pop``.

    A query is a CNF handed to Z3 in DIMACS (Z3's own reader names variable ``v``
    ``k!v``), which is many times faster than building the terms through the Python
    API. ``A ⊨ B`` is asked as "``A ∧ ¬B`` is unsat", with ``¬B`` in the usual
    definitional form: one fresh selector ``d_j`` per clause ``C_j`` of ``B``, clauses
    ``¬d_j ∨ ¬l`` for each literal ``l`` of ``C_j`` (``d_j`` falsifies ``C_j``) and one
    clause ``d_1 ∨ … ∨ d_k`` (some clause of ``B`` is false). That CNF is satisfiable
    exactly when ``A ∧ ¬B`` is, and its models restrict to counterexamples. An
    equivalence is one SMT-LIB query instead (:meth:`equivalent`).

    The session remembers the last :data:`UNSAT_KEPT` query texts Z3 found unsat and
    answers such a text again without asking (the very same query, byte for byte: the
    steps of a chain ask it when a step's result is the next step's base and both
    relations hold clause for clause, as ``flip`` then ``duplicate`` do). A query that
    is satisfiable or ``unknown`` is never remembered.

    >>> s = Z3Session()
    >>> s.entails([[1], [-1, 2]], [[2]]) is None
    True
    >>> s.entails([[1, 2]], [[2]])
    {1: True, 2: False}
    """

    def __init__(self, timeout_ms: int = TIMEOUT_MS) -> None:
        self.ctx = z3.Context()
        # Z3's bit-vector logic: on these pure Boolean CNFs, between push and pop, it
        # answers about twice as fast as QF_FD (benchmarks/bench_certify.py --mixed)
        self.solver = z3.SolverFor("QF_BV", ctx=self.ctx)
        self.solver.set("timeout", timeout_ms)
        #: Total seconds spent in this session's queries (encoding and checking).
        self.seconds = 0.0
        #: The last query texts Z3 found unsat, least recently asked first.
        self.unsat: Recent[str, None] = Recent(UNSAT_KEPT)
        #: The SMT-LIB variables ``v1..v{declared}`` declared in the solver so far.
        self.declared = 0
        #: Inside :meth:`deferred`: the queries kept to be asked as one at its end.
        self.pending: list[str] | None = None

    def satisfiable(self, clauses: Clauses, num_vars: int) -> dict[int, bool] | None:
        """``None`` if the CNF is unsat, else a model of it (variables ``1..num_vars``).

        Raises :class:`ProofError` when Z3 answers ``unknown``.
        """
        if self.pending is not None:  # asked with the others at the end of the block
            self._declare(num_vars)
            self.pending.append(smt_cnf(clauses))
            return None
        return self._decide(_dimacs(clauses, num_vars), num_vars)

    def _declare(self, num_vars: int) -> None:
        """Declare the SMT-LIB variables up to ``v{num_vars}`` (those not declared yet)."""
        if num_vars > self.declared:
            self.solver.from_string(declarations(self.declared, num_vars))
            self.declared = num_vars

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Ask the queries of a block as one query at its end.

        Inside the block every query is taken to come back unsat, as a proof that holds
        needs (an equivalence holds, an entailment has no counterexample, a formula has
        no model), and is kept; at the end they are asked together as the SMT-LIB
        disjunction ``(or Q1 Q2 …)`` of their CNFs (an equivalence, its ``xor``), which
        is unsat exactly when each of them is: one check of Z3 instead of one a query.
        Raises :class:`ProofError` when it is not (or Z3 cannot decide): then ask the
        block's work again outside this block, query by query, for the failing proof
        and its counterexample. A block inside another joins the outer one.

        >>> s = Z3Session()
        >>> with s.deferred():
        ...     s.equivalent([[1, 2]], [[2, 1]]), s.entails([[1], [-1, 2]], [[2]])
        (True, None)
        >>> with s.deferred():
        ...     s.entails([[1, 2]], [[2]])  # kept: taken as proven until the end
        Traceback (most recent call last):
        ...
        twosat_formal.errors.ProofError: the queries asked as one do not all come back unsat
        """
        if self.pending is not None:
            yield
            return
        self.pending = []
        try:
            yield
            pending = self.pending
        finally:
            self.pending = None
        if pending and self._ask(f"(assert (or {' '.join(pending)}))", _differ) is not None:
            raise ProofError("the queries asked as one do not all come back unsat")

    def _decide(self, text: str, num_vars: int) -> dict[int, bool] | None:
        """:meth:`satisfiable` of a problem already written as DIMACS ``text``."""
        return self._ask(text, lambda model: _dimacs_model(model, num_vars))

    def _ask(self, text: str, read: Callable[[z3.ModelRef], T]) -> T | None:
        """``None`` if the query ``text`` (DIMACS, or SMT-LIB over the declared ``v1..vn``)
        is unsat, else ``read`` of Z3's model of it; :class:`ProofError` when Z3 answers
        ``unknown``."""
        if self.unsat.seen(text):  # this very query was found unsat by Z3 in this session
            return None
        start = time.perf_counter()
        solver = self.solver
        solver.push()
        try:
            solver.from_string(text)
            answer = solver.check()
            if answer == z3.unsat:
                self.unsat.put(text, None)
                return None
            if answer != z3.sat:
                raise ProofError(f"Z3 answered unknown ({solver.reason_unknown()})")
            return read(solver.model())
        finally:
            solver.pop()
            self.seconds += time.perf_counter() - start

    def entails(
        self, premise: Clauses, conclusion: Clauses, units: Sequence[int] = ()
    ) -> dict[int, bool] | None:
        """``None`` if ``premise ∧ units`` entails ``conclusion``, else a counterexample."""
        top = max(_top(premise, conclusion), max((abs(u) for u in units), default=0))
        selectors = list(range(top + 1, top + 1 + len(conclusion)))
        query: list[Sequence[int]] = [*premise, *([u] for u in units)]
        for d, clause in zip(selectors, conclusion, strict=True):
            query.extend((-d, -lit) for lit in clause)
        query.append(selectors)
        model = self.satisfiable(query, top + len(selectors))
        if model is None:
            return None
        return {v: model[v] for v in range(1, top + 1)}

    def equivalent(self, left: Clauses, right: Clauses) -> bool:
        """Whether ``left ⇔ right``: one SMT-LIB query, ``(xor L R)`` must be unsat.

        ``L`` and ``R`` are the two clause lists as terms over ``v1..vn``
        (:func:`~twosat_formal.core.smt.smt_cnf`), declared once per session, outside
        ``push``/``pop``. Z3 shares equal terms, so a pair of equal clause lists (a
        renaming or a copy written clause for clause) is proven at once; the query is
        about half as long to answer as the two entailments in one CNF.

        >>> s = Z3Session()
        >>> s.equivalent([[1, 2], [-1, 2]], [[2]]), s.equivalent([[1, 2]], [[2]])
        (True, False)
        """
        self._declare(_top(left, right))
        term = smt_cnf(left)
        claim = f"(xor {term} {term if right == left else smt_cnf(right)})"
        if self.pending is not None:  # asked with the others at the end of the block
            self.pending.append(claim)
            return True
        return self._ask(f"(assert {claim})", _differ) is None

    def model_of(self, clauses: Clauses) -> dict[int, bool] | None:
        """``None`` if the clauses are unsat, else a model of them."""
        return self.satisfiable(clauses, _top(clauses))


#: The Z3 session of this process (a fresh one in a forked worker).
session: PerProcess[Z3Session] = PerProcess(Z3Session, uses=Z3_USES)


# -- helpers ---------------------------------------------------------------------------------


def _mapped(base: Formula, lmap: Sequence[int]) -> list[tuple[int, ...]]:
    """The base's clauses with each variable replaced by its literal in ``lmap``.

    ``lmap`` has one entry per base variable (the shape check comes first).
    """
    # table[lit] for a literal of the base: lmap[v - 1] for v, its negation for -v
    # (entry 0 is never read: no clause holds the literal 0)
    table = [0, *lmap, *(-lit for lit in reversed(lmap))]  # no-mutate
    return [tuple(map(table.__getitem__, c)) for c in base.clauses]


def _satisfies(clauses: Clauses, model: dict[int, bool]) -> bool:
    return all(any(model.get(abs(lit)) == (lit > 0) for lit in c) for c in clauses)


def _named(formula: Formula, model: dict[int, bool]) -> dict[str, bool]:
    return {formula.name(v): value for v, value in model.items() if 1 <= v <= formula.num_vars}


class _Context:
    def __init__(self, base: Formula, result: Formula, transform: Transform) -> None:
        self.base = base
        self.result = result
        self.t = transform
        self.z3 = session()
        self.result_clauses: list[tuple[int, ...]] = list(result.clauses)

    def fail(self, message: str, model: dict[int, bool] | None = None) -> ProofError:
        counterexample = _named(self.result, model) if model is not None else None
        return ProofError(f"{self.t.operator}: {message}", counterexample=counterexample)

    def entails(
        self, premise: Clauses, conclusion: Clauses, message: str, units: Sequence[int] = ()
    ) -> None:
        model = self.z3.entails(premise, conclusion, units)
        if model is not None:
            checked = (  # a defensive re-check of Z3's model; the tests pin its outcome
                _satisfies(premise, model)  # no-mutate
                and all(model.get(abs(u)) == (u > 0) for u in units)
                and not _satisfies(conclusion, model)
            )
            raise self.fail(message, model if checked else None)

    def equivalent(self, left: Clauses, right: Clauses, message: str, sides: str) -> None:
        if self.z3.equivalent(left, right):
            return
        # not equivalent: ask each direction alone for the failing one and its model
        first, second = sides.split("/")
        self.entails(left, right, f"{message}: a model of the {first} falsifies the {second}")
        self.entails(right, left, f"{message}: a model of the {second} falsifies the {first}")
        raise self.fail(f"{message}: the equivalence query and the two entailments disagree")

    def injective(self, lmap: Sequence[int], what: str) -> set[int]:
        image = [abs(lit) for lit in lmap]
        if len(set(image)) != len(image):
            raise self.fail(f"{what} sends two base variables to the same variable")
        return set(image)

    def single_map(self, what: str) -> tuple[tuple[int, ...], set[int]]:
        """The one literal map of ``what`` (a renaming, an extension) and its image."""
        if self.t.copies != 1:
            raise self.fail(f"{what} has exactly one literal map")
        lmap = self.t.literal_map[0]
        return lmap, self.injective(lmap, "the literal map")

    def no_fresh_parts(self) -> None:
        if self.t.fresh_vars or self.t.witness or self.t.added_clauses:
            raise self.fail(f"relation {self.t.relation!r} allows no fresh variables or clauses")


def _equivalent(c: _Context) -> str:
    n = c.base.num_vars
    if c.t.literal_map != (tuple(range(1, n + 1)),) or c.result.num_vars != n:
        raise c.fail("an equivalence must keep every variable (identity literal map)")
    c.no_fresh_parts()
    base_clauses = [tuple(cl) for cl in c.base.clauses]
    c.equivalent(
        base_clauses, c.result_clauses, "base and result are not equivalent", "base/result"
    )
    return "z3:equivalence"


def _equivalent_under_map(c: _Context) -> str:
    lmap, image = c.single_map("a renaming")
    if image != set(range(1, c.result.num_vars + 1)):
        raise c.fail("the literal map is not onto the result's variables")
    c.no_fresh_parts()
    c.equivalent(
        _mapped(c.base, lmap),
        c.result_clauses,
        "the result is not the base under the literal map",
        "mapped base/result",
    )
    return "z3:equivalence-under-map"


def _conservative_extension(c: _Context) -> str:
    lmap, image = c.single_map("an extension")
    fresh = set(range(1, c.result.num_vars + 1)) - image
    if set(c.t.fresh_vars) != fresh or len(c.t.fresh_vars) != len(fresh):
        raise c.fail("the recorded fresh variables are not the variables outside the map")
    if sorted(abs(w) for w in c.t.witness) != sorted(fresh):
        raise c.fail("the witness must give each fresh variable exactly one value")
    mapped = _mapped(c.base, lmap)
    c.entails(c.result_clauses, mapped, "the result does not entail the base")
    c.entails(
        mapped,
        c.result_clauses,
        "the witness does not extend every model of the base to a model of the result",
        units=c.t.witness,
    )
    return "z3:conservative-extension+witness"


def _monotone(c: _Context) -> str:
    lmap, _ = c.single_map("a monotone extension")
    mapped = _mapped(c.base, lmap)
    c.entails(c.result_clauses, mapped, "the result does not contain the base's constraints")
    model = c.z3.model_of(mapped)
    if model is not None:
        checked = model if _satisfies(mapped, model) else None
        raise c.fail("the base is satisfiable, so adding clauses may change its label", checked)
    return "z3:monotonicity+base-unsat"


def _copy_images(c: _Context) -> list[set[int]]:
    """The variables of each copy: injective maps onto disjoint sets that cover the result."""
    images: list[set[int]] = []
    for k, lmap in enumerate(c.t.literal_map):
        image = c.injective(lmap, f"literal map {k}")
        if any(image & other for other in images):
            raise c.fail(f"copy {k} shares variables with an earlier copy")
        images.append(image)
    if set().union(*images) != set(range(1, c.result.num_vars + 1)):
        raise c.fail("the copies do not cover the result's variables")
    return images


def _copy_parts(c: _Context) -> list[list[tuple[int, ...]]]:
    """The result's clauses, grouped by the copy each comes from."""
    m = c.base.num_clauses
    # check_shape made the permutation one entry per clause of each copy (none are added)
    if c.result.num_clauses != len(c.t.clause_permutation):
        raise c.fail("the result does not have one clause per clause of each copy")
    parts: list[list[tuple[int, ...]]] = [[] for _ in range(c.t.copies)]
    for position, source in enumerate(c.t.clause_permutation):
        parts[source // m].append(c.result_clauses[position])
    return parts


def _copy_product(c: _Context) -> str:
    t = c.t
    if t.added_clauses or t.fresh_vars or t.witness:
        raise c.fail("a copy product adds no clauses and no fresh variables")
    images = _copy_images(c)
    parts = _copy_parts(c)
    for k, (part, lmap, image) in enumerate(zip(parts, t.literal_map, images, strict=True)):
        if any(abs(lit) not in image for cl in part for lit in cl):
            raise c.fail(f"copy {k} uses variables of another copy")
        c.equivalent(
            _mapped(c.base, lmap),
            part,
            f"copy {k} is not the base under its literal map",
            "mapped base/copy",
        )
    return "z3:copy-product"


_PROVERS: dict[str, Callable[[_Context], str]] = {
    "equivalent": _equivalent,
    "equivalent-under-map": _equivalent_under_map,
    "conservative-extension": _conservative_extension,
    "label-preserving-monotone": _monotone,
    "equisatisfiable-copy-product": _copy_product,
}


def prove(base: Formula, transformed: Formula, transform: Transform) -> Proof:
    """Prove that ``transformed`` stands in ``transform.relation`` to ``base``.

    Parameters
    ----------
    base:
        The formula the transform was applied to.
    transformed:
        The formula it produced.
    transform:
        The record of the step; its maps, fresh variables and witness are used as
        the proof's certificate.

    Returns
    -------
    Proof
        ``result == "proved"`` and the seconds the proof took.

    Raises
    ------
    ProofError
        If the relation does not hold (with a counterexample when Z3 found one),
        if Z3 answers ``unknown``, or if the transform does not fit the formulas.

    Examples
    --------
    >>> from twosat_formal.make.perturb.transform import Transform
    >>> base = Formula([[1, -2]])
    >>> t = Transform("flip", {}, 0, "equivalent-under-map", ((-1, 2),), (0,), 2)
    >>> prove(base, Formula([[-1, -2]]), t).result
    'proved'
    """
    start = time.perf_counter()
    try:
        transform.check_shape(base)
    except ConfigError as exc:
        raise ProofError(f"{transform.operator}: {exc}") from None
    if transformed.num_vars != transform.num_vars:
        raise ProofError(
            f"{transform.operator}: the result has {transformed.num_vars} variables, "
            f"the transform records {transform.num_vars}"
        )
    prover = _PROVERS[transform.relation]
    method = prover(_Context(base, transformed, transform))
    return Proof(method, "proved", time.perf_counter() - start)
