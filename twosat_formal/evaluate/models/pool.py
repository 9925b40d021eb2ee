"""One model served by several endpoints (replicas of the same deployment).

:class:`PooledModel` sends each request to the replica with the fewest requests in
flight (ties go round the replicas in turn). Its ``endpoint``, which is part of a
request's store key, is the first replica's, so a request has one key whichever
replica answers it and a run resumes on any set of replicas that starts with the
same URL.

Examples
--------
>>> import asyncio
>>> from twosat_formal.core.formula import Formula
>>> from twosat_formal.evaluate.models import load_model
>>> from twosat_formal.core.model import SamplingParams
>>> from twosat_formal.verbalize import verbalize
>>> text = verbalize(Formula([[1, 2]]), "logic").text
>>> replicas = [load_model("ref/oracle"), load_model("ref/oracle")]
>>> pool = PooledModel(replicas)
>>> pool.spec, pool.endpoint
('ref/oracle', 'local')
>>> async def ask():
...     async with pool:
...         return [await pool.generate(text, SamplingParams(), s) for s in range(4)]
>>> len(asyncio.run(ask())), pool.served
(4, [2, 2])
"""

from __future__ import annotations

from collections.abc import Sequence

from twosat_formal.core.model import Model, Response, SamplingParams, Turn, takes_messages
from twosat_formal.errors import ConfigError
from twosat_formal.evaluate.models.base import OnePathModel, send

__all__ = ["PooledModel"]


class PooledModel(OnePathModel):
    """``replicas`` (the same model spec at several endpoints) as one model.

    Raises
    ------
    ConfigError
        No replicas, or replicas of different specs.
    """

    def __init__(self, replicas: Sequence[Model]) -> None:
        if not replicas:
            raise ConfigError("a pool needs at least one endpoint", parameter="base_url")
        specs = {replica.spec for replica in replicas}
        if len(specs) != 1:
            raise ConfigError(
                f"a pool serves one model, got {', '.join(sorted(specs))}", parameter="model"
            )
        self.replicas = list(replicas)
        self.spec = self.replicas[0].spec
        self.endpoint = self.replicas[0].endpoint
        self.in_flight = [0] * len(self.replicas)
        #: Requests each replica has answered (or failed).
        self.served = [0] * len(self.replicas)
        self._turn = 0

    def _pick(self) -> int:
        count = len(self.replicas)
        order = [(self._turn + k) % count for k in range(count)]
        chosen = min(order, key=lambda k: self.in_flight[k])
        self._turn = (chosen + 1) % count
        return chosen

    @property
    def chat(self) -> bool:
        """Whether every replica takes conversations as messages."""
        return all(takes_messages(replica) for replica in self.replicas)

    async def _answer(
        self, prompt: str | list[Turn], params: SamplingParams, sample: int
    ) -> Response:
        """Ask the least busy replica."""
        index = self._pick()
        self.in_flight[index] += 1
        try:
            return await send(self.replicas[index], prompt, params, sample)
        finally:
            self.in_flight[index] -= 1
            self.served[index] += 1

    async def aclose(self) -> None:
        """Close every replica."""
        for replica in self.replicas:
            await replica.aclose()
