"""The reference reasoners as an inspect model provider: ``--model twosat/<name>``.

``twosat/oracle``, ``twosat/sat-biased``, ``twosat/coin`` and ``twosat/bounded`` are
the reference reasoners of :mod:`twosat_formal.evaluate.models.reference` (``ref/<name>`` in
``eval``): they read the prompt text an LLM reads and answer without a network or a
tokenizer download, so ``inspect eval twosat_formal/twosat --model twosat/oracle``
is an offline smoke test of the whole task, and ``twosat/oracle`` scores 1.0.
``-M budget=N`` sets the budget of ``twosat/bounded``.

The reasoner answers the last user message. Its token counts are words, as in
``eval``, and so are inspect's token estimates for it (no tiktoken encoding is
needed). Registered with inspect by
:mod:`~twosat_formal.integrations.inspect_registry`.
"""

from __future__ import annotations

from typing import Any

from twosat_formal.integrations import require

require("inspect_ai", "the inspect integration")

from inspect_ai.model import (  # noqa: E402
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo  # noqa: E402

from twosat_formal.errors import ConfigError  # noqa: E402
from twosat_formal.evaluate.models import load_model  # noqa: E402
from twosat_formal.evaluate.models.reference import REFERENCE_MODELS, ReferenceModel  # noqa: E402

__all__ = ["PROVIDER", "ReferenceReasoners", "reference_spec"]

#: The provider's name: models are ``twosat/<reasoner>``.
PROVIDER = "twosat"


def reference_spec(name: str, options: dict[str, Any]) -> str:
    """The ``ref/`` spec of inspect model ``twosat/<name>`` with ``-M`` options.

    >>> reference_spec("bounded", {"budget": 40})
    'ref/bounded?budget=40'
    >>> reference_spec("gpt", {})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: unknown reference reasoner 'gpt': twosat/bounded, \
twosat/coin, twosat/oracle, twosat/sat-biased
    """
    if name not in REFERENCE_MODELS:
        known = ", ".join(f"{PROVIDER}/{n}" for n in sorted(REFERENCE_MODELS))
        raise ConfigError(
            f"unknown reference reasoner {name!r}: {known}", parameter="model", valid=known
        )
    query = "&".join(f"{key}={value}" for key, value in sorted(options.items()))
    return f"ref/{name}" + (f"?{query}" if query else "")


class ReferenceReasoners(ModelAPI):
    """inspect's view of one reference reasoner (``twosat/<name>``)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        model = load_model(reference_spec(model_name, model_args))
        assert isinstance(model, ReferenceModel)
        self.reasoner: ReferenceModel = model

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """The reasoner's answer to the last user message."""
        users = [message for message in input if message.role == "user"]
        prompt = users[-1].text if users else ""
        response = self.reasoner.respond(prompt)
        output = ModelOutput.from_content(model=self.model_name, content=response.text)
        output.usage = ModelUsage(
            input_tokens=response.prompt_tokens or 0,
            output_tokens=response.completion_tokens or 0,
            total_tokens=(response.prompt_tokens or 0) + (response.completion_tokens or 0),
        )
        output.time = response.latency_s
        return output

    async def count_text_tokens(self, text: str) -> int:
        """Words, as the reasoner counts them (no tokenizer download)."""
        return len(text.split())


@modelapi(name=PROVIDER)
def twosat_reasoners() -> type[ModelAPI]:
    """The provider of ``twosat/<reasoner>`` models."""
    return ReferenceReasoners
