"""The checks of an instance record: ``record``, ``2-sat``, the solver backends,
``certificate``, ``measures``, ``twin``, and its re-derivation (``regenerate`` or
``transforms``).

Examples
--------
>>> from twosat_formal.certify.checker import Checker, Task
>>> from twosat_formal.make.generators import generate
>>> c = Checker(None, 1, None)
>>> check_instance(c, Task(None, 1, generate("backbone", clauses=8, seed=2).to_record()))
>>> c.checks, c.failures
(8, [])
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from twosat_formal.certify.checker import Checker, Derived, Task, fail_with, rederive
from twosat_formal.certify.formulas import remember
from twosat_formal.core.formula import Formula
from twosat_formal.errors import ConfigError

__all__ = ["BACKENDS", "check_instance", "scc_label"]

#: The solver backends that must agree with every stored label.
BACKENDS = ("scc", "pysat", "z3")


def _two_sat(formula: Formula) -> None:
    """Raise unless ``formula`` is a 2-CNF, naming its first wider clause."""
    if formula.is_2cnf:  # cached: the solver backends ask it again
        return
    wide = next((i for i, cl in enumerate(formula.clauses) if len(cl) > 2), None)
    if wide is not None:
        raise ConfigError(
            f"clause {wide + 1} has {len(formula.clauses[wide])} literals: the benchmark is 2-SAT"
        )


def _solve(c: Checker, inst: Any, known: str | None) -> None:
    """One check per backend: it agrees with the stored label (``known``: the ``scc``
    backend's answer, read off the re-derivation)."""
    from twosat_formal.solve import decide

    for backend in BACKENDS:

        def agree(backend: str = backend) -> None:
            start = time.perf_counter()
            if backend == "scc" and known is not None:
                status = known
            else:
                status = decide(inst.formula, backend)
            if backend == "z3":
                c.z3_seconds += time.perf_counter() - start
            if status != inst.label:
                raise ConfigError(
                    f"the {backend} backend finds {status}, the record says {inst.label}"
                )

        c.run(f"solve:{backend}", agree)


def _certificate(inst: Any) -> None:
    from twosat_formal.solve import check_certificate_json

    status = inst.certificate.get("status")
    if status != inst.label:
        raise ConfigError(f"the certificate is for {status!r}, the label is {inst.label!r}")
    check_certificate_json(inst.formula, inst.certificate)


def _measures(formula: Any, claimed: Any) -> None:
    from twosat_formal.solve.measures_check import check_measures

    check_measures(formula, claimed)


def check_instance(c: Checker, task: Task) -> None:
    """Every check of an instance record (raises :class:`~twosat_formal.certify.checker._Stop`
    when the record does not read, or is not 2-SAT)."""
    from twosat_formal.io.instance import Instance

    inst = c.run(
        "record",
        lambda: Instance.from_record(task.record, line=task.line, source=task.source),
        stop=True,
    )
    c.id = inst.id
    remember(task, inst.formula)  # for its prompts and stories
    c.run("2-sat", lambda: _two_sat(inst.formula), stop=True)
    check, derived = _derivation(inst, task)
    _solve(c, inst, scc_label(task.record, derived))
    c.run("certificate", lambda: _certificate(inst))
    if "measures" in task.record:  # absent: no claim (a record older than the measures)
        c.run("measures", lambda: _measures(inst.formula, task.record["measures"]))
    if inst.twin_of is not None:
        c.run("twin", lambda: _check_twin(inst, task.twin_source))
    if derived is None:
        c.run("transforms", fail_with("a record with transforms needs a base_id"))
        return
    rederive(c, check, "instance", task.record, derived)


def _derivation(inst: Any, task: Task) -> tuple[str, Derived | None]:
    """The check that re-derives an instance and its outcome (``None``: it cannot be)."""
    from twosat_formal.certify.rederive import rederive_derived, rederive_root, rederive_twin

    record = task.record
    if inst.twin_of is not None:
        return "twin", Derived.of(lambda: rederive_twin(record, task.twin_source))
    if inst.base_id is None:
        if inst.transforms:
            return "transforms", None
        return "regenerate", Derived.of(lambda: rederive_root(record))
    return "transforms", Derived.of(lambda: rederive_derived(record, task.base))


def scc_label(record: Any, derived: Derived | None) -> str | None:
    """The ``scc`` backend's label of ``record``'s formula, when the re-derivation has it.

    Re-deriving an instance solves its formula with the ``scc`` backend (and checks
    the certificate) to write the label. When the re-derived record has exactly the
    stored DIMACS text, that is the same formula (parsing inverts writing), so its
    label is what the backend answers for the stored formula, and it is not solved
    twice. Otherwise (no re-derivation, another text, another backend): ``None``.
    """
    again = None if derived is None else derived.value
    if not isinstance(again, Mapping) or not _same_dimacs(record, again):
        return None
    return _checked_scc_label(again)


def _same_dimacs(record: Any, again: Mapping[str, Any]) -> bool:
    """Whether the re-derived record has exactly the stored DIMACS text."""
    dimacs = record.get("dimacs") if isinstance(record, Mapping) else None
    return isinstance(dimacs, str) and again.get("dimacs") == dimacs


def _checked_scc_label(again: Mapping[str, Any]) -> str | None:
    """The label of a re-derived record whose certificate the ``scc`` backend wrote and
    checked, and which says that label; else ``None``."""
    certificate = again.get("certificate")
    if not isinstance(certificate, Mapping) or certificate.get("backend") != "scc":
        return None
    label = again.get("label")
    if certificate.get("checked") is not True or certificate.get("status") != label:
        return None
    return label if label in ("SAT", "UNSAT") else None


def _check_twin(twin: Any, source_record: Any) -> None:
    from twosat_formal.evaluate.diagnostics.twins import check_twin
    from twosat_formal.io.instance import Instance

    source = None if source_record is None else Instance.from_record(source_record)
    check_twin(twin, source)
