"""One small registry class; each kind of plug-in keeps one instance of it.

A plug-in's parameters are set on the command line as ``--set KEY=VALUE``;
:func:`split_setting` reads one such setting, for every kind of plug-in alike, and
:func:`set_twice` is the one error of a key given twice, wherever ``KEY=VALUE``
parameters are read (``--set`` of ``generate`` and ``perturb``, ``--body``, a model
spec's ``?key=value`` options): the last copy never silently wins. A
fixed table of names that is not a registry (modes, orders, metrics...) refuses an
unknown name through :func:`check_choice`, with the same kind of message.

Examples
--------
>>> shapes: Registry[int] = Registry("shape")
>>> @shapes.register("square")
... def square() -> int:
...     return 4
>>> shapes.get("square")()
4
>>> shapes.names()
['square']
>>> shapes.get("circle")
Traceback (most recent call last):
...
twosat_formal.errors.UnknownNameError: unknown shape 'circle'; choose one of: square
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from twosat_formal.errors import ConfigError, TwoSatFormalError, UnknownNameError, expect_type

__all__ = ["Registry", "check_choice", "set_twice", "split_setting"]

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → plug-in table for one kind of plug-in (family, operator, template...)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator that registers its target under ``name`` and returns it unchanged."""

        def decorate(item: T) -> T:
            self.add(name, item)
            return item

        return decorate

    def add(self, name: str, item: T) -> None:
        """Register ``item`` under ``name``; a name may be registered once."""
        if name in self._items:
            raise TwoSatFormalError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = item

    def get(self, name: str) -> T:
        """The plug-in registered as ``name``; :class:`UnknownNameError` otherwise, and
        :class:`ArgumentTypeError` for a name that is no str (every name is one)."""
        expect_type(name, str, parameter=self.kind, valid="a name (a str)", what=f"a {self.kind}")
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, self.names()) from None

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._items)

    def items(self) -> list[tuple[str, T]]:
        """``(name, plug-in)`` pairs, in registration order."""
        return list(self._items.items())

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def split_setting(item: str) -> tuple[str, str]:
    """``(key, value)`` of a ``KEY=VALUE`` setting, split at the first ``=``, key stripped.

    Raises
    ------
    ConfigError
        For a setting without ``=`` or with an empty key.

    Examples
    --------
    >>> split_setting(" base_file=a=b.cnf")
    ('base_file', 'a=b.cnf')
    >>> split_setting("flip")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: setting 'flip' is not KEY=VALUE
    """
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"setting {item!r} is not KEY=VALUE", parameter="set", valid="KEY=VALUE")
    return key, value


def set_twice(key: str, *, where: str = "", parameter: str | None = None) -> ConfigError:
    """The error of parameter ``key`` given twice, in one wording for every command.

    ``where`` says where, when the key alone does not (``in model spec 'x'``,
    ``for step 2 (filler)``); ``parameter`` is :attr:`ConfigError.parameter` (``key``
    unless given).

    >>> str(set_twice("count", where="for step 1 (filler)"))
    "parameter 'count' is set twice for step 1 (filler)"
    """
    place = f" {where}" if where else ""
    return ConfigError(
        f"parameter {key!r} is set twice{place}",
        parameter=parameter if parameter is not None else key,
        valid="one value per key",
    )


def check_choice(value: object, choices: Iterable[str], *, what: str, parameter: str) -> None:
    """Refuse ``value`` unless it is one of ``choices``, naming them all.

    Parameters
    ----------
    value:
        The value asked for.
    choices:
        The valid names, in the order the error lists them (a dict: its keys).
    what:
        What ``value`` names, for the message (``"metric"``: ``unknown metric 'x'``).
    parameter:
        The offending parameter (:attr:`ConfigError.parameter`).

    Raises
    ------
    ConfigError
        ``unknown WHAT 'VALUE'``, with ``valid`` the comma-separated ``choices``.

    Examples
    --------
    >>> check_choice("forward", ("forward", "shuffled"), what="order", parameter="order")
    >>> check_choice("sideways", ("forward", "shuffled"), what="order", parameter="order")
    Traceback (most recent call last):
    ...
    twosat_formal.errors.ConfigError: unknown order 'sideways'
    """
    names = list(choices)
    if value not in names:
        raise ConfigError(f"unknown {what} {value!r}", parameter=parameter, valid=", ".join(names))
