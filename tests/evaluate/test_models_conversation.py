"""Conversations as messages: the ChatModel extension of the Model protocol.

A chat model sends a conversation as one message per turn (checked in the request
bodies a loopback HTTP server received); a completion model refuses it; the retrying,
caching and pooling wrappers pass it on, and the cache never confuses a conversation
with the same turns rendered into one transcript.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.support.faultserver import FaultServer
from twosat_formal.core.model import ChatModel, SamplingParams, conversation_key, takes_messages
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import load_model
from twosat_formal.evaluate.models.cache import CachedModel, ResponseCache
from twosat_formal.evaluate.models.openai_compat import OpenAICompatModel, request_body
from twosat_formal.evaluate.models.pool import PooledModel
from twosat_formal.evaluate.models.retry import RetryingModel, RetryPolicy
from twosat_formal.verbalize.story.generator import render_conversation

TURNS = [("user", "Write an intro."), ("assistant", "Night fell."), ("user", "Write clue 1/2.")]
PARAMS = SamplingParams(max_tokens=16)
FAST = RetryPolicy(max_attempts=3, base_delay_s=0.0, max_delay_s=0.0)


def as_messages(turns: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"role": role, "content": text} for role, text in turns]


def test_chat_requests_carry_every_turn_as_a_message() -> None:
    with FaultServer(plan=["503"], answer=lambda prompt: "A clue.") as server:
        model = OpenAICompatModel("m", base_url=server.url)
        retrying = RetryingModel(model, FAST)
        assert takes_messages(model) and takes_messages(retrying)

        async def ask() -> str:
            try:
                return (await retrying.converse(TURNS, PARAMS, sample=1)).text
            finally:
                await retrying.aclose()

        assert asyncio.run(ask()) == "A clue."
    assert [e.fault for e in server.log] == ["503", "ok"]  # retried as a conversation
    for entry in server.log:
        assert entry.path.endswith("/chat/completions")
        assert entry.messages == as_messages(TURNS)


def test_a_completion_model_takes_one_text_only() -> None:
    model = OpenAICompatModel("m", base_url="http://127.0.0.1:9/v1", mode="completion")
    assert not takes_messages(model) and isinstance(model, ChatModel)
    with pytest.raises(ConfigError, match="one prompt text"):
        asyncio.run(model.converse(TURNS, PARAMS))
    with pytest.raises(ConfigError, match="takes one prompt text"):
        asyncio.run(RetryingModel(model, FAST).converse(TURNS, PARAMS))
    for bad in ([], [("assistant", "Hi")], [("system", "x"), ("user", "y")]):
        with pytest.raises(ConfigError, match="conversation"):
            request_body("chat", "m", bad, PARAMS)
    reference = load_model("ref/oracle")
    assert not takes_messages(reference) and not takes_messages(PooledModel([reference]))


def test_the_cache_keeps_conversations_and_transcripts_apart() -> None:
    answers = {"".join(t for _, t in TURNS): "as messages", render_conversation(TURNS): "as text"}
    with FaultServer(answer=answers) as server, ResponseCache(":memory:") as cache:
        cached = CachedModel(OpenAICompatModel("m", base_url=server.url), cache)
        pooled = PooledModel([cached])
        assert takes_messages(cached) and takes_messages(pooled)

        async def ask() -> list[str]:
            try:
                return [
                    (await pooled.converse(TURNS, PARAMS)).text,
                    (await cached.generate(render_conversation(TURNS), PARAMS)).text,
                    (await cached.converse(TURNS, PARAMS)).text,
                ]
            finally:
                await pooled.aclose()

        assert asyncio.run(ask()) == ["as messages", "as text", "as messages"]
        assert cache.count() == 2 and cached.made == 2 and cached.reused == 1
    assert len(server.log) == 2
    assert server.log[0].messages == as_messages(TURNS)
    assert server.log[1].messages == [{"role": "user", "content": render_conversation(TURNS)}]
    assert conversation_key(TURNS) != render_conversation(TURNS)
