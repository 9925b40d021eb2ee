"""``twosat_formal.integrations.gym``: items and rewards checked against the solver, determinism,
curriculum."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.cli import python_stdout
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError, MissingExtraError, UnknownNameError
from twosat_formal.integrations.gym import (
    CURRICULUM_LEVELS,
    DATASET_NAMES,
    Curriculum,
    create_dataset,
    score_answer,
)
from twosat_formal.io import parse_dimacs
from twosat_formal.make.generators import FAMILIES
from twosat_formal.solve import solve
from twosat_formal.verbalize import backparse

ROOT = Path(__file__).resolve().parents[2]


def formula_of(item: dict[str, Any]) -> Formula:
    return parse_dimacs(item["metadata"]["dimacs"])


def witness_text(item: dict[str, Any], model: dict[str, bool]) -> str:
    meta = item["metadata"]
    values = {
        entity: meta["true_value"] if model[var] else meta["false_value"]
        for entity, var in meta["entities"].items()
    }
    return "```json\n" + json.dumps(values) + "\n```\nThe answer is: Yes"


def check_gold(item: dict[str, Any], formula: Formula) -> None:
    """The gold answer's certificate, checked here clause by clause and edge by edge."""
    meta = item["metadata"]
    *certificate, line = item["answer"].splitlines()
    obj = json.loads("\n".join(certificate))
    values = {meta["true_value"]: True, meta["false_value"]: False}
    var_of = {entity: formula.var(name) for entity, name in meta["entities"].items()}
    clauses = [tuple(clause) for clause in formula.clauses]
    if meta["label"] == "SAT":
        assert line == "The answer is: Yes"
        truth = {var_of[entity]: values[word] for entity, word in obj.items()}
        assert all(any(truth[abs(lit)] == (lit > 0) for lit in clause) for clause in clauses)
        return
    assert line == "The answer is: No"
    walk = [
        var_of[e] if values[w] else -var_of[e] for step in obj["chain"] for e, w in step.items()
    ]
    assert walk[0] == walk[-1] and any(-lit in walk for lit in walk)
    for src, dst in itertools.pairwise(walk):  # src -> dst needs the clause (~src | dst)
        rules = [c for c in clauses if sorted(c) == sorted((-src, dst)) or c == (dst,) == (-src,)]
        assert rules, (src, dst)


def solver_model(formula: Formula) -> dict[str, bool] | None:
    result = solve(formula, check=True)
    if result.model is None:
        return None
    return {formula.name(v + 1): bool(b) for v, b in enumerate(result.model)}


def test_every_family_has_a_dataset_name() -> None:
    assert set(DATASET_NAMES) == {"twosat"} | {f"twosat-{f}" for f in FAMILIES.names()}


@settings(max_examples=30)
@given(
    name=st.sampled_from(DATASET_NAMES),
    seed=st.integers(0, 2**40),
    index=st.integers(0, 999),
)
def test_items_agree_with_the_solver_and_read_back(name: str, seed: int, index: int) -> None:
    data = create_dataset(name, seed=seed, size=1000, max_clauses=12)
    item = data[index]
    meta = item["metadata"]
    formula = formula_of(item)
    label = solve(formula, check=True).status
    assert meta["label"] == label
    if data.config.balance:  # the mixed dataset and symmetry: even items SAT, odd UNSAT
        assert label == ("SAT", "UNSAT")[index % 2]
    check_gold(item, formula)
    assert score_answer(item["answer"], item) == 1.0
    assert score_answer(f"<think>...</think>\n<answer>{item['answer']}</answer>", item) == 1.0
    if name != "twosat":
        assert meta["family"] == name.removeprefix("twosat-")
    assert abs(meta["clauses"] - meta["difficulty"]["clauses"]) <= 1 or meta["family"] == "symmetry"
    assert meta["source_dataset"] == name and meta["source_index"] == index
    assert all(0.0 <= v <= 1.0 for v in meta["knobs"].values())
    # the question is the verbalization of exactly this formula
    entities = list(meta["entities"])
    parsed = backparse(item["question"], meta["template"], entities=entities).formula
    names = [meta["entities"][e] for e in entities]
    assert parsed.with_names(names).same_clauses(formula)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**40), index=st.integers(0, 99), flip=st.booleans())
def test_rewards_agree_with_the_solver(seed: int, index: int, flip: bool) -> None:
    item = create_dataset("twosat", seed=seed, size=100, max_clauses=10)[index]
    formula = formula_of(item)
    model = solver_model(formula)
    if model is None:
        assert score_answer("A contradiction cycle.\nThe answer is: No", item) == 1.0
        assert score_answer("The answer is: Yes", item) == 0.0
        assert score_answer("**The answer is: no**", item) == 1.0
        assert score_answer("<answer>No</answer>", item) == 1.0
        assert score_answer("<answer>No</answer> and then\nThe answer is: Yes", item) == 1.0
        assert score_answer("<answer>Yes</answer>", item) == 0.0
        return
    assert score_answer(witness_text(item, model), item) == 1.0
    assert score_answer("The answer is: No", item) == 0.0
    assert score_answer("The answer is: Yes", item) == 0.0  # no witness
    assert score_answer("The answer is: Yes", item, partial_credit=0.5) == 0.5
    tagged = witness_text(item, model).replace("The answer is: Yes", "yes.")
    assert score_answer(f"<answer>\n{tagged}\n</answer>", item) == 1.0
    assert score_answer(f"<answer>{tagged}</answer>".replace("yes.", "no"), item) == 0.0
    if flip:  # make the first clause false: the witness is invalid
        broken = dict(model)
        for lit in formula.clauses[0]:
            broken[formula.name(abs(lit))] = lit < 0
        assert score_answer(witness_text(item, broken), item) == 0.0
        assert score_answer(witness_text(item, broken), item, partial_credit=0.25) == 0.25


def test_lenient_reading_is_an_option() -> None:
    data = create_dataset("twosat-implication-cycle", seed=2, size=1, lenient=True)
    item = data[0]
    assert item["metadata"]["label"] == "UNSAT"
    assert score_answer("so the answer is no.", item) == 0.0
    assert score_answer("so the answer is no.", item, lenient=True) == 1.0
    assert data.score_answer("so the answer is no.", item) == 1.0
    assert score_answer("", item) == score_answer(None, item) == 0.0


def digest(name: str, seed: int, indices: list[int], size: int) -> str:
    data = create_dataset(name, seed=seed, size=size, max_clauses=10)
    blob = json.dumps([data[i] for i in indices], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@pytest.mark.slow
def test_items_are_the_same_in_another_process_and_any_order() -> None:
    here = digest("twosat", 11, [7, 0, 3], 20)
    code = (
        "import hashlib, json\n"
        "from twosat_formal.integrations.gym import create_dataset\n"
        "data = create_dataset('twosat', seed=11, size=8, max_clauses=10)\n"
        "items = [data[i] for i in (3, 0, 7)]\n"
        "blob = json.dumps([items[2], items[1], items[0]], sort_keys=True)\n"
        "print(hashlib.sha256(blob.encode()).hexdigest())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "123"}
    assert python_stdout(code, env=env).strip() == here
    assert digest("twosat", 12, [7, 0, 3], 20) != here
    data = create_dataset("twosat", seed=11, size=20, max_clauses=10)
    assert data[-1] == data[19] and data[2:4] == [data[2], data[3]]
    with pytest.raises(IndexError):
        data[20]


def test_the_curriculum_raises_size_fillers_and_spread() -> None:
    curriculum = Curriculum("twosat")
    seen = []
    while True:
        level = CURRICULUM_LEVELS[curriculum.level]
        items = curriculum.dataset(seed=5, size=4)
        for item in items:
            difficulty = item["metadata"]["difficulty"]
            assert level.min_clauses <= difficulty["clauses"] <= level.max_clauses
            assert difficulty["knob_spread"] == level.knob_spread
            share = difficulty["filler_share"]
            assert share is None or level.min_filler_share <= share <= level.max_filler_share
        seen.append(level)
        if not curriculum.increment():
            break
    assert len(seen) == len(CURRICULUM_LEVELS) and curriculum.level == len(seen) - 1
    for easier, harder in itertools.pairwise(seen):
        assert easier.max_clauses < harder.max_clauses
        assert easier.max_filler_share <= harder.max_filler_share
        assert easier.knob_spread < harder.knob_spread
    assert curriculum.decrement() and curriculum.level == len(seen) - 2
    with pytest.raises(ConfigError, match=r"level must be an integer in 0\.\.4, got 9"):
        curriculum.set_level(9)


def test_bad_configs_are_refused_with_one_clear_message() -> None:
    with pytest.raises(UnknownNameError):
        create_dataset("twosat-nothing")
    with pytest.raises(ConfigError, match="unknown config field 'clauses'"):
        create_dataset("twosat", clauses=5)
    with pytest.raises(ConfigError, match="knob_spread must be a number in"):
        create_dataset("twosat", knob_spread=0.9)
    with pytest.raises(UnknownNameError):
        create_dataset("twosat", families=("no-family",))
    one = create_dataset("twosat", families="backbone", size=1, balance=False)
    assert one[0]["metadata"]["family"] == "backbone"


def test_registration_needs_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import twosat_formal.integrations.gym as gym
    from twosat_formal.integrations import reasoning_gym as adapter

    monkeypatch.setitem(sys.modules, "reasoning_gym", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'twosat-formal\[integrations\]'"):
        adapter.register(gym.DATASET_NAMES, gym.config_class, gym.TwoSatDataset, [])


def test_reasoning_gym_creates_and_scores_our_datasets() -> None:
    reasoning_gym = pytest.importorskip("reasoning_gym")
    import twosat_formal.integrations.gym as gym

    data = reasoning_gym.create_dataset("twosat", seed=3, size=2)
    ours = gym.create_dataset("twosat", seed=3, size=2)
    assert [data[0], data[1]] == [ours[0], ours[1]] and len(data) == 2
    for item in data:
        model = solver_model(formula_of(item))
        answer = "The answer is: No" if model is None else witness_text(item, model)
        assert data.score_answer(answer, item) == 1.0
        assert reasoning_gym.get_score_answer_fn("twosat")(answer, item) == 1.0
        assert data.score_answer("The answer is: maybe", item) == 0.0
    family = reasoning_gym.create_dataset("twosat-mono-bridge", seed=1, size=1)
    assert family[0]["metadata"]["family"] == "mono-bridge"
    from reasoning_gym.factory import create_curriculum

    curriculum = create_curriculum("twosat")
    curriculum.set_global_level(2)
    config = curriculum.generate_configuration({"seed": 4, "size": 3})
    assert (config.min_clauses, config.max_clauses) == (16, 32)
    assert len(reasoning_gym.create_dataset("twosat", **vars(config))) == 3
    assert reasoning_gym.create_dataset("twosat", seed=None, size=1).seed is not None


def test_reasoning_gym_curriculum_levels_are_the_documented_ones() -> None:
    pytest.importorskip("reasoning_gym")
    from reasoning_gym.coaching.base_curriculum import (
        DefaultCurriculumContext,
        RangeAttributeMode,
    )
    from reasoning_gym.factory import create_curriculum

    import twosat_formal.integrations.gym  # noqa: F401  (registers the datasets)

    docs = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    for mode in RangeAttributeMode:
        for index, level in enumerate(CURRICULUM_LEVELS):
            curriculum = create_curriculum("twosat-backbone")
            curriculum.set_global_level(index)
            context = DefaultCurriculumContext(mode=mode, k=2)
            config = curriculum.generate_configuration({"seed": 1, "size": 2}, context)
            assert (config.min_clauses, config.max_clauses) == (
                level.min_clauses,
                level.max_clauses,
            )
            assert (config.min_filler_share, config.max_filler_share) == (
                level.min_filler_share,
                level.max_filler_share,
            )
            assert config.knob_spread == level.knob_spread
            assert config.families == ("backbone",)
            assert f"{level.min_clauses}-{level.max_clauses}" in docs
    assert CURRICULUM_LEVELS[0].min_clauses == 4 and CURRICULUM_LEVELS[0].max_clauses == 8


def test_balance_and_require_chain() -> None:
    with pytest.raises(ConfigError, match="balance needs families that give UNSAT items"):
        create_dataset("twosat-backbone", balance=True)
    with pytest.raises(ConfigError, match="balance needs families that give SAT items"):
        create_dataset("twosat", families=("implication-cycle",))
    with pytest.raises(ConfigError, match="require_chain must be true or false"):
        create_dataset("twosat", require_chain="yes")
    assert not create_dataset("twosat-backbone").config.balance
    assert create_dataset("twosat-symmetry").config.balance
    data = create_dataset("twosat", seed=4, size=6, max_clauses=10, require_chain=True)
    unsat = [item for item in data if item["metadata"]["label"] == "UNSAT"]
    assert len(unsat) == 3
    for item in data:
        assert item["metadata"]["require_chain"] is True
        assert '{"chain": [' in item["question"]  # the prompt asks for the chain
        assert score_answer(item["answer"], item) == 1.0
    for item in unsat:
        assert score_answer("The answer is: No", item) == 0.0
        assert score_answer("The answer is: No", item, partial_credit=0.25) == 0.25
        chain = json.loads(item["answer"].splitlines()[0])["chain"]
        broken = json.dumps({"chain": chain[:-2]}) + "\nThe answer is: No"  # not closed
        assert score_answer(broken, item) == 0.0
        assert data.score_answer(item["answer"], item) == 1.0
    plain = create_dataset("twosat", seed=4, size=6, max_clauses=10)
    assert '{"chain": [' not in plain[1]["question"]
    assert score_answer("The answer is: No", plain[1]) == 1.0


def _decision_only(item: dict[str, Any]) -> str:
    return "The answer is: " + ("Yes" if item["metadata"]["label"] == "SAT" else "No")


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    size=st.integers(1, 12),
    require_chain=st.booleans(),
    credit=st.sampled_from([0.0, 0.25, 0.5]),
)
def test_no_constant_policy_earns_more_than_half(
    seed: int, size: int, require_chain: bool, credit: float
) -> None:
    data = create_dataset(
        "twosat",
        seed=seed,
        size=size,
        max_clauses=8,
        require_chain=require_chain,
        partial_credit=credit,
    )
    items = list(data)
    constants = ["The answer is: Yes", "The answer is: No", "<answer>No</answer>", "Yes", ""]
    for answer in constants:
        assert sum(data.score_answer(answer, item) for item in items) / size <= 0.5
    decided = sum(data.score_answer(_decision_only(item), item) for item in items) / size
    if require_chain:
        assert decided == credit
    else:  # a right "No" earns 1, a "Yes" without a witness the partial credit
        assert decided <= (1 + credit) / 2
        if size % 2 == 0:
            assert decided == (1 + credit) / 2


def test_a_training_loop_over_the_registered_dataset() -> None:
    """A GRPO-style loop: draw batches, ask policies, reward with reasoning-gym's scorer."""
    reasoning_gym = pytest.importorskip("reasoning_gym")
    from reasoning_gym.utils import extract_answer

    import twosat_formal.integrations.gym  # noqa: F401  (registers the datasets)
    from twosat_formal.evaluate.models.reference import OracleModel

    data = reasoning_gym.create_dataset("twosat", seed=7, size=24, max_clauses=10)
    chained = reasoning_gym.create_dataset(
        "twosat", seed=7, size=24, max_clauses=10, require_chain=True
    )
    oracle = OracleModel()
    coin = __import__("random").Random(0)
    policies = {
        "oracle": lambda item: f"<answer>{oracle.respond(item['question']).text}</answer>",
        "always-yes": lambda item: "<answer>Yes</answer>",
        "always-no": lambda item: "<answer>No</answer>",
        "random": lambda item: f"<answer>{coin.choice(['Yes', 'No'])}</answer>",
        "decision-only": lambda item: f"<answer>{_decision_only(item)}</answer>",
    }
    means: dict[tuple[str, bool], float] = {}
    for dataset in (data, chained):
        score = reasoning_gym.get_score_answer_fn("twosat")
        for name, policy in policies.items():
            rewards = []
            for start in range(0, len(dataset), 8):  # batches of 8, as a trainer draws
                for index in range(start, start + 8):
                    entry = dataset[index]
                    completion = policy(entry)
                    extracted = extract_answer(completion)
                    reward = dataset.score_answer(extracted, entry)
                    assert score(extracted, entry) == reward  # the registered scorer agrees
                    assert dataset.score_answer(completion, entry) == reward  # tags read
                    rewards.append(reward)
            means[name, dataset is chained] = sum(rewards) / len(rewards)
    for chain in (False, True):
        assert means["oracle", chain] == 1.0
        assert means["always-yes", chain] == 0.0
        assert means["always-no", chain] == (0.0 if chain else 0.5)
        assert means["decision-only", chain] == (0.0 if chain else 0.5)
        assert 0.0 < means["random", False] < 0.5
    assert all(
        reasoning_gym.create_dataset("twosat", seed=7, size=24, max_clauses=10)[i] == data[i]
        for i in (0, 5, 23)
    )


def test_the_training_examples_of_the_docs_run_as_written() -> None:
    pytest.importorskip("reasoning_gym")
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    section = text.split("## Training:", 1)[1].split("\n## ", 1)[0]
    blocks = section.split("```python\n")[1:]
    assert len(blocks) == 2
    for block in blocks:
        namespace: dict[str, Any] = {}
        exec(compile(block.split("```", 1)[0], "docs/integrations.md", "exec"), namespace)
        assert namespace["reward"] == 1.0  # the answers the examples give are right
        assert len(namespace["harder"]) >= 1
