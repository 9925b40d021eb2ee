"""The story verbalizer end to end with the real local model (llama.cpp, gemma3-270m).

gemma3-270m is a very small model: its clues rarely survive its own validation, so most
clauses are expected to fall back to the programmatic sentence. The test checks the
pipeline, not the prose: every call goes through the run store, every clause is either
validated or replaced after exactly three attempts, the recovered formula equals the
source, and a second run is answered from the store without a model call. It needs the
``[local]`` extra and is skipped only when ``llama_cpp`` cannot be imported.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.support.llama import NEEDS_LLAMA
from twosat_formal.core.formula import Formula
from twosat_formal.evaluate.models.base import SamplingParams
from twosat_formal.evaluate.models.cache import ResponseCache
from twosat_formal.evaluate.run.stories import generate_stories
from twosat_formal.verbalize.story import MAX_ATTEMPTS, check_story_record
from twosat_formal.verbalize.story.generator import StoryItem, StorySettings

pytestmark = NEEDS_LLAMA

SPEC = "llamacpp/gemma3-270m?n_ctx=2048"
# Short answers keep the run short on a CPU: a clue of 48 tokens, a validation of 16.
SETTINGS = StorySettings(
    generation=SamplingParams(max_tokens=48, temperature=0.8),
    validation=SamplingParams(max_tokens=16, temperature=0.0),
)


@pytest.mark.slow
def test_two_clauses_with_gemma3_270m(tmp_path: Path) -> None:
    formula = Formula.from_named([["a", "~b"], ["b", "c"]])
    item = StoryItem("two-clauses", formula, "SAT")
    store = tmp_path / "calls.sqlite"
    run = generate_stories([item], "detective", SPEC, store, seed=1, settings=SETTINGS)
    record = run.records[0]
    assert record.roundtrip is not None and record.roundtrip["result"] == "validated"
    assert check_story_record(record.to_record(), formula)["result"] == "validated"
    index = {name: v for v, name in enumerate(formula.names, 1)}
    recovered = [
        [-index[lit[1:]] if lit.startswith("~") else index[lit] for lit in clause]
        for clause in record.recovered
    ]
    assert recovered == [list(c) for c in formula.clauses]
    for bits in itertools.product([False, True], repeat=formula.num_vars):
        assert formula.evaluate(list(bits)) == all(
            any(bits[abs(x) - 1] == (x > 0) for x in clause) for clause in recovered
        )
    for clue in record.clues:
        assert clue.mode == "llm" and 1 <= len(clue.attempts) <= MAX_ATTEMPTS
        assert clue.fallback == (clue.accepted is None)
        if clue.fallback:
            assert len(clue.attempts) == MAX_ATTEMPTS and clue.text.startswith("Either ")
    with ResponseCache(store) as opened:
        assert opened.count() == run.calls_made > 0
    stats = run.statistics()
    print(  # the honest numbers, shown with -s
        f"\ngemma3-270m, 2 clauses: first-attempt validation {stats.first_attempt}/"
        f"{stats.llm_clauses}, fallbacks {stats.fallbacks}/{stats.llm_clauses}, "
        f"attempt outcomes {stats.outcomes}"
    )
    again = generate_stories([item], "detective", SPEC, store, seed=1, settings=SETTINGS)
    assert again.calls_made == 0 and again.calls_reused == run.calls_made
    assert again.records == run.records  # answered by the store: no server was started
