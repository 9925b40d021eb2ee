"""The marks of the tests that run the real llama.cpp server (the ``[local]`` extra)."""

from __future__ import annotations

import pytest

__all__ = ["HAVE_LLAMA", "NEEDS_LLAMA"]

try:
    import llama_cpp  # noqa: F401  (only whether it imports matters)
except ImportError:
    #: Whether llama-cpp-python imports.
    HAVE_LLAMA = False
else:
    HAVE_LLAMA = True

#: ``pytestmark = NEEDS_LLAMA`` in a module whose every test runs the real server.
NEEDS_LLAMA = [
    pytest.mark.llama,
    pytest.mark.skipif(
        not HAVE_LLAMA,
        reason="llama_cpp is not importable: install the [local] extra "
        "(pip install 'twosat-formal[local]')",
    ),
]
