"""How one record's checks run and count: each check's failure is kept, never raised.

A :class:`Checker` runs the checks of one record (:meth:`Checker.run`), counting them
and turning a library error into a :class:`~twosat_formal.certify.results.CheckFailure`
named after the check. A re-derivation (:class:`Derived`) is run before its check is
counted and reported by :func:`rederive`, which compares the stored record with the one
derived again, field by field.

Examples
--------
>>> c = Checker("i-1", 3, "data.jsonl")
>>> c.run("solve:z3", fail_with("the z3 backend finds SAT"))
>>> c.checks, [str(f) for f in c.failures]
(1, ['data.jsonl:3 i-1 [solve:z3] the z3 backend finds SAT'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from twosat_formal.certify.results import CheckFailure
from twosat_formal.errors import ConfigError, TwoSatFormalError

__all__ = ["Checker", "Derived", "Task", "fail_with", "proof_seconds", "rederive"]


@dataclass(frozen=True)
class Task:
    """One record to check, parsed, with the records it refers to (parsed) when the
    dataset holds them: a derived instance's root (``base``), a prompt's or story's
    instance, a twin's source."""

    source: str | None
    line: int | None
    record: Any
    base: Any = None
    instance: Any = None
    twin_source: Any = None
    #: The SHA-256 of the line ``instance`` was read from, when read from a file: the
    #: key its formula is kept under for its prompts and stories
    #: (:mod:`twosat_formal.certify.formulas`).
    instance_key: bytes | None = None
    #: The SHA-256 of the line ``record`` was read from, when read from a file.
    key: bytes | None = None
    #: Whether a prompt or story of the dataset names ``record`` as its instance.
    verbalized: bool = False


class _Stop(Exception):
    """A check failed in a way that makes the remaining checks meaningless."""


class Checker:
    """The checks of one record so far: their count, failures, Z3 seconds and fields."""

    def __init__(self, record_id: str | None, line: int | None, source: str | None) -> None:
        self.id = record_id
        self.line = line
        self.source = source
        self.checks = 0
        self.failures: list[CheckFailure] = []
        self.z3_seconds = 0.0
        self.fields: dict[str, int] = {}

    def fail(self, check: str, message: str) -> None:
        """Keep a failure of ``check``."""
        self.failures.append(CheckFailure(self.id, self.line, check, message, self.source))

    def run(self, check: str, action: Callable[[], Any], *, stop: bool = False) -> Any:
        """Run one check; record a failure instead of raising. ``stop``: abort on failure
        (raise :class:`_Stop`)."""
        self.checks += 1
        try:
            return action()
        except TwoSatFormalError as exc:
            self.fail(check, str(exc))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            self.fail(check, f"{type(exc).__name__}: {exc}")
        if stop:
            raise _Stop
        return None


def fail_with(message: str) -> Callable[[], None]:
    """A check that always fails with ``message``."""

    def action() -> None:
        raise ConfigError(message)

    return action


@dataclass(frozen=True)
class Derived:
    """The outcome of one re-derivation, run before its check is counted.

    An instance is re-derived before its solver checks so that the ``scc`` backend's
    answer can be read off the re-derived record
    (:func:`~twosat_formal.certify.instance.scc_label`); its failures are still
    reported after those checks, in the order they always were.
    """

    value: Any = None
    error: Exception | None = None

    @classmethod
    def of(cls, derive: Callable[[], Any]) -> Derived:
        """Run ``derive``: its value, or the error it raised."""
        try:
            return cls(value=derive())
        except Exception as exc:  # a re-derivation that cannot run is a failure, never a pass
            return cls(error=exc)


def compare(c: Checker, check: str, kind: str, record: Any, expected: Any) -> None:
    """Compare a record with its re-derived form; one failure listing the differences."""
    from twosat_formal.core.fieldclass import compare_record

    result = compare_record(kind, record, expected)
    for cls, n in result.counts.items():
        c.fields[cls] = c.fields.get(cls, 0) + n
    if result.differences:
        c.fail(check, "does not re-derive: " + "; ".join(result.differences))


def rederive(c: Checker, check: str, kind: str, record: Any, derived: Derived) -> None:
    """Report one re-derivation as a check; a failing step is named ``transform[i]:<op>``."""
    c.checks += 1
    exc = derived.error
    if isinstance(exc, TwoSatFormalError):
        step = getattr(exc, "step", None)
        c.fail(f"transform[{step[0]}]:{step[1]}" if step else check, str(exc))
        return
    if exc is not None:
        c.fail(check, f"{type(exc).__name__}: {exc}")
        return
    expected = derived.value
    c.z3_seconds += proof_seconds(expected)
    compare(c, check, kind, record, expected)


def proof_seconds(expected: Any) -> float:
    """The seconds the re-derivation spent proving (steps' proofs, round trips).

    >>> proof_seconds({"transforms": [{"proof": {"seconds": 0.5}}], "roundtrip": {"time_s": 1}})
    1.5
    """
    total = 0.0
    if not isinstance(expected, Mapping):
        return total
    for step in expected.get("transforms") or ():
        proof = step.get("proof") if isinstance(step, Mapping) else None
        if isinstance(proof, Mapping) and isinstance(proof.get("seconds"), int | float):
            total += float(proof["seconds"])
    roundtrip = expected.get("roundtrip")
    if isinstance(roundtrip, Mapping) and isinstance(roundtrip.get("time_s"), int | float):
        total += float(roundtrip["time_s"])
    return total
