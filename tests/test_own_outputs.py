"""The tool reads its own outputs: what ``edit`` and ``pairs`` write, given to
``perturb`` and ``edit``, is either processed or refused at the first record it cannot
go on from.

A record's chain is perturbation steps then edit steps: ``perturb`` refuses a record
with edit steps (an edit, a twin), ``edit`` one with twin steps, each with exit code 2
and one line naming its file and line, and no output is written. The instances of
those files (the bases that ``edit`` and ``pairs`` repeat) are taken as any instance.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli

from twosat_formal.generators import generate


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("own")
    lines = [generate("backbone", clauses=8, seed=s).to_json() for s in (1, 2)]
    (folder / "base.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def made_by(capsys: pytest.CaptureFixture[str], folder: Path, command: str, *extra: str) -> Path:
    out = folder / f"{command}.jsonl"
    if not out.exists():
        code, _, err = cli(capsys, command, str(folder / "base.jsonl"), *extra, "--out", str(out))
        assert code == 0, err
    return out


READERS = {
    "perturb": ["--op", "reorder"],
    "edit": ["--mode", "cumulative"],
}
WRITERS = {
    "edit": ["--mode", "cumulative"],
    "pairs": [],
}


#: The edit modes each reader does not go on from (``None``: every edit step).
REFUSED = {"perturb": None, "edit": ("twin",)}


@pytest.mark.parametrize(
    ("reader", "writer"), [("perturb", "edit"), ("perturb", "pairs"), ("edit", "pairs")]
)
def test_a_record_the_reader_cannot_go_on_from_is_refused_at_its_line(
    reader: str,
    writer: str,
    outputs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = made_by(capsys, outputs, writer, *WRITERS[writer])
    records = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    first = next(
        number
        for number, record in enumerate(records, 1)
        if any(
            step.get("kind") == "edit" and REFUSED[reader] in (None, (step.get("mode"),))
            for step in record.get("transforms", [])
        )
    )
    out = tmp_path / "out.jsonl"
    code, stdout, err = cli(capsys, reader, str(data), *READERS[reader], "--out", str(out))
    assert code == 2, (code, stdout, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {data}:{first}: "), err
    assert "does not take it" in lines[0] and records[first - 1]["id"] in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("reader", sorted(READERS))
def test_the_instances_of_an_edit_output_are_read_as_any_instance(
    reader: str, outputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = made_by(capsys, outputs, "edit", *WRITERS["edit"])
    bases = [
        line
        for line in data.read_text(encoding="utf-8").splitlines()
        if not any(s.get("kind") == "edit" for s in json.loads(line).get("transforms", []))
    ]
    only = tmp_path / "bases.jsonl"
    only.write_text("\n".join(bases) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, _, err = cli(capsys, reader, str(only), *READERS[reader], "--out", str(out))
    assert code == 0, err
    code, stdout, err = cli(capsys, "certify", str(out))
    assert code == 0, (stdout, err)
