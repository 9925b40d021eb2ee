""":func:`build_report` refuses its arguments of the wrong type before reading the
store: a path that is no str or path (or is empty), an output folder that is a file
(a FileExistsError once the store was read), a title that is no str (a TypeError
while rendering), a seed that is no int (any value was taken)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.errors import ArgumentTypeError, ConfigError
from twosat_formal.evaluate.store import RunStore
from twosat_formal.report import build_report

# mypy: disable-error-code="arg-type"

NOT_PATHS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.binary(max_size=2), st.lists(st.text())
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "runs.sqlite"
    RunStore(path).close()
    return path


@given(NOT_PATHS)
def test_a_path_that_is_no_str_or_path_is_refused(bad: object) -> None:
    for call, parameter in (
        (lambda: build_report(bad, "out"), "store_or_dir"),
        (lambda: build_report("runs.sqlite", bad), "out_dir"),
        (lambda: build_report("runs.sqlite", "out", diagnostics=bad or 1), "diagnostics"),
    ):
        with pytest.raises(ArgumentTypeError) as caught:
            call()
        assert caught.value.parameter == parameter


def test_an_empty_path_is_refused(store: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        build_report(store, "")
    assert caught.value.parameter == "out_dir"


def test_an_output_folder_that_is_a_file_is_refused(store: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        build_report(store, store)
    assert caught.value.parameter == "out_dir"
    assert build_report(store, store.parent / "report").name == "report.md"


@pytest.mark.parametrize("title", [3, b"t", ["t"], math.nan])
def test_a_title_that_is_no_str_is_refused(store: Path, title: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        build_report(store, store.parent / "out", title=title)
    assert caught.value.parameter == "title"
    assert not (store.parent / "out").exists()


@pytest.mark.parametrize("seed", [True, 1.5, "1", None, math.inf])
def test_a_seed_that_is_no_int_is_refused(store: Path, seed: object) -> None:
    with pytest.raises(ConfigError) as caught:
        build_report(store, store.parent / "out", seed=seed)
    assert caught.value.parameter == "seed"
