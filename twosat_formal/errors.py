"""The exception family of twosat-formal.

Every error the library raises on purpose derives from :class:`TwoSatFormalError`.
Each subclass also inherits the matching builtin, so ``except ValueError`` keeps
working for callers who do not know this package. Context travels as fields, never
only inside the message. The hierarchy::

    TwoSatFormalError
    ├── ParseError (ValueError)             text that is not a formula, prompt or record
    ├── SentenceError (ValueError)          a sentence no verbalizer pattern reads back
    ├── NotTwoCNFError (ValueError)         a clause with more than two literals
    ├── ConfigError (ValueError)            a parameter out of range, an impossible request
    ├── UnknownNameError (KeyError)         a name no registry knows
    ├── CertificateError (ValueError)       a model or cycle that does not certify a label
    ├── RecordError (ValueError)            a malformed JSON Lines record
    ├── SolverDisagreementError (RuntimeError)  two backends, two labels
    ├── ProofError (RuntimeError)           a Z3 proof that failed or came back unknown
    ├── MissingExtraError (ImportError)     an optional dependency; names the extra
    └── EvaluationError (RuntimeError)      a model request that failed for good
        ├── TransientModelError             worth retrying: HTTP 408/429/5xx, time-out, drop
        └── ModelHTTPError                  refused for good: any other HTTP 4xx

The CLI prints any of them as one line on stderr and exits with code 2.
:func:`request_error` is the one place where a failed HTTP request (an aiohttp
client error or a time-out) becomes a :class:`TransientModelError`.

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
    "MissingExtraError",
    "ModelHTTPError",
    "NotTwoCNFError",
    "ParseError",
    "ProofError",
    "RecordError",
    "SentenceError",
    "SolverDisagreementError",
    "TransientModelError",
    "TwoSatFormalError",
    "UnknownNameError",
    "request_error",
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


class SentenceError(TwoSatFormalError, ValueError):
    """A sentence that fits no pattern of the scheme, or names an unknown entity.

    The back-parser turns it into a :class:`ParseError` that names the line;
    ``entity`` is the unknown entity, when that is what went wrong.
    """

    def __init__(self, message: str, *, entity: str | None = None) -> None:
        self.entity = entity
        super().__init__(message)


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


class TransientModelError(EvaluationError):
    """A failure worth retrying: HTTP 408/429/5xx, a time-out, a dropped connection.

    ``status`` is the HTTP status, when there was one, and ``retry_after`` the
    server's Retry-After hint in seconds, when it gave one.
    """

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        self.status = status
        self.retry_after = retry_after
        super().__init__(message)


class ModelHTTPError(EvaluationError):
    """A request the server refused for good (HTTP 4xx other than 408 and 429).

    ``status`` is the HTTP status and ``detail`` the server's error message (trimmed).
    """

    def __init__(self, message: str, *, status: int, detail: str | None = None) -> None:
        self.status = status
        self.detail = detail
        super().__init__(message)


def request_error(exc: BaseException, where: str) -> TransientModelError:
    """The :class:`TransientModelError` of an HTTP request to ``where`` that failed.

    ``exc`` is what the HTTP client raised: a time-out (aiohttp's time-outs are
    :class:`TimeoutError` subclasses) or a client error (refused, dropped or reset
    connection, broken HTTP). Raise the result ``from None``.

    >>> str(request_error(TimeoutError(), "http://127.0.0.1:9/v1/completions"))
    'request to http://127.0.0.1:9/v1/completions timed out (TimeoutError)'
    >>> str(request_error(ConnectionResetError("reset"), "http://h/v1"))
    'request to http://h/v1 failed: ConnectionResetError: reset'
    """
    if isinstance(exc, TimeoutError):
        return TransientModelError(f"request to {where} timed out ({type(exc).__name__})")
    return TransientModelError(f"request to {where} failed: {type(exc).__name__}: {exc}")


class MissingExtraError(TwoSatFormalError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""
