"""A run keeps the objects alive before it out of the collector's passes, and only then."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from twosat_formal.certify import certify_files
from twosat_formal.certify import dataset as dataset_module
from twosat_formal.make.generators import generate


@pytest.fixture
def thawed() -> Iterator[None]:
    """Nothing frozen when the test starts (the test session freezes its set-up: that is
    frozen again after)."""
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    yield
    gc.unfreeze()
    if frozen:
        gc.freeze()


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The freeze count while the records are checked, once per run."""
    seen: list[int] = []
    real = dataset_module._tally

    def tally(*args: Any) -> Any:
        seen.append(gc.get_freeze_count())
        return real(*args)

    monkeypatch.setattr(dataset_module, "_tally", tally)
    return seen


def _dataset(tmp_path: Path) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text(generate("backbone", clauses=8, seed=2).to_json() + "\n")
    return path


@pytest.mark.usefixtures("thawed")
def test_a_run_freezes_the_heap_it_found_and_gives_it_back(
    tmp_path: Path, counts: list[int]
) -> None:
    assert certify_files([_dataset(tmp_path)]).ok
    assert counts[0] > 0 and gc.get_freeze_count() == 0


@pytest.mark.usefixtures("thawed")
def test_a_heap_frozen_by_another_stays_as_it_was(tmp_path: Path, counts: list[int]) -> None:
    path = _dataset(tmp_path)
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert certify_files([path]).ok
    # nothing more frozen during the run, nothing given back after it
    assert 0 < counts[0] <= frozen and gc.get_freeze_count() > 0


@pytest.mark.usefixtures("thawed")
def test_a_failing_run_gives_the_heap_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(dataset_module, "_tally", broken)
    with pytest.raises(RuntimeError, match="boom"):
        certify_files([_dataset(tmp_path)])
    assert gc.get_freeze_count() == 0
