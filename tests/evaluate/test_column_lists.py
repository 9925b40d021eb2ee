"""``results --columns``: every list that names no column, or names one badly, has its
own message (exit 2, no traceback); a good list is its columns, in export order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.cli import cli
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.columns import column_list, export_columns, pick_columns
from twosat_formal.evaluate.store import RunStore


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "runs.sqlite"
    with RunStore(path):
        pass
    return path


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ("", "--columns names no column: give one or more export column names"),
        (" , ,", "--columns names no column"),
        ("model,,decision", "--columns 'model,,decision' has an empty column name (name 2 of 3)"),
        ("model,", "has an empty column name (name 2 of 2)"),
        ("model, model", "--columns 'model, model' names column 'model' twice"),
        ("model,answer", "no export column 'answer'"),
    ],
)
def test_a_bad_column_list_has_its_own_message(
    capsys: pytest.CaptureFixture[str], store: Path, columns: str, message: str
) -> None:
    code, _, err = cli(capsys, "results", str(store), "--columns", columns)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert "no export column named\n" not in err


@given(st.lists(st.sampled_from(export_columns()), min_size=1, unique=True), st.data())
def test_a_list_of_columns_reads_as_its_names(names: list[str], data: st.DataObject) -> None:
    spaced = [data.draw(st.sampled_from(["", " ", "  "])) + name for name in names]
    assert column_list(",".join(spaced)) == names
    assert pick_columns(column_list(",".join(names))) == tuple(
        name for name in export_columns() if name in names
    )


def test_pick_columns_refuses_an_empty_name() -> None:
    with pytest.raises(ConfigError, match="an export column name is empty"):
        pick_columns(["model", " "])
