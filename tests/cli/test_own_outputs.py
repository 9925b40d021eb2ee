"""The tool reads its own outputs: what ``edit`` and ``pairs`` write, given to
``perturb`` and ``edit``, is either processed or refused at the first record it cannot
go on from; and ``perturb``, ``edit`` and ``pairs`` read what they wrote themselves,
writing each id once, every input record carried, the result certified and the same
bytes on every run (but for the measured proof times).

A record's chain is perturbation steps then edit steps: ``perturb`` refuses a record
with edit steps (an edit, a twin), ``edit`` one with twin steps, each with exit code 2
and one line naming its file and line, and no output is written. The instances of
those files (the bases that ``edit`` and ``pairs`` repeat) are taken as any instance.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests._util.test_executors import comparable
from tests.support.cli import cli, error_lines
from twosat_formal.io.instance import first_of_each_id
from twosat_formal.make.generators import generate


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
    lines = error_lines(err)
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


#: The commands that read a dataset and write derived records, with the options of a run.
SELF_READERS = {
    "perturb": ["--op", "reorder"],
    "edit-cumulative": ["--mode", "cumulative"],
    "edit-individual": ["--mode", "individual", "--max-edits", "2"],
    "pairs": [],
}


def ids_of(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]


def run_on(
    capsys: pytest.CaptureFixture[str], name: str, data: Path, out: Path, *extra: str
) -> Path:
    command = name.split("-")[0]
    code, _, err = cli(capsys, command, str(data), *SELF_READERS[name], *extra, "--out", str(out))
    assert code == 0, err
    return out


@pytest.mark.parametrize("name", sorted(SELF_READERS))
@pytest.mark.parametrize("seed", ["0", "7"])
def test_a_command_reads_its_own_output(
    name: str, seed: str, outputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run_on(capsys, name, outputs / "base.jsonl", tmp_path / "first.jsonl")
    second = run_on(capsys, name, first, tmp_path / "second.jsonl", "--seed", seed)
    again = run_on(capsys, name, first, tmp_path / "again.jsonl", "--seed", seed)
    ids = ids_of(second)
    assert len(ids) == len(set(ids)), ids
    assert set(ids_of(first)) <= set(ids)
    # the same bytes but for the measured proof times
    assert comparable(second.read_text(encoding="utf-8")) == comparable(
        again.read_text(encoding="utf-8")
    )
    code, stdout, err = cli(capsys, "certify", str(second))
    assert code == 0, (stdout, err)
    if seed == "0" and name != "pairs":
        # the first run's derived records are derived again: more records, none twice
        assert len(ids) > len(ids_of(first))


@given(st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 9)), max_size=30))
def test_each_id_is_written_once_at_its_first_place(pairs: list[tuple[str, int]]) -> None:
    records = [(record_id, f"{record_id}{n}") for record_id, n in pairs]
    kept = list(first_of_each_id(records))
    firsts: dict[str, str] = {}
    for record_id, line in records:
        firsts.setdefault(record_id, line)
    assert kept == list(firsts.values())


@pytest.mark.parametrize(
    ("writer", "reader"),
    [
        ("perturb", "edit-cumulative"),
        ("perturb", "pairs"),
        ("edit-individual", "pairs"),
        ("perturb", "perturb"),
    ],
)
def test_a_derived_dataset_read_twice_writes_each_id_once(
    writer: str, reader: str, outputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = run_on(capsys, writer, outputs / "base.jsonl", tmp_path / "made.jsonl")
    once = run_on(capsys, reader, made, tmp_path / "once.jsonl")
    twice = run_on(capsys, reader, once, tmp_path / "twice.jsonl")
    ids = ids_of(twice)
    assert len(ids) == len(set(ids)), ids
    assert set(ids_of(made)) <= set(ids_of(once)) <= set(ids)
    code, stdout, err = cli(capsys, "certify", str(twice))
    assert code == 0, (stdout, err)


def edit_summary(
    capsys: pytest.CaptureFixture[str], name: str, data: Path, out: Path
) -> tuple[int, ...]:
    """The counts of an ``edit`` run's summary line: records, instances, edits of each kind."""
    code, _, err = cli(capsys, "edit", str(data), *SELF_READERS[name], "--out", str(out))
    assert code == 0, err
    match = re.search(
        r"wrote (\d+) records .*: (\d+) instances?, (\d+) label-preserving edits?, "
        r"(\d+) label-changing edits?",
        err,
    )
    assert match, err
    return tuple(map(int, match.groups()))


@pytest.mark.parametrize("name", ["edit-cumulative", "edit-individual"])
def test_the_edit_summary_counts_the_edits_written(
    name: str, outputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An input holding each instance twice makes each edit twice: the copies left out
    as duplicates are not counted, so the edits counted are the edit lines written."""
    base = (outputs / "base.jsonl").read_text(encoding="utf-8")
    twice = tmp_path / "twice.jsonl"
    twice.write_text(base + base, encoding="utf-8")
    once_counts = edit_summary(capsys, name, outputs / "base.jsonl", tmp_path / "once.jsonl")
    written, bases, preserving, changing = edit_summary(capsys, name, twice, tmp_path / "out.jsonl")
    assert bases == 2 * once_counts[1]
    assert written == len(ids_of(tmp_path / "out.jsonl")) == once_counts[0]
    assert (preserving, changing) == once_counts[2:]
    assert written == once_counts[1] + preserving + changing
