"""PerProcess: one value per process, made again in a forked child and after clearing."""

from __future__ import annotations

import multiprocessing
import os
from multiprocessing.queues import Queue

from twosat_formal._util.per_process import PerProcess

_MADE: list[int] = []
_PID = PerProcess(lambda: _MADE.append(os.getpid()) or os.getpid())


def _report(queue: Queue[tuple[int, int]]) -> None:
    queue.put((_PID(), os.getpid()))


def test_one_value_per_process_and_a_fresh_one_after_clearing() -> None:
    _PID.cache_clear()
    _MADE.clear()
    assert _PID() == _PID() == os.getpid()
    assert len(_MADE) == 1  # made once
    _PID.cache_clear()
    assert _PID() == os.getpid() and len(_MADE) == 2


def test_a_forked_child_makes_its_own_value() -> None:
    parent = _PID()
    context = multiprocessing.get_context("fork")
    queue: Queue[tuple[int, int]] = context.Queue()
    child = context.Process(target=_report, args=(queue,))
    child.start()
    value, pid = queue.get(timeout=60)
    child.join(timeout=60)
    assert value == pid != parent  # the child's own value, not the parent's inherited one
    assert _PID() == parent == os.getpid()
