"""Datasets as JSON lines, drawn by an executor, whole or one shard at a time.

Item ``i`` of a :class:`~twosat_formal.make.generators.Dataset` depends only on its config
and :meth:`~twosat_formal.make.generators.Dataset.item_seed`, so any executor draws the
same bytes; shards are contiguous blocks of the items of all datasets in order.

Examples
--------
>>> from twosat_formal.make.generators import Dataset, DatasetConfig
>>> data = Dataset(DatasetConfig("backbone", clauses=8), seed=3, size=5)
>>> whole = list(dataset_lines([data]))
>>> whole == [inst.to_json() for inst in data]
True
>>> list(dataset_lines([data], shard=(0, 2))) + list(dataset_lines([data], shard=(1, 2))) == whole
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from twosat_formal._util.executors import Executor, LocalExecutor, shard_range
from twosat_formal.make.generators.dataset import Dataset, DatasetConfig

__all__ = ["dataset_lines", "instance_line", "shard_size"]


def instance_line(task: tuple[DatasetConfig, int]) -> str:
    """The JSON line of the instance that ``(config, item seed)`` draws."""
    config, seed = task
    return config.draw(seed).to_json()


def _tasks(datasets: Sequence[Dataset], positions: range) -> Iterator[tuple[DatasetConfig, int]]:
    offset = 0
    for data in datasets:
        first = max(positions.start - offset, 0)
        last = min(positions.stop - offset, len(data))
        for index in range(first, last):
            yield data.config, data.item_seed(index)
        offset += len(data)


def shard_size(datasets: Sequence[Dataset], shard: tuple[int, int] | None = None) -> int:
    """How many instances :func:`dataset_lines` yields for ``shard``.

    >>> from twosat_formal.make.generators import Dataset, DatasetConfig
    >>> shard_size([Dataset(DatasetConfig("backbone"), size=5)], (1, 2))
    3
    """
    return len(shard_range(sum(len(data) for data in datasets), shard))


def dataset_lines(
    datasets: Sequence[Dataset],
    *,
    executor: Executor | None = None,
    shard: tuple[int, int] | None = None,
) -> Iterator[str]:
    """The JSON lines of every instance of ``datasets`` in order (or of one shard)."""
    positions = shard_range(sum(len(data) for data in datasets), shard)
    return (executor or LocalExecutor()).map(instance_line, _tasks(datasets, positions))
