"""A with-block that calls ``close()``: the one ``__enter__``/``__exit__`` pair.

Examples
--------
>>> class Door(Closing):
...     def close(self) -> None:
...         print("closed")
>>> with Door() as door:
...     pass
closed
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["Closing"]


class Closing:
    """Mixin: ``with obj:`` yields ``obj`` and calls ``obj.close()`` on the way out."""

    def close(self) -> None:
        """Release what the object holds (nothing here)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
