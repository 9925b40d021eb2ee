"""How transient model failures are retried: bounded exponential backoff with jitter."""

from __future__ import annotations

import random
from dataclasses import dataclass

from twosat_formal.errors import ConfigError

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter.

    Attempt ``k`` (1-based) that fails waits a uniform draw in ``[d/2, d]`` with
    ``d = min(max_delay_s, base_delay_s * 2 ** (k - 1))``, or the server's
    ``Retry-After`` when that is longer (capped at ``max_delay_s``).

    >>> policy = RetryPolicy(base_delay_s=1.0, max_delay_s=4.0)
    >>> rng = random.Random(0)
    >>> [0.5 <= policy.delay(1, rng) <= 1.0, 2.0 <= policy.delay(3, rng) <= 4.0]
    [True, True]
    >>> policy.delay(1, rng, retry_after=3.0)
    3.0
    """

    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError(
                f"max_attempts must be >= 1, got {self.max_attempts}",
                parameter="max_attempts",
                valid=">= 1",
            )
        if self.base_delay_s < 0 or self.max_delay_s < 0:
            raise ConfigError("retry delays must be >= 0", parameter="delay", valid=">= 0")

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt``."""
        cap = min(self.max_delay_s, self.base_delay_s * 2.0 ** (attempt - 1))
        wait = rng.uniform(cap / 2, cap)
        if retry_after is not None:
            wait = max(wait, min(float(retry_after), self.max_delay_s))
        return wait
