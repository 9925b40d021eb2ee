"""Output files: written beside the target and renamed on success, or as streams.

A command that fails half-way (a bad line 3 of its input, a missing model, Ctrl-C)
leaves no partial output file and keeps an existing one intact: the output goes to a
temporary file in the target's folder, which replaces the target only when the
writing finished.

What is not a regular file is never replaced: a device, a pipe or a socket
(``/dev/null``, a FIFO) and a path naming an open descriptor (``/dev/stdout``,
``/dev/fd/N``, anything under ``/proc``) are written in place as streams, and so is
``-``, standard output (never a file named ``-``); a symbolic
link is written through (the file it names is replaced, the link stays). Nothing is
deleted that this module did not create. :func:`refuse_aliases` refuses an output
that is one of the command's inputs, before anything is written, and
:func:`refuse_unwritable` one that is a folder or lies in a missing folder, which every
writer checks as it starts.

Examples
--------
>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.jsonl"
>>> with atomic_output(target) as stream:
...     _ = stream.write("one\\n")
>>> target.read_text()
'one\\n'
>>> try:
...     with atomic_output(target) as stream:
...         _ = stream.write("half")
...         raise ValueError("input broken at line 3")
... except ValueError:
...     pass
>>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
('one\\n', ['out.jsonl'])
>>> with atomic_output("/dev/null") as stream:  # a device: written, never replaced
...     _ = stream.write("gone")
>>> import stat; stat.S_ISCHR(pathlib.Path("/dev/null").stat().st_mode)
True
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from twosat_formal.errors import ConfigError, MissingFolderError

__all__ = [
    "STDOUT",
    "atomic_output",
    "atomic_path",
    "refuse_aliases",
    "refuse_repeats",
    "refuse_unwritable",
    "stream_target",
    "write_target",
]

#: Symbolic links followed at most, as the kernel does (ELOOP beyond).
_MAX_LINKS = 40
#: The output name of standard output.
STDOUT = "-"


def _hops(path: Path) -> Iterator[Path]:
    """``path`` (absolute) and each path its chain of symbolic links leads to."""
    here = Path(os.path.abspath(path))
    for _ in range(_MAX_LINKS):
        yield here
        try:
            link = os.readlink(here)
        except OSError:  # not a link (or missing): the chain ends here
            return
        here = Path(os.path.abspath(here.parent / link))
    yield here


def _descriptor(path: Path) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout``), or None."""
    for hop in _hops(path):
        folder = os.path.realpath(hop.parent)
        if folder == os.path.realpath(f"/proc/{os.getpid()}/fd") and hop.name.isdigit():
            return int(hop.name)
    return None


def stream_target(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` is written in place: not a regular file, or a ``/proc`` path.

    ``-`` (standard output), devices, pipes, sockets and terminals, and any path that
    leads into ``/proc`` (``/dev/stdout``, ``/dev/fd/1``), are streams; a missing path,
    a regular file, or a link to either is not.

    >>> stream_target("/dev/null"), stream_target("/dev/stdout"), stream_target("out.jsonl")
    (True, True, False)
    >>> stream_target("-"), stream_target("./-")
    (True, False)
    """
    if os.fspath(target) == STDOUT:
        return True
    path = Path(target)
    if any(os.path.realpath(hop.parent).startswith("/proc/") for hop in _hops(path)):
        return True
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def write_target(target: str | os.PathLike[str]) -> Path:
    """The file a write to ``target`` replaces: ``target``, or the file its links name.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "link.jsonl").symlink_to("real.jsonl")
    >>> write_target(folder / "link.jsonl") == folder.resolve() / "real.jsonl"
    True
    """
    path = Path(target)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def refuse_unwritable(target: str | os.PathLike[str]) -> Path:
    """The file a write to ``target`` replaces (:func:`write_target`), refused when it
    cannot be: a folder, or a file in a folder that does not exist.

    :func:`atomic_path` and :func:`atomic_output` check it when they start; a command
    checks it before its work to refuse a bad output at once. ``-`` and stream targets
    pass, as they are.

    Raises
    ------
    IsADirectoryError
        ``target`` is a folder (named as given).
    MissingFolderError
        The folder of the file does not exist (named).

    Examples
    --------
    >>> refuse_unwritable("-"), refuse_unwritable("out.jsonl")
    (PosixPath('-'), PosixPath('out.jsonl'))
    >>> refuse_unwritable("/nonexistent/sub/out.jsonl")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.MissingFolderError: /nonexistent/sub: no such folder
    """
    if os.fspath(target) == STDOUT or stream_target(target):
        return Path(target)
    final = write_target(target)
    if final.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(target))
    if not os.path.isdir(final.parent):
        raise MissingFolderError(errno.ENOENT, "no such folder", os.fspath(final.parent))
    return final


@contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``target`` that replaces it when the block succeeds.

    For writers that want a path (Parquet, SQLite exports); the temporary file is
    removed when the block raises. A stream target (:func:`stream_target`) is given
    as it is, to be written in place; ``-`` gets a temporary file whose bytes go to
    standard output when the block succeeds (a writer that opened ``/dev/stdout``
    would truncate a file the shell sent it to); a symbolic link is written through.
    """
    if os.fspath(target) == STDOUT:
        with _through_stdout() as written:
            yield written
        return
    if stream_target(target):
        yield Path(target)
        return
    final = refuse_unwritable(target)
    partial: Path | None = None
    try:  # from the moment the file exists: removed on any way out (Ctrl-C, SIGTERM)
        partial = _partial_beside(final)
        yield partial
        os.replace(partial, final)
    finally:
        if partial is not None and partial.exists():
            partial.unlink()


def _partial_beside(final: Path) -> Path:
    """A new empty temporary file beside ``final``, with the permissions ``final`` gets.

    A folder that cannot hold it is named as asked for, not the temporary file; a
    missing one is a :class:`~twosat_formal.errors.MissingFolderError`.
    """
    try:
        handle, name = tempfile.mkstemp(
            prefix=f".{final.name}.", suffix=".partial", dir=final.parent or "."
        )
    except OSError as error:
        folder = os.fspath(final.parent)
        if isinstance(error, FileNotFoundError) and not os.path.isdir(final.parent or "."):
            raise MissingFolderError(error.errno, "no such folder", folder) from None
        raise type(error)(error.errno, error.strerror, folder) from None
    partial = Path(name)
    try:
        os.close(handle)
        os.chmod(partial, _mode_for(final))
    except BaseException:  # Ctrl-C, SIGTERM: nothing left behind
        partial.unlink(missing_ok=True)
        raise
    return partial


@contextmanager
def _through_stdout() -> Iterator[Path]:
    """A temporary file whose bytes go to standard output when the block succeeds."""
    with tempfile.TemporaryDirectory(prefix="twosat-stdout-") as folder:
        written = Path(folder) / "stdout"
        yield written
        _to_stdout(written)


def _to_stdout(written: Path) -> None:
    """Copy the file ``written`` to standard output, after what is buffered for it."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    with open(written, "rb") as source:
        if buffer is not None:
            shutil.copyfileobj(source, buffer)
        else:  # a replaced sys.stdout without bytes
            sys.stdout.write(source.read().decode("utf-8", errors="replace"))
    sys.stdout.flush()


def _mode_for(final: Path) -> int:
    """The permissions of the file ``final`` replaces, else those a plain open() gives."""
    try:
        return stat.S_IMODE(final.stat().st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextmanager
def atomic_output(
    target: str | os.PathLike[str], *, mode: str = "w", newline: str | None = "\n"
) -> Iterator[IO[str]]:
    """A text stream whose content becomes ``target`` only when the block succeeds.

    A stream target (``/dev/null``, a FIFO, ``/dev/stdout``) is written in place; a
    descriptor of this process (``/dev/stdout``, ``/dev/fd/N``) is written through a
    copy of it, so that its position and append mode hold; ``-`` is :data:`sys.stdout`
    itself (left open).
    """
    if os.fspath(target) == STDOUT:
        yield sys.stdout
        sys.stdout.flush()
        return
    if stream_target(target):
        fd = _descriptor(Path(target))
        opened = open(  # noqa: SIM115 - closed by the with below
            os.dup(fd) if fd is not None else target, mode, encoding="utf-8", newline=newline
        )
        with opened as stream:
            yield stream
        return
    with (
        atomic_path(target) as partial,
        open(partial, mode, encoding="utf-8", newline=newline) as stream,
    ):
        yield stream


def _regular(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` leads to a regular file (``/dev/stdout`` redirected to one)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _file_keys(path: Path) -> list[Hashable]:
    """What names the file of ``path``: its resolved path, and its device and inode
    when it is a regular file (a hard link names it too)."""
    keys: list[Hashable] = [os.path.realpath(path)]
    try:
        found = path.stat()
    except OSError:
        return keys
    if stat.S_ISREG(found.st_mode):
        keys.append((found.st_dev, found.st_ino))
    return keys


def _same(one: Path, two: Path) -> bool:
    """Whether the paths name one regular file (or one path, once resolved)."""
    return not set(_file_keys(one)).isdisjoint(_file_keys(two))


def refuse_aliases(
    outputs: Mapping[str, str | os.PathLike[str] | None],
    inputs: Mapping[str, str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None],
) -> None:
    """Refuse an output that is one of the inputs, or another output.

    ``outputs`` and ``inputs`` map a parameter's name to its path (inputs: or paths);
    None and an output ``"-"`` (stdout) are skipped, and so are stream targets
    (:func:`stream_target`), which nothing replaces, but for a descriptor that leads
    to a regular file (``--out /dev/stdout >> input.jsonl`` would read its own
    output); an input ``"-"`` is standard input, which aliases an output when it was
    redirected from that file. Two paths
    alias when they resolve to one path (links, ``..``) or name one regular file (hard
    links).

    Raises
    ------
    ConfigError
        Naming the output parameter and the input it would overwrite.

    Examples
    --------
    >>> refuse_aliases({"out": "b.jsonl"}, {"dataset": ["a.jsonl"]})
    >>> try:
    ...     refuse_aliases({"out": "./a.jsonl"}, {"dataset": ["a.jsonl"]})
    ... except ConfigError as error:
    ...     print(error)
    --out ./a.jsonl is the input a.jsonl (dataset); write to another file
    """
    written = _written_paths(outputs)
    read = [(name, path, "the input") for name, path in _read_paths(inputs)]
    for index, (name, path) in enumerate(written):
        later = [(_option(n), p, "the output") for n, p in written[index + 1 :]]
        for source, other, what in read + later:
            stdin = other == "-"
            if _same(Path(path), Path("/dev/stdin" if stdin else other)):
                shown = "the file standard input reads" if stdin else f"{what} {other}"
                raise ConfigError(
                    f"{_option(name)} {path} is {shown} ({source}); write to another file",
                    parameter=name,
                    valid="a path that is none of the command's inputs",
                )


def refuse_repeats(
    paths: Sequence[str | os.PathLike[str]],
    *,
    noun: str = "file",
    parameter: str | None = None,
    of: Callable[[Path], Path] | None = None,
) -> None:
    """Refuse input files that name one file twice (one path twice, ``d.jsonl`` and
    ``./d.jsonl``, a link and what it names, two hard links): its records would count
    twice. ``of`` gives the file a path stands for, compared in its place (a run's
    folder stands for the store it holds); the message names the paths as given.

    Raises
    ------
    ConfigError
        Naming the ``noun`` given twice and how it was given first.

    Examples
    --------
    >>> refuse_repeats(["a.jsonl", "b.jsonl"])
    >>> try:
    ...     refuse_repeats(["a.jsonl", "b.jsonl", "./a.jsonl"], noun="dataset")
    ... except ConfigError as error:
    ...     print(error)
    dataset ./a.jsonl is given twice (as a.jsonl too); name each dataset once
    """
    seen: dict[Hashable, str] = {}
    for path in paths:
        keys = _file_keys(Path(path) if of is None else of(Path(path)))
        first = next((seen[key] for key in keys if key in seen), None)
        if first is not None:
            raise ConfigError(
                f"{noun} {os.fspath(path)} is given twice (as {first} too); name each {noun} once",
                parameter=parameter,
                valid=f"each {noun} once",
            )
        for key in keys:
            seen[key] = os.fspath(path)


def _written_paths(
    outputs: Mapping[str, str | os.PathLike[str] | None],
) -> list[tuple[str, str]]:
    """The output paths that could replace an input, with their parameter's name: not
    None nor ``-`` (stdout), nor a stream target but one that leads to a regular file."""
    return [
        (name, str(path))
        for name, path in outputs.items()
        if path is not None and str(path) != "-" and (not stream_target(path) or _regular(path))
    ]


def _option(name: str) -> str:
    """The option of a parameter: ``--max-bytes`` for ``max_bytes``."""
    return f"--{name.replace('_', '-')}"


def _read_paths(
    inputs: Mapping[str, str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None],
) -> list[tuple[str, str]]:
    """Each input path with the name of its parameter (one or several paths, or None)."""
    read: list[tuple[str, str]] = []
    for name, value in inputs.items():
        if value is not None:
            paths = [value] if isinstance(value, str | os.PathLike) else list(value)
            read += [(name, str(p)) for p in paths]
    return read
