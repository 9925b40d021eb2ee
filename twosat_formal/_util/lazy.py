"""A cached property without a lock, for the objects built in hot loops.

:func:`functools.cached_property` takes a lock, shared by all instances, at each first
access on Python 3.11 (3.12 dropped it); a formula or a scan of a DIMACS text has
several such properties and certify builds a few per record. These objects are never
shared between threads while their properties are first computed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

__all__ = ["cached_property"]

_T = TypeVar("_T")


class cached_property(Generic[_T]):
    """:func:`functools.cached_property` without its lock.

    The value is stored in the instance's ``__dict__``, where later reads find it.

    >>> class Box:
    ...     @cached_property
    ...     def area(self) -> int:
    ...         print("computed")
    ...         return 6
    >>> box = Box()
    >>> box.area
    computed
    6
    >>> box.area
    6
    """

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...
    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.name] = value
        return value
