"""One parameter's value as a family or an operator makes it, through their own checks."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from twosat_formal.core.formula import Formula
from twosat_formal.make.generators.knobs import ParamSpec, validate_params
from twosat_formal.make.perturb.operator import Operator, Param, Plan

__all__ = ["value_of"]


def _no_plan(formula: Formula, rng: random.Random, params: Mapping[str, Any]) -> Plan:
    raise AssertionError("a parameter's check plans nothing")


def value_of(spec: ParamSpec | Param, value: object) -> object:
    """``value`` checked and converted as a family declaring ``spec`` (a
    :class:`ParamSpec`), or an operator declaring it (a :class:`Param`), reads it;
    :class:`~twosat_formal.errors.ConfigError` where they refuse it."""
    if isinstance(spec, ParamSpec):
        values, _ = validate_params("demo", (spec,), {spec.name: value})
        return values[spec.name]
    operator = Operator("demo", "equivalent", "one parameter", (spec,), _no_plan)
    return operator.resolve({spec.name: value})[spec.name]
