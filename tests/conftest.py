"""Shared test settings: bytecode caching, and Hypothesis profiles with no deadline.

Bytecode: the session writes the compiled modules (the package's, and pytest's
assertion-rewritten test modules) to ``__pycache__`` even where
``PYTHONDONTWRITEBYTECODE`` is set. Without them every collecting process compiles
the package and rewrites the asserts of some 330 test modules again: about 6 s of CPU
of each xdist worker's collection (15.5 s -> 9 s for ``--collect-only -m "not slow"``).
The Python subprocesses the tests start inherit the setting: they read the cache and
do not write it.
"""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

sys.dont_write_bytecode = False

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
