"""The types of an evaluation's options, checked before any model is loaded.

:func:`~twosat_formal.evaluate.run.runner.run_eval` and
:class:`~twosat_formal.evaluate.run.runner.ModelAccess` take their options as keyword
arguments from Python code (``tf.evaluate(..., seed=1)``); one of the wrong type
(a str of strategies, a number as an endpoint, text as a time-out) is refused here
with an :class:`~twosat_formal.errors.ArgumentTypeError` naming it, rather than
failing deep in a request, read one character at a time, or taken as true.

Examples
--------
>>> check_seconds(2.5, "timeout_s")
>>> check_seconds("30", "timeout_s")
Traceback (most recent call last):
...
twosat_formal.errors.ArgumentTypeError: timeout_s must be a number of seconds or None, not str
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from twosat_formal.errors import ArgumentTypeError, ConfigError, expect_type

__all__ = ["check_access_types", "check_run_types", "check_seconds"]

#: What a time-out may be, as messages say it.
_SECONDS = "a number of seconds or None"


def check_seconds(value: object, parameter: str) -> None:
    """Refuse a time-out that is neither ``None`` nor a positive, finite number.

    Raises
    ------
    ArgumentTypeError
        ``value`` is no int or float (a bool is none).
    ConfigError
        ``value`` is not positive and finite.
    """
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        expect_type(value, (), parameter=parameter, valid=_SECONDS)
        return
    if not 0 < value < math.inf:
        raise ConfigError(
            f"{parameter} must be a positive number of seconds, not {value}",
            parameter=parameter,
            valid="> 0",
        )


def _optional(value: object, types: type | tuple[type, ...], parameter: str, valid: str) -> None:
    if value is not None:
        expect_type(value, types, parameter=parameter, valid=valid)


def _names(value: object, parameter: str, valid: str) -> None:
    """Refuse ``value`` unless it is ``None``, a str, or a sequence (no str) of str."""
    if value is None or isinstance(value, str):
        return
    if isinstance(value, bytes) or not isinstance(value, Sequence):
        expect_type(value, (), parameter=parameter, valid=valid)
        return
    for item in value:
        expect_type(item, str, parameter=parameter, valid=valid)


def check_access_types(
    *,
    base_url: object,
    api_key_env: object,
    mode: object,
    timeout_s: object,
    executor: object,
    jobs: object,
    ray_address: object,
) -> None:
    """Refuse a :class:`~twosat_formal.evaluate.run.runner.ModelAccess` field of the
    wrong type (its values are checked where they are used).

    Raises
    ------
    ArgumentTypeError
        A field of the wrong type.
    ConfigError
        A time-out that is not positive and finite.
    """
    _names(base_url, "base_url", "an endpoint URL (a str), a list of them or None")
    _optional(api_key_env, str, "api_key_env", "an environment variable name (a str)")
    expect_type(mode, str, parameter="mode", valid="'chat' or 'completion'")
    check_seconds(timeout_s, "timeout_s")
    expect_type(executor, str, parameter="executor", valid="'local' or 'ray'")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int)):
        expect_type(jobs, (), parameter="jobs", valid="an int or None")
    _optional(ray_address, str, "ray_address", "a Ray address (a str) or None")


def check_run_types(
    params: object,
    retry: object,
    seed: object,
    request_timeout_s: object,
    retry_errors: object,
    strategies: object,
) -> None:
    """Refuse an option of :func:`~twosat_formal.evaluate.run.runner.run_eval` of the
    wrong type: a seed that is no int, a time-out that is no number, ``retry_errors``
    that is no bool, strategies that are no list (a str would be read one letter at a
    time).

    Raises
    ------
    ArgumentTypeError
        An option of the wrong type.
    ConfigError
        A seed that is no int, or a time-out that is not positive and finite.
    """
    from twosat_formal.core.model import SamplingParams
    from twosat_formal.evaluate.models.retry import RetryPolicy
    from twosat_formal.make.checks import check_seed
    from twosat_formal.verbalize.strategies import Strategy

    _optional(params, SamplingParams, "params", "a SamplingParams or None")
    _optional(retry, RetryPolicy, "retry", "a RetryPolicy or None")
    check_seed(seed)
    check_seconds(request_timeout_s, "request_timeout_s")
    expect_type(retry_errors, bool, parameter="retry_errors", valid="a bool")
    valid = "a list of strategy names or Strategy objects, or None"
    if strategies is not None:
        if isinstance(strategies, str | bytes) or not isinstance(strategies, Sequence):
            raise ArgumentTypeError(
                f"strategies must be {valid}, not {type(strategies).__name__}",
                parameter="strategies",
                valid=valid,
            )
        for strategy in strategies:
            expect_type(strategy, (str, Strategy), parameter="strategies", valid=valid)
