"""Symbolic edits: solver-verified operator edits that preserve or change the label.

Seven edits (:data:`EDITS`) change one clause of a 2-CNF formula: negate one literal,
negate both literals, take the converse of an implication, substitute a variable, drop
the clause, insert a clause after it, or split it into its two unit clauses. Every
edited formula is solved and the edit classified as label-preserving or
label-changing; the edited instance stores the new label, its certificate and the edit
as a transform (position, clauses before and after).

:func:`apply_edit` makes one edit; :func:`cumulative_edits` chains up to ``K``
label-preserving edits, scanning the clauses once; :func:`individual_edits` makes
single edits kept apart by class. :mod:`twosat_formal.make.edits.metrics` has the
normalized accuracy, flip rate and original-answer retention computed over result rows.
See ``docs/edits.md``.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = root_instance(Formula.from_named([["~a", "b"], ["~b", "c"], ["a"]]))
>>> EDITS.names()
['negate-literal', 'negate-both', 'converse', 'substitute', 'drop', 'insert', 'split']
>>> edited = apply_edit(base, "converse", position=0)
>>> edited.instance.formula.clauses[0], edited.kind, edited.label
(Clause(1, -2), 'preserving', 'SAT')
"""

from twosat_formal.make.edits.classify import (
    CHANGING,
    CLASSES,
    PRESERVING,
    EditedInstance,
    EditOutcome,
    apply_edit,
    build_edited,
    classify_edit,
    edit_steps,
    replay_edits,
    root_instance,
    undo_edits,
)
from twosat_formal.make.edits.modes import (
    EDIT_MODES,
    KEEP,
    CumulativeChain,
    EditRun,
    IndividualEdits,
    cumulative_edits,
    edit_instances,
    edit_lines,
    individual_edits,
)
from twosat_formal.make.edits.operators import EDITS, Edit, EditOperator

__all__ = [
    "CHANGING",
    "CLASSES",
    "EDITS",
    "EDIT_MODES",
    "KEEP",
    "PRESERVING",
    "CumulativeChain",
    "Edit",
    "EditOperator",
    "EditOutcome",
    "EditRun",
    "EditedInstance",
    "IndividualEdits",
    "apply_edit",
    "build_edited",
    "classify_edit",
    "cumulative_edits",
    "edit_instances",
    "edit_lines",
    "edit_steps",
    "individual_edits",
    "replay_edits",
    "root_instance",
    "undo_edits",
]
