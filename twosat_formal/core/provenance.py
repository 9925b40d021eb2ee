"""Provenance: the versions and settings that every artefact records.

>>> info = tool_versions()
>>> info["twosat-formal"] == tool_version()
True
>>> "z3-solver" in info and "python-sat" in info
True
"""

from __future__ import annotations

import importlib.metadata
from functools import cache

__all__ = ["tool_version", "tool_versions"]


def tool_version() -> str:
    """The installed version of twosat-formal."""
    from twosat_formal._version import __version__

    return __version__


@cache
def tool_versions() -> dict[str, str]:
    """Versions of twosat-formal and of the solvers and libraries its results depend on."""
    info = {"twosat-formal": tool_version()}
    for dist in ("python-sat", "z3-solver", "lark", "numpy", "scipy"):
        try:
            info[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            info[dist] = "not installed"
    return dict(sorted(info.items()))
