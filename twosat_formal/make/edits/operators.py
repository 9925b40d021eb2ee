"""The seven symbolic edits on 2-CNF formulas, registered by name in :data:`EDITS`.

Five are **operator edits** (category ``"operator"``): they change the logic of one
clause. Two are **premise edits** (category ``"premise"``): ``drop`` and ``insert``
take a premise out or add one; ``drop`` on a satisfiable formula and ``insert`` on an
unsatisfiable one keep the label trivially, and only ``insert`` can make a satisfiable
formula unsatisfiable. :func:`default_operators` gives the operator edits alone, the
default of every edit run; premise edits are used when asked for.

An :class:`Edit` is a *splice*: at clause ``position`` it takes out the clauses
``before`` (zero or one) and puts the clauses ``after`` (zero, one or two) in their
place. Every edit keeps the formula's variables and names, so an edited formula is
verbalized with its base's entity map and only the edited clause's sentence changes.

====================  ==================================  ==============================
name                  clause ``i`` (``a``, ``b`` literals)  applies to
====================  ==================================  ==============================
``negate-literal``    ``(a | b)`` → ``(~a | b)``            any clause (one literal)
``negate-both``       ``(a | b)`` → ``(~a | ~b)``           two-literal clauses
``converse``          ``(~a | b)`` → ``(a | ~b)``           implications: one negative
                                                            and one positive literal
``substitute``        ``(a | b)`` → ``(c | b)``             any clause; ``c`` another
                                                            variable of the formula, same
                                                            polarity
``drop``              ``(a | b)`` → nothing                 formulas of 2+ clauses
``insert``            adds ``(c | d)`` after clause ``i``   formulas of 2+ variables
``split``             ``(a | b)`` → ``(a)``, ``(b)``         two distinct literals
====================  ==================================  ==============================

``converse`` reads ``(~a | b)`` as ``a -> b`` and turns it into ``b -> a``; on such a
clause it gives the same clause as ``negate-both``, under a name that records the
intent. ``drop`` and ``insert`` are premise edits; the others are operator edits.
No edit returns its input clause, a tautology, or (``insert``) a clause the
formula already has.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> f = Formula.from_named([["~a", "b"], ["b", "c"]])
>>> [e.after for e in EDITS.get("converse").options(f, 0)]
[((1, -2),)]
>>> edit = EDITS.get("split").options(f, 1)[0]
>>> edit.apply(f).clauses
(Clause(-1, 2), Clause(2), Clause(3))
>>> edit.describe(f)
'split at clause 2: (b | c) -> (b) & (c)'
>>> default_operators(), default_operators(premise=True)[-2:]
(('negate-literal', 'negate-both', 'converse', 'substitute', 'split'), ('drop', 'insert'))
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from twosat_formal._util.registry import Registry
from twosat_formal.core.formula import Formula
from twosat_formal.core.records import EditSplice, read_record
from twosat_formal.errors import ConfigError
from twosat_formal.make.checks import check_int

__all__ = [
    "CATEGORIES",
    "EDITS",
    "OPERATOR",
    "PREMISE",
    "Converse",
    "Drop",
    "Edit",
    "EditOperator",
    "Insert",
    "NegateBoth",
    "NegateLiteral",
    "Split",
    "Substitute",
    "category_of",
    "default_operators",
]

#: The category of an edit that changes the logic of one clause.
OPERATOR = "operator"
#: The category of an edit that takes a premise out or adds one (``drop``, ``insert``).
PREMISE = "premise"
#: Both categories, operator edits first.
CATEGORIES = (OPERATOR, PREMISE)

#: A clause as a tuple of DIMACS literals.
ClauseT = tuple[int, ...]


def _is_tautology(clause: Sequence[int]) -> bool:
    return any(-lit in clause for lit in clause)


def _same_set(a: Sequence[int], b: Sequence[int]) -> bool:
    return sorted(set(a)) == sorted(set(b))


@dataclass(frozen=True)
class Edit:
    """One edit: at ``position``, the clauses ``before`` are replaced by ``after``.

    Parameters
    ----------
    operator:
        The name of the edit in :data:`EDITS`.
    position:
        0-based index of the first clause taken out (for ``insert``, of the new clause).
    before:
        The clauses taken out, as they are in the formula (one, or none for ``insert``).
    after:
        The clauses put in their place (none for ``drop``, two for ``split``).
    params:
        What the operator chose (``{"literal": 0}``, ``{"literal": 1, "old": 3,
        "new": 5}``...), as JSON values.

    Examples
    --------
    >>> e = Edit("negate-literal", 0, ((1, 2),), ((-1, 2),), {"literal": 0})
    >>> e.apply(Formula([[1, 2], [2]])).clauses
    (Clause(-1, 2), Clause(2))
    >>> Edit.from_json(e.to_json()) == e
    True
    """

    operator: str
    position: int
    before: tuple[ClauseT, ...]
    after: tuple[ClauseT, ...]
    params: Mapping[str, Any] = field(default_factory=dict)

    def check(self, formula: Formula) -> None:
        """Raise :class:`ConfigError` unless ``before`` sits at ``position`` of ``formula``."""
        end = self.position + len(self.before)
        if not 0 <= self.position <= formula.num_clauses or end > formula.num_clauses:
            raise ConfigError(
                f"edit {self.operator} at clause {self.position + 1} is outside the "
                f"{formula.num_clauses} clauses",
                parameter="position",
                valid=f"0..{formula.num_clauses}",
            )
        found = tuple(tuple(c) for c in formula.clauses[self.position : end])
        if found != self.before:
            raise ConfigError(
                f"edit {self.operator} expects {list(map(list, self.before))} at clause "
                f"{self.position + 1}, the formula has {list(map(list, found))}",
                parameter="before",
            )
        self._check_after(formula.num_vars)

    def _check_after(self, num_vars: int) -> None:
        """Refuse an empty clause put in, or one outside variables ``1..num_vars``."""
        used = [abs(lit) for c in self.after for lit in c]
        if any(v < 1 or v > num_vars for v in used) or any(not c for c in self.after):
            raise ConfigError(
                f"edit {self.operator} writes a clause outside variables 1..{num_vars}",
                parameter="after",
            )

    def apply(self, formula: Formula) -> Formula:
        """The edited formula: same variables and names, the splice done."""
        self.check(formula)
        clauses: list[tuple[int, ...]] = [tuple(c) for c in formula.clauses]
        clauses[self.position : self.position + len(self.before)] = self.after
        return formula.with_clauses(clauses)

    def describe(self, formula: Formula) -> str:
        """One line for people, with the formula's names."""

        def show(clauses: tuple[ClauseT, ...]) -> str:
            if not clauses:
                return "nothing"
            return " & ".join(f"({formula.clause_text(c)})" for c in clauses)

        return (
            f"{self.operator} at clause {self.position + 1}: "
            f"{show(self.before)} -> {show(self.after)}"
        )

    def to_json(self, formula: Formula | None = None) -> dict[str, Any]:
        """The edit as a JSON object; with ``formula``, the clauses also as named text.

        >>> Edit("drop", 1, ((2, 3),), ()).to_json(Formula([[1], [2, 3]]))["before_text"]
        ['x2 | x3']
        """
        obj: dict[str, Any] = {
            "operator": self.operator,
            "params": dict(self.params),
            "position": self.position,
            "before": [list(c) for c in self.before],
            "after": [list(c) for c in self.after],
        }
        if formula is not None:
            obj["before_text"] = [formula.clause_text(c) for c in self.before]
            obj["after_text"] = [formula.clause_text(c) for c in self.after]
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Edit:
        """Read an edit written by :meth:`to_json` (extra fields are ignored).

        The object is read through its typed model
        (:class:`~twosat_formal.core.records.EditSplice`); :class:`RecordError` names the
        field that is missing or malformed.

        >>> Edit.from_json({"operator": "drop", "position": -1, "before": [], "after": []})
        Traceback (most recent call last):
        ...
        twosat_formal.errors.RecordError: field 'position' must be >= 0, not -1
        """
        read = read_record(EditSplice, obj, what="an edit")
        return cls(
            operator=read.operator,
            position=read.position,
            before=tuple(tuple(c) for c in read.before),
            after=tuple(tuple(c) for c in read.after),
            params=dict(read.params),
        )


class EditOperator:
    """An edit that can be made at a clause: all its options there, or a seeded draw.

    Subclasses set :attr:`name`, :attr:`summary` and (for a premise edit)
    :attr:`category`, and implement :meth:`options`.
    """

    name: str = ""
    summary: str = ""
    #: :data:`OPERATOR` or :data:`PREMISE`.
    category: str = OPERATOR

    def options(self, formula: Formula, index: int) -> list[Edit]:
        """Every edit this operator can make at clause ``index`` (0-based), in a fixed order."""
        raise NotImplementedError

    def is_option(self, formula: Formula, edit: Edit) -> bool:
        """Whether ``edit`` equals one of :meth:`options` at its position (``False``
        for a position outside the clauses)."""
        if not 0 <= edit.position < formula.num_clauses:
            return False
        return any(edit == option for option in self.options(formula, edit.position))

    def draw(self, formula: Formula, index: int, rng: random.Random) -> Edit | None:
        """One of :meth:`options`, drawn with ``rng``; ``None`` if there is none.

        >>> f = Formula([[1, 2], [-1, 3]])
        >>> EDITS.get("negate-both").draw(f, 0, random.Random(0)).after
        ((-1, -2),)
        """
        choices = self.options(formula, index)
        return rng.choice(choices) if choices else None

    def _clause(self, formula: Formula, index: int) -> ClauseT:
        if not 0 <= check_int(index, "position") < formula.num_clauses:
            raise ConfigError(
                f"clause index {index} is outside the {formula.num_clauses} clauses",
                parameter="position",
                valid=f"0..{formula.num_clauses - 1}",
            )
        return tuple(formula.clauses[index])

    def _replace(
        self, index: int, original: ClauseT, replacement: ClauseT, **params: Any
    ) -> list[Edit]:
        if _is_tautology(replacement) or _same_set(replacement, original):
            return []
        return [Edit(self.name, index, (original,), (replacement,), params)]

    def __repr__(self) -> str:
        return f"<edit {self.name}>"


#: The edits, by name, in the order of the specification.
EDITS: Registry[EditOperator] = Registry("edit")


class NegateLiteral(EditOperator):
    """Negate one literal of the clause.

    >>> [e.after for e in NegateLiteral().options(Formula([[1, -2]]), 0)]
    [((-1, -2),), ((1, 2),)]
    """

    name = "negate-literal"
    summary = "negate one literal of a clause: (a | b) -> (~a | b)"

    def options(self, formula: Formula, index: int) -> list[Edit]:
        clause = self._clause(formula, index)
        edits: list[Edit] = []
        for k in range(len(clause)):
            new = (*clause[:k], -clause[k], *clause[k + 1 :])
            edits += self._replace(index, clause, new, literal=k)
        return edits


class NegateBoth(EditOperator):
    """Negate both literals of a two-literal clause.

    >>> [e.after for e in NegateBoth().options(Formula([[1, 2]]), 0)]
    [((-1, -2),)]
    """

    name = "negate-both"
    summary = "negate both literals of a clause: (a | b) -> (~a | ~b)"

    def options(self, formula: Formula, index: int) -> list[Edit]:
        clause = self._clause(formula, index)
        if len(clause) != 2:
            return []
        return self._replace(index, clause, (-clause[0], -clause[1]))


class Converse(EditOperator):
    """Turn an implication around: ``(~a | b)`` (``a -> b``) becomes ``(a | ~b)`` (``b -> a``).

    >>> Converse().options(Formula([[1, 2]]), 0)
    []
    >>> [e.after for e in Converse().options(Formula([[2, -1]]), 0)]
    [((-2, 1),)]
    """

    name = "converse"
    summary = "turn an implication around: (~a | b) -> (a | ~b)"

    def options(self, formula: Formula, index: int) -> list[Edit]:
        clause = self._clause(formula, index)
        if len(clause) != 2 or (clause[0] > 0) == (clause[1] > 0):
            return []
        return self._replace(index, clause, (-clause[0], -clause[1]))


class Substitute(EditOperator):
    """Replace a literal's variable with another variable of the formula (same polarity).

    The new variable is one that occurs in some clause and not in this one.

    >>> f = Formula([[1, -2], [3]])
    >>> [(e.params["new"], e.after) for e in Substitute().options(f, 0)]
    [(3, ((3, -2),)), (3, ((1, -3),))]
    """

    name = "substitute"
    summary = "replace a literal's variable with another variable of the formula"

    def options(self, formula: Formula, index: int) -> list[Edit]:
        clause = self._clause(formula, index)
        inside = {abs(lit) for lit in clause}
        others = sorted(formula.used_variables - inside)
        edits: list[Edit] = []
        for k, lit in enumerate(clause):
            for var in others:
                new_lit = var if lit > 0 else -var
                new = (*clause[:k], new_lit, *clause[k + 1 :])
                edits += self._replace(index, clause, new, literal=k, old=abs(lit), new=var)
        return edits

    def is_option(self, formula: Formula, edit: Edit) -> bool:
        """:meth:`EditOperator.is_option`, building only the options that could equal
        ``edit``: those of the literal and the new variable its parameters name (equal
        as ``==`` compares them), not every literal with every other variable."""
        if not 0 <= edit.position < formula.num_clauses:
            return False
        clause = self._clause(formula, edit.position)
        inside = {abs(lit) for lit in clause}
        named, new_var = edit.params.get("literal"), edit.params.get("new")
        for k, lit in enumerate(clause):
            if k != named:
                continue
            for var in sorted(formula.used_variables - inside):
                if var != new_var:
                    continue
                new = (*clause[:k], var if lit > 0 else -var, *clause[k + 1 :])
                options = self._replace(
                    edit.position, clause, new, literal=k, old=abs(lit), new=var
                )
                if any(edit == option for option in options):
                    return True
        return False

    def draw(self, formula: Formula, index: int, rng: random.Random) -> Edit | None:
        clause = self._clause(formula, index)
        inside = {abs(lit) for lit in clause}
        others = sorted(formula.used_variables - inside)
        if not others:
            return None
        k = rng.randrange(len(clause))
        var = rng.choice(others)
        lit = clause[k]
        new = (*clause[:k], var if lit > 0 else -var, *clause[k + 1 :])
        found = self._replace(index, clause, new, literal=k, old=abs(lit), new=var)
        return found[0] if found else None


class Drop(EditOperator):
    """Take the clause out (the formula keeps at least one clause).

    >>> Drop().options(Formula([[1, 2], [2]]), 1)[0].apply(Formula([[1, 2], [2]])).clauses
    (Clause(1, 2),)
    """

    name = "drop"
    summary = "drop a clause (a premise edit)"
    category = PREMISE

    def options(self, formula: Formula, index: int) -> list[Edit]:
        clause = self._clause(formula, index)
        if formula.num_clauses < 2:
            return []
        return [Edit(self.name, index, (clause,), ())]


class Insert(EditOperator):
    """Insert a new two-literal clause right after the clause, over two variables in use.

    The new clause is not a tautology and not already in the formula (in any order).

    >>> f = Formula([[1, 2]])
    >>> [e.after for e in Insert().options(f, 0)]
    [((1, -2),), ((-1, 2),), ((-1, -2),)]
    """

    name = "insert"
    summary = "insert a clause (c | d) over variables of the formula (a premise edit)"
    category = PREMISE

    #: Draws tried before :meth:`draw` falls back to listing every option.
    tries = 64

    def _present(self, formula: Formula) -> set[tuple[int, ...]]:
        return {tuple(sorted(set(c))) for c in formula.clauses}

    def options(self, formula: Formula, index: int) -> list[Edit]:
        self._clause(formula, index)
        used = sorted(formula.used_variables)
        present = self._present(formula)
        edits = []
        for i, u in enumerate(used):
            for v in used[i + 1 :]:
                for a, b in ((u, v), (u, -v), (-u, v), (-u, -v)):
                    if tuple(sorted((a, b))) not in present:
                        edits.append(Edit(self.name, index + 1, (), ((a, b),)))
        return edits

    def is_option(self, formula: Formula, edit: Edit) -> bool:
        """Whether ``edit`` is one of :meth:`options` after its clause (an insertion's
        position is the clause it follows, plus one), read off the edit itself: a new
        two-literal clause over two variables in use, in order, not in the formula."""
        index = edit.position - 1
        if not 0 <= index < formula.num_clauses or edit.before or dict(edit.params):
            return False
        if len(edit.after) != 1 or len(edit.after[0]) != 2:
            return False
        a, b = edit.after[0]
        used = formula.used_variables
        return (
            0 < abs(a) < abs(b)
            and abs(a) in used
            and abs(b) in used
            and tuple(sorted((a, b))) not in self._present(formula)
        )

    def draw(self, formula: Formula, index: int, rng: random.Random) -> Edit | None:
        self._clause(formula, index)
        used = sorted(formula.used_variables)
        if len(used) < 2:
            return None
        present = self._present(formula)
        for _ in range(self.tries):
            u, v = sorted(rng.sample(used, 2))
            a, b = (u if rng.random() < 0.5 else -u), (v if rng.random() < 0.5 else -v)
            if tuple(sorted((a, b))) not in present:
                return Edit(self.name, index + 1, (), ((a, b),))
        return super().draw(formula, index, rng)


class Split(EditOperator):
    """Split ``(a | b)`` into the unit clauses ``(a)`` and ``(b)`` (or becomes and).

    >>> Split().options(Formula([[1, -2]]), 0)[0].after
    ((1,), (-2,))
    """

    name = "split"
    summary = "split a clause into its two unit clauses: (a | b) -> (a) & (b)"

    def options(self, formula: Formula, index: int) -> list[Edit]:
        clause = self._clause(formula, index)
        if len(clause) != 2 or clause[0] == clause[1]:
            return []
        return [Edit(self.name, index, (clause,), ((clause[0],), (clause[1],)))]


for _operator in (NegateLiteral, NegateBoth, Converse, Substitute, Drop, Insert, Split):
    EDITS.add(_operator.name, _operator())


def default_operators(*, premise: bool = False) -> tuple[str, ...]:
    """The edits an edit run uses unless told otherwise: the operator edits, in registry order.

    With ``premise``, the premise edits (``drop``, ``insert``) follow them.

    >>> "drop" in default_operators(), "drop" in default_operators(premise=True)
    (False, True)
    """
    chosen = [name for name, op in EDITS.items() if op.category == OPERATOR]
    if premise:
        chosen += [name for name, op in EDITS.items() if op.category == PREMISE]
    return tuple(chosen)


def category_of(operator: str) -> str:
    """The category of the edit named ``operator`` (:data:`OPERATOR` or :data:`PREMISE`).

    >>> category_of("insert"), category_of("converse")
    ('premise', 'operator')
    """
    return EDITS.get(operator).category
