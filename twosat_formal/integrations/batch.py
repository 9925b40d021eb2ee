"""OpenAI Batch API request files: ask every prompt through a batch job.

Each line is one request, one per prompt text (prompts with one text are one request,
as ``eval`` asks them): ``custom_id`` (the first such prompt's id, ``PROMPT_ID#K`` for sample
``K > 0``), ``method`` ``POST``, ``url`` ``/v1/chat/completions`` (or
``/v1/completions``) and ``body``, the same JSON body ``eval`` posts (messages, token
budget and the sampling parameters that are set; a set seed is sent as ``seed + K``).
vLLM's offline batch runner (``python -m vllm.entrypoints.openai.run_batch``) reads
the same lines. The output file of the batch goes to ``twosat-formal score``.

The model is given as the id the API serves (``gpt-4o-mini``) or as an ``openai/``
spec (:func:`batch_model`): ``openai/gpt-4o-mini?max_tokens=100&temperature=0`` writes
``"model": "gpt-4o-mini"`` and puts the spec's options into each body, as ``eval``
sends them. An id the API would refuse (empty, with spaces or control characters, a
``?`` or ``#`` left over) is refused before anything is written.

:func:`write_batch` writes the lines, split into numbered parts
(``requests.part1.jsonl``, ``requests.part2.jsonl``...) when they exceed the Batch
API's limits of a file (:data:`MAX_REQUESTS` requests, :data:`MAX_BYTES` bytes).

Examples
--------
>>> from twosat_formal.evaluate.run import EvalPrompt
>>> from twosat_formal.evaluate.models.base import SamplingParams
>>> prompt = EvalPrompt("p1", "i1", "logic", "Is A true?", {"A": "x1"}, "true", "false")
>>> rows = list(batch_requests([prompt], "gpt-4o-mini", SamplingParams(max_tokens=64),
...                            samples=2))
>>> [row["custom_id"] for row in rows], rows[0]["url"]
(['p1', 'p1#1'], '/v1/chat/completions')
>>> rows[0]["body"]
{'model': 'gpt-4o-mini', 'messages': [{'role': 'user', 'content': 'Is A true?'}], \
'max_tokens': 64}
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Protocol

from twosat_formal._util.atomic import atomic_output, stream_target, write_target
from twosat_formal.core.model import DEFAULT_MODE
from twosat_formal.core.params import COUNT, Rule, check, rules_table
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models import MODELS, parse_spec
from twosat_formal.evaluate.models.base import SamplingParams, sampling_for
from twosat_formal.evaluate.models.openai_compat import UNKNOWN_MODE_RULE, request_body
from twosat_formal.integrations.answers import custom_id
from twosat_formal.io.jsonl import json_line

__all__ = [
    "ENDPOINTS",
    "MAX_BYTES",
    "MAX_REQUESTS",
    "OPTION_RULES",
    "batch_model",
    "batch_requests",
    "part_paths",
    "write_batch",
]

#: The request URL of each mode.
ENDPOINTS: dict[str, str] = {"chat": "/v1/chat/completions", "completion": "/v1/completions"}
#: The most requests one Batch API input file may hold.
MAX_REQUESTS = 50_000
#: The largest Batch API input file, in bytes (200 MB).
MAX_BYTES = 200 * 1024 * 1024
#: What a model id may not hold: white space, control characters, ``?``, ``#``, quotes.
_BAD_ID = re.compile(r"[\s\x00-\x1f\x7f?#\"\\]")
#: The spec prefix of OpenAI-compatible APIs.
_OPENAI = "openai"


#: The rules of the options of :func:`batch_requests` and :func:`write_batch`.
OPTION_RULES: dict[str, Rule] = {
    "samples": COUNT,
    "mode": UNKNOWN_MODE_RULE,
    "max_requests": COUNT,
    "max_bytes": COUNT,
}
_OPTIONS = rules_table("batch options", OPTION_RULES)


def batch_model(spec: str, params: SamplingParams, mode: str) -> tuple[str, SamplingParams, str]:
    """The model id, sampling parameters and mode of the requests for ``spec``.

    ``spec`` is the id the API serves, or an ``openai/<id>`` spec whose options
    (sampling options, ``mode``) override ``params`` and ``mode``.

    Raises
    ------
    ConfigError
        A spec of another kind (``ref/oracle``), bad options, or an id the API would
        refuse.

    Examples
    --------
    >>> model, params, mode = batch_model(
    ...     "openai/gpt-4o-mini?max_tokens=100&temperature=0", SamplingParams(), "chat")
    >>> model, params.max_tokens, params.temperature, mode
    ('gpt-4o-mini', 100, 0.0, 'chat')
    >>> batch_model("gpt 4o", SamplingParams(), "chat")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: model id 'gpt 4o' holds ' ', which the API refuses
    """
    body, question, query = spec.partition("?")
    prefix = body.partition("/")[0]
    if prefix in MODELS or body in MODELS:
        name, model_id, options = parse_spec(spec)
        if name != _OPENAI:
            raise ConfigError(
                f"batch requests go to an OpenAI-compatible API, and {spec!r} is not one",
                parameter="model",
                valid="openai/<model-id> or the bare model id",
            )
        mode = options.get("mode", mode)
        params = sampling_for(spec, params)
    elif question:
        raise ConfigError(
            f"model id {spec!r} holds a '?': options go after an openai/ spec "
            f"(openai/{body}?{query})",
            parameter="model",
            valid="openai/<model-id>?key=value or the bare model id",
        )
    else:
        model_id = spec
    if not model_id:
        raise ConfigError("give the model id the batch is for", parameter="model")
    bad = _BAD_ID.search(model_id)
    if bad is not None:
        raise ConfigError(
            f"model id {model_id!r} holds {bad.group()!r}, which the API refuses",
            parameter="model",
            valid="the model id the API serves (gpt-4o-mini)",
        )
    return model_id, params, mode


class _Prompt(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...


def batch_requests(
    prompts: Iterable[_Prompt],
    model: str,
    params: SamplingParams,
    *,
    samples: int = 1,
    mode: str = DEFAULT_MODE,
) -> Iterator[dict[str, Any]]:
    """One Batch API request line per prompt text and sample, in prompt order (lazily).

    Prompts with one text (small instances verbalized alike) are one request, as
    ``eval`` asks them once: its ``custom_id`` is the first such prompt's id, and
    ``score`` gives its answer to every prompt with that text.

    The arguments are checked at once, before any line is made.

    Parameters
    ----------
    prompts:
        Records with an ``id`` and the full ``text`` (template or story prompts).
    model:
        The model id the API serves (``gpt-4o-mini``) or an ``openai/`` spec
        (:func:`batch_model`).
    params:
        The sampling parameters of every request (a spec's options override them).
    samples:
        Requests per prompt (sample indices ``0 .. samples - 1``).
    mode:
        ``"chat"`` (messages) or ``"completion"`` (raw prompt).
    """
    check(_OPTIONS, OPTION_RULES, {"samples": samples})
    model_id, params, mode = batch_model(model, params, mode)
    check(_OPTIONS, OPTION_RULES, {"mode": mode})
    return _rows(prompts, model_id, params, samples, mode)


def _rows(
    prompts: Iterable[_Prompt], model: str, params: SamplingParams, samples: int, mode: str
) -> Iterator[dict[str, Any]]:
    asked: set[str] = set()
    for prompt in prompts:
        if prompt.text in asked:  # one text is one request, as eval asks it
            continue
        asked.add(prompt.text)
        for sample in range(samples):
            yield {
                "custom_id": custom_id(prompt.id, sample),
                "method": "POST",
                "url": ENDPOINTS[mode],
                "body": request_body(mode, model, prompt.text, params, sample),
            }


def part_paths(out: str | Path, parts: int) -> list[Path]:
    """The files of a request file split in ``parts``: ``out`` itself for one part,
    else ``<stem>.part<N><suffix>`` beside it.

    >>> [p.name for p in part_paths("requests.jsonl", 2)]
    ['requests.part1.jsonl', 'requests.part2.jsonl']
    """
    out = Path(out)
    if parts == 1:
        return [out]
    return [out.with_name(f"{out.stem}.part{n}{out.suffix}") for n in range(1, parts + 1)]


def _request_bytes(row: dict[str, Any], max_bytes: int) -> bytes:
    """A request line's bytes; one longer than a file may hold is a :class:`ConfigError`."""
    data = (json_line(row) + "\n").encode("utf-8")
    if len(data) > max_bytes:
        raise ConfigError(
            f"request {row.get('custom_id')!r} takes {len(data)} bytes, more than a "
            f"file may hold ({max_bytes})",
            parameter="max_bytes",
        )
    return data


def _write_stream(rows: Iterable[dict[str, Any]], out: str | Path, max_bytes: int) -> int:
    """Write every request line to the stream ``out`` (not split: a device has no
    parts); the number of lines."""
    count = 0
    with atomic_output(out) as stream:
        for row in rows:
            stream.write(_request_bytes(row, max_bytes).decode("utf-8"))
            count += 1
    return count


def write_batch(
    rows: Iterable[dict[str, Any]],
    out: str | Path,
    *,
    max_requests: int = MAX_REQUESTS,
    max_bytes: int = MAX_BYTES,
) -> list[tuple[Path, int]]:
    """Write request lines to ``out``, split into numbered parts where they exceed a
    file's limits (:func:`part_paths`); the files and their request counts.

    Each part holds at most ``max_requests`` lines and ``max_bytes`` bytes. The parts
    are written beside their targets and renamed into place once every line is
    written, so a failure leaves no file behind. A device, pipe or descriptor
    (``/dev/null``, ``/dev/stdout``) is written in place as one stream, never split
    nor replaced; a symbolic link is written through.

    Raises
    ------
    ConfigError
        A limit below 1, or a single request longer than ``max_bytes``.
    """
    check(_OPTIONS, OPTION_RULES, {"max_requests": max_requests, "max_bytes": max_bytes})
    if stream_target(out):  # a device, pipe or descriptor: one stream, written in place
        return [(Path(out), _write_stream(rows, out, max_bytes))]
    out = write_target(out)  # a symbolic link is written through, never replaced
    counts = _write_parts(_lines_by_part(rows, max_requests, max_bytes), out)
    paths = part_paths(out, len(counts))
    _place([_temp(out, part) for part in range(1, len(counts) + 1)], paths)
    return list(zip(paths, counts, strict=True))


def _lines_by_part(
    rows: Iterable[dict[str, Any]], max_requests: int, max_bytes: int
) -> Iterator[tuple[int, bytes]]:
    """Each request line's bytes with the part (1, 2...) it falls in: a part is full
    at ``max_requests`` lines or where the next line would pass ``max_bytes``."""
    part, count, size = 0, max_requests, 0
    for row in rows:
        data = _request_bytes(row, max_bytes)
        if count == max_requests or size + len(data) > max_bytes:
            part, count, size = part + 1, 0, 0
        count += 1
        size += len(data)
        yield part, data


def _temp(out: Path, part: int) -> Path:
    """The temporary file part ``part`` of ``out`` is written to."""
    return out.with_name(f".{out.name}.{part}.{os.getpid()}.tmp")


def _write_parts(lines: Iterable[tuple[int, bytes]], out: Path) -> list[int]:
    """Write the lines of each part to its temporary file (:func:`_temp`); the number of
    lines of each part. No line writes one empty part; a failure leaves no file."""
    counts: list[int] = []
    stream: IO[bytes] | None = None
    try:
        for part, data in lines:
            if part > len(counts):
                _close(stream)
                stream = open(_temp(out, part), "wb")  # noqa: SIM115  (closed when full)
                counts.append(0)
            assert stream is not None
            stream.write(data)
            counts[-1] += 1
        if stream is None:  # no request: one empty file
            _temp(out, 1).write_bytes(b"")
            counts.append(0)
    except BaseException:
        _close(stream)
        for part in range(1, len(counts) + 1):
            _temp(out, part).unlink(missing_ok=True)
        raise
    _close(stream)
    return counts


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        stream.close()


def _place(temps: list[Path], paths: list[Path]) -> None:
    """Rename each temporary part into place; stopped half-way (SIGTERM), no part and no
    temporary file is left."""
    placed: list[Path] = []
    try:
        for temp, path in zip(temps, paths, strict=True):
            os.replace(temp, path)
            placed.append(path)
    except BaseException:
        for leftover in [*temps, *placed]:
            leftover.unlink(missing_ok=True)
        raise
