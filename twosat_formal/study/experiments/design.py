"""Expand an experiment spec into conditions: which formula, which perturbation, which arm.

A :class:`Condition` is one formula of one setting: a family, a clause target, the
generator parameters, the formula's seed, and an optional chain of perturbations applied
to that base formula. Its design fields (``arm``, ``knob``, ``level``, ``shuffled``...)
are written to ``design.jsonl`` and read by the report to build comparisons.

Seeds follow the generators' named grids: formula ``i`` of the setting named
``family/clauses=C`` (``.../knob=level`` in a sweep) has seed
``derive_seed(derive_seed(spec.seed, name), i)``, so the ``table1`` experiment draws the
same instances as ``twosat-formal generate --grid table1``.

How each kind expands (``clauses`` in a design record names the setting's base size):

``grid``
    every family at each clause count, arm ``base``.
``sweep``
    each listed knob over the cell's grid (``paper-7``), other knobs at ``knob_level``;
    ``knob`` and ``level`` are set.
``fillers``
    one knob at a time, as §4 varies them: for each of the cell's ``knobs`` (default:
    every difficulty knob) and each level of its grid, that knob at the level and the
    others at ``knob_level``: ``core`` (``|C| = core``), ``filler`` (the same core
    plus ``filler`` clauses over fresh variables, by the ``filler`` operator) and
    ``total`` (``|C| = total``); ``knob`` and ``level`` are set.

A sweep or fillers cell varies only knobs that move something: a knob that is
*inert* at a clause count (:func:`knob_moves`: every level draws the same formula from
the same seed, as implication-cycle's ``core_ratio`` does without generator fillers) is
not swept there (in ``fillers``: when it is inert at both the core and the total size);
:func:`inert_knobs` lists what was left out, and the manifest and report say so.
``order``
    ``construction`` (the generator's order) and ``shuffled`` (the ``reorder``
    operator on it).
``duplication``
    ``single`` (``|C| = clauses``), ``grouped`` and ``interleaved`` (the ``duplicate``
    operator with ``copies``), ``distinct`` (``|C| = distinct``); with ``shuffle``, each
    again with its clauses shuffled.
``edits``
    every family at each clause count, arm ``base``, with an edit stage
    (:attr:`Condition.edits`): the runner adds the base's cumulative chain (up to
    ``max_edits`` label-preserving edits) and its individual edits (up to ``count`` per
    class, label-preserving and label-changing), as ``twosat-formal edit`` makes them
    with the experiment's seed: the operator edits, and the premise edits ``drop``
    and ``insert`` too when the cell says ``"premise_edits": true``.
``pairs``
    every family at each clause count, arm ``base``, with ``twins`` set: the runner
    adds each base's minimal twin (arm ``twin``, as ``twosat-formal pairs`` makes it),
    verbalized with the base's entity map.
``story``
    every family at each clause count, arm ``base``, as ``grid``: the runner also
    tells each base formula as a story in each of the spec's ``themes``.

Examples
--------
>>> from twosat_formal.study.experiments.spec import load_spec
>>> conditions = expand(load_spec("order").with_formulas(1))
>>> [(c.family, c.clauses, c.arm) for c in conditions[:2]]
[('implication-cycle', 20, 'construction'), ('implication-cycle', 20, 'shuffled')]
>>> conditions[1].steps
(('reorder', (('order', 'shuffled'),)),)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import GenericAlias
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field

from twosat_formal.core.params import table, validate
from twosat_formal.errors import ConfigError
from twosat_formal.make.edits import EDIT_MODES, EDITS
from twosat_formal.make.edits.modes import ORDERS
from twosat_formal.make.edits.operators import default_operators
from twosat_formal.make.generators import FAMILIES, derive_seed
from twosat_formal.make.generators.knobs import KNOB_GRIDS
from twosat_formal.study.experiments.spec import ExperimentSpec

__all__ = [
    "CELL_RULES",
    "INERT_SEEDS",
    "Condition",
    "Step",
    "difficulty_knobs",
    "expand",
    "inert_knobs",
    "knob_moves",
]

#: Seeds drawn at every level of a knob by :func:`knob_moves`: a knob is inert when
#: every one of them draws the same formula at every level.
INERT_SEEDS = 3

#: One perturbation step: an operator name and its parameters as sorted pairs.
Step = tuple[str, tuple[tuple[str, Any], ...]]

#: Knobs that are interventions of their own (§5.2), never set to the knob level.
_NOT_DIFFICULTY = frozenset({"filler_share"})


@dataclass(frozen=True)
class Condition:
    """One formula of one setting, possibly perturbed, with its design fields.

    ``edits`` holds the settings of an edit stage as sorted pairs (``count``,
    ``max_edits``, ``modes``, ``operators``, ``order``, ``seed``); it is empty for a
    condition without symbolic edits.
    """

    experiment: str
    kind: str
    family: str
    clauses: int
    replicate: int
    seed: int
    params: tuple[tuple[str, Any], ...]
    setting: int
    steps: tuple[Step, ...] = ()
    arm: str = "base"
    arm_label: str = ""
    knob: str | None = None
    level: float | None = None
    shuffled: bool = False
    design_clauses: int | None = None
    edits: tuple[tuple[str, Any], ...] = ()
    twins: bool = False

    @property
    def base_key(self) -> tuple[str, int, tuple[tuple[str, Any], ...], int]:
        """What identifies the base formula: family, clause target, params and seed."""
        return (self.family, self.clauses, self.params, self.seed)

    @property
    def perturb_seed(self) -> int:
        """The seed of the perturbation chain (derived from the formula's seed and arm)."""
        return derive_seed(self.seed, "perturb", self.arm, int(self.shuffled))

    def design_record(self, instance_id: str) -> dict[str, Any]:
        """The ``design.jsonl`` record of the instance this condition produced.

        >>> c = Condition("order", "order", "backbone", 50, 0, 7, (), 0, arm="construction")
        >>> c.design_record("x")["arm"], c.design_record("x")["clauses"]
        ('construction', 50)
        """
        return {
            "instance_id": instance_id,
            "experiment": self.experiment,
            "kind": self.kind,
            "family": self.family,
            "clauses": self.design_clauses if self.design_clauses is not None else self.clauses,
            "replicate": self.replicate,
            "setting": self.setting,
            "knob": self.knob,
            "level": self.level,
            "arm": self.arm,
            "arm_label": self.arm_label or self.arm,
            "shuffled": self.shuffled,
            "seed": self.seed,
            "steps": [[name, dict(params)] for name, params in self.steps],
            **({"edits": _jsonable(dict(self.edits))} if self.edits else {}),
            **({"twins": True} if self.twins else {}),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    return value


def difficulty_knobs(family: str) -> list[str]:
    """The family's difficulty knobs (every knob but ``filler_share``).

    >>> difficulty_knobs("backbone")
    ['beta', 'mono_density', 'pi']
    """
    return [p.name for p in FAMILIES.get(family).knobs() if p.name not in _NOT_DIFFICULTY]


def _step(name: str, **params: Any) -> Step:
    return (name, tuple(sorted(params.items())))


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _distinct(items: list[Any]) -> list[Any]:
    if len(set(items)) != len(items):
        raise ValueError("an item is repeated")
    return items


#: Positive counts: one, or a list of them.
_COUNTS = Annotated[
    list[Annotated[int, Field(ge=1)]],
    Field(min_length=1),
    BeforeValidator(lambda v: v if isinstance(v, list) else [v]),
]
_LEVELS = Annotated[list[Annotated[float, Field(ge=0, le=1)]], Field(min_length=1)]
#: What each setting of a cell may be: ``name -> (type, description)``; a kind reads
#: the settings it takes (the module docstring of :mod:`~twosat_formal.study.experiments.spec`).
CELL_RULES: dict[str, tuple[Any, str]] = {
    **dict.fromkeys(
        ("clauses", "core", "filler", "total", "distinct", "copies", "max_edits", "count"),
        (_COUNTS, "a positive integer or a list of them"),
    ),
    "levels": (_LEVELS, "a non-empty list of numbers in [0, 1]"),
    "grid": (Literal[tuple(KNOB_GRIDS)], "one of " + ", ".join(KNOB_GRIDS)),
    "knobs": (list[str], "a list of difficulty knobs"),
    "modes": (
        Annotated[
            GenericAlias(list, Literal[EDIT_MODES]), Field(min_length=1), AfterValidator(_distinct)
        ],
        "a non-empty list of distinct edit modes: " + ", ".join(EDIT_MODES),
    ),
    "operators": (Annotated[list[Any], Field(min_length=1)], "a non-empty list of edits"),
    "premise_edits": (bool, "true or false"),
    "order": (Literal[ORDERS], "one of " + ", ".join(ORDERS)),
}
_CELL = table("cell", {name: rule for name, (rule, _) in CELL_RULES.items()})


def _checked(cell: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A cell's family (registered) and its settings, checked by :data:`CELL_RULES`."""
    family = str(cell["family"])
    FAMILIES.get(family)  # UnknownNameError for a family nobody registered
    given = {key: value for key, value in cell.items() if key in CELL_RULES}

    def problem(key: str, unknown: bool) -> ConfigError:
        valid = CELL_RULES[key][1]
        return ConfigError(
            f"cell of {family!r}: {key!r} must be {valid}, got {given[key]!r}",
            parameter=key,
            valid=valid,
        )

    return family, {**cell, **validate(_CELL, given, problem)}


def _ints(cell: Mapping[str, Any], key: str) -> list[int]:
    if key not in cell:
        raise ConfigError(
            f"cell of {cell['family']!r} needs {key!r}: {CELL_RULES[key][1]}", parameter=key
        )
    counts: list[int] = cell[key]
    return counts


def _levels(cell: Mapping[str, Any]) -> tuple[float, ...]:
    return tuple(cell["levels"]) if "levels" in cell else KNOB_GRIDS[cell.get("grid", "paper-3")]


class _Builder:
    def __init__(self, spec: ExperimentSpec) -> None:
        self.spec = spec
        self.out: list[Condition] = []
        self.setting = 0

    def knobs(self, family: str, level: float, **override: float) -> tuple[tuple[str, Any], ...]:
        values: dict[str, Any] = dict.fromkeys(difficulty_knobs(family), level)
        for key, value in override.items():
            if key not in values:
                raise ConfigError(
                    f"{family} has no difficulty knob {key!r}",
                    parameter="knobs",
                    valid=", ".join(difficulty_knobs(family)),
                )
            values[key] = value
        return tuple(sorted(values.items()))

    def formulas(
        self,
        family: str,
        clauses: int,
        params: tuple[tuple[str, Any], ...],
        name: str,
        variants: Sequence[dict[str, Any]],
        **fields: Any,
    ) -> None:
        """Add the setting's formulas, each with every variant (arm) of it."""
        cell_seed = derive_seed(self.spec.seed, name)
        for replicate in range(self.spec.formulas):
            seed = derive_seed(cell_seed, replicate)
            for variant in variants:
                merged = {**fields, **variant}
                self.out.append(
                    Condition(
                        experiment=self.spec.name,
                        kind=self.spec.kind,
                        family=family,
                        clauses=int(merged.pop("clauses", clauses)),
                        replicate=replicate,
                        seed=merged.pop("seed", seed),
                        params=params,
                        setting=self.setting,
                        **merged,
                    )
                )
        self.setting += 1


Variant = dict[str, Any]


def _grid(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    for clauses in _ints(cell, "clauses"):
        params = b.knobs(family, b.spec.knob_level)
        b.formulas(family, clauses, params, f"{family}/clauses={clauses}", [{}])


@functools.lru_cache(maxsize=4096)
def knob_moves(
    family: str,
    clauses: int,
    params: tuple[tuple[str, Any], ...],
    knob: str,
    levels: tuple[float, ...],
) -> bool:
    """Whether ``knob`` changes the formula ``family`` draws at ``clauses``.

    The knob is set to each of ``levels`` in turn (the other parameters as in
    ``params``) and a formula drawn from each of :data:`INERT_SEEDS` seeds: it moves
    something when some seed draws different formulas at two levels. A request the
    family refuses counts as moving (the run reports the refusal), and so does a
    single level: there is nothing to compare, and the cell is drawn as asked.

    >>> at = (("core_ratio", 0.5), ("split", 0.5))
    >>> knob_moves("implication-cycle", 75, at, "core_ratio", (0.2, 0.5, 0.8))
    False
    >>> knob_moves("implication-cycle", 75, at, "split", (0.2, 0.5, 0.8))
    True
    >>> knob_moves("implication-cycle", 75, at, "core_ratio", (0.5,))
    True
    """
    if len(set(levels)) < 2:
        return True
    generator = FAMILIES.get(family)
    for seed in range(INERT_SEEDS):
        drawn = []
        for level in levels:
            values = {**dict(params), knob: level}
            try:
                formula, _ = generator.draw(random.Random(seed), clauses, **values)
            except ConfigError:
                return True
            drawn.append(formula)
        if any(f != drawn[0] for f in drawn[1:]):
            return True
    return False


def _cell_knobs(family: str, cell: Mapping[str, Any]) -> list[str]:
    return list(cell.get("knobs") or difficulty_knobs(family))


def _moves(b: _Builder, family: str, clauses: Sequence[int], knob: str, cell: Any) -> bool:
    """Whether ``knob`` moves something at one of the clause counts (others at the
    spec's knob level)."""
    params = b.knobs(family, b.spec.knob_level)
    return any(knob_moves(family, c, params, knob, _levels(cell)) for c in clauses)


def _sweep(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    knobs = _cell_knobs(family, cell)
    for clauses in _ints(cell, "clauses"):
        for knob in knobs:
            if not _moves(b, family, [clauses], knob, cell):
                continue
            for level in _levels(cell):
                params = b.knobs(family, b.spec.knob_level, **{knob: level})
                name = f"{family}/clauses={clauses}/{knob}={_fmt(level)}"
                b.formulas(family, clauses, params, name, [{}], knob=knob, level=level)


def _fillers(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    core, total = _ints(cell, "core")[0], _ints(cell, "total")[0]
    filler = _ints(cell, "filler")[0]
    knobs = [k for k in _cell_knobs(family, cell) if _moves(b, family, [core, total], k, cell)]
    for knob in knobs:
        for level in _levels(cell):
            params = b.knobs(family, b.spec.knob_level, **{knob: level})
            suffix = f"/{knob}={_fmt(level)}"
            variants: list[Variant] = [
                {"arm": "core", "arm_label": f"|C|={core}"},
                {
                    "arm": "filler",
                    "arm_label": f"|C|={core}, r={filler}",
                    "steps": (_step("filler", count=filler, over="fresh"),),
                },
            ]
            b.formulas(
                family,
                core,
                params,
                f"{family}/clauses={core}{suffix}",
                variants,
                knob=knob,
                level=level,
            )
            b.formulas(
                family,
                total,
                params,
                f"{family}/clauses={total}{suffix}",
                [{"arm": "total", "arm_label": f"|C|={total}"}],
                knob=knob,
                level=level,
                design_clauses=core,
            )


def _order(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    variants: list[Variant] = [
        {"arm": "construction"},
        {"arm": "shuffled", "shuffled": True, "steps": (_step("reorder", order="shuffled"),)},
    ]
    for clauses in _ints(cell, "clauses"):
        params = b.knobs(family, b.spec.knob_level)
        b.formulas(family, clauses, params, f"{family}/clauses={clauses}", variants)


def _with_shuffles(
    entries: Sequence[tuple[str, str, tuple[Step, ...]]], shuffle: bool
) -> list[Variant]:
    """Each (arm, label, steps) as a variant, followed by its shuffled twin if ``shuffle``."""
    out: list[Variant] = []
    for arm, label, steps in entries:
        out.append({"arm": arm, "arm_label": label, "steps": steps})
        if shuffle:
            twin = (*steps, _step("reorder", order="shuffled"))
            out.append({"arm": arm, "arm_label": label, "shuffled": True, "steps": twin})
    return out


def _duplication(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    base = _ints(cell, "clauses")[0]
    distinct = _ints(cell, "distinct")[0]
    copies = cell.get("copies", [2])[0]
    shuffle = bool(cell.get("shuffle", True))
    params = b.knobs(family, b.spec.knob_level)
    entries: list[tuple[str, str, tuple[Step, ...]]] = [("single", str(base), ())]
    for layout in cell.get("layouts", ["grouped", "interleaved"]):
        step = _step("duplicate", copies=copies, layout=layout)
        entries.append((str(layout), f"{base}x{copies} {layout}", (step,)))
    name = f"{family}/clauses={base}"
    b.formulas(family, base, params, name, _with_shuffles(entries, shuffle))
    b.formulas(
        family,
        distinct,
        params,
        f"{family}/clauses={distinct}",
        _with_shuffles([("distinct", str(distinct), ())], shuffle),
        design_clauses=base,
    )


def _edit_stage(cell: Mapping[str, Any], seed: int) -> tuple[tuple[str, Any], ...]:
    """The cell's edit settings, checked, as sorted pairs (``seed``: the experiment's)."""
    modes = cell.get("modes", list(EDIT_MODES))
    operators = cell.get("operators")
    for name in operators or ():
        EDITS.get(str(name))  # UnknownNameError for an edit nobody registered
    premise = cell.get("premise_edits", False)
    if premise:
        chosen = [str(o) for o in operators] if operators is not None else list(default_operators())
        operators = chosen + [o for o in default_operators(premise=True) if o not in chosen]
    order = cell.get("order", "forward")
    stage = {
        "modes": tuple(modes),
        "max_edits": cell.get("max_edits", [3])[0],
        "count": cell.get("count", [3])[0],
        "operators": None if operators is None else tuple(str(o) for o in operators),
        "order": order,
        "seed": seed,
    }
    return tuple(sorted(stage.items()))


def _edits(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    stage = _edit_stage(cell, b.spec.seed)
    for clauses in _ints(cell, "clauses"):
        params = b.knobs(family, b.spec.knob_level)
        b.formulas(family, clauses, params, f"{family}/clauses={clauses}", [{}], edits=stage)


def _pairs(b: _Builder, family: str, cell: Mapping[str, Any]) -> None:
    for clauses in _ints(cell, "clauses"):
        params = b.knobs(family, b.spec.knob_level)
        b.formulas(family, clauses, params, f"{family}/clauses={clauses}", [{}], twins=True)


_KIND_EXPANDERS = {
    "grid": _grid,
    "sweep": _sweep,
    "fillers": _fillers,
    "order": _order,
    "duplication": _duplication,
    "edits": _edits,
    "pairs": _pairs,
    "story": _grid,
}


def inert_knobs(spec: ExperimentSpec) -> list[dict[str, Any]]:
    """The knobs a sweep or fillers spec leaves out because they move nothing:
    ``{"family", "knob", "clauses"}`` with the clause counts where the knob is inert
    (in ``fillers``, the core and total sizes of a cell).

    >>> from twosat_formal.study.experiments.spec import load_spec
    >>> [(i["family"], i["knob"]) for i in inert_knobs(load_spec("fillers"))]
    [('implication-cycle', 'core_ratio')]
    """
    if spec.kind not in ("sweep", "fillers"):
        return []
    builder = _Builder(spec)
    out: list[dict[str, Any]] = []
    for cell in spec.cells:
        family, cell = _checked(cell)
        groups = _size_groups(spec.kind, cell)
        for knob in _cell_knobs(family, cell):
            inert = [c for g in groups if not _moves(builder, family, g, knob, cell) for c in g]
            if inert:
                out.append({"family": family, "knob": knob, "clauses": inert})
    return out


def _size_groups(kind: str, cell: dict[str, Any]) -> list[list[int]]:
    """The sizes a knob is tried at together: a fillers cell's core and total sizes as
    one group, each clause count of a sweep cell alone."""
    if kind == "fillers":
        return [[_ints(cell, "core")[0], _ints(cell, "total")[0]]]
    return [[c] for c in _ints(cell, "clauses")]


def expand(spec: ExperimentSpec) -> list[Condition]:
    """Every condition of ``spec``, in a stable order (see the module docstring).

    >>> from twosat_formal.study.experiments.spec import load_spec
    >>> len(expand(load_spec("table1").with_formulas(2)))
    44
    """
    builder = _Builder(spec)
    expander = _KIND_EXPANDERS[spec.kind]
    for cell in spec.cells:
        expander(builder, *_checked(cell))
    return builder.out
