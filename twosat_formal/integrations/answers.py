"""Answers produced elsewhere, read from the files the tools that made them write.

Three JSON Lines forms are read, one decided per line, so a file may mix them:

* **plain rows**: ``prompt_id``, ``response`` (the answer text, or ``null`` with an
  ``error``), and optionally ``finish_reason``, ``model``, ``sample``,
  ``prompt_tokens``, ``completion_tokens``, ``latency_s``, ``reasoning`` (so the rows
  ``results`` writes are plain rows too);
* **OpenAI Batch API output** (also vLLM's ``run_batch``): ``custom_id`` is the prompt
  id (``PROMPT_ID#K`` for sample ``K``, as :mod:`~twosat_formal.integrations.batch`
  writes it), ``response.body`` a chat or text completion or a Responses API reply
  (``output[].content[].text``); a line with an ``error`` or a status code other than
  200 is a failed request (failure kind ``error``), and so is a reply body that is not
  the shape the API promises (its error names the line), as ``eval`` stores a bad
  reply. The model is ``openai/<the served model>``; a failed request, whose line names
  no model, belongs to the model the file's other lines name (the batch's own model);
* **lm-eval** ``--log_samples`` output (``samples_<task>_<date>.jsonl``): ``doc.id`` is
  the prompt id and ``resps[0]`` the answers, one per repeat (sample ``K`` is the
  ``K``-th); the model is the ``model_name`` of the run's results file
  (``results_<date>.json`` beside it, :func:`lm_eval_model_name`), else the name of
  the folder lm-eval wrote the file into.

Each form's fields are read through its pydantic model (:class:`PlainAnswerRow`,
:class:`BatchAnswerLine`, :class:`LmEvalSample`) by
:func:`~twosat_formal.core.records.read_record`, strictly, as records are: an error
names the file, the line and the field (``a.jsonl:3: field 'sample' must be an
integer, not string``).

Examples
--------
>>> import io
>>> lines = [
...     '{"prompt_id": "p1", "response": "The answer is: No", "model": "m"}',
...     '{"custom_id": "p2#1", "response": {"status_code": 200, "body": {"model": "gpt",'
...     ' "choices": [{"message": {"content": "Yes"}, "finish_reason": "length"}]}}}',
...     '{"doc": {"id": "p3"}, "resps": [["No", "Yes"]], "filter": "none"}',
... ]
>>> for a in read_answer_stream(io.StringIO("\\n".join(lines)), "<mem>", lm_eval_model="hf"):
...     print(a.prompt_id, a.sample, a.model, a.response.text, a.response.finish_reason)
p1 0 m The answer is: No None
p2 1 openai/gpt Yes length
p3 0 hf No None
p3 1 hf Yes None
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from twosat_formal.core.params import MAX_STORED, STORED_COUNT
from twosat_formal.core.records import read_record
from twosat_formal.errors import EvaluationError, RecordError
from twosat_formal.evaluate.models.base import Response
from twosat_formal.evaluate.models.openai_compat import parse_reply, parse_responses_reply
from twosat_formal.io.jsonl import read_json_file, read_stream, refuse_empty, stdin_input

__all__ = [
    "DEFAULT_MODEL",
    "FORMS",
    "SAMPLE_SEPARATOR",
    "BatchAnswerLine",
    "ExternalAnswer",
    "LmEvalSample",
    "PlainAnswerRow",
    "custom_id",
    "lm_eval_model_name",
    "read_answer_stream",
    "read_answers",
    "split_custom_id",
]

M = TypeVar("M", bound=BaseModel)

#: The forms of answer lines, by the name :attr:`ExternalAnswer.form` gives them.
FORMS: tuple[str, ...] = ("jsonl", "openai-batch", "lm-eval")
#: Between the prompt id and the sample index in a Batch API ``custom_id``.
SAMPLE_SEPARATOR = "#"
#: The model name of answers that do not say which model wrote them.
DEFAULT_MODEL = "external"


@dataclass(frozen=True)
class ExternalAnswer:
    """One answer (or failed request) produced elsewhere.

    ``response`` is ``None`` when the request failed, and then ``error`` says why.
    ``form`` is one of :data:`FORMS`; ``source`` and ``line`` say where it was read.
    """

    prompt_id: str
    sample: int
    model: str
    response: Response | None
    error: str | None = None
    form: str = "jsonl"
    source: str | None = None
    line: int | None = None


def custom_id(prompt_id: str, sample: int = 0) -> str:
    """The Batch API ``custom_id`` of a request: the prompt id, ``#K`` for sample K > 0.

    >>> custom_id("abc"), custom_id("abc", 2)
    ('abc', 'abc#2')
    """
    return prompt_id if sample == 0 else f"{prompt_id}{SAMPLE_SEPARATOR}{sample}"


def split_custom_id(value: str) -> tuple[str, int]:
    """The prompt id and sample index of a ``custom_id`` (inverse of :func:`custom_id`).

    >>> split_custom_id("abc#2"), split_custom_id("abc")
    (('abc', 2), ('abc', 0))
    """
    head, separator, tail = value.rpartition(SAMPLE_SEPARATOR)
    if separator and tail.isascii() and tail.isdigit() and head:
        return head, int(tail)
    return value, 0


@dataclass(frozen=True)
class _At:
    """Where an answer line was read: its errors name the file and the line."""

    source: str
    number: int

    def error(self, message: str) -> RecordError:
        """The error of this line."""
        return RecordError(message, line=self.number, source=self.source)

    def read(self, model: type[M], obj: Mapping[str, Any]) -> M:
        """``obj`` read through ``model`` (strictly; the error names the field)."""
        return read_record(model, obj, what="an answer line", line=self.number, source=self.source)


#: The fields of a plain row that a :class:`Response` holds besides the answer text.
_DETAILS = {"finish_reason", "prompt_tokens", "completion_tokens", "latency_s", "reasoning"}


class PlainAnswerRow(BaseModel):
    """A plain answer row, as read: each field is checked in this order, then the rule
    that a row without a response string has an ``error`` string (the failed request).

    >>> PlainAnswerRow.model_validate({"prompt_id": "p", "response": "Yes"}).answer("m")
    ExternalAnswer(prompt_id='p', sample=0, model='m', response=Response(text='Yes', \
finish_reason=None, prompt_tokens=None, completion_tokens=None, latency_s=None, \
reasoning=None), error=None, form='jsonl', source=None, line=None)
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    prompt_id: str
    response: str | None = None
    error: Any = None
    finish_reason: str | None = None
    prompt_tokens: STORED_COUNT | None = None
    completion_tokens: STORED_COUNT | None = None
    latency_s: Annotated[float, Field(ge=0)] | None = None
    reasoning: str | None = None
    model: str | None = None
    sample: STORED_COUNT | None = None

    @model_validator(mode="after")
    def _answer_or_error(self) -> Self:
        if self.response is None and not isinstance(self.error, str):
            raise ValueError("field 'response' must be a string (or null with an 'error' string)")
        return self

    def answer(self, model: str | None) -> ExternalAnswer:
        """The answer of this row (``model``, when given, names its model)."""
        name = model or self.model or DEFAULT_MODEL
        if self.response is None:
            return ExternalAnswer(self.prompt_id, self.sample or 0, name, None, self.error)
        details = self.model_dump(include=_DETAILS)  # the fields named as Response names them
        response = Response(self.response, **details)
        return ExternalAnswer(self.prompt_id, self.sample or 0, name, response)


class BatchAnswerLine(BaseModel):
    """An OpenAI Batch API output line, as read: its ``custom_id``, then the rule that a
    line holds a ``response`` object or an ``error`` (the API writes one of them on
    every line; a line with neither is no Batch API output, such as another service's
    batch results). The reply itself is read as the API's shapes, a failed request
    where it is not one.

    >>> BatchAnswerLine.model_validate({"custom_id": "p", "result": {}})
    Traceback (most recent call last):
    ...
    pydantic_core._pydantic_core.ValidationError: 1 validation error for BatchAnswerLine
      Value error, field 'response' must be an object (or null with an 'error') ...
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    custom_id: str
    response: Any = None
    error: Any = None

    @model_validator(mode="after")
    def _response_or_error(self) -> Self:
        if not isinstance(self.response, Mapping) and not self.error:
            raise ValueError("field 'response' must be an object (or null with an 'error')")
        return self


def _plain(obj: Mapping[str, Any], model: str | None, at: _At) -> Iterator[ExternalAnswer]:
    yield at.read(PlainAnswerRow, obj).answer(model)


def _batch_error(line: BatchAnswerLine) -> str | None:
    """Why a Batch API request failed (``None`` when it did not)."""
    error = line.error
    if error:
        if isinstance(error, Mapping):
            code, message = error.get("code"), error.get("message")
            return ": ".join(str(part) for part in (code, message) if part) or "request failed"
        return str(error)
    reply = line.response  # an object: BatchAnswerLine holds a line to it
    status = reply.get("status_code", 200)
    return None if status == 200 else _status_error(status, reply.get("body"))


def _status_error(status: Any, body: Any) -> str:
    """The error of a reply with a status code other than 200."""
    detail = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(detail, Mapping):
        detail = detail.get("message")
    return f"HTTP {status}" + (f": {detail}" if detail else "")


def _parse_body(body: Any) -> Response:
    """The answer of a Batch API reply body: a chat or text completion, or a Responses
    API reply (``output``)."""
    if isinstance(body, Mapping) and "output" in body and "choices" not in body:
        return parse_responses_reply(body)
    choices = body.get("choices") if isinstance(body, Mapping) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    mode = "chat" if isinstance(first, Mapping) and "message" in first else "completion"
    return parse_reply(mode, body)


def _batch(obj: Mapping[str, Any], model: str | None, at: _At) -> Iterator[ExternalAnswer]:
    """The answer of a Batch API output line; its model is ``""`` when neither ``model``
    nor the line names one (a failed request: :func:`read_answer_stream` gives it the
    batch's model)."""
    line = at.read(BatchAnswerLine, obj)
    prompt_id, sample = split_custom_id(line.custom_id)
    if sample > MAX_STORED:
        raise at.error(
            f"field 'custom_id' names sample {sample}, beyond {MAX_STORED} (the largest "
            "integer a store holds)"
        )
    error = _batch_error(line)
    body = line.response.get("body") if isinstance(line.response, Mapping) else None
    served = body.get("model") if isinstance(body, Mapping) else None
    name = model or (f"openai/{served}" if isinstance(served, str) and served else "")
    if error is None:
        try:
            response = _parse_body(body)
        except EvaluationError as exc:
            error = f"line {at.number}: {exc}"
        else:
            yield ExternalAnswer(prompt_id, sample, name, response, None, "openai-batch")
            return
    yield ExternalAnswer(prompt_id, sample, name, None, error, "openai-batch")


class _LmEvalDoc(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str


class LmEvalSample(BaseModel):
    """An lm-eval ``--log_samples`` line, as read: ``doc`` the exported row (its ``id``
    the prompt id), ``resps`` a non-empty list of lists of answers (the first one's
    answers are the samples)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    doc: _LmEvalDoc
    resps: Annotated[list[list[str]], Field(min_length=1)]


def _lm_eval(obj: Mapping[str, Any], model: str | None, at: _At) -> Iterator[ExternalAnswer]:
    line = at.read(LmEvalSample, obj)
    for sample, text in enumerate(line.resps[0]):
        yield ExternalAnswer(line.doc.id, sample, model or DEFAULT_MODEL, Response(text), None)


def _form(obj: Mapping[str, Any]) -> str:
    if "custom_id" in obj:
        return "openai-batch"
    if "resps" in obj and "doc" in obj:
        return "lm-eval"
    return "jsonl"


_READERS = {"jsonl": _plain, "openai-batch": _batch, "lm-eval": _lm_eval}


def read_answer_stream(
    stream: IO[str] | IO[bytes],
    source: str,
    *,
    model: str | None = None,
    lm_eval_model: str | None = None,
) -> Iterator[ExternalAnswer]:
    """The answers of a JSON Lines stream (see the module docstring for the forms).

    Parameters
    ----------
    model:
        The model name of every answer, overriding what the lines say.
    lm_eval_model:
        The model name of lm-eval lines when ``model`` is not given.

    A failed Batch API request (its line names no model) is given the model of the
    file's Batch API lines, once all are read: those answers come last.

    Raises
    ------
    RecordError
        A line that is not JSON or not one of the forms, with its line number; a failed
        Batch API request when the file's lines name no model or several.
    """
    unnamed: list[ExternalAnswer] = []  # failed batch requests, named at the end
    batch_models: dict[str, int | None] = {}  # model -> first line that names it
    for answer in _read_lines(stream, source, model, lm_eval_model):
        if answer.form == "openai-batch" and not answer.model:
            unnamed.append(answer)
            continue
        if answer.form == "openai-batch":
            batch_models.setdefault(answer.model, answer.line)
        yield answer
    if unnamed:
        owner = _batch_model(unnamed[0], batch_models, source)
        for answer in unnamed:
            yield dataclasses.replace(answer, model=owner)


def _read_lines(
    stream: IO[str] | IO[bytes], source: str, model: str | None, lm_eval_model: str | None
) -> Iterator[ExternalAnswer]:
    """The answers of each line, in order, with their form and where they were read;
    lm-eval lines of the first filter only (lm-eval writes one line per doc and filter)."""
    seen_filter: str | None = None
    for line in read_stream(stream, source):
        obj, at = line.value, _At(source, line.number)
        if not isinstance(obj, Mapping):
            raise at.error("an answer line must be a JSON object")
        form = _form(obj)
        if form == "lm-eval":
            key = str(obj.get("filter"))
            seen_filter = key if seen_filter is None else seen_filter
            if key != seen_filter:
                continue
        named = model if form != "lm-eval" else (model or lm_eval_model)
        for answer in _READERS[form](obj, named, at):
            yield dataclasses.replace(answer, form=form, source=source, line=line.number)


def _batch_model(first: ExternalAnswer, models: Mapping[str, int | None], source: str) -> str:
    """The one model a batch file's answers name, for its failed requests."""
    if len(models) == 1:
        return next(iter(models))
    where = (
        "no line of the file names a model"
        if not models
        else ("the file names several: " + ", ".join(f"{m} (line {n})" for m, n in models.items()))
    )
    raise RecordError(
        f"the failed request to {first.prompt_id!r} does not say its model and {where}; "
        "give the model with --model",
        line=first.line,
        source=source,
    )


_LM_EVAL_SAMPLES = re.compile(r"samples_.+_(?P<date>\d{4}-\d\d-\d\dT[\d.-]+)\.jsonl")


def lm_eval_model_name(path: str | Path) -> str | None:
    """The model of an lm-eval ``--log_samples`` file, as the run's results say.

    lm-eval writes ``samples_<task>_<date>.jsonl`` and ``results_<date>.json`` side by
    side under ``OUTPUT/<model, sanitized>/``; the results hold the model's own name
    (``model_name``: ``org/model``, where the folder says ``org__model``). Without a
    results file, the folder's name. The results file is read by the project's one
    JSON reader: one it refuses (a key twice) is a :class:`RecordError` naming it.

    >>> import json, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "org__model"
    >>> folder.mkdir()
    >>> samples = folder / "samples_twosat_2026-01-02T03-04-05.678901.jsonl"
    >>> lm_eval_model_name(samples)
    'org__model'
    >>> results = folder / "results_2026-01-02T03-04-05.678901.json"
    >>> _ = results.write_text(json.dumps({"model_name": "org/model"}))
    >>> lm_eval_model_name(samples)
    'org/model'
    """
    file = Path(path).resolve()
    match = _LM_EVAL_SAMPLES.fullmatch(file.name)
    if match is not None:
        results = file.with_name(f"results_{match['date']}.json")
        try:
            document = read_json_file(results)
        except OSError:  # no results file (or none readable): the folder names it
            document = None
        name = document.get("model_name") if isinstance(document, dict) else None
        if isinstance(name, str) and name:
            return name
    return file.parent.name or None


def read_answers(path: str | Path, *, model: str | None = None) -> Iterator[ExternalAnswer]:
    """The answers of a file (``"-"``: stdin), lazily; see :func:`read_answer_stream`.

    lm-eval lines take the model named by the run's results file, else the name of
    the file's folder (:func:`lm_eval_model_name`), unless ``model`` is given.
    """
    if str(path) == "-":  # bytes: lines end at \n only
        yield from read_answer_stream(stdin_input(), "<stdin>", model=model)
        return
    refuse_empty(path, str(path))
    named = lm_eval_model_name(path)
    with open(path, "rb") as stream:
        yield from read_answer_stream(stream, str(path), model=model, lm_eval_model=named)
