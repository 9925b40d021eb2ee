"""Generator families of the paper, the :func:`generate` entry point and datasets.

Each family is a plain function ``(rng, clauses, **params) -> (Formula, structure)``
registered in :data:`FAMILIES` with the specs of its parameters. :func:`generate`
validates a request, draws the formula with ``random.Random(seed)``, labels it with the
solver and returns an :class:`~twosat_formal.instance.Instance`. A :class:`Dataset`
(config + seed + size, in the style of reasoning-gym) gives item ``i`` from its own
derived seed, so any item can be rebuilt alone.

Examples
--------
>>> FAMILIES.names()
['implication-cycle', 'equivalence-core', 'backbone', 'mono-bridge', 'symmetry']
>>> inst = generate("implication-cycle", clauses=10, seed=1)
>>> inst.label, inst.formula.num_clauses, inst.params["k"]
('UNSAT', 10, 5)
>>> data = Dataset(DatasetConfig("backbone", clauses=20), seed=7, size=3)
>>> len(data), data[2] == Dataset(DatasetConfig("backbone", clauses=20), seed=7, size=9)[2]
(3, True)
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from twosat_formal.errors import ConfigError, TwoSatFormalError
from twosat_formal.formula import Formula
from twosat_formal.generators import (
    backbone,
    equivalence_core,
    implication_cycle,
    mono_bridge,
    symmetry,
)
from twosat_formal.generators.knobs import ParamSpec, ParamValue
from twosat_formal.instance import Instance, instance_id
from twosat_formal.provenance import tool_version
from twosat_formal.registry import Registry
from twosat_formal.solve import solve

__all__ = [
    "FAMILIES",
    "Dataset",
    "DatasetConfig",
    "Family",
    "derive_seed",
    "generate",
]

#: A family's drawing function.
Builder = Callable[..., tuple[Formula, dict[str, Any]]]
#: A family's request resolver: ``(clauses, params) -> complete params``.
Resolver = Callable[[int | None, Mapping[str, object]], dict[str, ParamValue]]


@dataclass(frozen=True)
class Family:
    """A registered generator family.

    Parameters
    ----------
    name:
        Registry name (``implication-cycle``, ...).
    build:
        ``(rng, clauses, **params) -> (Formula, structure)``.
    resolve:
        ``(clauses, params) -> params`` with every knob and structural parameter.
    params:
        The specs of its parameters (for validation and ``families``).
    summary:
        One line describing the family.
    section:
        Where the paper defines it.
    label:
        ``"SAT"``, ``"UNSAT"``, or ``"base"`` (the label of its base).
    """

    name: str
    build: Builder
    resolve: Resolver
    params: tuple[ParamSpec, ...]
    summary: str
    section: str
    label: str

    def knobs(self) -> tuple[ParamSpec, ...]:
        """The difficulty knobs (parameters in [0, 1])."""
        return tuple(p for p in self.params if p.kind == "knob")

    def to_json(self) -> dict[str, Any]:
        """The family and its parameters as a JSON object (for ``families --json``)."""
        return {
            "name": self.name,
            "summary": self.summary,
            "section": self.section,
            "label": self.label,
            "params": [p.to_json() for p in self.params],
        }


#: Every generator family, by name.
FAMILIES: Registry[Family] = Registry("family")

for _module, _summary, _section, _label in (
    (
        implication_cycle,
        "UNSAT core: one contradiction cycle through l1 and ~l1 (L+1 clauses), plus fillers",
        "§3.1, App. B, Algorithm 1",
        "UNSAT",
    ),
    (
        equivalence_core,
        "SAT with exactly 2^f models: bound variables defined as equivalent to free ones",
        "§3.2, App. C, Algorithm 2",
        "SAT",
    ),
    (
        backbone,
        "SAT with a planted backbone (pairs with auxiliaries) and a monotone remainder",
        "§3.3, App. D",
        "SAT",
    ),
    (
        mono_bridge,
        "SAT: positive and negative monotone parts coupled by one bridge clause at position s",
        "§3.4, App. E",
        "SAT",
    ),
    (
        symmetry,
        "d disjoint renamed copies of a base formula (any family or a formula file)",
        "§3.5, App. F",
        "base",
    ),
):
    FAMILIES.add(
        _module.FAMILY,
        Family(
            name=_module.FAMILY,
            build=getattr(_module, _module.FAMILY.replace("-", "_")),
            resolve=_module.resolve,
            params=_module.PARAMS,
            summary=_summary,
            section=_section,
            label=_label,
        ),
    )


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and labels by sha256 (same in every process).

    >>> derive_seed(0, 1) == derive_seed(0, 1), derive_seed(0, 1) == derive_seed(0, 2)
    (True, False)
    """
    text = ":".join(str(part) for part in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(
            f"seed must be an integer, got {seed!r}", parameter="seed", valid="an int"
        )
    return seed


def generate(family: str, *, clauses: int | None = None, seed: int, **params: Any) -> Instance:
    """Draw one labelled instance of ``family``.

    Parameters
    ----------
    family:
        A name of :data:`FAMILIES`.
    clauses:
        Target clause count (met within ±1; the achieved count is recorded), or
        ``None`` for the family's default or its structural parameters.
    seed:
        The seed of ``random.Random`` (the only source of randomness).
    **params:
        Knobs and structural parameters (``None`` counts as not given). Text values
        are accepted as the CLI passes them. ``achieved_clauses``, if given, must
        match the result (so ``generate(family, seed=s, **inst.params)`` re-checks).

    Returns
    -------
    Instance
        Labelled by the solver; ``params`` holds the complete resolved parameters.

    Raises
    ------
    ConfigError
        For an unknown, out-of-range or impossible parameter (``parameter`` and
        ``valid`` say which and what is allowed).
    UnknownNameError
        For an unknown family.

    Examples
    --------
    >>> inst = generate("mono-bridge", clauses=10, seed=0, bridge_position=0.0)
    >>> inst.label, inst.structure["bridge"]["index"]
    ('SAT', 0)
    """
    spec = FAMILIES.get(family)
    seed = _check_seed(seed)
    if clauses is not None and (isinstance(clauses, bool) or not isinstance(clauses, int)):
        raise ConfigError(
            f"clauses must be an integer, got {clauses!r}", parameter="clauses", valid="an int"
        )
    request = dict(params)
    achieved = request.pop("achieved_clauses", None)
    resolved = spec.resolve(clauses, request)
    build_params = {k: v for k, v in resolved.items() if k != "clauses"}
    formula, structure = spec.build(random.Random(seed), clauses, **build_params)
    if achieved is not None and int(achieved) != formula.num_clauses:
        raise ConfigError(
            f"these parameters make {formula.num_clauses} clauses, not {achieved}",
            parameter="achieved_clauses",
            valid=str(formula.num_clauses),
        )
    record_params: dict[str, Any] = {**resolved, "achieved_clauses": formula.num_clauses}
    result = solve(formula)
    if spec.label in ("SAT", "UNSAT") and result.status != spec.label:
        raise TwoSatFormalError(
            f"{family} built a {result.status} formula where its construction is {spec.label}"
        )
    return Instance(
        id=instance_id(family, record_params, seed),
        family=family,
        params=record_params,
        seed=seed,
        formula=formula,
        label=result.status,
        certificate=result.to_json(formula),
        structure=structure,
        provenance={
            "tool": "twosat-formal",
            "tool_version": tool_version(),
            "generator": family,
            "params": record_params,
            "seed": seed,
        },
    )


@dataclass(frozen=True)
class DatasetConfig:
    """What a dataset draws: a family, a clause target and parameters.

    >>> DatasetConfig("backbone", clauses=50, params={"beta": 0.2}).validate()
    """

    family: str
    clauses: int | None = None
    params: Mapping[str, ParamValue] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise :class:`ConfigError` (or ``UnknownNameError``) if the request is invalid."""
        params = {k: v for k, v in self.params.items() if k != "achieved_clauses"}
        FAMILIES.get(self.family).resolve(self.clauses, params)


class Dataset(Sequence[Instance]):
    """``size`` instances of a config; item ``i`` uses seed ``derive_seed(seed, i)``.

    Items are drawn on access and do not depend on each other or on ``size``.

    >>> data = Dataset(DatasetConfig("equivalence-core", clauses=10), seed=1, size=2)
    >>> [inst.label for inst in data]
    ['SAT', 'SAT']
    """

    def __init__(self, config: DatasetConfig, *, seed: int = 0, size: int = 10) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ConfigError(f"size must be >= 0, got {size!r}", parameter="size", valid=">= 0")
        config.validate()
        self.config = config
        self.seed = _check_seed(seed)
        self.size = size

    def item_seed(self, index: int) -> int:
        """The seed of item ``index`` (``sha256(f"{seed}:{index}")``, 63 bits)."""
        return derive_seed(self.seed, index)

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Instance: ...

    @overload
    def __getitem__(self, index: slice) -> list[Instance]: ...

    def __getitem__(self, index: int | slice) -> Instance | list[Instance]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        if not -self.size <= index < self.size:
            raise IndexError(f"item {index} of a dataset of {self.size}")
        index %= self.size
        return generate(
            self.config.family,
            clauses=self.config.clauses,
            seed=self.item_seed(index),
            **dict(self.config.params),
        )

    def __iter__(self) -> Iterator[Instance]:
        return (self[i] for i in range(self.size))
