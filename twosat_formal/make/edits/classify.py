"""Solve every edited formula, classify the edit, and build the edited instance.

An edit is **label-preserving** when the solver gives the edited formula the label of
the formula it edits, and **label-changing** otherwise. The edited instance carries
the new label and the solver's certificate, ``base_id`` = the id of its root, and
``transforms`` = the root's chain followed by one *edit transform* per edit::

    {"kind": "edit", "operator": "negate-literal", "category": "operator",
     "params": {"literal": 0}, "position": 3, "before": [[1, -2]], "after": [[-1, -2]],
     "before_text": ["a | ~b"], "after_text": ["~a | ~b"],
     "label_before": "SAT", "label_after": "SAT", "class": "preserving",
     "mode": "cumulative", "level": 1, "origin": "<id of the unedited instance>",
     "seed": 1234}

``category`` is ``"operator"``, or ``"premise"`` for ``drop`` and ``insert``
(:data:`~twosat_formal.make.edits.operators.CATEGORIES`); ``position`` is 0-based in the
formula the edit is applied to; ``level`` is the
edit's place in its chain (1 for the first edit); ``origin`` names the unedited
instance the chain starts from (the root, or a perturbed instance). :func:`replay_edits`
re-applies edit transforms from their recorded fields alone.

Examples
--------
>>> from twosat_formal.core.formula import Formula
>>> base = root_instance(Formula.from_named([["a", "b"], ["~a", "b"]]))
>>> base.label
'SAT'
>>> edited = apply_edit(base, "negate-literal", position=1, seed=0)
>>> edited.kind, edited.label, edited.level
('preserving', 'SAT', 1)
>>> step = edited.instance.transforms[-1]
>>> step["before_text"], step["after_text"]
(['~a | b'], ['~a | ~b'])
>>> replay_edits(base.formula, edited.instance.transforms) == edited.instance.formula
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twosat_formal.core.formula import Formula
from twosat_formal.core.provenance import tool_version
from twosat_formal.errors import ConfigError, RecordError
from twosat_formal.io.instance import Instance, canonical_digest
from twosat_formal.make.checks import check_seed
from twosat_formal.make.edits.operators import EDITS, Edit, category_of

if TYPE_CHECKING:
    from twosat_formal.io.dsl import Conversion

__all__ = [
    "CHANGING",
    "CLASSES",
    "EDIT_KIND",
    "MODES",
    "PRESERVING",
    "EditOutcome",
    "EditedInstance",
    "apply_edit",
    "build_edited",
    "classify_edit",
    "edit_steps",
    "edited_id",
    "replay_edits",
    "root_instance",
    "undo_edits",
]

#: The class of an edit that keeps the label.
PRESERVING = "preserving"
#: The class of an edit that changes the label.
CHANGING = "changing"
#: Both classes.
CLASSES = (PRESERVING, CHANGING)
#: How an edited instance was made: one edit on request, a cumulative chain, or
#: one of the individual edits of an instance.
MODES = ("single", "cumulative", "individual")
#: The ``kind`` field that marks an edit transform in an instance's ``transforms``.
EDIT_KIND = "edit"


@dataclass(frozen=True)
class EditOutcome:
    """An edit, the formula it gives, and what the solver says about that formula.

    ``label_before`` is the label of the formula the edit was applied to,
    ``label_after`` and ``certificate`` are the solver's for the edited formula.
    """

    edit: Edit
    formula: Formula
    label_before: str
    label_after: str
    certificate: dict[str, Any]
    #: The formula :func:`classify_edit` applied the edit to (``None`` for an outcome
    #: made otherwise): :func:`build_edited` need not apply the edit to it again.
    _source: Formula | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def kind(self) -> str:
        """:data:`PRESERVING` or :data:`CHANGING`."""
        return PRESERVING if self.label_after == self.label_before else CHANGING

    @property
    def preserving(self) -> bool:
        """Whether the edit keeps the label."""
        return self.kind == PRESERVING


def classify_edit(formula: Formula, label: str, edit: Edit) -> EditOutcome:
    """Apply ``edit`` to ``formula`` (labelled ``label``), solve the result, classify it.

    Examples
    --------
    >>> f = Formula([[1, 2], [-1, 2], [1, -2]])
    >>> out = classify_edit(f, "SAT", Edit("insert", 3, (), ((-1, -2),)))
    >>> out.kind, out.label_after, out.certificate["status"]
    ('changing', 'UNSAT', 'UNSAT')
    """
    from twosat_formal.solve import solve

    edited = edit.apply(formula)
    result = solve(edited)
    outcome = EditOutcome(edit, edited, label, result.status, result.to_json(edited))
    object.__setattr__(outcome, "_source", formula)  # (a frozen field set here only)
    return outcome


def root_instance(
    formula: Formula, *, source: str | None = None, conversions: Sequence[Conversion] = ()
) -> Instance:
    """A root instance for a formula that comes from a file rather than a generator.

    Its family is ``"file"``, its id a hash of the formula (names included), its label
    and certificate the solver's. The ``conversions`` of the DSL formula lines the
    formula was read from (:func:`~twosat_formal.io.parse_reading`), each with its Z3
    proof, are kept in ``provenance["formula_lines"]``, which ``certify`` re-derives.

    >>> inst = root_instance(Formula([[1], [-1]]))
    >>> inst.family, inst.label, inst.id.startswith("file-")
    ('file', 'UNSAT', True)
    """
    from twosat_formal.solve import solve
    from twosat_formal.solve.measures import instance_measures

    formula.require_2cnf("symbolic edits")
    formula.require_size("an instance")
    key = {
        "names": list(formula.names),
        "lits": formula.literals.tolist(),
        "offsets": formula.offsets.tolist(),
    }
    digest = canonical_digest(key, 16)
    result = solve(formula)
    provenance: dict[str, Any] = {"tool": "twosat-formal", "tool_version": tool_version()}
    if source is not None:
        provenance["source"] = source
    if conversions:
        provenance["formula_lines"] = [c.to_json() for c in conversions]
    return Instance(
        id=f"file-{digest}",
        family="file",
        params={},
        seed=0,
        formula=formula,
        label=result.status,
        certificate=result.to_json(formula),
        structure={},
        provenance=provenance,
        measures=instance_measures(formula),
    )


def edit_steps(transforms: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The edit transforms of a chain, in order (perturbation steps are left out).

    >>> edit_steps([{"operator": "reorder"}, {"kind": "edit", "operator": "drop"}])
    [{'kind': 'edit', 'operator': 'drop'}]
    """
    return [t for t in transforms if isinstance(t, Mapping) and t.get("kind") == EDIT_KIND]


def replay_edits(formula: Formula, transforms: Sequence[Mapping[str, Any]]) -> Formula:
    """Re-apply edit transforms to ``formula`` from their recorded fields alone.

    Every step must be an edit transform whose ``before`` clauses are in place.

    Raises
    ------
    RecordError
        For a step that is not an edit transform, or is malformed.
    ConfigError
        For a step whose ``before`` clauses are not where it says.

    >>> f = Formula([[1, 2], [2]])
    >>> replay_edits(f, [{"kind": "edit", "operator": "drop", "position": 1,
    ...                   "before": [[2]], "after": []}]).clauses
    (Clause(1, 2),)
    """
    current = formula
    for number, step in enumerate(transforms, 1):
        if not isinstance(step, Mapping) or step.get("kind") != EDIT_KIND:
            raise RecordError(f"transform {number} is not an edit transform")
        current = Edit.from_json(step).apply(current)
    return current


def undo_edits(formula: Formula, transforms: Sequence[Mapping[str, Any]]) -> Formula:
    """The formula before the edit transforms among ``transforms``: their splices undone.

    The steps are undone last first (``after`` back to ``before`` at ``position``);
    other transforms (perturbations, which come before the edits) are left alone, so
    the result is the formula of the unedited instance the edits started from. A
    formula without edit steps is returned as it is.

    Raises
    ------
    RecordError
        For a malformed edit step.
    ConfigError
        For a step whose ``after`` clauses are not where it says.

    >>> f = Formula([[1, 2], [-1, 2], [2, 3]])
    >>> step = {"kind": "edit", "operator": "drop", "position": 1, "before": [[-1, 2]],
    ...         "after": []}
    >>> edited = replay_edits(f, [step])
    >>> edited.clauses, undo_edits(edited, [{"operator": "reorder"}, step]) == f
    ((Clause(1, 2), Clause(2, 3)), True)
    """
    current = formula
    for step in reversed(edit_steps(transforms)):
        edit = Edit.from_json(step)
        current = Edit(edit.operator, edit.position, edit.after, edit.before).apply(current)
    return current


def edited_id(root_id: str, transforms: Sequence[Mapping[str, Any]]) -> str:
    """The id of an edited instance: the root id and a sha256 of its transforms.

    A perturbation step's proof (whose time is measured, not derived) is left out.

    >>> edited_id("r", [{"kind": "edit"}]) == edited_id("r", [{"kind": "edit"}])
    True
    >>> edited_id("r", []).startswith("r~e")
    True
    """
    steps = [
        t if t.get("kind") == EDIT_KIND else {k: v for k, v in t.items() if k != "proof"}
        for t in transforms
    ]
    digest = canonical_digest({"base_id": root_id, "transforms": steps}, 12)
    return f"{root_id}~e{digest}"


@dataclass(frozen=True)
class EditedInstance:
    """An instance made by one or more edits of an origin instance.

    Attributes
    ----------
    instance:
        The edited instance (new label and certificate, ``base_id``, ``transforms``).
    origin_id, origin_label:
        The unedited instance the edits start from, and its label.
    outcomes:
        The edits in the order they were applied, each with its solver outcome.
    mode:
        One of :data:`MODES`.
    """

    instance: Instance
    origin_id: str
    origin_label: str
    outcomes: tuple[EditOutcome, ...]
    mode: str

    @property
    def level(self) -> int:
        """How many edits separate this instance from its origin."""
        return len(self.outcomes)

    @property
    def label(self) -> str:
        """The label of the edited formula."""
        return self.instance.label

    @property
    def kind(self) -> str:
        """:data:`PRESERVING` if the label is the origin's, :data:`CHANGING` otherwise."""
        return PRESERVING if self.label == self.origin_label else CHANGING

    @property
    def edits(self) -> tuple[Edit, ...]:
        """The edits, in order."""
        return tuple(o.edit for o in self.outcomes)


def _require_follows(outcome: EditOutcome, formula: Formula, level: int) -> None:
    """Raise a :class:`ConfigError` unless edit ``level`` (``outcome``) edits ``formula``."""
    try:
        # an outcome classify_edit made from this very formula follows it by construction
        follows = outcome._source is formula or outcome.edit.apply(formula) == outcome.formula
        reason = "it gives another formula"
    except ConfigError as exc:
        follows, reason = False, str(exc)
    if not follows:
        raise ConfigError(
            f"edit {level} of the chain does not follow edit {level - 1}: {reason}",
            parameter="outcomes",
        )


def _edit_steps(
    origin: Instance, outcomes: Sequence[EditOutcome], *, mode: str, seed: int
) -> list[dict[str, Any]]:
    """The transform record of each edit of the chain, each checked to follow the last."""
    steps: list[dict[str, Any]] = []
    formula = origin.formula
    for level, outcome in enumerate(outcomes, 1):
        _require_follows(outcome, formula, level)
        step: dict[str, Any] = {
            "kind": EDIT_KIND,
            "operator": outcome.edit.operator,
            "category": category_of(outcome.edit.operator),
            **outcome.edit.to_json(formula),
        }
        step["label_before"] = outcome.label_before
        step["label_after"] = outcome.label_after
        step["class"] = outcome.kind
        step["mode"] = mode
        step["level"] = level
        step["origin"] = origin.id
        step["seed"] = seed
        steps.append(step)
        formula = outcome.formula
    return steps


def build_edited(
    origin: Instance, outcomes: Sequence[EditOutcome], *, mode: str, seed: int
) -> EditedInstance:
    """The edited instance of a chain of outcomes applied to ``origin``, in order.

    Outcome ``i`` must edit the formula of outcome ``i - 1`` (the first edits
    ``origin.formula``). The instance keeps the origin's family, params and seed.

    Examples
    --------
    >>> base = root_instance(Formula([[1, 2], [-1, 2]]))
    >>> out = classify_edit(base.formula, base.label, Edit("drop", 0, ((1, 2),), ()))
    >>> e = build_edited(base, [out], mode="single", seed=0)
    >>> e.instance.base_id == base.id, e.instance.structure["edit"]["level"]
    (True, 1)
    """
    from twosat_formal.solve.measures import instance_measures

    if mode not in MODES:
        raise ConfigError(f"unknown edit mode {mode!r}", parameter="mode", valid=", ".join(MODES))
    if not outcomes:
        raise ConfigError("an edited instance needs at least one edit", parameter="outcomes")
    steps = _edit_steps(origin, outcomes, mode=mode, seed=seed)
    last = outcomes[-1]
    root_id = origin.base_id if origin.base_id is not None else origin.id
    root_structure = origin.structure if origin.base_id is None else origin.structure.get("base")
    transforms = (*origin.transforms, *steps)
    kind = PRESERVING if last.label_after == origin.label else CHANGING
    structure: dict[str, Any] = {
        "base": dict(root_structure or {}),
        "edit": {
            "mode": mode,
            "level": len(steps),
            "class": kind,
            "origin": origin.id,
            "origin_label": origin.label,
        },
    }
    provenance = dict(origin.provenance)
    provenance["edit"] = {
        "tool_version": tool_version(),
        "mode": mode,
        "seed": seed,
        "operators": [o.edit.operator for o in outcomes],
    }
    instance = origin.derive(
        edited_id(root_id, list(transforms)),
        last.formula,
        last.label_after,
        dict(last.certificate),
        structure=structure,
        provenance=provenance,
        base_id=root_id,
        transforms=tuple(transforms),
        measures=instance_measures(last.formula),
    )
    return EditedInstance(instance, origin.id, origin.label, tuple(outcomes), mode)


def apply_edit(
    instance: Instance | Formula, operator: str, *, position: int, seed: int = 0
) -> EditedInstance:
    """Make one edit of kind ``operator`` at clause ``position`` (0-based), solved and classified.

    Where the operator has several options at that clause (which literal, which
    variable, which new clause), ``seed`` draws one. A bare formula is first made a
    :func:`root_instance`.

    Raises
    ------
    UnknownNameError
        For an operator that is not in :data:`~twosat_formal.make.edits.operators.EDITS`.
    ConfigError
        When the operator cannot edit that clause (``drop`` on a one-clause formula,
        ``converse`` on a clause that is not an implication...).

    Examples
    --------
    >>> edited = apply_edit(Formula([[1, 2], [-1, 2], [-2, 1]]), "split", position=0)
    >>> edited.instance.formula.clauses
    (Clause(1), Clause(2), Clause(-1, 2), Clause(-2, 1))
    >>> apply_edit(Formula([[1, 2]]), "converse", position=0)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: edit converse cannot change clause 1 (x1 | x2)
    """
    origin = instance if isinstance(instance, Instance) else root_instance(instance)
    origin.formula.require_2cnf("symbolic edits")
    op = EDITS.get(operator)
    edit = op.draw(origin.formula, position, random.Random(check_seed(seed)))
    if edit is None:
        shown = origin.formula.clause_text(origin.formula.clauses[position])
        raise ConfigError(
            f"edit {operator} cannot change clause {position + 1} ({shown})",
            parameter="position",
        )
    outcome = classify_edit(origin.formula, origin.label, edit)
    return build_edited(origin, [outcome], mode="single", seed=seed)
