"""``export_rows(without=...)``: a reader that does not need a column does not read it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.evaluate.test_evaluate import make_items
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.run import run_eval
from twosat_formal.evaluate.store import RunStore


def test_rows_without_the_response_match_the_full_rows_but_for_it(tmp_path: Path) -> None:
    items = make_items(6, seed=1)
    with RunStore(tmp_path / "runs.sqlite") as store:
        asyncio.run(run_eval([load_model("ref/oracle")], items, store))
        full = list(store.export_rows())
        lean = list(store.export_rows(without={"response"}))
    assert len(full) == len(lean) == 6
    assert all(row["response"] for row in full)
    assert all(row["response"] is None for row in lean)
    for a, b in zip(full, lean, strict=True):
        assert {k: v for k, v in a.items() if k != "response"} == {
            k: v for k, v in b.items() if k != "response"
        }
