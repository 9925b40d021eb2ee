"""The registry of generator families; each family registers itself from its own module.

A family module (``backbone.py``, ...) defines its parameter specs, its sizing (a
:class:`~twosat_formal.make.generators.resolve.Sizing` run by the shared resolver), its
builder (which takes resolved sizes), and ends with one :func:`register_family` call,
as a reasoning-gym dataset registers itself. :mod:`twosat_formal.make.generators` imports
the family modules (in the paper's order), so :data:`FAMILIES` is complete whenever
the package is imported.

Examples
--------
>>> from twosat_formal.make.generators import FAMILIES
>>> FAMILIES.get("backbone").label, FAMILIES.get("symmetry").label
('SAT', 'base')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from twosat_formal._util.registry import Registry
from twosat_formal.core.formula import Formula
from twosat_formal.core.jsonfields import fields_json
from twosat_formal.make.generators.knobs import Checked, ParamSpec

__all__ = ["FAMILIES", "Builder", "Family", "Resolver", "register_family"]

#: A family's builder: ``(rng, resolved sizes) -> (formula, structure)``.
Builder = Callable[[random.Random, Checked], tuple[Formula, dict[str, Any]]]
#: A family's request resolver: ``(clauses, params) -> complete params``.
Resolver = Callable[[int | None, Mapping[str, object]], Checked]


@dataclass(frozen=True)
class Family:
    """A registered generator family.

    Parameters
    ----------
    name:
        Registry name (``implication-cycle``, ...).
    build:
        ``(rng, sizes) -> (Formula, structure)``, drawing a formula of the sizes that
        ``resolve`` returned (``clauses`` included).
    resolve:
        ``(clauses, params) -> params`` with every knob and structural parameter.
    summary:
        One line describing the family.
    section:
        Where the paper defines it.
    label:
        ``"SAT"``, ``"UNSAT"``, or ``"base"`` (the label of its base).
    params:
        The specs of its parameters (for validation and ``families``).
    """

    name: str
    build: Builder
    resolve: Resolver
    summary: str
    section: str
    label: str
    params: tuple[ParamSpec, ...]

    def draw(
        self, rng: random.Random, clauses: int | None = None, **params: Any
    ) -> tuple[Formula, dict[str, Any]]:
        """Resolve a request (``clauses`` and ``params``), then build a formula of it from ``rng``.

        Each family module exports this as its own drawing function
        (``backbone.backbone``, ...).

        Examples
        --------
        >>> from twosat_formal.make.generators import FAMILIES
        >>> formula, structure = FAMILIES.get("backbone").draw(random.Random(0), 20)
        >>> formula.num_clauses, len(structure["backbone"])
        (20, 6)
        """
        return self.build(rng, self.resolve(clauses, params))

    def knobs(self) -> tuple[ParamSpec, ...]:
        """The difficulty knobs (parameters in [0, 1])."""
        return tuple(p for p in self.params if p.kind == "knob")

    def to_json(self) -> dict[str, Any]:
        """The family and its parameters as a JSON object (for ``families --json``)."""
        return fields_json(self, skip=("build", "resolve"))


#: Every generator family, by name (in the order their modules register them).
FAMILIES: Registry[Family] = Registry("family")


def register_family(
    name: str,
    build: Builder,
    resolve: Resolver,
    params: tuple[ParamSpec, ...],
    *,
    summary: str,
    section: str,
    label: str,
) -> Family:
    """Register a family under ``name`` (called once, at the end of its module).

    Raises :class:`~twosat_formal.errors.TwoSatFormalError` if ``name`` is taken.
    """
    family = Family(name, build, resolve, summary, section, label, params)
    FAMILIES.add(name, family)
    return family
