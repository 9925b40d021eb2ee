"""``certify --cache DIR``: a record is skipped only when it passed before exactly as it is.

Each test certifies the mixed dataset of ``test_certify_tamper`` (roots, perturbed,
edited, prompts, stories, a document) with a cache, changes something (a record, a
record another refers to, the cache file, the tool's fingerprint), and compares the
cached run with a run without a cache: the same failures, always, and a record is
reported as passed from the cache only when neither it nor any record it refers to
changed. A cache that was changed by hand, damaged, sealed with another key or written
by another tool is ignored whole: every record is checked.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.certify.test_certify_tamper import DATASET
from tests.support.cli import run
from tests.support.jsonl import write_jsonl
from twosat_formal._util.executors import ProcessExecutor
from twosat_formal.certify import CertifyReport, RecordResult, certify_files
from twosat_formal.certify import cache as certify_cache
from twosat_formal.certify.cache import CACHE_KEY_ENV, CertifyCache
from twosat_formal.errors import ConfigError
from twosat_formal.make.generators import generate

REFERENCES = ("base_id", "instance_id", "twin_of")


class Log:
    """The results of a run, as certify hands them over."""

    def __init__(self) -> None:
        self.results: list[RecordResult] = []

    def add(self, result: RecordResult) -> None:
        self.results.append(result)

    def checked(self) -> set[int | None]:
        """The lines whose checks ran (not passed from the cache)."""
        return {r.line for r in self.results if not r.cached}


def certify(path: Path, folder: Path | None) -> tuple[CertifyReport, Log]:
    log = Log()
    cache = None if folder is None else CertifyCache(folder)
    return certify_files([path], cache=cache, records=log), log


def verdict(report: CertifyReport) -> list[tuple[Any, ...]]:
    return [(f.line, f.id, f.check, f.message) for f in report.failures]


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def warm(tmp_path: Path) -> tuple[Path, Path]:
    """The dataset and a cache that holds every record of it (one run done)."""
    path = write_jsonl(tmp_path / "data.jsonl", DATASET)
    report, _ = certify(path, tmp_path / "cache")
    assert report.ok and report.cached == 0
    return path, tmp_path / "cache"


def dependents(records: list[Any], key: str) -> set[int]:
    """The lines (from 1) of the records that refer to the record with id ``key``."""
    return {
        n
        for n, r in enumerate(records, 1)
        if isinstance(r, dict) and any(r.get(field) == key for field in REFERENCES)
    }


# -- what is skipped ------------------------------------------------------------------------


def test_a_second_run_checks_nothing_and_reports_the_same(warm: tuple[Path, Path]) -> None:
    path, folder = warm
    full, _ = certify(path, None)
    again, log = certify(path, folder)
    assert again.ok and again.cached == again.records == full.records
    assert again.checks == 0 and log.checked() == set()
    assert again.kinds == full.kinds
    assert [r.id for r in log.results] == [r.get("id") for r in DATASET]


def test_a_grown_dataset_checks_only_the_new_records(warm: tuple[Path, Path]) -> None:
    path, folder = warm
    added = generate("implication-cycle", clauses=9, seed=11).to_json()
    write_lines(path, [*lines_of(path), added])
    report, log = certify(path, folder)
    assert report.ok and report.cached == len(DATASET)
    assert log.checked() == {len(DATASET) + 1}
    again, log = certify(path, folder)  # the new record is kept as well
    assert again.cached == len(DATASET) + 1 and log.checked() == set()


def test_a_changed_record_is_checked_again_and_fails(warm: tuple[Path, Path]) -> None:
    path, folder = warm
    records = copy.deepcopy(DATASET)
    line = next(n for n, r in enumerate(records, 1) if r.get("label") == "UNSAT")
    records[line - 1]["label"] = "SAT"
    write_jsonl(path, records)
    report, log = certify(path, folder)
    assert log.checked() == {line}
    assert not report.ok and {f.line for f in report.failures} == {line}
    assert verdict(report) == verdict(certify(path, None)[0])


@pytest.mark.parametrize("field", REFERENCES[:2])
def test_a_record_whose_dependency_changed_is_checked_again(
    field: str, warm: tuple[Path, Path]
) -> None:
    """The same record with other bytes (a space after it) is another dependency: the
    records that refer to it are checked again, the others are not."""
    path, folder = warm
    records = copy.deepcopy(DATASET)
    key = next(r[field] for r in records if isinstance(r.get(field), str))
    line = next(n for n, r in enumerate(records, 1) if r.get("id") == key)
    texts = lines_of(path)
    texts[line - 1] += " "
    write_lines(path, texts)
    report, log = certify(path, folder)
    assert report.ok
    assert log.checked() == {line} | dependents(records, key)
    assert dependents(records, key)


def test_a_tampered_dependency_fails_as_without_a_cache(warm: tuple[Path, Path]) -> None:
    path, folder = warm
    records = copy.deepcopy(DATASET)
    key = next(r["base_id"] for r in records if isinstance(r.get("base_id"), str))
    line = next(n for n, r in enumerate(records, 1) if r.get("id") == key)
    records[line - 1]["seed"] = records[line - 1]["seed"] + 1
    write_jsonl(path, records)
    report, log = certify(path, folder)
    assert log.checked() >= {line} | dependents(records, key)
    assert not report.ok
    assert verdict(report) == verdict(certify(path, None)[0])


def test_workers_answer_for_the_cached_records(warm: tuple[Path, Path]) -> None:
    path, folder = warm
    with ProcessExecutor(2) as runner:
        report = certify_files([path], executor=runner, cache=CertifyCache(folder))
    assert report.ok and report.cached == report.records == len(DATASET)


def test_the_cache_keeps_the_entries_of_other_files(tmp_path: Path) -> None:
    one = write_jsonl(tmp_path / "one.jsonl", DATASET[:2])
    two = write_jsonl(tmp_path / "two.jsonl", DATASET[:1])
    folder = tmp_path / "cache"
    certify(one, folder)
    certify(two, folder)
    assert certify(one, folder)[0].cached == 2
    write_lines(one, lines_of(one)[:1])  # a record leaves: its entry goes
    certify(one, folder)
    assert len(CertifyCache(folder).files) == 2
    assert sum(len(keys) for keys in CertifyCache(folder).files.values()) == 2


@pytest.mark.slow
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_cached_run_gives_the_verdict_of_a_full_run(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever byte of whatever line changes, the cache changes no failure."""
    folder = tmp_path_factory.mktemp("drawn")
    path = write_jsonl(folder / "data.jsonl", DATASET)
    assert certify(path, folder / "cache")[0].ok
    texts = lines_of(path)
    original = list(texts)
    line = data.draw(st.integers(0, len(texts) - 1), label="line")
    at = data.draw(st.integers(0, len(texts[line]) - 1), label="at")
    char = data.draw(st.sampled_from('0123456789abcdefSAT,:{}" '), label="char")
    texts[line] = texts[line][:at] + char + texts[line][at + 1 :]
    write_lines(path, texts)
    cached, log = certify(path, folder / "cache")
    full, _ = certify(path, None)
    assert verdict(cached) == verdict(full)
    assert cached.records == full.records
    if texts[line] != original[line]:
        assert line + 1 in log.checked()


# -- what the cache holds, and poisoning -----------------------------------------------------


def test_the_cache_holds_digests_only(warm: tuple[Path, Path]) -> None:
    _, folder = warm
    text = (folder / "certify.cache").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == certify_cache.FORMAT and lines[1].startswith("tool twosat-formal ")
    assert re.fullmatch(r"seal [0-9a-f]{64}", lines[-1])
    for line in lines[2:-1]:
        assert re.fullmatch(r"file [0-9a-f]{64}|[0-9a-f]{64} [a-z]+", line), line
    for record in DATASET:
        for value in record.values():
            if isinstance(value, str) and len(value) > 6:
                assert value not in text


def _reseal(body: bytes, key: bytes = b"twosat-formal certify cache") -> bytes:
    return body + b"seal " + hmac.new(key, body, hashlib.sha256).hexdigest().encode() + b"\n"


def _poisoned_run(path: Path, folder: Path) -> tuple[CertifyReport, Log, str | None]:
    cache = CertifyCache(folder)
    log = Log()
    report = certify_files([path], cache=cache, records=log)
    return report, log, cache.note


def _tamper_and_forge(path: Path, folder: Path) -> tuple[int, bytes]:
    """Break one root record (it refers to no record) and compute the key its broken
    line has: the entry a forger would add."""
    records = copy.deepcopy(DATASET)
    line = next(
        n
        for n, r in enumerate(records, 1)
        if r.get("label") == "SAT" and not any(r.get(field) for field in REFERENCES)
    )
    records[line - 1]["label"] = "UNSAT"
    write_jsonl(path, records)
    raw = path.read_bytes().splitlines(keepends=True)[line - 1]
    return line, CertifyCache(folder).key(hashlib.sha256(raw).digest(), (None, None, None))


def _flip(text: bytes) -> bytes:
    """``text`` with its last hex digit changed."""
    return text[:-1] + (b"0" if text[-1:] != b"0" else b"1")


def _forged(body: bytes, forged: bytes) -> bytes:
    """``body`` with the key ``forged`` added to the entries of its first file."""
    at = body.index(b"\n", body.index(b"\nfile ") + 1) + 1
    return body[:at] + forged.hex().encode() + b" instance\n" + body[at:]


Poison = Callable[[bytes, bytes, bytes], bytes]

#: Each way of changing a cache file: why it is ignored, and the change (of its body,
#: its seal line, and the forged key of a tampered record).
POISONS: dict[str, tuple[str, Poison]] = {
    "an entry added by hand": (
        "seal does not match",
        lambda body, seal, forged: _forged(body, forged) + seal,
    ),
    "an entry changed by one digit": (
        "seal does not match",
        lambda body, seal, forged: _flip(body[:-1]) + b"\n" + seal,
    ),
    "the seal cut off": ("no seal", lambda body, seal, forged: _forged(body, forged)),
    "the seal changed": (
        "seal does not match",
        lambda body, seal, forged: body + _flip(seal[:-1]) + b"\n",
    ),
    "another tool's fingerprint": (
        "another version",
        lambda body, seal, forged: _reseal(
            _forged(body, forged).replace(b"tool twosat-formal", b"tool twosat-formal 9", 1)
        ),
    ),
    "a line that is no digest": (
        "not a digest",
        lambda body, seal, forged: _reseal(_forged(body, forged) + b"not a digest\n"),
    ),
    "another format": (
        "not in the format",
        lambda body, seal, forged: _reseal(
            _forged(body, forged).replace(certify_cache.FORMAT.encode(), b"cache 0", 1)
        ),
    ),
    "bytes that are not text": ("no seal", lambda body, seal, forged: b"\xff\xfe\x00" * 40),
    "an empty file": ("no seal", lambda body, seal, forged: b""),
    "a line after the seal": (
        "no seal",
        lambda body, seal, forged: body + seal + forged.hex().encode() + b" instance\n",
    ),
    "an empty body, sealed": ("not in the format", lambda body, seal, forged: _reseal(b"")),
    "the forged entry sealed without the secret": (
        "seal does not match",
        lambda body, seal, forged: _reseal(_forged(body, forged)),
    ),
}


@pytest.mark.parametrize("poison", sorted(POISONS))
def test_a_changed_cache_leads_to_a_full_check_never_to_a_pass(
    poison: str, warm: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, folder = warm
    store = folder / "certify.cache"
    if "secret" in poison:  # a cache written with a secret, a forger without it
        monkeypatch.setenv(CACHE_KEY_ENV, "the CI secret")
        certify(path, folder)
    line, forged = _tamper_and_forge(path, folder)
    body, _, seal = store.read_bytes().rpartition(b"seal ")
    why, change = POISONS[poison]
    store.write_bytes(change(body, b"seal " + seal, forged))
    report, log, note = _poisoned_run(path, folder)
    full, _ = certify(path, None)
    assert note is not None and "every record is checked" in note and why in note
    assert report.cached == 0 and log.checked() == set(range(1, len(DATASET) + 1))
    assert not report.ok and verdict(report) == verdict(full)
    assert line in {f.line for f in report.failures}
    # the run wrote a sound cache again: the passing records are skipped next time
    again, log, note = _poisoned_run(path, folder)
    assert note is None and again.cached == len(DATASET) - 1 and log.checked() == {line}


def test_the_forged_entry_is_stopped_by_the_seal_alone(
    warm: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control of the poisoning tests: the forged key is the tampered line's true
    key, so sealed with the cache's own key it would pass that line. Without a secret
    anyone who runs the tool's code can seal (the docs say so); with
    ``$TWOSAT_FORMAL_CACHE_KEY`` only who holds the secret can."""
    monkeypatch.setenv(CACHE_KEY_ENV, "the CI secret")
    path, folder = warm
    certify(path, folder)
    line, forged = _tamper_and_forge(path, folder)
    store = folder / "certify.cache"
    body = store.read_bytes().rpartition(b"seal ")[0]
    store.write_bytes(_reseal(_forged(body, forged), b"the CI secret"))
    report, log, note = _poisoned_run(path, folder)
    assert note is None and line not in log.checked() and report.ok


def test_another_solver_version_checks_everything(
    warm: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, folder = warm
    real = certify_cache._version
    monkeypatch.setattr(
        certify_cache, "_version", lambda name: "0.0" if name == "z3-solver" else real(name)
    )
    certify_cache.fingerprint.cache_clear()
    try:
        report, log, note = _poisoned_run(path, folder)
    finally:
        certify_cache.fingerprint.cache_clear()
    assert note is not None and "another version" in note
    assert report.ok and report.cached == 0 and len(log.checked()) == len(DATASET)


def test_a_changed_package_file_changes_the_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = list(certify_cache._package_files())
    extra = tmp_path / "module.py"
    extra.write_text("x = 1\n")
    certify_cache.fingerprint.cache_clear()
    try:
        before = certify_cache.fingerprint()
        monkeypatch.setattr(
            certify_cache, "_package_files", lambda: iter([*real, ("x/module.py", extra)])
        )
        certify_cache.fingerprint.cache_clear()
        with_file = certify_cache.fingerprint()
        extra.write_text("x = 2\n")
        certify_cache.fingerprint.cache_clear()
        changed = certify_cache.fingerprint()
    finally:
        certify_cache.fingerprint.cache_clear()
    assert len({before, with_file, changed}) == 3


# -- the command line ------------------------------------------------------------------------


def test_cli_cache_skips_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "data.jsonl", DATASET)
    argv = ["certify", str(path), "--cache", str(tmp_path / "c"), "--no-progress", "--json"]
    code, out, _ = run(argv, capsys)
    assert code == 0 and json.loads(out)["cached"] == 0
    code, out, _ = run(argv, capsys)
    assert code == 0 and json.loads(out)["cached"] == len(DATASET)
    assert json.loads(out)["checks"] == 0


def test_cli_no_cache_reads_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "data.jsonl", DATASET[:3])
    folder = tmp_path / "c"
    argv = ["certify", str(path), "--cache", str(folder), "--no-cache", "--no-progress", "--json"]
    code, out, _ = run(argv, capsys)
    assert code == 0 and json.loads(out)["cached"] == 0 and not folder.exists()


def test_cli_a_cache_that_is_a_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_jsonl(tmp_path / "data.jsonl", DATASET[:1])
    (tmp_path / "c").write_text("x")
    code, _, err = run(["certify", str(path), "--cache", str(tmp_path / "c")], capsys)
    assert code == 2 and "not a folder" in err and "Traceback" not in err


def test_cli_an_ignored_cache_is_reported_on_stderr(
    warm: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, folder = warm
    store = folder / "certify.cache"
    store.write_bytes(store.read_bytes().replace(b"\nfile ", b"\nfile 0", 1))
    code, _, err = run(["certify", str(path), "--cache", str(folder), "--no-progress"], capsys)
    assert code == 0 and "is ignored" in err and "seal" in err


def test_a_malformed_line_is_checked_every_time_and_the_others_come_from_the_cache(
    warm: tuple[Path, Path],
) -> None:
    """A line that is no record fails, so its key is never kept; the records around it
    passed before and come from the cache, each with its own line."""
    path, folder = warm
    write_lines(path, [*lines_of(path), '{"id": "q" oops}'])
    for _ in range(2):
        report, log = certify(path, folder)
        assert report.cached == len(DATASET) and log.checked() == {len(DATASET) + 1}
        assert [r.line for r in log.results] == list(range(1, len(DATASET) + 2))
        assert verdict(report) == verdict(certify(path, None)[0])


def test_any_layout_of_the_json_is_skipped_with_its_id_and_kind(tmp_path: Path) -> None:
    """Every line is parsed by the index, whatever its layout (compact JSON here): a
    record that passed, references included, is skipped the next time, with the id
    and kind of its first run."""
    compact = [json.dumps(r, separators=(",", ":")) for r in DATASET]
    path = write_jsonl(tmp_path / "data.jsonl", compact)
    first, checked = certify(path, tmp_path / "cache")
    assert first.ok and first.cached == 0
    assert any(any(r.get(f) for f in REFERENCES) for r in DATASET)
    again, log = certify(path, tmp_path / "cache")
    assert again.ok and log.checked() == set() and again.cached == len(DATASET)
    assert [r.id for r in log.results] == [r.get("id") for r in DATASET]
    assert [r.kind for r in log.results] == [r.kind for r in checked.results]


# -- the cache's file is an output -----------------------------------------------------------


def cached_folder(tmp_path: Path) -> tuple[Path, Path, bytes]:
    """A dataset certified into a cache folder: the dataset, the cache file, its bytes."""
    data = write_jsonl(tmp_path / "data.jsonl", DATASET[:3])
    folder = tmp_path / "cache"
    certify_files([data], cache=CertifyCache(folder))
    path = folder / certify_cache.CACHE_FILE
    return data, path, path.read_bytes()


@pytest.mark.parametrize("how", ["same", "dot", "symlink", "hardlink"])
def test_a_dataset_that_is_the_cache_file_is_refused_and_kept(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``certify DIR/certify.cache --cache DIR`` replaced the dataset with the cache."""
    data, path, before = cached_folder(tmp_path)
    given = {"same": path, "dot": path.parent / "." / path.name}.get(how, tmp_path / "alias")
    if how == "symlink":
        given.symlink_to(path)
    elif how == "hardlink":
        given.hardlink_to(path)
    code, _, err = run(["certify", str(data), str(given), "--cache", str(path.parent)], capsys)
    assert code == 2 and err.startswith("error: --cache ") and "Traceback" not in err
    assert f"is the input {given}" in err and len(err.strip().splitlines()) == 1
    assert path.read_bytes() == before
    with pytest.raises(ConfigError, match=r"--cache .* is the input"):  # the library too
        certify_files([data, given], cache=CertifyCache(path.parent))
    assert path.read_bytes() == before


def test_a_report_written_to_the_cache_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, path, before = cached_folder(tmp_path)
    argv = ["certify", str(data), "--cache", str(path.parent), "--output", str(path)]
    code, _, err = run([*argv, "--format", "json"], capsys)
    assert code == 2 and "is the output" in err and "(--cache)" in err
    assert path.read_bytes() == before
