"""Minimal twins: the same formula with one clause changed, and the opposite label.

A twin differs from its source in exactly one clause, and the change is read off the
source's structure, never drawn blindly:

UNSAT source: break the contradiction cycle
    The canonical contradiction cycle goes through the smallest variable ``x`` with
    ``x`` and ``~x`` in one strong component: the shortest walk ``x ~> ~x`` followed
    by the shortest walk ``~x ~> x``. Its clauses are tried in walk order (the seed
    picks where to start); the first clause ``k`` whose removal leaves a satisfiable
    formula is replaced by itself with one literal negated. That replacement always
    gives a satisfiable formula: every model of ``F - k`` falsifies clause ``k``
    (``F`` is UNSAT), so it makes the negated literal true. No twin exists when no
    clause of the cycle can go: then every clause change leaves a contradiction.
SAT source: close a contradiction cycle through existing implications
    ``F - k + c`` is UNSAT only if ``F - k`` forces every literal of ``c`` false, so a
    formula that forces no literal (empty backbone) has no twin. Otherwise two forced
    literals ``l1``, ``l2`` (``~l1 ~> l1`` and ``~l2 ~> l2`` in the implication graph)
    give the clause ``(~l1 | ~l2)``, which closes the cycle
    ``l1 -> ~l2 ~> l2 -> ~l1 ~> l1``. It replaces a clause ``k`` that neither
    derivation uses, so both survive; one that keeps the variables and the example
    entities of the prompt is preferred, so the two texts differ in one sentence. If
    every clause is on the derivations, the new clause is added instead. With one
    forced literal ``l`` the new clause is the unit ``(~l)``.

Every twin is solved again before it is returned; a twin record (:func:`twin_instance`)
carries ``twin_of``, the ``change``, and the change as an edit transform, so that
``certify`` replays it, re-solves both labels and re-derives the change
(:func:`check_twin`).

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["a", "b"], ["~a", "b"], ["a", "~b"], ["~a", "~b"]])
>>> change = choose_change(f)
>>> change.kind, change.reason, change.describe(f)
('replace', 'break-cycle', 'replace clause 3: (a | ~b) -> (~a | ~b)')
>>> g = Formula.from_named([["a"], ["~a", "b"], ["c", "d"]])
>>> change = choose_change(g)
>>> change.describe(g), change.cycle_text(g)
('replace clause 3: (c | d) -> (~a | ~b)', 'a -> ~b -> ~a -> a -> b -> ~a -> a')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonfields import fields_json
from twosat_formal.core.provenance import tool_version
from twosat_formal.core.records import ChangeRecord, read_record
from twosat_formal.errors import ConfigError, NotTwoCNFError, NoTwinError
from twosat_formal.evaluate.diagnostics.implications import Implications
from twosat_formal.io.instance import Instance, canonical_digest

__all__ = [
    "KINDS",
    "REASONS",
    "Change",
    "NoTwinError",
    "TwinRun",
    "check_twin",
    "choose_change",
    "one_clause_apart",
    "twin_instance",
    "twins",
]

#: How a twin differs from its source: one clause replaced, added or removed.
KINDS = ("replace", "add", "remove")
#: Why: the source's contradiction cycle broken, or a new one closed.
REASONS = ("break-cycle", "close-cycle")

ClauseT = tuple[int, ...]


@dataclass(frozen=True)
class Change:
    """The one-clause change from a source formula to its twin.

    Attributes
    ----------
    kind:
        ``replace``, ``add`` or ``remove`` (:data:`KINDS`).
    position:
        0-based index of the clause replaced or removed, or of the clause added.
    before, after:
        The clause taken out and the clause put in (``()`` for none).
    reason:
        ``break-cycle`` (UNSAT source) or ``close-cycle`` (SAT source).
    cycle:
        The contradiction cycle the change breaks (in the source) or closes (in the
        twin), as DIMACS literals.
    seed:
        The seed that picked among equally good changes.
    """

    kind: str
    position: int
    before: ClauseT
    after: ClauseT
    reason: str
    cycle: tuple[int, ...]
    seed: int

    def apply(self, formula: Formula) -> Formula:
        """The twin formula: same variables and names, one clause changed.

        Raises :class:`ConfigError` when ``before`` is not at ``position``.
        """
        clauses = [tuple(c) for c in formula.clauses]
        if self.kind == "add":
            if not 0 <= self.position <= len(clauses):
                raise ConfigError(f"the change adds a clause at {self.position + 1}, outside")
            clauses.insert(self.position, self.after)
        else:
            if not 0 <= self.position < len(clauses) or clauses[self.position] != self.before:
                raise ConfigError(
                    f"the change expects {list(self.before)} at clause {self.position + 1}"
                )
            if self.kind == "replace":
                clauses[self.position] = self.after
            else:
                del clauses[self.position]
        if any(abs(lit) > formula.num_vars for lit in self.after):
            raise ConfigError("the change writes a clause outside the formula's variables")
        return formula.with_clauses(clauses)

    def describe(self, formula: Formula) -> str:
        """One line for people, with the formula's names."""

        def show(clause: ClauseT) -> str:
            return f"({formula.clause_text(clause)})"

        if self.kind == "add":
            return f"add clause {self.position + 1}: {show(self.after)}"
        if self.kind == "remove":
            return f"remove clause {self.position + 1}: {show(self.before)}"
        return f"replace clause {self.position + 1}: {show(self.before)} -> {show(self.after)}"

    def cycle_text(self, formula: Formula) -> str:
        """The cycle as ``a -> ~b -> ... -> a``, with the formula's names."""
        lits = [*self.cycle, self.cycle[0]]
        return " -> ".join(formula.literal_name(lit) for lit in lits)

    def to_json(self, formula: Formula | None = None) -> dict[str, Any]:
        """The change as a JSON object; with ``formula``, clauses and cycle also as text."""
        obj = fields_json(self)  # in field order, the clauses and the cycle as lists
        if formula is not None:
            obj["description"] = self.describe(formula)
            obj["cycle_text"] = self.cycle_text(formula)
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Change:
        """Read a change written by :meth:`to_json` (text fields are ignored).

        The object is read through its typed model
        (:class:`~twosat_formal.core.records.ChangeRecord`); :class:`RecordError` names a
        missing or malformed field.
        """
        read = read_record(ChangeRecord, obj, what="a change")
        return cls(
            kind=read.kind,
            position=read.position,
            before=tuple(read.before),
            after=tuple(read.after),
            reason=read.reason,
            cycle=tuple(read.cycle),
            seed=read.seed,
        )


def _label(formula: Formula) -> str:
    from twosat_formal.solve import solve

    return solve(formula).status


def _conflict_variable(formula: Formula) -> int | None:
    """The smallest variable with ``x`` and ``~x`` in one strong component."""
    from twosat_formal.solve.graph import implication_graph
    from twosat_formal.solve.scc import conflicting_variables, strong_components

    found = conflicting_variables(strong_components(implication_graph(formula)))
    return int(found.min()) if found.size else None


def _appearance(clauses: Iterable[Sequence[int]]) -> list[int]:
    seen: dict[int, None] = {}
    for clause in clauses:
        for lit in clause:
            seen.setdefault(abs(lit), None)
    return list(seen)


def _break_cycle(formula: Formula, seed: int) -> Change:
    x, cycle, steps = _contradiction_cycle(formula)
    order = list(dict.fromkeys(steps))
    start = random.Random(seed).randrange(len(order))
    present = {tuple(sorted(set(c))) for c in formula.clauses}
    clauses = formula.clauses
    found: list[Change] = []
    for index in order[start:] + order[:start]:
        rest = formula.with_clauses(c for i, c in enumerate(clauses) if i != index)
        if _label(rest) != "SAT":
            continue
        clause = tuple(clauses[index])
        for after in _flips(clause):
            change = Change("replace", index, clause, after, "break-cycle", cycle, seed)
            if tuple(sorted(set(after))) not in present:
                return change  # a clause the formula does not have yet
            found.append(change)
    if found:
        return found[0]
    raise NoTwinError(
        "no clause of the contradiction cycle through "
        f"{formula.name(x)} can go: every one-clause change leaves a contradiction"
    )


def _contradiction_cycle(formula: Formula) -> tuple[int, tuple[int, ...], list[int]]:
    """The conflicting variable ``x`` of an UNSAT formula, the cycle ``x ~> ~x ~> x``
    and the indices of the clauses of its steps."""
    x = _conflict_variable(formula)
    if x is None:  # a 2-CNF is UNSAT iff some x and ~x share a component
        raise ConfigError("an UNSAT 2-CNF without a conflicting variable (a solver defect)")
    graph = Implications(formula)
    there, back = graph.walk(x, -x), graph.walk(-x, x)
    if there is None or back is None:
        raise ConfigError("x and ~x share a component but do not reach each other (a defect)")
    cycle = (*there[:-1], *back[:-1])
    return x, cycle, graph.walk_clauses([*cycle, cycle[0]])


def _flips(clause: ClauseT) -> list[ClauseT]:
    """The clauses with one literal of ``clause`` negated; (a | a) is the unit (a),
    negated whole."""
    if len(set(clause)) == 1:
        return [tuple(-lit for lit in clause)]
    return [(*clause[:k], -clause[k], *clause[k + 1 :]) for k in range(len(clause))]


def _close_cycle(formula: Formula, seed: int) -> Change:
    rng = random.Random(seed)
    after, cycle, used = _forced_cycle(formula, rng)
    clauses = [tuple(c) for c in formula.clauses]
    free = [i for i in range(len(clauses)) if i not in used]
    rng.shuffle(free)
    shown = _appearance(clauses)[:3]
    variables = set(_appearance(clauses))
    for index in free:
        # a replaced clause that keeps the variables and the first three shown
        order = _appearance([*clauses[:index], after, *clauses[index + 1 :]])
        if order[:3] == shown and set(order) == variables:
            return Change("replace", index, clauses[index], after, "close-cycle", cycle, seed)
    if free:
        return Change("replace", free[0], clauses[free[0]], after, "close-cycle", cycle, seed)
    return Change("add", len(clauses), (), after, "close-cycle", cycle, seed)


def _forced_cycle(
    formula: Formula, rng: random.Random
) -> tuple[ClauseT, tuple[int, ...], set[int]]:
    """The clause that closes a contradiction over one or two forced literals (drawn by
    ``rng``), the cycle it closes and the clauses their derivations use."""
    from twosat_formal.solve.analysis import analyze

    forced = sorted(analyze(formula).backbone, key=lambda lit: (abs(lit), lit < 0))
    if not forced:
        raise NoTwinError("the formula forces no literal, so no one-clause change makes it UNSAT")
    graph = Implications(formula)
    chosen = rng.sample(forced, min(2, len(forced)))
    chosen.sort(key=lambda lit: (abs(lit), lit < 0))
    derivations = []
    for lit in chosen:
        walk = graph.walk(-lit, lit)
        if walk is None:
            raise ConfigError(f"backbone literal {lit} has no derivation (a defect)")
        derivations.append(walk)
    used = {i for walk in derivations for i in graph.walk_clauses(walk)}
    if len(chosen) == 1:
        (l1,) = chosen
        return (-l1,), (l1, *derivations[0][:-1]), used
    l1, l2 = chosen
    w1, w2 = derivations
    # l1 -> ~l2 ~> l2 -> ~l1 ~> l1, the last step closing the cycle
    return (-l1, -l2), (l1, *w2, *w1[:-1]), used


def choose_change(formula: Formula, *, seed: int = 0) -> Change:
    """The one-clause change that gives ``formula`` the opposite label.

    Parameters
    ----------
    formula:
        A 2-CNF with at least one clause.
    seed:
        Picks among equally good changes (where on the cycle to break it; which forced
        literals and which clause when closing one).

    Raises
    ------
    NoTwinError
        When no one-clause change flips the label (the message says why).
    NotTwoCNFError
        For a formula with an empty clause or one wider than two.

    Examples
    --------
    >>> choose_change(Formula([[1, 2]]))
    Traceback (most recent call last):
    ...
    twosat_formal.errors.NoTwinError: the formula forces no literal, so no \
one-clause change makes it UNSAT
    """
    formula.require_2cnf("minimal twins")
    label = _label(formula)
    change = _break_cycle(formula, seed) if label == "UNSAT" else _close_cycle(formula, seed)
    from twosat_formal.solve import check_cycle

    twin = change.apply(formula)
    if _label(twin) == label:
        raise ConfigError(f"the twin of a {label} formula is {label} too (a defect)")
    check_cycle(formula if label == "UNSAT" else twin, change.cycle)
    return change


def one_clause_apart(a: Formula, b: Formula) -> bool:
    """Whether ``b`` is ``a`` with one clause replaced, added or removed (positions kept).

    >>> one_clause_apart(Formula([[1, 2], [2]]), Formula([[1, 2], [-2]]))
    True
    >>> one_clause_apart(Formula([[1, 2], [2]]), Formula([[2], [1, 2]]))
    False
    """
    x, y = list(a.clauses), list(b.clauses)
    if a.names != b.names:
        return False
    if len(x) == len(y):
        return sum(1 for p, q in zip(x, y, strict=True) if p != q) == 1
    short, long = (x, y) if len(x) < len(y) else (y, x)
    if len(long) != len(short) + 1:
        return False
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _twin_id(root_id: str, transforms: Sequence[Mapping[str, Any]]) -> str:
    steps = list(transforms)
    digest = canonical_digest({"base_id": root_id, "transforms": steps}, 12)
    return f"{root_id}~t{digest}"


def twin_instance(source: Instance, *, seed: int = 0) -> Instance:
    """The minimal twin of ``source``: its record carries ``twin_of`` and ``change``.

    The change is also appended to the source's transforms as an edit transform
    (``"kind": "edit"``, ``"mode": "twin"``, ``"origin"``: the source's id), so the
    twin is verbalized with its source's entity map and ``certify`` replays it.

    Raises
    ------
    NoTwinError
        When ``source`` has no twin.

    Examples
    --------
    >>> from twosat_formal.make.edits import root_instance
    >>> src = root_instance(Formula.from_named([["a"], ["~a"]]))
    >>> twin = twin_instance(src)
    >>> twin.twin_of == src.id, twin.label, twin.change["description"]
    (True, 'SAT', 'replace clause 1: (a) -> (~a)')
    """
    from twosat_formal.solve import solve
    from twosat_formal.solve.measures import instance_measures

    change = choose_change(source.formula, seed=seed)
    formula = change.apply(source.formula)
    result = solve(formula)
    step: dict[str, Any] = {
        "kind": "edit",
        "operator": f"twin-{change.kind}",
        "params": {"reason": change.reason},
        "position": change.position,
        "before": [list(change.before)] if change.before else [],
        "after": [list(change.after)] if change.after else [],
        "before_text": [source.formula.clause_text(change.before)] if change.before else [],
        "after_text": [source.formula.clause_text(change.after)] if change.after else [],
        "label_before": source.label,
        "label_after": result.status,
        "class": "changing",
        "mode": "twin",
        "level": 1,
        "origin": source.id,
        "seed": seed,
    }
    root_id = source.base_id if source.base_id is not None else source.id
    root_structure = source.structure if source.base_id is None else source.structure.get("base")
    transforms = (*source.transforms, step)
    provenance = dict(source.provenance)
    provenance["twin"] = {"tool_version": tool_version(), "seed": seed}
    return source.derive(
        _twin_id(root_id, transforms),
        formula,
        result.status,
        result.to_json(formula),
        structure={
            "base": dict(root_structure or {}),
            "twin": {"twin_of": source.id, "source_label": source.label},
        },
        provenance=provenance,
        base_id=root_id,
        transforms=transforms,
        twin_of=source.id,
        change=change.to_json(source.formula),
        measures=instance_measures(formula),
    )


@dataclass
class TwinRun:
    """What :func:`twins` made: the records to write, and the sources left without a twin."""

    records: list[Instance]
    pairs: int
    skipped: list[tuple[str, str]]

    def summary(self) -> str:
        """One line: pairs made and sources skipped."""
        text = f"{self.pairs} twins"
        if self.skipped:
            text += f", {len(self.skipped)} instances without a twin"
        return text


def twins(
    instances: Iterable[Instance],
    *,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> TwinRun:
    """Each instance followed by its twin (its root first when it is derived).

    An instance without a twin (a general CNF, an UNSAT formula with two disjoint
    contradictions, a SAT formula that forces nothing) is kept and listed in
    ``skipped`` with the reason. Twins of twins are not made: a twin in the input is
    carried as it is. Each id is written once, at its first place, so a twin already
    in the input (a dataset ``pairs`` wrote, read again with the same seed) is carried
    once. ``progress`` is called
    with ``(instance number, instances in all)`` as each instance is taken up.

    Examples
    --------
    >>> from twosat_formal.make.edits import root_instance
    >>> run = twins([root_instance(Formula([[1], [-1]])), root_instance(Formula([[1, 2]]))])
    >>> [r.label for r in run.records], run.pairs, len(run.skipped)
    (['UNSAT', 'SAT', 'SAT'], 1, 1)
    """
    sources = list(instances)
    by_id = {inst.id: inst for inst in sources}
    written: set[str] = set()
    records: list[Instance] = []
    skipped: list[tuple[str, str]] = []
    made = 0

    def keep(inst: Instance) -> None:
        if inst.id not in written:
            written.add(inst.id)
            records.append(inst)

    for done, source in enumerate(sources, 1):
        if progress is not None:
            progress(done, len(sources))
        if source.twin_of is not None:
            keep(source)
            continue
        if source.base_id is not None and source.base_id in by_id:
            keep(by_id[source.base_id])
        keep(source)
        try:
            twin = twin_instance(source, seed=seed)
        except (NoTwinError, NotTwoCNFError) as exc:
            skipped.append((source.id, str(exc)))
            continue
        keep(twin)
        made += 1
    return TwinRun(records, made, skipped)


def check_twin(twin: Instance, source: Instance | None) -> None:
    """Re-derive a twin from its source and re-solve both; raise if anything differs.

    Checks that the source is there, that the recorded change is the one
    :func:`choose_change` derives from the source (with the recorded seed), that it
    turns the source's formula into the twin's, that the two are one clause apart,
    and that PySAT gives them opposite labels that agree with the records.

    Raises
    ------
    ConfigError
        Naming what is wrong.

    Examples
    --------
    >>> from twosat_formal.make.edits import root_instance
    >>> src = root_instance(Formula([[1], [-1]]))
    >>> twin = twin_instance(src)
    >>> check_twin(twin, src)
    >>> import dataclasses
    >>> bad = dataclasses.replace(twin, formula=Formula([[1], [1]]))
    >>> check_twin(bad, src)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: the change does not turn the source into this twin
    """
    if twin.twin_of is None or twin.change is None:
        raise ConfigError("not a twin record (no twin_of or change)")
    if source is None:
        raise ConfigError(f"its source {twin.twin_of} is not in the dataset")
    if source.id != twin.twin_of:
        raise ConfigError(f"its source is {twin.twin_of}, not {source.id}")
    _check_change(twin, twin.change, source)
    _check_labels(twin, source)


def _check_change(twin: Instance, change: Mapping[str, Any], source: Instance) -> None:
    """The recorded ``change`` is the one the source derives, and it makes the twin."""
    recorded = Change.from_json(change)
    derived = choose_change(source.formula, seed=recorded.seed)
    if derived != recorded:
        raise ConfigError(
            "the recorded change is not the one the source's structure gives: "
            f"{derived.describe(source.formula)}"
        )
    if change != derived.to_json(source.formula):
        raise ConfigError("the change's text fields do not match the change")
    if derived.apply(source.formula) != twin.formula:
        raise ConfigError("the change does not turn the source into this twin")
    if not one_clause_apart(source.formula, twin.formula):
        raise ConfigError("the twin is not one clause apart from its source")


def _check_labels(twin: Instance, source: Instance) -> None:
    """PySAT gives the twin and its source the labels they record, and they differ."""
    from twosat_formal.solve import solve

    labels = {}
    for name, inst in (("source", source), ("twin", twin)):
        status = solve(inst.formula, "pysat").status
        if status != inst.label:
            raise ConfigError(f"the {name} is {status}, its record says {inst.label}")
        labels[name] = status
    if labels["source"] == labels["twin"]:
        raise ConfigError(f"the twin and its source are both {labels['twin']}")
