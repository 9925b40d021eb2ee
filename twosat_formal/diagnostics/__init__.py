"""Diagnostics beyond the final answer: minimal twins, contradiction chains, traces.

* :mod:`~twosat_formal.diagnostics.twins`: for an instance, a twin with the opposite
  label that differs from it in exactly one clause, the change read off the
  contradiction cycle (``twosat-formal pairs``);
* :mod:`~twosat_formal.diagnostics.implications`: the implication graph with the
  clause behind each step, which the diagnostics build and check with.

See ``docs/diagnostics.md``.
"""

from twosat_formal.diagnostics.implications import Implications
from twosat_formal.diagnostics.twins import (
    Change,
    NoTwinError,
    TwinRun,
    check_twin,
    choose_change,
    one_clause_apart,
    twin_instance,
    twins,
)

__all__ = [
    "Change",
    "Implications",
    "NoTwinError",
    "TwinRun",
    "check_twin",
    "choose_change",
    "one_clause_apart",
    "twin_instance",
    "twins",
]
