"""The exception family: one root, each error also a builtin, all public errors in errors.py."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import twosat_formal
from twosat_formal import errors
from twosat_formal.errors import (
    ArgumentTypeError,
    EvaluationError,
    ModelHTTPError,
    SentenceError,
    TransientModelError,
    TwoSatFormalError,
    expect_type,
    request_error,
)

BUILTINS = (ValueError, KeyError, RuntimeError, ImportError, TypeError, OSError)


def _public_error_classes() -> list[type[BaseException]]:
    return [
        value
        for name in errors.__all__
        if inspect.isclass(value := getattr(errors, name)) and issubclass(value, BaseException)
    ]


@pytest.mark.parametrize("cls", _public_error_classes(), ids=lambda c: c.__name__)
def test_every_public_error_is_a_twosat_error_and_a_builtin(cls: type[BaseException]) -> None:
    assert issubclass(cls, TwoSatFormalError)
    if cls is not TwoSatFormalError:
        assert issubclass(cls, BUILTINS), f"{cls.__name__} inherits no matching builtin"


@pytest.mark.parametrize("cls", _public_error_classes(), ids=lambda c: c.__name__)
def test_the_docstring_tree_names_every_error(cls: type[BaseException]) -> None:
    assert errors.__doc__ is not None and cls.__name__ in errors.__doc__


def test_model_errors_are_evaluation_errors_and_runtime_errors() -> None:
    transient = TransientModelError("HTTP 429", status=429, retry_after=2.0)
    refused = ModelHTTPError("HTTP 400", status=400, detail="bad request")
    assert isinstance(transient, EvaluationError) and isinstance(transient, RuntimeError)
    assert (transient.status, transient.retry_after) == (429, 2.0)
    assert isinstance(refused, EvaluationError) and (refused.status, refused.detail) == (
        400,
        "bad request",
    )
    assert not isinstance(refused, TransientModelError)


def test_sentence_error_is_a_value_error_with_its_entity() -> None:
    err = SentenceError("unknown entity 'X'", entity="X")
    assert isinstance(err, ValueError) and isinstance(err, TwoSatFormalError)
    assert err.entity == "X" and str(err) == "unknown entity 'X'"


def test_request_error_sorts_time_outs_from_connection_failures() -> None:
    timed_out = request_error(TimeoutError(), "http://127.0.0.1:9/v1/chat/completions")
    dropped = request_error(ConnectionResetError("peer reset"), "http://127.0.0.1:9/v1")
    assert isinstance(timed_out, TransientModelError) and "timed out" in str(timed_out)
    assert (
        str(dropped) == "request to http://127.0.0.1:9/v1 failed: ConnectionResetError: peer reset"
    )


def test_old_import_paths_name_the_same_classes() -> None:
    from twosat_formal.evaluate.models.base import TransientModelError as FromBase
    from twosat_formal.evaluate.models.openai_compat import ModelHTTPError as FromClient
    from twosat_formal.verbalize.schemes import SentenceError as FromSchemes

    assert (FromBase, FromClient, FromSchemes) == (
        TransientModelError,
        ModelHTTPError,
        SentenceError,
    )


def test_no_module_defines_a_public_exception_outside_errors() -> None:
    import pkgutil

    outside = []
    for info in pkgutil.walk_packages(twosat_formal.__path__, "twosat_formal."):
        module = __import__(info.name, fromlist=["_"])
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and not name.startswith("_")
                and value.__module__ == info.name
                and info.name != "twosat_formal.errors"
            ):
                outside.append(f"{info.name}.{name}")
    assert outside == []


def test_raises_writes_one_entry_per_error_before_the_examples() -> None:
    def parse(text: str) -> None:
        """Parse ``text``.

        Examples
        --------
        >>> parse("a")
        """

    documented = errors.raises(errors.ParseError, errors.NotTwoCNFError)(parse)
    assert documented is parse and parse.__doc__ is not None
    raises_at, examples_at = parse.__doc__.index("Raises\n"), parse.__doc__.index("Examples\n")
    assert raises_at < examples_at
    for error in (errors.ParseError, errors.NotTwoCNFError):
        assert error.__doc__ is not None
        summary = error.__doc__.splitlines()[0]
        assert f"        {error.__name__}\n            {summary}\n" in parse.__doc__


def test_raises_needs_an_examples_heading_and_passes_over_a_stripped_docstring() -> None:
    def bare() -> None:
        """No sections."""

    with pytest.raises(TypeError, match="bare's docstring has no Examples heading"):
        errors.raises(errors.ParseError)(bare)
    bare.__doc__ = None  # as under python -OO
    assert errors.raises(errors.ParseError)(bare).__doc__ is None


@settings(max_examples=60, deadline=None)
@given(
    value=st.one_of(
        st.none(), st.integers(), st.floats(), st.text(), st.binary(), st.lists(st.integers())
    ),
    types=st.sampled_from([str, (str, bytes), int, (list, tuple)]),
)
def test_expect_type_refuses_exactly_a_value_of_none_of_the_types(
    value: object, types: type | tuple[type, ...]
) -> None:
    """An ArgumentTypeError (ConfigError and TypeError) naming the type given, or nothing."""
    if isinstance(value, types):
        expect_type(value, types, parameter="x", valid="V")
        return
    with pytest.raises(ArgumentTypeError) as info:
        expect_type(value, types, parameter="x", valid="V", what="the x")
    assert isinstance(info.value, TypeError) and isinstance(info.value, errors.ConfigError)
    assert str(info.value) == f"the x must be V, not {type(value).__name__}"
    assert (info.value.parameter, info.value.valid) == ("x", "V")
