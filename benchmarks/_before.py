"""The package as it was at an earlier commit, importable beside the current one.

``load_before(rev)`` extracts ``twosat_formal/`` at ``rev`` from this repository's
history (``git archive``) into a temporary folder, renames the package to
``twosat_formal_before`` (every ``twosat_formal`` identifier in its sources), and
imports it. The old and the new code then run in one process, on the same input,
alternately: the peer of the hot-path benchmarks. Without git or the commit (a
shallow clone), ``load_before`` returns ``None`` and the benchmark says so.

``cold(package)`` empties a package's per-process caches (``lru_cache`` functions,
per-process values and the Z3 sessions), so that each timed run starts as a fresh process would.
"""

from __future__ import annotations

import atexit
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

__all__ = ["BASELINE", "cold", "load_before"]

#: The commit before the hot paths of issue 16 were worked on (the issue's "today").
BASELINE = "c827ca1"

_ROOT = Path(__file__).resolve().parent.parent
_NAME = re.compile(rb"\btwosat_formal\b")


def load_before(rev: str = BASELINE) -> ModuleType | None:
    """``twosat_formal`` at ``rev``, imported as ``twosat_formal_before`` (or ``None``)."""
    if "twosat_formal_before" in sys.modules:
        return sys.modules["twosat_formal_before"]
    try:
        archive = subprocess.run(
            ["git", "-C", str(_ROOT), "archive", "--format=tar", rev, "twosat_formal"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folder = Path(tempfile.mkdtemp(prefix="twosat-before-"))
    atexit.register(shutil.rmtree, folder, True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.startswith("twosat_formal/"):
                continue
            data = tar.extractfile(member)
            assert data is not None
            content = data.read()
            if member.name.endswith(".py"):
                content = _NAME.sub(b"twosat_formal_before", content)
            target = folder / ("twosat_formal_before" + member.name[len("twosat_formal") :])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    _compile_extensions(folder)
    sys.path.insert(0, str(folder))
    return importlib.import_module("twosat_formal_before")


def _compile_extensions(folder: Path) -> None:
    """Compile the Cython modules of the extracted package in place (a commit from
    after the solver kernel became a compiled extension), as ``setup.py`` would."""
    sources = sorted(folder.rglob("*.pyx"))
    if not sources:
        return
    import numpy
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    extensions = [
        Extension(
            ".".join(source.relative_to(folder).with_suffix("").parts),
            [str(source.relative_to(folder))],
            include_dirs=[numpy.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
        for source in sources
    ]
    here = Path.cwd()
    try:
        os.chdir(folder)
        distribution = Distribution(
            {"ext_modules": cythonize(extensions, quiet=True, language_level="3")}
        )
        command = distribution.get_command_obj("build_ext")
        command.inplace = True
        distribution.run_command("build_ext")
    finally:
        os.chdir(here)


def cold(package: str) -> None:
    """Empty the caches of every loaded module of ``package`` (as in a fresh process)."""
    for name, module in list(sys.modules.items()):
        if not (name == package or name.startswith(package + ".")) or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if hasattr(value, "cache_clear") and not isinstance(value, type):
                value.cache_clear()
            elif attribute in ("_SESSION", "_Z3_SOLVER"):
                setattr(module, attribute, None)


def module_of(package: str, *paths: str) -> ModuleType:
    """The first of ``paths`` (dotted, below ``package``) that ``package`` has: the
    package's own layout first, then an older commit's (``core.formula``, then
    ``formula`` before the folders became the layers)."""
    for path in paths[:-1]:
        try:
            return importlib.import_module(f"{package}.{path}")
        except ModuleNotFoundError:
            continue
    return importlib.import_module(f"{package}.{paths[-1]}")
