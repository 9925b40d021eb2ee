"""The LLM-judge coding of reasoning quality (LogicEdit's rubric), and its agreement
with the exact coding of :mod:`twosat_formal.evaluate.diagnostics.quality`.

A judge model (``trace --judge-model SPEC``) reads the problem and the answer in
:data:`JUDGE_PROMPT` and answers Yes or No on each of the four dimensions, one line
each (``Premise Fidelity: Yes``). Its coding is set beside the exact one, made binary
the same way: premise fidelity and inference validity are "Yes" when the share is 1
(every cited rule is a rule, every claim is entailed), completion and alignment are
their truth values; a dimension the exact coding leaves undefined (``None``), or the
judge does not answer, is not compared. :func:`agreement` counts, per dimension, the
answers compared, those where both codings agree, and Cohen's kappa.

Examples
--------
>>> reply = "Premise Fidelity: Yes\\nInference Validity: no\\nAnswer Completion: YES"
>>> list(read_judgement(reply).values())
[True, False, True, None]
>>> exact = {"premise_fidelity": 1.0, "inference_validity": 0.5, "answer_completion": False,
...          "answer_alignment": None}
>>> list(binary(exact).values())
[True, False, False, None]
>>> agreement([{"quality": exact, "judge": read_judgement(reply)}])["answer_completion"]
{'compared': 1, 'agree': 0, 'rate': 0.0, 'kappa': 0.0}
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from twosat_formal.core.model import Model, SamplingParams
from twosat_formal.evaluate.diagnostics.quality import DIMENSIONS
from twosat_formal.evaluate.models.base import run_requests
from twosat_formal.evaluate.models.retry import RetryingModel, RetryPolicy

__all__ = [
    "JUDGE_PROMPT",
    "agreement",
    "binary",
    "judge_prompt",
    "judge_rows",
    "judge_store",
    "read_judgement",
]

#: The judge's prompt: LogicEdit's four dimensions as yes/no questions. ``{problem}`` is
#: the prompt the model was given, ``{response}`` its answer.
JUDGE_PROMPT = """You are evaluating the reasoning of a model on a logic problem.

Problem given to the model:
<problem>
{problem}
</problem>

Model's response:
<response>
{response}
</response>

Judge the response on four dimensions, answering Yes or No for each:
1. Premise Fidelity: every rule the reasoning states or uses is one of the rules of the
problem, stated correctly.
2. Inference Validity: every conclusion the reasoning draws follows logically from the
rules and earlier conclusions.
3. Answer Completion: the response ends with a readable final answer line, with the
assignment (or contradiction chain) the problem asks for.
4. Answer Alignment: the final answer agrees with the conclusion the reasoning itself
reached.

Reply with exactly these four lines and nothing else:
Premise Fidelity: Yes or No
Inference Validity: Yes or No
Answer Completion: Yes or No
Answer Alignment: Yes or No"""

_LINE = re.compile(
    r"^\W*(?:\d{1,2}[.)]\s*)?\W*(premise\s+fidelity|inference\s+validity|answer\s+completion|answer\s+alignment)"
    r"\W*[:=-]\s*\W*(yes|no)\b",
    re.IGNORECASE | re.MULTILINE,
)


def judge_prompt(problem: str, response: str) -> str:
    """:data:`JUDGE_PROMPT` filled in.

    >>> "<problem>\\nP\\n</problem>" in judge_prompt("P", "R")
    True
    """
    return JUDGE_PROMPT.replace("{problem}", problem).replace("{response}", response)


def read_judgement(reply: str) -> dict[str, bool | None]:
    """The judge's four answers (the last line given for each; ``None`` where missing)."""
    found: dict[str, bool | None] = dict.fromkeys(DIMENSIONS)
    for match in _LINE.finditer(reply):
        name = "_".join(match.group(1).lower().split())
        found[name] = match.group(2).lower() == "yes"
    return found


def binary(quality: Mapping[str, Any]) -> dict[str, bool | None]:
    """The exact coding made yes/no, as the judge answers (see the module)."""
    out: dict[str, bool | None] = {}
    for name in DIMENSIONS:
        value = quality.get(name)
        if value is None:
            out[name] = None
        elif isinstance(value, bool):
            out[name] = value
        else:
            out[name] = float(value) == 1.0
    return out


def _kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    p_exact = sum(a for a, _ in pairs) / n
    p_judge = sum(b for _, b in pairs) / n
    expected = p_exact * p_judge + (1 - p_exact) * (1 - p_judge)
    return None if expected == 1.0 else (observed - expected) / (1 - expected)


def agreement(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per dimension: answers compared, agreements, their rate and Cohen's kappa.

    ``rows`` carry the exact coding under ``quality`` and the judge's under ``judge``
    (rows without ``judge`` are skipped). Kappa is ``None`` when it is undefined (both
    codings constant and equal, or nothing compared).
    """
    out = {}
    for name, found in _coded_pairs(rows).items():
        agree = sum(a == b for a, b in found)
        out[name] = {
            "compared": len(found),
            "agree": agree,
            "rate": agree / len(found) if found else None,
            "kappa": _kappa(found),
        }
    return out


def _coded_pairs(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[tuple[bool, bool]]]:
    """Per dimension, the (exact, judge) codings of the judged rows that have both."""
    pairs: dict[str, list[tuple[bool, bool]]] = {name: [] for name in DIMENSIONS}
    for row in rows:
        judged = row.get("judge")
        if not judged:
            continue
        exact = binary(row.get("quality") or {})
        for name in DIMENSIONS:
            a, b = exact.get(name), judged.get(name)
            if a is not None and b is not None:
                pairs[name].append((bool(a), bool(b)))
    return pairs


async def judge_rows(
    rows: Sequence[dict[str, Any]],
    model: Model,
    *,
    params: SamplingParams | None = None,
    concurrency: int = 8,
    retry: RetryPolicy | None = None,
) -> None:
    """Ask ``model`` to code every row (``prompt_text`` and ``response`` entries), in place.

    Transient failures (HTTP 429, 5xx, time-outs) are retried as ``eval`` retries them
    (:class:`~twosat_formal.evaluate.models.retry.RetryingModel` with ``retry``). Each row gets
    ``judge``: the four answers and the reply (``reply``), or ``error`` when the request
    failed for good (that row is then not compared).
    """
    params = params or SamplingParams(max_tokens=256)
    asking = RetryingModel(model, retry, rng=random.Random(0))
    gate = asyncio.Semaphore(concurrency)

    async def one(row: dict[str, Any]) -> None:
        async with gate:
            text = judge_prompt(str(row["prompt_text"]), str(row["response"]))
            outcome = await asking.attempt(text, params, 0)
        if outcome.response is None:
            row["judge"] = {"error": str(outcome.error or "request failed")}
            return
        reply = outcome.response.text
        row["judge"] = {**read_judgement(reply), "reply": reply}

    async with asyncio.TaskGroup() as group:
        for row in rows:
            group.create_task(one(row))


def judge_store(
    store_path: str | Path,
    out: str | Path | IO[str],
    model: Model,
    *,
    params: SamplingParams | None = None,
    concurrency: int = 8,
    progress: Callable[[int, int], None] | None = None,
    retry: RetryPolicy | None = None,
) -> tuple[int, dict[str, dict[str, Any]]]:
    """The trace rows of a run store (:func:`~twosat_formal.evaluate.diagnostics.trace.trace_rows`)
    with the judge's coding beside the exact one, written as JSON Lines to ``out``.

    Returns how many rows were written and the :func:`agreement` of the two codings.
    The judge reads the prompt as the model received it (with its strategy's text).
    """
    from twosat_formal.evaluate.diagnostics.trace import trace_rows
    from twosat_formal.io.jsonl import json_line, write_lines

    rows = list(trace_rows(store_path, progress=progress, texts=True))

    async def run() -> None:
        enter = getattr(model, "__aenter__", None)  # a managed model starts here
        ready = await enter() if enter is not None else model
        try:
            await judge_rows(rows, ready, params=params, concurrency=concurrency, retry=retry)
        finally:
            await model.aclose()

    run_requests(run())
    for row in rows:
        del row["prompt_text"], row["response"]
    written = write_lines((json_line(row) for row in rows), out)
    return written, agreement(rows)
