"""OpenAI Batch API request files: ask every prompt through a batch job.

Each line is one request: ``custom_id`` (the prompt id, ``PROMPT_ID#K`` for sample
``K > 0``), ``method`` ``POST``, ``url`` ``/v1/chat/completions`` (or
``/v1/completions``) and ``body``, the same JSON body ``eval`` posts (messages, token
budget and the sampling parameters that are set; a set seed is sent as ``seed + K``).
vLLM's offline batch runner (``python -m vllm.entrypoints.openai.run_batch``) reads
the same lines. The output file of the batch goes to ``twosat-formal score``.

Examples
--------
>>> from twosat_formal.evaluate import EvalPrompt
>>> from twosat_formal.models.base import SamplingParams
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

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from twosat_formal.errors import ConfigError
from twosat_formal.integrations.answers import custom_id
from twosat_formal.models.base import SamplingParams
from twosat_formal.models.openai_compat import MODES, request_body

__all__ = ["ENDPOINTS", "batch_requests"]

#: The request URL of each mode.
ENDPOINTS: dict[str, str] = {"chat": "/v1/chat/completions", "completion": "/v1/completions"}


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
    mode: str = "chat",
) -> Iterator[dict[str, Any]]:
    """One Batch API request line per prompt and sample, in prompt order (lazily).

    The arguments are checked at once, before any line is made.

    Parameters
    ----------
    prompts:
        Records with an ``id`` and the full ``text`` (template or story prompts).
    model:
        The model id the API serves (``gpt-4o-mini``; no ``openai/`` prefix).
    params:
        The sampling parameters of every request.
    samples:
        Requests per prompt (sample indices ``0 .. samples - 1``).
    mode:
        ``"chat"`` (messages) or ``"completion"`` (raw prompt).
    """
    if mode not in MODES:
        raise ConfigError(f"unknown mode {mode!r}", parameter="mode", valid=" or ".join(MODES))
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ConfigError(f"samples must be >= 1, got {samples!r}", parameter="samples")
    if not model:
        raise ConfigError("give the model id the batch is for", parameter="model")
    return _rows(prompts, model, params, samples, mode)


def _rows(
    prompts: Iterable[_Prompt], model: str, params: SamplingParams, samples: int, mode: str
) -> Iterator[dict[str, Any]]:
    for prompt in prompts:
        for sample in range(samples):
            yield {
                "custom_id": custom_id(prompt.id, sample),
                "method": "POST",
                "url": ENDPOINTS[mode],
                "body": request_body(mode, model, prompt.text, params, sample),
            }
