"""Models answered on Ray workers: ``eval --executor ray``.

The driver (the ``eval`` process) plans the run, applies every limit, retries, scores
and writes the run store, exactly as with the local executor; only the model calls
move. Each Ray worker is an asynchronous actor (:class:`ModelWorker`) that builds its
own model clients from a :class:`ModelSource` (a spec, its base URLs and options, never
an API key: a worker reads the key from its own environment) and answers the requests
sent to it, many at once. On the driver each worker appears as one replica of the
model (:class:`RemoteModel`), and the replicas form one
:class:`~twosat_formal.evaluate.models.pool.PooledModel`, so a request goes to the least busy
worker. A replica names the spec and endpoint that the worker's model reports, which
are those of the same model loaded here, so the store keys, and with them what a run
skips on resume, do not depend on the executor.

A worker returns an answer or the library error its model raised (errors pickle, see
:class:`~twosat_formal.errors.TwoSatFormalError`); the driver raises it again, so a
transient failure is retried and a refused endpoint stops the run as it would here.

Examples
--------
>>> source = ModelSource("ref/oracle")
>>> model = source.load()
>>> model.spec, model.endpoint
('ref/oracle', 'local')
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from twosat_formal.core.model import DEFAULT_MODE, Model, Response, SamplingParams
from twosat_formal.errors import TwoSatFormalError
from twosat_formal.evaluate.models.base import ClosingModel

__all__ = ["ModelSource", "ModelWorker", "RemoteModel", "ray_models"]


@dataclass(frozen=True)
class ModelSource:
    """How to build one model of a run: its spec, the base URLs of its endpoints and the
    client's options (the name of the API key's variable, never the key).

    An ``openai/`` spec with several ``urls`` is one
    :class:`~twosat_formal.evaluate.models.pool.PooledModel` over them; any other spec uses the
    first URL alone.
    """

    spec: str
    urls: tuple[str | None, ...] = (None,)
    api_key_env: str | None = None
    mode: str = DEFAULT_MODE
    timeout_s: float | None = None

    def load(self) -> Model:
        """The model (nothing is started or contacted yet)."""
        from twosat_formal.evaluate.models import load_model
        from twosat_formal.evaluate.models.pool import PooledModel

        timeout = {} if self.timeout_s is None else {"timeout_s": self.timeout_s}
        urls = self.urls if self.spec.startswith("openai/") else self.urls[:1]
        replicas = [
            load_model(
                self.spec, base_url=url, api_key_env=self.api_key_env, mode=self.mode, **timeout
            )
            for url in urls
        ]
        return replicas[0] if len(replicas) == 1 else PooledModel(replicas)


class ModelWorker:
    """The Ray actor of a worker: the models it was asked for, each built once.

    Its methods are coroutines, so one worker has many requests in flight.
    """

    def __init__(self) -> None:
        self._models: dict[ModelSource, Model] = {}

    async def _model(self, source: ModelSource) -> Model:
        model = self._models.get(source)
        if model is None:
            model = source.load()
            enter = getattr(model, "__aenter__", None)
            if enter is not None:
                await enter()
            self._models[source] = model
        return model

    async def describe(self, source: ModelSource) -> tuple[str, str]:
        """The spec and endpoint of the model (its requests' store keys use them)."""
        model = await self._model(source)
        return model.spec, model.endpoint

    async def generate(
        self, source: ModelSource, prompt: str, params: SamplingParams, sample: int
    ) -> Response | TwoSatFormalError:
        """The model's answer, or the library error it raised (returned, not raised)."""
        model = await self._model(source)
        try:
            return await model.generate(prompt, params, sample)
        except TwoSatFormalError as exc:
            return exc

    async def close(self, source: ModelSource) -> None:
        """Release the model built from ``source`` (its HTTP clients, a server)."""
        model = self._models.pop(source, None)
        if model is not None:
            await model.aclose()


class RemoteModel(ClosingModel):
    """A model answered by one Ray worker (``actor``, a :class:`ModelWorker`)."""

    def __init__(self, actor: Any, source: ModelSource, spec: str, endpoint: str) -> None:
        self.actor = actor
        self.source = source
        self.spec = spec
        self.endpoint = endpoint

    async def generate(self, prompt: str, params: SamplingParams, sample: int = 0) -> Response:
        """Ask the worker; raise the error its model raised."""
        import ray

        ref = self.actor.generate.remote(self.source, prompt, params, sample)
        try:
            result = await ref
        except asyncio.CancelledError:  # a time-out here, or Ctrl-C: stop it there too
            ray.cancel(ref)
            raise
        if isinstance(result, TwoSatFormalError):
            raise result
        assert isinstance(result, Response)
        return result

    async def aclose(self) -> None:
        """Release the worker's model."""
        await self.actor.close.remote(self.source)


@asynccontextmanager
async def ray_models(
    sources: Sequence[ModelSource], *, jobs: int | None = None, address: str | None = None
) -> AsyncIterator[list[Model]]:
    """One model per source, each answered by the same ``jobs`` Ray workers.

    ``address`` (or ``$RAY_ADDRESS``) names a cluster to join; without either a local
    Ray with ``jobs`` CPUs is started, and shut down on the way out (a Ray already
    running in this process is used and left running). ``jobs`` defaults to the CPUs
    of the cluster. Every model is released on the way out.
    """
    from twosat_formal._util.executors import RayExecutor
    from twosat_formal.evaluate.models.pool import PooledModel

    with RayExecutor(jobs, address=address) as session:
        ray = session.ray
        worker = ray.remote(max_concurrency=1000)(ModelWorker)
        actors = [
            worker.options(scheduling_strategy="SPREAD").remote() for _ in range(session.jobs)
        ]
        try:
            async with AsyncExitStack() as stack:
                models: list[Model] = []
                for source in sources:
                    names = await asyncio.gather(*(a.describe.remote(source) for a in actors))
                    replicas = [
                        RemoteModel(actor, source, spec, endpoint)
                        for actor, (spec, endpoint) in zip(actors, names, strict=True)
                    ]
                    model = replicas[0] if len(replicas) == 1 else PooledModel(replicas)
                    models.append(await stack.enter_async_context(model))
                yield models
        finally:
            for actor in actors:
                ray.kill(actor)
