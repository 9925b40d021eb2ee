"""Hostile bytes from a server end as the failure of one request, never as a crash.

Every reply comes from a real HTTP server on 127.0.0.1 (:mod:`rawserver`): JSON nested
past the bound (in the answer, the error body or ``usage``), a lone surrogate, an
answer of 1 GB, gzip bombs. ``eval`` stores each as a failed request, and a second
run over the same store (a resume) does not crash either.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import sqlite3
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from tests.support.rawserver import Raw, RawServer, chat_reply
from twosat_formal.errors import EvaluationError, TransientModelError
from twosat_formal.evaluate.models.base import SamplingParams
from twosat_formal.evaluate.models.bounded import (
    MAX_REPLY_BYTES,
    MAX_REPLY_DEPTH,
    inflate,
    json_depth,
    load_reply,
)
from twosat_formal.evaluate.models.openai_compat import OpenAICompatModel, parse_reply

DEEP = 1_001  # deeper than Python's own recursion limit


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def ok(content: str = "The answer is: Yes", **extra: Any) -> Raw:
    return Raw(200, json.dumps(chat_reply(content, **extra)).encode())


def deep_answer() -> Raw:
    body = '{"choices": [{"message": {"content": ' + nested(DEEP) + '}, "finish_reason": "stop"}]}'
    return Raw(200, body.encode())


def deep_usage() -> Raw:
    reply = json.dumps(chat_reply())
    return Raw(200, (reply[:-1] + ', "usage": ' + nested(DEEP) + "}").encode())


def deep_error() -> Raw:
    return Raw(500, ('{"error": ' + nested(DEEP) + "}").encode())


def surrogate() -> Raw:
    return Raw(
        200, b'{"choices": [{"message": {"content": "Yes \\ud800"}, "finish_reason": "stop"}]}'
    )


def surrogate_reasoning() -> Raw:
    """A right answer whose reasoning (sent beside it) holds a lone surrogate."""
    message = b'{"content": "The answer is: Yes", "reasoning_content": "A, so \\ud800"}'
    return Raw(200, b'{"choices": [{"message": ' + message + b', "finish_reason": "stop"}]}')


def surrogate_error() -> Raw:
    return Raw(400, b'{"error": {"message": "bad \\udfff request"}}')


def content_twice() -> Raw:
    """A reply whose message holds ``content`` twice: which copy is the answer?"""
    message = b'{"content": "The answer is: Yes", "content": "The answer is: No"}'
    return Raw(200, b'{"choices": [{"message": ' + message + b', "finish_reason": "stop"}]}')


def choices_twice() -> Raw:
    reply = json.dumps(chat_reply("The answer is: Yes"))
    return Raw(200, (reply[:-1] + ', "choices": []}').encode())


def with_field(text: str) -> Callable[[], Raw]:
    """A good reply with one more field holding the JSON-like ``text`` (json.loads takes
    ``NaN`` and ``1e999``, which no JSON writer writes)."""
    reply = json.dumps(chat_reply("The answer is: Yes"))
    return lambda: Raw(200, (reply[:-1] + f', "extra": [1, {text}]}}').encode())


def huge_answer() -> Raw:
    """An answer of 1 GiB, declared and streamed (the server holds 1 MiB of it)."""
    head = b'{"choices": [{"message": {"content": "'
    tail = b'"}, "finish_reason": "stop"}]}'
    block = b"a" * (1 << 20)

    def chunks() -> Iterator[bytes]:
        yield head
        for _ in range(1024):
            yield block
        yield tail

    return Raw(200, chunks(), length=len(head) + 1024 * len(block) + len(tail))


def gzip_bomb(size: int) -> bytes:
    """``size`` zero bytes in one gzip member, compressed a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(size >> 20)]
    return b"".join([*parts, packer.flush()])


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_bomb(256 << 20)


def always(reply: Raw) -> Callable[[str, Any], Raw]:
    """A server's reply function that answers ``reply`` to every request."""
    return lambda path, body: reply


def generate(url: str, **options: Any) -> Any:
    async def go() -> Any:
        model = OpenAICompatModel("m", base_url=url, **options)
        try:
            return await model.generate("Hi", SamplingParams(max_tokens=8))
        finally:
            await model.aclose()

    return asyncio.run(go())


HOSTILE = {
    "deep answer": (deep_answer, "levels deep (at most 64)"),
    "deep usage": (deep_usage, "levels deep (at most 64)"),
    "deep error body": (deep_error, "HTTP 500"),
    "lone surrogate": (surrogate, "half a surrogate pair"),
    "surrogate in the reasoning": (surrogate_reasoning, "half a surrogate pair"),
    "content twice": (content_twice, "malformed reply: the key 'content' appears twice"),
    "choices twice": (choices_twice, "malformed reply: the key 'choices' appears twice"),
    "NaN": (with_field("NaN"), "malformed reply: NaN is not a JSON number"),
    "a number beyond a double": (
        with_field("-1e999"),
        "malformed reply: the number -1e999 is beyond the range of a double",
    ),
    "surrogate in an error": (surrogate_error, "bad \\udfff request"),
    "1 GB answer": (huge_answer, "reply too large"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_reply_fails_that_request_with_a_clear_error(case: str) -> None:
    make, expected = HOSTILE[case]
    with RawServer(lambda path, body: make()) as server, pytest.raises(EvaluationError) as info:
        generate(server.url)
    assert expected in str(info.value)
    str(info.value).encode("utf-8")  # printable and storable


def test_a_deep_error_body_is_a_transient_failure_shown_as_text() -> None:
    with (
        RawServer(lambda path, body: deep_error()) as server,
        pytest.raises(TransientModelError) as info,
    ):
        generate(server.url)
    assert "[[[[" in str(info.value) and len(str(info.value)) < 500


@pytest.mark.slow
def test_a_gzip_bomb_stops_at_the_bound(bomb: bytes) -> None:
    too_large = "reply too large: more than 16 MiB decompressed"
    reply = Raw(200, bomb, {"Content-Encoding": "gzip"})
    with (
        RawServer(lambda path, body: reply) as server,
        pytest.raises(EvaluationError, match=too_large),
    ):
        generate(server.url)


def test_a_compressed_reply_is_read() -> None:
    body = json.dumps(chat_reply("The answer is: No")).encode()
    for reply in (
        Raw(200, gzip.compress(body), {"Content-Encoding": "gzip"}),
        Raw(200, zlib.compress(body), {"Content-Encoding": "deflate"}),
    ):
        with RawServer(always(reply)) as server:
            assert generate(server.url).text == "The answer is: No"


@pytest.mark.parametrize(
    ("coding", "data", "message"),
    [
        ("br", b"\x00", "unsupported Content-Encoding 'br'"),
        ("gzip", b"not gzip at all", "corrupt"),
        ("gzip", gzip.compress(b"{}", mtime=0)[:-4], "cut short"),
        ("gzip", gzip.compress(b"{}", mtime=0) * 2, "data after the end"),
    ],
)
def test_a_broken_compressed_reply_fails_that_request(
    coding: str, data: bytes, message: str
) -> None:
    reply = Raw(200, data, {"Content-Encoding": coding})
    with RawServer(lambda path, _: reply) as server, pytest.raises(EvaluationError, match=message):
        generate(server.url)


def test_inflating_a_bomb_holds_at_most_the_bound(bomb: bytes) -> None:
    limit = 4 << 20
    tracemalloc.start()
    try:
        with pytest.raises(EvaluationError, match="more than 4 MiB decompressed"):
            inflate([bomb], limit)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * limit + len(bomb) + (1 << 20)


def test_a_reply_just_under_the_bound_is_read() -> None:
    content = "a" * (MAX_REPLY_BYTES - 200)
    reply = ok(content)
    assert isinstance(reply.body, bytes) and len(reply.body) <= MAX_REPLY_BYTES
    with RawServer(lambda path, _: reply) as server:
        assert generate(server.url).text == content
        with pytest.raises(EvaluationError, match="reply too large"):
            generate(server.url, max_reply_bytes=len(reply.body) - 1)


def test_json_at_the_depth_bound_is_read_and_one_deeper_is_not() -> None:
    assert load_reply(nested(MAX_REPLY_DEPTH).encode()) is not None
    with pytest.raises(EvaluationError, match="nested 65 levels deep"):
        load_reply(nested(MAX_REPLY_DEPTH + 1).encode())
    with pytest.raises(EvaluationError, match="nested 10000 levels deep"):
        load_reply(('{"a": ' * 10_000 + "1" + "}" * 10_000).encode())


def reference_depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((reference_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((reference_depth(v) for v in value), default=0)
    return 0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\n\u00e9'),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=30,
)


@given(JSON, st.booleans())
def test_the_depth_scan_agrees_with_the_decoded_value(value: object, ascii: bool) -> None:
    raw = json.dumps(value, ensure_ascii=ascii).encode("utf-8")
    assert json_depth(raw) == reference_depth(value)


@given(st.one_of(st.binary(max_size=40), JSON.map(lambda v: json.dumps(v).encode("utf-8"))))
def test_any_body_is_read_as_json_or_refused_as_a_malformed_reply(raw: bytes) -> None:
    """Bytes that are no UTF-8 (a surrogate's three bytes among them) or no JSON are a
    malformed reply, with a preview of the body; JSON is read as Python reads it."""
    try:
        value = load_reply(raw)
    except EvaluationError as error:
        assert str(error).startswith("malformed reply: "), error
        try:
            json.loads(raw.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError among them
            assert "the body is not JSON (" in str(error), error
        return
    assert value == json.loads(raw)


def test_the_bytes_of_a_lone_surrogate_are_no_json() -> None:
    with pytest.raises(EvaluationError, match=r"the body is not JSON \('\{"):
        load_reply(b'{"a": "\xed\xa0\x80"}')


def store_rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return list(db.execute("SELECT failure, error FROM results"))


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_eval_stores_a_hostile_reply_as_a_failed_request_and_resumes(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, expected = HOSTILE[case]
    prompts, dataset = write_inputs(tmp_path, make_items(2, seed=3))
    store = tmp_path / "runs.sqlite"
    args = [
        "eval", str(prompts), "--dataset", str(dataset), "-m", "openai/m", "--store", str(store),
        "--no-progress", "--max-attempts", "1",
    ]  # fmt: skip
    with RawServer(lambda path, body: make()) as server:
        for again in ((), ("--retry-errors",)):  # the second run asks the failures again
            code, out, err = cli(capsys, *args, "--base-url", server.url, *again)
            assert code == 3, (code, out, err)
            assert "Traceback" not in err and expected in out + err, (out, err)
        code, out, err = cli(capsys, *args, "--base-url", server.url)  # a resume
        assert code == 0 and "2 already stored" in out, (code, out, err)
    rows = store_rows(store)
    assert len(rows) == 2 and all(expected in str(error) for _, error in rows), rows


@pytest.mark.slow
def test_a_bomb_of_two_gib_of_zeros_stops_at_the_bound() -> None:
    """The issue's case: 2 GiB of zeros, about 2 MB gzipped, over real HTTP."""
    reply = Raw(200, gzip_bomb(2 << 30), {"Content-Encoding": "gzip"})
    with (
        RawServer(always(reply)) as server,
        pytest.raises(EvaluationError, match="reply too large: more than 16 MiB decompressed"),
    ):
        generate(server.url)


#: SQLite's INTEGER is a signed 64-bit number: the largest token count a store holds.
LARGEST_COUNT = 2**63 - 1


def with_usage(usage: object) -> dict[str, Any]:
    return chat_reply("The answer is: Yes", usage=usage)


@given(
    value=st.one_of(
        st.integers(),
        st.sampled_from([-1, 0, LARGEST_COUNT, LARGEST_COUNT + 1, 10**30]),
        st.floats(allow_nan=False),
        st.booleans(),
        st.text(max_size=4),
        st.none(),
    )
)
def test_a_usage_figure_is_read_as_a_count_the_store_holds_or_as_unreported(
    value: object,
) -> None:
    usage = {"prompt_tokens": value, "completion_tokens": value}
    response = parse_reply("chat", json.loads(json.dumps(with_usage(usage))))
    is_count = isinstance(value, int) and not isinstance(value, bool)
    expected = value if is_count and 0 <= value <= LARGEST_COUNT else None  # type: ignore[operator]
    assert response.prompt_tokens == expected and response.completion_tokens == expected
    assert response.text == "The answer is: Yes"


@pytest.mark.parametrize(
    "count",
    [-5, LARGEST_COUNT + 1, 10**30, 10**4000],
    ids=["negative", "2^63", "10^30", "4001 digits"],
)
def test_eval_stores_an_answer_whose_usage_is_no_count_without_its_counts(
    count: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A usage figure outside what a store holds is no count: the answer is stored, its
    counts null, and the run (and a resume) ends normally."""
    prompts, dataset = write_inputs(tmp_path, make_items(2, seed=3))
    store = tmp_path / "runs.sqlite"
    usage = b'{"prompt_tokens": %d, "completion_tokens": 7}' % count
    reply = json.dumps(chat_reply("The answer is: No")).encode()
    body = reply[:-1] + b', "usage": ' + usage + b"}"
    args = [
        "eval", str(prompts), "--dataset", str(dataset), "-m", "openai/m", "--store", str(store),
        "--no-progress", "--max-attempts", "1",
    ]  # fmt: skip
    with RawServer(always(Raw(200, body))) as server:
        for done in ("2 done now", "2 already stored"):
            code, out, err = cli(capsys, *args, "--base-url", server.url)
            assert code == 0 and done in out and "Traceback" not in err, (code, out, err)
    with sqlite3.connect(store) as db:
        rows = list(db.execute("SELECT prompt_tokens, completion_tokens, response FROM results"))
    assert rows == [(None, 7, "The answer is: No")] * 2
