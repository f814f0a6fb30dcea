"""Per-unit memos: a computation's result kept on a unit's parse, keyed by the computation.

A result memoised on a unit's parse (`UnitSource.memo`) is reused on every later version of
the document in which the unit's text is unchanged. Its key is never spelled by hand: the
memoised function itself is the key, with the arguments it is given (`per_unit`), so a key
cannot collide with another's by a typo, nor leave out an input the function reads. Such a
function reads the unit (`source`) and its arguments only: a syntax node, a name, a setting,
or a fact of the model passed as a `Keyed` (the value with the key the fact made for it when
it was computed, e.g. `ModuleModel.aliases`: the import aliases' resolver keyed by the
bindings it resolves with).

Some per-unit facts also look up other units (the signature of a function named in a
`jax.jit(f, static_argnames=...)`, the static signature a called name is bound to): no key
can list those in advance. `reuse_reading` is the mechanism of `recorded` with one lookup as
what the computation reads: every question is recorded with its answer, and the result is
reused only while each still gets an equal answer, so a fact can never be served stale when
the unit it looked into changed (tests/analysis/test_unit_memo.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from types import FunctionType
from typing import Generic, Protocol, TypeVar

from jax_lsp.analysis import recorded
from jax_lsp.analysis.recorded import ReadLog, entries_hold, recorded_call

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")
T = TypeVar("T")

_MISSING = object()


class UnitSource(Protocol):
    """A unit's parse as its memo sees it (`document.UnitSource`, which imports this)."""

    memo: UnitMemo


class Keyed(Generic[T]):
    """A fact of the model given to a per-unit computation, with the key that stands for it
    in memo keys: made where the fact is computed, from all it answers with (equal keys,
    equal answers), so that no caller spells it. A memo keeps the key alone: an entry on a
    unit's parse must not hold a model's fact, which may hold other units' trees."""

    __slots__ = ("key", "value")

    def __init__(self, value: T, key: Hashable) -> None:
        self.value = value
        self.key = key

    def __repr__(self) -> str:
        return f"Keyed({self.key!r})"


def memo_key(compute: Callable, args: tuple) -> Hashable:
    """The key of `compute(source, *args)` in a unit's memo: the function and its arguments,
    a `Keyed` one by its key."""
    if not args:
        return compute
    return (compute, *[arg.key if type(arg) is Keyed else arg for arg in args])


class UnitMemo:
    """A unit's memo, bounded: the oldest entry goes first once `limit` are held.

    Many entries read facts of the whole module (its globals, the unit's place in it), so
    every edit that changes such a fact adds entries for the same computation, and a unit's
    text is shared by every document holding it (an `import jax` line in a hundred files).
    Unbounded, a long editing session grew by megabytes per hundred edits. An entry evicted
    while still wanted is computed again: a miss, never a wrong answer.
    """

    __slots__ = ("_entries", "_text", "limit")

    def __init__(self, text: str) -> None:
        self._entries: dict[Hashable, object] = {}
        # Every unit's memo holds this many; the text's own limit (larger with more functions)
        # is counted once the memo is that full, which most units' memos never are.
        self.limit = _MEMO_FLOOR
        self._text: str | None = text

    def __len__(self) -> int:
        return len(self._entries)

    def kept(self, owner: Callable, *args: Hashable) -> object | None:
        """What `owner` kept here for `args` (`keep`), or None: for a result `owner` builds
        in steps of its own (a unit's findings) rather than by one call."""
        key = (owner, *args) if args else owner
        for arg in args:  # asked for every unit at every keystroke: no call when none is Keyed
            if type(arg) is Keyed:
                key = memo_key(owner, args)  # type: ignore[assignment]
                break
        return self._entries.get(key)

    def keep(self, value: object, owner: Callable, *args: Hashable) -> None:
        """Keep `value` as `owner`'s result for `args`."""
        self._put(memo_key(owner, args), value)

    def _put(self, key: Hashable, value: object) -> None:
        entries = self._entries
        if len(entries) >= self.limit and key not in entries:
            if self._text is not None:
                self.limit, self._text = _memo_limit(self._text), None
            if len(entries) >= self.limit:
                del entries[next(iter(entries))]
        entries[key] = value


def _memo_limit(text: str) -> int:
    """Room for a few versions of every entry: some computations are memoised per function or
    lambda (their scope, returns, calls passed on), the rest once per unit."""
    return _MEMO_FLOOR + 16 * (text.count("def ") + text.count("lambda"))


_EDITOR_MEMO_FLOOR = 64
# The floor of a batch analysing each text once (`keep_more_entries`): its units' entries do
# not pile up version after version, and one dropped is only computed again (a summary, read
# by each model of the module, was among the first to go from a class's memo).
_BATCH_MEMO_FLOOR = 1024
_MEMO_FLOOR = _EDITOR_MEMO_FLOOR


def keep_more_entries(on: bool) -> None:
    """Give the memos made from now on room for more entries (on: for a batch analysing each
    text once, whose memory is freed with the process), or the default: the results are the
    same either way."""
    global _MEMO_FLOOR
    _MEMO_FLOOR = _BATCH_MEMO_FLOOR if on else _EDITOR_MEMO_FLOOR


def per_unit(compute: Callable[..., R]) -> Callable[..., R]:
    """`compute(source, *args)` memoised on the unit's parse, keyed by `compute` and `args`
    (hashable; a fact of the model passed as a `Keyed`). `compute` must read nothing but
    the unit and its arguments: what it reads of other units goes through `reuse_reading`."""
    check_computation(compute)
    return functools.wraps(compute)(_memoised(compute))


# The wrapper's own names, which no parameter may take.
_RESERVED = frozenset(["memo_", "key_", "found_", "compute_", "MISSING_", "recorded_", "memo_key_"])


def _memoised(compute: Callable[..., R]) -> Callable[..., R]:
    """`compute` memoised on its first argument's memo, by a function of the same parameters:
    some are asked of every unit at every keystroke, and a call through `*args` (packed,
    sliced, its `Keyed` ones found) cost twice the lookup. An argument annotated as `Keyed`
    is keyed by its key (or None)."""
    code = compute.__code__  # type: ignore[attr-defined]
    names = code.co_varnames[1 : code.co_argcount]
    defaults = compute.__defaults__ or compute.__kwdefaults__  # type: ignore[attr-defined]
    if defaults or code.co_flags & 0x0C or _RESERVED.intersection(names):  # *args, **kwargs
        raise TypeError(f"{compute!r}: a per-unit computation takes plain positional arguments")
    parts = []
    for name in names:
        annotation = str(compute.__annotations__.get(name, ""))
        if "Keyed" not in annotation:
            parts.append(name)
        elif "None" in annotation:
            parts.append(f"({name} if {name} is None else {name}.key)")
        else:
            parts.append(f"{name}.key")
    arguments = "".join(f", {name}" for name in names)
    key = f"(compute_, {', '.join(parts)})" if names else "compute_"
    given = "".join(f"{name}, " for name in names)
    text = f"""
def memoised(source{arguments}):
    memo_ = source.memo
    key_ = {key}
    found_ = memo_._entries.get(key_, MISSING_)
    if found_ is MISSING_:
        if recorded_.VERIFY_REUSE and key_ != memo_key_(compute_, ({given})):
            raise TypeError(f"{{compute_.__qualname__}}: a `Keyed` argument not annotated so")
        found_ = compute_(source{arguments})
        memo_._put(key_, found_)
    return found_
"""
    namespace = {
        "compute_": compute,
        "MISSING_": _MISSING,
        "recorded_": recorded,
        "memo_key_": memo_key,
    }
    exec(compile(text, f"<per_unit {compute.__qualname__}>", "exec"), namespace)
    return namespace["memoised"]  # type: ignore[return-value]


def check_computation(compute: Callable) -> None:
    """A memoised computation is a plain function: a method would read its object, a closure
    what it captured, and neither is part of the key."""
    if not isinstance(compute, FunctionType) or compute.__closure__ is not None:
        raise TypeError(f"{compute!r}: a per-unit computation is a function of its arguments")


def reuse_reading(
    source: UnitSource,
    compute: Callable[..., R],
    lookup: Callable[[K], object],
    *args: Hashable,
) -> R:
    """`compute(source, lookup, *args)` memoised on the unit's parse under `compute` and
    `args`, reused while `lookup` answers every question the computation asked as it did
    then (its calls recorded in a `ReadLog`)."""
    check_computation(compute)
    memo = source.memo
    entry = memo.kept(compute, *args)
    if entry is not None:
        result, asked = entry  # type: ignore[misc]
        if entries_hold(lookup, asked):
            if recorded.VERIFY_REUSE and not recorded.same(
                result, fresh := compute(source, lookup, *args)
            ):
                name = getattr(compute, "__qualname__", compute)
                raise AssertionError(f"{name}{args!r}: kept {result!r}, computed afresh {fresh!r}")
            return result
    log = ReadLog()
    result = compute(source, recorded_call("lookup", lookup, log), *args)
    memo.keep((result, log.facts.get("lookup", {})), compute, *args)
    return result
