"""Streaming commands use bounded memory: peak RSS at 20,000 records within 1.5x of 2,000;
certify's index of ids holds under 200 bytes a record.

Each run is a fresh interpreter that runs the real command and reports its own peak
resident set size (``ru_maxrss``). Every input record carries 8 KB of provenance, so a
command that kept its records (the input, or what it made from them) would hold over
150 MB more at 20,000 records than at 2,000 and fail the bound by far; a streaming one
holds a window of records whatever the input size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from twosat_formal.make.generators import Dataset, DatasetConfig

RUNNER = """
import resource, sys
from twosat_formal.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    if exc.code and not (sys.argv[1] == "certify" and exc.code == 1):
        raise
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("memory")
    lines = []
    for instance in Dataset(DatasetConfig("backbone", clauses=4), seed=9, size=100):
        record = instance.to_record()
        record["provenance"]["note"] = "x" * 8192
        lines.append(json.dumps(record))
    paths = {}
    for size in (2_000, 20_000):
        paths[size] = folder / f"data-{size}.jsonl"
        with open(paths[size], "w", encoding="utf-8") as stream:
            for i in range(size):  # each line its own id: a dataset holds an id once
                record = json.loads(lines[i % len(lines)])
                record["id"] = f"{record['id']}-{i}"
                stream.write(json.dumps(record) + "\n")
    return paths


@pytest.mark.slow
def test_certify_memory_does_not_grow_with_the_records(tmp_path: Path) -> None:
    """certify indexes ids and offsets, not records: 20,000 records of 8 KB each (which
    fail their first check, so that the test stays fast) cost no more than 2,000.

    The report keeps each failure (a few hundred bytes), so memory does grow with the
    failures listed; what it must not hold is the records (160 MB more here).
    """
    peaks = {}
    for size in (2_000, 20_000):
        data = tmp_path / f"certify-{size}.jsonl"
        with open(data, "w", encoding="utf-8") as stream:
            for i in range(size):
                stream.write(json.dumps({"id": f"r-{i}", "note": "x" * 8192}) + "\n")
        peaks[size] = peak_rss_kib(["certify", str(data), "--no-progress"])
    assert peaks[20_000] <= 1.5 * peaks[2_000], peaks


def peak_rss_kib(argv: list[str]) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["verbalize", "{data}", "--template", "logic"],
        ["perturb", "{data}", "--op", "reorder"],
        ["edit", "{data}", "--mode", "individual", "-k", "1", "--op", "drop", "--keep-base"],
    ],
    ids=["verbalize", "perturb", "edit"],
)
def test_peak_memory_does_not_grow_with_the_records(
    inputs: dict[int, Path], tmp_path: Path, command: list[str]
) -> None:
    peaks = {}
    for size, data in inputs.items():
        out = tmp_path / f"out-{size}.jsonl"
        argv = [arg.replace("{data}", str(data)) for arg in command]
        peaks[size] = peak_rss_kib([*argv, "--no-progress", "--out", str(out)])
        with open(out, "rb") as stream:
            assert sum(1 for _ in stream) >= size  # every record was written
    assert peaks[20_000] <= 1.5 * peaks[2_000], peaks


def index_bytes(path: Path) -> int:
    """The bytes that certify's index of ``path`` holds once built (traced allocations)."""
    import gc
    import tracemalloc

    from twosat_formal.certify.index import Index

    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        index = Index([path])
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    with index:
        assert not index.duplicates and len(index.where) == index.records
    return held


@pytest.mark.slow
def test_certify_index_holds_an_id_and_one_int_per_record(tmp_path: Path) -> None:
    """What certify keeps for every record is its id's place in the index: the id, one
    int and the dict's slot, under 200 bytes a record for ids of 33 characters (a tuple
    of file, offset and line, as it once was, costs about 90 bytes more); nothing else
    grows with the records (measured as the growth from 4,000 to 40,000 records, so
    what is fixed cancels out)."""
    from twosat_formal.io.jsonl import json_line

    held = {}
    for size in (4_000, 40_000):
        data = tmp_path / f"index-{size}.jsonl"
        with open(data, "w", encoding="utf-8") as stream:
            for i in range(size):
                record = {"schema_version": 1, "id": f"backbone-n20-m20-{i:016x}", "x": i}
                if i % 3 == 1:  # a prompt naming the record before it as its instance
                    record["instance_id"] = f"backbone-n20-m20-{i - 1:016x}"
                stream.write(json_line(record) + "\n")
        held[size] = index_bytes(data)
    per_record = (held[40_000] - held[4_000]) / 36_000
    assert per_record < 200, held


Z3_RUNNER = """
import resource, sys
from twosat_formal.make.generators import generate
from twosat_formal.solve import decide
formulas = [generate("backbone", clauses=20, seed=s).formula for s in range(50)]
def peak_after(calls):
    for i in range(calls):
        decide(formulas[i % len(formulas)], "z3")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak_after(1_500), peak_after(6_000))
"""


@pytest.mark.slow
def test_z3_answers_in_a_process_do_not_grow_its_memory() -> None:
    """A worker decides every record with Z3 on one process-wide solver, renewed every
    :data:`~twosat_formal._util.per_process.Z3_USES` queries: Z3 keeps about a kilobyte a
    query until its context goes (6 MB over these 6,000 queries when never renewed);
    renewed, the peak grows by well under half of that."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", Z3_RUNNER], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    before, after = map(int, done.stdout.split())
    assert after - before < 2_500, (before, after)  # KiB
