"""The exception family of twosat-formal.

Every error the library raises on purpose derives from :class:`TwoSatFormalError`.
Each subclass also inherits the matching builtin, so ``except ValueError`` keeps
working for callers who do not know this package. Context travels as fields, never
only inside the message.

Examples
--------
>>> try:
...     raise ParseError("expected a literal", line=3, column=7, source="f.cnf")
... except ValueError as err:
...     print(err)
f.cnf:3:7: expected a literal
"""

from __future__ import annotations

__all__ = [
    "CertificateError",
    "ConfigError",
    "EvaluationError",
    "NotTwoCNFError",
    "ParseError",
    "ProofError",
    "RecordError",
    "SolverDisagreementError",
    "TwoSatFormalError",
    "UnknownNameError",
]


class TwoSatFormalError(Exception):
    """Base class of every error raised on purpose by twosat-formal."""


class ParseError(TwoSatFormalError, ValueError):
    """Text that is not a well-formed formula, prompt or record.

    Parameters
    ----------
    message:
        What was expected (or what went wrong), without the position.
    line, column:
        1-based position in the text, when known.
    source:
        The file name (or ``"<stdin>"``, ``"<string>"``), when known.
    context:
        The offending line of text, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        source: str | None = None,
        context: str | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.source = source
        self.context = context
        super().__init__(self.__str__())

    def located(self, source: str) -> ParseError:
        """Return a copy of this error that names ``source`` as its file."""
        return type(self)(
            self.message, line=self.line, column=self.column, source=source, context=self.context
        )

    def __str__(self) -> str:
        where = [str(part) for part in (self.source, self.line, self.column) if part is not None]
        return ":".join([*where, " " + self.message]) if where else self.message

    def __reduce__(self) -> tuple[object, ...]:  # picklable across worker processes
        return (
            _rebuild_parse_error,
            (type(self), self.message, self.line, self.column, self.source, self.context),
        )


def _rebuild_parse_error(
    cls: type[ParseError],
    message: str,
    line: int | None,
    column: int | None,
    source: str | None,
    context: str | None,
) -> ParseError:
    return cls(message, line=line, column=column, source=source, context=context)


class NotTwoCNFError(TwoSatFormalError, ValueError):
    """A 2-SAT-only operation was given a clause with more than two literals."""

    def __init__(self, message: str, *, clause_index: int | None = None) -> None:
        self.clause_index = clause_index
        super().__init__(message)


class ConfigError(TwoSatFormalError, ValueError):
    """A parameter outside its valid range, or an impossible request.

    ``parameter`` names the offending parameter and ``valid`` describes its range.
    """

    def __init__(self, message: str, *, parameter: str | None = None, valid: str | None = None):
        self.parameter = parameter
        self.valid = valid
        super().__init__(message)


class UnknownNameError(TwoSatFormalError, KeyError):
    """A name that no registry knows (family, operator, template, model...)."""

    def __init__(self, kind: str, name: str, choices: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.choices = choices
        super().__init__(f"unknown {kind} {name!r}; choose one of: {', '.join(choices)}")

    def __str__(self) -> str:  # KeyError would add quotes around the message
        return str(self.args[0])


class CertificateError(TwoSatFormalError, ValueError):
    """A model or contradiction cycle that does not certify the claimed label."""


class SolverDisagreementError(TwoSatFormalError, RuntimeError):
    """Two solver backends returned different labels for the same formula."""


class ProofError(TwoSatFormalError, RuntimeError):
    """A Z3 proof that failed, found a counterexample, or came back ``unknown``."""

    def __init__(self, message: str, *, counterexample: dict[str, bool] | None = None) -> None:
        self.counterexample = counterexample
        super().__init__(message)


class RecordError(TwoSatFormalError, ValueError):
    """A malformed JSON Lines record (bad JSON, missing field, unknown schema version)."""

    def __init__(self, message: str, *, line: int | None = None, source: str | None = None):
        self.line = line
        self.source = source
        where = ":".join(str(p) for p in (source, line) if p is not None)
        super().__init__(f"{where}: {message}" if where else message)


class EvaluationError(TwoSatFormalError, RuntimeError):
    """A model request that failed for good, or a model that could not be started."""
