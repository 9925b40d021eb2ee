"""One count rule and one mode rule: every owner accepts and refuses the same values.

A count (batch ``samples``, an export's ``max_tokens``, a gym config's ``min_clauses``)
is an integer >= 1, never ``true`` nor text; a mode (a batch's, a model's) is ``chat``
or ``completion``. Each owner keeps its own words; what is valid reads the same
everywhere, and a mode named alone (not in a spec nor in load options) is refused in
one wording by every owner.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from twosat_formal.cli.eval_options import EndpointOptions
from twosat_formal.core.model import SamplingParams
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import LoadOptions
from twosat_formal.evaluate.models.llamacpp import LlamaCppModel
from twosat_formal.evaluate.models.openai_compat import OpenAICompatModel, request_body
from twosat_formal.integrations.batch import batch_requests
from twosat_formal.integrations.exports import ExportOptions
from twosat_formal.integrations.gym import TwoSatConfig


def _samples(value: object) -> None:
    list(batch_requests([], "openai/m", SamplingParams(), samples=value))  # type: ignore[arg-type]


def _gym(value: object) -> None:
    TwoSatConfig(min_clauses=value, max_clauses=10**9).validate()  # type: ignore[arg-type]


#: Each owner of a count: it raises for a value that is no count.
COUNT_OWNERS: dict[str, Callable[[object], object]] = {
    "samples": _samples,
    "max_tokens": lambda value: ExportOptions(max_tokens=value),  # type: ignore[arg-type]
    "max_gen_toks": lambda value: ExportOptions(max_gen_toks=value),  # type: ignore[arg-type]
    "min_clauses": _gym,
}
VALUES = st.one_of(st.integers(-3, 40), st.booleans(), st.just(1.5), st.just("2"), st.none())


@given(st.sampled_from(sorted(COUNT_OWNERS)), VALUES)
def test_every_count_is_an_integer_of_at_least_one(owner: str, value: object) -> None:
    if type(value) is int and value >= 1:
        COUNT_OWNERS[owner](value)
        return
    with pytest.raises(ConfigError) as info:
        COUNT_OWNERS[owner](value)
    assert (info.value.parameter, info.value.valid) == (owner, "an integer >= 1")
    assert repr(value) in str(info.value)


@given(st.sampled_from(["chat", "completion", "Chat", "x", "", 3]))
def test_a_batch_mode_and_a_model_mode_follow_one_rule(mode: object) -> None:
    def batch() -> None:
        list(batch_requests([], "openai/m", SamplingParams(), mode=mode))  # type: ignore[arg-type]

    if mode in ("chat", "completion"):
        batch()
        assert LoadOptions(mode=mode).mode == mode
        return
    with pytest.raises(ConfigError) as batch_error:
        batch()
    with pytest.raises(ConfigError) as load_error:
        LoadOptions(mode=mode)  # type: ignore[arg-type]
    assert str(batch_error.value) == f"unknown mode {mode!r}"
    assert str(load_error.value) == f"mode must be chat or completion, not {mode!r}"
    assert batch_error.value.valid == load_error.value.valid == "chat or completion"


#: Each place that takes a mode by name alone: a batch, a model built directly, a
#: request body, ``eval --mode``.
NAMED_MODE_OWNERS: dict[str, Callable[[object], object]] = {
    "batch": lambda mode: list(batch_requests([], "openai/m", SamplingParams(), mode=mode)),  # type: ignore[arg-type]
    "openai model": lambda mode: OpenAICompatModel("m", mode=mode),  # type: ignore[arg-type]
    "llamacpp model": lambda mode: LlamaCppModel(Path("m.gguf"), mode=mode),  # type: ignore[arg-type]
    "request body": lambda mode: request_body(mode, "m", "Hi", SamplingParams()),  # type: ignore[arg-type]
    "eval --mode": lambda mode: EndpointOptions(mode=mode),  # type: ignore[arg-type]
}


@given(st.sampled_from(sorted(NAMED_MODE_OWNERS)), st.sampled_from(["Chat", "x", "", 3, None]))
def test_a_mode_named_alone_is_refused_in_one_wording_everywhere(owner: str, mode: object) -> None:
    with pytest.raises(ConfigError) as caught:
        NAMED_MODE_OWNERS[owner](mode)
    assert str(caught.value) == f"unknown mode {mode!r}"
    assert (caught.value.parameter, caught.value.valid) == ("mode", "chat or completion")
