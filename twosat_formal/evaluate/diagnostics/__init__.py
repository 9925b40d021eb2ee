"""Diagnostics beyond the final answer: minimal twins, contradiction chains, traces.

* :mod:`~twosat_formal.evaluate.diagnostics.twins`: for an instance, a twin with the opposite
  label that differs from it in exactly one clause, the change read off the
  contradiction cycle (``twosat-formal pairs``);
* :mod:`~twosat_formal.evaluate.diagnostics.chains`: the contradiction chain a model gives as
  the witness of "No" (``verbalize --ask-cycle``), checked against the implication
  graph (``cycle_valid``, ``cycle_reason``);
* :mod:`~twosat_formal.evaluate.diagnostics.trace`: the claims of an answer's reasoning, each
  checked against the formula (``twosat-formal trace``);
* :mod:`~twosat_formal.evaluate.diagnostics.implications`: the implication graph with the
  clause behind each step, which the diagnostics build and check with.

See ``docs/diagnostics.md``.
"""

from twosat_formal.evaluate.diagnostics.chains import (
    ChainCheck,
    check_chain,
    extract_chain,
    judge_chain,
)
from twosat_formal.evaluate.diagnostics.claims import Claim, Trace
from twosat_formal.evaluate.diagnostics.implications import Implications
from twosat_formal.evaluate.diagnostics.trace import check_trace, trace_rows, trace_store
from twosat_formal.evaluate.diagnostics.twins import (
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
    "ChainCheck",
    "Change",
    "Claim",
    "Implications",
    "NoTwinError",
    "Trace",
    "TwinRun",
    "check_chain",
    "check_trace",
    "check_twin",
    "choose_change",
    "extract_chain",
    "judge_chain",
    "one_clause_apart",
    "trace_rows",
    "trace_store",
    "twin_instance",
    "twins",
]
