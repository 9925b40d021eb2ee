"""Question types beyond the decision: what a prompt asks of its formula.

``verbalize --ask TYPE`` (repeatable) chooses them; :data:`QUESTION_TYPES` lists them:

==============  =========================================================================
``decision``    the default: is the formula satisfiable (Yes/No, a witness on Yes)
``chain``       the decision with a contradiction chain on No (``--ask-cycle``)
``forced``      which entities have a value fixed by the rules, and which value
``entails``     if one entity has a value, must another have a given value
``core``        a smallest set of rules that cannot all hold together (UNSAT formulas)
``repair``      the fewest rules to drop so that the rest can hold (UNSAT formulas)
``maxsat``      an assignment that satisfies as many rules as possible (UNSAT formulas)
==============  =========================================================================

Each type in :data:`ASKED` has its fixed wording
(:mod:`twosat_formal.verbalize.questions`), a reference answer made on one path
(:mod:`.reference`), the same answer re-derived on another for ``certify``
(:mod:`twosat_formal.certify.questions`), and strict and lenient readers and a
judgement shared by ``eval`` and ``score`` (:mod:`twosat_formal.evaluate.scoring.questions`).
This package is the logic of the question types (what each asks of its formula);
each of the other parts lives in the layer that uses it, as one function driven by a
table keyed by :data:`ASKED` (the wording's templates, the reference answers, the
re-derivations, the judges), so a type is added by an entry in each table.

Examples
--------
>>> parse_ask(["forced", "chain", "forced"])
('chain', 'forced')
>>> parse_ask([])
('decision',)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeGuard

from twosat_formal.errors import ConfigError

__all__ = ["ASKED", "NUMBERED", "QUESTION_TYPES", "parse_ask", "rule_numbers"]

#: Every question type, in the order prompts are written.
QUESTION_TYPES: tuple[str, ...] = (
    "decision",
    "chain",
    "forced",
    "entails",
    "core",
    "repair",
    "maxsat",
)

#: The types with a question block of their own (the others are the decision prompt).
ASKED: tuple[str, ...] = ("forced", "entails", "core", "repair", "maxsat")

#: The types whose answer names rules by number: their prompts print each rule with
#: its number (:meth:`~twosat_formal.verbalize.schemes.Scheme.numbered`), and the
#: round trip reads the numbers back. The other prompts print the rules unnumbered.
NUMBERED: frozenset[str] = frozenset({"core", "repair"})


def parse_ask(values: Iterable[str]) -> tuple[str, ...]:
    """The question types named, deduplicated, in :data:`QUESTION_TYPES` order.

    No type at all is ``("decision",)``. An unknown name raises
    :class:`~twosat_formal.errors.ConfigError` listing the valid ones.

    >>> parse_ask(["entails", "decision"])
    ('decision', 'entails')
    """
    wanted = set()
    for value in values:
        if value not in QUESTION_TYPES:
            raise ConfigError(
                f"unknown question type {value!r}",
                parameter="--ask",
                valid=", ".join(QUESTION_TYPES),
            )
        wanted.add(value)
    return tuple(t for t in QUESTION_TYPES if t in wanted) or ("decision",)


def rule_numbers(value: Any, rules: int) -> TypeGuard[list[int]]:
    """Whether ``value`` is a JSON list of distinct rule numbers ``1..rules`` (the answer
    and the reference of a ``core`` or ``repair`` prompt).

    >>> rule_numbers([3, 1], 3), rule_numbers([1, 1], 3), rule_numbers([4], 3)
    (True, False, False)
    >>> rule_numbers([True], 3), rule_numbers("1", 3)
    (False, False)
    """
    return (
        isinstance(value, list)
        and all(type(n) is int and 1 <= n <= rules for n in value)
        and len(set(value)) == len(value)
    )
