"""Computations that record what they read, reused while every read answers the same.

A computation over the model (a unit's key, a unit's findings, a per-unit fact that looks
into other units) reads the model through a recording view (`RecordingView`): every
question it asks of a fact (a key looked up, a member tested, the whole fact iterated or
read as a value, a method called) is noted in a `ReadLog` with its answer. Its result is
reused on a later model exactly while every recorded question answers the same there
(`Recheck.holds`), so it never needs a list of its inputs kept by hand, and a new fact it
reads cannot be served stale by being forgotten.

Checking is cheap when little changed: the facts a log read are looked up once per model
(`Recheck`), and a fact that is data (a mapping, a set, a value) equal to the one the log
was last checked against answers every question as before, so its questions are not asked
again. A method's answers are asked again (most are memoised per unit or per model).

`JAX_LSP_VERIFY_REUSE` (the test suite sets it) recomputes every result reused this way and
fails loudly when it differs from the kept one.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Hashable, Iterator, Mapping, Set
from types import BuiltinMethodType, FunctionType, MethodType

VERIFY_REUSE = bool(os.environ.get("JAX_LSP_VERIFY_REUSE"))

_MISSING = object()
# What a recorded computation may call: its answers are recorded per call.
_CALLABLES = (MethodType, BuiltinMethodType, FunctionType)


class ReadLog:
    """The questions a computation asked of the model's facts, with their answers, by the
    path of the fact asked (`"module_globals.global_values"`), and the facts they were last
    checked against (see `Recheck`)."""

    __slots__ = ("checked", "facts", "recording", "shape", "unit_start")

    def __init__(self) -> None:
        # path -> {(question, argument key): (argument, answer)}
        self.facts: dict[str, dict[tuple[str, Hashable], tuple[object, object]]] = {}
        # The data facts, by path, of the model these answers were last found to hold on
        # (None: not known), and of the model being recorded on; held weakly: a log kept on a
        # node must not keep a model's facts, which may hold that node.
        self.checked: weakref.ref[Facts] | None = None
        self.recording: weakref.ref[Facts] | None = None
        # The first line of the unit whose computation read a fact at document lines (its
        # questions, or what it did with the answers, hold there only); None: read none.
        self.unit_start: int | None = None
        # The paths of `facts`, in order (None: not known since one was added): what
        # `Recheck.holds` looks the log up by when every fact it read is unchanged.
        self.shape: tuple[str, ...] | None = None

    def note(self, path: str, question: str, argument: object, answer: object) -> None:
        self.checked = self.recording  # a new answer holds on the model recorded on
        entries = self.facts.get(path)
        if entries is None:
            entries = self.facts[path] = {}
            self.shape = None
        try:
            entries[(question, argument)] = (argument, answer)
        except TypeError:  # an argument that is not hashable (a unit's parse)
            entries[(question, _identities(argument))] = (argument, answer)

    def update(self, other: ReadLog) -> None:
        """Add the questions of `other`."""
        if other.unit_start is not None:
            self.unit_start = other.unit_start
        if not other.facts:
            return
        if not self.facts:
            self.checked = other.checked
        elif self.checked is not other.checked:
            self.checked = None  # checked on other models: not known
        for path, entries in other.facts.items():
            own = self.facts.get(path)
            if own is None:
                self.facts[path] = dict(entries)
                self.shape = None
            else:
                own.update(entries)

    @classmethod
    def joined(cls, logs: list[ReadLog]) -> ReadLog:
        """The questions of all `logs` in one log, checked with one `Recheck.holds` (each fact
        looked up once, one look-up when none changed). Read-only: it shares the entries of a
        path only one of them asked, so nothing may be noted in it."""
        joined = cls()
        facts = joined.facts
        checked = [log.checked for log in logs if log.facts]
        for log in logs:
            if log.unit_start is not None:
                joined.unit_start = log.unit_start
            for path, entries in log.facts.items():
                own = facts.get(path)
                if own is None:
                    facts[path] = entries
                else:
                    facts[path] = own = dict(own)
                    own.update(entries)
        if checked and all(ref is checked[0] for ref in checked):
            joined.checked = checked[0]
        return joined

    def __len__(self) -> int:
        return sum(len(entries) for entries in self.facts.values())


def _identities(argument: object) -> Hashable:
    """An argument's parts by identity (a unit's parse, compared by identity)."""
    parts = argument if isinstance(argument, tuple) else (argument,)
    return ("by-identity", tuple(id(part) for part in parts))


def same(old: object, new: object) -> bool:
    # Syntax nodes have no equality of their own (identity: an unchanged unit keeps its
    # nodes); facts such as signatures are frozen dataclasses compared by value.
    return old is new or old == new


_VALUES = (str, int, float, bool, tuple, type(None))


_KINDS: dict[type, str] = {}


def _kind_of(kind: type) -> str:
    """How a fact of type `kind` is recorded: "call", "mapping", "set", "value", "object".
    Mappings, sets and values are data: an equal fact answers every question alike."""
    found = _KINDS.get(kind)
    if found is None:
        if issubclass(kind, _CALLABLES):
            found = "call"
        elif issubclass(kind, Mapping):
            found = "mapping"
        elif issubclass(kind, frozenset | set):
            found = "set"
        elif issubclass(kind, _VALUES):
            found = "value"
        else:
            found = "object"
        _KINDS[kind] = found
    return found


def _wrap(path: str, value: object, log: ReadLog, facts: dict[str, object] | None) -> object:
    kind = _KINDS.get(type(value)) or _kind_of(type(value))
    if kind == "call":
        return recorded_call(path, value, log)  # type: ignore[arg-type]
    if kind == "object":
        return RecordedObject(path, value, log, facts)
    if facts is not None:
        facts[path] = value
    if kind == "mapping":
        return RecordedMapping(path, value, log)
    if kind == "set":
        return RecordedSet(path, value, log)
    log.note(path, "value", None, value)
    return value


class _RecordedWhole:
    """A collection fact read whole when it is iterated or counted: the answer recorded is
    the collection itself. Each question is noted in the log's entries for the fact's path
    (fetched once: most computations ask a fact many questions)."""

    __slots__ = ("_data", "_entries", "_log", "_path")

    def __init__(self, path: str, data, log: ReadLog) -> None:
        self._path, self._data, self._log = path, data, log
        self._entries: dict | None = None

    def _noted(self) -> dict:
        entries = self._entries
        if entries is None:
            log = self._log
            entries = log.facts.get(self._path)
            if entries is None:
                entries = log.facts[self._path] = {}
                log.shape = None
            self._entries = entries
        self._log.checked = self._log.recording  # a new answer holds on the model recorded on
        return entries

    def whole(self):
        """The collection itself, read whole (its answer recorded)."""
        self._noted()[("all", None)] = (None, self._data)
        return self._data

    def __iter__(self) -> Iterator:
        return iter(self.whole())

    def __len__(self) -> int:
        return len(self.whole())


class RecordedMapping(_RecordedWhole, Mapping):
    """A read-only mapping fact that records each key looked up, and the whole mapping when it
    is iterated or counted."""

    __slots__ = ()

    def __getitem__(self, key):
        value = self._data.get(key, _MISSING)
        self._noted()[("item", key)] = (key, value)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def get(self, key, default=None):
        value = self._data.get(key, _MISSING)
        self._noted()[("item", key)] = (key, value)
        return default if value is _MISSING else value

    def __contains__(self, key) -> bool:
        value = self._data.get(key, _MISSING)
        self._noted()[("item", key)] = (key, value)
        return value is not _MISSING

    def keys(self):
        return self.whole().keys()

    def items(self):
        return self.whole().items()

    def values(self):
        return self.whole().values()


class RecordedSet(_RecordedWhole, Set):
    """A set fact that records each member tested, and the whole set when it is iterated."""

    __slots__ = ()

    @classmethod
    def _from_iterable(cls, it):
        return frozenset(it)

    def __contains__(self, item) -> bool:
        found = item in self._data
        self._noted()[("in", item)] = (item, found)
        return found

    def isdisjoint(self, other) -> bool:
        return self.whole().isdisjoint(other)


class RecordedObject:
    """An object holding facts (a fact object of the model, HashFacts, ModuleState): its
    attributes recorded as facts of their own, its methods' calls with their arguments and
    results."""

    __slots__ = ("_data", "_facts", "_log", "_path", "_read")

    def __init__(
        self, path: str, data: object, log: ReadLog, facts: dict[str, object] | None = None
    ) -> None:
        self._path, self._data, self._log, self._facts = path, data, log, facts
        self._read: dict[str, object] = {}

    def __getattr__(self, name: str):
        found = self._read.get(name)
        if found is None:
            value = getattr(self._data, name)
            found = self._read[name] = _wrap(f"{self._path}.{name}", value, self._log, self._facts)
        return found


class _UnitStart:
    """In a recorded call's arguments: the first line of the unit the computation ran for,
    asked again at the unit's line where its result is reused (`Recheck.holds`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNIT_START"


UNIT_START = _UnitStart()


def recorded_call(path: str, method: Callable, log: ReadLog, unit_start: int | None = None):
    """`method`, its calls noted in `log`. With `unit_start`: a method asked with the unit's
    first line (its first argument), noted as `UNIT_START` (its answer must hold no document
    line); asked at another line, the log holds at this unit's line only."""

    def call(*args):
        result = method(*args)
        if isinstance(result, dict | list | set):  # a caller could change the recorded answer
            raise TypeError(f"{path} answers with a mutable {type(result).__name__}")
        noted = args
        if unit_start is not None:
            if args[:1] == (unit_start,):
                noted = (UNIT_START, *args[1:])
            else:
                log.unit_start = unit_start
        log.note(path, "call", noted, result)
        return result

    return call


def whole(fact: object) -> object:
    """A fact read whole: the underlying object (its answer recorded when `fact` is a
    recording view), for code that caches what it derives from all of it."""
    return fact.whole() if isinstance(fact, RecordedMapping | RecordedSet) else fact


class RecordingView:
    """`subject` (the model) as a recorded computation sees it: every attribute read answers
    through a recording wrapper noting each question in `log`. `recheck`: the checks of the
    subject's model, which learn the facts looked up (so that logs recorded here are checked
    cheaply on the next model)."""

    def __init__(self, subject: object, log: ReadLog, recheck: Recheck | None = None) -> None:
        self._subject = subject
        self._log = log
        self._facts = recheck.facts if recheck is not None else None
        log.recording = recheck.facts_ref if recheck is not None else None

    def __getattr__(self, name: str):
        value = _wrap(name, getattr(self._subject, name), self._log, self._facts)
        object.__setattr__(self, name, value)  # later reads: a plain attribute
        return value

    def value(self, name: str) -> object:
        """The attribute `name` read whole, as a value compared with `==` (an object whose
        equality covers all it answers)."""
        found = getattr(self._subject, name)
        self._log.note(name, "value", None, found)
        return found


def entries_hold(target: object, entries: dict, unit_start: int | None = None) -> bool:
    """Does `target` answer each of `entries`' questions as recorded, for a unit at
    `unit_start`? (Run for every question on a fact that changed: the questions' kinds are
    told apart inline.)"""
    for (question, _), (argument, answer) in entries.items():
        if question == "item":
            found = target.get(argument, _MISSING)  # type: ignore[attr-defined]
        elif question == "in":
            found = argument in target  # type: ignore[operator]
        elif question == "call":
            if argument and argument[0] is UNIT_START:
                if unit_start is None:
                    return False
                argument = (unit_start, *argument[1:])
            found = target(*argument)  # type: ignore[operator]
        else:
            found = target
        if found is not answer and found != answer:
            return False
    return True


class Facts(dict):
    """The data facts of one model that logs were checked against, by path (a dict that can
    be referred to weakly)."""

    __slots__ = ("__weakref__",)


class Recheck:
    """The checks of recorded logs against one model (`holds`), sharing what they look up:
    each fact by its path, and whether a data fact equals the one another model's logs were
    checked against."""

    __slots__ = ("_found", "_since", "facts", "facts_ref", "subject")

    def __init__(self, subject: object) -> None:
        self.subject = subject
        # path -> the fact at that path of this model, when it is data: what the logs
        # checked here keep, to be compared with the next model's
        self.facts = Facts()
        self.facts_ref = weakref.ref(self.facts)
        # path -> the fact at that path, but a method
        self._found: dict[str, object] = {}
        # id of the facts logs were checked against -> those facts (kept alive, so that no
        # other takes the id) and, by path, whether this model's fact is equal (by the
        # paths of a log, its shape: those that are not)
        self._since: dict[int, tuple[dict[str, object], dict[object, object]]] = {}

    def fact(self, path: str) -> object:
        found = self._found.get(path, _MISSING)
        if found is _MISSING:
            found = self.subject
            for name in path.split("."):
                found = getattr(found, name)
            kind = _KINDS.get(type(found)) or _kind_of(type(found))
            if kind == "call":
                # Not kept: a method bound to the model would make a cycle (the model holds
                # this object), which only the cycle collector frees.
                return found
            self._found[path] = found
            if kind != "object":
                self.facts[path] = found
        return found

    def holds(self, log: ReadLog, unit_start: int | None = None) -> bool:
        """Does every question in `log` get the same answer from this model, for a unit at
        `unit_start` (a question asked with the unit's first line is asked at this one; when
        the log read a fact at document lines, the unit it was recorded for must be there
        still)? Then the log is checked against this model's facts from now on."""
        if log.unit_start is not None and log.unit_start != unit_start:
            return False
        if not log.facts:
            return True  # nothing read: nothing to check (and nothing to compare later)
        checked = log.checked() if log.checked is not None else None
        if checked is None or checked is self.facts:
            for path, entries in log.facts.items():
                if not entries_hold(self.fact(path), entries, unit_start):
                    return False
            log.checked = self.facts_ref
            return True
        entry = self._since.get(id(checked))
        if entry is None:
            entry = self._since[id(checked)] = (checked, {})
        verdicts = entry[1]
        shape = log.shape
        if shape is None:
            shape = log.shape = tuple(log.facts)
        # Most logs read the same few facts, of which one or two changed (the edited unit's
        # nodes are in them): the paths that changed are found once per shape of log, and
        # each log asks its questions of those alone.
        changed = verdicts.get(shape)
        if changed is None:
            found = []
            for path in shape:
                verdict = verdicts.get(path)
                if verdict is None:
                    old = checked.get(path, _MISSING)
                    verdict = verdicts[path] = old is not _MISSING and same(old, self.fact(path))
                if verdict:
                    continue
                found.append(path)
                if not entries_hold(self.fact(path), log.facts[path], unit_start):
                    return False
            verdicts[shape] = tuple(found)
        else:
            facts = log.facts
            for path in changed:
                if not entries_hold(self.fact(path), facts[path], unit_start):
                    return False
        log.checked = self.facts_ref
        return True
