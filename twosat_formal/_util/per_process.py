"""One value per process: made on first use, and made again in a forked child.

Z3 contexts and solvers must not cross a ``fork``: a worker process that inherits its
parent's session would share the parent's native state. :class:`PerProcess` holds a
value together with the id of the process that made it and makes a fresh one when
called from another process (or after :meth:`PerProcess.cache_clear`).

Examples
--------
>>> made = []
>>> counter = PerProcess(lambda: made.append(len(made) + 1) or len(made))
>>> counter(), counter()
(1, 1)
>>> counter.cache_clear()
>>> counter()
2
>>> renewed = PerProcess(lambda: made.append(len(made) + 1) or len(made), uses=2)
>>> [renewed() for _ in range(5)]
[3, 3, 4, 4, 5]
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Z3_USES", "PerProcess"]

#: The uses of a process's Z3 solver or session before a fresh one is made (its
#: ``uses``): Z3 keeps about a kilobyte a query until its context goes, and a new
#: context costs a few milliseconds.
Z3_USES = 1000

T = TypeVar("T")


class PerProcess(Generic[T]):
    """A callable that returns this process's value, made by ``make`` when needed.

    Parameters
    ----------
    make:
        Makes the value (called once per process, and again after :meth:`cache_clear`).
    uses:
        Make a fresh value after this many calls (``None``: never). A Z3 session that
        serves every query of a process grows by about a kilobyte a query in native
        memory, freed only with its context: renewing it keeps a worker's memory flat
        over any number of records, at the cost of one new context per ``uses`` calls.
    """

    def __init__(self, make: Callable[[], T], *, uses: int | None = None) -> None:
        self._make = make
        self._uses = uses
        self._held: tuple[int, T] | None = None
        self._calls = 0

    def __call__(self) -> T:
        held = self._held
        self._calls += 1
        renew = self._uses is not None and self._calls > self._uses
        if held is None or held[0] != os.getpid() or renew:
            held = self._held = None  # the old value goes before the new one is made
            held = self._held = (os.getpid(), self._make())
            self._calls = 1
        return held[1]

    def cache_clear(self) -> None:
        """Forget the value: the next call makes a fresh one (as a fresh process would)."""
        self._held = None
