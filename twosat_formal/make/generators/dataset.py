"""Datasets of one family (config + seed + size, in the style of reasoning-gym).

Item ``i`` of a :class:`Dataset` is drawn from its own derived seed, so any item can
be rebuilt alone.

Examples
--------
>>> data = Dataset(DatasetConfig("backbone", clauses=20), seed=7, size=3)
>>> len(data), data[2] == Dataset(DatasetConfig("backbone", clauses=20), seed=7, size=9)[2]
(3, True)
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

from twosat_formal.core.formula import MAX_SIZE
from twosat_formal.errors import ConfigError
from twosat_formal.io.instance import Instance
from twosat_formal.make.generators.draw import check_seed, derive_seed, generate
from twosat_formal.make.generators.family import FAMILIES
from twosat_formal.make.generators.knobs import ParamValue

__all__ = ["Dataset", "DatasetConfig"]


@dataclass(frozen=True)
class DatasetConfig:
    """What a dataset draws: a family, a clause target and parameters.

    >>> DatasetConfig("backbone", clauses=50, params={"beta": 0.2}).validate()
    """

    family: str
    clauses: int | None = None
    params: Mapping[str, ParamValue] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise :class:`ConfigError` (or ``UnknownNameError``) if the request is invalid."""
        params = {k: v for k, v in self.params.items() if k != "achieved_clauses"}
        FAMILIES.get(self.family).resolve(self.clauses, params)

    def draw(self, seed: int) -> Instance:
        """The instance this config draws with ``seed`` (:func:`generate`)."""
        return generate(self.family, clauses=self.clauses, seed=seed, **dict(self.params))


class Dataset(Sequence[Instance]):
    """``size`` instances of a config; item ``i`` uses seed ``derive_seed(seed, i)``.

    Items are drawn on access and do not depend on each other or on ``size``.

    >>> data = Dataset(DatasetConfig("equivalence-core", clauses=10), seed=1, size=2)
    >>> [inst.label for inst in data]
    ['SAT', 'SAT']
    """

    def __init__(self, config: DatasetConfig, *, seed: int = 0, size: int = 10) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_SIZE:
            raise ConfigError(
                f"size must be in [0, {MAX_SIZE}], got {size!r}",
                parameter="size",
                valid=f"an integer in [0, {MAX_SIZE}]",
            )
        config.validate()
        self.config = config
        self.seed = check_seed(seed)
        self.size = size

    def item_seed(self, index: int) -> int:
        """The seed of item ``index`` (``sha256(f"{seed}:{index}")``, 63 bits).

        ``index`` is read as Python reads a sequence index (:func:`operator.index`): a
        ``bool`` is 0 or 1, and a float or text is a :class:`TypeError`, never an item
        of its own.
        """
        return derive_seed(self.seed, operator.index(index))

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Instance: ...

    @overload
    def __getitem__(self, index: slice) -> list[Instance]: ...

    def __getitem__(self, index: int | slice) -> Instance | list[Instance]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        index = operator.index(index)
        if not -self.size <= index < self.size:
            raise IndexError(f"item {index} of a dataset of {self.size}")
        index %= self.size
        return self.config.draw(self.item_seed(index))

    def __iter__(self) -> Iterator[Instance]:
        return (self[i] for i in range(self.size))
