"""The bad-input walk of :mod:`test_cli_bad_input`, fed special files.

Every command that reads a file is given, in place of its input, a character device
that never ends (``/dev/zero``, through a link named like the input), a named pipe
(FIFO), a 4 GiB sparse file and, where it reads lines, a file of more than
:data:`~twosat_formal.io.inputs.MAX_LINE_CHARS` characters without a line end. Each must
exit with 2 and print one line naming the file, without a traceback, without reading
the device or the sparse file whole, and without opening the pipe (a thread watches
for a reader of the pipe and lets it go, so that a command that opens it fails the
test instead of hanging it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli_bad_input import CASES, MORE_CASES, SUFFIX, good  # noqa: F401  (a fixture)
from tests.support.cli import cli, error_lines
from twosat_formal.io.inputs import MAX_LINE_CHARS

#: Kinds of input that are read a line at a time (the others are read whole).
LINE_KINDS = {"dataset"}

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


@contextlib.contextmanager
def watched_fifo(path: Path) -> Iterator[list[bool]]:
    """Make a FIFO at ``path``; the list holds ``True`` once something opened it to read.

    A reader is found (an open for writing without blocking succeeds only while one
    waits) and released: the writer end is closed at once, so the reader sees an end of
    file instead of waiting forever.
    """
    os.mkfifo(path)
    opened: list[bool] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.02):
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: nobody reads
                    return
                continue
            opened.append(True)
            os.close(fd)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield opened
    finally:
        done.set()
        thread.join()


@contextlib.contextmanager
def memory_cap(extra: int = 2 << 30) -> Iterator[None]:
    """Cap this process's address space at its size now plus ``extra`` bytes.

    A reader that took a device or a sparse file whole fails with ``MemoryError``
    (and the test with it) instead of taking the machine's memory.
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as stream:
        size = int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = size + extra if hard == resource.RLIM_INFINITY else min(size + extra, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.fixture(scope="module")
def long_line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file of one line longer than the bound, with no line end."""
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    with open(path, "wb") as stream:
        stream.write(b'{"id": "')
        block = b"a" * (1 << 20)
        for _ in range(MAX_LINE_CHARS // len(block) + 1):
            stream.write(block)
    return path


HOW = ["dev-zero", "fifo", "sparse", "no-line-end"]

#: Inputs beyond the bad-input walk's: ``report`` also reads a ``results.jsonl``.
SPECIAL_CASES = {
    "report results.jsonl": (lambda f, d, o: ["report", f, "--out", str(o)], "dataset"),
}


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("command", [*sorted(CASES), *MORE_CASES, *SPECIAL_CASES])
def test_a_special_file_is_one_line_naming_it_exit_2(
    tmp_path: Path,
    good: Path,  # noqa: F811  (the fixture imported above)
    long_line: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    how: str,
) -> None:
    argv, kind = {**CASES, **MORE_CASES, **SPECIAL_CASES}[command]
    if how == "no-line-end" and kind not in LINE_KINDS:
        pytest.skip("read whole, not by lines: bounded by size (the sparse case)")
    work = tmp_path / "work"
    work.mkdir()
    path = work / f"special-input{SUFFIX[kind]}"
    out = tmp_path / "out" / "result.jsonl"
    out.parent.mkdir()
    opened: list[bool] = []
    with contextlib.ExitStack() as stack:
        if how == "dev-zero":
            path.symlink_to("/dev/zero")
        elif how == "fifo":
            opened = stack.enter_context(watched_fifo(path))
        elif how == "sparse":
            with open(path, "wb") as stream:
                stream.truncate(4 << 30)
        else:
            path.symlink_to(long_line)
        with memory_cap():
            code, stdout, err = cli(capsys, *argv(str(path), good, out))
    assert not opened, f"{command} opened the named pipe"
    assert "Traceback" not in err + stdout
    assert code == 2, (code, stdout, err)
    lines = error_lines(err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert path.name in lines[0], lines[0]
    what = {"dev-zero": "is a character device", "fifo": "is a named pipe"}.get(how, "")
    assert what in lines[0], lines[0]  # says what the file is, not "no such file"
    assert list(out.parent.iterdir()) == []
