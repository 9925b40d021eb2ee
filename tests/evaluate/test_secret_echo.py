"""Secrets the tool knows are masked in all it prints or stores, text the server sent included.

A real server on 127.0.0.1 (:mod:`rawserver`) echoes the API key and the request URL,
whose query holds a key with characters that travel percent-escaped (``/`` as
``%2F``), in the body of a 400, 401 and 500 and in an answer; ``eval`` runs against
it, and neither the store, nor the ``--json`` summary, nor stderr holds the key in
any form.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.evaluate.test_evaluate import make_items, write_inputs
from tests.support.cli import cli
from tests.support.rawserver import Raw, RawServer, chat_reply
from twosat_formal.core.model import SecretMask
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import parse_spec
from twosat_formal.evaluate.run.limits import split_limits

KEY = "sk-live/Abc+123=xyz"
URL_KEY = "qk/987+654=uvw"


def forms(secret: str) -> list[str]:
    """The forms checked for: as is, percent-escaped both ways, JSON-escaped."""
    return [
        secret,
        quote(secret, safe=""),
        re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(secret, safe="")),
        quote_plus(secret, safe=""),
        json.dumps(secret)[1:-1].replace("/", "\\/"),
    ]


def echo(status: int) -> Any:
    def reply(path: str, body: Any) -> Raw:
        message = f"bad key {KEY} ({quote(KEY, safe='')}) at {path}, json {json.dumps(KEY)}"
        if status == 200:
            return Raw(200, json.dumps(chat_reply(f"The answer is: Yes. {message}")).encode())
        return Raw(status, json.dumps({"error": {"message": message}}).encode())

    return reply


def leaks(text: str | bytes) -> list[str]:
    data = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    found = [form for secret in (KEY, URL_KEY) for form in forms(secret) if form in data]
    return found + [secret for secret in (KEY, URL_KEY) if secret in unquote(data)]


@pytest.mark.parametrize("status", [200, 400, 401, 500])
def test_eval_masks_a_key_the_server_echoes(
    status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    prompts, dataset = write_inputs(tmp_path, make_items(2, seed=4))
    store = tmp_path / "runs.sqlite"
    with RawServer(echo(status)) as server:
        code, out, err = cli(
            capsys,
            "eval", str(prompts), "--dataset", str(dataset), "-m", "openai/m",
            "--base-url", f"{server.url}?key={quote(URL_KEY, safe='')}",
            "--store", str(store), "--no-progress", "--max-attempts", "1", "--json",
        )  # fmt: skip
        assert all(URL_KEY in unquote(path) for path in server.paths)  # sent, and echoed
    assert code in (0, 2, 3), (code, out, err)
    assert "***" in out + err + store.read_bytes().decode("utf-8", "replace")
    assert not leaks(out) and not leaks(err), (out, err)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert not leaks(path.read_bytes()), path


def test_a_secret_in_a_spec_option_is_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    for spec in (
        f"openai/m?api_key={KEY}",
        f"openai/m?{KEY}",
        f"gpt-4o?api_key={KEY}",
        f"openai?api_key={KEY}",  # no model after openai/
        f"llamacpp?{KEY}",
        f"openai/m?api_key={KEY}&rpm=x",  # a bad limit beside the secret
        f"openai/m?api_key={KEY}&rpm=1&rpm=2",
    ):
        code, out, err = cli(capsys, "eval", "-", "-m", spec)
        assert code == 2 and not leaks(out + err), (spec, out, err)
        assert err.startswith("error:") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "spec",
    [f"openai?api_key={KEY}", f"llamacpp/?{KEY}", f"openai/m?api_key={KEY}&concurrency=0"],
)
def test_the_spec_readers_mask_a_secret_in_their_errors(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        split_limits(spec)  # then parse_spec (canonical_spec), as evaluate reads a spec
    assert "***" in str(caught.value) and not leaks(str(caught.value)), caught.value
    with pytest.raises(ConfigError) as caught:
        parse_spec(spec)
    assert not leaks(str(caught.value)), caught.value


def test_every_form_of_a_secret_is_masked() -> None:
    mask = SecretMask([KEY])
    for form in forms(KEY):
        assert mask(f"x {form} y") == "x *** y", form


SECRETS = st.text(
    alphabet=st.characters(codec="utf-8", blacklist_characters="\0"),
    min_size=1,
    max_size=24,
)


@given(SECRETS, st.data())
def test_a_secret_echoed_with_any_mix_of_escapes_is_masked(
    secret: str, data: st.DataObject
) -> None:
    echoed = ""
    for char in secret:
        how = data.draw(st.sampled_from(["plain", "upper", "lower"]))
        if how == "plain":
            echoed += char
        else:
            escaped = "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
            echoed += escaped if how == "upper" else escaped.lower()
    assert SecretMask([secret])(f"\0{echoed}\0") == "\0***\0"
