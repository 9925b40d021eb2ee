"""A small certified dataset for the integration tests, and the CLI run in-process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.support.cli import cli
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.make.generators import FAMILIES, generate
from twosat_formal.verbalize import TEMPLATES, prompt_record
from twosat_formal.verbalize.prompts import PromptRecord, write_prompts

__all__ = [
    "OFFLINE",
    "cli",
    "installed",
    "make_dataset",
    "needs_module",
    "run_installed",
    "small_instances",
]


def needs_module(name: str) -> pytest.MarkDecorator:
    """Skip where module ``name`` is not installed, without importing it to collect.

    ``pytest.importorskip`` at a module's top imports the library in every process
    that collects the tests (``datasets`` takes seconds, with pandas and pyarrow);
    this mark only looks the module up, and the tests that need it import it.
    """
    return pytest.mark.skipif(find_spec(name) is None, reason=f"could not import {name!r}")


def small_instances(per_family: int = 1, clauses: int = 8) -> list[Instance]:
    """``per_family`` small instances of each family but symmetry (SAT and UNSAT)."""
    return [
        generate(family, clauses=clauses, seed=seed)
        for family in FAMILIES.names()
        if family != "symmetry"
        for seed in range(per_family)
    ]


def make_dataset(folder: Path, per_family: int = 1) -> tuple[Path, Path, list[PromptRecord]]:
    """Instances and their prompts (templates in turn, round trips proven), as files."""
    instances = small_instances(per_family)
    templates = TEMPLATES.names()
    prompts = [
        prompt_record(inst.formula, templates[i % len(templates)], instance_id=inst.id, seed=i)
        for i, inst in enumerate(instances)
    ]
    dataset, prompt_file = folder / "dataset.jsonl", folder / "prompts.jsonl"
    write_instances(instances, dataset)
    write_prompts(prompts, prompt_file)
    return dataset, prompt_file, prompts


#: The environment of a tool run offline (no hub, no telemetry, no live display).
OFFLINE = {
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "INSPECT_DISPLAY": "none",
    "NO_COLOR": "1",
}


def installed(command: str) -> str:
    """The console script ``command`` installed beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).parent / command
    if beside.is_file():
        return str(beside)
    found = shutil.which(command)
    if found is None:
        import pytest

        pytest.skip(f"{command} is not installed")
    return found


def run_installed(
    argv: list[str], cwd: Path, *, timeout: int = 600, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run an installed tool as its users do: offline, a fresh short HOME (inspect puts a
    unix socket there), this interpreter's scripts first on PATH, and the installed
    package (not the checkout) importable."""
    with tempfile.TemporaryDirectory(prefix="home") as home:
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        env = {**os.environ, **OFFLINE, "HOME": home, "XDG_RUNTIME_DIR": home, "PATH": path}
        env.pop("PYTHONPATH", None)
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    if check:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done
