"""`cached_property` without the lock of Python 3.11's `functools.cached_property`.

Before 3.12 the standard one takes a lock shared by every instance at each first read (and
runs in Python), which 3.12 dropped as useless: a model's facts are first read on every edit,
so each edit paid it for every fact of every fact object. A model is analysed by one thread
at a time, and a fact read twice at once would be computed twice to the same value, as 3.12
does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class cached_property(Generic[T]):
    """The value of `func(instance)`, computed at the first read and kept in the instance's
    `__dict__` under the attribute's name: a non-data descriptor, so later reads find it
    there without calling this one."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.attrname: str | None = None
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        if self.attrname is None:
            self.attrname = name
        elif name != self.attrname:
            raise TypeError(f"one cached_property named {self.attrname!r} and {name!r}")

    def __get__(self, instance: object, owner: type | None = None) -> T | Any:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.attrname] = value
        return value
