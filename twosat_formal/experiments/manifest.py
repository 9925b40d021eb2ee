"""The manifest of an experiment run: what was run, with what, from which code.

``manifest.json`` records the tool version, the git revision of the checkout the tool
runs from (when it is one), the versions of the solvers and libraries results depend
on, the spec, the seeds, the model specs, the sampling parameters, SHA-256 digests of
the dataset and prompt files, and what certification and evaluation did.

Examples
--------
>>> info = environment()
>>> sorted(info)[:3]
['git_revision', 'platform', 'python']
>>> file_digest.__name__
'file_digest'
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from twosat_formal.errors import RecordError
from twosat_formal.provenance import tool_version, tool_versions

__all__ = ["environment", "file_digest", "git_revision", "read_manifest", "write_manifest"]


def git_revision(start: Path | None = None) -> str | None:
    """The commit of the git checkout holding ``start`` (default: this package), or ``None``.

    A checkout with uncommitted changes gets a ``+dirty`` suffix. Only read-only git
    commands run.

    >>> import tempfile
    >>> git_revision(Path(tempfile.mkdtemp())) is None
    True
    """
    where = start or Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=False,
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = head.stdout.strip()
    if status.returncode == 0 and status.stdout.strip():
        revision += "+dirty"
    return revision or None


def environment() -> dict[str, Any]:
    """Tool, solver and Python versions and the git revision."""
    return {
        "tool_version": tool_version(),
        "solver_versions": tool_versions(),
        "git_revision": git_revision(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }


def file_digest(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "f"
    >>> _ = p.write_bytes(b"Hi")
    >>> file_digest(p)[:12]
    '3639efcd08ab'
    """
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_manifest(path: Path, manifest: dict[str, Any]) -> Path:
    """Write ``manifest`` as indented JSON (replacing the file atomically); returns ``path``.

    >>> import tempfile
    >>> p = write_manifest(Path(tempfile.mkdtemp()) / "manifest.json", {"a": 1})
    >>> read_manifest(p)
    {'a': 1}
    """
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n",
                       encoding="utf-8")
    partial.replace(path)
    return path


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest at ``path``, or ``None`` if there is none; :class:`RecordError` if broken."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RecordError(f"invalid manifest ({exc.msg})", source=str(path)) from None
    if not isinstance(data, dict):
        raise RecordError("a manifest is a JSON object", source=str(path))
    return data
