"""Secrets in a base URL are sent where they belong and never stored, logged or shown."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from tests.support.faultserver import FaultServer
from twosat_formal.core.model import join_url, public_endpoint, redact_url
from twosat_formal.errors import EvaluationError
from twosat_formal.evaluate.models.base import SamplingParams
from twosat_formal.evaluate.models.openai_compat import OpenAICompatModel

SECRET = "sk-SECRET-42"


def answer(prompt: str) -> str:
    return "The answer is: No"


def generate(model: OpenAICompatModel) -> object:
    async def go() -> object:
        try:
            return await model.generate("Hi", SamplingParams(max_tokens=8))
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_the_query_is_kept_at_the_end_of_the_request_url() -> None:
    with FaultServer(answer=answer) as server:
        model = OpenAICompatModel("m", base_url=f"{server.url}?key={SECRET}")
        generate(model)
        assert server.log[0].path == f"/v1/chat/completions?key={SECRET}"
        assert SECRET not in model.base_url and SECRET not in model.endpoint
        assert SECRET not in repr(model)


def test_user_information_is_sent_as_credentials_and_never_shown() -> None:
    with FaultServer(answer=answer) as server:
        url = server.url.replace("http://", f"http://user:{SECRET}@")
        model = OpenAICompatModel("m", base_url=url, send_key=False)
        generate(model)
        assert server.log[0].authorization is not None
        assert server.log[0].authorization.startswith("Basic ")
        assert SECRET not in model.endpoint


def test_an_error_that_echoes_the_url_is_redacted() -> None:
    with FaultServer(plan=["404"], answer=answer) as server:
        model = OpenAICompatModel("m", base_url=f"{server.url}?key={SECRET}")
        with pytest.raises(EvaluationError) as info:
            generate(model)
        assert "no such model at" in str(info.value) and SECRET not in str(info.value)
        assert SECRET in server.log[0].path  # it was sent


def test_eval_never_writes_the_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompts, dataset = write_inputs(tmp_path, make_items(3, seed=2))
    store = tmp_path / "runs.sqlite"
    with FaultServer(answer=answer) as server:
        for base in (
            f"{server.url}?key={SECRET}",
            server.url.replace("/v1", "/x") + f"?k={SECRET}",
        ):
            code, out, err = cli(
                capsys,
                "eval",
                str(prompts),
                "--dataset",
                str(dataset),
                "-m",
                "openai/m",
                "--base-url",
                base,
                "--store",
                str(store),
                "--no-progress",
            )
            assert SECRET not in out + err, (code, out, err)
    for path in tmp_path.iterdir():
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(
    "url",
    [
        f"https://user:{SECRET}@example.org/v1/?key={SECRET}#{SECRET}",
        f"http://{SECRET}@127.0.0.1:9/v1?token={SECRET}",
        f"http://[::1]:8080/v1?{SECRET}",
    ],
)
def test_one_function_strips_every_secret(url: str) -> None:
    assert SECRET not in public_endpoint(url)
    assert SECRET not in redact_url(f"error at {url}", url)
    assert join_url(url, "completions").count(SECRET) == url.count(SECRET)
