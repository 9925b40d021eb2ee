"""``eval``'s option groups: where and how its models are asked, and how often again.

Each group is a dataclass of option aliases that ``eval`` declares as one parameter
(:func:`~twosat_formal.cli.options.option_groups`); its methods turn the options into
what the runner takes, and refuse a bad one before a store is created.

Examples
--------
>>> EndpointOptions(rpm=60.0).limits().rpm
60.0
>>> RetryOptions(max_attempts=3).policy().max_attempts
3
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from twosat_formal.cli.options import (
    ApiKeyEnvOption,
    ModelConcurrencyOption,
    RequestModeOption,
    RpmOption,
    TpmOption,
)

if TYPE_CHECKING:  # the runner is imported when ``eval`` runs, not for --help
    from twosat_formal.evaluate.models.retry import RetryPolicy
    from twosat_formal.evaluate.run.limits import ModelLimits

__all__ = ["EndpointOptions", "RetryOptions"]

BaseUrlsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        metavar="URL",
        help="API root of openai/ models (default: $OPENAI_BASE_URL); repeat it for "
        "several endpoints of one deployment: requests go to the least busy one.",
        show_default=False,
    ),
]
MaxAttemptsOption = Annotated[
    int,
    typer.Option("--max-attempts", min=1, help="Attempts per request on 429, 5xx, time-outs."),
]
RetryErrorsOption = Annotated[
    bool,
    typer.Option("--retry-errors", help="Ask again the requests stored with failure `error`."),
]


@dataclasses.dataclass(frozen=True)
class EndpointOptions:
    """Where ``eval``'s models are and how they are asked: --base-url, the per-model
    limits (--model-concurrency, --rpm, --tpm), --api-key-env and --mode.

    An unknown mode is refused as the group is made (:class:`ConfigError`).
    """

    base_url: BaseUrlsOption = None
    model_concurrency: ModelConcurrencyOption = None
    rpm: RpmOption = None
    tpm: TpmOption = None
    api_key_env: ApiKeyEnvOption = None
    mode: RequestModeOption = "chat"

    def __post_init__(self) -> None:
        from twosat_formal.evaluate.models.openai_compat import check_mode

        check_mode(self.mode)

    def limits(self) -> ModelLimits:
        """The limits every model gets (a spec's own win over them)."""
        from twosat_formal.evaluate.run.limits import ModelLimits

        return ModelLimits(self.model_concurrency, self.rpm, self.tpm)

    def check_models(self, specs: Sequence[str], limits: ModelLimits, timeout_s: float) -> None:
        """Build every model at every base URL, to refuse a bad spec, limit, base URL or
        time-out before a store is created (building a model starts and contacts
        nothing)."""
        from twosat_formal.evaluate.models import load_model
        from twosat_formal.evaluate.run.limits import split_limits

        for spec in specs:
            for url in [*self.base_url] if self.base_url else [None]:
                load_model(
                    split_limits(spec, limits)[0],
                    base_url=url,
                    api_key_env=self.api_key_env,
                    mode=self.mode,
                    timeout_s=timeout_s,
                )


@dataclasses.dataclass(frozen=True)
class RetryOptions:
    """How often ``eval`` asks a request again: --max-attempts and --retry-errors."""

    max_attempts: MaxAttemptsOption = 6
    retry_errors: RetryErrorsOption = False

    def policy(self) -> RetryPolicy:
        """The backoff policy of a transient failure (429, 5xx, time-out)."""
        from twosat_formal.evaluate.models.retry import RetryPolicy

        return RetryPolicy(max_attempts=self.max_attempts)
