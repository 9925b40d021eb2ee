"""Named grids of generation settings: the paper's Table 1 and the knob sweeps of §5.1.

* ``table1``: every family of Table 1 at the paper's clause counts with every
  difficulty knob at 0.5 (fillers off, construction order), 10 formulas per cell.
* ``paper-3`` / ``paper-7``: for one family, each difficulty knob in turn over the
  3-point grid (0.2, 0.5, 0.8) or the 7-point grid (0, 0.2, 1/3, 0.5, 2/3, 0.8, 1), the
  other knobs at 0.5, at the family's transition size (75 clauses; 20 for
  equivalence-core) unless told otherwise.

Each cell is a :class:`~twosat_formal.make.generators.Dataset` whose seed is derived from the
grid seed and the cell name, so a cell can be rebuilt alone.

Examples
--------
>>> cells = grid_cells("table1")
>>> len(cells), sum(cell.count for cell in cells)
(22, 220)
>>> cells[0].name
'implication-cycle/clauses=5'
>>> [c.name for c in grid_cells("paper-3", family="equivalence-core")][:2]
['equivalence-core/clauses=20/free_ratio=0.2', 'equivalence-core/clauses=20/free_ratio=0.5']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from twosat_formal.errors import ConfigError
from twosat_formal.make.generators.dataset import Dataset, DatasetConfig
from twosat_formal.make.generators.draw import derive_seed
from twosat_formal.make.generators.family import FAMILIES
from twosat_formal.make.generators.knobs import KNOB_GRIDS, ParamValue

__all__ = [
    "GRID_NAMES",
    "SWEEP_CLAUSES",
    "TABLE1_CLAUSES",
    "GridCell",
    "grid_cells",
]

#: Clause counts of Table 1, per family.
TABLE1_CLAUSES: dict[str, tuple[int, ...]] = {
    "implication-cycle": (5, 10, 15, 20, 50, 75, 100),
    "equivalence-core": (10, 15, 20, 50),
    "backbone": (20, 50, 75, 100),
    "mono-bridge": (10, 20, 50, 75, 100, 150, 200),
}
#: Clause counts of the knob sweeps (§5.1: near each family's transition region).
SWEEP_CLAUSES: dict[str, int] = {
    "implication-cycle": 75,
    "equivalence-core": 20,
    "backbone": 75,
    "mono-bridge": 75,
}
#: Names accepted by :func:`grid_cells`.
GRID_NAMES = ("table1", *KNOB_GRIDS)
#: Knobs that are interventions of their own (§5.2), not difficulty parameters.
_NOT_SWEPT = frozenset({"filler_share"})


@dataclass(frozen=True)
class GridCell:
    """One setting of a grid: ``count`` formulas of ``family`` with ``params``."""

    name: str
    family: str
    clauses: int | None
    params: Mapping[str, ParamValue] = field(default_factory=dict)
    count: int = 10

    def dataset(self, seed: int) -> Dataset:
        """The cell's dataset; its seed is derived from ``seed`` and the cell name."""
        config = DatasetConfig(self.family, clauses=self.clauses, params=dict(self.params))
        return Dataset(config, seed=derive_seed(seed, self.name), size=self.count)


def _difficulty_knobs(family: str) -> list[str]:
    return [p.name for p in FAMILIES.get(family).knobs() if p.name not in _NOT_SWEPT]


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def grid_cells(
    name: str,
    *,
    family: str | None = None,
    clauses: int | None = None,
    count: int = 10,
    extra: Mapping[str, ParamValue] | None = None,
) -> list[GridCell]:
    """The cells of grid ``name`` (see the module docstring).

    Parameters
    ----------
    name:
        ``table1``, ``paper-3`` or ``paper-7``.
    family:
        The family to sweep (knob grids only; ``table1`` takes none).
    clauses:
        Clause count of a sweep (default: :data:`SWEEP_CLAUSES`).
    count:
        Formulas per cell.
    extra:
        Parameters added to every cell (e.g. ``shuffle=True``); they replace the
        knobs held at 0.5, never the knob a sweep varies.
    """
    if count < 1:
        raise ConfigError(f"count must be >= 1, got {count}", parameter="count", valid=">= 1")
    base = dict(extra or {})
    if name == "table1":
        return _table1_cells(family, clauses, base, count)
    if name not in KNOB_GRIDS:
        raise ConfigError(
            f"unknown grid {name!r}", parameter="grid", valid="one of " + ", ".join(GRID_NAMES)
        )
    return _knob_cells(name, family, clauses, base, count)


def _table1_cells(
    family: str | None, clauses: int | None, base: dict[str, ParamValue], count: int
) -> list[GridCell]:
    """The ``table1`` grid: its families at their clause counts, every knob at 0.5."""
    if family is not None or clauses is not None:
        raise ConfigError(
            "the table1 grid fixes its families and clause counts",
            parameter="family" if family is not None else "clauses",
            valid="none with --grid table1",
        )
    cells = []
    for fam, sizes in TABLE1_CLAUSES.items():
        settings = {**{knob: 0.5 for knob in _difficulty_knobs(fam)}, **base}
        for size in sizes:
            cells.append(GridCell(f"{fam}/clauses={size}", fam, size, settings, count))
    return cells


def _knob_cells(
    name: str,
    family: str | None,
    clauses: int | None,
    base: dict[str, ParamValue],
    count: int,
) -> list[GridCell]:
    """A knob grid: each difficulty knob of ``family`` swept in turn, the others at 0.5."""
    if family is None:
        raise ConfigError(
            f"the {name} grid sweeps the knobs of one family; name it",
            parameter="family",
            valid="one of " + ", ".join(FAMILIES.names()),
        )
    knobs = _difficulty_knobs(family)
    if not knobs:
        raise ConfigError(
            f"family {family!r} has no difficulty knobs to sweep",
            parameter="family",
            valid="one of " + ", ".join(f for f in FAMILIES.names() if _difficulty_knobs(f)),
        )
    size = clauses if clauses is not None else SWEEP_CLAUSES.get(family, 75)
    cells = []
    for knob in knobs:
        for value in KNOB_GRIDS[name]:
            params: dict[str, ParamValue] = {**{k: 0.5 for k in knobs}, **base}
            params[knob] = value
            cells.append(
                GridCell(
                    f"{family}/clauses={size}/{knob}={_fmt(value)}", family, size, params, count
                )
            )
    return cells
