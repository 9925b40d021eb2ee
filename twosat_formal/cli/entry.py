"""The ``twosat-formal`` console script (and ``python cli.py``).

:func:`main` is a thin call into :func:`twosat_formal.cli.app.main`, the Typer
application; nothing in :mod:`twosat_formal.cli` imports this module.

The process ends without a collection over every module's objects: at exit
(:func:`end_of_process`) it collects its garbage once, as Python's shutdown first does,
and then freezes what is left (:func:`gc.freeze`), so that the collections of the
modules' teardown pass over nothing; the memory goes back with the process. The
objects Typer, pydantic and NumPy leave made that teardown about 15 ms of CPU, some 7 %
of a tiny ``solve``'s whole process.
"""

from __future__ import annotations

import atexit
import gc
import signal
from collections.abc import Sequence

__all__ = ["end_of_process", "main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Run the CLI with ``argv`` (default: the process's arguments); exits with its code.

    Registers :func:`end_of_process` (once) to run at the interpreter's exit: a caller
    that catches the :class:`SystemExit` goes on as before.
    """
    atexit.unregister(end_of_process)
    atexit.register(end_of_process)
    from twosat_formal.cli.app import main as run

    run(argv)


def end_of_process() -> None:
    """At exit: collect the garbage (finalizers run, files close, as at any exit), then
    freeze the objects left, which the interpreter's teardown then frees without
    searching them for cycles.

    What Python does not promise at exit stays unpromised: ``__del__`` of an object that
    a module still holds in a reference cycle when the modules are torn down
    (`object.__del__ <https://docs.python.org/3/reference/datamodel.html#object.__del__>`_:
    "It is not guaranteed that ``__del__()`` methods are called for objects that still
    exist when the interpreter exits"). Handlers registered after :func:`main` started
    (logging's flush, say) run before this one.

    A Ctrl-C from here on is ignored (when SIGINT still has Python's own handler): the
    command's work is done and its exit code stands, and a ``KeyboardInterrupt`` raised
    in a finalizer of the teardown would print "Exception ignored in ..." after it.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.collect()
    gc.freeze()
