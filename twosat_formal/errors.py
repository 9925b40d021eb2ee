"""The exception family of twosat-formal.

Every error the library raises on purpose derives from :class:`TwoSatFormalError`.
Each subclass also inherits the matching builtin, so ``except ValueError`` keeps
working for callers who do not know this package. Context travels as fields, never
only inside the message. The hierarchy::

    TwoSatFormalError
    ├── ParseError (ValueError)             text that is not a formula, prompt or record
    │   └── LineLimitError                  a DSL formula line past its size bounds
    ├── SentenceError (ValueError)          a sentence no verbalizer pattern reads back
    ├── NotTwoCNFError (ValueError)         an empty clause or one wider than two
    ├── ConfigError (ValueError)            a parameter out of range, an impossible request
    │   ├── NoTwinError                     no one-clause change flips the label
    │   └── ArgumentTypeError (TypeError)   a Python argument of a type the call does not take
    ├── UnknownNameError (KeyError)         a name no registry knows
    ├── CertificateError (ValueError)       a model or cycle that does not certify a label
    ├── UnverifiedPromptError (ValueError)  a prompt its instance does not re-derive
    ├── RecordError (ValueError)            a malformed JSON Lines record
    ├── SolverDisagreementError (RuntimeError)  two backends, two labels
    ├── ProofError (RuntimeError)           a Z3 proof that failed or came back unknown
    ├── MissingExtraError (ImportError)     an optional dependency; names the extra
    ├── MissingFolderError (FileNotFoundError)  the folder an output would be written in
    └── EvaluationError (RuntimeError)      a model request that failed for good
        ├── TransientModelError             worth retrying: HTTP 408/429/5xx, time-out, drop
        ├── ModelHTTPError                  refused for good: any other HTTP 4xx
        └── EndpointError                   no request can work: refused, unknown host
            └── RefusedRequestError (also ModelHTTPError)  HTTP 401, 403, 404

The CLI prints any of them as one line on stderr and exits with the error's
``exit_code``: 2 (bad usage or input) unless the class says 1 (a failed check:
certificates, proofs, solver disagreement) or 3 (:class:`EndpointError`).
:func:`request_error` is the one place where a failed HTTP request (an aiohttp
client error or a time-out) becomes a :class:`TransientModelError`, or an
:class:`EndpointError` when the server cannot be reached at all.

Examples
--------
>>> try:
...     raise ParseError("expected a literal", line=3, column=7, source="f.cnf")
... except ValueError as err:
...     print(err)
f.cnf:3:7: expected a literal
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

__all__ = [
    "EXIT_CHECK_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REQUESTS_FAILED",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "ArgumentTypeError",
    "CertificateError",
    "ConfigError",
    "EndpointError",
    "EvaluationError",
    "LineLimitError",
    "MissingExtraError",
    "MissingFolderError",
    "ModelHTTPError",
    "NoTwinError",
    "NotTwoCNFError",
    "ParseError",
    "ProofError",
    "RecordError",
    "RefusedRequestError",
    "SentenceError",
    "SolverDisagreementError",
    "TransientModelError",
    "TwoSatFormalError",
    "UnknownNameError",
    "UnverifiedPromptError",
    "expect_items",
    "expect_type",
    "location",
    "raises",
    "request_error",
    "unreachable",
]


#: Exit codes of every command (the README's table lists them).
EXIT_OK = 0
#: A check that ran and failed (``certify``, a solver disagreement).
EXIT_CHECK_FAILED = 1
#: Bad usage or bad input: one line on stderr, no traceback.
EXIT_USAGE = 2
#: Model requests that failed: an endpoint that cannot be reached or refuses the
#: request, or a model every request of which failed.
EXIT_REQUESTS_FAILED = 3
#: Interrupted by Ctrl-C (what was stored stays stored).
EXIT_INTERRUPTED = 130
#: Stopped by ``SIGTERM``, with the same clean-up as Ctrl-C (128 + 15).
EXIT_TERMINATED = 143


class TwoSatFormalError(Exception):
    """Base class of every error raised on purpose by twosat-formal.

    ``exit_code`` is the command-line exit code of the error (:data:`EXIT_USAGE`
    unless a subclass says otherwise).
    """

    exit_code: int = EXIT_USAGE

    def __reduce__(self) -> tuple[object, ...]:
        # picklable whatever its constructor takes, so that it crosses to and from
        # worker processes (the process and Ray executors, models on Ray workers)
        return (_rebuild_error, (type(self), self.args, dict(self.__dict__)))


def _rebuild_error(
    cls: type[TwoSatFormalError], args: tuple[object, ...], state: dict[str, object]
) -> TwoSatFormalError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class ParseError(TwoSatFormalError, ValueError):
    """Text that is not a well-formed formula, prompt or record; it says where and why.

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


class LineLimitError(ParseError):
    """A DSL formula line past the bounds of :mod:`twosat_formal.core.propositional`
    (:data:`~twosat_formal.core.propositional.MAX_TOKENS` tokens,
    :data:`~twosat_formal.core.propositional.MAX_DEPTH` nested groups, or too many
    variables for one line): refused rather than converted at length."""


class SentenceError(TwoSatFormalError, ValueError):
    """A sentence that fits no pattern of the scheme, or names an unknown entity.

    The back-parser turns it into a :class:`ParseError` that names the line;
    ``entity`` is the unknown entity, when that is what went wrong.
    """

    def __init__(self, message: str, *, entity: str | None = None) -> None:
        self.entity = entity
        super().__init__(message)


class NotTwoCNFError(TwoSatFormalError, ValueError):
    """A 2-SAT-only operation was given an empty clause or one wider than two."""

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


class NoTwinError(ConfigError):
    """No one-clause change gives the formula the opposite label (the message says why)."""


class ArgumentTypeError(ConfigError, TypeError):
    """A Python argument of a type the call does not take (``parameter`` names it,
    ``valid`` the types it takes); also a :class:`TypeError`, as Python's own calls raise."""


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

    exit_code = EXIT_CHECK_FAILED


class UnverifiedPromptError(TwoSatFormalError, ValueError):
    """A prompt whose text is not the one its instance, template and seed re-derive.

    Raised before anything is sent to a model (exit code 2).
    """


class SolverDisagreementError(TwoSatFormalError, RuntimeError):
    """Two solver backends returned different labels for the same formula."""

    exit_code = EXIT_CHECK_FAILED


class ProofError(TwoSatFormalError, RuntimeError):
    """A Z3 proof that failed, found a counterexample, or came back ``unknown``."""

    exit_code = EXIT_CHECK_FAILED

    def __init__(self, message: str, *, counterexample: dict[str, bool] | None = None) -> None:
        self.counterexample = counterexample
        super().__init__(message)


def location(source: object, line: object) -> str:
    """Where a record is, as messages name it: ``FILE:LINE``, the part known, or ``''``.

    >>> location("data.jsonl", 3), location(None, 3), location(None, None)
    ('data.jsonl:3', '3', '')
    """
    return ":".join(str(part) for part in (source, line) if part is not None)


class RecordError(TwoSatFormalError, ValueError):
    """A malformed JSON Lines record (bad JSON, missing field, unknown schema version)."""

    def __init__(self, message: str, *, line: int | None = None, source: str | None = None):
        self.line = line
        self.source = source
        where = location(source, line)
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


def request_error(exc: BaseException, where: str) -> TransientModelError | EndpointError:
    """The error of an HTTP request to ``where`` that failed.

    ``exc`` is what the HTTP client raised: a time-out (aiohttp's time-outs are
    :class:`TimeoutError` subclasses) or a client error (refused, dropped or reset
    connection, broken HTTP). A refused connection and an unknown host give an
    :class:`EndpointError` (asking again will not heal them), the rest a
    :class:`TransientModelError`. Raise the result ``from None``.

    >>> str(request_error(TimeoutError(), "http://127.0.0.1:9/v1/completions"))
    'request to http://127.0.0.1:9/v1/completions timed out (TimeoutError)'
    >>> str(request_error(ConnectionResetError("reset"), "http://h/v1"))
    'request to http://h/v1 failed: ConnectionResetError: reset'
    >>> str(request_error(ConnectionRefusedError(111, "refused"), "http://h/v1"))
    'cannot use http://h/v1: connection refused'
    """
    reason = unreachable(exc)
    if reason is not None:
        return EndpointError(reason, endpoint=where)
    if isinstance(exc, TimeoutError):
        return TransientModelError(f"request to {where} timed out ({type(exc).__name__})")
    return TransientModelError(f"request to {where} failed: {type(exc).__name__}: {exc}")


class MissingExtraError(TwoSatFormalError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class MissingFolderError(TwoSatFormalError, FileNotFoundError):
    """The folder an output would be written in does not exist (``filename``: the folder).

    >>> print(MissingFolderError(2, "no such folder", "out/sub"))
    out/sub: no such folder
    """

    def __str__(self) -> str:
        return f"{self.filename}: no such folder"


class EndpointError(EvaluationError):
    """An endpoint that asking again will not heal: it cannot be reached (connection
    refused, unknown host) or it refuses the request (HTTP 401, 403, 404).

    ``endpoint`` is the URL asked, stripped of secrets; ``status`` the HTTP status when
    there was one. An evaluation stops at the first one (exit code
    :data:`EXIT_REQUESTS_FAILED`).

    >>> str(EndpointError("connection refused", endpoint="http://127.0.0.1:9/v1/completions"))
    'cannot use http://127.0.0.1:9/v1/completions: connection refused'
    """

    exit_code = EXIT_REQUESTS_FAILED

    def __init__(self, reason: str, *, endpoint: str, status: int | None = None) -> None:
        self.reason = reason
        self.endpoint = endpoint
        self.status = status
        super().__init__(f"cannot use {endpoint}: {reason}")


#: HTTP statuses that asking again will not change, and what to check for each.
FINAL_STATUS = {
    401: "check the API key (--api-key-env)",
    403: "check the API key's permissions",
    404: "check --base-url and the model id",
}


class RefusedRequestError(ModelHTTPError, EndpointError):  # type: ignore[misc]  # status: int
    """HTTP 401, 403 or 404: the endpoint refuses every request alike (no retry helps).

    >>> error = RefusedRequestError("http://h/v1/completions", status=404, detail="no model")
    >>> str(error)
    'cannot use http://h/v1/completions: HTTP 404: no model (check --base-url and the model id)'
    >>> isinstance(error, EndpointError), error.exit_code
    (True, 3)
    """

    def __init__(self, endpoint: str, *, status: int, detail: str | None = None) -> None:
        hint = FINAL_STATUS.get(status)
        reason = f"HTTP {status}: {detail or 'no detail'}" + (f" ({hint})" if hint else "")
        EndpointError.__init__(self, reason, endpoint=endpoint, status=status)
        self.detail = detail


def unreachable(exc: BaseException) -> str | None:
    """Why a connection error means the endpoint cannot be reached at all, or ``None``.

    >>> unreachable(ConnectionRefusedError(111, "Connection refused"))
    'connection refused'
    >>> unreachable(ConnectionResetError(104, "reset")) is None
    True
    """
    import socket

    for cause in (exc, getattr(exc, "os_error", None), exc.__cause__):
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "unknown host (DNS lookup failed)"
    if type(exc).__name__ == "ClientConnectorDNSError":
        return "unknown host (DNS lookup failed)"
    return None


_Documented = TypeVar("_Documented", bound=Callable[..., object])


def expect_type(
    value: object,
    types: type | tuple[type, ...],
    *,
    parameter: str,
    valid: str,
    what: str | None = None,
) -> None:
    """Refuse a Python argument ``value`` unless it is one of ``types``: the one type check
    of the package's functions.

    ``parameter`` names the argument, ``valid`` says what it takes, ``what`` how the
    message calls it (``parameter`` unless given).

    Raises
    ------
    ArgumentTypeError
        ``value`` is of none of ``types``; a :class:`TypeError` too.

    Examples
    --------
    >>> expect_type("a | b", str, parameter="text", valid="a str")
    >>> expect_type(3, str, parameter="text", valid="a str", what="formula text")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ArgumentTypeError: formula text must be a str, not int
    """
    if not isinstance(value, types):
        raise ArgumentTypeError(
            f"{what or parameter} must be {valid}, not {type(value).__name__}",
            parameter=parameter,
            valid=valid,
        )


def expect_items(value: object, *, parameter: str, valid: str) -> Sequence[Any]:
    """The items of a Python argument ``value``: an iterable that is no str, bytes or
    mapping (each of which would be read as its characters, bytes or keys), read once.
    A list or a tuple is returned as it is, any other iterable as a tuple of its items.

    Raises
    ------
    ArgumentTypeError
        ``value`` is a str, bytes, a mapping or not iterable; a :class:`TypeError` too.

    Examples
    --------
    >>> expect_items(iter([1, 2]), parameter="clause", valid="an iterable of literals")
    (1, 2)
    >>> expect_items("ab", parameter="names", valid="an iterable of names")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ArgumentTypeError: names must be an iterable of names, not str
    """
    if type(value) in (list, tuple):  # the common case, at once
        return value  # type: ignore[return-value]  # a list or a tuple: read as it is
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ArgumentTypeError(
            f"{parameter} must be {valid}, not {type(value).__name__}",
            parameter=parameter,
            valid=valid,
        )
    return tuple(value)


def raises(*errors: type[Exception]) -> Callable[[_Documented], _Documented]:
    """Write a function's ``Raises`` section from the errors' own summary lines.

    Functions of one contract (the 2-SAT-only operations, the parsers) raise an error
    for the same reason; the reason is worded once, on the error class, and each
    function names the error with ``@raises(...)``. The section goes in before the
    docstring's ``Examples`` heading, which it needs.

    Examples
    --------
    >>> @raises(NotTwoCNFError)
    ... def widths(formula):
    ...     '''The width of every clause.
    ...
    ...     Examples
    ...     --------
    ...     A unit clause has width 1.
    ...     '''
    >>> print(widths.__doc__.rstrip())
    The width of every clause.
    <BLANKLINE>
        Raises
        ------
        NotTwoCNFError
            A 2-SAT-only operation was given an empty clause or one wider than two.
    <BLANKLINE>
        Examples
        --------
        A unit clause has width 1.
    """

    def document(function: _Documented) -> _Documented:
        doc = function.__doc__
        if doc is None:  # python -OO
            return function
        heading = re.search(r"\n([ \t]*)Examples\n\1--------\n", doc)
        if heading is None:
            raise TypeError(f"{function.__qualname__}'s docstring has no Examples heading")
        indent = heading.group(1)
        section = [f"{indent}Raises\n{indent}------\n"]
        for error in errors:
            summary = (error.__doc__ or "").strip().split("\n")[0]
            section.append(f"{indent}{error.__name__}\n{indent}    {summary}\n")
        at = heading.start() + 1
        function.__doc__ = doc[:at] + "".join(section) + "\n" + doc[at:]
        return function

    return document
