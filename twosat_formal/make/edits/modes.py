"""The two edit modes of the specification, and running them over a dataset.

**Cumulative** (:func:`cumulative_edits`): the clauses of the origin are scanned
once, in order (or in a seeded shuffled order); at each clause the edits are tried in
a seeded order and the first *label-preserving* one is kept, so up to ``K`` edits
accumulate one after another. A clause is visited once: an edited, dropped, split or
inserted clause is never edited again. Every level ``k = 1..K`` that is reached is an
instance of its own; a level that is not reached falls back to the baseline
(:meth:`CumulativeChain.at_level`), as the paper substitutes the baseline question for
a record without a valid ``k``-th edit.

**Individual** (:func:`individual_edits`): single edits of the origin, drawn at
(edit, clause) pairs in a seeded order, solved, and kept apart by class: up to
``count`` label-preserving and ``count`` label-changing edits (the latter with their
new label). Two edits that give the same formula are kept once.

Examples
--------
>>> from twosat_formal.make.edits.classify import root_instance
>>> from twosat_formal.core.formula import Formula
>>> base = root_instance(Formula([[1, 2], [-1, 2], [-2, 3], [-3, 1]]))
>>> chain = cumulative_edits(base, max_edits=2, seed=0)
>>> [e.level for e in chain.levels], {e.label for e in chain.levels}
([1, 2], {'SAT'})
>>> chain.at_level(3) is base
True
>>> single = individual_edits(base, count=1, seed=0)
>>> [e.kind for e in single.preserving + single.changing]
['preserving', 'changing']
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from twosat_formal._util.executors import Executor, LocalExecutor
from twosat_formal._util.registry import check_choice
from twosat_formal.core.formula import Formula
from twosat_formal.core.seeds import derive_seed
from twosat_formal.errors import ConfigError
from twosat_formal.io.instance import Instance, first_of_each_id, refuse_edited
from twosat_formal.io.jsonl import (
    RawLine,
    is_dataset,
    parse_raw,
    raw_lines,
    read_text,
    rereadable,
)
from twosat_formal.make.checks import check_int, check_seed
from twosat_formal.make.edits.classify import (
    CHANGING,
    CLASSES,
    PRESERVING,
    EditedInstance,
    EditOutcome,
    build_edited,
    classify_edit,
    root_instance,
)
from twosat_formal.make.edits.operators import EDITS, Edit, EditOperator, default_operators

__all__ = [
    "DEFAULT_KEEP",
    "DEFAULT_ORDER",
    "EDIT_MODES",
    "KEEP",
    "MAX_EDITS",
    "ORDERS",
    "CumulativeChain",
    "EditRun",
    "IndividualEdits",
    "cumulative_edits",
    "edit_instances",
    "edit_lines",
    "edit_seed",
    "individual_edits",
]

#: The modes ``twosat-formal edit --mode`` accepts.
EDIT_MODES = ("cumulative", "individual")
#: The classes ``--keep`` accepts.
#: The edits kept unless a caller asks for others: label-preserving and label-changing.
DEFAULT_KEEP = "both"
KEEP = ("preserving", "changing", DEFAULT_KEEP)
#: Orders in which a cumulative chain scans the clauses.
#: The order edits are drawn in unless a caller asks for another.
DEFAULT_ORDER = "forward"
ORDERS = (DEFAULT_ORDER, "shuffled")
#: The edits drawn per instance unless a caller asks for another number.
MAX_EDITS = 3


def _operators(names: Sequence[str] | None) -> list[EditOperator]:
    if names is None:
        return [EDITS.get(name) for name in default_operators()]
    if not names:
        raise ConfigError("give at least one edit", parameter="operators")
    return [EDITS.get(name) for name in dict.fromkeys(names)]


def _check_count(value: int, parameter: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"{parameter} must be a positive integer, got {value!r}",
            parameter=parameter,
            valid=">= 1",
        )


def edit_seed(seed: int, instance_id: str) -> int:
    """The seed one instance of a dataset is edited with (sha256 of seed and id, 63 bits).

    >>> edit_seed(0, "a") == edit_seed(0, "a") != edit_seed(0, "b")
    True
    """
    return derive_seed("edit", seed, instance_id)


# -- cumulative ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CumulativeChain:
    """The levels of a cumulative chain of label-preserving edits.

    Attributes
    ----------
    base:
        The origin instance (level 0).
    levels:
        The edited instance of each level reached, level ``k`` at index ``k - 1``.
    targets:
        For each level, the index in the origin of the clause the scan was at when
        the edit was made (``insert`` adds its clause right after that clause).
    max_edits:
        The ``K`` asked for.
    """

    base: Instance
    levels: tuple[EditedInstance, ...]
    targets: tuple[int, ...]
    max_edits: int

    @property
    def reached(self) -> int:
        """How many levels have an edit of their own."""
        return len(self.levels)

    def is_fallback(self, level: int) -> bool:
        """Whether ``level`` has no valid edit and falls back to the baseline."""
        return level > self.reached

    def at_level(self, level: int) -> Instance:
        """The instance evaluated at ``level``: its edit, or the baseline if there is none.

        Level 0 is the baseline.
        """
        check_int(level, "level", minimum=0)
        if level == 0 or self.is_fallback(level):
            return self.base
        return self.levels[level - 1].instance


def cumulative_edits(
    instance: Instance,
    *,
    max_edits: int = MAX_EDITS,
    seed: int = 0,
    operators: Sequence[str] | None = None,
    order: str = DEFAULT_ORDER,
) -> CumulativeChain:
    """Up to ``max_edits`` label-preserving edits, one per clause, scanning the clauses once.

    Parameters
    ----------
    instance:
        The origin (a 2-CNF instance).
    max_edits:
        ``K``, the deepest level.
    seed:
        Seed of the order the edits are tried in and of their choices.
    operators:
        Names of the edits to use (default: the operator edits,
        :func:`~twosat_formal.make.edits.operators.default_operators`; ``drop`` and
        ``insert`` only when named).
    order:
        ``"forward"``: the clauses in formula order, as the paper edits sentence by
        sentence; ``"shuffled"``: a seeded permutation of them.

    Returns
    -------
    CumulativeChain
        Level ``k`` applies the first ``k`` edits to the origin; every level keeps the
        origin's label.

    Examples
    --------
    >>> from twosat_formal.make.edits.classify import root_instance
    >>> from twosat_formal.core.formula import Formula
    >>> base = root_instance(Formula([[1], [-1, 2], [-2, 3]]))
    >>> chain = cumulative_edits(base, max_edits=5, seed=1)
    >>> chain.reached <= 3, list(chain.targets) == sorted(set(chain.targets))
    (True, True)
    """
    _check_count(max_edits, "max_edits")
    check_choice(order, ORDERS, what="order", parameter="order")
    ops = _operators(operators)
    instance.formula.require_2cnf("symbolic edits")
    rng = random.Random(check_seed(seed))
    scan = list(range(instance.formula.num_clauses))
    if order == "shuffled":
        rng.shuffle(scan)
    # origins[i]: the origin index of current clause i, or None for a clause an edit wrote
    origins: list[int | None] = list(range(instance.formula.num_clauses))
    current = instance.formula
    outcomes: list[EditOutcome] = []
    levels: list[EditedInstance] = []
    targets: list[int] = []
    for target in scan:
        if len(outcomes) >= max_edits:
            break
        position = origins.index(target)
        for op in rng.sample(ops, len(ops)):
            edit = op.draw(current, position, rng)
            if edit is None:
                continue
            outcome = classify_edit(current, instance.label, edit)
            if not outcome.preserving:
                continue
            start = edit.position
            origins[start : start + len(edit.before)] = [None] * len(edit.after)
            current = outcome.formula
            outcomes.append(outcome)
            targets.append(target)
            levels.append(build_edited(instance, outcomes, mode="cumulative", seed=seed))
            break
    return CumulativeChain(instance, tuple(levels), tuple(targets), max_edits)


# -- individual ---------------------------------------------------------------------------


@dataclass(frozen=True)
class IndividualEdits:
    """The single edits of one origin, kept apart by class."""

    base: Instance
    preserving: tuple[EditedInstance, ...]
    changing: tuple[EditedInstance, ...]

    def all(self) -> tuple[EditedInstance, ...]:
        """Label-preserving edits first, then label-changing ones."""
        return self.preserving + self.changing


def _wanted(keep: str) -> tuple[str, ...]:
    check_choice(keep, KEEP, what="class", parameter="keep")
    return CLASSES if keep == "both" else (keep,)


def _shuffled_pairs(
    ops: Sequence[EditOperator], num_clauses: int, rng: random.Random
) -> list[tuple[EditOperator, int]]:
    """Every (edit, clause index) pair, in the random order they are tried in."""
    pairs = [(op, index) for index in range(num_clauses) for op in ops]
    rng.shuffle(pairs)
    return pairs


def _new_edit(edit: Edit | None, formula: Formula, seen: dict[int, list[Edit]]) -> Edit | None:
    """``edit`` when it gives a formula that is not ``formula`` and that no edit ``seen``
    gave yet (then it is seen), else ``None``.

    ``seen`` keeps the edits, by the hash of the formula each gives, not the formulas: a
    run may try an edit at every clause of a large formula, and a formula per try would
    hold the whole formula that many times. Edits whose formulas hash alike are applied
    again and compared, so two edits are one only when their formulas are equal.
    """
    if edit is None:
        return None
    edited = edit.apply(formula)
    if edited == formula:
        return None
    bucket = seen.setdefault(hash(edited), [])
    if any(other.apply(formula) == edited for other in bucket):
        return None
    bucket.append(edit)
    return edit


def individual_edits(
    instance: Instance,
    *,
    count: int = 3,
    keep: str = DEFAULT_KEEP,
    seed: int = 0,
    operators: Sequence[str] | None = None,
    max_tries: int | None = None,
) -> IndividualEdits:
    """Up to ``count`` single edits of each kept class, each solved and classified.

    Parameters
    ----------
    instance:
        The origin (a 2-CNF instance).
    count:
        Edits kept per class.
    keep:
        ``"preserving"``, ``"changing"`` or ``"both"``.
    seed:
        Seed of the order the (edit, clause) pairs are tried in and of the choices.
    operators:
        Names of the edits to use (default: the operator edits; ``drop`` and
        ``insert`` only when named).
    max_tries:
        Stop after this many edits were solved (default: try every pair once).

    Examples
    --------
    >>> from twosat_formal.make.edits.classify import root_instance
    >>> from twosat_formal.core.formula import Formula
    >>> base = root_instance(Formula([[1, 2], [-1, 2], [1, -2], [-1, -2]]))
    >>> found = individual_edits(base, count=2, keep="changing", seed=3)
    >>> [(e.kind, e.label) for e in found.changing], found.preserving
    ([('changing', 'SAT'), ('changing', 'SAT')], ())
    """
    _check_count(count, "count")
    if max_tries is not None:
        _check_count(max_tries, "max_tries")
    wanted = _wanted(keep)
    ops = _operators(operators)
    formula = instance.formula
    formula.require_2cnf("symbolic edits")
    rng = random.Random(check_seed(seed))
    pairs = _shuffled_pairs(ops, formula.num_clauses, rng)
    kept: dict[str, list[EditedInstance]] = {PRESERVING: [], CHANGING: []}
    seen: dict[int, list[Edit]] = {}
    tries, most = 0, len(pairs) if max_tries is None else max_tries
    for op, index in pairs:
        if tries >= most or all(len(kept[k]) >= count for k in wanted):
            break
        edit = _new_edit(op.draw(formula, index, rng), formula, seen)
        if edit is None:
            continue
        tries += 1
        outcome = classify_edit(formula, instance.label, edit)
        bucket = kept[outcome.kind]
        if outcome.kind in wanted and len(bucket) < count:
            bucket.append(build_edited(instance, [outcome], mode="individual", seed=seed))
    return IndividualEdits(instance, tuple(kept[PRESERVING]), tuple(kept[CHANGING]))


# -- datasets -----------------------------------------------------------------------------


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@dataclass
class EditRun:
    """The records an edit run writes, and counts for its summary line."""

    mode: str
    max_edits: int
    records: list[Instance] = field(default_factory=list)
    bases: int = 0
    preserving: int = 0
    changing: int = 0
    reached: Counter[int] = field(default_factory=Counter)
    written: set[str] = field(default_factory=set, repr=False)

    def origin(self, reached: int | None) -> None:
        """Count one instance edited, and (cumulative mode) the level its chain reached."""
        self.bases += 1
        if reached is not None:
            self.reached[reached] += 1

    def count(self, kind: str | None) -> None:
        """Count one record written: an edit of ``kind``, or (``None``) an origin.

        An edit left out because its id was written already (a dataset ``edit`` wrote,
        edited again) is not counted: the summary counts the records of the output.
        """
        if kind == PRESERVING:
            self.preserving += 1
        elif kind == CHANGING:
            self.changing += 1

    def summary(self) -> str:
        """One line per mode: what was made, and (cumulative) the fallbacks per level.

        >>> run = EditRun("cumulative", 2, bases=3, preserving=5, reached=Counter({2: 2, 1: 1}))
        >>> print(run.summary())
        3 instances, 5 label-preserving edits, 0 label-changing edits; level 1: 3 edited; \
level 2: 2 edited, 1 at baseline
        """
        text = (
            f"{_count(self.bases, 'instance')}, "
            f"{_count(self.preserving, 'label-preserving edit')}, "
            f"{_count(self.changing, 'label-changing edit')}"
        )
        if self.mode == "cumulative":
            for level in range(1, self.max_edits + 1):
                edited = sum(n for reached, n in self.reached.items() if reached >= level)
                text += f"; level {level}: {edited} edited"
                if edited < self.bases:
                    text += f", {self.bases - edited} at baseline"
        return text


@dataclass(frozen=True)
class _EditSettings:
    """What every instance of a run is edited with (sent to the workers)."""

    mode: str
    keep: str
    max_edits: int
    seed: int
    operators: tuple[str, ...] | None
    order: str
    keep_base: bool


@dataclass(frozen=True)
class _Edited:
    """One instance's share of the output, ``(id, (line, kind))`` pairs (``kind`` ``None``
    for the origin), and the level its chain reached (cumulative mode)."""

    lines: list[tuple[str, tuple[str, str | None]]]
    reached: int | None


def _settings(
    mode: str,
    keep: str,
    max_edits: int,
    seed: int,
    operators: Sequence[str] | None,
    order: str,
    keep_base: bool,
) -> _EditSettings:
    check_choice(mode, EDIT_MODES, what="mode", parameter="mode")
    _wanted(keep)
    if mode == "cumulative" and keep == "changing":
        raise ConfigError(
            "cumulative edits are label-preserving; use --mode individual for label-changing ones",
            parameter="keep",
            valid="preserving, both",
        )
    _check_count(max_edits, "max_edits")
    _operators(operators)
    names = tuple(operators) if operators is not None else None
    return _EditSettings(mode, keep, max_edits, seed, names, order, keep_base)


def _edit_one(
    settings: _EditSettings, instance: Instance
) -> tuple[list[tuple[Instance, str | None]], int | None]:
    """The records of one origin with their kinds (``None``: the origin), and the level
    its chain reached (``None`` in individual mode)."""
    own_seed = edit_seed(settings.seed, instance.id)
    made: Sequence[EditedInstance]
    reached = None
    if settings.mode == "cumulative":
        chain = cumulative_edits(
            instance,
            max_edits=settings.max_edits,
            seed=own_seed,
            operators=settings.operators,
            order=settings.order,
        )
        reached = chain.reached
        made = chain.levels
    else:
        made = individual_edits(
            instance,
            count=settings.max_edits,
            keep=settings.keep,
            seed=own_seed,
            operators=settings.operators,
        ).all()
    origin: list[tuple[Instance, str | None]] = [(instance, None)] if settings.keep_base else []
    return origin + [(e.instance, e.kind) for e in made], reached


def _edited(settings: _EditSettings, instance: Instance) -> _Edited:
    """:func:`_edit_one` of ``instance`` as its share of the output lines."""
    records, reached = _edit_one(settings, instance)
    return _Edited([(record.id, (record.to_json(), kind)) for record, kind in records], reached)


def _edit_line(settings: _EditSettings, line: RawLine) -> _Edited:
    return _edited(settings, _line_origin(line))


def _line_origin(line: RawLine) -> Instance:
    """The instance of a dataset line (an edited one refused: it is edited from its origin)."""
    instance = Instance.from_record(parse_raw(line).value, line=line.number, source=line.source)
    return refuse_edited(instance, "edit", modes=("twin",), line=line.number, source=line.source)


def _file_origin(file: Path, source: str) -> Instance:
    """The one :func:`root_instance` of a formula file (DIMACS or DSL)."""
    from twosat_formal.io import parse_reading

    formula, conversions = parse_reading(read_text(file, source=source), source=source)
    return root_instance(formula, source=source, conversions=conversions)


def edit_instances(
    instances: Iterable[Instance],
    *,
    mode: str,
    keep: str = DEFAULT_KEEP,
    max_edits: int = MAX_EDITS,
    seed: int = 0,
    operators: Sequence[str] | None = None,
    order: str = DEFAULT_ORDER,
    keep_base: bool = True,
) -> EditRun:
    """Run one mode over instances: each origin (unless ``keep_base`` is false), then its edits.

    Instance ``i`` is edited with :func:`edit_seed` of ``seed`` and its id. In
    ``cumulative`` mode ``max_edits`` is ``K`` and only label-preserving edits exist
    (``keep="changing"`` is refused); in ``individual`` mode it is the number of
    edits kept per class. Each id is kept once, at its first place: an edited
    record already in the input (a dataset ``edit`` wrote, edited again with the same
    settings) is carried once (:func:`~twosat_formal.io.instance.first_of_each_id`).

    Examples
    --------
    >>> from twosat_formal.make.edits.classify import root_instance
    >>> from twosat_formal.core.formula import Formula
    >>> base = root_instance(Formula([[1, 2], [-1, 2], [2, 3]]))
    >>> run = edit_instances([base], mode="cumulative", max_edits=2)
    >>> [r.id == base.id for r in run.records]
    [True, False, False]
    """
    settings = _settings(mode, keep, max_edits, seed, operators, order, keep_base)
    return _edit_all(settings, instances)


def _edit_all(settings: _EditSettings, instances: Iterable[Instance]) -> EditRun:
    run = EditRun(settings.mode, settings.max_edits)
    for instance in instances:
        records, reached = _edit_one(settings, instance)
        run.origin(reached)
        shares = [(record.id, (record, kind)) for record, kind in records]
        for record, kind in first_of_each_id(shares, seen=run.written):
            run.records.append(record)
            run.count(kind)
    return run


def edit_lines(
    path: str | Path,
    run: EditRun,
    *,
    keep: str = DEFAULT_KEEP,
    seed: int = 0,
    operators: Sequence[str] | None = None,
    order: str = DEFAULT_ORDER,
    keep_base: bool = True,
    executor: Executor | None = None,
) -> Iterator[str]:
    """:func:`edit_instances` over a dataset or a formula file, streamed as JSON lines.

    The mode and ``K`` are ``run``'s; ``run`` counts what was made (its ``records``
    stay empty), so memory does not grow with the dataset. A dataset (JSON Lines) is
    read a line at a time and each instance edited by ``executor``, in input order; a
    formula file (DIMACS or DSL; ``"-"``: stdin) is one :func:`root_instance`.

    Examples
    --------
    >>> import os, tempfile
    >>> run = EditRun("cumulative", 2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "f.cnf")
    ...     _ = open(path, "w").write("p cnf 3 3\\n1 2 0\\n-1 2 0\\n2 3 0\\n")
    ...     lines = list(edit_lines(path, run))
    >>> len(lines), run.bases, run.preserving
    (3, 1, 2)
    """
    settings = _settings(run.mode, keep, run.max_edits, seed, operators, order, keep_base)
    runner = executor or LocalExecutor()
    with rereadable(path) as (file, source):
        made: Iterable[_Edited]
        if is_dataset(file, source=source):
            made = runner.map(partial(_edit_line, settings), raw_lines(file, source=source))
        else:
            made = [_edited(settings, _file_origin(file, source))]
        for line, kind in first_of_each_id(_shares(run, made)):
            run.count(kind)
            yield line


def _shares(run: EditRun, made: Iterable[_Edited]) -> Iterator[tuple[str, tuple[str, str | None]]]:
    """Each instance's share of the output, its origin counted into ``run`` as it comes."""
    for share in made:
        run.origin(share.reached)
        yield from share.lines
