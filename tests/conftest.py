"""Shared test settings: bytecode caching, and Hypothesis profiles with no deadline.

Bytecode: the session writes the compiled modules (the package's, and pytest's
assertion-rewritten test modules) to ``__pycache__`` even where
``PYTHONDONTWRITEBYTECODE`` is set. Without them every collecting process compiles
the package and rewrites the asserts of some 330 test modules again: about 6 s of CPU
of each xdist worker's collection (15.5 s -> 9 s for ``--collect-only -m "not slow"``).
The Python subprocesses the tests start inherit the setting: they read the cache and
do not write it.

Scheduling: with ``-n`` and no ``--dist``, the workers share the tests by work
stealing. Each starts on a contiguous half of the collection (a module's fixtures and
imports stay on one worker) and an idle worker takes half of the other's queue, so the
run does not end waiting on one worker's tail. A plain run is not distributed.

Garbage collection: once collected, the objects that exist (the imported modules,
Hypothesis' strategies, the parametrized items) are frozen (:func:`gc.freeze`), so
the collector's full passes during the tests no longer walk them again and again
(about a quarter of the collector's time in ``tests/solve``; the tests' own objects
are collected as before).
"""

from __future__ import annotations

import gc
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n N`` without ``--dist`` distributes by work stealing (xdist's own is ``load``)."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        config.option.dist = "worksteal"


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collecting built: later collections leave it out."""
    gc.collect()
    gc.freeze()


settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("ci" if os.environ.get("CI") else "default")
