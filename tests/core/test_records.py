"""Typed records and their published JSON Schemas: current, and what the pipeline writes fits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from twosat_formal.core.formula import Formula
from twosat_formal.core.model import Response
from twosat_formal.core.records import InstanceRecord, PromptRecordModel, StoryRecordModel
from twosat_formal.evaluate.schemas import SCHEMA_DIR, result_row_model, schemas, stale_schemas
from twosat_formal.verbalize.story.generator import write_story

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _unmask(value: Any) -> Any:
    """Golden files hold ``"<measured>"`` where a duration was: give it a number back."""
    if value == "<measured>":
        return 0.5
    if isinstance(value, dict):
        return {k: _unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    return value


def test_the_published_schemas_are_current() -> None:
    assert stale_schemas(ROOT / SCHEMA_DIR) == [], (
        "docs/schema is stale: run `python -m twosat_formal.evaluate.schemas` and commit it"
    )
    published = sorted(p.stem for p in (ROOT / SCHEMA_DIR).glob("*.json"))
    assert published == sorted(schemas())


@pytest.mark.parametrize("experiment", ["table1", "order", "edits"])
def test_what_the_pipeline_writes_fits_the_records(experiment: str) -> None:
    folder = GOLDEN / experiment
    instances = [
        InstanceRecord.model_validate(_unmask(r)) for r in _lines(folder / "dataset.jsonl")
    ]
    prompts = [
        PromptRecordModel.model_validate(_unmask(r)) for r in _lines(folder / "prompts.jsonl")
    ]
    row = result_row_model()
    rows = [row.model_validate(_unmask(r)) for r in _lines(folder / "results.jsonl")]
    assert instances and prompts and rows
    kinds = {type(t).__name__ for i in instances for t in i.transforms}
    if experiment == "order":
        assert kinds == {"PerturbationRecord"}
    if experiment == "edits":
        assert "EditRecord" in kinds


def test_a_story_record_fits_its_model() -> None:
    class Silent:  # every clue falls back: the record still has every field
        spec, endpoint = "test/silent", "local"

        async def generate(self, prompt: str, params: Any, sample: int = 0) -> Response:
            return Response("Once upon a time." if "introduction" in prompt else "...", "stop")

        async def aclose(self) -> None:
            pass

    formula = Formula.from_named([["a", "~b"], ["b"]])
    record = asyncio.run(write_story(formula, "heist", Silent(), seed=2)).to_record()
    model = StoryRecordModel.model_validate(record)
    assert model.clues[0].attempts and model.kind == "story"


def test_a_story_record_with_validated_clues_fits_its_model() -> None:
    from tests.support.story import tell

    run, _, _ = tell(Formula.from_named([["a", "~b"], ["b", "c"]]), {(1, 0): "wrong-polarity"})
    record = run.records[0].to_record()
    states = [a["states"] for c in record["clues"] for a in c["attempts"]]
    assert states and all(s is not None and set(s) <= {"A", "B"} for s in states)
    model = StoryRecordModel.model_validate(record, strict=True)
    assert model.clues[0].attempts[0].states == tuple(states[0])
    # the story record is its model: the fields are declared once
    assert isinstance(run.records[0], StoryRecordModel)
    assert model.model_dump(mode="json") == record


def test_records_that_break_their_schema_are_refused() -> None:
    instance = _lines(GOLDEN / "table1" / "dataset.jsonl")[0]
    with pytest.raises(ValidationError, match="label"):
        InstanceRecord.model_validate(_unmask({**instance, "label": "MAYBE"}))
    with pytest.raises(ValidationError, match="num_vars"):
        InstanceRecord.model_validate(_unmask({**instance, "num_vars": -1}))
    broken = {k: v for k, v in instance.items() if k != "certificate"}
    with pytest.raises(ValidationError, match="certificate"):
        InstanceRecord.model_validate(_unmask(broken))
    row = _unmask(_lines(GOLDEN / "table1" / "results.jsonl")[0])
    with pytest.raises(ValidationError, match="not_a_column"):
        result_row_model().model_validate({**row, "not_a_column": 1})
    with pytest.raises(ValidationError, match="sample"):
        result_row_model().model_validate({**row, "sample": "first"})
