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
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["PerProcess"]

T = TypeVar("T")


class PerProcess(Generic[T]):
    """A callable that returns this process's value, made by ``make`` when needed.

    Parameters
    ----------
    make:
        Makes the value (called once per process, and again after :meth:`cache_clear`).
    """

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._held: tuple[int, T] | None = None

    def __call__(self) -> T:
        held = self._held
        if held is None or held[0] != os.getpid():
            held = self._held = (os.getpid(), self._make())
        return held[1]

    def cache_clear(self) -> None:
        """Forget the value: the next call makes a fresh one (as a fresh process would)."""
        self._held = None
