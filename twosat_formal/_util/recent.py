"""The last entries used, up to a bound: a small least-recently-used map.

The per-process memories of the certify and proof paths (instance formulas by line
or by record, referenced lines, Z3 queries found unsat, round trips proven) keep only
what was used last, so that memory stays bounded on a dataset of any size.

Examples
--------
>>> recent = Recent[str, int](2)
>>> recent.put("a", 1); recent.put("b", 2)
>>> recent.get("a")
1
>>> recent.put("c", 3)  # "b" was used least recently
>>> list(recent), "b" in recent
(['a', 'c'], False)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

__all__ = ["TEXTS", "Recent"]

#: The entries a cache keyed by a text that varies without end (a clause's sentence,
#: whose entity names each prompt draws again) keeps: a few MB at most, so a worker's
#: memory stays flat over any number of records, while a prompt's clauses, read again
#: as its record is checked, are still found.
TEXTS = 1 << 12

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """A map of at most ``size`` entries; putting one more drops the least recently used.

    :meth:`get` and :meth:`seen` count as a use; ``in``, iteration (oldest first) and
    ``len`` do not.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        """The value of ``key`` (``None`` if not kept), now the most recently used."""
        found = self.entries.get(key)
        if found is not None:
            self.entries.move_to_end(key)
        return found

    def seen(self, key: K) -> bool:
        """Whether ``key`` is kept (then it is now the most recently used)."""
        if key not in self.entries:
            return False
        self.entries.move_to_end(key)
        return True

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used beyond ``size``."""
        self.entries[key] = value
        self.entries.move_to_end(key)
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)

    def cache_clear(self) -> None:
        """Forget every entry."""
        self.entries.clear()

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __iter__(self) -> Iterator[K]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)
