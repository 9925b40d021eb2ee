"""One progress bar (rich, on stderr) for every long command; ``--no-progress`` turns it off.

The bar wraps an iterator: each item it yields advances the bar by one. It draws only
when stderr is a terminal, and disappears when the command ends.

Examples
--------
>>> list(with_progress(iter([1, 2, 3]), 3, "counting", enabled=False))
[1, 2, 3]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    from rich.progress import Progress, TaskID

__all__ = ["progress_callback", "with_progress", "write_with_progress"]

T = TypeVar("T")


def _bar(label: str) -> Progress:
    """The one bar layout: label, bar, done/total, elapsed, remaining; on stderr, transient."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from twosat_formal.cli.app import err_console

    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    return Progress(*columns, console=err_console, transient=True)


def with_progress(
    items: Iterable[T], total: int | None, label: str, *, enabled: bool = True
) -> Iterator[T]:
    """Yield ``items`` unchanged, advancing a bar of ``total`` steps (``None``: unknown).

    The bar is :func:`progress_callback`'s: it starts with the first item, so that the
    worker processes the items need are forked from a single thread.
    """
    if total == 0 or total == 1:
        yield from items
        return
    with progress_callback(label, enabled=enabled) as advance:
        for done, item in enumerate(items, 1):
            yield item
            advance(done, total)


@contextmanager
def progress_callback(
    label: str, *, enabled: bool = True
) -> Iterator[Callable[[int, int | None], None]]:
    """A bar driven by a ``(done, total)`` callback, for library loops that report progress.

    The bar (and rich's thread that redraws it) starts at the first call, so work that
    starts worker processes before its first record forks them from a single thread
    (see :func:`twosat_formal._util.executors.start_method`).

    >>> with progress_callback("checking", enabled=False) as advance:
    ...     advance(1, 2)
    """
    from twosat_formal.cli.app import err_console

    if not enabled or not err_console.is_terminal:
        yield lambda done, total: None
        return
    with ExitStack() as stack:
        shown: list[tuple[Progress, TaskID]] = []

        def advance(done: int, total: int | None) -> None:
            if not shown:
                bar = stack.enter_context(_bar(label))
                shown.append((bar, bar.add_task(label, total=total, completed=done)))
                return
            bar, task = shown[0]
            bar.update(task, completed=done, total=total)

        yield advance


def write_with_progress(
    lines: Iterable[str], out: Path | None, total: int | None, label: str, *, enabled: bool
) -> int:
    """Write JSON Lines ``lines`` to ``out`` (stdout when ``None``) under a bar; their count.

    >>> import contextlib, io
    >>> buf = io.StringIO()
    >>> with contextlib.redirect_stdout(buf):
    ...     count = write_with_progress(['{"a": 1}'], None, 1, "writing", enabled=False)
    >>> count, buf.getvalue()
    (1, '{"a": 1}\\n')
    """
    from twosat_formal.io.jsonl import write_lines

    shown = with_progress(lines, total, label, enabled=enabled)
    if out is not None:
        return write_lines(shown, out)
    written = write_lines(shown, sys.stdout)
    sys.stdout.flush()
    return written
