"""Executors: one ordered, streaming ``map`` that runs here, on local processes, or on Ray.

``generate``, ``perturb``, ``edit``, ``verbalize`` and ``certify`` hand their per-record
work to an executor. Every executor returns results **in input order**, and the work
function draws its randomness from a seed derived from the record (never from the
worker), so the output is byte-identical whatever the executor and the number of
workers.

Executors (:data:`EXECUTORS`):

``local``
    Runs the function in this process, one item after the other.
``process``
    A pool of ``jobs`` worker processes on this machine: forked from this process on
    Linux while it runs a single thread (the workers start with its imports done), else
    spawned (see :func:`start_method`).
``ray``
    Ray tasks: an existing cluster (``ray_address``, or ``$RAY_ADDRESS``), or a local
    Ray started with ``jobs`` CPUs and shut down on :meth:`Executor.close`. Needs the
    ``[ray]`` extra.

Items travel in batches and at most ``window`` batches are in flight, so memory is
bounded by the window, not by the number of items: input is read only as fast as
results are written. By default the batches grow: the first holds
:data:`FIRST_CHUNK` items and each next one twice as many, up to :data:`DEFAULT_CHUNK`,
so that a small input is still spread over every worker while a large one travels in
few, large batches (each batch is one round trip to a worker and one pickle, in which
an object repeated across its items, such as the root record of several derived
records, is sent once). A fixed ``chunk`` makes every batch that size. A
:class:`~twosat_formal.errors.TwoSatFormalError` raised by the function for an item
is raised again by :meth:`Executor.map` when that item's turn comes, exactly as the
``local`` executor would. :meth:`Executor.start` starts the workers before the first
item, each running an initializer (the imports of the work), so that their start-up
overlaps what the caller does before it maps.

Examples
--------
>>> with make_executor("local") as ex:
...     list(ex.map(abs, [-3, 1, -2]))
[3, 1, 2]
>>> EXECUTORS.names()
['local', 'process', 'ray']
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from types import TracebackType
from typing import Any, TypeVar

from twosat_formal._util.closing import Closing
from twosat_formal._util.registry import Registry
from twosat_formal.errors import ConfigError, TwoSatFormalError

__all__ = [
    "DEFAULT_CHUNK",
    "EXECUTORS",
    "FIRST_CHUNK",
    "MAX_JOBS",
    "Executor",
    "LocalExecutor",
    "ProcessExecutor",
    "RayExecutor",
    "check_jobs",
    "make_executor",
    "parse_shard",
    "shard_range",
    "start_method",
]

T = TypeVar("T")
R = TypeVar("R")

#: Name → executor class.
EXECUTORS: Registry[type[Executor]] = Registry("executor")

#: The largest batch, unless a caller fixes the batch size (``chunk``).
DEFAULT_CHUNK = 64

#: The first batch of a growing sequence (each next one doubles, up to the largest).
FIRST_CHUNK = 4


class _Raised:
    """A library error raised by the work function, carried back as a value."""

    def __init__(self, error: TwoSatFormalError) -> None:
        try:  # an error whose class cannot be rebuilt from its pickle keeps its message
            pickle.loads(pickle.dumps(error))
            self.error: TwoSatFormalError = error
        except Exception:
            self.error = TwoSatFormalError(str(error))


def _run_batch(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """Apply ``fn`` to each item; stop at the first library error and return it as a value."""
    results: list[Any] = []
    for item in items:
        try:
            results.append(fn(item))
        except TwoSatFormalError as exc:
            results.append(_Raised(exc))
            break
    return results


def _unpack(batch: list[Any]) -> Iterator[Any]:
    for result in batch:
        if isinstance(result, _Raised):
            raise result.error
        yield result


def _batches(items: Iterable[T], size: int, first: int | None = None) -> Iterator[list[T]]:
    """Batches of ``size`` items; from ``first`` items doubling up to ``size`` if given.

    >>> [len(b) for b in _batches(range(40), 16, first=4)]
    [4, 8, 16, 12]
    >>> [len(b) for b in _batches(range(7), 3)]
    [3, 3, 1]
    """
    iterator = iter(items)
    step = min(first, size) if first is not None else size
    while batch := list(islice(iterator, step)):
        yield batch
        step = min(2 * step, size)


#: The most workers ``--jobs`` may ask for (a process each on this machine, or Ray
#: workers): more is refused rather than forking without end.
MAX_JOBS = 1024


def check_jobs(jobs: int | None) -> None:
    """Refuse a ``--jobs`` outside ``[1, MAX_JOBS]`` (:class:`ConfigError`; ``None``: the CPUs).

    >>> check_jobs(4096)
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: --jobs must be in [1, 1024], got 4096
    """
    if jobs is not None and (isinstance(jobs, bool) or not 1 <= jobs <= MAX_JOBS):
        raise ConfigError(
            f"--jobs must be in [1, {MAX_JOBS}], got {jobs}",
            parameter="jobs",
            valid=f"an integer in [1, {MAX_JOBS}]",
        )


class Executor(Closing, ABC):
    """Runs a function over items and yields the results in input order.

    Use it as a context manager (or call :meth:`close`) so workers are released.

    Parameters
    ----------
    jobs:
        Workers (default: the CPUs of this machine, or of the Ray cluster).
    chunk:
        Items per task; default: growing batches of :data:`FIRST_CHUNK` items doubling
        up to :data:`DEFAULT_CHUNK`.
    """

    name = "executor"

    def __init__(self, jobs: int | None = None, *, chunk: int | None = None) -> None:
        check_jobs(jobs)
        if chunk is not None and chunk < 1:
            raise ConfigError(f"chunk must be >= 1, got {chunk}", parameter="chunk", valid=">= 1")
        self.jobs = jobs or os.cpu_count() or 1
        #: The largest batch (all batches when the size was fixed).
        self.chunk = chunk if chunk is not None else DEFAULT_CHUNK
        self._first = FIRST_CHUNK if chunk is None else None

    @property
    def window(self) -> int:
        """Batches in flight at most (bounds memory)."""
        return 2 * self.jobs + 2

    def start(self, initializer: Callable[[], object] | None = None) -> None:
        """Start the workers now; each first calls ``initializer`` (e.g. its imports).

        Without it the workers start at the first :meth:`map`. Called before the
        caller's own preparation (reading an index, say), the workers' start-up runs
        beside it. It does nothing when the workers are already running, and nothing
        on the ``local`` executor (its work imports what it needs when it runs).
        """

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn(item)`` for each item, in input order, computed by the workers.

        ``fn`` must be picklable for the ``process`` and ``ray`` executors: a
        module-level function, or a :func:`functools.partial` of one.
        """
        pending: deque[Any] = deque()
        for batch in _batches(items, self.chunk, self._first):
            pending.append(self._submit(fn, batch))
            if len(pending) >= self.window:
                yield from _unpack(self._result(pending.popleft()))
        while pending:
            yield from _unpack(self._result(pending.popleft()))

    @abstractmethod
    def _submit(self, fn: Callable[[Any], Any], batch: list[Any]) -> Any:
        """Start one batch; a handle for :meth:`_result`."""

    @abstractmethod
    def _result(self, handle: Any) -> list[Any]:
        """Wait for one batch's results."""

    def close(self) -> None:
        """Release the workers."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(jobs={self.jobs})"


@EXECUTORS.register("local")
class LocalExecutor(Executor):
    """Runs everything in this process (``jobs`` is 1)."""

    name = "local"

    def __init__(self, jobs: int | None = None, *, chunk: int | None = None) -> None:
        super().__init__(1, chunk=chunk)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``fn(item)`` for each item, lazily, in this process."""
        return (fn(item) for item in items)

    def _submit(self, fn: Callable[[Any], Any], batch: list[Any]) -> Any:
        return _run_batch(fn, batch)

    def _result(self, handle: Any) -> list[Any]:
        return list(handle)


def start_method() -> str:
    """How the ``process`` executor starts its workers: ``fork`` or ``spawn``.

    A forked worker begins with this process's modules already imported (the package,
    NumPy), where a spawned one starts a new interpreter and imports them again; that
    start-up is what a second worker costs on a short run. Forking is safe only from a
    process that runs one thread (a thread's locks would be copied held) and on Linux
    (macOS's system libraries refuse it), so anywhere else it is ``spawn``. The work
    and its results are the same either way: the workers get their items and
    functions pickled, and nothing they change comes back but the results.

    >>> start_method() in ("fork", "spawn")
    True
    """
    import multiprocessing

    forkable = sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()
    return "fork" if forkable and threading.active_count() == 1 else "spawn"


def _ready() -> None:
    """A task that does nothing: submitted once per worker to start them all."""


def _interrupted(signum: int, frame: object) -> None:
    os._exit(128 + signum)


def _worker_start(initializer: Callable[[], object] | None) -> None:
    """How a worker process starts: Ctrl-C ends it at once, then ``initializer`` runs.

    Ctrl-C reaches every process of the terminal's group. A worker that only raised
    ``KeyboardInterrupt`` in its current batch would go on with the batches queued for
    it, and the command would wait for them before it exits; a worker that ends lets the
    command stop at once (it reports the interruption, exit code 130).
    """
    import signal

    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # as the command's, if ignored
        signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the command's handler: just end
    if initializer is not None:
        initializer()


@EXECUTORS.register("process")
class ProcessExecutor(Executor):
    """A pool of worker processes on this machine (started as :func:`start_method` says)."""

    name = "process"

    def __init__(self, jobs: int | None = None, *, chunk: int | None = None) -> None:
        super().__init__(jobs, chunk=chunk)
        self._pool: ProcessPoolExecutor | None = None

    def start(self, initializer: Callable[[], object] | None = None) -> None:
        """Start the worker processes now, each calling ``initializer`` first."""
        self._open(initializer)

    def _open(self, initializer: Callable[[], object] | None = None) -> ProcessPoolExecutor:
        if self._pool is None:
            import multiprocessing

            context = multiprocessing.get_context(start_method())
            self._pool = ProcessPoolExecutor(
                max_workers=self.jobs,
                mp_context=context,
                initializer=_worker_start,
                initargs=(initializer,),
            )
            for _ in range(self.jobs):  # a spawning pool starts a worker per task submitted
                self._pool.submit(_ready)
        return self._pool

    def _submit(self, fn: Callable[[Any], Any], batch: list[Any]) -> Future[list[Any]]:
        return self._open().submit(_run_batch, fn, batch)

    def _result(self, handle: Future[list[Any]]) -> list[Any]:
        return handle.result()

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Close; after an interruption (Ctrl-C, ``SIGTERM``) end the workers first.

        Ctrl-C reaches the workers too (they end at once, see :func:`_worker_start`);
        ``SIGTERM`` reaches the command alone, which ends its workers here rather
        than wait for the batches they are running.
        """
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self._terminate()
        self.close()

    def _terminate(self) -> None:
        """End the worker processes now (what they run and what is queued is dropped).

        A worker ended while it sent a result leaves half a message in the result
        pipe, and the pool's reader thread would wait for the rest for ever (and the
        command's exit with it): once the workers are gone, this process closes its
        own end for writing too, so that the reader sees the pipe end and the pool
        shuts down as broken.
        """
        if self._pool is None:
            return
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        for process in workers:
            process.terminate()
        for process in workers:
            process.join(timeout=30)
        results = getattr(self._pool, "_result_queue", None)
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "the ray executor needs Ray: pip install 'twosat-formal[ray]'",
            parameter="executor",
            valid=", ".join(name for name in EXECUTORS.names() if name != "ray"),
        ) from None
    return ray


@EXECUTORS.register("ray")
class RayExecutor(Executor):
    """Ray tasks on an existing cluster, or on a local Ray started for this executor.

    Parameters
    ----------
    jobs:
        CPUs of the local Ray it starts; on a cluster, tasks in flight are bounded by
        twice the cluster's CPUs unless ``jobs`` is given.
    address:
        Ray address (``ray://host:10001``, ``host:6379`` or ``auto``); default
        ``$RAY_ADDRESS``; without either a local Ray is started and shut down again.
    """

    name = "ray"

    def __init__(
        self, jobs: int | None = None, *, chunk: int | None = None, address: str | None = None
    ) -> None:
        super().__init__(jobs, chunk=chunk)
        self._ray = _import_ray()
        self._started = False
        address = address or os.environ.get("RAY_ADDRESS") or None
        if not self._ray.is_initialized():
            options: dict[str, Any] = {"logging_level": "ERROR", "log_to_driver": False}
            if address is not None:
                self._ray.init(address=address, **options)
            else:
                self._ray.init(
                    num_cpus=jobs or os.cpu_count() or 1, include_dashboard=False, **options
                )
            self._started = True
        if jobs is None:
            self.jobs = max(1, int(self._ray.cluster_resources().get("CPU", 1)))
        self._task = self._ray.remote(num_cpus=1)(_run_batch)

    @property
    def ray(self) -> Any:
        """The ``ray`` module, initialized (for work that is not a ``map``)."""
        return self._ray

    def _submit(self, fn: Callable[[Any], Any], batch: list[Any]) -> Any:
        return self._task.remote(fn, batch)

    def _result(self, handle: Any) -> list[Any]:
        result: list[Any] = self._ray.get(handle)
        return result

    def close(self) -> None:
        """Shut down the local Ray this executor started (a cluster is left running)."""
        if self._started:
            self._ray.shutdown()
            self._started = False


def make_executor(
    kind: str = "local",
    *,
    jobs: int | None = None,
    ray_address: str | None = None,
    chunk: int | None = None,
) -> Executor:
    """The executor registered as ``kind``.

    >>> make_executor("process", jobs=2)
    ProcessExecutor(jobs=2)
    >>> make_executor("threads")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.UnknownNameError: unknown executor 'threads'; choose one of: \
local, process, ray
    """
    cls = EXECUTORS.get(kind)
    if cls is RayExecutor:
        return RayExecutor(jobs, chunk=chunk, address=ray_address)
    return cls(jobs, chunk=chunk)


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/n"`` → ``(i, n)``: shard ``i`` (0-based) of ``n``.

    >>> parse_shard("1/4")
    (1, 4)
    >>> parse_shard("4/4")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: --shard must be i/n with 0 <= i < n, got '4/4'
    """
    index_text, _, count_text = text.partition("/")
    try:
        index, count = int(index_text), int(count_text)
    except ValueError:
        index, count = -1, 0
    if not 0 <= index < count:
        raise ConfigError(
            f"--shard must be i/n with 0 <= i < n, got {text!r}",
            parameter="shard",
            valid="i/n with 0 <= i < n, e.g. 0/4",
        )
    return index, count


def shard_range(total: int, shard: tuple[int, int] | None) -> range:
    """The positions of one shard of ``total`` items: a contiguous block.

    Block ``i`` of ``n`` is ``[total*i//n, total*(i+1)//n)``, so the shards partition
    the items in order and concatenating the outputs of shards ``0..n-1`` gives the
    output of one run, byte for byte.

    >>> [list(shard_range(7, (i, 3))) for i in range(3)]
    [[0, 1], [2, 3], [4, 5, 6]]
    >>> shard_range(5, None)
    range(0, 5)
    """
    if shard is None:
        return range(total)
    index, count = shard
    return range(total * index // count, total * (index + 1) // count)
