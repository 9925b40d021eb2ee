"""The CI forms of ``certify``: the pre-commit hook and the GitHub Action, each tried by
its real consumer.

* ``.pre-commit-hooks.yaml`` is checked by ``pre-commit validate-manifest``, and run
  by ``pre-commit try-repo`` on a temporary git repository holding a good dataset
  (the hook passes) and then a tampered one (the hook fails, naming the record).
* ``action.yml`` is validated against the Actions metadata schema (SchemaStore's
  ``github-action.json``, vendored in ``tests/data/ci``), its expressions name only
  declared inputs, and its certify step's script runs under bash as the runner runs
  it (globs, report file, exit codes), with the tool of this checkout.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.certify.test_certify_tamper import DATASET
from tests.support.jsonl import write_jsonl

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).parents[1] / "data" / "ci"


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def tampered() -> list[Any]:
    records = copy.deepcopy(DATASET)
    line = next(i for i, r in enumerate(records) if r.get("label") == "SAT")
    records[line]["label"] = "UNSAT"
    return records


# -- the GitHub Action ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def action() -> Any:
    return load_yaml(ROOT / "action.yml")


@pytest.fixture(scope="module")
def action_schema() -> Any:
    return json.loads((SCHEMAS / "github-action.schema.json").read_text(encoding="utf-8"))


def test_the_action_meets_the_actions_metadata_schema(action: Any, action_schema: Any) -> None:
    jsonschema.Draft7Validator.check_schema(action_schema)
    jsonschema.validate(action, action_schema, cls=jsonschema.Draft7Validator)
    assert action["runs"]["using"] == "composite"
    assert {"paths", "jobs", "format", "output", "cache"} <= set(action["inputs"])


@pytest.mark.parametrize(
    "break_it",
    [
        lambda a: a.pop("runs"),
        lambda a: a["runs"]["steps"][1].pop("shell"),  # a run step needs its shell
        lambda a: a["inputs"]["paths"].pop("description"),
        lambda a: a["runs"].update(using="composite-ish"),
    ],
)
def test_the_schema_refuses_a_broken_action(action: Any, action_schema: Any, break_it: Any) -> None:
    broken = copy.deepcopy(action)
    break_it(broken)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, action_schema, cls=jsonschema.Draft7Validator)


def test_the_action_names_only_its_declared_inputs(action: Any) -> None:
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", text))
    assert used and used <= set(action["inputs"])
    for step in action["runs"]["steps"]:
        if "run" not in step:
            continue
        assert "${{" not in step["run"]  # inputs reach scripts through env, never spliced
        variables = set(re.findall(r"\$\{?([A-Z][A-Z_]+)", step["run"]))
        runner = {"GITHUB_OUTPUT"}
        assert variables - runner <= set(step.get("env", {})), step["name"]


def certify_step(action: Any) -> dict[str, Any]:
    return next(step for step in action["runs"]["steps"] if step.get("id") == "certify")


@pytest.fixture
def shim(tmp_path: Path) -> Path:
    """A folder whose ``twosat-formal`` runs this checkout's command line."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "twosat-formal"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{ROOT / "cli.py"}" "$@"\n')
    script.chmod(0o755)
    return folder


def run_step(action: Any, shim: Path, cwd: Path, **inputs: str) -> subprocess.CompletedProcess[str]:
    """The certify step's script under bash, with the env the runner would give it."""
    step = certify_step(action)
    defaults = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    values = {**defaults, **inputs}
    env = dict(os.environ)
    env["PATH"] = f"{shim}{os.pathsep}{env['PATH']}"
    env["GITHUB_OUTPUT"] = str(cwd / "github-output.txt")
    for name, expression in step["env"].items():
        match = re.fullmatch(r"\$\{\{ inputs\.([a-z-]+) \}\}", expression)
        assert match, expression
        env[name] = values[match.group(1)]
    return subprocess.run(
        ["bash", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_action_certifies_its_globs_and_writes_the_report(
    action: Any, shim: Path, tmp_path: Path
) -> None:
    data = tmp_path / "repo"
    (data / "sets" / "deep").mkdir(parents=True)
    write_jsonl(data / "sets" / "a.jsonl", DATASET[:4])
    write_jsonl(data / "sets" / "deep" / "b.jsonl", DATASET[4:])
    done = run_step(action, shim, data, paths="sets/**/*.jsonl", jobs="1")
    assert done.returncode == 0, done.stderr + done.stdout
    log = json.loads((data / "twosat-certify.sarif").read_text(encoding="utf-8"))
    assert log["runs"][0]["results"] == []
    assert (data / ".twosat-certify-cache" / "certify.cache").is_file()
    assert "report=twosat-certify.sarif" in (data / "github-output.txt").read_text()


def test_a_file_that_two_globs_match_is_certified_once(
    action: Any, shim: Path, tmp_path: Path
) -> None:
    """Overlapping globs (and a file named again through ``./``) name each file once:
    given twice, every record of it would fail as a repeated id."""
    (tmp_path / "sets" / "deep").mkdir(parents=True)
    write_jsonl(tmp_path / "sets" / "a.jsonl", DATASET[:4])
    write_jsonl(tmp_path / "sets" / "deep" / "b.jsonl", DATASET[4:])
    paths = "sets/*.jsonl sets/**/*.jsonl\n./sets/a.jsonl"
    done = run_step(action, shim, tmp_path, paths=paths, jobs="1", format="junit", output="r.xml")
    assert done.returncode == 0, done.stderr + done.stdout
    suites = ET.parse(tmp_path / "r.xml").getroot()
    assert [s.get("name") for s in suites] == ["sets/a.jsonl", "sets/deep/b.jsonl"]
    assert suites.get("tests") == str(len(DATASET)) and suites.get("failures") == "0"


def test_the_action_fails_on_a_tampered_dataset_and_still_writes_the_report(
    action: Any, shim: Path, tmp_path: Path
) -> None:
    write_jsonl(tmp_path / "data.jsonl", tampered())
    done = run_step(action, shim, tmp_path, paths="data.jsonl\n", format="junit", output="r.xml")
    assert done.returncode == 1
    assert "<failure" in (tmp_path / "r.xml").read_text(encoding="utf-8")


def test_the_action_stops_on_a_glob_that_matches_nothing(
    action: Any, shim: Path, tmp_path: Path
) -> None:
    write_jsonl(tmp_path / "data.jsonl", DATASET)
    done = run_step(action, shim, tmp_path, paths="data.jsonl missing/*.jsonl")
    assert done.returncode == 2
    assert "::error" in done.stdout and "missing/*.jsonl" in done.stdout


def test_the_action_with_github_annotations(action: Any, shim: Path, tmp_path: Path) -> None:
    write_jsonl(tmp_path / "data.jsonl", tampered())
    done = run_step(action, shim, tmp_path, paths="*.jsonl", format="github", output="", cache="")
    assert done.returncode == 1
    assert re.search(r"^::error file=data\.jsonl,line=\d+,", done.stdout, re.MULTILINE)


# -- pre-commit ------------------------------------------------------------------------------


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("pre-commit")
    assert exe is not None, "pre-commit is a test dependency (the [dev] extra)"
    # Offline, as CI runs: the hook's environment sees this environment's packages
    # (virtualenv's system site packages), and pip builds the tool from its source
    # without an index or an isolated build environment (setuptools and Cython, which
    # compile its kernel, are [dev] packages).
    env = dict(
        os.environ,
        PRE_COMMIT_HOME=str(home),
        VIRTUALENV_SYSTEM_SITE_PACKAGES="true",
        PIP_NO_INDEX="1",
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        PIP_NO_BUILD_ISOLATION="0",
    )
    return subprocess.run(
        [exe, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200
    )


def test_pre_commit_reads_the_hooks_manifest(tmp_path: Path) -> None:
    done = pre_commit(
        "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml"), cwd=ROOT, home=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (hook,) = load_yaml(ROOT / ".pre-commit-hooks.yaml")
    assert hook["id"] == "twosat-certify"
    pattern = re.compile(hook["files"])
    assert pattern.search("data/set.jsonl") and not pattern.search("data/set.json")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.mark.slow
def test_pre_commit_try_repo_passes_then_fails_on_the_tampered_dataset(tmp_path: Path) -> None:
    """The hook installs the tool from this repository (pre-commit's own environment)."""
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    write_jsonl(repo / "data.jsonl", DATASET)
    (repo / "notes.txt").write_text("not a dataset\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "good data", cwd=repo)
    done = pre_commit("try-repo", str(ROOT), "twosat-certify", "--all-files", cwd=repo, home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"twosat-formal certify\.+Passed", done.stdout)
    write_jsonl(repo / "data.jsonl", tampered())
    git("add", "data.jsonl", cwd=repo)
    done = pre_commit("try-repo", str(ROOT), "twosat-certify", cwd=repo, home=home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"twosat-formal certify\.+Failed", done.stdout)
    assert "FAIL data.jsonl:" in done.stdout
