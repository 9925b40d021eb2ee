"""The marks and helpers of the tests that run the real llama.cpp server (``[local]``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from twosat_formal.cli import main
from twosat_formal.io.instance import Instance, write_instances
from twosat_formal.make.generators import generate
from twosat_formal.verbalize import prompt_record
from twosat_formal.verbalize.prompts import PromptRecord, write_prompts

__all__ = [
    "HAVE_LLAMA",
    "NEEDS_LLAMA",
    "EvalRun",
    "exported_rows",
    "first_eval",
    "last_summary",
    "run_cli",
]

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


def run_cli(argv: list[str]) -> int:
    """Run the CLI in-process, which must exit through ``SystemExit``; its exit code."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return int(exit_info.value.code or 0)


def last_summary(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """The JSON summary on the last line ``eval --json`` printed."""
    summary: dict[str, Any] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return summary


def exported_rows(store: Path, out: Path) -> list[dict[str, Any]]:
    """The rows ``results`` writes from ``store`` to ``out`` (it must succeed), read back."""
    assert run_cli(["results", str(store), "--out", str(out)]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


class EvalRun(NamedTuple):
    """What :func:`first_eval` wrote and ran: ``eval``'s argv, its inputs, its summary."""

    argv: list[str]
    instances: list[Instance]
    records: list[PromptRecord]
    prompts: Path
    store: Path
    summary: dict[str, Any]


def first_eval(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    spec: str,
    clauses: tuple[int, int],
    *,
    mode: str,
    max_tokens: int,
) -> EvalRun:
    """Run ``eval`` (it must succeed) on the logic prompts of an implication-cycle and a
    backbone instance of ``clauses`` clauses, written with them to ``tmp_path``."""
    instances = [
        generate("implication-cycle", clauses=clauses[0], seed=1),
        generate("backbone", clauses=clauses[1], seed=2),
    ]
    dataset, prompts = tmp_path / "data.jsonl", tmp_path / "prompts.jsonl"
    write_instances(instances, dataset)
    records = [
        prompt_record(inst.formula, "logic", instance_id=inst.id, seed=0) for inst in instances
    ]
    write_prompts(records, prompts)
    store = tmp_path / "runs.sqlite"
    argv = [
        "eval", str(prompts), "--dataset", str(dataset), "--model", spec,
        "--mode", mode, "--max-tokens", str(max_tokens), "--temperature", "0",
        "--store", str(store), "--no-progress", "--json",
    ]  # fmt: skip
    assert run_cli(argv) == 0
    return EvalRun(argv, instances, records, prompts, store, last_summary(capsys))
