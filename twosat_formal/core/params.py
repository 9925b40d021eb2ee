"""User-given parameters, validated by pydantic as records are: one typed table per owner.

Families (``--set KEY=VALUE``), perturbation operators, sampling parameters and model
spec options (``ref/bounded?budget=N``) declare their parameters; each table is a
pydantic ``TypedDict`` adapter (:func:`table`) that refuses unknown keys and checks
each value strictly (``true`` is no integer) against its type, bounds and choices.
Command-line text is read first by the field's reader (:func:`from_text`).
:func:`validate` returns the typed values, or raises the owner's error for the first
fault, which names the parameter. An owner whose parameters each have their own words
(a config's fields, a writer's options) declares a :class:`Rule` per parameter (type,
what is valid, message) and checks them with :func:`check`, whose
:class:`~twosat_formal.errors.ConfigError` carries the rule's message and ``valid``;
an owner with its own words for an unknown key passes them to :func:`check`. A rule
used by several owners is defined once (:data:`COUNT`; a spec option's form of a rule:
:func:`twosat_formal.evaluate.models.base.spec_option`).

Examples
--------
>>> from typing import Annotated
>>> from pydantic import Field
>>> count = Annotated[int, from_text(int), Field(ge=0)]
>>> demo = table("demo", {"count": count})
>>> validate(demo, {"count": "3"}, lambda key, unknown: ValueError(key))
{'count': 3}
>>> validate(demo, {"count": True}, lambda key, unknown: ValueError(f"bad {key}"))
Traceback (most recent call last):
...
ValueError: bad count
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, NamedTuple, Protocol

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    with_config,
)
from typing_extensions import TypedDict

from twosat_formal._util.recent import Recent
from twosat_formal.errors import ConfigError

__all__ = [
    "COUNT",
    "MAX_STORED",
    "MUST",
    "STORED_COUNT",
    "Declared",
    "Problem",
    "Rule",
    "check",
    "from_text",
    "rules_table",
    "table",
    "table_of",
    "validate",
]

#: ``TypedDict``'s functional form, with field names known only at run time.
_TYPED_DICT: Any = TypedDict
#: A table refuses unknown keys and converts nothing it is not told to. (A field's bounds
#: come before its readers in its ``Annotated``, so that pydantic checks them natively.)
_STRICT = ConfigDict(extra="forbid", strict=True)

#: Builds the owner's error from the offending key and whether the key is unknown.
Problem = Callable[[str, bool], Exception]


def from_text(read: Callable[[str], object]) -> BeforeValidator:
    """A validator that reads text with ``read`` before the type check; other values pass.

    Text that ``read`` refuses (:class:`ValueError`, :class:`ArithmeticError`) is kept
    as it is, so that the type check refuses it.

    >>> from typing import Annotated
    >>> TypeAdapter(Annotated[int, from_text(int)]).validate_python(" 7 ", strict=True)
    7
    """

    def before(value: object) -> object:
        if not isinstance(value, str):
            return value
        try:
            return read(value)
        except (ValueError, ArithmeticError):
            return value

    return BeforeValidator(before)


def table(name: str, fields: Mapping[str, Any]) -> TypeAdapter[dict[str, Any]]:
    """The validator of a parameter table: ``fields`` maps each key to its annotated type.

    Every key is optional (a table checks what is given; its owner fills defaults).

    >>> sorted(table("t", {"k": int, "x": str}).json_schema()["properties"])
    ['k', 'x']
    """
    typed = with_config(_STRICT)(_TYPED_DICT(name, dict(fields), total=False))
    return TypeAdapter(typed)


class Declared(Protocol):
    """A declared parameter: its key and its annotated type."""

    @property
    def name(self) -> str: ...

    @property
    def annotation(self) -> Any: ...


#: The tables of declarations, by the identity of the declaring sequence (held, so
#: that its identity stays its own): found again without hashing every parameter.
_BUILT: Recent[int, tuple[Sequence[Declared], TypeAdapter[dict[str, Any]]]] = Recent(256)


def table_of(name: str, declared: Sequence[Declared]) -> TypeAdapter[dict[str, Any]]:
    """The table of the ``declared`` parameters, built once per sequence.

    >>> class P:
    ...     name, annotation = "n", int
    >>> params = (P(),)
    >>> table_of("t", params) is table_of("t", params)
    True
    """
    held = _BUILT.get(id(declared))
    if held is None or held[0] is not declared:
        held = (declared, table(name, {d.name: d.annotation for d in declared}))
        _BUILT.put(id(declared), held)
    return held[1]


def validate(
    adapter: TypeAdapter[dict[str, Any]], params: Mapping[str, object], problem: Problem
) -> dict[str, Any]:
    """``params`` checked by ``adapter``, typed; ``problem(key, unknown)`` for the first fault.

    ``unknown`` says that ``key`` is not in the table (else its value is invalid); an
    unknown key is reported before any invalid value.
    """
    try:
        return adapter.validate_python(dict(params))
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        raise problem(str(first["loc"][0]), first["type"] == "extra_forbidden") from None


class Rule(NamedTuple):
    """A parameter's rule: its annotated type, what is valid (the error's ``valid``) and
    its error's message, formatted with ``key``, ``value`` and ``valid``."""

    type: Any
    valid: str
    message: str = "{key} must be {valid}, got {value!r}"


#: The message of a rule whose error reads ``top_p must be a number in (0, 1], not 2.0``.
MUST = "{key} must be {valid}, not {value!r}"
#: A count: an integer >= 1 (``true`` is none).
COUNT = Rule(Annotated[int, Field(ge=1)], "an integer >= 1")
#: The largest integer a run store holds (SQLite's INTEGER is a signed 64-bit number):
#: a count or index read to be stored is refused beyond it when it is read.
MAX_STORED = 2**63 - 1
#: A count or index that a store holds: an integer in [0, :data:`MAX_STORED`].
STORED_COUNT = Annotated[int, Field(ge=0, le=MAX_STORED)]


def rules_table(name: str, rules: Mapping[str, Rule]) -> TypeAdapter[dict[str, Any]]:
    """The table of ``rules`` (:func:`table` of their types)."""
    return table(name, {key: rule.type for key, rule in rules.items()})


def check(
    adapter: TypeAdapter[dict[str, Any]],
    rules: Mapping[str, Rule],
    given: Mapping[str, object],
    unknown: Callable[[str], Exception] | None = None,
) -> dict[str, Any]:
    """``given`` checked by ``adapter``, the table of ``rules``; the first fault is a
    :class:`ConfigError` with its rule's message, ``parameter`` and ``valid``.

    A key that is not in ``adapter``'s table is ``unknown(key)``, by default a
    :class:`ConfigError` that lists the keys of ``rules``.

    >>> from typing import Annotated
    >>> from pydantic import Field
    >>> rules = {"size": Rule(Annotated[int, Field(ge=1)], "an integer >= 1")}
    >>> check(rules_table("demo", rules), rules, {"size": 0})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: size must be an integer >= 1, got 0
    >>> rules = {"size": COUNT._replace(message=MUST)}
    >>> check(rules_table("demo", rules), rules, {"size": 2.0})
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: size must be an integer >= 1, not 2.0
    >>> check(rules_table("demo", rules), rules, {"sise": 2}, lambda key: KeyError(key))
    Traceback (most recent call last):
    ...
    KeyError: 'sise'
    """

    def problem(key: str, stranger: bool) -> Exception:
        if stranger:
            if unknown is not None:
                return unknown(key)
            return ConfigError(f"unknown parameter {key!r}", parameter=key, valid=", ".join(rules))
        rule = rules[key]
        message = rule.message.format(key=key, value=given[key], valid=rule.valid)
        return ConfigError(message, parameter=key, valid=rule.valid)

    return validate(adapter, given, problem)
