"""docs/integrations.md, followed as a new user would: every command, exactly as written.

The ``bash`` blocks run in order in one fresh folder, with the installed console
scripts (``twosat-formal``, ``inspect``, ``lm_eval``), offline. The one file no command
makes, the Batch API's output, is written here as the API would: a ``ref/oracle``
answer to each request of ``requests.jsonl``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.support.integrations import needs_module, run_installed

pytestmark = [needs_module(name) for name in ("inspect_ai", "lm_eval", "datasets")]

DOC = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"


def blocks(language: str) -> list[tuple[str, str]]:
    """The fenced ``language`` blocks of the page, each with the heading above it."""
    found = []
    heading = ""
    text = DOC.read_text(encoding="utf-8")
    for match in re.finditer(r"^(#+ [^\n]*)$|^```(\w*)\n(.*?)^```$", text, re.M | re.S):
        if match.group(1):
            heading = match.group(1)
        elif match.group(2) == language:
            found.append((heading, match.group(3)))
    return found


def commands_of(block: str) -> list[str]:
    """The commands of a bash block: continued lines joined, comments left out."""
    joined = re.sub(r"\\\n\s*", "", block)
    return [
        line for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]


def batch_output(folder: Path) -> None:
    """What the Batch API returns for ``requests.jsonl``: the oracle's answers."""
    from twosat_formal.evaluate.models.reference import OracleModel

    oracle = OracleModel()
    lines: list[str] = []
    for line in (folder / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        request = json.loads(line)
        prompt = request["body"]["messages"][-1]["content"]
        choice = {"message": {"role": "assistant", "content": oracle.respond(prompt).text},
                  "finish_reason": "stop"}  # fmt: skip
        body = {"model": request["body"]["model"], "choices": [choice]}
        lines.append(json.dumps({"id": f"batch_req_{len(lines)}",
                                 "custom_id": request["custom_id"],
                                 "response": {"status_code": 200, "body": body},
                                 "error": None}))  # fmt: skip
    (folder / "batch_output.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_every_command_of_the_page_runs_as_written(tmp_path: Path) -> None:
    commands = [(h, c) for h, block in blocks("bash") for c in commands_of(block)]
    assert len(commands) >= 10
    for heading, command in commands:
        if "batch_output.jsonl" in command and not (tmp_path / "batch_output.jsonl").exists():
            batch_output(tmp_path)  # the batch API's part, after `batch prepare`
        done = run_installed(["bash", "-euo", "pipefail", "-c", command], tmp_path, check=False)
        assert done.returncode == 0, (heading, command, done.stdout[-2000:], done.stderr[-3000:])
    # what the commands made holds up: inspect's runs succeeded (it exits 0 on a failed
    # sample too), the oracle scored 1.0, the answers were judged
    from inspect_ai.log import read_eval_log

    logs = sorted((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 2
    for path in logs:
        log = read_eval_log(str(path))
        assert log.status == "success" and log.results is not None
        if log.eval.model == "twosat/oracle":
            strict = next(s for s in log.results.scores if s.name == "strict")
            assert strict.metrics["accuracy"].value == 1.0
    lm_scored = (tmp_path / "lm-scored.jsonl").read_text(encoding="utf-8").splitlines()
    assert lm_scored and {json.loads(r)["failure"] for r in lm_scored} == {"no-answer"}
    scored = (tmp_path / "scored.jsonl").read_text(encoding="utf-8").splitlines()
    prompts = (tmp_path / "prompts.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(scored) == len(prompts)
    assert {json.loads(r)["failure"] for r in scored} == {"correct"}
    assert (tmp_path / "report" / "report.md").is_file()
    # the page's Python for the hf export, in the same folder
    (heading, code), *_ = [b for b in blocks("python") if "load_dataset" in b[1]]
    run_installed([sys.executable, "-c", code + "\nprint(len(data), len(backbone))"], tmp_path)
