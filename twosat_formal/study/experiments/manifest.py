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

from twosat_formal.core.provenance import tool_version, tool_versions
from twosat_formal.io.jsonl import read_json_lines
from twosat_formal.report.load import read_manifest

#: How long a ``git`` query for the commit of the code may take, in seconds.
_GIT_TIMEOUT_S = 10

__all__ = [
    "TIMING_KEYS",
    "content_digest",
    "environment",
    "file_digest",
    "git_revision",
    "read_manifest",
    "write_manifest",
]

#: Keys of proof records that hold how long a proof took (left out of content digests).
TIMING_KEYS = frozenset({"time_s", "seconds", "z3_seconds"})


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
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
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


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def content_digest(path: Path) -> str:
    """SHA-256 of a JSON Lines file's records with proof timings left out.

    Two runs of the same spec write the same records except for the time each
    proof took; this digest is equal for both.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> a, b = folder / "a.jsonl", folder / "b.jsonl"
    >>> _ = a.write_text('{"id": 1, "roundtrip": {"time_s": 0.1}}\\n')
    >>> _ = b.write_text('{"id": 1, "roundtrip": {"time_s": 0.2}}\\n')
    >>> content_digest(a) == content_digest(b), file_digest(a) == file_digest(b)
    (True, False)
    """
    digest = hashlib.sha256()
    for line in read_json_lines(path):
        record = _without_timings(line.value)
        digest.update(json.dumps(record, sort_keys=True, separators=(",", ":")).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def write_manifest(path: Path, manifest: dict[str, Any]) -> Path:
    """Write ``manifest`` as indented JSON (replacing the file atomically); returns ``path``.

    >>> import tempfile
    >>> p = write_manifest(Path(tempfile.mkdtemp()) / "manifest.json", {"a": 1})
    >>> read_manifest(p)
    {'a': 1}
    """
    from twosat_formal._util.atomic import atomic_output

    with atomic_output(path) as stream:
        stream.write(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n")
    return path
