"""The story verbalizer against a scripted OpenAI-compatible server on 127.0.0.1.

The server (tests/support/story.py) writes faithful clues, unfaithful ones (wrong
entity, wrong polarity), empty ones and malformed replies (validator answers that do not
parse, HTTP bodies that are not JSON) exactly where a script says. What each attempt
must be judged, how many requests it costs, when the fallback sentence must appear, and
whether the recovered formula equals the source are all computed here from the script
and the formula, independently of the code under test (brute force for equivalence).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.story import (
    FAST,
    FAST_RETRY,
    INTRO,
    KINDS,
    SPEC,
    StoryScript,
    StoryServer,
    brute_label,
    equivalent,
    recovered_ints,
    tell,
)
from tests.support.story import expected_outcome as outcome_of
from tests.support.story import expected_requests as cost_of
from twosat_formal.core.formula import Formula
from twosat_formal.errors import EvaluationError, NotTwoCNFError
from twosat_formal.evaluate.models.cache import ResponseCache
from twosat_formal.evaluate.run.stories import generate_stories
from twosat_formal.evaluate.store import prompt_hash
from twosat_formal.verbalize.story import (
    MAX_ATTEMPTS,
    THEMES,
    StoryRecord,
    check_story_record,
)
from twosat_formal.verbalize.story.generator import StoryItem, StorySettings, intro_prompt


def is_llm(clause: tuple[int, ...]) -> bool:
    return len(clause) == 2 and abs(clause[0]) != abs(clause[1])


def check_against_script(
    record: StoryRecord, formula: Formula, script: StoryScript, requests: int
) -> None:
    """Every clause behaves exactly as the script dictates; the request count matches."""
    expected_requests = 1  # the introduction
    for index, (clue, clause) in enumerate(zip(record.clues, formula.clauses, strict=True), 1):
        assert clue.index == index
        if not is_llm(clause):
            assert clue.mode == "direct" and clue.attempts == () and not clue.fallback
            continue
        kinds = [script.kind(index, a) for a in range(MAX_ATTEMPTS)]
        first_faithful = kinds.index("faithful") if "faithful" in kinds else None
        made = MAX_ATTEMPTS if first_faithful is None else first_faithful + 1
        assert [a.outcome for a in clue.attempts] == [outcome_of(k) for k in kinds[:made]]
        assert [a.attempt for a in clue.attempts] == list(range(1, made + 1))
        expected_requests += sum(cost_of(k) for k in kinds[:made])
        if first_faithful is None:
            assert clue.fallback and clue.accepted is None and clue.outcome == "fallback"
            assert clue.text.startswith("Either ") and clue.text.endswith(" (or both).")
        else:
            assert not clue.fallback and clue.accepted == made
            assert clue.text == clue.attempts[-1].text
            assert clue.text.startswith(f"Clue {index}, attempt {made}:")
        for attempt in clue.attempts:
            if attempt.outcome == "error":
                assert attempt.error and attempt.text is None
    assert requests == expected_requests


def check_recovery(record: StoryRecord, formula: Formula) -> None:
    got = recovered_ints(record, formula)
    want = [list(c) for c in formula.clauses]
    assert got == want
    assert equivalent(got, want, formula.num_vars)
    assert record.roundtrip is not None and record.roundtrip["result"] == "validated"
    again = StoryRecord.from_record(record.to_record())
    assert again == record
    assert check_story_record(again.to_record(), formula)["result"] == "validated"


FORMULA = Formula.from_named([["a", "~b"], ["b", "c"], ["~c", "d"], ["~a", "~d"]])


# -- acceptance, rejection, retries, fallback -----------------------------------------------


def test_faithful_clues_validate_on_the_first_attempt() -> None:
    run, server, script = tell(FORMULA)
    record = run.records[0]
    check_against_script(record, FORMULA, script, len(server.log))
    assert [c.outcome for c in record.clues] == ["validated"] * 4
    assert all(a.states is not None for c in record.clues for a in c.attempts)
    stats = run.statistics()
    assert (stats.first_attempt_rate, stats.fallback_rate) == (1.0, 0.0)
    assert record.intro == INTRO
    check_recovery(record, FORMULA)


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "faithful"])
def test_one_bad_attempt_is_rejected_and_regenerated(kind: str) -> None:
    run, server, script = tell(FORMULA, {(2, 0): kind})
    record = run.records[0]
    check_against_script(record, FORMULA, script, len(server.log))
    clue = record.clues[1]
    assert [a.outcome for a in clue.attempts] == [outcome_of(kind), "valid"]
    assert clue.accepted == 2 and not clue.fallback
    stats = run.statistics()
    assert stats.first_attempt == 3 and stats.fallbacks == 0
    check_recovery(record, FORMULA)


def test_three_failures_use_the_fallback_sentence() -> None:
    kinds = {(1, 0): "wrong-entity", (1, 1): "wrong-polarity", (1, 2): "garble-state"}
    run, server, script = tell(FORMULA, kinds)
    record = run.records[0]
    check_against_script(record, FORMULA, script, len(server.log))
    clue = record.clues[0]
    a, b = record.entities, THEMES.get("detective")
    ent = {v: e for e, v in a.items()}
    expected = (
        f"Either {ent['a']} {b.describe(ent['a'])[0]}, or {ent['b']} {b.describe(ent['b'])[1]}"
        " (or both)."
    )
    assert clue.text == expected and clue.fallback and len(clue.attempts) == 3
    assert expected in record.story and expected in record.text
    stats = run.statistics()
    assert stats.fallbacks == 1 and stats.fallback_rate == 0.25
    check_recovery(record, FORMULA)


def test_wrong_polarity_is_read_from_the_state_extraction() -> None:
    run, _, _ = tell(FORMULA, {(3, 0): "wrong-polarity"})
    attempt = run.records[0].clues[2].attempts[0]
    source = {(e, v) for e, v in _source_pairs(run.records[0], 2)}
    assert attempt.entities is not None and set(attempt.entities) == {e for e, _ in source}
    assert attempt.recovered is not None and set(attempt.recovered) != source
    assert attempt.states is not None and len(attempt.state_replies) == 2


def test_wrong_entity_skips_the_state_extraction() -> None:
    run, _, _ = tell(FORMULA, {(1, 0): "wrong-entity"})
    attempt = run.records[0].clues[0].attempts[0]
    assert attempt.outcome == "wrong-entities" and attempt.state_replies == ()
    assert attempt.entities is not None and attempt.recovered is None


def test_malformed_validator_http_reply_fails_the_attempt() -> None:
    def plan(prompt: str, attempt: int, index: int) -> str | None:
        if prompt.startswith("From this clue") and "Clue 4, attempt 1" in prompt:
            return "malformed"
        return None

    run, server, _ = tell(FORMULA, extra_plan=plan)
    clue = run.records[0].clues[3]
    assert [a.outcome for a in clue.attempts] == ["error", "valid"]
    assert clue.attempts[0].entities_reply is None and "malformed" in str(clue.attempts[0].error)
    assert len(server.log) == 1 + 4 * 4 + 2
    check_recovery(run.records[0], FORMULA)


def test_transient_errors_are_retried_and_do_not_count_as_attempts() -> None:
    failed: list[int] = []

    def plan(prompt: str, attempt: int, index: int) -> str | None:
        current = prompt[prompt.rfind("Write clue") :]
        if current.startswith("Write clue 2/") and len(failed) < 2:
            failed.append(index)
            return "503"
        return None

    run, server, _ = tell(FORMULA, extra_plan=plan)
    record = run.records[0]
    assert [c.outcome for c in record.clues] == ["validated"] * 4
    assert all(len(c.attempts) == 1 for c in record.clues)
    assert server.faults()["503"] == 2 and len(server.log) == 1 + 4 * 4 + 2


def test_units_and_repeated_variables_are_told_directly() -> None:
    formula = Formula.from_named([["a"], ["b", "b"], ["~c", "c"], ["a", "~c"]])
    run, server, script = tell(formula, default="wrong-polarity")
    record = run.records[0]
    assert [c.mode for c in record.clues] == ["direct", "direct", "direct", "llm"]
    assert record.clues[0].text.startswith("It is certain that ")
    check_against_script(record, formula, script, len(server.log))
    stats = run.statistics()
    assert (stats.llm_clauses, stats.direct, stats.fallbacks) == (1, 3, 1)
    check_recovery(record, formula)


def test_clauses_wider_than_two_are_refused() -> None:
    with pytest.raises(NotTwoCNFError):
        tell(Formula.from_named([["a", "b", "c"]]))


# -- the conversation -----------------------------------------------------------------------


def _source_pairs(record: StoryRecord, position: int) -> list[tuple[str, bool]]:
    names = {v: e for e, v in record.entities.items()}
    return [
        (names[lit.lstrip("~")], not lit.startswith("~")) for lit in record.clues[position].clause
    ]


def test_a_chat_model_gets_the_conversation_as_messages() -> None:
    run, server, _ = tell(FORMULA, {(1, 0): "empty", (1, 1): "empty", (1, 2): "empty"})
    record = run.records[0]
    assert record.provenance["conversation"] == "messages"
    clue_requests = [e for e in server.log if "Write clue 3/4" in e.prompt]
    assert clue_requests and all(e.path.endswith("/chat/completions") for e in server.log)
    messages = clue_requests[0].messages
    assert [m["role"] for m in messages] == ["user", "assistant"] * 3 + ["user"]
    texts = [m["content"] for m in messages]
    chosen = THEMES.get("detective")
    names = list(record.entities)
    assert texts[0] == intro_prompt(chosen, names)
    assert texts[1] == INTRO
    for k in (1, 2, 3):
        prompt = texts[2 * k]
        assert prompt.startswith(f"Write clue {k}/4 for our mystery story.\n\n")
        assert prompt.endswith("Write ONLY the clue paragraph:") and "User:" not in prompt
    assert texts[3] == record.clues[0].text and texts[5] == record.clues[1].text
    # the introduction and the validation calls are one user message each
    single = [e for e in server.log if "Write clue" not in e.prompt]
    assert single and all(len(e.messages) == 1 for e in single)
    assert server.log[0].messages == [{"role": "user", "content": texts[0]}]


def test_a_completion_model_gets_the_conversation_as_a_transcript() -> None:
    run, server, _ = tell(
        FORMULA, {(1, 0): "empty", (1, 1): "empty", (1, 2): "empty"}, mode="completion"
    )
    record = run.records[0]
    assert record.provenance["conversation"] == "transcript"
    assert all(e.path.endswith("/completions") and e.messages is None for e in server.log)
    prompts = [e.prompt for e in server.log if "Write clue" in e.prompt]
    third = next(p for p in prompts if "Write clue 3/4" in p)
    assert third.startswith("User:\nYou are a mystery story writer. Create a short\n")
    assert f"Assistant:\n{INTRO}\n\nUser:\nWrite clue 1/4" in third
    assert f"Assistant:\n{record.clues[0].text}\n\nUser:\nWrite clue 2/4" in third
    assert f"Assistant:\n{record.clues[1].text}\n\nUser:\nWrite clue 3/4" in third
    assert third.endswith("Write ONLY the clue paragraph:")
    first_intro = server.log[0].prompt
    assert first_intro.startswith("You are a mystery story writer.")
    assert not first_intro.startswith("User:")


def test_history_keeps_only_the_last_exchanges() -> None:
    short = StorySettings(history=1)
    run, server, _ = tell(FORMULA, settings=short)
    last = next(e.prompt for e in server.log if "Write clue 4/4" in e.prompt)
    assert "Write clue 3/4" in last and "Write clue 2/4" not in last
    assert run.records[0].provenance["history"] == 1


def test_validator_prompts_are_the_paper_prompts() -> None:
    run, server, _ = tell(FORMULA)
    record = run.records[0]
    clue = record.clues[0].text
    entities = [e.prompt for e in server.log if e.prompt.startswith("From this clue")]
    listed = ", ".join(f'"{e}"' for e in record.entities)
    assert entities[0] == (
        "From this clue, identify the TWO main entities\nbeing discussed.\n\n"
        f'CLUE: "{clue}"\n\nAVAILABLE ENTITIES:\n[{listed}]\n\n'
        "Which two entities does this clue primarily discuss?\n"
        "Respond with ONLY a JSON array of exactly 2 entity\n"
        'names: ["entity1", "entity2"]'
    )
    states = [e.prompt for e in server.log if e.prompt.startswith("In this clue")]
    entity = record.clues[0].attempts[0].entities[0]  # type: ignore[index]
    true, false = THEMES.get("detective").describe(entity)
    assert states[0] == (
        f"In this clue, what is stated about {entity}?\n\n"
        f'CLUE: "{clue}"\n\n'
        f"The clue says that {entity}:\nA) {true}\nB) {false}\n\n"
        'Which state does the clue indicate?\nAnswer with ONLY "A" or "B".'
    )


# -- the run store: resume ------------------------------------------------------------------


def test_an_interrupted_generation_resumes_from_the_store(tmp_path: Path) -> None:
    store = tmp_path / "calls.sqlite"
    kinds = {(2, 0): "wrong-polarity", (3, 0): "garble-entities"}
    reference, full, _ = tell(FORMULA, kinds, store=tmp_path / "reference.sqlite")
    outage = {"on": True}

    def plan(prompt: str, attempt: int, index: int) -> str | None:
        return "500" if outage["on"] and index >= 9 else None

    chosen = THEMES.get("detective")
    names = chosen.entities_for(FORMULA.num_vars, seed=0)
    script = StoryScript({e: chosen.describe(e) for e in names}, kinds)
    item = StoryItem("inst-1", FORMULA, brute_label(FORMULA))
    with StoryServer(script, plan) as server:
        options: dict[str, Any] = {"settings": FAST, "retry": FAST_RETRY, "base_url": server.url}
        with pytest.raises(EvaluationError, match="gave up after 3 attempts"):
            generate_stories([item], "detective", SPEC, store, **options)
        with ResponseCache(store) as opened:
            assert opened.count() == 9
        outage["on"] = False
        before = len(server.log)
        run = generate_stories([item], "detective", SPEC, store, **options)
        resumed = len(server.log) - before
        again = generate_stories([item], "detective", SPEC, store, **options)
    assert run.calls_reused == 9 and resumed == len(full.log) - 9
    assert run.calls_made == resumed
    assert again.calls_made == 0 and len(server.log) == before + resumed

    def strip(record: StoryRecord) -> dict[str, Any]:
        # the id binds the provenance (the endpoint differs between the two servers)
        return {k: v for k, v in record.to_record().items() if k not in ("provenance", "id")}

    assert strip(run.records[0]) == strip(reference.records[0])
    assert again.records == run.records
    with ResponseCache(store) as opened:
        assert opened.count() == opened.count(SPEC) == len(full.log)
    with sqlite3.connect(store) as db:  # a cache of answers, nothing judged or made up
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        hashes = {row[0] for row in db.execute("SELECT prompt_hash FROM responses")}
    assert "results" not in tables and hashes == {_cache_hash(e.messages) for e in full.log}


def _cache_hash(messages: list[dict[str, str]]) -> str:
    """The prompt hash a cached call is keyed by: its text, or its conversation's JSON."""
    if len(messages) == 1:
        return prompt_hash(messages[0]["content"])
    pairs = [[m["role"], m["content"]] for m in messages]
    return prompt_hash(json.dumps(pairs, separators=(",", ":")))


def test_an_introduction_that_cannot_be_written_stops_the_story(tmp_path: Path) -> None:
    def plan(prompt: str, attempt: int, index: int) -> str | None:
        return "malformed" if "introduction for a" in prompt else None

    with pytest.raises(EvaluationError, match="introduction failed"):
        tell(FORMULA, extra_plan=plan, store=tmp_path / "c.sqlite")
    with ResponseCache(tmp_path / "c.sqlite") as opened:
        assert opened.count() == 0


def test_many_stories_keep_their_order(tmp_path: Path) -> None:
    formulas = [FORMULA, Formula.from_named([["p", "q"]]), Formula.from_named([["~x", "y"]])]
    chosen = THEMES.get("spy")
    names: set[str] = set()
    for f in formulas:
        names.update(chosen.entities_for(f.num_vars, seed=3))
    script = StoryScript({e: chosen.describe(e) for e in names})
    items = [StoryItem(f"i{k}", f, brute_label(f)) for k, f in enumerate(formulas)]
    with StoryServer(script) as server:
        run = generate_stories(
            items,
            "spy",
            SPEC,
            tmp_path / "c.sqlite",
            seed=3,
            settings=FAST,
            base_url=server.url,
            concurrency=3,
        )
    assert [r.instance_id for r in run.records] == ["i0", "i1", "i2"]
    for record, formula in zip(run.records, formulas, strict=True):
        check_recovery(record, formula)
        assert record.theme == "spy" and record.seed == 3


# -- property: any formula, any script ------------------------------------------------------


@st.composite
def formulas_and_scripts(draw: Any) -> tuple[Formula, dict[tuple[int, int], str], str, int]:
    n = draw(st.integers(3, 5))
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    two = st.tuples(literal, literal).filter(lambda p: abs(p[0]) != abs(p[1]))
    odd = st.one_of(literal.map(lambda x: (x,)), literal.map(lambda x: (x, x)))
    clauses = draw(st.lists(st.one_of(two, two, two, odd).map(list), min_size=1, max_size=4))
    formula = Formula(clauses, num_vars=n)
    kinds = {
        (i, a): draw(st.sampled_from(KINDS))
        for i in range(1, len(clauses) + 1)
        for a in range(MAX_ATTEMPTS)
    }
    return formula, kinds, draw(st.sampled_from(THEMES.names())), draw(st.integers(0, 50))


@settings(max_examples=25)
@given(formulas_and_scripts())
def test_any_script_behaves_as_specified_and_recovers_the_source(
    case: tuple[Formula, dict[tuple[int, int], str], str, int],
) -> None:
    formula, kinds, theme, seed = case
    run, server, script = tell(formula, kinds, theme=theme, seed=seed)
    record = run.records[0]
    check_against_script(record, formula, script, len(server.log))
    check_recovery(record, formula)
    llm = [c for c in record.clues if c.mode == "llm"]
    stats = run.statistics()
    assert stats.llm_clauses == len(llm)
    assert stats.fallbacks == sum(
        all(script.kind(c.index, a) != "faithful" for a in range(MAX_ATTEMPTS)) for c in llm
    )
    assert stats.first_attempt == sum(script.kind(c.index, 0) == "faithful" for c in llm)
