"""Two spellings of one model spec are one model: in the store, its resume and reports.

A spec's options are read by their rules (``budget=03`` is 3, ``temperature=0.50``
is 0.5) and written back in one spelling and one order (:func:`canonical_spec`);
the model is named by that form, so a run resumed with another spelling asks
nothing again and ``results`` shows one model.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from tests.support.jsonl import read_jsonl
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import canonical_spec, load_model, parse_spec
from twosat_formal.evaluate.models.reference import DEFAULT_BUDGET, BoundedModel
from twosat_formal.evaluate.run.limits import split_limits


def _int_spellings(value: int) -> st.SearchStrategy[str]:
    return st.sampled_from([str(value), "0" + str(value), "00" + str(value), f" {value}"])


def _float_spellings(value: float) -> st.SearchStrategy[str]:
    exponent = f"{value:e}".replace("+", "%2B")  # a '+' in a query is a space
    return st.sampled_from([repr(value), repr(value) + "0", f"{value:.6f}", exponent])


OPTIONS = {
    "max_tokens": st.integers(1, 10**6).flatmap(_int_spellings),
    "seed": st.integers(0, 10**9).flatmap(_int_spellings),
    "temperature": st.sampled_from([0.0, 0.5, 1.0, 1.25]).flatmap(_float_spellings),
    "top_p": st.sampled_from([0.25, 0.5, 1.0]).flatmap(_float_spellings),
    "mode": st.sampled_from(["chat", "completion"]),
}


@st.composite
def spelled_specs(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    keys = draw(st.lists(st.sampled_from(sorted(OPTIONS)), unique=True))
    pairs = [(key, draw(OPTIONS[key])) for key in keys]
    return "openai/some-model", pairs


@given(spelled_specs(), st.randoms(use_true_random=False))
def test_every_spelling_and_order_of_a_spec_has_one_canonical_form(
    drawn: tuple[str, list[tuple[str, str]]], rng: random.Random
) -> None:
    body, pairs = drawn
    spec = body + ("?" + "&".join(f"{k}={v}" for k, v in pairs) if pairs else "")
    shuffled = pairs[:]
    rng.shuffle(shuffled)
    other = body + ("?" + "&".join(f"{k}={v}" for k, v in shuffled) if pairs else "")
    canonical = canonical_spec(spec)
    assert canonical_spec(other) == canonical == canonical_spec(canonical)
    assert parse_spec(canonical) == parse_spec(spec)  # the same options, the same values
    query = canonical.partition("?")[2]
    keys = [key for key, _ in parse_qsl(query)]
    assert keys == sorted(keys) == sorted(key for key, _ in pairs)
    assert load_model(other, base_url="http://127.0.0.1:9/v1").spec == canonical


def test_limits_leave_the_canonical_spec() -> None:
    spec, limits = split_limits("ref/bounded?rpm=60&budget=007")
    assert (spec, limits.rpm) == ("ref/bounded?budget=7", 60)


def test_a_resume_with_another_spelling_asks_nothing_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = make_items(4, seed=3)
    prompts, dataset = write_inputs(tmp_path, items)
    store = tmp_path / "runs.sqlite"
    asked = []
    for spec in ("ref/bounded?budget=3&seed=1", "ref/bounded?seed=01&budget=03"):
        code, out, err = cli(
            capsys, "eval", str(prompts), "--dataset", str(dataset), "--model", spec,
            "--store", str(store), "--no-progress", "--json",
        )  # fmt: skip
        assert code == 0, err
        asked.append(json.loads(out))
    code, _, err = cli(capsys, "results", str(store), "--out", str(tmp_path / "r.jsonl"))
    assert code == 0, err
    rows = read_jsonl(tmp_path / "r.jsonl")
    assert {row["model"] for row in rows} == {"ref/bounded?budget=3&seed=1"}
    assert len(rows) == len(items)
    assert (asked[0]["done"], asked[0]["skipped"]) == (len(items), 0)
    assert (asked[1]["done"], asked[1]["skipped"]) == (0, len(items))  # all stored


@pytest.mark.parametrize(
    "spec",
    [
        "openai/m?rpm=1&rpm=2",
        "openai/m?concurrency=2&mode=chat&concurrency=2",
        "ref/coin?seed=1&seed=1",
    ],
)
def test_an_option_or_limit_given_twice_is_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"parameter '\w+' is set twice in model spec"):
        split_limits(spec)


def test_a_limit_given_twice_never_shows_a_credential() -> None:
    """The refusal is the repeat's (an api_key option is refused on its own too, so a
    refusal alone proves nothing), and it shows the spec masked."""
    with pytest.raises(ConfigError) as info:
        split_limits("openai/m?api_key=sk-secret&rpm=1&rpm=2")
    message = str(info.value)
    assert "parameter 'rpm' is set twice in model spec 'openai/m?api_key=***" in message
    assert "sk-secret" not in message


@given(st.one_of(st.just(DEFAULT_BUDGET), st.integers(1, 10**7)), st.sampled_from(["", "0"]))
def test_a_budget_at_its_default_is_the_bare_spec(budget: int, zeros: str) -> None:
    spec = f"ref/bounded?budget={zeros}{budget}"
    canonical = canonical_spec(spec)
    assert canonical == (
        "ref/bounded" if budget == DEFAULT_BUDGET else f"ref/bounded?budget={budget}"
    )
    model = load_model(spec)
    assert (model.spec, model.budget) == (canonical, budget)  # type: ignore[attr-defined]
    assert BoundedModel(budget=budget).spec == canonical  # built directly: the same name
